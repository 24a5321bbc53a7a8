"""What a lang family's cases.py builds its cases with, and how they run.

A case names a kernel by its file (a path relative to tests/lang, e.g. "softmax/kernels.py")
and its function, gives the arguments (numpy arrays become .npy files, numbers and strings
command-line values) and says what to expect:
  add(family, name, file, kernel, grid, args, outs, ref, rtol=, atol=, check=, xfail=)
      `tilec run`, then each output in `outs` compared with ref(args)[out] (exact for
      integers, allclose for floats, NaN matches NaN); check(args, results) -> None or an
      error string replaces ref when a comparison is not enough.
  diag(family, name, file, kernel, sig, expect=(...), line="text" or N)
      `tilec compile` on a bad kernel: exit status 1 and a first stderr line
      FILE:LINE:COL: error: ... containing every string of `expect`, on the expected line
      if given: the first line containing "text" from the kernel's `def` on (so the
      expectation follows the source when kernels are added or moved), or line N
      (line_of(file, text) for a line elsewhere, e.g. in a helper above the kernel).
  func(family, name, fn)
      fn() -> None (pass) or an error string: anything else (several launches, printed
      output, environment variables), built from run_kernel/run_tilec/compare.
xfail="why" marks a construct the compiler still reports as not supported.

Used by run_lang_tests.py (which sets TILEC and RUN_EXTRA from its command line before any
case runs) and imported by every tests/lang/<family>/cases.py. Needs the standard library
and numpy.
"""
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np

LANG_DIR = os.path.dirname(os.path.abspath(__file__))
TILEC = None     # the tilec executable (set by the driver)
RUN_EXTRA = []   # --target/--exec: added to every `tilec run`
PTXAS = None     # --ptxas PATH: assemble each run case's PTX instead of running it ...
PTXAS_ARCHS = []  # ... for these GPUs (--ptxas-arch)
NOT_A_RUN = "not a kernel run: nothing for ptxas"
TIMEOUT_SCALE = 1.0  # --timeout-scale: slower modes (nvptx-emu runs 128 threads a program)
CONTRACT = None  # the target whose results the cases describe when it is not the run's: a GPU
                 # pack builds its cases (tolerances, references) here for "nvptx"


# ---------------------------------------------------------------------------------------------
# case model


class Case:
    def __init__(self, family, name, file, kernel, grid, args, outs, ref=None, rtol=0.0,
                 atol=0.0, check=None, xfail=None, timeout=60):
        self.family = family
        self.name = name
        self.file = file
        self.kernel = kernel
        self.grid = grid
        self.args = args          # name -> np.ndarray | int | float | bool | str
        self.outs = outs          # output parameter names
        self.ref = ref            # args -> {name: expected array}
        self.rtol = rtol
        self.atol = atol
        self.check = check        # args, results -> None | error string (replaces ref)
        self.xfail = xfail
        self.timeout = timeout


class DiagCase:
    """`tilec compile` on a bad kernel: exit status 1, first stderr line is
    FILE:LINE:COL: error: ... containing every string of `expect`."""

    def __init__(self, family, name, file, kernel, sig, expect=(), line=None, xfail=None):
        self.family = family
        self.name = name
        self.file = file
        self.kernel = kernel
        self.sig = sig
        self.expect = expect
        self.line = line
        self.xfail = xfail


class FuncCase:
    """A case implemented by a Python function returning None (pass) or an error string."""

    def __init__(self, family, name, fn, xfail=None):
        self.family = family
        self.name = name
        self.fn = fn
        self.xfail = xfail


CASES = []


def add(*a, **k):
    CASES.append(Case(*a, **k))


def diag(*a, **k):
    CASES.append(DiagCase(*a, **k))


def func(*a, **k):
    CASES.append(FuncCase(*a, **k))


# ---------------------------------------------------------------------------------------------
# helpers for cases


def target():
    """The --target the cases are compiled for ("host" without one): what a case whose
    contract differs by target (a math function's ulp bound, tf32 dots) checks against.
    CONTRACT, where set, overrides it (tests/lang/gpu_pack.py: cases built on the host for a
    GPU)."""
    if CONTRACT:
        return CONTRACT
    return RUN_EXTRA[RUN_EXTRA.index("--target") + 1] if "--target" in RUN_EXTRA else "host"


