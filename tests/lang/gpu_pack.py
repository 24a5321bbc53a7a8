#!/usr/bin/env python3
"""Writes the kernel-language suite as a GPU pack: what a GPU machine without the compiler runs.

usage: gpu_pack.py TILEC TILEC_EXEC DIR [--arch sm_80,sm_90] [--only FAMILY[,FAMILY]] [--case SUBSTR] [-j N]

On the build machine (LLVM/MLIR, ptxas for the cubins, libdevice for the math cases), for
every run case of tests/lang: the case's GPU library of exactly the specialization its run
selects, once per chip (`tilec run ... --target nvptx --arch A --exec CAPTURE`: the library
`tilec run` would launch, built with the case's own bindings and handed to this script
instead of a GPU; each embeds the chip's PTX and, where ptxas is found, its cubin, so a newer
GPU compiles the PTX), the arguments it binds and its inputs, and its expected results:
  - cases with a reference (ref=): the reference's arrays, computed here;
  - cases with check=: the inputs; the check function runs on the GPU machine from the
    suite's sources shipped in lang/ (it compares in ways one array cannot say);
  - func cases (several launches, printed output): every launch the function makes is
    packed (run here on the CPU for the values its later steps use) and replayed there,
    in order, by the same function on the GPU's results.
Left out, with the reason in pack.json: diagnostics cases (tilec compile, nothing runs),
cases the GPU lowering does not support yet (SKIP on a GPU too), func cases that run
tilec itself or check what it prints while compiling.

DIR gets pack.json (cases, left-out cases, chips, tilec version), kernels/ (gzipped libraries
named by content: equal builds are stored once), data/ (compressed .npz inputs and expectations),
bin/tilec-exec, lib/ (libtilec-runtime and the non-glibc libraries it and the kernel
libraries need, from ldd: checked to resolve inside the pack), lang/ (the suite's .py files),
run.py (gpu_pack_run.py) and gpu_check.sh. Prints what it packed and the pack's size.
"""
import argparse
import concurrent.futures
import datetime
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

