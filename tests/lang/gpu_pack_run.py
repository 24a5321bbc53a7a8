#!/usr/bin/env python3
"""Runs a GPU pack (`scripts/gpu_check.sh --pack DIR`) on this machine's NVIDIA GPU.

usage: run.py [DIR] [--only FAMILY[,FAMILY]] [--case SUBSTR] [-j N] [--arch sm_XX] [-v]

Needs only the CUDA driver (libcuda.so.1), Python 3 and numpy: no compiler, no LLVM/MLIR, no
tilec build. The pack (DIR, by default the folder of this file once copied there as run.py)
holds each kernel-language case's GPU library of its exact specialization for one or more
chips (kernels/, gzipped), the case's inputs and expected results (data/), bin/tilec-exec and the
shared libraries it and the kernel libraries need (lib/), and the suite's Python sources
(lang/) for the cases that check with a function (check=) or run several launches (func).

Each kernel launch is its own tilec-exec process (LD_LIBRARY_PATH=DIR/lib): arrays to device
buffers, the grid launched, the outputs copied back, so an illegal address, which poisons the
CUDA context, fails that case only. The results are compared here with the suite's own rules
(harness.compare: exact for integers, rtol/atol for floats, NaN matches NaN) or its check
functions. The library for device 0 is the pack's chip of the same major version at or below
the device's (its cubin runs), else the newest one below (its PTX, compiled by the driver).

Prints one line per case (PASS / FAIL / KNOWN-BUG / LEFT-OUT) and `N passed, M failed, L left
out` last; exit status 1 when a case failed, 2 without a GPU or with a broken pack, else 0.
This file is tests/lang/gpu_pack_run.py in the tilec repository; gpu_pack.py imports it for
the formats both sides share.
"""
import argparse
import concurrent.futures
import ctypes
import gzip
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

FORMAT = 1  # pack.json's "format"; bump when the layout changes
ARRAY_TOKEN = re.compile(r"^(\w+)=\{DIR\}/\1\.npy(:.*)?$")  # an array binding, as packed


# ---------------------------------------------------------------------------------------------
# formats shared with gpu_pack.py


def scalar_text(v):
    """A number's text on the command line, exactly as harness.run_kernel writes it."""
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return "True" if v else "False"
    if isinstance(v, float):
        return "%r" % v
    return "%s" % v


def flat_args(args):
    """The arguments as tilec run passes them to the library: a list holding an array (a
    runtime tuple, harness.run_kernel's NAME=(...)) becomes its elements NAME_0, NAME_1_0, ...;
    a list of numbers alone stays one compile-time value; an (array, suffix) tuple stays."""
    import numpy as np

    def has_array(v):
        return isinstance(v, np.ndarray) or (isinstance(v, list) and any(has_array(e) for e in v))

    out = {}

    def put(name, v):
        if isinstance(v, list) and has_array(v):
            for i, e in enumerate(v):
                put("%s_%d" % (name, i), e)
        else:
            out[name] = v
    for k, v in args.items():
        put(k, v)
    return out


def parse_arch(a):
    """'sm_90' -> (9, 0), 'sm_90a' too; None for another form."""
    m = re.match(r"^sm_(\d+)(\d)a?$", a)
    return (int(m.group(1)), int(m.group(2))) if m else None


def choose_arch(packed, major, minor):
    """(arch, how) for a device of compute capability major.minor, or (None, why). An
    architecture-specific chip (sm_90a) runs on that chip only, and is preferred there."""
    cands = sorted((parse_arch(a), a.endswith("a"), a) for a in packed if parse_arch(a))
    same = [a for (mj, mn), spec, a in cands if mj == major and (mn == minor if spec else mn <= minor)]
    if same:
        return same[-1], "its cubin"
    older = [a for (mj, mn), spec, a in cands if (mj, mn) <= (major, minor) and not spec]
    if older:
        return older[-1], "its PTX, compiled by the driver"
    return None, "the pack has code for %s only, this GPU is sm_%d%d" % (", ".join(packed), major, minor)


# ---------------------------------------------------------------------------------------------
# the GPU