def gpu_math():
    """Do the cases run with NVIDIA's math contract (--target nvptx, and nvptx-emu, whose
    tests accept what the GPU computes): fp32 `/` is div.full.f32 (2 ulp), tl.exp is
    ex2.approx.f32 of x * log2(e), tl.exp2/sqrt/rsqrt their .approx.ftz instructions, as
    Triton's (docs/NVPTX.md, "Math accuracy"). Read it when a check runs, not when cases are
    built (a GPU pack builds them on the host)."""
    return target() in ("nvptx", "nvptx-emu")


def gpu_rtol(ulps, rtol=0.0):
    """rtol for an fp32 result `ulps` ulp from the exact one on the GPU targets (an ulp is at
    most 2^-23 of the value), `rtol` elsewhere (in a check function: see gpu_math)."""
    return ulps * 2.0 ** -23 if gpu_math() else rtol


def gpu_atol(ulps, atol=0.0):
    """atol for `ulps` ulp of a subnormal fp32 result (2^-149 each) on the GPU targets."""
    return ulps * 2.0 ** -149 if gpu_math() else atol


def path_of(file):
    """The absolute path of a kernel file named relative to tests/lang."""
    return os.path.normpath(os.path.join(LANG_DIR, file))


def line_of(file, text, kernel=None):
    """The number of the first line of `file` that contains `text`, at or after the line
    `def kernel(` when a kernel is named (for expected lines: they follow the source)."""
    start = None if kernel is None else "def %s(" % kernel
    for k, line in enumerate(open(path_of(file)), 1):
        if start and start in line:
            start = None
        if not start and text in line:
            return k
    raise ValueError("%r not in %s%s" % (text, file, "" if kernel is None else " after def " + kernel))


def rng(seed):
    return np.random.default_rng(seed)


def f32(a):
    return np.asarray(a, dtype=np.float32)