# the libraries every Linux has (glibc's): not packed
SYSTEM_LIBS = {"linux-vdso.so.1", "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
               "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}
UNSUPPORTED = "not supported on nvptx yet"


def capture(argv):
    """--capture PREFIX LIB ARGS...: what `tilec run --exec` hands over: the library and the
    command line that runs it, array paths as {DIR}/NAME.npy (harness names them so)."""
    prefix, lib, rest = argv[0], argv[1], argv[2:]
    shutil.copyfile(lib, prefix + ".so")
    toks = [re.sub(r"^(\w+)=.*/\1\.npy(:.*)?$", lambda m: "%s={DIR}/%s.npy%s" % (m.group(1), m.group(1), m.group(2) or ""), t)
            for t in rest]
    with open(prefix + ".json", "w") as f:
        json.dump(toks, f)
    return 0


if len(sys.argv) > 1 and sys.argv[1] == "--capture":
    sys.exit(capture(sys.argv[2:]))

import numpy as np  # noqa: E402

import gpu_pack_run as runfmt  # noqa: E402
import harness  # noqa: E402
import run_lang_tests  # noqa: E402

ORIG_RUN_KERNEL = harness.run_kernel
ORIG_RUN_TILEC = harness.run_tilec
_LOCAL = threading.local()  # the func case this thread packs (None for the other cases)


class Packer:
    def __init__(self, out, archs):
        self.out = out
        self.archs = archs
        self.lock = threading.Lock()
        self.libs = {}  # relative path -> has a cubin
        self.capture_cmd = "%s %s --capture" % (sys.executable, os.path.abspath(__file__))

    def store_library(self, path):
        with open(path, "rb") as f:
            data = f.read()
        rel = "kernels/%s.so" % hashlib.sha256(data).hexdigest()[:20]
        with self.lock:
            if rel not in self.libs:
                with open(os.path.join(self.out, rel), "wb") as f:
                    f.write(data)
                os.chmod(os.path.join(self.out, rel), 0o755)
                self.libs[rel] = data.find(b"\x7fELF", 1) > 0  # an embedded cubin
        return rel

    def build_call(self, file, kernel, grid, args, extra):
        """(record, None) for one launch's libraries, or (None, error)."""
        rec = {"file": file, "kernel": kernel, "grid": [int(g) for g in grid], "extra": list(extra), "libs": {},
               "arrays": {}, "scalars": {}}
        for k, v in runfmt.flat_args(args).items():  # what the specialization was built for, constexprs included
            a = v[0] if isinstance(v, tuple) else v
            if isinstance(a, np.ndarray):
                rec["arrays"][k] = [str(a.dtype), list(a.shape)]
            else:
                rec["scalars"][k] = runfmt.scalar_text(v)
        work = tempfile.mkdtemp(prefix="tilec-pack-")
        try:
            for arch in self.archs:
                prefix = os.path.join(work, arch)
                rc, out, err, _ = ORIG_RUN_KERNEL(file, kernel, grid, args, [], timeout=600, extra=list(extra) + [
                    "--target", "nvptx", "--arch", arch, "--exec", "%s %s" % (self.capture_cmd, prefix)])
                if rc != 0:
                    return None, "tilec run --target nvptx --arch %s exited with %s: %s" % (
                        arch, rc, runfmt.first_line(err))
                with open(prefix + ".json") as f:
                    rec["argv"] = json.load(f)
                rec["libs"][arch] = self.store_library(prefix + ".so")
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return rec, None


def pack_run_kernel(packer):
    """harness.run_kernel while a func case is packed: its GPU libraries are built and the
    launch recorded, then it runs here on the CPU so that the function goes on."""
    def run_kernel(file, kernel, grid, args, outs, timeout=60, extra=()):
        st = getattr(_LOCAL, "state", None)
        if st is None:
            return ORIG_RUN_KERNEL(file, kernel, grid, args, outs, timeout, extra)
        st["in_kernel"] = True
        try:
            if "--no-cache" in extra:
                st["leave"] = "checks what tilec prints while compiling (--no-cache), and the GPU machine does not compile"
            rec, err = packer.build_call(file, kernel, grid, args, extra)
            if err:
                st.setdefault("error", err)
            else:
                rec["outs"] = list(outs)
                st["calls"].append(rec)
            return ORIG_RUN_KERNEL(file, kernel, grid, args, outs, timeout, extra)
        finally:
            st["in_kernel"] = False
    return run_kernel


def pack_run_tilec(cmd, cwd, timeout):
    st = getattr(_LOCAL, "state", None)
    if st is not None and not st["in_kernel"]:
        st["direct"] = True
    return ORIG_RUN_TILEC(cmd, cwd, timeout)


def left(c, why):
    return {"name": c.name, "family": c.family, "why": why}


def build_failed(c, err):
    """A case whose library cannot be built: left out like a GPU run's SKIP/XFAIL, or packed
    as a failure the GPU machine reports."""
    if c.xfail and "not supported" in err:
        return left(c, "XFAIL (%s): %s" % (c.xfail, err))
    if UNSUPPORTED in err:
        return left(c, "SKIP: %s" % err)
    return {"name": c.name, "family": c.family, "kind": "unbuilt", "error": err}


def pack_case(packer, c):
    """One case -> a pack.json entry (kind ref/check/func/unbuilt) or a left-out entry (why)."""
    if isinstance(c, harness.DiagCase):
        return left(c, "a diagnostics case: tilec compile on a bad kernel, nothing runs")
    if isinstance(c, harness.FuncCase):
        st = _LOCAL.state = {"calls": [], "in_kernel": False}
        try:
            err = c.fn()
        except Exception as e:
            err = "exception: %s: %s" % (type(e).__name__, e)
        finally:
            _LOCAL.state = None
        if st.get("direct"):
            return left(c, "runs tilec itself (compile-time behaviour, broken libraries), not a kernel on the GPU")
        if st.get("leave"):
            return left(c, st["leave"])
        if st.get("error"):
            return build_failed(c, st["error"])
        if not st["calls"]:
            return left(c, "runs no kernel (compile-time behaviour)")
        if err:
            return left(c, "fails on this machine's CPU, whose results its later steps need to be packed: %s" % err)
        return {"name": c.name, "family": c.family, "kind": "func", "calls": st["calls"]}
    rec, err = packer.build_call(c.file, c.kernel, c.grid, c.args, ())
    if err:
        return build_failed(c, err)
    rec["outs"] = list(c.outs)
    entry = {"name": c.name, "family": c.family, "kind": "check" if c.check else "ref", "call": rec,
             "outs": list(c.outs), "rtol": c.rtol, "atol": c.atol, "timeout": c.timeout, "args": [],
             "inputs": "data/%s.npz" % c.name}
    arrays = {}
    for k, v in runfmt.flat_args(c.args).items():
        if isinstance(v, tuple):
            arrays[k] = v[0]
            entry["args"].append([k, ["tuple", v[1]]])
        elif isinstance(v, np.ndarray):
            arrays[k] = v
            entry["args"].append([k, ["array", None]])
        elif isinstance(v, (bool, np.bool_)):
            entry["args"].append([k, ["bool", bool(v)]])
        elif isinstance(v, (int, np.integer)):
            entry["args"].append([k, ["int", int(v)]])
        elif isinstance(v, (float, np.floating)):
            entry["args"].append([k, ["float", float(v)]])
        else:
            entry["args"].append([k, ["str", str(v)]])
    np.savez_compressed(os.path.join(packer.out, entry["inputs"]), **arrays)
    if not c.check:
        exp = c.ref(c.args)
        entry["expected"] = "data/%s.expected.npz" % c.name
        np.savez_compressed(os.path.join(packer.out, entry["expected"]),
                            **{o: np.asarray(exp[o]) for o in c.outs if o in exp})
    return entry


def needed_libs(files):
    """{soname: path} of the non-glibc libraries these ELF files need (ldd: the closure)."""
    need = {}
    for f in files:
        p = subprocess.run(["ldd", f], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in p.stdout.splitlines():
            m = re.match(r"^\s*(\S+)\s*=>\s*(\S+)", line)
            if m and os.path.basename(m.group(1)) not in SYSTEM_LIBS:
                if m.group(2) == "not":
                    raise SystemExit("gpu_pack: %s needs %s, which ldd does not find" % (f, m.group(1)))
                need[m.group(1)] = m.group(2)
    return need


def check_resolution(out, files):
    """Every library the pack's binaries need resolves inside DIR/lib (or is glibc's), with
    LD_LIBRARY_PATH the pack's lib/ only: a GPU machine has nothing else of ours."""
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(out, "lib"))
    for f in files:
        p = subprocess.run(["ldd", f], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        for line in p.stdout.splitlines():
            m = re.match(r"^\s*(\S+)\s*=>\s*(\S+)", line)
            if m and os.path.basename(m.group(1)) not in SYSTEM_LIBS and \
                    not os.path.realpath(m.group(2)).startswith(os.path.realpath(out) + os.sep):
                raise SystemExit("gpu_pack: %s: %s resolves outside the pack (%s)" % (f, m.group(1), m.group(2)))


def glibc_needed(files):
    best = (2, 2)
    for f in files:
        with open(f, "rb") as fh:
            for a, b in re.findall(rb"GLIBC_(\d+)\.(\d+)", fh.read()):
                best = max(best, (int(a), int(b)))
    return "%d.%d" % best


def copy_sources(dst):
    """The suite's .py files (cases, kernels for line_of, harness, the driver's tables)."""
    for d, dirs, files in os.walk(HERE):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, f), HERE)
                os.makedirs(os.path.join(dst, os.path.dirname(rel)), exist_ok=True)
                shutil.copy2(os.path.join(d, f), os.path.join(dst, rel))


