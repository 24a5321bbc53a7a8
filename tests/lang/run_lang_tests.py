#!/usr/bin/env python3
"""End-to-end kernel-language tests for tilec.

Runs Triton-style kernels from tests/lang/kernels/*.py with `tilec run` on .npy arrays in a
temporary directory and compares the results with numpy references (exact for integers,
tight tolerances for floats). Diagnostics cases run `tilec compile` on bad kernels and check
the exit status and the `file:line:col: error:` first line.

usage: run_lang_tests.py TILEC [--only FAMILY[,FAMILY]] [--case SUBSTR] [-j N] [-v]
                         [--target T --exec CMD]   (cross: compile here, run with CMD)

Prints one line per case (PASS / FAIL / XFAIL / KNOWN-BUG) and finally `N passed, M failed`;
exits non-zero when M > 0. Needs only the standard library and numpy.

`tilec run` compiles through the JIT disk cache: each invocation of this script gives it a
fresh cache directory (TILEC_CACHE_DIR, removed at the end), so no case loads a kernel an
earlier run or another build (the ASan build in scripts/test.sh) compiled; cases that check
compile-time output (tl.static_print) pass --no-cache, since another case may have compiled
the same specialization first.
"""
import argparse
import math
import concurrent.futures
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

# Cases that fail because of compiler bugs that have been reported (see the report of the
# lang test suite). They print KNOWN-BUG and do not count as failures; remove a name when
# the bug is fixed (a case listed here that passes prints PASS and counts as passed).
KNOWN_FAILURES = {
    # LLVM 22 x86 backend: the shuffle tree of two 16-lane row sums after a store lowers
    # one [2,3,2,3] shuffle to vpbroadcastq (llc -O3 -mcpu=znver5 reproduces it on the
    # LLVM IR of tests/lang/kernels/tuples.py:row_sums_after_store_kernel R=2 C=16)
    "row_sums_after_store_2x16",
    # fp32 -> bf16 flushes fp32 subnormals to zero (LLVM selects AVX512-BF16's vcvtneps2bf16,
    # which treats denormal inputs as zero); Triton's cvt.rn.bf16.f32 keeps them
    "bf16_rne_fp32_subnormals",
}

HERE = os.path.dirname(os.path.abspath(__file__))
KDIR = os.path.join(HERE, "kernels")
TILEC = None
VERBOSE = False
RUN_EXTRA = []  # --target/--exec: added to every `tilec run`


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


def rng(seed):
    return np.random.default_rng(seed)


def f32(a):
    return np.asarray(a, dtype=np.float32)


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
        cmd = [TILEC, "run", os.path.join(KDIR, file), "-k", kernel,
               "--grid", ",".join(str(g) for g in grid)] + list(extra) + RUN_EXTRA
        for k, v in args.items():
            if isinstance(v, tuple):  # (uint8 codes, "fp8e4nv"): bound as FILE.npy:DTYPE
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
        rc, out, err = run_tilec(cmd, tmp, timeout)
        res = {}
        if rc == 0:
            res = {o: np.load(os.path.join(tmp, o + ".out.npy")) for o in outs}
        return rc, out, err, res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_case(c):
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
    path = os.path.join(KDIR, c.file)
    rc, out, err = run_tilec([TILEC, "compile", path, "-k", c.kernel, "-s", c.sig,
                              "--emit", "tile"], KDIR, 60)
    if rc is None or rc < 0 or rc >= 2:
        return "exit status %s (crash?), stderr: %s" % (rc, err.strip()[:300])
    if rc != 1:
        return "exit status %s, expected 1" % rc
    first = (err.splitlines() or [""])[0]
    m = DIAG_RE.match(first)
    if not m:
        return "first stderr line is not FILE:LINE:COL: error: ...: %r" % first
    if c.line is not None and int(m.group(2)) != c.line:
        return "error on line %s, expected line %d: %r" % (m.group(2), c.line, first)
    for e in c.expect:
        if e.lower() not in first.lower():
            return "message lacks %r: %r" % (e, first)
    return None


def execute(c):
    try:
        if isinstance(c, Case):
            return run_case(c)
        if isinstance(c, DiagCase):
            return run_diag(c)
        return c.fn()
    except Exception as e:  # a driver bug or an unreadable output: report, don't die
        return "driver exception: %s: %s" % (type(e).__name__, e)


# ---------------------------------------------------------------------------------------------
# the cases (one module section per family)