def gpu_probe():
    """(major, minor, name) of device 0 of a working CUDA driver, or (None, why not)."""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return None, "no CUDA driver (%s)" % e
    r = cu.cuInit(0)
    if r:
        return None, "the CUDA driver cannot start (cuInit error %d): no usable NVIDIA GPU" % r
    n, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
    if cu.cuDeviceGetCount(ctypes.byref(n)) or n.value < 1:
        return None, "no CUDA device"
    cu.cuDeviceGetAttribute(ctypes.byref(major), 75, 0)  # compute capability major, minor
    cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, 0)
    name = ctypes.create_string_buffer(256)
    if cu.cuDeviceGetName(name, 256, 0):
        name.value = b"NVIDIA GPU"
    return (major.value, minor.value, name.value.decode(errors="replace")), None


# ---------------------------------------------------------------------------------------------
# running one packed kernel call


class Pack:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        with open(os.path.join(self.root, "pack.json")) as f:
            self.meta = json.load(f)
        self.arch = None
        self.env = dict(os.environ)
        lib = os.path.join(self.root, "lib")
        self.env["LD_LIBRARY_PATH"] = lib + (":" + self.env["LD_LIBRARY_PATH"] if self.env.get("LD_LIBRARY_PATH") else "")
        self.exe = os.path.join(self.root, "bin", "tilec-exec")
        self.unpacked = None  # where the gzipped kernel libraries are unpacked to
        self.lock = threading.Lock()

    def path(self, rel):
        return os.path.join(self.root, rel)

    def library(self, rel):
        """A kernel library's path: kernels/ holds them gzipped (a third of the size), each
        unpacked once, when first launched, into a temporary folder."""
        dst = os.path.join(self.unpacked, os.path.basename(rel))
        with self.lock:
            if not os.path.exists(dst):
                with gzip.open(self.path(rel + ".gz"), "rb") as f, open(dst + ".tmp", "wb") as g:
                    shutil.copyfileobj(f, g)
                os.chmod(dst + ".tmp", 0o755)
                os.rename(dst + ".tmp", dst)
        return dst

    def exec_call(self, rec, args, outs, timeout):
        """One launch of a packed call with these arguments (the recorded specialization:
        scalars must equal the packed ones, arrays have the packed dtypes and shapes).
        Returns (exit status or None, stdout, stderr, {out: array}) like harness.run_kernel."""
        import numpy as np
        args = flat_args(args)
        for name in sorted(set(rec["scalars"]) | {k for k, v in args.items() if not isinstance(
                v[0] if isinstance(v, tuple) else v, np.ndarray)}):
            here = scalar_text(args[name]) if name in args else "missing"
            if here != rec["scalars"].get(name, "missing"):
                return 1, "", "argument %s is %s here, %s in the pack's library" % (
                    name, here, rec["scalars"].get(name, "missing")), {}
        tmp = tempfile.mkdtemp(prefix="tilec-gpu-run-")
        try:
            cmd = [self.exe, self.library(rec["libs"][self.arch])]
            for t in rec["argv"]:
                m = ARRAY_TOKEN.match(t)
                if m:
                    name, suffix = m.group(1), m.group(2) or ""
                    v = args.get(name)
                    a = v[0] if isinstance(v, tuple) else v
                    live_suffix = ":%s" % v[1] if isinstance(v, tuple) else ""
                    want = rec["arrays"].get(name)
                    if not isinstance(a, np.ndarray) or [str(a.dtype), list(a.shape)] != want or live_suffix != suffix:
                        got = "%s %s%s" % (a.dtype, list(a.shape), live_suffix) if isinstance(a, np.ndarray) else repr(v)
                        return 1, "", "argument %s is %s here, the pack's library was built for %s %s%s" % (
                            name, got, want[0] if want else "?", want[1] if want else "", suffix), {}
                    path = os.path.join(tmp, name + ".npy")
                    np.save(path, a)
                    cmd.append("%s=%s%s" % (name, path, suffix))
                else:  # options, and numbers as packed (checked above)
                    cmd.append(t)
            for o in outs:
                cmd += ["--out", "%s=%s" % (o, os.path.join(tmp, o + ".out.npy"))]
            try:
                p = subprocess.run(cmd, cwd=tmp, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   timeout=timeout)
            except subprocess.TimeoutExpired:
                return None, "", "timeout after %ss" % timeout, {}
            out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
            res = {}
            if p.returncode == 0:
                res = {o: np.load(os.path.join(tmp, o + ".out.npy")) for o in outs}
            return p.returncode, out, err, res
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def first_line(err):
    return (err.strip().splitlines() or [""])[0]