def du(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tilec")
    ap.add_argument("tilec_exec")
    ap.add_argument("dir")
    ap.add_argument("--arch", default="sm_80,sm_90", help="chips to build each case for (default sm_80,sm_90)")
    ap.add_argument("--only", help="comma-separated families")
    ap.add_argument("--case", help="only cases whose name contains this")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    opts = ap.parse_args()
    archs = opts.arch.split(",")
    bad = [a for a in archs if a not in run_lang_tests.KNOWN_ARCHS]
    if bad:
        print("gpu_pack: unknown chip %s (tilec knows %s)" % (", ".join(bad), ", ".join(sorted(run_lang_tests.KNOWN_ARCHS))))
        return 2
    if " " in os.path.abspath(__file__) or " " in sys.executable:
        print("gpu_pack: the capture command (tilec run --exec) is split at spaces: run from a path without any")
        return 2
    out = os.path.abspath(opts.dir)
    if os.path.exists(out) and os.listdir(out) and not os.path.isfile(os.path.join(out, "pack.json")):
        print("gpu_pack: %s exists and is not a GPU pack: give a new or empty folder" % out)
        return 2
    shutil.rmtree(out, ignore_errors=True)
    for d in ("kernels", "data", "bin", "lib", "lang"):
        os.makedirs(os.path.join(out, d))
    harness.TILEC = os.path.abspath(opts.tilec)
    # the cases describe what the GPU computes (tolerances and references are fixed here, at
    # load and pack time): tf32 dots, div.full, ex2.approx. The func cases' CPU runs keep the
    # host's kernels (their launches name --target themselves); their checks, looser on nvptx,
    # run again on the GPU machine.
    harness.CONTRACT = "nvptx"
    packer = Packer(out, archs)
    harness.run_kernel = pack_run_kernel(packer)  # before any cases.py binds them
    harness.run_tilec = pack_run_tilec
    all_fams = run_lang_tests.families()
    fams = opts.only.split(",") if opts.only else all_fams
    unknown = set(fams) - set(all_fams)
    if unknown:
        print("gpu_pack: unknown families: %s" % ", ".join(sorted(unknown)))
        return 2
    for fam in all_fams:  # names are unique over all families, as run_lang_tests checks
        run_lang_tests.load_family(fam)
    cases = [c for c in harness.CASES if c.family in fams and (not opts.case or opts.case in c.name)]
    cache = tempfile.mkdtemp(prefix="tilec-pack-cache-")
    os.environ["TILEC_CACHE_DIR"] = cache  # the func cases' CPU runs
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as ex:
            results = list(ex.map(lambda c: pack_case(packer, c), cases))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    entries = [r for r in results if "kind" in r]
    left_out = [r for r in results if "why" in r]
    for e in entries:
        if e["kind"] == "unbuilt":
            print("NOT BUILT %s: %s" % (e["name"], e["error"]))

    # the runner's binaries and exactly the libraries they and the kernel libraries need
    exe = os.path.join(out, "bin", "tilec-exec")
    shutil.copy2(opts.tilec_exec, exe)
    kernel_files = [os.path.join(out, k) for k in sorted(packer.libs)]
    for soname, path in sorted(needed_libs([opts.tilec_exec] + kernel_files).items()):
        shutil.copy2(path, os.path.join(out, "lib", soname))
    libs = [os.path.join(out, "lib", f) for f in sorted(os.listdir(os.path.join(out, "lib")))]
    check_resolution(out, [exe] + libs + kernel_files)
    glibc = glibc_needed([exe] + libs + kernel_files)
    for k in kernel_files:  # gzipped: a third of the size (ELF pages are mostly padding)
        with open(k, "rb") as f, open(k + ".gz", "wb") as g:
            g.write(gzip.compress(f.read(), 9, mtime=0))
        os.remove(k)
    copy_sources(os.path.join(out, "lang"))
    shutil.copy2(os.path.join(HERE, "gpu_pack_run.py"), os.path.join(out, "run.py"))
    shutil.copy2(os.path.join(ROOT, "scripts", "gpu_check.sh"), os.path.join(out, "gpu_check.sh"))
    git = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    meta = {
        "format": runfmt.FORMAT,
        "tilec": git.stdout.strip() or "?",
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "archs": archs,
        "families": sorted(fams),
        "numpy": np.__version__,
        "glibc": glibc,
        "libraries": {k: {"cubin": v} for k, v in sorted(packer.libs.items())},
        "cases": entries,
        "left_out": left_out,
    }
    with open(os.path.join(out, "pack.json"), "w") as f:
        json.dump(meta, f, indent=1)

    kinds = {}
    for e in entries:
        kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
    whys = {}
    for e in left_out:
        key = e["why"].split(":")[0]
        whys[key] = whys.get(key, 0) + 1
    cubins = sum(packer.libs.values())
    print("packed %d cases (%s) of %d families into %s for %s: %d kernel libraries (%d with a cubin%s), "
          "%d launches" % (
              len(entries), ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items())), len(fams), out,
              ",".join(archs), len(packer.libs), cubins, "" if cubins == len(packer.libs) else
              ": no ptxas for the others, the driver compiles their PTX",
              sum(len(e["calls"]) if e["kind"] == "func" else e["kind"] != "unbuilt" for e in entries)))
    print("left out %d: %s" % (len(left_out), "; ".join("%d %s" % (n, k) for k, n in sorted(whys.items()))))
    print("size: %.1f MB (kernels %.1f, data %.1f, lib+bin %.1f, lang %.1f); needs glibc >= %s" % (
        du(out) / 1e6, du(os.path.join(out, "kernels")) / 1e6, du(os.path.join(out, "data")) / 1e6,
        (du(os.path.join(out, "lib")) + du(os.path.join(out, "bin"))) / 1e6, du(os.path.join(out, "lang")) / 1e6,
        meta["glibc"]))
    print("run it on a GPU machine (CUDA driver, Python 3, numpy): %s/gpu_check.sh --run %s" % (out, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
