#!/usr/bin/env python3
"""End-to-end kernel-language tests for tilec: the driver.

Each family is a folder tests/lang/<family>/ with the family's kernels in kernels.py and
its cases in cases.py, whose cases() registers them with harness.add/diag/func (harness.py
documents the case kinds). A case runs a kernel with `tilec run` on .npy arrays in a
temporary directory and compares the results with numpy references (exact for integers,
tight tolerances for floats), or runs `tilec compile` on a bad kernel and checks the exit
status and the `file:line:col: error:` first line. Adding a test touches one folder: the
kernel in kernels.py, its case next to it in cases.py; a new folder with a cases.py is a new
family (tests/lang/CMakeLists.txt registers one ctest per folder).

Why two files per family and not one module holding kernels and cases: tilec itself would
accept test code in a kernel's module (it skips host code it does not understand: an extra
numpy import, classes, lambdas and a cases() function left the --emit llvm output of the
softmax kernels byte-identical), but Python cannot import the kernels: they `import triton`,
which this test Python (/usr/bin/python3 with numpy only) does not have, and modules/ imports
torch and a package that does not exist on purpose (the family checks how tilec resolves a
real user module's names). kernels.py stays a plain Triton module, never imported here, and
the lines that diagnostics cases expect (`line=`, mostly found with line_of from a piece of
the source line) move only when kernels.py itself changes.

usage: run_lang_tests.py TILEC [--only FAMILY[,FAMILY]] [--case SUBSTR] [-j N] [-v] [--list]
                         [--target T [--exec CMD]] [--arch A] [--skip-unsupported TEXT]... [--ptxas PATH [--ptxas-arch A,B]]

--target nvptx runs every case on an NVIDIA GPU (`tilec run --target nvptx`: the arrays to
device buffers and back, compared with the same references), for device 0's chip unless
--arch says otherwise; without a CUDA driver and a GPU it prints one SKIP line and exits 0.

Prints one line per case (PASS / FAIL / XFAIL / KNOWN-BUG) and finally `N passed, M failed`;
exits non-zero when M > 0. Needs only the standard library and numpy.

`tilec run` compiles through the JIT disk cache: each invocation of this script gives it a
fresh cache directory (TILEC_CACHE_DIR, removed at the end), so no case loads a kernel an
earlier run or another build (the ASan build in scripts/test.sh) compiled; cases that check
compile-time output (tl.static_print) pass --no-cache, since another case may have compiled
the same specialization first.
"""
import argparse
import concurrent.futures
import importlib.util
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import harness  # noqa: E402

# Cases that fail because of compiler bugs that have been reported (see the report of the
# lang test suite). They print KNOWN-BUG and do not count as failures; remove a name when
# the bug is fixed (a case listed here that passes prints PASS and counts as passed).
KNOWN_FAILURES = {
    # LLVM 22 x86 backend: the shuffle tree of two 16-lane row sums after a store lowers
    # one [2,3,2,3] shuffle to vpbroadcastq (llc -O3 -mcpu=znver5 reproduces it on the
    # LLVM IR of tests/lang/tuples/kernels.py:row_sums_after_store_kernel R=2 C=16)
    "row_sums_after_store_2x16",
    # fp32 -> bf16 flushes fp32 subnormals to zero (LLVM selects AVX512-BF16's vcvtneps2bf16,
    # which treats denormal inputs as zero); Triton's cvt.rn.bf16.f32 keeps them
    "bf16_rne_fp32_subnormals",
}


# Chips `tilec --arch` knows (target/target.c); a GPU of another kind runs the sm_80 PTX,
# which its driver compiles.
KNOWN_ARCHS = {"sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_101",
               "sm_120"}


def gpu_probe():
    """(arch, None) for device 0 of a working CUDA driver (arch None when tilec does not
    know the chip), or (None, why not): the same driver `tilec run --target nvptx` uses."""
    import ctypes
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return None, "no CUDA driver (%s)" % e
    n, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
    r = cu.cuInit(0)
    if r:
        return None, "the CUDA driver cannot start (cuInit error %d): no usable NVIDIA GPU" % r
    if cu.cuDeviceGetCount(ctypes.byref(n)) or n.value < 1:
        return None, "no CUDA device"
    cu.cuDeviceGetAttribute(ctypes.byref(major), 75, 0)  # compute capability major, minor
    cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, 0)
    arch = "sm_%d%d" % (major.value, minor.value)
    if arch == "sm_90":  # Hopper's own target, as Triton's: wgmma (backend/nvptx_wgmma.c)
        arch = "sm_90a"
    return (arch if arch in KNOWN_ARCHS else None), None


def families():
    """The family folders: every directory of tests/lang with a cases.py, sorted."""
    return sorted(d for d in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, d, "cases.py")))