def load_args(pack, entry):
    """A packed case's arguments: arrays from its inputs file, tuples and numbers as packed."""
    import numpy as np
    with np.load(pack.path(entry["inputs"])) as z:
        arrays = {k: z[k] for k in z.files}
    args = {}
    for name, spec in entry["args"]:
        kind, value = spec
        if kind == "array":
            args[name] = arrays[name]
        elif kind == "tuple":
            args[name] = (arrays[name], value)
        elif kind == "int":
            args[name] = int(value)
        elif kind == "float":
            args[name] = float(value)
        elif kind == "bool":
            args[name] = bool(value)
        else:
            args[name] = value
    return args


# ---------------------------------------------------------------------------------------------
# cases


_LOCAL = threading.local()  # the func case this thread replays: its calls and the next one


def replay_run_kernel(pack):
    """harness.run_kernel for func cases: the case's next packed call, run on the GPU with the
    arguments the case gives now."""
    def run_kernel(file, kernel, grid, args, outs, timeout=60, extra=()):
        st = getattr(_LOCAL, "calls", None)
        if st is None:
            return 1, "", "run_kernel outside a packed func case", {}
        i = _LOCAL.next
        _LOCAL.next += 1
        if i >= len(st):
            return 1, "", "launch %d of this case is not in the pack (it packed %d)" % (i + 1, len(st)), {}
        rec = st[i]
        here = [file, kernel, [int(g) for g in grid], list(extra), list(outs)]
        packed = [rec["file"], rec["kernel"], rec["grid"], rec["extra"], rec["outs"]]
        if here != packed:
            return 1, "", "launch %d differs from the packed one: %s, packed %s" % (i + 1, here, packed), {}
        return pack.exec_call(rec, args, outs, timeout)
    return run_kernel


def run_entry(pack, entry, harness, by_name):
    """None (pass) or an error string."""
    kind = entry["kind"]
    if kind == "unbuilt":
        return "not built at pack time: %s" % entry["error"]
    if kind == "func":
        _LOCAL.calls, _LOCAL.next = entry["calls"], 0
        try:
            return by_name[entry["name"]].fn()
        finally:
            _LOCAL.calls = None
    args = load_args(pack, entry)
    rc, out, err, res = pack.exec_call(entry["call"], args, entry["outs"], entry["timeout"])
    if rc != 0:
        return "tilec-exec exited with %s: %s" % (rc, first_line(err))
    if kind == "check":
        c = by_name[entry["name"]]
        return c.check(args, res)
    import numpy as np
    with np.load(pack.path(entry["expected"])) as z:
        for o in entry["outs"]:
            if o in z.files:
                msg = harness.compare(o, res[o], z[o], entry["rtol"], entry["atol"])
                if msg:
                    return msg
    return None