# ---- ndtiles: N-D tiles, broadcasting, shape ops ---------------------------------------------
def _ndtiles():
    F = "ndtiles"
    K = "ndtiles.py"
    for (M, N, BM, BN) in [(7, 33, 8, 16), (100, 1, 32, 4), (1, 100, 2, 32), (33, 7, 16, 8)]:
        src = rng(M * 1000 + N).standard_normal((M, N)).astype(np.float32)
        # destination with a wider row stride: untouched padding must stay as it was
        dst = np.full((M, N + 3), 5.0, np.float32)

        def ref(a, M=M, N=N):
            d = a["dst_ptr"].copy()
            d[:, :N] = a["src_ptr"] * 2.0 + 1.0
            return {"dst_ptr": d}
        add(F, "copy2d_%dx%d" % (M, N), K, "copy2d_kernel", ((M + BM - 1) // BM, (N + BN - 1) // BN),
            dict(src_ptr=src, dst_ptr=dst, M=M, N=N, stride_sm=N, stride_dm=N + 3, BM=BM, BN=BN),
            ["dst_ptr"], ref)

    for (M, N) in [(7, 33), (1, 1), (16, 5)]:
        a = rng(3).standard_normal(M).astype(np.float32)
        b = rng(4).standard_normal(N).astype(np.float32)
        add(F, "outer_%dx%d" % (M, N), K, "outer_kernel", (1,),
            dict(a_ptr=a, b_ptr=b, out_ptr=np.zeros((M, N), np.float32), M=M, N=N, BM=16, BN=64),
            ["out_ptr"], lambda a: {"out_ptr": a["a_ptr"][:, None] * a["b_ptr"][None, :] - a["a_ptr"][:, None]},
            rtol=1e-6, atol=1e-6)

    src = rng(5).standard_normal((7, 100)).astype(np.float32)
    add(F, "ptr_loop_cols", K, "rowloop_kernel", (1,),
        dict(src_ptr=src, dst_ptr=np.zeros_like(src), M=7, N=100, BM=8, BN=16),
        ["dst_ptr"], lambda a: {"dst_ptr": a["src_ptr"] - 3.0})
    srci = rng(6).integers(-1000, 1000, (33, 7)).astype(np.int32)
    add(F, "ptr_loop_rows_i32", K, "colloop_kernel", (1,),
        dict(src_ptr=srci, dst_ptr=np.zeros_like(srci), M=33, N=7, BM=4, BN=8),
        ["dst_ptr"], lambda a: {"dst_ptr": a["src_ptr"] * 3})
    srci = rng(7).integers(-1000, 1000, (7, 5)).astype(np.int32)
    add(F, "negative_stride", K, "negstride_kernel", (1,),
        dict(src_ptr=srci, dst_ptr=np.zeros_like(srci), M=7, N=5, BM=8, BN=8),
        ["dst_ptr"], lambda a: {"dst_ptr": a["src_ptr"][::-1]})
    s3 = rng(8).standard_normal((2, 4, 8)).astype(np.float32)
    add(F, "tile3d", K, "tile3d_kernel", (1,),
        dict(src_ptr=s3, dst_ptr=np.zeros_like(s3), A=2, B=4, C=8), ["dst_ptr"],
        lambda a: {"dst_ptr": a["src_ptr"] + np.arange(2)[:, None, None] * 100 + np.arange(8)[None, None, :]},
        rtol=1e-6)
    av = rng(9).standard_normal(16).astype(np.float32)
    add(F, "broadcast_to_expand_dims", K, "broadcast_to_kernel", (1,),
        dict(a_ptr=av, out_ptr=np.zeros((4, 16), np.float32), M=4, N=16), ["out_ptr"],
        lambda a: {"out_ptr": a["a_ptr"][None, :] + np.arange(4, dtype=np.float32)[:, None] * 10})
    s = rng(10).standard_normal(32).astype(np.float32)
    add(F, "reshape_view_ravel", K, "reshape_kernel", (1,),
        dict(src_ptr=s, out1_ptr=np.zeros(32, np.float32), out2_ptr=np.zeros((8, 4), np.float32), M=4, N=8),
        ["out1_ptr", "out2_ptr"],
        lambda a: {"out1_ptr": (a["src_ptr"].reshape(4, 8) * np.arange(1, 5)[:, None]).ravel(),
                   "out2_ptr": (a["src_ptr"].reshape(4, 8) * np.arange(1, 5)[:, None]).reshape(8, 4) + 1},
        rtol=1e-6)
    s = rng(11).standard_normal((4, 16)).astype(np.float32)
    add(F, "trans_T_permute", K, "trans_kernel", (1,),
        dict(src_ptr=s, out1_ptr=np.zeros((16, 4), np.float32), out2_ptr=np.zeros((16, 4), np.float32),
             out3_ptr=np.zeros((16, 4), np.float32), M=4, N=16),
        ["out1_ptr", "out2_ptr", "out3_ptr"],
        lambda a: {"out1_ptr": a["src_ptr"].T, "out2_ptr": a["src_ptr"].T * 2, "out3_ptr": a["src_ptr"].T + 1})
    s = rng(12).integers(0, 1 << 20, (2, 4, 8)).astype(np.int32)
    add(F, "permute3d", K, "permute3d_kernel", (1,),
        dict(src_ptr=s, out_ptr=np.zeros((8, 2, 4), np.int32), A=2, B=4, C=8), ["out_ptr"],
        lambda a: {"out_ptr": a["src_ptr"].transpose(2, 0, 1)})
    a1 = rng(13).integers(-50, 50, 16).astype(np.int32)
    b1 = rng(14).integers(-50, 50, 16).astype(np.int32)
    add(F, "join_split", K, "join_split_kernel", (1,),
        dict(a_ptr=a1, b_ptr=b1, joined_ptr=np.zeros((16, 2), np.int32), s0_ptr=np.zeros(16, np.int32),
             s1_ptr=np.zeros(16, np.int32), N=16),
        ["joined_ptr", "s0_ptr", "s1_ptr"],
        lambda a: {"joined_ptr": np.stack([a["a_ptr"], a["b_ptr"]], 1), "s0_ptr": a["a_ptr"] * 3,
                   "s1_ptr": a["b_ptr"] * 3 - a["a_ptr"] * 3})

    def cat_check(a, r):
        got = np.sort(r["cat_ptr"])
        exp = np.sort(np.concatenate([a["a_ptr"], a["b_ptr"]]))
        m = compare("sorted(cat_ptr)", got, exp, 0, 0)
        if m:
            return m
        il = np.empty(32, np.float32)
        il[0::2] = a["a_ptr"]
        il[1::2] = a["b_ptr"]
        return compare("il_ptr", r["il_ptr"], il, 0, 0)
    add(F, "cat_interleave", K, "cat_interleave_kernel", (1,),
        dict(a_ptr=rng(15).standard_normal(16).astype(np.float32), b_ptr=rng(16).standard_normal(16).astype(np.float32),
             cat_ptr=np.zeros(32, np.float32), il_ptr=np.zeros(32, np.float32), N=16),
        ["cat_ptr", "il_ptr"], check=cat_check)
    add(F, "interleave_scalars", K, "interleave_scalars_kernel", (1,),
        dict(x=10, y=20, out_ptr=np.zeros(4, np.int32), p_ptr=np.array([-3, 7], np.int32)), ["out_ptr"],
        lambda a: {"out_ptr": np.array([10, 20, -3, 7], np.int32)})
    add(F, "full_zeros_zeros_like", K, "fill_kernel", (1,),
        dict(out1_ptr=np.zeros((4, 8), np.int32), out2_ptr=np.zeros((4, 8), np.float32),
             out3_ptr=np.zeros((4, 8), np.float16), x_ptr=np.ones((4, 8), np.float32), M=4, N=8),
        ["out1_ptr", "out2_ptr", "out3_ptr"],
        lambda a: {"out1_ptr": 7 + np.arange(4, dtype=np.int32)[:, None] + np.zeros((4, 8), np.int32),
                   "out2_ptr": np.full((4, 8), 0.5, np.float32), "out3_ptr": np.full((4, 8), -2.5, np.float16)})
    add(F, "expand_reshape_1d", K, "squeeze_kernel", (1,),
        dict(src_ptr=rng(17).standard_normal(64).astype(np.float32), out_ptr=np.zeros(64, np.float32), N=64),
        ["out_ptr"], lambda a: {"out_ptr": a["src_ptr"] * 2 - 1})
    s = rng(18).integers(-9, 9, (1, 100)).astype(np.int32)
    add(F, "odd_1x100", K, "odd1_kernel", (4,),
        dict(src_ptr=s, dst_ptr=np.zeros_like(s), M=1, N=100, BM=2, BN=32), ["dst_ptr"],
        lambda a: {"dst_ptr": a["src_ptr"]})


_ndtiles()

def _ndtiles2():
    add("ndtiles", "reshape_column_to_1d", "ndtiles.py", "col_reshape_kernel", (1,),
        dict(src_ptr=np.arange(8, dtype=np.float32), out_ptr=np.zeros(8, np.float32), N=8), ["out_ptr"],
        lambda a: {"out_ptr": a["src_ptr"] + 1})


_ndtiles2()

# ---- reductions -----------------------------------------------------------------------------
def _reductions():
    F = "reductions"
    K = "reductions.py"
    for (M, N, BM, BN) in [(7, 33, 8, 64), (1, 100, 1, 128), (33, 1, 64, 1)]:
        x = rng(M + N).standard_normal((M, N)).astype(np.float32)
        add(F, "sum_axes_%dx%d" % (M, N), K, "sum_axes_kernel", (1,),
            dict(x_ptr=x, s0_ptr=np.zeros(N, np.float32), s1_ptr=np.zeros(M, np.float32),
                 sall_ptr=np.zeros(1, np.float32), M=M, N=N, BM=BM, BN=BN),
            ["s0_ptr", "s1_ptr", "sall_ptr"],
            lambda a: {"s0_ptr": a["x_ptr"].sum(0), "s1_ptr": a["x_ptr"].sum(1), "sall_ptr": [a["x_ptr"].sum()]},
            rtol=1e-5, atol=1e-5)
        add(F, "maxmin_axes_%dx%d" % (M, N), K, "maxmin_axes_kernel", (1,),
            dict(x_ptr=x, mx0_ptr=np.zeros(N, np.float32), mn1_ptr=np.zeros(M, np.float32),
                 mxall_ptr=np.zeros(1, np.float32), mnall_ptr=np.zeros(1, np.float32), M=M, N=N, BM=BM, BN=BN),
            ["mx0_ptr", "mn1_ptr", "mxall_ptr", "mnall_ptr"],
            lambda a: {"mx0_ptr": a["x_ptr"].max(0), "mn1_ptr": a["x_ptr"].min(1),
                       "mxall_ptr": [a["x_ptr"].max()], "mnall_ptr": [a["x_ptr"].min()]})
    x = rng(20).standard_normal((8, 16)).astype(np.float32)
    add(F, "keep_dims", K, "keepdims_kernel", (1,),
        dict(x_ptr=x, out_ptr=np.zeros_like(x), M=8, N=16), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] - a["x_ptr"].max(1, keepdims=True) + a["x_ptr"].sum(0, keepdims=True)},
        rtol=1e-5, atol=1e-5)
    # small integers with many duplicated extrema: ties must go to the lowest index
    xi = rng(21).integers(-3, 4, (8, 16)).astype(np.float32)
    xi[3, :] = 2.0          # a row of all-equal values
    xi[:, 5] = 9.0          # a column of all-equal values
    add(F, "return_indices_argmax_ties", K, "indices_kernel", (1,),
        dict(x_ptr=xi, vmax_ptr=np.zeros(8, np.float32), imax_ptr=np.zeros(8, np.int32),
             vmin_ptr=np.zeros(8, np.float32), imin_ptr=np.zeros(8, np.int32),
             amax_ptr=np.zeros(16, np.int32), amin_ptr=np.zeros(16, np.int32), M=8, N=16),
        ["vmax_ptr", "imax_ptr", "vmin_ptr", "imin_ptr", "amax_ptr", "amin_ptr"],
        lambda a: {"vmax_ptr": a["x_ptr"].max(1), "imax_ptr": a["x_ptr"].argmax(1),
                   "vmin_ptr": a["x_ptr"].min(1), "imin_ptr": a["x_ptr"].argmin(1),
                   "amax_ptr": a["x_ptr"].argmax(0), "amin_ptr": a["x_ptr"].argmin(0)})
    for n in (1, 7, 100):
        xv = rng(22 + n).integers(-5, 5, n).astype(np.float32)
        add(F, "argmax_masked_%d" % n, K, "argmax_1d_kernel", (1,),
            dict(x_ptr=xv, out_ptr=np.zeros(2, np.int32), n=n, BLOCK=128), ["out_ptr"],
            lambda a: {"out_ptr": [a["x_ptr"].argmax(), a["x_ptr"].argmin()]})
    # NaN-ignoring max/min (x86 accumulates with a select, rechecks rows that come out as
    # the identity): NaNs in the first chunks, everywhere, next to infinities
    for N, BLOCK in [(200, 256), (2000, 2048), (16, 16)]:
        xr = rng(27 + N).standard_normal((10, N)).astype(np.float32)
        xr[1, ::7] = np.nan
        xr[2, :] = np.nan
        xr[3, :] = -np.inf
        xr[3, 1::2] = np.nan
        xr[4, :] = -np.inf
        xr[5, :] = np.inf
        xr[5, ::3] = np.nan
        xr[6, :min(N, 64)] = np.nan
        xr[7, N - 1] = np.inf
        xr[7, 0] = -np.inf
        xr[8, :] = -0.0
        xr[9, :N - 1] = np.nan
        add(F, "row_maxmin_nan_n%d" % N, K, "row_maxmin_nan_kernel", (10,),
            dict(x_ptr=xr, mx_ptr=np.zeros(10, np.float32), mn_ptr=np.zeros(10, np.float32), N=N, BLOCK=BLOCK),
            ["mx_ptr", "mn_ptr"],
            lambda a: {"mx_ptr": np.fmax.reduce(a["x_ptr"], 1), "mn_ptr": np.fmin.reduce(a["x_ptr"], 1)})
    xx = rng(23).integers(-(1 << 31), (1 << 31) - 1, (8, 32), dtype=np.int64).astype(np.int32)
    add(F, "xor_sum", K, "xor_sum_kernel", (1,),
        dict(x_ptr=xx, out0_ptr=np.zeros(32, np.int32), out1_ptr=np.zeros(8, np.int32), M=8, N=32),
        ["out0_ptr", "out1_ptr"],
        lambda a: {"out0_ptr": np.bitwise_xor.reduce(a["x_ptr"], 0), "out1_ptr": np.bitwise_xor.reduce(a["x_ptr"], 1)})
    xp = (rng(24).uniform(0.5, 1.5, (4, 16))).astype(np.float32)
    add(F, "reduce_combine_fn", K, "reduce_fn_kernel", (1,),
        dict(x_ptr=xp, out_ptr=np.zeros(4, np.float32), M=4, N=16), ["out_ptr"],
        lambda a: {"out_ptr": np.prod(a["x_ptr"].astype(np.float64), 1)}, rtol=1e-5)
    xt = rng(25).integers(0, 4, (8, 16)).astype(np.float32)

    def last_argmax(x):
        return x.shape[1] - 1 - x[:, ::-1].argmax(1)
    add(F, "reduce_tuple_combine", K, "reduce_tuple_kernel", (1,),
        dict(x_ptr=xt, val_ptr=np.zeros(8, np.float32), idx_ptr=np.zeros(8, np.int32), M=8, N=16),
        ["val_ptr", "idx_ptr"], lambda a: {"val_ptr": a["x_ptr"].max(1), "idx_ptr": last_argmax(a["x_ptr"])})
    xm = rng(26).standard_normal((4, 32)).astype(np.float32)
    add(F, "method_forms", K, "method_forms_kernel", (1,),
        dict(x_ptr=xm, s_ptr=np.zeros(4, np.float32), mx_ptr=np.zeros(32, np.float32),
             mn_ptr=np.zeros(1, np.float32), M=4, N=32),
        ["s_ptr", "mx_ptr", "mn_ptr"],
        lambda a: {"s_ptr": a["x_ptr"].sum(1), "mx_ptr": a["x_ptr"].max(0), "mn_ptr": [a["x_ptr"].min()]},
        rtol=1e-5, atol=1e-5)
    x8 = rng(27).integers(100, 128, 256).astype(np.int8)   # the sum overflows int8
    x8[::3] = -128
    add(F, "int8_sum_promotes", K, "sum_dtype_kernel", (1,),
        dict(x_ptr=x8, out_ptr=np.zeros(1, np.int32), out64_ptr=np.zeros(1, np.int64),
             outf_ptr=np.zeros(1, np.float32), N=256),
        ["out_ptr", "out64_ptr", "outf_ptr"],
        lambda a: {"out_ptr": [a["x_ptr"].astype(np.int64).sum()], "out64_ptr": [a["x_ptr"].astype(np.int64).sum()],
                   "outf_ptr": [float(a["x_ptr"].astype(np.int64).sum())]})
    x3 = rng(28).standard_normal((2, 4, 8)).astype(np.float32)
    add(F, "sum_max_3d", K, "sum_3d_kernel", (1,),
        dict(x_ptr=x3, s2_ptr=np.zeros((2, 4), np.float32), s1_ptr=np.zeros((2, 8), np.float32), A=2, B=4, C=8),
        ["s2_ptr", "s1_ptr"], lambda a: {"s2_ptr": a["x_ptr"].sum(2), "s1_ptr": a["x_ptr"].max(1)},
        rtol=1e-5, atol=1e-5)
    x16 = rng(29).integers(-30000, 30000, (4, 64)).astype(np.int16)
    add(F, "int16_max_min", K, "int_max_kernel", (1,),
        dict(x_ptr=x16, out_ptr=np.zeros(4, np.int32), M=4, N=64), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"].astype(np.int32).max(1) - a["x_ptr"].astype(np.int32).min(1)})


_reductions()

def _reductions_int():
    # the same index kernels on int32 data
    F = "reductions"
    K = "reductions.py"
    xi = rng(31).integers(-3, 4, (8, 16)).astype(np.int32)
    xi[3, :] = 2
    xi[:, 5] = 9
    add(F, "return_indices_argmax_ties_i32", K, "indices_kernel", (1,),
        dict(x_ptr=xi, vmax_ptr=np.zeros(8, np.int32), imax_ptr=np.zeros(8, np.int32),
             vmin_ptr=np.zeros(8, np.int32), imin_ptr=np.zeros(8, np.int32),
             amax_ptr=np.zeros(16, np.int32), amin_ptr=np.zeros(16, np.int32), M=8, N=16),
        ["vmax_ptr", "imax_ptr", "vmin_ptr", "imin_ptr", "amax_ptr", "amin_ptr"],
        lambda a: {"vmax_ptr": a["x_ptr"].max(1), "imax_ptr": a["x_ptr"].argmax(1),
                   "vmin_ptr": a["x_ptr"].min(1), "imin_ptr": a["x_ptr"].argmin(1),
                   "amax_ptr": a["x_ptr"].argmax(0), "amin_ptr": a["x_ptr"].argmin(0)})
    xt = rng(32).integers(0, 4, (8, 16)).astype(np.int32)
    add(F, "reduce_tuple_combine_i32", K, "reduce_tuple_kernel", (1,),
        dict(x_ptr=xt, val_ptr=np.zeros(8, np.int32), idx_ptr=np.zeros(8, np.int32), M=8, N=16),
        ["val_ptr", "idx_ptr"],
        lambda a: {"val_ptr": a["x_ptr"].max(1), "idx_ptr": 15 - a["x_ptr"][:, ::-1].argmax(1)})


_reductions_int()

# ---- dot ------------------------------------------------------------------------------------
def _bf16_bits(x):
    """fp32 array -> uint16 bf16 bit patterns (round to nearest even) and their fp32 values."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return r, (r.astype(np.uint32) << 16).view(np.float32)


def _dot():
    F = "dot"
    K = "dot.py"
    for (M, N, Kd, BM, BN, BK) in [(16, 16, 16, 16, 16, 16), (33, 7, 100, 16, 8, 32), (1, 100, 7, 16, 32, 16)]:
        a = rng(40 + M).standard_normal((M, Kd)).astype(np.float32)
        b = rng(41 + N).standard_normal((Kd, N)).astype(np.float32)
        add(F, "dot_f32_%dx%dx%d" % (M, N, Kd), K, "dot_kernel", ((M + BM - 1) // BM, (N + BN - 1) // BN),
            dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((M, N), np.float32), M=M, N=N, K=Kd, BM=BM, BN=BN, BK=BK),
            ["c_ptr"], lambda a: {"c_ptr": a["a_ptr"].astype(np.float64) @ a["b_ptr"]}, rtol=1e-4, atol=1e-4)
    a = rng(42).standard_normal((16, 32)).astype(np.float16)
    b = rng(43).standard_normal((32, 16)).astype(np.float16)
    add(F, "dot_f16", K, "dot_half_kernel", (1,),
        dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((16, 16), np.float32), M=16, N=16, K=32), ["c_ptr"],
        lambda a: {"c_ptr": a["a_ptr"].astype(np.float64) @ a["b_ptr"].astype(np.float64)}, rtol=1e-4, atol=1e-4)
    add(F, "matmul_operator", K, "matmul_op_kernel", (1,),
        dict(a_ptr=a.astype(np.float32), b_ptr=b.astype(np.float32), c_ptr=np.zeros((16, 16), np.float32),
             M=16, N=16, K=32), ["c_ptr"],
        lambda a: {"c_ptr": a["a_ptr"].astype(np.float64) @ a["b_ptr"]}, rtol=1e-4, atol=1e-4)
    ab, af = _bf16_bits(rng(44).standard_normal((16, 16)))
    bb, bf = _bf16_bits(rng(45).standard_normal((16, 32)))
    add(F, "dot_bf16_bitcast", K, "dot_bf16_kernel", (1,),
        dict(a_ptr=ab, b_ptr=bb, c_ptr=np.zeros((16, 32), np.float32), d_ptr=np.zeros((16, 32), np.float32),
             M=16, N=32, K=16), ["c_ptr", "d_ptr"],
        lambda a, af=af, bf=bf: {"c_ptr": af.astype(np.float64) @ bf + 1.0, "d_ptr": af.astype(np.float64) @ bf},
        rtol=1e-4, atol=1e-4)
    a8 = rng(46).integers(-128, 128, (16, 64)).astype(np.int8)
    b8 = rng(47).integers(-128, 128, (64, 16)).astype(np.int8)
    a8[0, :] = -128
    b8[:, 0] = -128
    add(F, "dot_i8_i32", K, "dot_i8_kernel", (1,),
        dict(a_ptr=a8, b_ptr=b8, c_ptr=np.zeros((16, 16), np.int32), M=16, N=16, K=64), ["c_ptr"],
        lambda a: {"c_ptr": 2 * (a["a_ptr"].astype(np.int64) @ a["b_ptr"].astype(np.int64))})
    # Full int8 range (-128 * -128 and 127 * -128 products), shapes that fill the VNNI
    # microkernel (4 rows x 4 vectors) and more than one block of it.
    for (m, n, k) in ((32, 64, 64), (64, 128, 32), (16, 32, 128)):
        ai = rng(46 + m).integers(-128, 128, (m, k)).astype(np.int8)
        bi = rng(47 + n).integers(-128, 128, (k, n)).astype(np.int8)
        ai[0, :] = -128
        bi[:, 0] = -128
        add(F, "dot_i8_i32_%dx%dx%d" % (m, n, k), K, "dot_i8_kernel", (1,),
            dict(a_ptr=ai, b_ptr=bi, c_ptr=np.zeros((m, n), np.int32), M=m, N=n, K=k), ["c_ptr"],
            lambda a: {"c_ptr": 2 * (a["a_ptr"].astype(np.int64) @ a["b_ptr"].astype(np.int64))})
    a3 = rng(48).standard_normal((2, 16, 8)).astype(np.float32)
    b3 = rng(49).standard_normal((2, 8, 16)).astype(np.float32)
    add(F, "dot_batched_3d", K, "dot_batched_kernel", (1,),
        dict(a_ptr=a3, b_ptr=b3, c_ptr=np.zeros((2, 16, 16), np.float32), B=2, M=16, N=16, K=8), ["c_ptr"],
        lambda a: {"c_ptr": np.matmul(a["a_ptr"].astype(np.float64), a["b_ptr"])}, rtol=1e-4, atol=1e-4)
    a = rng(50).standard_normal((16, 16)).astype(np.float32)
    b = rng(51).standard_normal((16, 16)).astype(np.float32)
    add(F, "dot_precision_kwargs_f16_out", K, "dot_precision_kernel", (1,),
        dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((16, 16), np.float16), M=16, N=16, K=16), ["c_ptr"],
        lambda a: {"c_ptr": (2 * (a["a_ptr"].astype(np.float64) @ a["b_ptr"])).astype(np.float16)},
        rtol=2e-3, atol=2e-3)


_dot()

# ---- control flow ---------------------------------------------------------------------------
def _control():
    F = "control"
    K = "control.py"
    x = rng(60).standard_normal(32).astype(np.float32)
    for sel, fn in [(0, lambda v: v + 1 + 10), (1, lambda v: v * 2 + 20), (2, lambda v: -v + 30), (-5, lambda v: -v + 30)]:
        add(F, "if_elif_else_sel%d" % sel, K, "if_elif_kernel", (1,),
            dict(x_ptr=x, out_ptr=np.zeros(32, np.float32), sel=sel, BLOCK=32), ["out_ptr"],
            lambda a, fn=fn: {"out_ptr": fn(a["x_ptr"])}, rtol=1e-6, atol=1e-6)
    xv = rng(61).standard_normal(100).astype(np.float32) + 0.1

    def if_tile_ref(a):
        v = a["x_ptr"].copy()
        out = v.copy()
        for b in range(0, 100, 16):
            t = v[b:b + 16].astype(np.float32).sum(dtype=np.float32)
            if t > 0:
                out[b:b + 16] = v[b:b + 16] - t
        return {"out_ptr": out}
    add(F, "if_on_reduction", K, "if_tile_cond_kernel", (7,),
        dict(x_ptr=xv, out_ptr=np.zeros(100, np.float32), n=100, BLOCK=16), ["out_ptr"], if_tile_ref,
        rtol=1e-5, atol=1e-5)
    for (lo, hi, st) in [(0, 10, 1), (3, 50, 7), (5, 5, 1), (10, 2, 1), (-4, 9, 3)]:
        ks = list(range(lo, hi, st))
        add(F, "for_range_%d_%d_%d" % (lo, hi, st), K, "for_runtime_kernel", (1,),
            dict(out_ptr=np.zeros(16, np.int32), lo=lo, hi=hi, step=st, BLOCK=16), ["out_ptr"],
            lambda a, ks=ks: {"out_ptr": np.arange(16) * sum(ks) + len(ks)})

    def tlr_ref(lo, hi, st):
        acc = np.zeros(16, np.float32)
        for k in range(lo, hi, st):
            acc = acc * np.float32(0.5) + np.float32(k)
        return acc + np.arange(16, dtype=np.float32)
    for (lo, hi, st) in [(1, 20, 3), (0, 1, 1)]:
        add(F, "tl_range_%d_%d_%d" % (lo, hi, st), K, "tl_range_kernel", (1,),
            dict(out_ptr=np.zeros(16, np.float32), lo=lo, hi=hi, step=st, BLOCK=16), ["out_ptr"],
            lambda a, r=tlr_ref(lo, hi, st): {"out_ptr": r}, rtol=1e-6)

    def neg_ref(start, step):
        h = 0
        for k in range(start, -1, step):
            h = h * 3 + k
        return (np.arange(8) + h).astype(np.int32)
    for (start, step) in [(9, -1), (10, -3)]:
        add(F, "negative_constexpr_step_%d_%d" % (start, -step), K, "neg_step_kernel", (1,),
            dict(out_ptr=np.zeros(8, np.int32), BLOCK=8, START=start, STEP=step), ["out_ptr"],
            lambda a, r=neg_ref(start, step): {"out_ptr": r})
    xn = rng(62).standard_normal((7, 33)).astype(np.float32)
    add(F, "nested_loops", K, "nested_kernel", (1,),
        dict(x_ptr=xn, out_ptr=np.zeros(7, np.float32), M=7, N=33, BN=8), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"].sum(1)}, rtol=1e-5, atol=1e-5)
    starts = np.array([1, 2, 3, 6, 7, 27, 97, 871], np.int32)

    def collatz(v):
        s = 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            s += 1
        return s
    add(F, "while_scalar", K, "while_kernel", (len(starts),),
        dict(n_ptr=starts, out_ptr=np.zeros(len(starts), np.int32), BLOCK=1), ["out_ptr"],
        lambda a: {"out_ptr": [collatz(int(v)) for v in a["n_ptr"]]})
    xw = (rng(63).uniform(0, 50, 16)).astype(np.float32)

    def while_tile_ref(a):
        v = a["x_ptr"].copy()
        it = 0
        while v.max() >= 1.0:
            v = v * np.float32(0.5)
            it += 1
        return {"out_ptr": v + it}
    add(F, "while_tile", K, "while_tile_kernel", (1,),
        dict(x_ptr=xw, out_ptr=np.zeros(16, np.float32), BLOCK=16), ["out_ptr"], while_tile_ref, rtol=1e-6)
    xs = rng(64).uniform(-1, 1, 16).astype(np.float32)

    def horner(a, n=4):
        x = a["x_ptr"].astype(np.float32)
        acc = x
        for k in range(1, n):
            acc = acc * x + np.float32(k)
        return {"out_ptr": acc}
    add(F, "static_range_unroll", K, "static_range_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(16, np.float32), BLOCK=16, NREP=4), ["out_ptr"], horner, rtol=1e-5, atol=1e-6)
    for act, bias, fn in [("relu", 1.5, lambda v: np.maximum(v, 0) + 1.5),
                          ("leaky", "None", lambda v: np.where(v > 0, v, v * np.float32(0.125))),
                          ("none", 2, lambda v: v + 2)]:
        add(F, "constexpr_string_%s_bias_%s" % (act, bias), K, "constexpr_str_kernel", (1,),
            dict(x_ptr=xs, out_ptr=np.zeros(16, np.float32), BLOCK=16, ACT=act, BIAS=bias), ["out_ptr"],
            lambda a, fn=fn: {"out_ptr": fn(a["x_ptr"])}, rtol=1e-6)
    for flag, sc in [(1, 2), (0, 1), (-3, 4)]:
        add(F, "ternary_flag%d_scale%d" % (flag, sc), K, "ternary_kernel", (1,),
            dict(x_ptr=xs, out_ptr=np.zeros(16, np.float32), flag=flag, BLOCK=16, SCALE=sc), ["out_ptr"],
            lambda a, flag=flag, sc=sc: {"out_ptr": (a["x_ptr"] if flag > 0 else -a["x_ptr"]) * (2.0 if sc > 1 else 0.5)
                                         + (3 if flag > 0 else 5)}, rtol=1e-6)
    add(F, "ternary_runtime_taken_branch_only", K, "ternary_effects_kernel", (4,),
        dict(a_ptr=np.zeros(4, np.float32), b_ptr=np.zeros(4, np.float32), x_ptr=np.array([7.5], np.float32),
             out_ptr=np.zeros(16, np.float32)), ["a_ptr", "b_ptr", "out_ptr"],
        lambda a: {"a_ptr": np.array([1, 0, 1, 0], np.float32), "b_ptr": np.array([0, 1, 0, 1], np.float32),
                   "out_ptr": np.array([0, 0, 0, 0, 3.5, 7.5, 3.5, 7.5, 1, 2, 2, 2, 2, 1, 3, 3], np.float32)})
    xe = rng(65).standard_normal((5, 8)).astype(np.float32)
    add(F, "if_in_loop_ptr_carry", K, "early_zero_kernel", (1,),
        dict(x_ptr=xe, out_ptr=np.zeros(8, np.float32), n=5, BLOCK=8), ["out_ptr"],
        lambda a: {"out_ptr": (a["x_ptr"] * np.array([1, -1, 1, -1, 1], np.float32)[:, None]).sum(0)},
        rtol=1e-5, atol=1e-6)


_control()


# ---- loops carrying tiles -------------------------------------------------------------------
def _loops():
    F = "loops"
    K = "loops.py"
    R = 3

    def ints(seed, shape, lo, hi, dt=np.float32):
        return rng(seed).integers(lo, hi, shape).astype(dt)
    # integer-valued floats: every summation order gives the exact sum
    for N, BLOCK in [(1, 16), (100, 16), (1000, 16), (4100, 16), (1, 256), (100, 256), (1000, 256), (4100, 256),
                     (8192, 256), (100, 1024), (4100, 1024), (8192, 1024)]:
        x = ints(N * 7 + BLOCK, (R, N + 3), -8, 9)
        add(F, "row_sum_n%d_block%d" % (N, BLOCK), K, "row_sum_kernel", (R,),
            dict(x_ptr=x, out_ptr=np.zeros(R, np.float32), N=N, stride=N + 3, BLOCK=BLOCK), ["out_ptr"],
            lambda a, N=N: {"out_ptr": a["x_ptr"][:, :N].sum(1)})

    def blocks(x, N, BLOCK):
        """The BLOCK-wide tiles a loop over the rows of x loads (zero past N), in order."""
        for start in range(0, N, BLOCK):
            v = np.zeros((x.shape[0], BLOCK), np.float32)
            w = min(BLOCK, N - start)
            v[:, :w] = x[:, start:start + w]
            yield v

    def lane_sums_ref(a, N, BLOCK):
        acc = np.zeros((R, BLOCK), np.float32)
        for v in blocks(a["x_ptr"], N, BLOCK):
            acc = (acc + v).astype(np.float32)  # lane by lane, in iteration order
        return {"out_ptr": acc}
    for N, BLOCK in [(1000, 64), (4096, 64), (1000, 1024), (5000, 1024), (7, 16)]:
        x = rng(N + BLOCK).standard_normal((R, N)).astype(np.float32) * np.float32(1000)
        add(F, "lane_sums_exact_n%d_block%d" % (N, BLOCK), K, "lane_sums_kernel", (R,),
            dict(x_ptr=x, out_ptr=np.zeros((R, BLOCK), np.float32), N=N, BLOCK=BLOCK), ["out_ptr"],
            lambda a, N=N, BLOCK=BLOCK: lane_sums_ref(a, N, BLOCK))

    def moments_ref(a, N, BLOCK):
        x = a["x_ptr"]
        nb = (N + BLOCK - 1) // BLOCK
        pad = np.ones((R, nb * BLOCK), np.float32)  # other=1.0 past N
        pad[:, :N] = x
        return {"sum_ptr": pad.sum(1), "sq_ptr": (x * x).sum(1),
                "cnt_ptr": (pad > 0).sum(1).astype(np.int32) * 1000 + nb,
                "any_ptr": (pad.reshape(R, nb, BLOCK) > 2.5).any(1).astype(np.int32)}
    for N, BLOCK in [(37, 16), (1000, 16), (1024, 256), (1000, 256), (3, 256)]:
        x = (ints(N + 3 * BLOCK, (R, N), -6, 7) * np.float32(0.5)).astype(np.float32)
        add(F, "moments_n%d_block%d" % (N, BLOCK), K, "moments_kernel", (R,),
            dict(x_ptr=x, sum_ptr=np.zeros(R, np.float32), sq_ptr=np.zeros(R, np.float32),
                 cnt_ptr=np.zeros(R, np.int32), any_ptr=np.zeros((R, BLOCK), np.int32), N=N, BLOCK=BLOCK),
            ["sum_ptr", "sq_ptr", "cnt_ptr", "any_ptr"], lambda a, N=N, BLOCK=BLOCK: moments_ref(a, N, BLOCK))

    def ptr_carry_ref(a, N, BLOCK):
        x, w = a["x_ptr"].astype(np.float64), a["w_ptr"].astype(np.float64)
        k = np.arange(N) // BLOCK
        return {"out_ptr": (x * w[k][None, :]).sum(1)}
    for N, BLOCK in [(100, 16), (1000, 128), (129, 128)]:
        x = ints(N + 5, (R, N), -50, 51)
        wts = ints(N + 6, ((N + BLOCK - 1) // BLOCK,), -3, 4)
        add(F, "ptr_carry_f64_n%d_block%d" % (N, BLOCK), K, "ptr_carry_kernel", (R,),
            dict(x_ptr=x, w_ptr=wts, out_ptr=np.zeros(R, np.float64), N=N, BLOCK=BLOCK), ["out_ptr"],
            lambda a, N=N, BLOCK=BLOCK: ptr_carry_ref(a, N, BLOCK))
    for N, LO, BLOCK in [(100, 0, 32), (100, 5, 32), (1000, 300, 256), (1000, 999, 256)]:
        x = ints(N + LO, (R, N), -1000, 1000, np.int32)
        add(F, "window_lo%d_n%d_block%d" % (LO, N, BLOCK), K, "window_kernel", (R,),
            dict(x_ptr=x, out_ptr=np.zeros(R, np.int32), N=N, LO=LO, BLOCK=BLOCK), ["out_ptr"],
            lambda a, N=N, LO=LO: {"out_ptr": a["x_ptr"][:, LO:N].sum(1).astype(np.int32)})

    for N, BLOCK, NIDX in [(100, 128, 5), (64, 64, 9), (300, 512, 3)]:
        x = ints(N + NIDX, (12, N), -9, 10)
        idx = rng(N).integers(0, 12, NIDX).astype(np.int32)
        add(F, "gather_rows_n%d_block%d" % (N, BLOCK), K, "gather_rows_kernel", (1,),
            dict(x_ptr=x, idx_ptr=idx, out_ptr=np.zeros(N, np.float32), NIDX=NIDX, N=N, BLOCK=BLOCK), ["out_ptr"],
            lambda a: {"out_ptr": a["x_ptr"][a["idx_ptr"]].sum(0)})
    for N, BLOCK in [(1000, 256), (512, 64), (5, 16)]:
        x = ints(N + 1, (R, N), -9, 10)
        add(F, "offs_carry_n%d_block%d" % (N, BLOCK), K, "offs_carry_kernel", (R,),
            dict(x_ptr=x, out_ptr=np.zeros(R, np.float32), N=N, BLOCK=BLOCK), ["out_ptr"],
            lambda a: {"out_ptr": a["x_ptr"].sum(1)})

    def cross_lane_ref(a, N, BLOCK):
        acc = np.zeros((R, BLOCK), np.float32)
        for v in blocks(a["x_ptr"], N, BLOCK):
            acc = ((acc * np.float32(0.5) + v).astype(np.float32) + acc.max(1, keepdims=True)).astype(np.float32)
        return {"out_ptr": acc}
    for N, BLOCK in [(100, 16), (1000, 256)]:
        x = rng(N).standard_normal((R, N)).astype(np.float32)
        add(F, "cross_lane_n%d_block%d" % (N, BLOCK), K, "cross_lane_kernel", (R,),
            dict(x_ptr=x, out_ptr=np.zeros((R, BLOCK), np.float32), N=N, BLOCK=BLOCK), ["out_ptr"],
            lambda a, N=N, BLOCK=BLOCK: cross_lane_ref(a, N, BLOCK), rtol=1e-6)


_loops()


# ---- functions ------------------------------------------------------------------------------
def _functions():
    F = "functions"
    K = "functions.py"
    x = rng(70).standard_normal(32).astype(np.float32)

    def ref(a):
        v = a["x_ptr"]
        lo, hi = np.minimum(v, -v), np.maximum(v, -v)
        return {"out1_ptr": v * 2 + 1, "out2_ptr": v * 0.5 - 3, "out3_ptr": lo + hi + lo * hi}
    add(F, "defaults_keywords_tuples", K, "helpers_kernel", (1,),
        dict(x_ptr=x, out1_ptr=np.zeros(32, np.float32), out2_ptr=np.zeros(32, np.float32),
             out3_ptr=np.zeros(32, np.float32), BLOCK=32),
        ["out1_ptr", "out2_ptr", "out3_ptr"], ref, rtol=1e-6, atol=1e-6)
    xi = rng(71).integers(-100, 100, 16).astype(np.int32)

    def cdiv2(v):  # C-style truncating division by 2
        return np.trunc(v / 2).astype(np.int32)
    add(F, "constexpr_helper_square", K, "constexpr_helper_kernel", (1,),
        dict(x_ptr=xi, out_ptr=np.zeros(16, np.int32), BLOCK=16, MODE="square"), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] ** 2 - cdiv2(a["x_ptr"] ** 2)})
    add(F, "constexpr_helper_other", K, "constexpr_helper_kernel", (1,),
        dict(x_ptr=xi, out_ptr=np.zeros(16, np.int32), BLOCK=16, MODE="plus"), ["out_ptr"],
        lambda a: {"out_ptr": (a["x_ptr"] + 100) - cdiv2(a["x_ptr"] + 100)})
    xl = rng(72).standard_normal((6, 16)).astype(np.float32)
    add(F, "helper_with_loop", K, "loop_helper_kernel", (1,),
        dict(x_ptr=xl, out_ptr=np.zeros(16, np.float32), n=6, BLOCK=16), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"].sum(0)}, rtol=1e-5, atol=1e-6)
    for (p, q) in [(17, 5), (-17, 5), (17, -5)]:
        add(F, "scalar_tuple_%d_%d" % (p, q), K, "scalar_helper_kernel", (1,),
            dict(out_ptr=np.zeros(2, np.int32), a=p, b=q), ["out_ptr"],
            lambda a, p=p, q=q: {"out_ptr": [int(p / q), p - int(p / q) * q]})
    diag(F, "recursion_error", K, "recursion_kernel", "*i32, i32", expect=("recurs",))
    diag(F, "mutual_recursion_error", K, "mutual_recursion_kernel", "*i32, i32", expect=("recurs",))


_functions()

# ---- math -----------------------------------------------------------------------------------
def _math():
    F = "math"
    K = "math_ops.py"
    import math as pymath
    for fn, xs in [("erf", [0.3, -1.2]), ("erfc", [0.3, 2.5]), ("asinh", [0.7, -3.0]), ("acosh", [1.5, 9.0]),
                   ("atanh", [0.4, -0.9]), ("cbrt", [27.5, -8.0])]:
        for dt, npdt in [("f32", np.float32), ("f64", np.float64)]:
            for block in (1, 2):
                x = np.array(xs[:block], npdt)
                ref = np.array([getattr(pymath, fn)(float(v)) if fn != "cbrt" else np.cbrt(float(v)) for v in x], npdt)
                add(F, "libm_%s_%s_block%d" % (fn, dt, block), K, "libm_narrow_kernel", (1,),
                    dict(x_ptr=x, out_ptr=np.zeros(block, npdt), s_ptr=np.zeros(1, npdt), FN=fn, BLOCK=block),
                    ["out_ptr", "s_ptr"], lambda a, ref=ref: {"out_ptr": ref, "s_ptr": ref[:1]}, rtol=1e-6, atol=1e-6)
    n = 100
    r = rng(80)
    wide = r.uniform(-10, 10, n).astype(np.float32)
    pos = r.uniform(0.01, 20, n).astype(np.float32)
    unit = r.uniform(-0.999, 0.999, n).astype(np.float32)
    y = r.uniform(0.5, 2.0, n).astype(np.float32)
    ysig = r.uniform(-3, 3, n).astype(np.float32)
    halves = (r.integers(-20, 20, n) / 2).astype(np.float32)   # exact .5 cases for rint/round
    f = np.float32
    import math as pymath
    erf = np.vectorize(pymath.erf)

    def rnd_half_away(v):
        return np.sign(v) * np.floor(np.abs(v) + 0.5)
    table = [
        ("exp", wide, y, lambda x, y: np.exp(x.astype(np.float64))),
        ("exp2", wide, y, lambda x, y: np.exp2(x.astype(np.float64))),
        ("log", pos, y, lambda x, y: np.log(x.astype(np.float64))),
        ("log2", pos, y, lambda x, y: np.log2(x.astype(np.float64))),
        ("sin", wide, y, lambda x, y: np.sin(x.astype(np.float64))),
        ("cos", wide, y, lambda x, y: np.cos(x.astype(np.float64))),
        ("sqrt", pos, y, lambda x, y: np.sqrt(x)),
        ("sqrt_rn", pos, y, lambda x, y: np.sqrt(x)),
        ("rsqrt", pos, y, lambda x, y: 1 / np.sqrt(x.astype(np.float64))),
        ("erf", wide / 3, y, lambda x, y: erf(x.astype(np.float64))),
        ("floor", wide, y, lambda x, y: np.floor(x)),
        ("ceil", wide, y, lambda x, y: np.ceil(x)),
        ("abs", wide, y, lambda x, y: np.abs(x)),
        ("sigmoid", wide, y, lambda x, y: 1 / (1 + np.exp(-x.astype(np.float64)))),
        ("fma", wide, ysig, lambda x, y: x.astype(np.float64) * y + 0.25),
        ("clamp", wide, y, lambda x, y: np.minimum(np.maximum(x, f(-0.5)), y)),
        ("fdiv", wide, y, lambda x, y: x.astype(np.float64) / y),
        ("div_rn", wide, y, lambda x, y: x / y),
        ("minimum", wide, ysig, lambda x, y: np.minimum(x, y)),
        ("maximum", wide, ysig, lambda x, y: np.maximum(x, y)),
        ("math_exp", wide, y, lambda x, y: np.exp(x.astype(np.float64))),
        ("math_log", pos, y, lambda x, y: np.log(x.astype(np.float64))),
        ("math_sqrt", pos, y, lambda x, y: np.sqrt(x)),
        ("math_rsqrt", pos, y, lambda x, y: 1 / np.sqrt(x.astype(np.float64))),
        ("math_fma", wide, ysig, lambda x, y: x.astype(np.float64) * y + x),
        ("math_abs", wide, y, lambda x, y: np.abs(x)),
        ("tanh", wide / 2, y, lambda x, y: np.tanh(x.astype(np.float64))),
        ("asin", unit, y, lambda x, y: np.arcsin(x.astype(np.float64))),
        ("acos", unit, y, lambda x, y: np.arccos(x.astype(np.float64))),
        ("atan", wide, y, lambda x, y: np.arctan(x.astype(np.float64))),
        ("atan2", wide, ysig, lambda x, y: np.arctan2(x.astype(np.float64), y)),
        ("pow", pos, ysig, lambda x, y: np.power(x.astype(np.float64), y)),
        ("log1p", unit * 1e-3, y, lambda x, y: np.log1p(x.astype(np.float64))),
        ("expm1", unit * 1e-3, y, lambda x, y: np.expm1(x.astype(np.float64))),
        ("rint", halves, y, lambda x, y: np.rint(x)),
        ("round", halves, y, lambda x, y: rnd_half_away(x)),
        ("trunc", wide, y, lambda x, y: np.trunc(x)),
        ("tl_extra_tanh", wide / 2, y, lambda x, y: np.tanh(x.astype(np.float64))),
    ]
    for name, xv, yv, fn in table:
        add(F, "math_" + name, K, "unary_kernel", (2,),
            dict(x_ptr=xv, y_ptr=yv, out_ptr=np.zeros(n, np.float32), n=n, FN=name, BLOCK=64), ["out_ptr"],
            lambda a, fn=fn: {"out_ptr": fn(a["x_ptr"], a["y_ptr"])}, rtol=1e-5, atol=1e-6)
    special = np.array([0.0, -0.0, 1.5, np.nan, np.inf, -np.inf, -np.nan, 1e38, -1e-38, 3.0], np.float32)
    add(F, "isnan_isinf", K, "classify_kernel", (1,),
        dict(x_ptr=special, nan_ptr=np.full(10, 7, np.int32), inf_ptr=np.full(10, 7, np.int32), n=10, BLOCK=16),
        ["nan_ptr", "inf_ptr"],
        lambda a: {"nan_ptr": np.isnan(a["x_ptr"]).astype(np.int32), "inf_ptr": np.isinf(a["x_ptr"]).astype(np.int32)})
    ua = rng(81).integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    ub = rng(82).integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    ua[0] = ub[0] = 0xFFFFFFFF
    add(F, "umulhi_u32", K, "umulhi_kernel", (1,),
        dict(a_ptr=ua, b_ptr=ub, out_ptr=np.zeros(64, np.uint32), BLOCK=64), ["out_ptr"],
        lambda a: {"out_ptr": ((a["a_ptr"].astype(np.uint64) * a["b_ptr"].astype(np.uint64)) >> 32).astype(np.uint32)})
    ua64 = rng(181).integers(0, 1 << 63, 64, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    ub64 = rng(182).integers(0, 1 << 63, 64, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    ua64[0] = ub64[0] = np.uint64(0xFFFFFFFFFFFFFFFF)
    ua64[1], ub64[1] = np.uint64(0), np.uint64(0xFFFFFFFFFFFFFFFF)
    add(F, "umulhi_u64", K, "umulhi_kernel", (1,),
        dict(a_ptr=ua64, b_ptr=ub64, out_ptr=np.zeros(64, np.uint64), BLOCK=64), ["out_ptr"],
        lambda a: {"out_ptr": np.array([(int(x) * int(y)) >> 64 for x, y in zip(a["a_ptr"], a["b_ptr"])],
                                       dtype=np.uint64)})
    sa = rng(83).integers(-(1 << 31), (1 << 31) - 1, 64, dtype=np.int64).astype(np.int32)
    sb = rng(84).integers(-(1 << 31), (1 << 31) - 1, 64, dtype=np.int64).astype(np.int32)
    add(F, "umulhi_i32", K, "umulhi_kernel", (1,),
        dict(a_ptr=sa, b_ptr=sb, out_ptr=np.zeros(64, np.int32), BLOCK=64), ["out_ptr"],
        # Triton's umulhi is the unsigned high half (MulhiUIOp) whatever the signedness
        lambda a: {"out_ptr": ((a["a_ptr"].view(np.uint32).astype(np.uint64) * a["b_ptr"].view(np.uint32).astype(np.uint64))
                               >> 32).astype(np.uint32).view(np.int32)})
    # x / d with d the same for every element (a scalar, a row sum) rounds exactly like
    # IEEE division across every binade and for specials: no reciprocal-multiply shortcut.
    rd = rng(86)
    nd = 4096
    bits = (rd.integers(0, 1 << 23, nd) | (rd.integers(0, 255, nd) << 23) | (rd.integers(0, 2, nd) << 31))
    xd = bits.astype(np.uint32).view(np.float32).copy()
    xd[:12] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-40, 3.4e38, 1.0, 3.0, 1e-38, 2.0 ** 60]
    xd[1000:2000] = rd.uniform(-100, 100, 1000).astype(np.float32)    # whole chunks in range

    def div_ref(a):
        with np.errstate(all="ignore"):   # inf/NaN/zero divisors are part of the test
            return {"out_ptr": a["x_ptr"] / np.float32(a["s"]),
                    "sum_out_ptr": a["x_ptr"] / a["w_ptr"].sum(dtype=np.float32)}
    for sv in (3.0, -0.7, 1.1754944e-38, 1e-20, 7e25, np.inf, 0.0):
        wv = np.array([sv / 4] * 4, np.float32)
        add(F, "div_uniform_%g" % sv, K, "div_uniform_kernel", (nd // 512,),
            dict(x_ptr=xd, w_ptr=wv, out_ptr=np.zeros(nd, np.float32), sum_out_ptr=np.zeros(nd, np.float32),
                 s=float(np.float32(sv)), n=nd, BLOCK=512), ["out_ptr", "sum_out_ptr"], div_ref, rtol=0, atol=0)
    hx = (np.arange(1000, dtype=np.uint64) * np.uint64(0x9E3779B1)) ^ np.uint64(0xFFFFFFFF00000000)

    def hash_ref(a):
        with np.errstate(over="ignore"):
            h = (a["x_ptr"] ^ np.uint64(0x9E3779B97F4A7C15)) * np.uint64(0xBF58476D1CE4E5B9)
            return {"out_ptr": h ^ (h >> np.uint64(31))}
    add(F, "hash_u64_literals", K, "hash_u64_kernel", (8,),
        dict(x_ptr=hx, out_ptr=np.zeros(1000, np.uint64), n=1000, BLOCK=128), ["out_ptr"], hash_ref)
    xs = rng(85).standard_normal((4, 16)).astype(np.float32) * 3

    def softmax_ref(a):
        # tl.softmax(x) with dim=None reduces along dim 0 (Triton's definition)
        x = a["x_ptr"].astype(np.float64)
        e = np.exp(x - x.max(0, keepdims=True))
        return {"out_ptr": e / e.sum(0, keepdims=True)}
    add(F, "tl_softmax", K, "softmax_fn_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros_like(xs), M=4, N=16), ["out_ptr"], softmax_ref, rtol=1e-5, atol=1e-6)
    x64 = rng(86).uniform(-3, 3, 32)
    add(F, "fp64_math", K, "fp64_kernel", (1,),
        dict(x_ptr=x64, out_ptr=np.zeros(32), BLOCK=32), ["out_ptr"],
        lambda a: {"out_ptr": np.exp(a["x_ptr"]) * np.sqrt(np.abs(a["x_ptr"])) + np.arctan(a["x_ptr"])},
        rtol=1e-12, atol=1e-12)
    x16 = rng(87).uniform(-3, 3, 32).astype(np.float16)
    add(F, "fp16_via_fp32", K, "fp16_math_kernel", (1,),
        dict(x_ptr=x16, out_ptr=np.zeros(32, np.float16), BLOCK=32), ["out_ptr"],
        lambda a: {"out_ptr": (np.exp(a["x_ptr"].astype(np.float32)) - np.log(np.abs(a["x_ptr"].astype(np.float32)) + 1)).astype(np.float16)},
        rtol=1e-3, atol=1e-3)


_math()

# ---- random ---------------------------------------------------------------------------------
def _random():
    F = "random"
    K = "random_ops.py"
    n = 20000

    def check(a, r):
        u, g, ri = r["u_ptr"], r["g_ptr"], r["r_ptr"]
        if not ((u >= 0).all() and (u < 1).all()):
            return "rand outside [0, 1): min %r max %r" % (float(u.min()), float(u.max()))
        if abs(u.mean() - 0.5) > 0.01 or abs(u.var() - 1 / 12) > 0.005:
            return "rand mean %.4f var %.4f, expected 0.5, 0.0833" % (u.mean(), u.var())
        if np.isnan(g).any() or np.isinf(g).any():
            return "randn produced NaN/Inf"
        if abs(g.mean()) > 0.03 or abs(g.std() - 1) > 0.03:
            return "randn mean %.4f std %.4f, expected 0, 1" % (g.mean(), g.std())
        if abs((np.abs(g) < 1).mean() - 0.6827) > 0.02:
            return "randn P(|x|<1) = %.4f, expected 0.683" % (np.abs(g) < 1).mean()
        ru = ri.view(np.uint32).astype(np.float64) / 2.0 ** 32
        if abs(ru.mean() - 0.5) > 0.01:
            return "randint mean %.4f of range" % ru.mean()
        if len(np.unique(ri)) < n * 0.99:
            return "randint has %d distinct values of %d" % (len(np.unique(ri)), n)
        hist = np.histogram(u, bins=10, range=(0, 1))[0]
        if hist.min() < n / 10 * 0.9:
            return "rand histogram uneven: %s" % hist
        return None
    for seed in (0, 12345):
        add(F, "rand_randn_randint_seed%d" % seed, K, "rand_kernel", ((n + 1023) // 1024,),
            dict(u_ptr=np.full(n, -1, np.float32), g_ptr=np.zeros(n, np.float32), r_ptr=np.zeros(n, np.int32),
                 seed=seed, n=n, BLOCK=1024),
            ["u_ptr", "g_ptr", "r_ptr"], check=check)

    def check2d(a, r):
        u = r["u_ptr"]
        if not ((u >= 0).all() and (u < 1).all()):
            return "rand outside [0, 1)"
        if len(np.unique(u)) < u.size * 0.99:
            return "too many repeated values"
        return None
    add(F, "rand_2d_offsets", K, "rand2d_kernel", (1,),
        dict(u_ptr=np.zeros((32, 64), np.float32), seed=7, M=32, N=64), ["u_ptr"], check=check2d)

    def determinism():
        # values depend only on (seed, offset): the same seed gives the same values also with
        # another block size and grid; different seeds differ
        res = []
        for seed, block in ((42, 256), (42, 64), (43, 256)):
            c = Case(F, "x", K, "rand_kernel", (256 // block,),
                     dict(u_ptr=np.zeros(256, np.float32), g_ptr=np.zeros(256, np.float32),
                          r_ptr=np.zeros(256, np.int32), seed=seed, n=256, BLOCK=block),
                     ["u_ptr", "g_ptr", "r_ptr"], check=lambda a, r: res.append(r))
            err = run_case(c)
            if err:
                return err
        for k in ("u_ptr", "g_ptr", "r_ptr"):
            if not np.array_equal(res[0][k], res[1][k]):
                return "%s: same seed and offsets gave different values with BLOCK 256 and 64" % k
            if np.mean(res[0][k] == res[2][k]) > 0.01:
                return "%s: seeds 42 and 43 gave the same values" % k
        return None
    func(F, "rand_seed_determinism", determinism)


_random()

# ---- tutorial-style kernels -----------------------------------------------------------------
def _np_softmax(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _tutorials():
    # softmax: rows strided (out has a wider row), grid smaller than n_rows
    for (R, C, B, G) in [(7, 33, 64, 3), (100, 1, 1, 4), (1, 100, 128, 2), (33, 7, 8, 33)]:
        x = (rng(90 + R).standard_normal((R, C)) * 4).astype(np.float32)
        out = np.full((R, C + 5), 9.0, np.float32)

        def ref(a, C=C):
            o = a["out_ptr"].copy()
            o[:, :C] = _np_softmax(a["in_ptr"])
            return {"out_ptr": o}
        add("softmax", "fused_softmax_%dx%d" % (R, C), "softmax.py", "row_softmax_kernel", (G,),
            dict(out_ptr=out, in_ptr=x, in_stride=C, out_stride=C + 5, n_rows=R, n_cols=C, BLOCK=B, STAGES=2),
            ["out_ptr"], ref, rtol=1e-5, atol=1e-6)
    for (R, C) in [(3, 100), (5, 7)]:
        x = (rng(95 + R).standard_normal((R, C)) * 4).astype(np.float32)
        add("softmax", "online_softmax_%dx%d" % (R, C), "softmax.py", "online_softmax_kernel", (R,),
            dict(out_ptr=np.zeros_like(x), in_ptr=x, n_cols=C, BLOCK=16), ["out_ptr"],
            lambda a: {"out_ptr": _np_softmax(a["in_ptr"])}, rtol=1e-5, atol=1e-6)

    # matmul: a is column-major (strides), c has a padded row stride
    def gelu_tanh(x):
        return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
    acts = {"none": lambda x: x, "gelu_tanh": gelu_tanh, "relu_sq": lambda x: np.maximum(x, 0) ** 2}
    for (M, N, Kd, BM, BN, BK, G, act) in [(100, 33, 70, 32, 16, 16, 2, "gelu_tanh"), (7, 1, 33, 16, 16, 16, 4, "none"),
                                            (64, 64, 64, 16, 32, 32, 3, "relu_sq"), (1, 100, 7, 16, 32, 16, 1, "none")]:
        a = rng(100 + M).standard_normal((M, Kd)).astype(np.float16)
        a_cm = np.asfortranarray(a).ravel(order="K").copy()  # column-major storage of a
        b = rng(101 + N).standard_normal((Kd, N)).astype(np.float16)
        c = np.zeros((M, N + 2), np.float16)
        tiles = ((M + BM - 1) // BM) * ((N + BN - 1) // BN)

        def ref(args, a=a, act=act, N=N):
            o = args["c_ptr"].copy()
            o[:, :N] = acts[act](a.astype(np.float64) @ args["b_ptr"].astype(np.float64)).astype(np.float16)
            return {"c_ptr": o}
        add("matmul", "grouped_matmul_%dx%dx%d_%s" % (M, N, Kd, act), "matmul.py", "gemm_kernel", (tiles,),
            dict(a_ptr=a_cm, b_ptr=b, c_ptr=c, M=M, N=N, K=Kd, s_am=1, s_ak=M, s_bk=N, s_bn=1, s_cm=N + 2, s_cn=1,
                 BM=BM, BN=BN, BK=BK, GROUP=G, ACTIVATION=act),
            ["c_ptr"], ref, rtol=2e-3, atol=2e-3)

    # layer norm (fp32 and fp16 inputs)
    for (R, N, B, dt) in [(7, 100, 32, np.float32), (3, 33, 64, np.float32), (4, 1, 16, np.float32), (5, 77, 16, np.float16)]:
        x = (rng(110 + N).standard_normal((R, N)) * 2 + 0.5).astype(dt)
        w = rng(111).standard_normal(N).astype(np.float32)
        bb = rng(112).standard_normal(N).astype(np.float32)

        def ref(a):
            x = a["x_ptr"].astype(np.float64)
            mu = x.mean(1)
            var = ((x - mu[:, None]) ** 2).mean(1)
            rs = 1 / np.sqrt(var + 1e-5)
            y = (x - mu[:, None]) * rs[:, None] * a["w_ptr"] + a["b_ptr"]
            return {"y_ptr": y, "mean_ptr": mu, "rstd_ptr": rs}
        tol = 2e-3 if dt == np.float16 else 1e-4
        add("layernorm", "layernorm_fwd_%dx%d_%s" % (R, N, np.dtype(dt).name), "layernorm.py", "ln_fwd_kernel", (R,),
            dict(x_ptr=x, y_ptr=np.zeros((R, N), dt), w_ptr=w, b_ptr=bb, mean_ptr=np.zeros(R, np.float32),
                 rstd_ptr=np.zeros(R, np.float32), stride=N, N=N, eps=1e-5, BLOCK=B),
            ["y_ptr", "mean_ptr", "rstd_ptr"], ref, rtol=tol, atol=tol)

    # dropout: kept values scaled exactly, keep rate close to 1 - p, seed-dependent mask
    n = 10000

    def drop_check(a, r, p=0.3):
        x, y, keep = a["x_ptr"], r["out_ptr"], r["keep_ptr"].astype(bool)
        exp = np.where(keep, x / np.float32(1 - p), 0).astype(np.float32)
        m = compare("out_ptr", y, exp, 1e-6, 0)
        if m:
            return m
        rate = keep.mean()
        if abs(rate - (1 - p)) > 0.02:
            return "keep rate %.4f, expected %.2f" % (rate, 1 - p)
        return None
    xd = rng(120).standard_normal(n).astype(np.float32) + 3
    add("dropout", "dropout_p0.3", "dropout.py", "dropout_kernel", ((n + 511) // 512,),
        dict(x_ptr=xd, out_ptr=np.zeros(n, np.float32), keep_ptr=np.zeros(n, np.int8), n=n, p=0.3, seed=1234, BLOCK=512),
        ["out_ptr", "keep_ptr"], check=drop_check)

    # attention
    def attn_ref(a, causal):
        q = a["q_ptr"].astype(np.float64)
        k = a["k_ptr"].astype(np.float64)
        v = a["v_ptr"].astype(np.float64)
        s = np.einsum("hmd,hnd->hmn", q, k) * a["sm_scale"]
        L = q.shape[1]
        if causal:
            s = np.where(np.tril(np.ones((L, L), bool))[None], s, -np.inf)
        mx = s.max(-1, keepdims=True)
        e = np.exp(s - mx)
        o = np.einsum("hmn,hnd->hmd", e / e.sum(-1, keepdims=True), v)
        lse = (mx[..., 0] + np.log(e.sum(-1))) / np.log(2)
        return {"o_ptr": o, "lse_ptr": lse}
    for (H, L, D, BM, BN, causal) in [(2, 100, 16, 16, 32, False), (1, 33, 32, 16, 16, True), (3, 7, 16, 16, 16, False),
                                      (2, 64, 16, 32, 16, True)]:
        r = rng(130 + L)
        q, k, v = (r.standard_normal((H, L, D)).astype(np.float32) for _ in range(3))
        add("attention", "attn_fwd_h%d_l%d_d%d%s" % (H, L, D, "_causal" if causal else ""), "attention.py",
            "attn_fwd_kernel", ((L + BM - 1) // BM, H),
            dict(q_ptr=q, k_ptr=k, v_ptr=v, o_ptr=np.zeros_like(q), lse_ptr=np.zeros((H, L), np.float32), seq_len=L,
                 sm_scale=float(1 / np.sqrt(D)), BM=BM, BN=BN, D=D, CAUSAL=causal),
            ["o_ptr", "lse_ptr"], lambda a, c=causal: attn_ref(a, c), rtol=1e-4, atol=1e-4)


_tutorials()

# ---- tutorials: layer norm backward, extern asin, grouped GEMM, persistent matmul -------------
def _ln_bwd_ref(x, dy, w, eps=1e-5):
    x = x.astype(np.float64)
    dy = dy.astype(np.float64)
    mu = x.mean(1)
    rs = 1 / np.sqrt(((x - mu[:, None]) ** 2).mean(1) + eps)
    xhat = (x - mu[:, None]) * rs[:, None]
    gw = dy * w
    dx = rs[:, None] * (gw - xhat * (xhat * gw).mean(1, keepdims=True) - gw.mean(1, keepdims=True))
    return mu, rs, xhat, dx


def _ln_bwd(M, N, G, BLOCK, dt, threads, seed):
    """Layer norm backward as two launches: dx + partial dw/db under per-group spin locks,
    then the reduction of the partial rows."""
    r = rng(seed)
    x = (r.standard_normal((M, N)) * 1.5 + 0.3).astype(dt)
    dy = r.standard_normal((M, N)).astype(dt)
    w = r.standard_normal(N).astype(np.float32)
    mu, rs, xhat, dx = _ln_bwd_ref(x, dy, w)
    tol = 2e-3 if dt == np.float16 else 1e-4
    args = dict(x_ptr=x, dy_ptr=dy, w_ptr=w, mean_ptr=mu.astype(np.float32), rstd_ptr=rs.astype(np.float32),
                dx_ptr=np.zeros((M, N), dt), pdw_ptr=np.full((G, N), 123.0, np.float32),
                pdb_ptr=np.full((G, N), -55.0, np.float32), lock_ptr=np.zeros(G, np.int32),
                seen_ptr=np.zeros(G, np.int32), stride=N, N=N, GROUPS=G, BLOCK=BLOCK)
    rc, out, err, res = run_kernel("tutorials.py", "ln_bwd_dx_kernel", (M,), args,
                                   ["dx_ptr", "pdw_ptr", "pdb_ptr", "lock_ptr", "seen_ptr"],
                                   timeout=60, extra=["--threads", str(threads)])
    if rc != 0:
        return "dx kernel: tilec exited with %s: %s" % (rc, (err.strip().splitlines() or [""])[0])
    m = compare("dx_ptr", res["dx_ptr"], dx, tol, tol)
    if m:
        return m
    dyf = dy.astype(np.float64)
    pdw = np.zeros((G, N))
    pdb = np.zeros((G, N))
    for row in range(M):
        pdw[row % G] += dyf[row] * xhat[row]
        pdb[row % G] += dyf[row]
    used = np.arange(G) < M
    if (res["lock_ptr"] != 0).any():
        return "locks not released: %s" % res["lock_ptr"]
    m = compare("seen_ptr", res["seen_ptr"], used.astype(np.int32), 0, 0)
    if m:
        return m
    # rows of groups without any program keep their initial contents
    pdw[~used] = 123.0
    pdb[~used] = -55.0
    # The partial rows add M/G fp32 terms in whatever order the programs take the lock, so
    # their rounding grows with M/G; a lost update is off by a whole row's term (~1).
    acc_tol = max(tol, 2e-6 * M / G)
    for name, exp in (("pdw_ptr", pdw), ("pdb_ptr", pdb)):
        m = compare(name, res[name], exp, acc_tol, acc_tol)
        if m:
            return m + " (lost update under the lock?)"
    BN = 32
    args2 = dict(pdw_ptr=res["pdw_ptr"], pdb_ptr=res["pdb_ptr"], dw_ptr=np.zeros(N, np.float32),
                 db_ptr=np.zeros(N, np.float32), GROUPS=G, N=N, BM=8, BN=BN)
    rc, out, err, res2 = run_kernel("tutorials.py", "ln_bwd_dwdb_kernel", ((N + BN - 1) // BN,), args2,
                                    ["dw_ptr", "db_ptr"])
    if rc != 0:
        return "dwdb kernel: tilec exited with %s: %s" % (rc, (err.strip().splitlines() or [""])[0])
    # (unused groups add their initial contents, as the kernel does not know they are unused)
    m = compare("dw_ptr", res2["dw_ptr"], pdw.sum(0), acc_tol, acc_tol)
    return m or compare("db_ptr", res2["db_ptr"], pdb.sum(0), acc_tol, acc_tol)


def _grouped_problems(dt, seed, byte_offsets):
    """One buffer holding A, B, C of every problem (packed back to back at odd offsets),
    the offset table (elements or bytes), the (M, N, K) and leading-dimension tables and
    the expected buffer after the kernel."""
    probs = [(33, 17, 40, 3), (8, 64, 16, 0), (70, 5, 23, 1), (1, 1, 1, 0), (16, 48, 9, 2)]
    r = rng(seed)
    chunks, offs, dims, lds = [], [], [], []
    pos = 0
    exp_chunks = []
    for (m, n, k, pad) in probs:
        a = (r.standard_normal((m, k + pad)) * 0.5).astype(dt)
        b = (r.standard_normal((k, n + pad)) * 0.5).astype(dt)
        c = np.full((m, n + pad), 7.0, dt)
        ce = c.astype(np.float64)
        ce[:, :n] = a[:, :k].astype(np.float64) @ b[:, :n].astype(np.float64)
        for arr, e in ((a, a), (b, b), (c, ce)):
            offs.append(pos)
            chunks.append(arr.ravel())
            exp_chunks.append(np.asarray(e, np.float64).ravel())
            pos += arr.size
        dims += [m, n, k]
        lds += [k + pad, n + pad, n + pad]
    buf = np.concatenate(chunks)
    tiles = sum(((m + 15) // 16) * ((n + 15) // 16) for (m, n, k, p) in probs)
    scale = np.dtype(dt).itemsize if byte_offsets else 1
    return (buf, np.array(offs, np.int64) * scale, np.array(dims, np.int32), np.array(lds, np.int32),
            np.concatenate(exp_chunks), len(probs), tiles)


def _tutorials2():
    F = "tutorials"
    K = "tutorials.py"
    for (M, N, G, B, dt, th) in [(37, 100, 4, 128, np.float32, 4), (200, 33, 8, 64, np.float32, 4),
                                 (64, 77, 16, 128, np.float16, 3), (3, 100, 8, 128, np.float32, 2),
                                 # long critical sections: without the lock this loses updates
                                 (3000, 1000, 2, 1024, np.float32, 2)]:
        func(F, "ln_bwd_%dx%d_g%d_%s" % (M, N, G, np.dtype(dt).name),
             lambda M=M, N=N, G=G, B=B, dt=dt, th=th: _ln_bwd(M, N, G, B, dt, th, 150 + M))

    # 07: libdevice.asin on a masked vector; the tail beyond n holds out-of-domain values
    # that must neither be computed into y nor overwrite its sentinel
    for dt, n in [(np.float32, 1000), (np.float64, 77)]:
        x = rng(160).uniform(-1, 1, n + 5).astype(dt)
        x[:4] = [-1.0, 1.0, 0.0, -0.0]
        x[n:] = 2.0
        y = np.full(n + 5, 9.0, dt)

        def asin_ref(a, n=n):
            e = a["y_ptr"].astype(np.float64).copy()
            e[:n] = np.arcsin(a["x_ptr"][:n].astype(np.float64))
            return {"y_ptr": e}
        add(F, "extern_asin_%s" % np.dtype(dt).name, K, "asin_kernel", ((n + 255) // 256,),
            dict(x_ptr=x, y_ptr=y, n=n, BLOCK=256), ["y_ptr"], asin_ref,
            rtol=2e-7 if dt == np.float64 else 2e-6, atol=1e-7)

    # 08: grouped GEMM from device-side tables, 5 persistent programs for 25 tiles
    def grouped(kernel, dt, byte_offsets, extra, tol, seed):
        buf, offs, dims, lds, exp, nprob, tiles = _grouped_problems(dt, seed, byte_offsets)
        args = dict(buf_ptr=buf)
        args["boffs_ptr" if byte_offsets else "offs_ptr"] = offs
        args.update(dims_ptr=dims, lds_ptr=lds, n_problems=nprob, BM=16, BN=16, BK=8, **extra)
        add(F, "grouped_gemm_%s_%s" % ("int2ptr" if byte_offsets else "offsets", np.dtype(dt).name), K, kernel,
            (5,), args, ["buf_ptr"], lambda a, exp=exp: {"buf_ptr": exp}, rtol=tol, atol=tol)
    grouped("grouped_gemm_offsets_kernel", np.float32, False, {}, 1e-4, 170)
    grouped("grouped_gemm_int2ptr_kernel", np.float32, True, dict(DT="fp32"), 1e-4, 171)
    grouped("grouped_gemm_int2ptr_kernel", np.float16, True, dict(DT="fp16"), 4e-3, 172)

    # 09: persistent matmul, tl.range(pid, tiles, NUM_SMS, flatten=True), split epilogue
    for (M, N, Kd, BM, BN, BK, dt, sms) in [(100, 77, 53, 32, 32, 16, np.float16, 3),
                                            (33, 64, 16, 16, 64, 16, np.float32, 4),
                                            (5, 9, 130, 16, 16, 32, np.float32, 7)]:
        r = rng(180 + M)
        a = r.standard_normal((M, Kd)).astype(dt)
        b = r.standard_normal((Kd, N)).astype(dt)
        c = np.full((M, N + 5), -1.0, np.float32)

        def pref(args, N=N):
            e = args["c_ptr"].astype(np.float64).copy()
            e[:, :N] = args["a_ptr"].astype(np.float64) @ args["b_ptr"].astype(np.float64)
            return {"c_ptr": e}
        add(F, "persistent_matmul_%dx%dx%d_%s_sms%d" % (M, N, Kd, np.dtype(dt).name, sms), K, "persistent_mm_kernel",
            (sms,), dict(a_ptr=a, b_ptr=b, c_ptr=c, M=M, N=N, K=Kd, lda=Kd, ldb=N, ldc=N + 5,
                         BM=BM, BN=BN, BK=BK, GROUP=2, NUM_SMS=sms),
            ["c_ptr"], pref, rtol=1e-4, atol=1e-4)


_tutorials2()

# ---- scans: cumsum / cumprod / associative_scan, gather, histogram, flip --------------------
def _scans():
    F = "scans"
    K = "scans.py"
    for dt in (np.int32, np.float32):
        x = rng(200).integers(-9, 10, (4, 16)).astype(dt)
        add(F, "cumsum_axes_reverse_%s" % np.dtype(dt).name, K, "cumsum2d_kernel", (1,),
            dict(x_ptr=x, c0_ptr=np.zeros_like(x), c1_ptr=np.zeros_like(x), r0_ptr=np.zeros_like(x),
                 r1_ptr=np.zeros_like(x), M=4, N=16),
            ["c0_ptr", "c1_ptr", "r0_ptr", "r1_ptr"],
            lambda a: {"c0_ptr": np.cumsum(a["x_ptr"], 0), "c1_ptr": np.cumsum(a["x_ptr"], 1),
                       "r0_ptr": np.cumsum(a["x_ptr"][::-1], 0)[::-1],
                       "r1_ptr": np.cumsum(a["x_ptr"][:, ::-1], 1)[:, ::-1]})
    xi = rng(201).integers(-3, 4, (4, 8)).astype(np.int32)
    xf = rng(202).uniform(0.5, 1.5, (4, 8)).astype(np.float32)
    for nm, x, tol in (("int32", xi, 0), ("float32", xf, 1e-5)):
        add(F, "cumprod_axes_reverse_%s" % nm, K, "cumprod_kernel", (1,),
            dict(x_ptr=x, p_ptr=np.zeros_like(x), rp_ptr=np.zeros_like(x), M=4, N=8), ["p_ptr", "rp_ptr"],
            lambda a: {"p_ptr": np.cumprod(a["x_ptr"], 1), "rp_ptr": np.cumprod(a["x_ptr"][::-1], 0)[::-1]},
            rtol=tol)
    for n in (100, 1):
        xm = rng(203 + n).standard_normal(n + 3).astype(np.float32)
        xm[n:] = 99.0        # beyond n: must not take part
        add(F, "assoc_scan_max_masked_%d" % n, K, "running_max_kernel", (1,),
            dict(x_ptr=xm, f_ptr=np.full(n + 3, 5.0, np.float32), r_ptr=np.full(n + 3, 5.0, np.float32), n=n,
                 BLOCK=128), ["f_ptr", "r_ptr"],
            lambda a, n=n: {"f_ptr": np.concatenate([np.maximum.accumulate(a["x_ptr"][:n]), [5.0] * 3]),
                            "r_ptr": np.concatenate([np.maximum.accumulate(a["x_ptr"][:n][::-1])[::-1], [5.0] * 3])})
    ra = rng(205).uniform(0.5, 1.0, (4, 32)).astype(np.float32)
    rb = rng(206).standard_normal((4, 32)).astype(np.float32)

    def recur(a, b):
        h = np.zeros_like(a, np.float64)
        prev = np.zeros(a.shape[0])
        for t in range(a.shape[1]):
            prev = a[:, t] * prev + b[:, t]
            h[:, t] = prev
        return h
    for rev in (False, True):
        out = "hr_ptr" if rev else "h_ptr"
        add(F, "assoc_scan_tuple_linear_recurrence%s" % ("_reverse" if rev else ""), K, "linear_recurrence_kernel",
            (1,), dict(a_ptr=ra, b_ptr=rb, h_ptr=np.zeros_like(ra), hr_ptr=np.zeros_like(ra), M=4, N=32), [out],
            lambda a, rev=rev, out=out: {out: recur(a["a_ptr"][:, ::-1], a["b_ptr"][:, ::-1])[:, ::-1] if rev
                                         else recur(a["a_ptr"], a["b_ptr"])}, rtol=1e-5, atol=1e-5)
    xg = rng(207).integers(-1000, 1000, (4, 8)).astype(np.int32)
    for KK in (8, 16):
        i1 = rng(208).integers(0, 8, (4, KK)).astype(np.int32)
        i0 = rng(209).integers(0, 4, (4, 8)).astype(np.int64)
        add(F, "gather_axis1_axis0_k%d" % KK, K, "gather2d_kernel", (1,),
            dict(x_ptr=xg, i1_ptr=i1, i0_ptr=i0, g1_ptr=np.zeros((4, KK), np.int32), g0_ptr=np.zeros((4, 8), np.int32),
                 M=4, N=8, K=KK), ["g1_ptr", "g0_ptr"],
            lambda a: {"g1_ptr": np.take_along_axis(a["x_ptr"], a["i1_ptr"], 1),
                       "g0_ptr": np.take_along_axis(a["x_ptr"], a["i0_ptr"], 0)})
    for KK in (4, 16):
        ix = ((np.arange(KK) * 5 + 3) % 8).astype(np.int32)
        add(F, "gather_1d_%d_of_8" % KK, K, "gather_resize_kernel", (1,),
            dict(x_ptr=xg[0], i_ptr=ix, out_ptr=np.zeros(KK, np.int32), N=8, K=KK), ["out_ptr"],
            lambda a: {"out_ptr": a["x_ptr"][a["i_ptr"]]})
    xh = rng(210).integers(0, 16, 128).astype(np.int32)
    n = 100

    def hist_ref(a, n=n):
        x = a["x_ptr"][:n]
        full = np.concatenate([x, np.zeros(128 - n, np.int32)])   # masked-off lanes load 0
        return {"h_ptr": np.bincount(full, minlength=16), "hm_ptr": np.bincount(x, minlength=16)}
    add(F, "histogram_mask", K, "histogram_masked_kernel", (1,),
        dict(x_ptr=xh, h_ptr=np.zeros(16, np.int32), hm_ptr=np.zeros(16, np.int32), n=n, BLOCK=128, BINS=16),
        ["h_ptr", "hm_ptr"], hist_ref)
    xf2 = rng(211).standard_normal((4, 8)).astype(np.float32)
    add(F, "flip_dims", K, "flip2d_kernel", (1,),
        dict(x_ptr=xf2, f0_ptr=np.zeros_like(xf2), f1_ptr=np.zeros_like(xf2), fd_ptr=np.zeros_like(xf2), M=4, N=8),
        ["f0_ptr", "f1_ptr", "fd_ptr"],
        lambda a: {"f0_ptr": a["x_ptr"][::-1], "f1_ptr": a["x_ptr"][:, ::-1], "fd_ptr": a["x_ptr"][:, ::-1]})
    xi8 = np.array([100, 100, -3, 127, -128, 5, 0, 1, -128, -128, 7, 9, 100, 0, -1, 2], np.int8)
    add(F, "cumsum_int8_dtype_bool", K, "cumsum_dtype_kernel", (1,),
        dict(x_ptr=xi8, o_ptr=np.zeros(16, np.int32), o64_ptr=np.zeros(16, np.int64), ob_ptr=np.zeros(16, np.int32), N=16),
        ["o_ptr", "o64_ptr", "ob_ptr"],
        lambda a: {"o_ptr": np.cumsum(a["x_ptr"].astype(np.int64)), "o64_ptr": np.cumsum(a["x_ptr"].astype(np.int64)),
                   "ob_ptr": np.cumsum(a["x_ptr"] > 0)})
    # fp16 scans: each prefix is the exact prefix rounded once to fp16 (rounding every partial
    # sum to fp16 drifts by ~0.1 over 256 normals, far outside these tolerances)
    x16 = rng(213).standard_normal(256).astype(np.float16)
    add(F, "cumsum_cumprod_fp16_accumulate_fp32", K, "scan16_kernel", (1,),
        dict(x_ptr=x16, s_ptr=np.zeros(256, np.float16), rs_ptr=np.zeros(256, np.float16),
             p_ptr=np.zeros(256, np.float16), N=256), ["s_ptr", "rs_ptr", "p_ptr"],
        lambda a: {"s_ptr": np.cumsum(a["x_ptr"].astype(np.float64)).astype(np.float16),
                   "rs_ptr": np.cumsum(a["x_ptr"].astype(np.float64)[::-1])[::-1].astype(np.float16),
                   "p_ptr": np.cumprod((a["x_ptr"] * np.float16(0.01) + np.float16(1.0)).astype(np.float64)).astype(np.float16)},
        rtol=1e-3, atol=2e-3)
    x3 = np.arange(64, dtype=np.int32).reshape(2, 4, 8) * 7 - 100
    add(F, "flip_3d_middle", K, "flip3d_kernel", (1,), dict(x_ptr=x3, o_ptr=np.zeros_like(x3)), ["o_ptr"],
        lambda a: {"o_ptr": a["x_ptr"][:, ::-1]})
    xh64 = rng(212).integers(0, 8, 32).astype(np.int64)
    add(F, "histogram_int64", K, "histogram_i64_kernel", (1,), dict(x_ptr=xh64, o_ptr=np.zeros(8, np.int32), N=32),
        ["o_ptr"], lambda a: {"o_ptr": np.bincount(a["x_ptr"], minlength=8)})
    # the older single-kernel checks (were XFAIL placeholders in "pending")
    xs = rng(141).integers(-50, 50, 64).astype(np.int32)
    add(F, "cumsum_associative_scan_reverse", "pending.py", "cumsum_kernel", (1,),
        dict(x_ptr=xs, c_ptr=np.zeros(64, np.int32), r_ptr=np.zeros(64, np.int32), N=64), ["c_ptr", "r_ptr"],
        lambda a: {"c_ptr": np.cumsum(a["x_ptr"]), "r_ptr": np.cumsum(a["x_ptr"][::-1])[::-1]})
    xh = rng(142).integers(0, 16, 64).astype(np.int32)
    add(F, "histogram", "pending.py", "histogram_kernel", (1,), dict(x_ptr=xh, out_ptr=np.zeros(16, np.int32), N=64, BINS=16),
        ["out_ptr"], lambda a: {"out_ptr": np.bincount(a["x_ptr"], minlength=16)})
    idx = rng(143).integers(0, 64, 64).astype(np.int32)
    add(F, "gather", "pending.py", "gather_kernel", (1,),
        dict(x_ptr=xs, idx_ptr=idx, out_ptr=np.zeros(64, np.int32), N=64), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"][a["idx_ptr"]]})
    add(F, "flip", "pending.py", "flip_kernel", (1,), dict(x_ptr=xs, out_ptr=np.zeros(64, np.int32), N=64), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"][::-1]})


_scans()


# ---- atomics --------------------------------------------------------------------------------
def _atomics():
    F = "atomics"
    K = "atomics.py"
    n, B = 100, 32          # 4 programs, the last one cut by the mask
    r = rng(220)
    ints = {
        np.int32: (r.integers(-1 << 30, 1 << 30, n + 4), r.integers(-1 << 30, 1 << 30, n + 4)),
        np.uint32: (r.integers(0, 1 << 32, n + 4, dtype=np.uint64), r.integers(0, 1 << 32, n + 4, dtype=np.uint64)),
        np.int64: (r.integers(-1 << 40, 1 << 40, n + 4), r.integers(-1 << 40, 1 << 40, n + 4)),
    }
    fl = (r.standard_normal(n + 4) * 10, r.standard_normal(n + 4) * 10)
    npops = {"add": lambda d, v: d + v, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor, "xchg": lambda d, v: v}
    # all ops on int32; on uint32 the ones where signedness matters; a sample on int64
    cases = ([(np.int32, op) for op in npops] + [(np.uint32, op) for op in ("add", "max", "min")]
             + [(np.int64, op) for op in ("add", "max", "min", "xor", "xchg")]
             + [(np.float32, op) for op in ("add", "max", "min", "xchg")])
    for dt, op in cases:
        d0, v0 = ints[dt] if dt in ints else fl
        dst = np.asarray(d0).astype(dt)
        val = np.asarray(v0).astype(dt)
        if dt == np.float32:
            dst[:3] = [-0.0, 0.0, -5.0]      # mixed signs, signed zeros
            val[:3] = [0.0, -0.0, -7.0]

        def ref(a, op=op, dt=dt, n=n):
            d, v = a["dst_ptr"].copy(), a["val_ptr"]
            with np.errstate(over="ignore"):
                d[:n] = npops[op](d[:n], v[:n]).astype(dt)
            o = a["old_ptr"].copy()
            o[:n] = a["dst_ptr"][:n]
            return {"dst_ptr": d, "old_ptr": o}
        add(F, "atomic_%s_%s_masked_old" % (op, np.dtype(dt).name), K, "atomic_tile_kernel", ((n + B - 1) // B,),
            dict(dst_ptr=dst, val_ptr=val, old_ptr=np.full(n + 4, 3, dt), n=n, OP=op, BLOCK=B),
            ["dst_ptr", "old_ptr"], ref)

    def ticket_check(a, res, n=1000):
        if res["ctr_ptr"][0] != n:
            return "counter %d, expected %d" % (res["ctr_ptr"][0], n)
        t = res["tickets_ptr"]
        if sorted(t[:n].tolist()) != list(range(n)):
            return "tickets are not a permutation of 0..%d" % (n - 1)
        if (t[n:] != -1).any():
            return "masked lanes wrote tickets: %s" % t[n:]
        return None
    add(F, "atomic_add_tickets_contended", K, "ticket_kernel", (16,),
        dict(ctr_ptr=np.zeros(1, np.int32), tickets_ptr=np.full(1024, -1, np.int32), n=1000, BLOCK=64),
        ["ctr_ptr", "tickets_ptr"], check=ticket_check)
    nf, bins = 3000, 8
    xf = (rng(221).integers(-1000, 1000, nf) / 8).astype(np.float32)   # exact float sums

    def cont_ref(a):
        x = a["x_ptr"]
        b = np.arange(nf) % bins
        return {"mx_ptr": np.array([max(x[b == k].max(), -1e30) for k in range(bins)]),
                "mn_ptr": np.array([min(x[b == k].min(), 1e30) for k in range(bins)]),
                "sum_ptr": np.array([x[b == k].astype(np.float64).sum() for k in range(bins)]),
                "total_ptr": [x.astype(np.float64).sum()]}
    add(F, "atomic_float_contended", K, "contended_float_kernel", ((nf + 127) // 128,),
        dict(x_ptr=xf, mx_ptr=np.full(bins, -1e30, np.float32), mn_ptr=np.full(bins, 1e30, np.float32),
             sum_ptr=np.zeros(bins, np.float32), total_ptr=np.zeros(1, np.float32), n=nf, BINS=bins, BLOCK=128),
        ["mx_ptr", "mn_ptr", "sum_ptr", "total_ptr"], cont_ref)
    for dt in (np.int32, np.float32):
        dst = np.arange(16).astype(dt)
        cmp = np.where(np.arange(16) % 3 == 0, np.arange(16), 100).astype(dt)
        val = (np.arange(16) * 10 + 1).astype(dt)
        add(F, "atomic_cas_tile_%s" % np.dtype(dt).name, K, "cas_tile_kernel", (1,),
            dict(dst_ptr=dst, cmp_ptr=cmp, val_ptr=val, old_ptr=np.zeros(16, dt), BLOCK=16), ["dst_ptr", "old_ptr"],
            lambda a: {"dst_ptr": np.where(a["dst_ptr"] == a["cmp_ptr"], a["val_ptr"], a["dst_ptr"]),
                       "old_ptr": a["dst_ptr"]})
    P = 40

    def scalar_check(a, res):
        if res["acc_ptr"][0] != P * (P + 1) // 2:
            return "acc %d, expected %d" % (res["acc_ptr"][0], P * (P + 1) // 2)
        seen = res["seen_ptr"]
        # each program saw the sum of the ids of the programs that ran before it
        order = np.argsort(seen, kind="stable")
        exp = np.concatenate([[0], np.cumsum(order + 1)[:-1]])
        if not (seen[order] == exp).all():
            return "old values %s are not consistent with any order" % seen
        bits = res["bits_ptr"]
        e = [np.int64(np.bitwise_or.reduce([1 << (p % 32) for p in range(P)])).astype(np.int32), max(p * 7 % 23 for p in range(P)),
             min(100 - p for p in range(P)), np.bitwise_xor.reduce(list(range(P)))]
        if list(bits) != [int(v) for v in e]:
            return "bits %s, expected %s" % (bits, e)
        return None
    add(F, "scalar_atomics_old_values", K, "scalar_atomics_kernel", (P,),
        dict(acc_ptr=np.zeros(1, np.int32), seen_ptr=np.zeros(P, np.int32), bits_ptr=np.array([0, -5, 1000, 0], np.int32)),
        ["acc_ptr", "seen_ptr", "bits_ptr"], check=scalar_check)
    add(F, "atomic_add_2d_masked_old", K, "atomic2d_kernel", (1,),
        dict(dst_ptr=np.ones((3, 5), np.float32), old_ptr=np.full((3, 5), 9.0, np.float32), M=3, N=5, BM=4, BN=8),
        ["dst_ptr", "old_ptr"],
        lambda a: {"dst_ptr": 1 + np.arange(3)[:, None] * 100 + np.arange(5)[None, :], "old_ptr": np.ones((3, 5))})
    xh = (np.arange(64) / 8).astype(np.float16)
    add(F, "atomic_add_fp16", K, "atomic_f16_kernel", (1,), dict(dst_ptr=np.full(4, 0.5, np.float16), x_ptr=xh, N=64),
        ["dst_ptr"], lambda a: {"dst_ptr": 0.5 + a["x_ptr"].astype(np.float64).reshape(16, 4).sum(0)}, rtol=1e-3)
    # the older checks (were XFAIL placeholders in "pending")
    n = 1000
    xa = rng(140).integers(0, 100, n).astype(np.int32)
    add(F, "atomic_add", "pending.py", "atomic_add_kernel", ((n + 127) // 128,),
        dict(x_ptr=xa, total_ptr=np.zeros(1, np.int32), hist_ptr=np.zeros(8, np.int32), n=n, BLOCK=128),
        ["total_ptr", "hist_ptr"],
        lambda a: {"total_ptr": [a["x_ptr"].sum()], "hist_ptr": np.bincount(a["x_ptr"] % 8, minlength=8)})

    def lock_check(a, r):
        if r["counter_ptr"][0] != 64:
            return "counter %d, expected 64" % r["counter_ptr"][0]
        if sorted(r["log_ptr"].tolist()) != list(range(64)):
            return "each program must see a distinct counter value: %s" % r["log_ptr"]
        return None
    add(F, "atomic_cas_spin_lock", "pending.py", "atomic_cas_lock_kernel", (64,),
        dict(lock_ptr=np.zeros(1, np.int32), counter_ptr=np.zeros(1, np.int32), log_ptr=np.zeros(64, np.int32)),
        ["counter_ptr", "log_ptr"], check=lock_check, timeout=30)


_atomics()


# ---- pointers: block pointers, tensor descriptors, hints, int64 <-> pointer casts ------------
def _pointers():
    F = "pointers"
    K = "pointers.py"
    for (M, N, Kd, BM, BN, BK) in [(37, 50, 29, 16, 16, 8), (16, 16, 16, 16, 16, 16), (5, 70, 100, 8, 32, 32)]:
        r = rng(230 + M)
        a = r.standard_normal((M, Kd + 3)).astype(np.float32)
        b = r.standard_normal((Kd, N + 1)).astype(np.float32)
        c = np.full((M, N + 2), 4.0, np.float32)

        def ref(args, N=N, Kd=Kd):
            e = args["c_ptr"].astype(np.float64).copy()
            e[:, :N] = args["a_ptr"][:, :Kd].astype(np.float64) @ args["b_ptr"][:, :N]
            return {"c_ptr": e}
        add(F, "block_ptr_matmul_%dx%dx%d" % (M, N, Kd), K, "block_ptr_matmul_kernel",
            ((M + BM - 1) // BM, (N + BN - 1) // BN),
            dict(a_ptr=a, b_ptr=b, c_ptr=c, M=M, N=N, K=Kd, lda=Kd + 3, ldb=N + 1, ldc=N + 2, BM=BM, BN=BN, BK=BK),
            ["c_ptr"], ref, rtol=1e-4, atol=1e-4)
    M, N = 7, 13
    x = rng(240).standard_normal((M, N)).astype(np.float32)
    for (r0, c0) in [(0, 0), (4, 8), (-2, 5)]:
        def nan_ref(a, r0=r0, c0=c0, M=M, N=N):
            e = np.full((16, 8), np.nan)
            for j in range(16):          # out[j, i] = x[r0 + i, c0 + j]
                for i in range(8):
                    if 0 <= r0 + i < M and 0 <= c0 + j < N:
                        e[j, i] = a["x_ptr"][r0 + i, c0 + j]
            return {"out_ptr": e}
        add(F, "block_ptr_colmajor_nan_pad_%d_%d" % (r0, c0), K, "block_ptr_nan_kernel", (1,),
            dict(x_ptr=x, out_ptr=np.zeros((16, 8), np.float32), M=M, N=N, r0=r0, c0=c0, BM=8, BN=16),
            ["out_ptr"], nan_ref)
    xr = rng(241).integers(-100, 100, (5, 37)).astype(np.int32)
    add(F, "block_ptr_check_dim1_only", K, "block_ptr_rows_kernel", (5,),
        dict(x_ptr=xr, out_ptr=np.zeros_like(xr), M=5, N=37, BN=16), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] * 3})
    for (M, N, BM, BN) in [(37, 50, 16, 32), (8, 16, 8, 16)]:
        xt = rng(242 + M).standard_normal((M, N)).astype(np.float32)
        tm, tn = (M + BM - 1) // BM, (N + BN - 1) // BN

        def td_ref(a, M=M, N=N, tm=tm, tn=tn, BM=BM, BN=BN):
            raw = np.zeros((tm * BM, tn * BN))
            raw[:M, :N] = a["x_ptr"]
            return {"y_ptr": a["x_ptr"] * 2.0 - 1.0, "raw_ptr": raw}
        add(F, "tensor_descriptor_tiles_%dx%d" % (M, N), K, "tensor_desc_tiles_kernel", (tm, tn),
            dict(x_ptr=xt, y_ptr=np.zeros_like(xt), raw_ptr=np.full((tm * BM, tn * BN), 8.0, np.float32), M=M, N=N,
                 BM=BM, BN=BN), ["y_ptr", "raw_ptr"], td_ref, rtol=1e-6)
    xh = rng(243).standard_normal(203).astype(np.float32)

    def hints_ref(a, n=203):
        x = a["x_ptr"]
        q = np.arange(len(a["z_ptr"])) // 4
        z = a["z_ptr"].copy()
        z[:n] = np.where(q[:n] < n, x[np.minimum(q[:n], n - 1)], 0)
        y = a["y_ptr"].copy()
        y[:n] = x[:n] + 1
        return {"y_ptr": y, "z_ptr": z}
    add(F, "hints_multiple_of_contiguous_constancy_assume", K, "hints_kernel", (4,),
        dict(x_ptr=xh, y_ptr=np.full(206, 2.0, np.float32), z_ptr=np.full(206, 2.0, np.float32), n=203, BLOCK=64),
        ["y_ptr", "z_ptr"], hints_ref)

    def ptr_int_check(a, res):
        if res["align_ptr"][0] != 0:
            return "address %% 4 = %d" % res["align_ptr"][0]
        m = compare("diff_ptr", res["diff_ptr"], np.arange(16) * 4, 0, 0)
        m = m or compare("y_ptr", res["y_ptr"], a["x_ptr"][::-1], 0, 0)
        return m or compare("z_ptr", res["z_ptr"], a["hsrc_ptr"].astype(np.float32), 0, 0)
    add(F, "ptr_int64_casts", K, "ptr_int_kernel", (1,),
        dict(x_ptr=rng(244).standard_normal(16).astype(np.float32), hsrc_ptr=rng(245).standard_normal(16).astype(np.float16),
             slot_ptr=np.zeros(1, np.int64), diff_ptr=np.zeros(16, np.int64), y_ptr=np.zeros(16, np.float32),
             z_ptr=np.zeros(16, np.float32), align_ptr=np.full(1, 9, np.int32), BLOCK=16),
        ["diff_ptr", "y_ptr", "z_ptr", "align_ptr"], check=ptr_int_check)
    zc = rng(246).standard_normal((8, 64)).astype(np.float32)
    xc = rng(247).standard_normal((8, 64)).astype(np.float32)
    add(F, "load_before_store_broadcast_column", K, "add_first_column_inplace_kernel", (1,),
        dict(z_ptr=zc, x_ptr=xc, stride=64, BM=8, BN=64), ["z_ptr"],
        lambda a, z=zc.copy(), x=xc: {"z_ptr": x + z[:, :1]})
    xs = rng(248).standard_normal(65).astype(np.float32)
    add(F, "load_before_store_shifted_inplace", K, "shift_right_inplace_kernel", (1,),
        dict(x_ptr=xs, BLOCK=64), ["x_ptr"],
        lambda a, x=xs.copy(): {"x_ptr": np.concatenate([x[:1], x[:-1] * 2 + x[1:]])})
    wa = rng(249).standard_normal(32).astype(np.float32)
    wb = rng(250).standard_normal(32).astype(np.float32)
    # any integers, not multiples of the element size: the values must come back unchanged
    aa = rng(251).integers(0, 2**40, 32).astype(np.int64)
    ab = rng(252).integers(0, 2**40, 32).astype(np.int64)
    wc = rng(253).integers(0, 2, 32).astype(np.int32)
    add(F, "where_on_pointer_tiles", K, "where_pointers_kernel", (1,),
        dict(a_ptr=wa, b_ptr=wb, out_ptr=np.zeros(32, np.float32), addr_a_ptr=aa, addr_b_ptr=ab, cond_ptr=wc,
             addr_out_ptr=np.zeros(32, np.int64), BLOCK=32), ["out_ptr", "addr_out_ptr"],
        lambda a: {"out_ptr": np.where(np.arange(32) % 3 == 0, wa, wb), "addr_out_ptr": np.where(wc != 0, aa, ab)})
    xq = np.arange(50, dtype=np.float32)
    for skip in (0, 1, 2):      # 1 is specialized by value like Triton's ":1", so it folds
        s0 = 16 if skip > 0 else 0
        pad = np.concatenate([xq, np.zeros(100, np.float32)])
        add(F, "block_ptr_advance_in_runtime_if_%d" % skip, K, "block_ptr_if_kernel", (1,),
            dict(x_ptr=xq, out_ptr=np.zeros(16, np.float32), N=50, skip=skip, BN=16), ["out_ptr"],
            lambda a, e=pad[s0:s0 + 16] + pad[s0 + 16:s0 + 32] + pad[s0 + 32:s0 + 48]: {"out_ptr": e})
    # the older checks (were XFAIL placeholders in "pending")
    xb = rng(144).standard_normal((7, 33)).astype(np.float32)
    add(F, "make_block_ptr_advance", "pending.py", "block_ptr_kernel", (1,),
        dict(x_ptr=xb, out_ptr=np.zeros_like(xb), M=7, N=33, BM=8, BN=16), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] + 1})
    xt = rng(145).standard_normal((8, 16)).astype(np.float32)
    add(F, "tensor_descriptor", "pending.py", "tensor_desc_kernel", (1,),
        dict(x_ptr=xt, out_ptr=np.zeros_like(xt), M=8, N=16, BM=8, BN=16), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] * 2})


_pointers()


# ---- debug: device_print / print, device_assert / assert, static_assert / static_print -------
PRINT_RE = re.compile(r"^pid \((\d+), (\d+), (\d+)\)(?: idx \(([\d, ]+)\))? (\S*?):? +(.*)$")


def _line_of(file, text):
    for k, line in enumerate(open(os.path.join(KDIR, file)), 1):
        if text in line:
            return k
    raise ValueError("%r not in %s" % (text, file))


def _parse_prints(out):
    """stdout of device_print -> {(pid, idx, prefix): [value strings]}, or an error string."""
    got = {}
    for line in out.splitlines():
        m = PRINT_RE.match(line)
        if not m:
            return "unexpected stdout line %r" % line
        pid = tuple(int(v) for v in m.group(1, 2, 3))
        idx = tuple(int(v) for v in m.group(4).split(",")) if m.group(4) else ()
        key = (pid, idx, m.group(5))
        if key in got:
            return "line printed twice: %r" % line
        got[key] = m.group(6).split()
    return got


def _expect_prints(got, exp):
    """exp: {(pid, idx, prefix): [numbers]}; values compare as floats (ints exactly)."""
    if isinstance(got, str):
        return got
    if set(got) != set(exp):
        miss = sorted(set(exp) - set(got))[:3]
        extra = sorted(set(got) - set(exp))[:3]
        return "printed lines differ: missing %s, unexpected %s" % (miss, extra)
    for k, vals in exp.items():
        g = got[k]
        if len(g) != len(vals):
            return "%s: printed %s, expected %s" % (k, g, vals)
        for s, v in zip(g, vals):
            try:
                ok = (int(s, 0) == v) if isinstance(v, int) else np.isclose(float(s), v, rtol=1e-6)
            except ValueError:
                ok = False
            if not ok:
                return "%s: printed %s, expected %s" % (k, g, vals)
    return None


def _print_case(kernel, args, grid, exp, threads=2, file="debug.py"):
    rc, out, err, _ = run_kernel(file, kernel, grid, args, [], extra=["--threads", str(threads)])
    if rc != 0:
        return "tilec exited with %s: %s" % (rc, (err.strip().splitlines() or [""])[0])
    return _expect_prints(_parse_prints(out), exp)


def _assert_case(kernel, args, grid, outs, fail, line_text, pids=None, msg=None, expect=None, file="debug.py"):
    rc, out, err, res = run_kernel(file, kernel, grid, args, outs)
    if not fail:
        if rc != 0:
            return "tilec exited with %s: %s" % (rc, (err.strip().splitlines() or [""])[0])
        for o, e in (expect or {}).items():
            m = compare(o, res[o], e, 0, 0)
            if m:
                return m
        return None
    if rc != 1:
        return "exit status %s, expected 1 (stderr %r)" % (rc, err.strip()[:200])
    where = "%s:%d" % (file, _line_of(file, line_text))
    if where not in err:
        return "stderr lacks %r: %r" % (where, err.strip()[:300])
    m = re.search(r"program \((\d+), (\d+), (\d+)\)", err)
    if not m or (pids is not None and tuple(int(v) for v in m.group(1, 2, 3)) not in pids):
        return "stderr does not name a failing program %s: %r" % (pids, err.strip()[:300])
    if msg and msg not in err:
        return "stderr lacks the message %r: %r" % (msg, err.strip()[:300])
    return None


def _debug():
    F = "debug"
    K = "debug.py"
    x = np.array([1.5, -2.0, 0.25, 1e10], np.float32)
    k = np.array([0, -1, 255, 7], np.int32)
    exp = {}
    for px in range(3):
        for py in range(2):
            pid = (px, py, 0)
            for i in range(4):
                exp[(pid, (i,), "x")] = [float(x[i])]
                exp[(pid, (i,), "two")] = [float(x[i]), float(k[i])]
            exp[(pid, (), "scalar")] = [py * 10 + px]
    func(F, "device_print_1d_scalar_grid3x2", lambda: _print_case(
        "print_kernel", dict(x_ptr=x, k_ptr=k, N=4), (3, 2), exp))

    # hex=True prints the bits of the value's own width (Triton: 0x%08x for 32-bit ints)
    def hex_case():
        rc, out, err, _ = run_kernel(K, "print_hex_kernel", (1,), dict(k_ptr=k, N=4), [])
        if rc != 0:
            return "tilec exited with %s: %s" % (rc, (err.strip().splitlines() or [""])[0])
        got = _parse_prints(out)
        if isinstance(got, str):
            return got
        for i in range(4):
            for pre, bits in (("hexk", 32), ("hex16", 16)):
                s = got.get(((0, 0, 0), (i,), pre), ["?"])[0]
                want = int(k[i]) & ((1 << bits) - 1)
                if not re.fullmatch(r"0x[0-9a-f]{1,%d}" % (bits // 4), s) or int(s, 16) != want:
                    return "%s of %d printed %r, expected 0x%0*x" % (pre, k[i], s, bits // 4, want)
        return None
    func(F, "device_print_hex_width", hex_case)
    k2 = np.arange(8, dtype=np.int32).reshape(2, 4) * 3 - 5
    func(F, "device_print_2d_idx", lambda: _print_case(
        "print2d_kernel", dict(k_ptr=k2, M=2, N=4), (1,),
        {((0, 0, 0), (i, j), "grid"): [int(k2[i, j])] for i in range(2) for j in range(4)}))
    func(F, "device_print_mixed_dtypes", lambda: _print_case(
        "print_mixed_kernel", dict(x_ptr=x, k_ptr=k, N=4), (1,),
        {((0, 0, 0), (i,), "xk"): [float(x[i]), int(k[i])] for i in range(4)}))
    xp = np.arange(4, dtype=np.float32)
    func(F, "device_print_assert", lambda: _print_case(
        "device_print_kernel", dict(x_ptr=xp, out_ptr=np.zeros(4, np.float32), N=4), (1,),
        {((0, 0, 0), (i,), "x"): [float(i)] for i in range(4)}, file="pending.py"))
    a = np.array([1, 2, 3, 4, 5, -6, 7, 8, 9, 10], np.int32)
    func(F, "device_assert_fails_pid_line", lambda: _assert_case(
        "assert_kernel", dict(x_ptr=a, out_ptr=np.zeros(10, np.int32), n=10, BLOCK=4), (3,), [], True,
        "tl.device_assert(x >= 0", pids={(1, 0, 0)}, msg="x must be non-negative"))
    b = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, -10, -3, -5], np.int32)
    func(F, "device_assert_masked_passes", lambda: _assert_case(
        "assert_kernel", dict(x_ptr=b, out_ptr=np.zeros(12, np.int32), n=9, BLOCK=4), (3,), ["out_ptr"], False,
        None, expect={"out_ptr": np.concatenate([b[:9] * 2, np.zeros(3, np.int32)])}))
    func(F, "assert_statement_fails", lambda: _assert_case(
        "assert_stmt_kernel", dict(x_ptr=a, out_ptr=np.zeros(10, np.int32), limit=8), (10,), [], True,
        "assert v < limit", pids={(7, 0, 0), (8, 0, 0), (9, 0, 0)}, msg="value over the limit"))
    func(F, "assert_statement_passes", lambda: _assert_case(
        "assert_stmt_kernel", dict(x_ptr=a, out_ptr=np.zeros(10, np.int32), limit=11), (10,), ["out_ptr"], False,
        None, expect={"out_ptr": a}))
    xs = np.arange(8, dtype=np.int32) - 3
    add(F, "static_assert_passes", K, "static_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(8, np.int32), BLOCK=8, SCALE=3), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] * 3})
    diag(F, "static_assert_fails", K, "static_kernel", "*i32, *i32, 8, 1", expect=("SCALE must exceed 1",),
         line=_line_of(K, "tl.static_assert(SCALE > 1"))

    def static_print():
        # static_assert_passes runs the same specialization: from the cache it prints nothing
        rc, out, err, _ = run_kernel(K, "static_kernel", (1,), dict(x_ptr=xs, out_ptr=np.zeros(8, np.int32),
                                                                     BLOCK=8, SCALE=3), [], extra=["--no-cache"])
        if rc != 0:
            return "tilec exited with %s" % rc
        if not re.search(r"static_kernel BLOCK =\s*8", out + err):
            return "tl.static_print printed nothing (stdout %r, stderr %r)" % (out[:100], err[:100])
        return None
    func(F, "static_print_output", static_print)


_debug()


# ---- pending: constructs listed as not supported yet (XFAIL until they compile) --------------
# (the atomics, scans, gather, histogram, flip, block-pointer, tensor-descriptor and
# device_print cases that started here moved to their families once they compiled)
def _pending():
    F = "pending"
    K = "pending.py"
    X = "listed as not supported yet: "
    xs = rng(141).integers(-50, 50, 64).astype(np.int32)
    add(F, "sort", K, "sort_kernel", (1,), dict(x_ptr=xs, out_ptr=np.zeros(64, np.int32), N=64), ["out_ptr"],
        lambda a: {"out_ptr": np.sort(a["x_ptr"])}, xfail=X + "sort")


_pending()


# ---- api: tl.* names of Triton's __all__ beyond the core builtins ----------------------------
def _swizzle_ref(SI, SJ, G):
    # column-major numbering inside bands of G rows (the last band may be shorter)
    ni = np.zeros((SI, SJ), np.int32)
    nj = np.zeros((SI, SJ), np.int32)
    for first in range(0, SI, G):
        rows = min(G, SI - first)
        for k in range(rows * SJ):
            i, j = first + k // SJ, k % SJ
            ni[i, j], nj[i, j] = first + k % rows, k // rows
    return ni, nj


def _api():
    F = "api"
    K = "api.py"
    ga = rng(330).standard_normal(16).astype(np.float32)
    gb = rng(331).standard_normal(16).astype(np.float32)
    ga[3] = np.nan
    for func, prop, ref in [("maximum", "ALL", np.maximum), ("minimum", "ALL", np.minimum),
                            ("maximum", "NONE", np.fmax)]:
        add(F, "getattr_%s_%s" % (func, prop), K, "getattr_kernel", (1,),
            dict(a_ptr=ga, b_ptr=gb, c_ptr=np.zeros(16, np.float32), FUNC=func, PROP=prop, BLOCK=16), ["c_ptr"],
            lambda a, ref=ref: {"c_ptr": ref(ga, gb) + 101})
    for (SI, SJ, G) in [(4, 4, 2), (8, 4, 3), (16, 8, 4), (4, 8, 8)]:
        ni, nj = _swizzle_ref(SI, SJ, G)
        add(F, "swizzle2d_%dx%d_g%d" % (SI, SJ, G), K, "swizzle_kernel", (1,),
            dict(out_i=np.zeros(SI * SJ, np.int32), out_j=np.zeros(SI * SJ, np.int32), SI=SI, SJ=SJ, G=G),
            ["out_i", "out_j"], lambda a, ni=ni, nj=nj: {"out_i": ni.ravel(), "out_j": nj.ravel()})
    # (5, 7, 3) and (11, 5, 4): the last, shorter band starts at a linear index that is not
    # a multiple of its row count, so the row must come from the index inside the band
    for (SI, SJ, G) in [(6, 5, 4), (5, 7, 3), (11, 5, 4)]:
        ni, nj = _swizzle_ref(SI, SJ, G)
        add(F, "swizzle2d_scalar_pids" + ("" if (SI, SJ, G) == (6, 5, 4) else "_%dx%d_g%d" % (SI, SJ, G)),
            K, "swizzle_scalar_kernel", (SI, SJ),
            dict(out=np.zeros(2 * SI * SJ, np.int32), size_i=SI, size_j=SJ, G=G), ["out"],
            lambda a, ni=ni, nj=nj: {"out": np.stack([ni.ravel(), nj.ravel()], 1).ravel()})
    x = rng(301).integers(-100, 100, 16).astype(np.int32)
    y = rng(302).integers(-100, 100, 16).astype(np.int32)
    add(F, "add_sub_mul", K, "arith_kernel", (1,), dict(x_ptr=x, y_ptr=y, out_ptr=np.zeros(16, np.int32), N=16),
        ["out_ptr"], lambda a: {"out_ptr": (a["x_ptr"] + a["y_ptr"] - 3) * 2 + 11 + 1})
    add(F, "to_tensor_types", K, "to_tensor_kernel", (1,), dict(out_ptr=np.zeros(6, np.int64)), ["out_ptr"],
        lambda a: {"out_ptr": np.array([32, 3000000000 >> 31, 64, 3, 1, 1], np.int64)})
    xs = f32([1.0, np.nan, 3.0, -np.inf, np.nan, 0.5, 2.0, -1.0])
    ys = f32([np.nan, 2.0, 1.0, 0.0, np.nan, np.inf, -2.0, -1.0])
    add(F, "propagate_nan_all_none", K, "propagate_nan_kernel", (1,),
        dict(x_ptr=xs, y_ptr=ys, all_ptr=np.zeros(16, np.float32), none_ptr=np.zeros(16, np.float32), N=8),
        ["all_ptr", "none_ptr"],
        lambda a: {"all_ptr": np.concatenate([np.maximum(a["x_ptr"], a["y_ptr"]), np.clip(a["x_ptr"], -1, 2)]),
                   "none_ptr": np.concatenate([np.fmin(a["x_ptr"], a["y_ptr"]),
                                               np.where(np.isnan(a["x_ptr"]), -1, np.clip(a["x_ptr"], -1, 2))])})
    add(F, "isinstance_kinds", K, "isinstance_kernel", (1,), dict(out_ptr=np.zeros(8, np.int32), n=5, K=4), ["out_ptr"],
        lambda a: {"out_ptr": np.array([1, 2, 3, 4, 2, 1, 1, 1], np.int32)})
    fv = rng(303).standard_normal(32).astype(np.float32)
    iv = rng(304).integers(-1000, 1000, 32).astype(np.int32)
    add(F, "atomic_load_store", K, "atomic_load_store_kernel", (1,),
        dict(f_ptr=fv, i_ptr=iv, fout_ptr=np.zeros(32, np.float32), iout_ptr=np.full(32, 7, np.int32), N=32),
        ["f_ptr", "fout_ptr", "iout_ptr"],
        lambda a: {"f_ptr": a["f_ptr"] + np.float32(1), "fout_ptr": a["f_ptr"],
                   "iout_ptr": np.concatenate([a["i_ptr"][:31] * 2, [7]]).astype(np.int32)})
    add(F, "map_elementwise", K, "map_elementwise_kernel", (1,),
        dict(x_ptr=fv, out_ptr=np.zeros(32, np.float32), N=32), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] * a["x_ptr"] + np.float32(1)}, rtol=1e-6)
    M, N = 19, 37
    xm = rng(305).standard_normal((M, N)).astype(np.float32)
    add(F, "load_store_tensor_descriptor", K, "descriptor_fn_kernel", (3, 3),
        dict(x_ptr=xm, out_ptr=np.zeros((M, N), np.float32), M=M, N=N, BM=8, BN=16), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] + np.float32(1)})
    u = rng(306).integers(0, 2 ** 32, 16, dtype=np.uint64).astype(np.uint32)
    add(F, "pi32_t_pointer_cast", K, "pi32_kernel", (1,), dict(x_ptr=u, out_ptr=np.zeros(16, np.int32), N=16),
        ["out_ptr"], lambda a: {"out_ptr": a["x_ptr"].view(np.int32)})

    import math
    r = rng(307)
    base = np.concatenate([f32([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 1e-40, -3e-39, 3e38, 2.5,
                                -2.5, 3.5, 1024.0, 0.75]), (r.standard_normal(48) * 8).astype(np.float32)])
    other = np.concatenate([f32([1.0, -1.0, 2.0, -0.0, 1.0, np.nan, 3.0, -0.5, 2.0, 1.0, 1e38, -2.0, 1.0,
                                 np.inf, 4.0, 0.25]), (r.standard_normal(48) * 8).astype(np.float32)])
    small = np.concatenate([f32([0.0, -0.0, 0.5, -0.5, 0.999, -0.999, 1.0, -1.0, 1.5, np.nan, 1e-30, 0.25,
                                 -0.75, 0.9999, 0.1, -0.3]), r.uniform(-1, 1, 48).astype(np.float32)])

    def ilogb(v):
        if np.isnan(v) or v == 0:
            return -2147483648
        if np.isinf(v):
            return 2147483647
        return math.frexp(float(v))[1] - 1

    def logb(v):
        if np.isnan(v):
            return v
        if v == 0:
            return -np.inf
        if np.isinf(v):
            return np.inf
        return float(math.frexp(float(v))[1] - 1)

    def erf_check(a, res):
        x, got = a["x_ptr"].astype(np.float64), res["out_ptr"].astype(np.float64)
        for xi, gi in zip(x, got):
            if np.isnan(xi) or abs(xi) > 1:
                if not np.isnan(gi):
                    return "erfinv(%r) = %r, expected NaN" % (xi, gi)
            elif abs(xi) == 1:
                if gi != np.copysign(np.inf, xi):
                    return "erfinv(%r) = %r" % (xi, gi)
            elif abs(math.erf(gi) - xi) > 4e-7 * max(1.0, abs(xi)) + 1e-7 * abs(gi) * 2:
                return "erf(erfinv(%r)) = %r" % (xi, math.erf(gi))
        return None

    with np.errstate(all="ignore"):
        refs = {
            "signbit": (base, other, lambda x, y: np.signbit(x).astype(np.float32), 0),
            "copysign": (base, other, np.copysign, 0),
            "hypot": (base, other, lambda x, y: np.hypot(x.astype(np.float64), y).astype(np.float32), 2e-7),
            "fdim": (base, other, lambda x, y: np.where(np.isnan(x - y), x - y, np.where(x > y, x - y, 0)).astype(np.float32), 0),
            "saturatef": (base, other, lambda x, y: np.where(x > 0, np.where(x < 1, x, 1), 0).astype(np.float32), 0),
            "ilogb": (base, other, lambda x, y: np.array([ilogb(v) for v in x], np.float64).astype(np.float32), 0),
            "logb": (base, other, lambda x, y: np.array([logb(v) for v in x], np.float32), 0),
            "ldexp": (f32(r.standard_normal(64)), np.round(r.uniform(-140, 130, 64)).astype(np.float32),
                      lambda x, y: np.ldexp(x.astype(np.float64), y.astype(np.int32)).astype(np.float32), 0),
            "exp10": (f32(r.uniform(-30, 30, 64)), other, lambda x, y: np.power(10.0, x.astype(np.float64)).astype(np.float32), 3e-6),
            "llrint": (f32(np.round(r.uniform(-50, 50, 64) * 2) / 2), other, lambda x, y: np.rint(x), 0),
            "float2int_rn": (f32(np.round(r.uniform(-50, 50, 64) * 2) / 2), other, lambda x, y: np.rint(x), 0),
            "isfinited": (base, other, lambda x, y: np.isfinite(x).astype(np.float32), 0),
            "fast_dividef": (f32(r.standard_normal(64)), f32(r.uniform(0.5, 2, 64)), lambda x, y: x / y, 1e-6),
            "normcdf": (f32(r.uniform(-6, 6, 64)), other,
                        lambda x, y: np.array([0.5 * math.erfc(-float(v) / math.sqrt(2)) for v in x], np.float32), 5e-6),
        }
    for fn, (xa, ya, ref, tol) in refs.items():
        add(F, "libdevice_" + fn, K, "libdevice_kernel", (1,),
            dict(x_ptr=xa, y_ptr=ya, out_ptr=np.zeros(64, np.float32), FN=fn, N=64), ["out_ptr"],
            lambda a, ref=ref: {"out_ptr": ref(a["x_ptr"], a["y_ptr"])}, rtol=tol, atol=0)
    add(F, "libdevice_erfinv", K, "libdevice_kernel", (1,),
        dict(x_ptr=small, y_ptr=other, out_ptr=np.zeros(64, np.float32), FN="erfinv", N=64), ["out_ptr"],
        check=erf_check)

    xt = rng(308).integers(-50, 50, (4, 16)).astype(np.int32)
    for (K_, desc, kw) in [(4, True, 0), (4, False, 1), (8, True, 1), (2, False, 2), (16, True, 2)]:
        add(F, "topk_k%d_%s_form%d" % (K_, "desc" if desc else "asc", kw), K, "topk_kernel", (1,),
            dict(x_ptr=xt, out_ptr=np.zeros((4, K_), np.int32), R=4, C=16, K=K_, DESC=desc, KW=kw), ["out_ptr"],
            lambda a, K_=K_, desc=desc: {"out_ptr": (-np.sort(-a["x_ptr"], 1) if desc else np.sort(a["x_ptr"], 1))[:, :K_]})
    ri = rng(309)
    edge32 = np.array([0, 1, -1, 2 ** 31 - 1, -2 ** 31, 0x10, 0x80000000 - 2, 12345678], np.int64)
    xi = np.concatenate([edge32, ri.integers(-2 ** 31, 2 ** 31, 56)]).astype(np.int32)
    yi = np.concatenate([edge32[::-1], ri.integers(-2 ** 31, 2 ** 31, 56)]).astype(np.int32)
    u = lambda v: int(v) & 0xFFFFFFFF
    iref = {
        "popc": lambda x, y: [bin(u(v)).count("1") for v in x],
        "clz": lambda x, y: [32 - u(v).bit_length() for v in x],
        "ffs": lambda x, y: [(u(v) & -u(v)).bit_length() for v in x],
        "brev": lambda x, y: [int("{:032b}".format(u(v))[::-1], 2) for v in x],
        "hadd": lambda x, y: [(int(a) + int(b)) >> 1 for a, b in zip(x, y)],
        "rhadd": lambda x, y: [(int(a) + int(b) + 1) >> 1 for a, b in zip(x, y)],
        "mulhi": lambda x, y: [(int(a) * int(b)) >> 32 for a, b in zip(x, y)],
        "float_as_int": lambda x, y: list(x),
    }
    for fn, ref in iref.items():
        add(F, "libdevice_int_" + fn, K, "libdevice_int_kernel", (1,),
            dict(x_ptr=xi, y_ptr=yi, out_ptr=np.zeros(64, np.int64), FN=fn, N=64), ["out_ptr"],
            lambda a, ref=ref: {"out_ptr": np.array([((v + 2 ** 31) % 2 ** 32) - 2 ** 31
                                                     for v in ref(a["x_ptr"], a["y_ptr"])], np.int64)})
    x64 = np.concatenate([np.array([0, 1, -1, 2 ** 63 - 1, -2 ** 63, 2 ** 40, 3 << 50, 12345678901], np.int64),
                          ri.integers(-2 ** 63, 2 ** 63 - 1, 56, dtype=np.int64)])
    u64 = lambda v: int(v) & 0xFFFFFFFFFFFFFFFF
    s64 = lambda v: ((v + 2 ** 63) % 2 ** 64) - 2 ** 63
    ref64 = {"popc": lambda v: bin(u64(v)).count("1"), "clz": lambda v: 64 - u64(v).bit_length(),
             "ffs": lambda v: (u64(v) & -u64(v)).bit_length(),
             "brev": lambda v: s64(int("{:064b}".format(u64(v))[::-1], 2))}
    for fn, ref in ref64.items():
        add(F, "libdevice_int64_" + fn, K, "libdevice_int_kernel", (1,),
            dict(x_ptr=x64, y_ptr=x64, out_ptr=np.zeros(64, np.int64), FN=fn, N=64), ["out_ptr"],
            lambda a, ref=ref: {"out_ptr": np.array([ref(v) for v in a["x_ptr"]], np.int64)})
    diag(F, "diag_inline_asm", K, "inline_asm_kernel", "*i32", expect=("inline_asm_elementwise", "not supported"),
         line=_line_of(K, "tl.inline_asm_elementwise("))
    diag(F, "diag_call_class", K, "call_class_kernel", "*i32", expect=("tl.tensor is a type",),
         line=_line_of(K, "t = tl.tensor(x_ptr)"))
    diag(F, "diag_propagate_nan_member", K, "bad_propagate_kernel", "*fp32", expect=("PropagateNan", "SOME"),
         line=_line_of(K, "PropagateNan.SOME"))
    diag(F, "diag_atomic_poll", K, "atomic_poll_kernel", "*i32", expect=("atomic_poll", "not supported"),
         line=_line_of(K, "tl.atomic_poll(x_ptr, 1)"))
    diag(F, "diag_isinstance_dtype_class", K, "isinstance_unknown_kernel", "*i32", expect=("isinstance",),
         line=_line_of(K, "isinstance(x_ptr, tl.float32)"))


_api()


# ---- tuples: shapes and tuples at compile time -----------------------------------------------
def _tuples():
    F = "tuples"
    K = "tuples.py"
    for (R, C) in [(4, 8), (2, 16), (8, 2)]:
        x = rng(320 + R).integers(-9, 9, R * C).astype(np.int32)
        add(F, "shape_compare_%dx%d" % (R, C), K, "shape_kernel", (1,), dict(x_ptr=x, out_ptr=np.zeros(7, np.int32), R=R, C=C),
            ["out_ptr"], lambda a, R=R, C=C: {"out_ptr": np.array(
                [R * 100 + C, 1 + R + C, R * C, R + C, 37, a["x_ptr"].sum(), (2 in (R, C)) + 2], np.int32)})
    xs = (np.arange(32) % 7 - 3).astype(np.int32)
    add(F, "row_sums_after_store_2x16", K, "row_sums_after_store_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(2, np.int32), R=2, C=16), ["out_ptr"],
        lambda a: {"out_ptr": np.array([5, a["x_ptr"].sum()], np.int32)})
    for n in [0, 1, 10, 11]:
        add(F, "range_step_kwarg_n%d" % n, K, "step_kwarg_kernel", (1,), dict(out_ptr=np.zeros(2, np.int32), n=n),
            ["out_ptr"], lambda a, n=n: {"out_ptr": np.array([sum(range(0, n, 3)), sum(range(1, 10, 4))], np.int32)})
    diag(F, "diag_shape_static_assert", K, "shape_assert_fails_kernel", "*fp32", expect=("x must be 8 x 4",),
         line=_line_of(K, '"x must be 8 x 4"'))
    diag(F, "diag_tuple_of_tensors_compare", K, "tensor_tuple_compare_kernel", "*fp32", expect=("tuples holding tensors",),
         line=_line_of(K, "(x, x) == (x, x)"))
    diag(F, "diag_tuple_order_scalar", K, "tuple_order_scalar_kernel", "*fp32", expect=("cannot order a tuple",),
         line=_line_of(K, "x.shape < 3"))
    diag(F, "diag_tuple_plus_int", K, "tuple_plus_int_kernel", "*fp32", expect=("concatenate",),
         line=_line_of(K, "s = x.shape + 1"))
    diag(F, "diag_tuple_slice_step_zero", K, "tuple_slice_step_zero_kernel", "*fp32", expect=("step cannot be zero",),
         line=_line_of(K, "x.shape[::0]"))
    diag(F, "diag_tuple_index_range", K, "tuple_index_range_kernel", "*fp32", expect=("out of range",),
         line=_line_of(K, "x.shape[1])"))


_tuples()


# ---- fp8: storage types, casts (RNE, saturating), arithmetic through fp32, dot --------------
# (mantissa bits, exponent bias, kind): kind 0 has inf and NaNs in its top exponent, kind 1
# ("fn") has no inf and S.1111.111 as NaN, kind 2 ("fnuz") has no inf, no -0 and 0x80 as NaN
FP8_FORMATS = {"fp8e5": (2, 15, 0), "fp8e4nv": (3, 7, 1), "fp8e4b15": (3, 15, 1), "fp8e4b8": (3, 8, 2),
               "fp8e5b16": (2, 16, 2)}


def fp8_value(code, fmt):
    """The real number an fp8 code stands for, from the format's definition."""
    m, bias, kind = FP8_FORMATS[fmt]
    ebits = 7 - m
    sign, e, f = code >> 7, (code >> m) & ((1 << ebits) - 1), code & ((1 << m) - 1)
    if kind == 2 and code == 0x80:
        return float("nan")
    if kind == 1 and code & 0x7F == 0x7F:
        return float("nan")
    if kind == 0 and e == (1 << ebits) - 1:
        v = float("inf") if f == 0 else float("nan")
    elif e == 0:
        v = f / 2.0 ** m * 2.0 ** (1 - bias)
    else:
        v = (1 + f / 2.0 ** m) * 2.0 ** (e - bias)
    return -v if sign else v


def fp8_encode_ref(x, fmt, rtz=False):
    """Nearest code (ties to the even code; or toward zero), saturating at +-max, NaN kept."""
    m, bias, kind = FP8_FORMATS[fmt]
    x = float(x)
    neg = math.copysign(1.0, x) < 0
    if math.isnan(x):
        return 0x80 if kind == 2 else (0x7F | (0x80 if neg else 0))
    pos = [(fp8_value(c, fmt), c) for c in range(0x80)]
    pos = [(v, c) for v, c in pos if math.isfinite(v)]
    vmax, cmax = max(pos)
    a = abs(x)
    if a >= vmax:
        code = cmax
    elif rtz:
        code = max((v, c) for v, c in pos if v <= a)[1]
    else:
        best = min(pos, key=lambda vc: (abs(vc[0] - a), vc[1] & 1))
        code = best[1]
    if neg and not (kind == 2 and code == 0):
        code |= 0x80
    return code


def fp8_encode_array(xs, fmt, rtz=False):
    return np.array([fp8_encode_ref(v, fmt, rtz) for v in np.asarray(xs, np.float32)], np.uint8)


def _rtz16(x, dt):
    """fp32 -> fp16/bf16 toward zero: the nearest-even result, stepped toward zero where it
    went away from zero (np.nextafter in the target type)."""
    out = []
    for v in x.astype(np.float64):
        if dt == "fp16":
            with np.errstate(over="ignore"):
                y = np.float16(v)
            if abs(float(y)) > abs(v):
                y = np.nextafter(y, np.float16(0))
            out.append(y.view(np.uint16))
        else:  # bf16: the top 16 bits of the fp32 (truncation is toward zero), NaN kept
            b = int(np.float32(v).view(np.uint32))
            out.append(np.uint16(b >> 16) if not np.isnan(v) else np.uint16((b >> 16) | 0x40))
    return np.array(out, np.uint16)


def fp8_decode_array(codes, fmt):
    return np.array([fp8_value(int(c), fmt) for c in codes], np.float32)


def _fp8_inputs(fmt, seed):
    vals = sorted({fp8_value(c, fmt) for c in range(0x80)} - {float("nan"), float("inf")})
    vals = [v for v in vals if math.isfinite(v)]
    mids = [(a + b) / 2 for a, b in zip(vals, vals[1:])]
    xs = vals + mids
    f32 = np.float32
    xs += [float(np.nextafter(f32(v), f32(np.inf))) for v in mids]
    xs += [float(np.nextafter(f32(v), f32(-np.inf))) for v in mids[1:]]
    r = rng(seed)
    xs += list(np.exp(r.uniform(np.log(vals[1] / 8), np.log(vals[-1] * 4), 600)))
    xs += [vals[-1] * 1.01, vals[-1] * 3, 1e30, 3.4e38, np.inf, 1e-30, 1e-42, 0.0]
    xs = xs + [-v for v in xs] + [np.nan, -np.nan]
    a = np.array(xs, np.float32)
    n = -(-len(a) // 256) * 256
    return np.concatenate([a, np.zeros(n - len(a), np.float32)])


def _fp8():
    F = "fp8"
    K = "fp8.py"
    codes = np.arange(256, dtype=np.uint8)
    for fmt in FP8_FORMATS:
        add(F, "decode_all_codes_%s" % fmt, K, "decode_kernel", (1,),
            dict(x_ptr=(codes, fmt), out_ptr=np.zeros(256, np.float32), N=256), ["out_ptr"],
            lambda a, fmt=fmt: {"out_ptr": fp8_decode_array(range(256), fmt)})
        add(F, "abs_all_codes_%s" % fmt, K, "abs_kernel", (1,),
            dict(x_ptr=(codes, fmt), out_ptr=(np.zeros(256, np.uint8), fmt), N=256), ["out_ptr"],
            lambda a: {"out_ptr": codes & 0x7F})
        xs = _fp8_inputs(fmt, 330 + len(fmt))
        add(F, "encode_fp32_%s" % fmt, K, "encode_kernel", (len(xs) // 256,),
            dict(x_ptr=xs, out_ptr=(np.zeros(len(xs), np.uint8), fmt), N=256, ROUND="rtne"), ["out_ptr"],
            lambda a, fmt=fmt: {"out_ptr": fp8_encode_array(a["x_ptr"], fmt)})
        add(F, "encode_fp32_rtz_%s" % fmt, K, "encode_kernel", (len(xs) // 256,),
            dict(x_ptr=xs, out_ptr=(np.zeros(len(xs), np.uint8), fmt), N=256, ROUND="rtz"), ["out_ptr"],
            lambda a, fmt=fmt: {"out_ptr": fp8_encode_array(a["x_ptr"], fmt, rtz=True)})
        # every code back through fp32 and fp16 to itself (NaNs to the canonical NaN)
        back = np.array([fp8_encode_ref(fp8_value(c, fmt), fmt) for c in range(256)], np.uint8)
        f16 = fp8_decode_array(range(256), fmt).astype(np.float16)
        add(F, "roundtrip_fp16_%s" % fmt, K, "encode_implicit_kernel", (1,),
            dict(x_ptr=f16, out_ptr=(np.zeros(256, np.uint8), fmt), N=256), ["out_ptr"],
            lambda a, back=back: {"out_ptr": back})
    xs16 = np.concatenate([_fp8_inputs("fp8e5", 360), rng(361).standard_normal(256).astype(np.float32) * 1e3,
                           f32([70000.0, -65520.0, 65519.0, 1e-8, -3e-8, 6e-5, 3.4e38, -1e-40] * 32)])
    for dt in ["fp16", "bf16"]:
        xin = xs16 if dt == "fp16" else np.where(np.abs(xs16) < 1.2e-38, np.float32(0.5), xs16)
        add(F, "rtz_fp32_to_%s" % dt, K, "encode_kernel", (len(xs16) // 256,),
            dict(x_ptr=xin, out_ptr=(np.zeros(len(xs16), np.uint16), dt), N=256, ROUND="rtz"), ["out_ptr"],
            lambda a, dt=dt: {"out_ptr": _rtz16(a["x_ptr"], dt)})
    sub = f32([-1e-40, 1e-40, 3e-39, 1e-45] * 64)
    add(F, "bf16_rne_fp32_subnormals", K, "encode_kernel", (1,),
        dict(x_ptr=sub, out_ptr=(np.zeros(256, np.uint16), "bf16"), N=256, ROUND="rtne"), ["out_ptr"],
        lambda a: {"out_ptr": np.array([0x8001, 0x0001, 0x0021, 0x0000] * 64, np.uint16)})
    diag(F, "diag_bad_rounding_mode", K, "bad_rounding_kernel", "*fp32, *fp16", expect=("rtne", "rtz", "rtp"),
         line=_line_of(K, 'fp_downcast_rounding="rtp"'))
    diag(F, "diag_rounding_on_widening", K, "rounding_on_widening_kernel", "*fp32, *fp64",
         expect=("truncating fp conversions",), line=_line_of(K, 'x.to(tl.float64, fp_downcast_rounding="rtz")'))
    for src, dst in [("fp8e4nv", "fp8e5"), ("fp8e5", "fp8e4nv"), ("fp8e4b8", "fp8e4nv"), ("fp8e5b16", "fp8e4b15")]:
        def ref(a, src=src, dst=dst):
            v = fp8_decode_array(range(256), src)
            v[-3:] = 1.5
            return {"out_ptr": fp8_encode_array(v, dst)}
        add(F, "cast_%s_to_%s" % (src, dst), K, "cast_between_kernel", (1,),
            dict(x_ptr=(codes, src), out_ptr=(np.zeros(256, np.uint8), dst), N=256), ["out_ptr"], ref)
    r = rng(341)
    ca = r.integers(0, 256, 128).astype(np.uint8)
    cb = r.integers(0, 256, 128).astype(np.uint8)
    fmt = "fp8e4nv"

    def arith_ref(a):
        da, db = fp8_decode_array(ca, fmt), fp8_decode_array(cb, fmt)
        with np.errstate(all="ignore"):
            t = fp8_decode_array(fp8_encode_array(da * np.float32(2), fmt), fmt)
            u = fp8_encode_array(t - db, fmt)
            return {"sum_ptr": fp8_encode_array(da + db, fmt), "prod_ptr": fp8_decode_array(u, fmt),
                    "max_ptr": fp8_encode_array(np.fmax(da, db), fmt), "lt_ptr": (da < db).astype(np.int8),
                    "div_ptr": da / db, "neg_ptr": fp8_encode_array(-da, fmt)}
    z8 = lambda: (np.zeros(128, np.uint8), fmt)
    add(F, "arith_fp8e4nv", K, "arith_kernel", (1,),
        dict(a_ptr=(ca, fmt), b_ptr=(cb, fmt), sum_ptr=z8(), prod_ptr=np.zeros(128, np.float32), max_ptr=z8(),
             lt_ptr=np.zeros(128, np.int8), div_ptr=np.zeros(128, np.float32), neg_ptr=z8(), N=128),
        ["sum_ptr", "prod_ptr", "max_ptr", "lt_ptr", "div_ptr", "neg_ptr"], arith_ref)
    ma = r.integers(0, 0x7F, 64).astype(np.uint8)
    mb = r.integers(0, 0x7C, 64).astype(np.uint8) | (r.integers(0, 2, 64).astype(np.uint8) << 7)
    h = r.standard_normal(64).astype(np.float16)

    def mixed_ref(a):
        m = (fp8_decode_array(ma, "fp8e4nv") + fp8_decode_array(mb, "fp8e5")).astype(np.float16)
        o8 = np.where(np.arange(64) % 2 == 0, ma, fp8_encode_ref(0.25, "fp8e4nv")).astype(np.uint8)
        return {"out16_ptr": m + a["h_ptr"], "out8_ptr": np.concatenate([o8, np.full(64, fp8_encode_ref(3.0, "fp8e4nv"), np.uint8)])}
    add(F, "mixed_fp8_fp16", K, "mixed_kernel", (1,),
        dict(a_ptr=(ma, "fp8e4nv"), b_ptr=(mb, "fp8e5"), h_ptr=h, out8_ptr=(np.zeros(128, np.uint8), "fp8e4nv"),
             out16_ptr=np.zeros(64, np.float16), N=64), ["out8_ptr", "out16_ptr"], mixed_ref)
    for (fa, fb, M, N, K_) in [("fp8e4nv", "fp8e4nv", 16, 16, 32), ("fp8e4nv", "fp8e5", 32, 16, 64),
                               ("fp8e5b16", "fp8e4b8", 16, 32, 16)]:
        A = r.integers(0, 256, (M, K_)).astype(np.uint8)
        B = r.integers(0, 256, (K_, N)).astype(np.uint8)
        A[(A & 0x7F) >= 0x78] = 0x30  # finite operands (no NaN/inf/huge codes)
        B[(B & 0x7F) >= 0x78] = 0x31
        A[A == 0x80] = 0
        B[B == 0x80] = 0

        def dot_ref(a, A=A, B=B, fa=fa, fb=fb, M=M, N=N, K_=K_):
            da = fp8_decode_array(A.ravel(), fa).reshape(M, K_).astype(np.float64)
            db = fp8_decode_array(B.ravel(), fb).reshape(K_, N).astype(np.float64)
            return {"c_ptr": 2 * (da @ db)}
        add(F, "dot_%s_%s_%dx%dx%d" % (fa, fb, M, N, K_), K, "dot_kernel", (1,),
            dict(a_ptr=(A, fa), b_ptr=(B, fb), c_ptr=np.zeros((M, N), np.float32), M=M, N=N, K=K_), ["c_ptr"], dot_ref,
            rtol=1e-5, atol=1e-5)
    bf = np.concatenate([_fp8_inputs("fp8e5", 350)[:248].view(np.uint32) >> 16, [0x7F80, 0xFF80, 0x7FC0, 0, 0x8000, 1, 0x477F, 0x4770]])
    bf = bf.astype(np.uint16)

    def bf16_ref(a):
        x = (a["x_ptr"].astype(np.uint32) << 16).view(np.float32)
        c = fp8_encode_array(x, "fp8e5")
        back = (fp8_decode_array(c, "fp8e5").view(np.uint32) >> 16).astype(np.uint16)
        nan = (c & 0x7F) > 0x7C
        back[nan] = 0x7FC0 | (back[nan] & 0x8000)
        return {"out_ptr": c, "back_ptr": back}
    add(F, "bf16_fp8e5_roundtrip", K, "bf16_kernel", (1,),
        dict(x_ptr=bf, out_ptr=(np.zeros(256, np.uint8), "fp8e5"), back_ptr=np.zeros(256, np.uint16), N=256),
        ["out_ptr", "back_ptr"], bf16_ref)
    diag(F, "diag_fp8_math", K, "fp8_math_kernel", "*fp8e4nv", expect=("tl.exp", "fp8e4nv", "tl.float32"),
         line=_line_of(K, "tl.exp(x)"))
    diag(F, "diag_fp8_plus_int_tensor", K, "fp8_int_arith_kernel", "*fp8e4nv, *i32", expect=("fp8e4nv", "i32"),
         line=_line_of(K, "x + i)"))


_fp8()


# ---- descriptors: tensor descriptors as arguments and made in kernels -------------------------
def _desc_block_ref(x, r0, c0, BM, BN, pad):
    out = np.full((BM, BN), pad, x.dtype)
    for i in range(BM):
        for j in range(BN):
            if 0 <= r0 + i < x.shape[0] and 0 <= c0 + j < x.shape[1]:
                out[i, j] = x[r0 + i, c0 + j]
    return out


def _descriptors():
    F = "descriptors"
    K = "descriptors.py"
    r = rng(360)
    for (M, N, BM, BN, dt) in [(19, 37, 8, 16, np.float32), (64, 64, 16, 16, np.float32), (5, 3, 8, 4, np.int32),
                               (33, 70, 32, 64, np.float16), (1, 1, 1, 1, np.float32)]:
        x = (r.standard_normal((M, N)) * 10).astype(dt)
        blk = "[%d,%d]" % (BM, BN)
        grid = (-(-M // BM), -(-N // BN))
        add(F, "arg_copy_add_%dx%d_b%dx%d_%s" % (M, N, BM, BN, np.dtype(dt).name), K, "copy_add_kernel", grid,
            dict(in_desc=(x, blk), out_desc=(np.zeros((M, N), dt), blk), M=M, N=N), ["out_desc"],
            lambda a, dt=dt: {"out_desc": (a["in_desc"][0] * dt(2) + dt(1)).astype(dt)}, rtol=1e-3 if dt == np.float16 else 0)
    x = r.standard_normal((10, 12)).astype(np.float32)
    for pad in ["zero", "nan"]:
        blk = "[8,8]" if pad == "zero" else "[8,8]:nan"
        add(F, "arg_padding_%s" % pad, K, "padding_probe_kernel", (1,),
            dict(in_desc=(x, blk), out_ptr=np.zeros(64, np.float32), BM=8, BN=8), ["out_ptr"],
            lambda a, pad=pad: {"out_ptr": _desc_block_ref(a["in_desc"][0], 6, 8, 8, 8,
                                                           np.nan if pad == "nan" else 0).ravel()})
    x3 = r.integers(-99, 99, (5, 6, 7)).astype(np.int32)
    add(F, "arg_rank3", K, "rank3_kernel", (3, 2, 2),
        dict(in_desc=(x3, "[2,4,4]"), out_ptr=np.zeros(5 * 6 * 7, np.int32), D0=5, D1=6, D2=7, B0=2, B1=4, B2=4),
        ["out_ptr"], lambda a: {"out_ptr": a["in_desc"][0].ravel()})
    for pad in ["zero", "nan"]:
        M, N, SM, BM, BN = 13, 20, 24, 8, 8
        xs = r.standard_normal(M * SM).astype(np.float32)

        def ref(a, pad=pad, M=M, N=N, SM=SM, BM=BM, BN=BN):
            view = a["x_ptr"].reshape(M, SM)[:, :N]
            out = np.zeros((M + BM, N + BN), np.float32)
            for pm in range(0, M + BM - 1, BM):
                for pn in range(0, N + BN - 1, BN):
                    if pm < M + BM and pn < N + BN:
                        b = _desc_block_ref(view, pm, pn, BM, BN, np.nan if pad == "nan" else 0)
                        out[pm:pm + BM, pn:pn + BN] = b[:M + BM - pm, :N + BN - pn]
            return {"y_ptr": out}
        add(F, "make_strided_%s" % pad, K, "make_desc_kernel", (-(-M // BM) + 1, -(-N // BN) + 1),
            dict(x_ptr=xs, y_ptr=np.zeros((M + BM, N + BN), np.float32), M=M, N=N, stride_m=SM, BM=BM, BN=BN,
                 NAN=pad == "nan"),
            ["y_ptr"], ref)
    src = r.standard_normal((20, 40)).astype(np.float32)
    idx = np.array([3, 0, 19, 7, 25, -1, 7, 11], np.int32)  # rows out of range read zeros, write nothing

    def gs_ref(a):
        dst = np.zeros((20, 40), np.float32)
        col = 30
        for rr in idx:
            if 0 <= rr < 20:
                vals = np.zeros(16, np.float32)
                for j in range(16):
                    if col + j < 40:
                        vals[j] = src[rr, col + j]
                for j in range(16):
                    if col + j < 40:
                        dst[rr, col + j] = vals[j] + 100
        return {"dst_desc": dst}
    add(F, "gather_scatter_rows", K, "gather_scatter_kernel", (1,),
        dict(src_desc=(src, "[1,16]"), dst_desc=(np.zeros((20, 40), np.float32), "[1,16]"), idx_ptr=idx, R=8, col=30),
        ["dst_desc"], gs_ref)
    acc = np.zeros((6, 5), np.int32)
    add(F, "desc_atomics", K, "desc_atomic_kernel", (7,),
        dict(acc_desc=(acc, "[8,8]"), max_desc=(np.full((6, 5), -5, np.int32), "[8,8]"), BM=8, BN=8),
        ["acc_desc", "max_desc"], lambda a: {"acc_desc": np.full((6, 5), 7, np.int32), "max_desc": np.full((6, 5), 6, np.int32)})
    xl = r.standard_normal((50, 24)).astype(np.float32)
    add(F, "desc_in_runtime_loop", K, "desc_in_loop_kernel", (3,),
        dict(in_desc=(xl, "[16,8]"), out_ptr=np.zeros(24, np.float32), M=50, BM=16, BN=8), ["out_ptr"],
        lambda a: {"out_ptr": a["in_desc"][0].sum(0)}, rtol=1e-5, atol=1e-5)
    TD = "tensordesc<fp32[16, 16]>"
    diag(F, "diag_desc_store_shape", K, "store_shape_mismatch_kernel", TD, expect=("block shape",),
         line=_line_of(K, "out_desc.store([0, 0], tl.zeros((8, 8)"))
    diag(F, "diag_desc_last_stride", K, "last_stride_kernel", "*fp32", expect=("last dim must be 1",),
         line=_line_of(K, "[8, 8], [1, 8], [8, 8])"))
    diag(F, "diag_desc_block_pow2", K, "block_not_pow2_kernel", "*fp32", expect=("power of 2",),
         line=_line_of(K, "[8, 8], [8, 1], [8, 6])"))
    diag(F, "diag_desc_gather_rows", K, "gather_block_rows_kernel", "tensordesc<fp32[8, 16]>, *i32",
         expect=("1 row",), line=_line_of(K, "in_desc.gather(tl.load("))
    diag(F, "diag_desc_nan_padding_int", K, "nan_padding_int_kernel", "*i32", expect=("nan", "floating"),
         line=_line_of(K, 'padding_option="nan")'))


_descriptors()

# ---- diagnostics ----------------------------------------------------------------------------
def _diagnostics():
    F = "diagnostics"
    K = "diagnostics.py"
    diag(F, "diag_broadcast_shape_mismatch", K, "shape_mismatch_kernel", "*i32", expect=("16", "32"), line=10)
    diag(F, "diag_store_rank_mismatch", K, "store_rank_mismatch_kernel", "*fp32, *fp32",
         expect=("Cannot broadcast, rank mismatch: [1, 32], [4, 4, 32]",),
         line=_line_of(K, "x[None, :])"))
    diag(F, "diag_store_wider_value", K, "store_wider_value_kernel", "*i32",
         expect=("expanded size of the tensor (1) must match the existing size (16) at non-singleton dimension 1",),
         line=_line_of(K, "tl.store(z_ptr + r[:, None], r[:, None] + r[None, :])"))
    diag(F, "diag_store_block_to_scalar_pointer", K, "store_block_to_scalar_kernel", "*i32",
         expect=("Value argument cannot be block type if pointer argument is not a block",),
         line=_line_of(K, "tl.store(z_ptr, tl.arange(0, 16))"))
    diag(F, "diag_atomic_rank_mismatch", K, "atomic_rank_mismatch_kernel", "*i32",
         expect=("Cannot broadcast, rank mismatch: [16], [1, 16]",), line=_line_of(K, "tl.atomic_add(z_ptr + r[None, :], r)"))
    diag(F, "diag_reduce_scalar_runtime_axis", K, "reduce_scalar_runtime_axis_kernel", "*fp32, *fp32, 16",
         expect=("axis must be a constexpr",), line=_line_of(K, "tl.store(y_ptr, tl.max(m, blk))"))
    diag(F, "diag_reduce_scalar_axis", K, "reduce_scalar_axis_kernel", "*fp32",
         expect=("invalid axis 0. Expected 0 <= axis < 0",), line=_line_of(K, "tl.store(y_ptr, tl.sum(m, 0))"))
    diag(F, "diag_const_pointer_store", K, "const_store_kernel", "*fp32, *fp32, 16",
         expect=("Cannot store to a constant pointer",), line=_line_of(K, "tl.store(p, tl.load(src + offs))"))
    diag(F, "diag_const_pointer_atomic", K, "const_atomic_kernel", "*fp32",
         expect=("Cannot store to a constant pointer",), line=_line_of(K, "tl.atomic_add(dst, 1.0)"))
    diag(F, "diag_const_pointer_runtime_choice", K, "const_runtime_choice_kernel", "*fp32, *fp32, i32",
         expect=("inconsistent types", "*const fp32", "*fp32"), line=_line_of(K, "p = b if pick > 0 else a"))
    diag(F, "diag_const_pointer_helper_return", K, "const_helper_return_kernel", "*fp32, *fp32, i32",
         expect=("Inconsistent return types", "*const fp32", "*fp32"))
    diag(F, "diag_load_scalar_pointer_block_mask", K, "load_scalar_block_mask_kernel", "*i32",
         expect=("Mask argument cannot be block type if pointer argument is not a block",),
         line=_line_of(K, "v = tl.load(z_ptr, mask=r < 4, other=0)"))
    diag(F, "diag_broadcast_shape_mismatch_2d", K, "shape_mismatch_2d_kernel", "*i32", expect=("16", "8"), line=18)
    diag(F, "diag_dot_dtype_mismatch", K, "dot_dtype_kernel", "*fp32, *fp16, *fp32", expect=("fp32", "fp16"), line=26)
    diag(F, "diag_dot_shape_mismatch", K, "dot_shape_kernel", "*fp32, *fp32", line=34)
    diag(F, "diag_unknown_tl_function", K, "unknown_fn_kernel", "*i32", expect=("frobulate",), line=40)
    # Triton: "Loop-carried variable acc has initial type int32 but is re-assigned to fp32"
    diag(F, "diag_loop_carried_scalar_type_change", K, "loop_type_change_kernel", "*fp32, i32", expect=("acc",))
    diag(F, "diag_loop_carried_tile_dtype_change", K, "loop_tile_dtype_change_kernel", "*fp32, i32", expect=("acc",))
    diag(F, "diag_loop_carried_shape_change", K, "loop_shape_change_kernel", "*fp32, i32", expect=("acc",))
    diag(F, "diag_arange_not_pow2", K, "arange_not_pow2_kernel", "*i32", expect=("12",), line=61)
    diag(F, "diag_undefined_name", K, "undefined_name_kernel", "*i32", expect=("not_defined_anywhere",), line=68)
    diag(F, "diag_tensor_index", K, "tensor_index_kernel", "*i32", expect=("index",), line=74)
    diag(F, "diag_big_int_compile_time_arith", K, "big_int_fold_kernel", "*i64", expect=("2**63",), line=134)
    diag(F, "diag_if_branch_shape_mismatch", K, "if_type_mismatch_kernel", "*fp32, i32", expect=("'v'",))
    diag(F, "diag_static_assert", K, "static_assert_kernel", "*i32, 8", expect=("multiple of 16",), line=88)
    diag(F, "diag_reshape_numel", K, "reshape_numel_kernel", "*i32", expect=("reshape",), line=96)
    diag(F, "diag_missing_argument", K, "wrong_arg_count_kernel", "*i32", expect=("'b'",), line=102)
    # Triton 3.9 evaluates a chained comparison as Python does: (0 < r) and (r < n)
    add(F, "chained_comparison", K, "chained_compare_kernel", (1,), dict(x_ptr=np.full(16, -1, np.int32), n=9),
        ["x_ptr"], lambda a: {"x_ptr": np.where((np.arange(16) > 0) & (np.arange(16) < 9), np.arange(16), -1)})
    diag(F, "diag_nested_def", K, "nested_def_kernel", "*i32", expect=("nested",), line=126)


_diagnostics()


# ---- intops: integer operators against a Python-int model of Triton's rules ------------------
_INT_BITS = {np.bool_: 1, np.int8: 8, np.uint8: 8, np.int16: 16, np.uint16: 16, np.int32: 32,
             np.uint32: 32, np.int64: 64, np.uint64: 64}


def _is_signed(t):
    return t in (np.int8, np.int16, np.int32, np.int64)


def _promote(a, b):
    """Triton's integer_promote_impl (C's usual arithmetic conversions); int1 is unsigned."""
    ra, rb, sa, sb = _INT_BITS[a], _INT_BITS[b], _is_signed(a), _is_signed(b)
    if sa == sb:
        return a if ra > rb else b
    if not sa:
        return a if ra >= rb else b
    return b if rb >= ra else a


def _wrap(v, t):
    """Python ints (object array) reduced into the range of integer type t."""
    w = _INT_BITS[t]
    v = v % (1 << w)
    if _is_signed(t):
        v = np.where(v >= (1 << (w - 1)), v - (1 << w), v)
    return v


def _obj(a):
    return np.array([int(v) for v in np.asarray(a).ravel()], dtype=object)


_CMP_OUTS = ("lt_ptr", "le_ptr", "gt_ptr", "ge_ptr", "eq_ptr", "ne_ptr")


def _out_dtype(t):
    return np.uint64 if t == np.uint64 else np.int64


def _intops_ref(x, y, tx, ty):
    """Expected results of every operator of arith_kernel/divmod_kernel (as Python ints)."""
    t = _promote(tx, ty)
    w = _INT_BITS[t]
    X, Y = _wrap(_obj(x), t), _wrap(_obj(y), t)
    ua = Y % (1 << w)                       # shift amounts read as unsigned
    r = {"add_ptr": _wrap(X + Y, t), "sub_ptr": _wrap(X - Y, t), "mul_ptr": _wrap(X * Y, t),
         "and_ptr": _wrap(X & Y, t), "or_ptr": _wrap(X | Y, t), "xor_ptr": _wrap(X ^ Y, t)}
    small = np.where(ua < w, ua, 0)
    r["shl_ptr"] = np.where(ua < w, _wrap(X << small, t), 0)
    if _is_signed(tx):                      # >> follows the left operand's signedness
        xs = X % (1 << w)
        xs = np.where(xs >= (1 << (w - 1)), xs - (1 << w), xs)
        r["shr_ptr"] = _wrap(xs >> np.minimum(ua, w - 1), t)
    else:
        r["shr_ptr"] = np.where(ua < w, _wrap((X % (1 << w)) >> small, t), 0)
    for k, f in (("lt", lambda a, b: a < b), ("le", lambda a, b: a <= b), ("gt", lambda a, b: a > b),
                 ("ge", lambda a, b: a >= b), ("eq", lambda a, b: a == b), ("ne", lambda a, b: a != b)):
        r[k + "_ptr"] = np.array([int(bool(v)) for v in f(X, Y)], dtype=object)
    safe = np.where(Y == 0, 1, Y)
    q = np.where(Y == 0, 0, (abs(X) // abs(safe)) * np.where((X < 0) != (safe < 0), -1, 1))
    r["div_ptr"] = _wrap(q, t)
    r["mod_ptr"] = _wrap(np.where(Y == 0, 0, X - q * Y), t)
    Xx = _wrap(_obj(x), tx)
    r["neg_ptr"] = _wrap(-Xx, tx)
    r["inv_ptr"] = _wrap(~Xx, tx)
    outs = {}
    for k, v in r.items():
        dt = np.int8 if k in _CMP_OUTS else _out_dtype(t if k not in ("neg_ptr", "inv_ptr") else tx)
        outs[k] = np.array(list(v), dtype=dt)
    return outs


def _int_values(t, n, seed):
    """n values of type t: the edges, small values (shift amounts around the width) and random ones."""
    w = _INT_BITS[t]
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if _is_signed(t) else (0, (1 << w) - 1)
    edges = [v for v in (0, 1, 2, -1, -2, lo, lo + 1, hi, hi - 1, w - 1, w, w + 1, 7, 8, 9, 31, 32, 33, 63, 64, 65)
             if lo <= v <= hi]
    r = rng(seed)
    small = r.integers(max(lo, -70), min(hi, 70) + 1, n // 2)
    big = [int(v) for v in r.integers(0, 1 << 62, n, dtype=np.int64)]
    big = [lo + (v * (1 << 2) + (v >> 40)) % (hi - lo + 1) for v in big][: n - len(edges) - len(small)]
    vals = edges + [int(v) for v in small] + big
    return np.array(vals[:n], dtype=object).astype(t) if t != np.uint64 else np.array(vals[:n], dtype=np.uint64)


def _intops():
    F = "intops"
    K = "intops.py"
    arith_outs = ["add_ptr", "sub_ptr", "mul_ptr", "and_ptr", "or_ptr", "xor_ptr", "shl_ptr", "shr_ptr",
                  "lt_ptr", "le_ptr", "gt_ptr", "ge_ptr", "eq_ptr", "ne_ptr"]
    B = 1024

    def pairs_all(tx, ty):
        vx = np.arange(256) - (128 if _is_signed(tx) else 0)
        vy = np.arange(256) - (128 if _is_signed(ty) else 0)
        gx, gy = np.meshgrid(vx, vy, indexing="ij")
        return gx.ravel().astype(tx), gy.ravel().astype(ty)

    def pairs_sample(tx, ty, seed):
        x = _int_values(tx, 4096, seed)
        y = _int_values(ty, 4096, seed + 1)
        # every edge of x against every edge of y, then the rest mixed
        return np.concatenate([np.repeat(x[:64], 64), x]), np.concatenate([np.tile(y[:64], 64), rng(seed + 2).permutation(y)])

    combos = [(np.int8, np.int8, True), (np.uint8, np.uint8, True), (np.int8, np.uint8, True), (np.uint8, np.int8, True),
              (np.int8, np.int16, False), (np.uint16, np.int8, False), (np.int16, np.uint16, False),
              (np.int32, np.uint32, False), (np.uint32, np.int32, False), (np.int32, np.int64, False),
              (np.uint32, np.int64, False), (np.int64, np.uint64, False), (np.uint64, np.int64, False),
              (np.uint64, np.uint64, False), (np.int64, np.int64, False), (np.int32, np.int32, False),
              (np.uint8, np.uint32, False), (np.int16, np.int8, False)]
    for i, (tx, ty, full) in enumerate(combos):
        x, y = pairs_all(tx, ty) if full else pairs_sample(tx, ty, 900 + 7 * i)
        n = x.size
        t = _promote(tx, ty)
        tag = "%s_%s" % (np.dtype(tx).name, np.dtype(ty).name)
        outs = {k: np.zeros(n, np.int8 if k in _CMP_OUTS else _out_dtype(t)) for k in arith_outs}

        def ref(a, tx=tx, ty=ty):
            return _intops_ref(a["x_ptr"], a["y_ptr"], tx, ty)
        add(F, "arith_" + tag, K, "arith_kernel", ((n + B - 1) // B,),
            dict(x_ptr=x, y_ptr=y, **outs, n=n, BLOCK=B), arith_outs, ref)
        if _is_signed(tx) == _is_signed(ty):
            douts = {"div_ptr": np.zeros(n, _out_dtype(t)), "mod_ptr": np.zeros(n, _out_dtype(t)),
                     "neg_ptr": np.zeros(n, _out_dtype(tx)), "inv_ptr": np.zeros(n, _out_dtype(tx))}
            add(F, "divmod_" + tag, K, "divmod_kernel", ((n + B - 1) // B,),
                dict(x_ptr=x, y_ptr=y, **douts, n=n, BLOCK=B), list(douts), ref)

    # tile OP Python number / constexpr / runtime i32 scalar
    for j, (tx, C, C2, s) in enumerate([(np.uint32, 7, 200, 5), (np.int32, 7, -100, -3), (np.uint8, 3, 200, 3),
                                         (np.int8, 5, -100, -7), (np.int64, 11, -100, 6), (np.uint64, 13, 200, 9),
                                         (np.int16, 3, -100, 0), (np.uint16, 2, 200, 0)]):
        x = _int_values(tx, 1000, 950 + j)
        n = x.size
        ts = _promote(tx, np.int32)         # with the runtime i32 scalar s

        def sref(a, tx=tx, C=C, C2=C2, s=s, ts=ts):
            X = _wrap(_obj(a["x_ptr"]), tx)
            w = _INT_BITS[tx]

            def cdiv(p, q, t):
                if q == 0:
                    return np.zeros(p.size, dtype=object), np.zeros(p.size, dtype=object)
                qq = (abs(p) // abs(q)) * np.where((p < 0) != (q < 0), -1, 1)
                return _wrap(qq, t), _wrap(p - qq * q, t)
            d, m = cdiv(X, C, tx)
            Xs = _wrap(X, ts)
            ds, ms = cdiv(Xs, _wrap(np.array([s], dtype=object), ts)[0], ts)
            k = X & 7
            if _is_signed(tx):
                o4 = _wrap(np.array([C2 >> int(v) for v in k], dtype=object), tx)
            else:
                o4 = _wrap(np.array([(C2 % (1 << w)) >> int(v) for v in k], dtype=object), tx)
            o3 = _wrap((X if _is_signed(tx) else X % (1 << w)) >> 3, tx)
            res = {"o1_ptr": d, "o2_ptr": m, "o3_ptr": o3, "o4_ptr": o4, "o5_ptr": _wrap(X * 3 + 1, tx),
                   "o6_ptr": ds, "o7_ptr": ms, "o8_ptr": _wrap(X << C, tx)}
            return {k2: np.array(list(v), dtype=_out_dtype(ts if k2 in ("o6_ptr", "o7_ptr") else tx))
                    for k2, v in res.items()}
        souts = {"o%d_ptr" % q: np.zeros(n, _out_dtype(tx)) for q in (1, 2, 3, 4, 5, 8)}
        add(F, "scalar_%s" % np.dtype(tx).name, K, "scalar_kernel", (1,),
            dict(x_ptr=x, **souts, n=n, C=C, C2=C2, BLOCK=1024), list(souts), sref)
        if _is_signed(tx):                  # else x // s (s: i32) mixes signedness: an error
            routs = {"o6_ptr": np.zeros(n, _out_dtype(ts)), "o7_ptr": np.zeros(n, _out_dtype(ts))}
            add(F, "runtime_scalar_%s_%d" % (np.dtype(tx).name, s), K, "runtime_scalar_kernel", (1,),
                dict(x_ptr=x, **routs, s=s, n=n, BLOCK=1024), list(routs), sref)

    xb = rng(990).integers(-3, 4, 512).astype(np.int32)
    yb = rng(991).integers(-3, 4, 512).astype(np.int32)

    def bref(a):
        A, Bv = a["x_ptr"] > 0, a["y_ptr"] > 0
        return {"o1_ptr": (A ^ Bv).astype(np.int8), "o2_ptr": A.astype(np.int32) + a["y_ptr"],
                "o3_ptr": (A | Bv).astype(np.int8), "o4_ptr": (A.astype(np.int32) * 5 - Bv.astype(np.int32))}
    add(F, "bool_arith", K, "bool_kernel", (1,),
        dict(x_ptr=xb, y_ptr=yb, o1_ptr=np.zeros(512, np.int8), o2_ptr=np.zeros(512, np.int32),
             o3_ptr=np.zeros(512, np.int8), o4_ptr=np.zeros(512, np.int32), n=512, BLOCK=512),
        ["o1_ptr", "o2_ptr", "o3_ptr", "o4_ptr"], bref)

    diag(F, "diag_mixed_sign_mod", K, "mixed_sign_mod_kernel", "*i32, *u32", expect=("different signedness",), line=93)
    diag(F, "diag_mixed_sign_div", K, "mixed_sign_div_kernel", "*u8, *i8", expect=("different signedness",), line=100)
    diag(F, "diag_float_bitwise", K, "float_and_kernel", "*fp32", expect=("invalid operands of type",), line=106)
    diag(F, "diag_scalar_out_of_range", K, "scalar_out_of_range_kernel", "*i8", expect=("300", "out of range", "i8"), line=112)
    diag(F, "diag_unsigned_negative_scalar", K, "unsigned_negative_kernel", "*u16", expect=("unsigned", "negative"), line=118)
    diag(F, "diag_float_shift", K, "float_shift_kernel", "*fp16", expect=("invalid operands of type",), line=124)
    diag(F, "diag_int_mask_store", K, "int_mask_store_kernel", "*i32, i32", expect=("boolean", "tl.store", "i32"), line=132)
    diag(F, "diag_int_mask_load", K, "int_mask_load_kernel", "*i32, i32", expect=("boolean", "tl.load"), line=138)
    diag(F, "diag_int_mask_atomic", K, "int_mask_atomic_kernel", "*i32, i32", expect=("boolean", "tl.atomic_add"), line=145)


_intops()


# ---- atomics on 16-bit floats (family "atomics") ----------------------------------------------
def _atomics16():
    F = "atomics"
    K = "atomics.py"

    def to16(x, bf):
        """float values -> (stored uint16/fp16 array, their float64 values) rounded to nearest even"""
        if not bf:
            h = np.asarray(x, np.float64).astype(np.float16)
            return h, h.astype(np.float64)
        b, f = _bf16_bits(np.asarray(x, np.float32))
        return b, f.astype(np.float64)

    def from16(a, bf):
        return ((a.astype(np.uint32) << 16).view(np.float32) if bf else a).astype(np.float64)

    for bf in (True, False):
        for (s0, s1) in [(2, 2), (8, 2), (8, 8), (32, 32), (64, 64)]:
            for axis in (0, 1):
                r = rng(700 + s0 * 3 + s1 + axis + 100 * bf)
                xs, xf = to16(r.standard_normal((s0, s1)), bf)
                zs, zf = to16(r.standard_normal(s0 if axis == 1 else s1), bf)

                def check(a, res, xf=xf, zf=zf, axis=axis, bf=bf, zs=zs):
                    s = xf.sum(axis)
                    got = from16(res["z_ptr"], bf)
                    tol = (2.0 ** -7 if bf else 2.0 ** -10) * (np.abs(zf) + np.abs(xf).sum(axis) / 4 + np.abs(s)) + 1e-30
                    bad = np.abs(got - (zf + s)) > tol
                    if bad.any():
                        k = int(np.argmax(bad))
                        return "z_ptr[%d]: got %r, expected %r (+- %g)" % (k, got[k], zf[k] + s[k], tol[k])
                    return compare("old_ptr", res["old_ptr"], zs, 0, 0)
                add(F, "atomic_sum_%s_%dx%d_axis%d" % ("bf16" if bf else "fp16", s0, s1, axis), K, "atomic_sum16_kernel",
                    (1,), dict(z_ptr=zs, x_ptr=xs, old_ptr=np.zeros_like(zs), AXIS=axis, S0=s0, S1=s1, BF16=bf),
                    ["z_ptr", "old_ptr"], check=check)
        for num in (2, 8, 32):
            r = rng(760 + num + bf)
            vs, vf = to16(r.standard_normal(num * num), bf)
            cs, _ = to16(np.where(np.arange(num) % 3 == 0, 1.0, 0.5), bf)

            def pref(a, vf=vf, bf=bf, cs=cs, num=num):
                x, _ = to16(vf[0::2] + vf[1::2], bf)   # the first add into 0 is exact
                c = cs.copy()
                one, _ = to16([1.0], bf)
                two, _ = to16([2.0], bf)
                c[c == one[0]] = two[0]
                return {"x_ptr": x.reshape(num // 2, num), "c_ptr": c}
            add(F, "atomic_pairs_%s_%d" % ("bf16" if bf else "fp16", num), K, "atomic_pairs16_kernel", (1,),
                dict(x_ptr=np.zeros((num // 2, num), vs.dtype), val_ptr=vs, c_ptr=cs, NUM=num, BF16=bf),
                ["x_ptr", "c_ptr"], pref)
    # float atomic_max/min on the bits as Triton defines them: NaNs by their bits, -0.0 < +0.0
    for fdt, idt, udt in ((np.float32, np.int32, np.uint32), (np.float64, np.int64, np.uint64)):
        nan, nnan = fdt(np.nan), -fdt(np.nan)
        dst = np.array([1.0, nan, -0.0, 0.0, -3.0, 5.0, nnan, -2.0, 7.0, -0.0, np.inf, -np.inf], fdt)
        val = np.array([nan, 2.0, 0.0, -0.0, -1.0, nnan, 1.0, nan, -np.inf, -0.0, nan, nnan], fdt)
        for op in ("max", "min"):
            def fcheck(a, res, op=op, idt=idt, udt=udt, n=dst.size):
                d, v = a["dst_ptr"], a["val_ptr"]
                di, vi, du, vu = d.view(idt), v.view(idt), d.view(udt), v.view(udt)
                if op == "max":
                    bits = np.where(vi >= 0, np.maximum(di, vi).view(udt), np.minimum(du, vu))
                else:
                    bits = np.where(vi >= 0, np.minimum(di, vi).view(udt), np.maximum(du, vu))
                for name, exp in (("dst_ptr", bits), ("old_ptr", du)):
                    got = res[name].view(udt)
                    if (got != exp).any():
                        k = int(np.argmax(got != exp))
                        return "%s[%d]: bits %#x, expected %#x" % (name, k, int(got[k]), int(exp[k]))
                return None
            add(F, "atomic_%s_%s_nan_signed_zero_bits" % (op, np.dtype(fdt).name), K, "atomic_tile_kernel", (1,),
                dict(dst_ptr=dst.copy(), val_ptr=val, old_ptr=np.zeros_like(dst), n=dst.size, OP=op, BLOCK=16),
                ["dst_ptr", "old_ptr"], check=fcheck)
    diag(F, "diag_atomic_max_bf16", K, "atomic_max_bf16_kernel", "*u16", expect=("atomic_max", "bf16"), line=137)
    diag(F, "diag_atomic_add_i16", K, "atomic_add_i16_kernel", "*i16", expect=("atomic_add", "i16"), line=142)


_atomics16()


# ---- modules: names resolved through the kernel's module (imports, globals, sibling files) ----
def _bf16(a):
    """fp32 -> bf16 (round to nearest even) -> fp32, as numpy has no bfloat16."""
    b = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32)


def _modules():
    F = "modules"
    K = "modules.py"
    n = 100
    x = rng(90).standard_normal(n).astype(np.float32)
    log2e = np.float32(np.log2(np.e))
    add(F, "constexpr_dtype_globals_default_block", K, "constexpr_globals_kernel", (2,),
        dict(x_ptr=x, out_ptr=np.zeros(n, np.float32), n=n), ["out_ptr"],
        lambda a: {"out_ptr": (a["x_ptr"] * np.float32(2.5) + np.float32(1e-6)) ** 2 + log2e},
        rtol=1e-6, atol=1e-6)
    xp = rng(91).uniform(0.5, 3.0, n).astype(np.float32)
    erf = np.vectorize(math.erf)

    def ld_ref(a):
        v = a["x_ptr"].astype(np.float64)
        r = 1 / np.sqrt(v) + 2 * np.exp(-v) + 2 * np.sqrt(v) + np.tanh(v) + erf(v) + np.log1p(v) + np.log(v)
        return {"out_ptr": r}
    add(F, "libdevice_by_name_module_cuda_path_fallbacks", K, "libdevice_forms_kernel", (4,),
        dict(x_ptr=xp, out_ptr=np.zeros(n, np.float32), n=n, BLOCK=32), ["out_ptr"], ld_ref,
        rtol=1e-5, atol=1e-5)
    add(F, "dtype_globals_zeros_and_to", K, "dtype_globals_kernel", (4,),
        dict(x_ptr=x, out_ptr=np.zeros(n, np.float16), n=n, BLOCK=32), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"].astype(np.float16)})
    add(F, "sibling_module_helpers_own_globals", K, "sibling_helpers_kernel", (4,),
        dict(x_ptr=x, out_ptr=np.zeros(n, np.float32), n=n), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] * 3 + 1 + 2 * a["x_ptr"] + 0.25}, rtol=1e-6, atol=1e-6)
    xd = (rng(92).standard_normal(n) * 10).astype(np.float32)
    dtype_cases = [
        ("fp16", "tl.float16", lambda v: (v.astype(np.float16) + np.float16(1)).astype(np.float32), [16, 5, 16]),
        ("bf16", "triton.language.bfloat16", lambda v: _bf16(_bf16(v) + np.float32(2)), [16, 6, 16]),
        ("fp32", "tl.float32", lambda v: v + np.float32(3), [32, 4, 32]),
        ("int32", "tl.int32", lambda v: (np.trunc(v).astype(np.int32) + 3).astype(np.float32), [32, 8, 32]),
    ]
    for tag, dt, fn, info in dtype_cases:
        add(F, "dtype_constexpr_param_" + tag, K, "dtype_param_kernel", (4,),
            dict(x_ptr=xd, out_ptr=np.zeros(n, np.float32), info_ptr=np.zeros(3, np.int32), n=n, BLOCK=32,
                 DT=dt), ["out_ptr", "info_ptr"],
            lambda a, fn=fn, info=info: {"out_ptr": fn(a["x_ptr"]), "info_ptr": np.array(info, np.int32)})
    add(F, "tuple_constexpr_param", K, "tuple_param_kernel", (1,),
        dict(out_ptr=np.zeros(4, np.int32), SHAPE="(2, 3)"), ["out_ptr"],
        lambda a: {"out_ptr": np.array([2, 3, 2, 5], np.int32)})
    add(F, "tuple_constexpr_param_list", K, "tuple_param_kernel", (1,),
        dict(out_ptr=np.zeros(4, np.int32), SHAPE="[4, 5, 6]"), ["out_ptr"],
        lambda a: {"out_ptr": np.array([4, 5, 3, 15], np.int32)})
    add(F, "plain_global_in_parameter_default", K, "plain_default_kernel", (1,),
        dict(out_ptr=np.zeros(1, np.int32)), ["out_ptr"], lambda a: {"out_ptr": np.array([6], np.int32)})
    xi8 = np.clip(rng(93).standard_normal(16) * 40, -120, 120).astype(np.float32)
    add(F, "unannotated_dtype_and_tuple_params", K, "unannotated_dtype_tuple_kernel", (1,),
        dict(x_ptr=xi8, out_ptr=np.zeros(16, np.float32), DT="tl.int8", S="(1, 10)"), ["out_ptr"],
        lambda a: {"out_ptr": np.trunc(a["x_ptr"]).astype(np.int64).astype(np.int8).astype(np.float32) + 10})
    plain = "Cannot access global variable %s from within @jit'ed function"
    diag(F, "plain_global_refused", K, "plain_global_kernel", "*i32", expect=(plain % "PLAIN_N",), line=138)
    diag(F, "annotated_global_refused", K, "annotated_global_kernel", "*i32",
         expect=(plain % "ANNOTATED", "annotating a variable as constexpr"), line=143)
    diag(F, "host_value_global", K, "host_value_kernel", "*i32", expect=("'DEVICE'", "line 49"), line=148)
    diag(F, "host_module_attribute", K, "host_module_kernel", "*fp32", expect=("module 'torch'",), line=153)
    diag(F, "host_function_call", K, "host_function_kernel", "*i32",
         expect=("'host_helper'", "not a @triton.jit function"), line=158)
    diag(F, "unknown_libdevice_import", K, "unknown_libdevice_kernel", "*fp32",
         expect=("not_a_libdevice_function", "line 18", "is not supported"), line=163)
    add(F, "python_math_module", K, "python_math_kernel", (1,), dict(out_ptr=np.zeros(1, np.float32)), ["out_ptr"],
        lambda a: {"out_ptr": np.array([2 * math.pi + 3 + math.pi * 2], np.float32)}, rtol=1e-6)
    diag(F, "plain_float_from_math_import", K, "plain_math_import_kernel", "*fp32",
         expect=(plain % "PI_VALUE",), line=192)
    diag(F, "name_from_host_package", K, "host_package_import_kernel", "*fp32",
         expect=("'host_util'", "line 180", "some_host_package.utils"), line=197)
    xs = rng(94).standard_normal(16).astype(np.float32)
    add(F, "package_absolute_and_relative_imports", "modpkg/sub/pkg_kernel.py", "package_imports_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(16, np.float32), BLOCK=16), ["out_ptr"],
        lambda a: {"out_ptr": 4 * (a["x_ptr"] * 3 + 0.5)}, rtol=1e-6, atol=1e-6)
    add(F, "host_triton_import_try_body_taken", K, "host_triton_import_kernel", (1,),
        dict(out_ptr=np.zeros(1, np.int32)), ["out_ptr"], lambda a: {"out_ptr": np.array([1], np.int32)})
    add(F, "version_check_equivalent_apis", K, "version_check_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(16, np.float16), BLOCK=16), ["out_ptr"],
        lambda a: {"out_ptr": np.tanh(a["x_ptr"]).astype(np.float16)}, rtol=1e-3, atol=1e-3)
    diag(F, "host_condition_differing_constants", K, "host_condition_constant_kernel", "*i32",
         expect=("'BLOCK_BY_DEVICE'", "branches of the `if` at line 224"), line=237)
    func(F, "error_in_sibling_helper_located_there", lambda: _diag_in_file(
        K, "helper_error_kernel", "*fp32", "modules_helpers.py", 21, "NOT_DEFINED_IN_HELPERS"))
    func(F, "allow_non_constexpr_globals_env", _allow_plain_globals)


def _diag_in_file(file, kernel, sig, want_file, want_line, want_text):
    rc, out, err = run_tilec([TILEC, "compile", os.path.join(KDIR, file), "-k", kernel, "-s", sig,
                              "--emit", "tile"], KDIR, 60)
    first = (err.splitlines() or [""])[0]
    m = DIAG_RE.match(first)
    if rc != 1 or not m:
        return "exit status %s, first line %r" % (rc, first)
    if not m.group(1).endswith(want_file) or int(m.group(2)) != want_line or want_text not in first:
        return "expected %s:%d with %r, got %r" % (want_file, want_line, want_text, first)
    return None


def _allow_plain_globals():
    env = dict(os.environ, TRITON_ALLOW_NON_CONSTEXPR_GLOBALS="1")
    p = subprocess.run([TILEC, "compile", os.path.join(KDIR, "modules.py"), "-k", "plain_global_kernel",
                        "-s", "*i32", "--emit", "tile"], cwd=KDIR, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    text = p.stdout.decode()
    if p.returncode != 0:
        return "exit status %d: %s" % (p.returncode, p.stderr.decode()[:300])
    if "arith.constant 3 : i32" not in text:
        return "PLAIN_N (3) not in the IR"
    return None


_modules()


# ---- earlyreturn: `return` under runtime conditions -------------------------------------------
def _earlyreturn():
    F = "earlyreturn"
    K = "earlyreturn.py"
    for (rows, cols, grid) in [(5, 100, 8), (1, 7, 3), (6, 64, 6)]:
        x = rng(1100 + rows).standard_normal((rows, cols)).astype(np.float32)
        out = np.full(grid, -7.0, np.float32)

        def ref(a, rows=rows):
            o = a["out_ptr"].copy()
            o[:rows] = a["x_ptr"].astype(np.float64).sum(1)
            return {"out_ptr": o}
        add(F, "row_skip_%dx%d_grid%d" % (rows, cols, grid), K, "row_skip_kernel", (grid,),
            dict(x_ptr=x, out_ptr=out, n_rows=rows, n_cols=cols, BLOCK=32), ["out_ptr"], ref, rtol=1e-5, atol=1e-5)
    xv = np.array([1.5, -2.0, 0.25, 3.0, -0.5, 10.0, 0.0, 2.0], np.float32)
    M, N, lim = 3, 4, 40.0

    def mref(a):
        out = np.zeros(8, np.float32)
        flag = np.zeros(8, np.int32)
        for p, v in enumerate(a["x_ptr"]):
            flag[p] = 1
            if v < 0:
                flag[p] = 2
                continue
            t = sum(float(v) * (i + 1) + j for i in range(M) for j in range(N))
            if t > lim:
                out[p] = -t
                continue
            out[p] = t
            flag[p] = 3
        return {"out_ptr": out, "flag_ptr": flag}
    add(F, "middle_return_nested_loops", K, "middle_return_kernel", (8,),
        dict(x_ptr=xv, out_ptr=np.zeros(8, np.float32), flag_ptr=np.zeros(8, np.int32), lim=lim, M=M, N=N),
        ["out_ptr", "flag_ptr"], mref, rtol=1e-6)
    B, P = 16, 4
    xh = rng(1110).standard_normal(B * P).astype(np.float32) * 50
    lims = np.array([-1.0, 200.0, 3.0, 0.5, -5.0, 1.0, 150.0, 101.0, 7.0, 2.0, 2.0, -0.5], np.float32)

    def pick(x, lim):
        return x * 2.0 if lim < 0 else (x - 1.0 if lim > 100 else np.minimum(x, lim))

    def href(a):
        x = a["x_ptr"].reshape(P, B)
        acc = np.zeros((P, B), np.float32)
        for p in range(P):
            for k in range(3):
                acc[p] += pick(x[p], a["lim_ptr"][p * 3 + k])
        sw = (np.arange(P) % 2 == 1)[:, None]
        return {"out_ptr": acc.ravel(), "o1_ptr": np.where(sw, x + 1, x).ravel(), "o2_ptr": np.where(sw, x, x + 1).ravel()}
    add(F, "helper_returns_in_loop_and_tuples", K, "helper_return_kernel", (P,),
        dict(x_ptr=xh, lim_ptr=lims, out_ptr=np.zeros(B * P, np.float32), o1_ptr=np.zeros(B * P, np.float32),
             o2_ptr=np.zeros(B * P, np.float32), BLOCK=B), ["out_ptr", "o1_ptr", "o2_ptr"], href, rtol=1e-6)
    av = np.array([1, 1, -1, -2, 3, 0], np.int32)
    bv = np.array([1, -1, 5, -5, 0, 2], np.int32)

    def nref(a):
        out = np.zeros(6, np.int32)
        for p in range(6):
            x_, y_ = int(a["a_ptr"][p]), int(a["b_ptr"][p])
            if x_ > 0:
                if y_ > 0:
                    out[p] = 100
                    continue
                xx = x_ * 10
            else:
                xx = x_ - 1
            out[p] = xx + y_
        return {"out_ptr": out}
    add(F, "nested_return_name_after", K, "nested_return_kernel", (6,),
        dict(a_ptr=av, b_ptr=bv, out_ptr=np.zeros(6, np.int32)), ["out_ptr"], nref)
    diag(F, "diag_return_in_loop", K, "return_in_loop_kernel", "*fp32, i32", expect=("return", "for"), line=98)
    diag(F, "diag_return_type_mismatch", K, "return_type_mismatch_kernel", "*fp32, i32",
         expect=("Inconsistent return types", "fp32", "i32"), line=106)
    diag(F, "diag_return_in_static_range", K, "return_in_static_range_kernel", "*fp32",
         expect=("unrolled loop",), line=117)


_earlyreturn()


# ---- typing: Python numbers against tensors, numbers assigned to names, seeds -----------------
def _typing():
    F = "typing"
    K = "typing.py"
    xs = np.array([3, -1, 4, 1, -5], np.int32)

    def aref(a):
        s = int(a["x_ptr"].astype(np.int64).sum())
        return {"out_ptr": np.array([9, -3, 1, -2147483648, s * 4294967296, 2], np.int64),
                "fout_ptr": np.array([2.5, 3.0], np.float32)}
    add(F, "assigned_numbers_are_tensors", K, "assigned_scalars_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(6, np.int64), fout_ptr=np.zeros(2, np.float32), n=5),
        ["out_ptr", "fout_ptr"], aref)
    N = 64
    r = rng(1200)
    h = (r.standard_normal(N) * 100).astype(np.float16)
    q = r.integers(-128, 128, N).astype(np.int8)
    q[:2] = [127, -128]
    u = r.integers(0, 256, N).astype(np.uint8)
    u[:2] = [0, 255]
    v = r.integers(-1000, 1000, N).astype(np.int32)

    def lref(a):
        with np.errstate(over="ignore"):
            hh = (a["h_ptr"] * np.float16(1.5)).astype(np.float16) + np.float16(2)
        return {"oh_ptr": hh.astype(np.float16), "oi8_ptr": (a["i8_ptr"].astype(np.int16) + 1).astype(np.int8),
                "ou8_ptr": (a["u8_ptr"].astype(np.int16) - 1).astype(np.uint8),
                "of32_ptr": a["i32_ptr"].astype(np.float32) * np.float32(0.5),
                "of64_ptr": a["i32_ptr"].astype(np.float64) * 1e300,
                "ob_ptr": (a["i32_ptr"] > 0).astype(np.int32) + 2}
    add(F, "number_adopts_tile_type", K, "literal_vs_tile_kernel", (1,),
        dict(h_ptr=h, i8_ptr=q, u8_ptr=u, i32_ptr=v, oh_ptr=np.zeros(N, np.float16), oi8_ptr=np.zeros(N, np.int8),
             ou8_ptr=np.zeros(N, np.uint8), of32_ptr=np.zeros(N, np.float32), of64_ptr=np.zeros(N, np.float64),
             ob_ptr=np.zeros(N, np.int32), N=N),
        ["oh_ptr", "oi8_ptr", "ou8_ptr", "of32_ptr", "of64_ptr", "ob_ptr"], lref)
    diag(F, "diag_int64_literal_vs_i32_tile", K, "int64_literal_kernel", "*i32",
         expect=("1099511627776", "out of range", "i32"), line=53)
    diag(F, "diag_float_seed", K, "float_seed_kernel", "*fp32, fp32", expect=("seed", "integer", "tl.rand"), line=59)
    diag(F, "diag_float_literal_seed", K, "float_literal_seed_kernel", "*i32", expect=("seed", "integer"), line=65)
    add(F, "expand_dims_axes_and_chains", K, "expand_dims_kernel", (1,), dict(out_ptr=np.zeros(16, np.int32), N=16),
        ["out_ptr"], lambda a: {"out_ptr": np.arange(16) + 120})
    diag(F, "diag_expand_dims_invalid_axis", K, "expand_dims_bad_axis_kernel", "*i32, 16", expect=("invalid axis -3",),
         line=87)
    diag(F, "diag_expand_dims_duplicate_axes", K, "expand_dims_duplicate_kernel", "*i32, 16",
         expect=("duplicate axes, normalized axes = [0, 0]",), line=93)
    diag(F, "diag_program_id_axis", K, "program_id_axis_kernel", "*i32",
         expect=("program_id axis must be 0, 1, or 2 but got 20",), line=98)
    diag(F, "diag_if_block_condition", K, "block_condition_kernel", "*i32",
         expect=("Boolean value of Tensor with more than one value is ambiguous",), line=104)
    add(F, "unpacking", K, "unpack_kernel", (1,), dict(out_ptr=np.array([5], np.int32)), ["out_ptr"],
        lambda a: {"out_ptr": [37]})
    diag(F, "diag_unpack_number", K, "unpack_number_kernel", "*i32", expect=("cannot unpack non-iterable",), line=128)
    diag(F, "diag_unpack_count", K, "unpack_count_kernel", "*i32", expect=("not enough values to unpack (expected 3, got 2)",),
         line=133)


_typing()


# ---- robustness: truncated and byte-mangled kernels never crash the compiler ------------------
ROBUST_INPUTS = [
    ("dropout.py", "dropout_kernel", "*fp32, *fp32, *i8, i32, fp32, i32, 512"),
    ("layernorm.py", "ln_fwd_kernel", "*fp32, *fp32, *fp32, *fp32, *fp32, *fp32, i32, i32, fp32, 64"),
    ("softmax.py", "row_softmax_kernel", "*fp32, *fp32, i32, i32, i32, i32, 64, 2"),
]


def _mangle(data, r):
    data = bytearray(data)
    op = r.randrange(5)
    pos = r.randrange(len(data))
    if op == 0:      # one random byte (any value, also NUL and non-UTF-8)
        data[pos] = r.randrange(256)
    elif op == 1:    # a random punctuation / keyword-ish character
        data[pos] = ord(r.choice("()[]{}:,.=+-*/%<>!~^&|@#'\"\\\t\n 0123456789_"))
    elif op == 2:    # delete a span
        del data[pos:pos + r.randrange(1, 40)]
    elif op == 3:    # duplicate a span
        data[pos:pos] = data[pos:pos + r.randrange(1, 60)]
    else:            # swap two lines
        lines = bytes(data).split(b"\n")
        i, j = r.randrange(len(lines)), r.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        data = bytearray(b"\n".join(lines))
    return bytes(data)


def _robust(file, kernel, sig, mode):
    src = open(os.path.join(KDIR, file), "rb").read()
    # keep the imports and the named kernel only (cut before the next @triton.jit)
    start = src.index(b"def " + kernel.encode() + b"(")
    end = src.find(b"\n@triton.jit", start)
    src = src if end < 0 else src[:end + 1]
    if mode == "truncated":
        variants = [src[:n] for n in range(0, len(src) + 1, 7)]
    else:
        r = random.Random(len(src))      # deterministic per input
        variants = []
        for i in range(25):
            v = src
            for _ in range(1 + i % 3):
                v = _mangle(v, r)
            variants.append(v)
    tmp = tempfile.mkdtemp(prefix="tilec-robust-")
    try:
        def one(idx):
            path = os.path.join(tmp, "v%04d_%s" % (idx, file))
            with open(path, "wb") as f:
                f.write(variants[idx])
            rc, out, err = run_tilec([TILEC, "compile", path, "-k", kernel, "-s", sig, "--emit", "tile"], tmp, 60)
            bad = None
            if rc is None:
                bad = "timeout"
            elif rc < 0:
                bad = "killed by signal %d" % -rc
            elif rc not in (0, 1):
                bad = "exit status %d" % rc
            elif rc == 1 and not err.strip():
                bad = "exit status 1 without a message"
            if bad:
                keep = os.path.join(tempfile.gettempdir(), "tilec-robust-fail-" + os.path.basename(path))
                shutil.copy(path, keep)
                return "%s variant %d (%s, %d bytes; kept as %s): %s: %s" % (
                    mode, idx, file, len(variants[idx]), keep, bad, err.strip()[-200:])
            os.unlink(path)
            return None
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
            for res in ex.map(one, range(len(variants))):
                if res:
                    return res
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _robustness():
    for file, kernel, sig in ROBUST_INPUTS:
        for mode in ("truncated", "mangled"):
            func("robustness", "robust_%s_%s" % (mode, file[:-3]),
                 lambda file=file, kernel=kernel, sig=sig, mode=mode: _robust(file, kernel, sig, mode))


_robustness()


# ---------------------------------------------------------------------------------------------


def main():
    global TILEC, VERBOSE
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
    opts = ap.parse_args()
    if opts.target:
        RUN_EXTRA.extend(["--target", opts.target])
    if opts.exec:
        RUN_EXTRA.extend(["--exec", opts.exec])
    TILEC = os.path.abspath(opts.tilec)
    VERBOSE = opts.verbose
    cases = CASES
    if opts.only:
        fams = set(opts.only.split(","))
        unknown = fams - {c.family for c in CASES}
        if unknown:
            print("unknown families: %s" % ", ".join(sorted(unknown)))
            return 2
        cases = [c for c in cases if c.family in fams]
    if opts.case:
        cases = [c for c in cases if opts.case in c.name]
    if opts.list:
        for c in cases:
            print(c.family, c.name)
        return 0
    if not os.access(TILEC, os.X_OK):
        print("no tilec executable at %s" % TILEC)
        return 2
    names = [c.name for c in CASES]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        print("duplicate case names: %s" % ", ".join(sorted(dup)))
        return 2
    cache = tempfile.mkdtemp(prefix="tilec-lang-cache-")
    os.environ["TILEC_CACHE_DIR"] = cache
    try:
        return run_cases(cases, opts.jobs)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def run_cases(cases, jobs):
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        results = ex.map(execute, cases)
        for c, err in zip(cases, results):
            if err is None:
                print("PASS %s" % c.name)
                passed += 1
            elif c.xfail and "not supported" in err:
                # expected: the compiler still says the construct is not supported; once it
                # compiles, the case is checked like any other (wrong results FAIL)
                print("XFAIL %s: %s" % (c.name, c.xfail))
                if VERBOSE:
                    print("    (%s)" % err)
            elif c.name in KNOWN_FAILURES:
                print("KNOWN-BUG %s: %s" % (c.name, err))
            else:
                print("FAIL %s: %s" % (c.name, err))
                failed += 1
            sys.stdout.flush()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