def load_family(fam):
    """Imports <fam>/cases.py and runs its cases(); returns the cases it registered."""
    spec = importlib.util.spec_from_file_location("lang_cases_" + fam, os.path.join(HERE, fam, "cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    first = len(harness.CASES)
    mod.cases()
    new = harness.CASES[first:]
    stray = sorted({c.family for c in new} - {fam})
    if stray:
        raise SystemExit("%s/cases.py registers cases of other families: %s" % (fam, ", ".join(stray)))
    return new


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tilec")
    ap.add_argument("--only", help="comma-separated families")
    ap.add_argument("--case", help="run only cases whose name contains this")
    ap.add_argument("-j", "--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--target", help="compile the kernels for this target (tilec run --target)")
    ap.add_argument("--exec", help="run them with this command (tilec run --exec), e.g. an arm64 "
                    "tilec-exec under qemu-aarch64")
    ap.add_argument("--skip-unsupported", metavar="TEXT", action="append", default=[],
                    help="a case whose error contains TEXT prints SKIP and does not count as failed "
                    "(--target nvptx-emu: 'not supported on nvptx yet', the operations the GPU lowering "
                    "does not have yet); a wrong result still fails. Repeatable")
    ap.add_argument("--ptxas", metavar="PATH", help="instead of running each kernel, assemble the PTX of the "
                    "specialization it runs (tilec run --target nvptx --emit ptx) with this ptxas; "
                    "diagnostics and custom cases print SKIP")
    ap.add_argument("--ptxas-arch", default="sm_80,sm_90", help="GPUs for --ptxas (default sm_80,sm_90)")
    ap.add_argument("--num-warps", type=int, help="warps per program for nvptx targets (tilec run --num-warps)")
    ap.add_argument("--num-stages", type=int, help="pipeline stages of a K loop's tl.dot operand loads for nvptx "
                    "targets, 1 (none) to 8 (tilec run --num-stages; default 3)")
    ap.add_argument("--arch", help="the GPU for --target nvptx (default: device 0's, e.g. sm_90)")
    ap.add_argument("--timeout-scale", type=float, default=1.0,
                    help="multiply each case's time limit (nvptx-emu runs every program as 128 threads)")
    opts = ap.parse_args()
    if opts.target:
        harness.RUN_EXTRA.extend(["--target", opts.target])
    if opts.exec:
        harness.RUN_EXTRA.extend(["--exec", opts.exec])
    if opts.num_warps:
        harness.RUN_EXTRA.extend(["--num-warps", str(opts.num_warps)])
    if opts.num_stages:
        harness.RUN_EXTRA.extend(["--num-stages", str(opts.num_stages)])
    # --target nvptx runs every case on the GPU (tilec run copies the arrays to the device
    # and back); without a driver and a GPU the run is a clean skip, not N failures
    gpu_skip = None
    if opts.target == "nvptx" and not opts.ptxas and not opts.list:
        arch, gpu_skip = gpu_probe()
        if not opts.arch and arch:
            opts.arch = arch
    if opts.arch:
        harness.RUN_EXTRA.extend(["--arch", opts.arch])
    harness.TIMEOUT_SCALE = opts.timeout_scale
    if opts.ptxas:
        harness.PTXAS = opts.ptxas
        harness.PTXAS_ARCHS = opts.ptxas_arch.split(",")
        opts.skip_unsupported.append(harness.NOT_A_RUN)
    harness.TILEC = os.path.abspath(opts.tilec)
    all_fams = families()
    fams = all_fams
    if opts.only:
        fams = opts.only.split(",")
        unknown = set(fams) - set(all_fams)
        if unknown:
            print("unknown families: %s" % ", ".join(sorted(unknown)))
            return 2
    # Case names are unique over all families (--case selects by name), so every family is
    # loaded; only the selected ones run.
    for fam in all_fams:
        load_family(fam)
    names = [c.name for c in harness.CASES]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        print("duplicate case names: %s" % ", ".join(sorted(dup)))
        return 2
    cases = [c for c in harness.CASES if c.family in fams]
    if opts.case:
        cases = [c for c in cases if opts.case in c.name]
    if opts.list:
        for c in cases:
            print(c.family, c.name)
        return 0
    if not os.access(harness.TILEC, os.X_OK):
        print("no tilec executable at %s" % harness.TILEC)
        return 2
    if gpu_skip:
        print("SKIP %d cases: --target nvptx runs them on an NVIDIA GPU: %s" % (len(cases), gpu_skip))
        print("0 passed, 0 failed, %d skipped" % len(cases))
        return 0
    if opts.target == "nvptx" and not opts.ptxas:
        print("GPU: --target nvptx%s" % (" --arch " + opts.arch if opts.arch else " (PTX compiled by the driver)"))
    cache = tempfile.mkdtemp(prefix="tilec-lang-cache-")
    os.environ["TILEC_CACHE_DIR"] = cache
    try:
        return run_cases(cases, opts)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def run_cases(cases, opts):
    passed = failed = skipped = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as ex:
        results = ex.map(harness.execute, cases)
        for c, err in zip(cases, results):
            if err is None:
                print("PASS %s" % c.name)
                passed += 1
            elif c.xfail and "not supported" in err:
                # expected: the compiler still says the construct is not supported; once it
                # compiles, the case is checked like any other (wrong results FAIL)
                print("XFAIL %s: %s" % (c.name, c.xfail))
                if opts.verbose:
                    print("    (%s)" % err)
            elif any(t in err for t in opts.skip_unsupported):
                print("SKIP %s: %s" % (c.name, err))
                skipped += 1
            elif c.name in KNOWN_FAILURES:
                print("KNOWN-BUG %s: %s" % (c.name, err))
            else:
                print("FAIL %s: %s" % (c.name, err))
                failed += 1
            sys.stdout.flush()
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if opts.skip_unsupported else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