def check_inputs(c, args):
    """A check= case's function may use what cases() made besides args: those must be the
    pack's inputs (this numpy regenerates them from the same seeds)."""
    import numpy as np
    for k, v in args.items():
        mine = c.args.get(k)
        a, b = (v[0], mine[0]) if isinstance(v, tuple) and isinstance(mine, tuple) else (v, mine)
        if isinstance(a, np.ndarray) and not (isinstance(b, np.ndarray) and a.dtype == b.dtype
                                              and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")):
            return "argument %s: the suite's cases() makes other inputs here (numpy %s) than when packing (%s)" % (
                k, np.__version__, "numpy " + str(PACK_NUMPY[0]))
    return None


PACK_NUMPY = [None]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--only", help="comma-separated families")
    ap.add_argument("--case", help="run only cases whose name contains this")
    ap.add_argument("-j", "--jobs", type=int, default=8, help="cases at a time (each launch its own process)")
    ap.add_argument("--arch", help="run the pack's libraries for this chip (default: chosen for device 0)")
    ap.add_argument("-v", "--verbose", action="store_true")
    opts = ap.parse_args()
    if not os.path.isfile(os.path.join(opts.dir, "pack.json")):
        print("run.py: %s is not a GPU pack (no pack.json): make one with scripts/gpu_check.sh --pack DIR" % opts.dir)
        return 2
    pack = Pack(opts.dir)
    meta = pack.meta
    if meta.get("format") != FORMAT:
        print("run.py: pack format %s, this runner reads %d" % (meta.get("format"), FORMAT))
        return 2
    if importlib.util.find_spec("numpy") is None:
        print("run.py: %s has no numpy (pip install numpy)" % sys.executable)
        return 2
    PACK_NUMPY[0] = meta.get("numpy")
    # the pack's own binaries must start here (glibc, a library missing from lib/)
    p = subprocess.run([pack.exe], env=pack.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 2 or b"usage: tilec-exec" not in p.stderr:
        print("run.py: the pack's bin/tilec-exec does not start on this machine: %s" % first_line(p.stderr.decode(
            errors="replace")) + " (the pack needs glibc >= %s)" % meta.get("glibc", "?"))
        return 2
    dev, why = gpu_probe()
    if why:
        print("no GPU: %s" % why)
        return 2
    major, minor, name = dev
    if opts.arch:
        if opts.arch not in meta["archs"]:
            print("run.py: --arch %s: the pack has %s" % (opts.arch, ", ".join(meta["archs"])))
            return 2
        pack.arch, how = opts.arch, "as asked"
    else:
        pack.arch, how = choose_arch(meta["archs"], major, minor)
        if not pack.arch:
            print("run.py: %s" % how)
            return 2
    print("GPU: %s (sm_%d%d): the pack's %s libraries (%s)" % (name, major, minor, pack.arch, how))
    entries = meta["cases"]
    left = meta["left_out"]
    if opts.only:
        fams = set(opts.only.split(","))
        unknown = fams - set(meta["families"])
        if unknown:
            print("run.py: families not in the pack: %s" % ", ".join(sorted(unknown)))
            return 2
        entries = [e for e in entries if e["family"] in fams]
        left = [e for e in left if e["family"] in fams]
    if opts.case:
        entries = [e for e in entries if opts.case in e["name"]]
        left = [e for e in left if opts.case in e["name"]]
    print("pack: %d cases of tilec %s for %s (packed %s); %d left out at pack time" % (
        len(entries), meta.get("tilec", "?"), ",".join(meta["archs"]), meta.get("created", "?"), len(left)))
    sys.stdout.flush()

    # the suite's sources: compare(), KNOWN_FAILURES, and the check/func cases' functions
    sys.path.insert(0, pack.path("lang"))
    sys.dont_write_bytecode = True
    import harness
    harness.run_kernel = replay_run_kernel(pack)  # before any cases.py binds it
    harness.RUN_EXTRA[:] = ["--target", "nvptx", "--arch", pack.arch]  # harness.target(): the bounds for nvptx
    import run_lang_tests
    by_name = {}
    need = sorted({e["family"] for e in entries if e["kind"] in ("check", "func")})
    for fam in need:
        for c in run_lang_tests.load_family(fam):
            by_name[c.name] = c

    def one(entry):
        try:
            err = run_entry(pack, entry, harness, by_name)
            if err and entry["kind"] == "check":
                why = check_inputs(by_name[entry["name"]], load_args(pack, entry))
                err += " [%s]" % why if why else ""
            return err
        except Exception as e:  # a runner bug or an unreadable output: report, don't die
            return "runner exception: %s: %s" % (type(e).__name__, e)

    for e in left:
        print("LEFT-OUT %s: %s" % (e["name"], e["why"]))
    passed = failed = 0
    pack.unpacked = tempfile.mkdtemp(prefix="tilec-gpu-pack-")
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as ex:
            for entry, err in zip(entries, ex.map(one, entries)):
                if err is None:
                    print("PASS %s" % entry["name"])
                    passed += 1
                elif entry["name"] in run_lang_tests.KNOWN_FAILURES:
                    print("KNOWN-BUG %s: %s" % (entry["name"], err))
                else:
                    print("FAIL %s: %s" % (entry["name"], err))
                    failed += 1
                sys.stdout.flush()
    finally:
        shutil.rmtree(pack.unpacked, ignore_errors=True)
    print("%d passed, %d failed, %d left out" % (passed, failed, len(left)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