def bf16_bits(x):
    """fp32 array -> uint16 bf16 bit patterns (round to nearest even) and their fp32 values."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return r, (r.astype(np.uint32) << 16).view(np.float32)


def fmt_val(v):
    if isinstance(v, (np.floating, float)):
        return repr(float(v))
    if isinstance(v, np.ndarray):
        return np.array2string(v, threshold=8)
    return repr(v.item() if hasattr(v, "item") else v)


# ---------------------------------------------------------------------------------------------
# running


def run_tilec(cmd, cwd, timeout):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timeout after %ss" % timeout
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def compare(name, got, exp, rtol, atol):
    """None if equal (exact for ints/bools, allclose for floats, NaN matches NaN)."""
    exp = np.asarray(exp)
    if got.shape != exp.shape:
        got = got.reshape(exp.shape) if got.size == exp.size else got
        if got.shape != exp.shape:
            return "%s: shape %s, expected %s" % (name, got.shape, exp.shape)
    if exp.dtype.kind == "f" or got.dtype.kind == "f":
        g = got.astype(np.float64)
        e = exp.astype(np.float64)
        ok = np.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
        ok &= (np.isnan(g) == np.isnan(e))
        ok &= ~(np.isinf(e) & (g != e))
    else:
        ok = got.astype(np.int64) == exp.astype(np.int64) if exp.dtype != np.uint64 else got == exp
    if ok.all():
        return None
    bad = np.argwhere(~ok)
    idx = tuple(int(x) for x in bad[0])
    return "%s[%s]: got %s, expected %s (%d of %d differ)" % (
        name, ",".join(map(str, idx)), fmt_val(got[idx]), fmt_val(exp[idx]), len(bad), ok.size)


def run_kernel(file, kernel, grid, args, outs, timeout=60, extra=()):
    """Run one kernel with `tilec run`; returns (exit status, stdout, stderr, {out: array})
    (the dict is empty unless the exit status is 0). `extra` adds command-line options."""
    tmp = tempfile.mkdtemp(prefix="tilec-lang-")
    try:
        cmd = [TILEC, "run", path_of(file), "-k", kernel,
               "--grid", ",".join(str(g) for g in grid)] + list(extra) + RUN_EXTRA
        def element(name, v):  # a list: a runtime tuple "(A, B, ...)", its elements NAME_0, NAME_1, ...
            if isinstance(v, list):
                return "(%s)" % ", ".join(element("%s_%d" % (name, i), e) for i, e in enumerate(v))
            if isinstance(v, np.ndarray):
                path = os.path.join(tmp, name + ".npy")
                np.save(path, v)
                return path
            return "True" if v is True else "False" if v is False else repr(v) if isinstance(v, float) else str(v)

        for k, v in args.items():
            if isinstance(v, list):
                cmd.append("%s=%s" % (k, element(k, v)))
            elif isinstance(v, tuple):  # (uint8 codes, "fp8e4nv"): bound as FILE.npy:DTYPE
                path = os.path.join(tmp, k + ".npy")
                np.save(path, v[0])
                cmd.append("%s=%s:%s" % (k, path, v[1]))
            elif isinstance(v, np.ndarray):
                path = os.path.join(tmp, k + ".npy")
                np.save(path, v)
                cmd.append("%s=%s" % (k, path))
            elif isinstance(v, (bool, np.bool_)):
                cmd.append("%s=%s" % (k, "True" if v else "False"))
            elif isinstance(v, float):
                cmd.append("%s=%r" % (k, v))
            else:
                cmd.append("%s=%s" % (k, v))
        for o in outs:
            cmd += ["--out", "%s=%s" % (o, os.path.join(tmp, o + ".out.npy"))]
        rc, out, err = run_tilec(cmd, tmp, timeout * TIMEOUT_SCALE)
        res = {}
        if rc == 0:
            res = {o: np.load(os.path.join(tmp, o + ".out.npy")) for o in outs}
        return rc, out, err, res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ptxas_case(c):
    """--ptxas: the PTX of exactly the specialization the case runs (`tilec run --target nvptx
    --emit ptx`, same bindings), for each arch, must assemble."""
    for arch in PTXAS_ARCHS:
        rc, out, err, _ = run_kernel(c.file, c.kernel, c.grid, c.args, [], c.timeout,
                                     extra=["--target", "nvptx", "--arch", arch, "--emit", "ptx"])
        if rc != 0:
            first = (err.strip().splitlines() or [""])[0]
            return "tilec exited with %s: %s" % (rc, first)
        tmp = tempfile.mkdtemp(prefix="tilec-ptx-")
        try:
            path = os.path.join(tmp, "k.ptx")
            with open(path, "w") as f:
                f.write(out)
            p = subprocess.run([PTXAS, "-arch=" + arch, path, "-o", os.path.join(tmp, "k.cubin")],
                               capture_output=True, text=True, timeout=120)
            if p.returncode != 0:
                return "ptxas -arch=%s: %s" % (arch, (p.stderr.strip().splitlines() or [""])[0])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return None


def run_case(c):
    if PTXAS:
        return ptxas_case(c)
    rc, out, err, res = run_kernel(c.file, c.kernel, c.grid, c.args, c.outs, c.timeout)
    if rc != 0:
        first = (err.strip().splitlines() or [""])[0]
        return "tilec exited with %s: %s" % (rc, first)
    if c.check is not None:
        return c.check(c.args, res)
    exp = c.ref(c.args)
    for o in c.outs:
        if o not in exp:
            continue
        msg = compare(o, res[o], exp[o], c.rtol, c.atol)
        if msg:
            return msg
    return None


DIAG_RE = re.compile(r"^(.*?):(\d+):(\d+): error: (.*)$")


def run_diag(c):
    rc, out, err = run_tilec([TILEC, "compile", path_of(c.file), "-k", c.kernel, "-s", c.sig,
                              "--emit", "tile"], LANG_DIR, 60)
    if rc is None or rc < 0 or rc >= 2:
        return "exit status %s (crash?), stderr: %s" % (rc, err.strip()[:300])
    if rc != 1:
        return "exit status %s, expected 1" % rc
    first = (err.splitlines() or [""])[0]
    m = DIAG_RE.match(first)
    if not m:
        return "first stderr line is not FILE:LINE:COL: error: ...: %r" % first
    line = line_of(c.file, c.line, c.kernel) if isinstance(c.line, str) else c.line
    if line is not None and int(m.group(2)) != line:
        return "error on line %s, expected line %d: %r" % (m.group(2), line, first)
    for e in c.expect:
        if e.lower() not in first.lower():
            return "message lacks %r: %r" % (e, first)
    return None


def execute(c):
    try:
        if isinstance(c, Case):
            return run_case(c)
        if isinstance(c, DiagCase):
            return run_diag(c) if not PTXAS else NOT_A_RUN
        return c.fn() if not PTXAS else NOT_A_RUN
    except Exception as e:  # a driver bug or an unreadable output: report, don't die
        return "driver exception: %s: %s" % (type(e).__name__, e)
