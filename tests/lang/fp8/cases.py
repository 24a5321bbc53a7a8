"""Cases of the lang family 'fp8': storage types, casts (RNE, saturating), arithmetic through fp32,
dot (its kernels are in fp8/kernels.py)."""
import math

import numpy as np

from harness import add, diag, rng, f32, gpu_rtol


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
    # finite values only, dropped before sorting: with a NaN in it (a set difference with
    # float("nan") does not remove one), sorted() left the list unsorted in an order that
    # depended on where the set put the NaN (hashed by identity), so the inputs depended on
    # what else the process had allocated
    vals = sorted(v for v in {fp8_value(c, fmt) for c in range(0x80)} if math.isfinite(v))
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


# The NaN contract of a conversion: Triton defines which inputs give a NaN, not the NaN's
# sign or payload, and the targets differ there (an H200, like Triton 3.6 on it, gives the
# canonical 0x7FFF for fp32 -> fp16/bf16 rtz and fp8 -> bf16, 0x7F for every fp16 -> fp8e5
# NaN; the CPU target keeps numpy's sign and quiet payload: 0x7E00, 0x7FC0, 0xFF). So a code
# the reference makes a NaN must be some NaN of the format, every other code exactly the
# reference's (finite values, +-0, inf and the saturation of inf to the largest finite).
def _nan_codes(c, fmt):
    c = np.asarray(c).astype(np.int64)
    if fmt == "fp16":
        return (c & 0x7FFF) > 0x7C00
    if fmt == "bf16":
        return (c & 0x7FFF) > 0x7F80
    m, _, kind = FP8_FORMATS[fmt]
    if kind == 2:
        return c == 0x80
    return (c & 0x7F) == 0x7F if kind == 1 else (c & 0x7F) > 0x7C


def _any_nan(ref, fmts):
    """A check (harness Case.check): outputs in fmts (name -> format) compared as codes under
    the NaN contract above."""
    def check(a, res):
        exp = ref(a)
        for o, fmt in fmts.items():
            e, g = np.asarray(exp[o]).astype(np.int64).ravel(), np.asarray(res[o]).astype(np.int64).ravel()
            en, gn = _nan_codes(e, fmt), _nan_codes(g, fmt)
            bad = np.flatnonzero((en != gn) | (~en & (g != e)))
            if bad.size:
                i = bad[0]
                return "%s[%d]: got 0x%X, expected %s (%d of %d differ)" % (
                    o, i, g[i], "a NaN of %s" % fmt if en[i] else "0x%X" % e[i], bad.size, e.size)
        return None
    return check


def cases():
    F = "fp8"
    K = "fp8/kernels.py"
    codes = np.arange(256, dtype=np.uint8)
    for fmt in FP8_FORMATS:
        add(F, "decode_all_codes_%s" % fmt, K, "decode_kernel", (1,),
            dict(x_ptr=(codes, fmt), out_ptr=np.zeros(256, np.float32), N=256), ["out_ptr"],
            lambda a, fmt=fmt: {"out_ptr": fp8_decode_array(range(256), fmt)})
        sp = (np.arange(64) * 37 + 11).astype(np.uint8) & 0x3F  # finite, positive codes in every format
        sp_vals = fp8_decode_array(sp, fmt)

        def sp_ref(a, sp=sp, sp_vals=sp_vals):
            codes = np.zeros(64, np.uint8)
            codes[6], codes[3] = sp[2], sp[6]
            return {"out_ptr": (sp_vals[3:19] + sp_vals[6]).astype(np.float32), "codes_ptr": codes}
        add(F, "scalar_pointer_arith_load_store_%s" % fmt, K, "scalar_pointer_kernel", (1,),
            dict(x_ptr=(sp, fmt), out_ptr=np.zeros(16, np.float32), codes_ptr=(np.zeros(64, np.uint8), fmt), off=3,
                 off64=5, N=16), ["out_ptr", "codes_ptr"], sp_ref)
        add(F, "abs_all_codes_%s" % fmt, K, "abs_kernel", (1,),
            dict(x_ptr=(codes, fmt), out_ptr=(np.zeros(256, np.uint8), fmt), N=256), ["out_ptr"],
            lambda a: {"out_ptr": codes & 0x7F})
        xs = _fp8_inputs(fmt, 330 + len(fmt))
        add(F, "encode_fp32_%s" % fmt, K, "encode_kernel", (len(xs) // 256,),
            dict(x_ptr=xs, out_ptr=(np.zeros(len(xs), np.uint8), fmt), N=256, ROUND="rtne"), ["out_ptr"],
            check=_any_nan(lambda a, fmt=fmt: {"out_ptr": fp8_encode_array(a["x_ptr"], fmt)}, {"out_ptr": fmt}))
        add(F, "encode_fp32_rtz_%s" % fmt, K, "encode_kernel", (len(xs) // 256,),
            dict(x_ptr=xs, out_ptr=(np.zeros(len(xs), np.uint8), fmt), N=256, ROUND="rtz"), ["out_ptr"],
            check=_any_nan(lambda a, fmt=fmt: {"out_ptr": fp8_encode_array(a["x_ptr"], fmt, rtz=True)},
                           {"out_ptr": fmt}))
        # every code back through fp32 and fp16 to itself (NaNs to the canonical NaN)
        back = np.array([fp8_encode_ref(fp8_value(c, fmt), fmt) for c in range(256)], np.uint8)
        f16 = fp8_decode_array(range(256), fmt).astype(np.float16)
        add(F, "roundtrip_fp16_%s" % fmt, K, "encode_implicit_kernel", (1,),
            dict(x_ptr=f16, out_ptr=(np.zeros(256, np.uint8), fmt), N=256), ["out_ptr"],
            check=_any_nan(lambda a, back=back: {"out_ptr": back}, {"out_ptr": fmt}))
    xs16 = np.concatenate([_fp8_inputs("fp8e5", 360), rng(361).standard_normal(256).astype(np.float32) * 1e3,
                           f32([70000.0, -65520.0, 65519.0, 1e-8, -3e-8, 6e-5, 3.4e38, -1e-40] * 32)])
    for dt in ["fp16", "bf16"]:
        xin = xs16 if dt == "fp16" else np.where(np.abs(xs16) < 1.2e-38, np.float32(0.5), xs16)
        add(F, "rtz_fp32_to_%s" % dt, K, "encode_kernel", (len(xs16) // 256,),
            dict(x_ptr=xin, out_ptr=(np.zeros(len(xs16), np.uint16), dt), N=256, ROUND="rtz"), ["out_ptr"],
            check=_any_nan(lambda a, dt=dt: {"out_ptr": _rtz16(a["x_ptr"], dt)}, {"out_ptr": dt}))
    sub = f32([-1e-40, 1e-40, 3e-39, 1e-45] * 64)
    add(F, "bf16_rne_fp32_subnormals", K, "encode_kernel", (1,),
        dict(x_ptr=sub, out_ptr=(np.zeros(256, np.uint16), "bf16"), N=256, ROUND="rtne"), ["out_ptr"],
        lambda a: {"out_ptr": np.array([0x8001, 0x0001, 0x0021, 0x0000] * 64, np.uint16)})
    diag(F, "diag_bad_rounding_mode", K, "bad_rounding_kernel", "*fp32, *fp16", expect=("rtne", "rtz", "rtp"),
         line='fp_downcast_rounding="rtp"')
    xr = (rng(377).standard_normal(32) * 3).astype(np.float32)
    add(F, "rounding_on_same_type_is_identity", K, "rounding_same_type_kernel", (1,),
        dict(x_ptr=xr, h_ptr=xr.astype(np.float16), out_ptr=np.zeros(32, np.float32),
             hout_ptr=np.zeros(32, np.float16), N=32), ["out_ptr", "hout_ptr"],
        lambda a: {"out_ptr": a["x_ptr"], "hout_ptr": a["h_ptr"]}, rtol=0, atol=0)
    diag(F, "diag_rounding_on_widening", K, "rounding_on_widening_kernel", "*fp32, *fp64",
         expect=("truncating fp conversions",), line='x.to(tl.float64, fp_downcast_rounding="rtz")')
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
        ["sum_ptr", "prod_ptr", "max_ptr", "lt_ptr", "div_ptr", "neg_ptr"], arith_ref,
        rtol=gpu_rtol(2))   # fp32 `/` is div.full.f32 on NVIDIA (2 ulp); the fp8 codes stay exact
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
        ["out_ptr", "back_ptr"], check=_any_nan(bf16_ref, {"out_ptr": "fp8e5", "back_ptr": "bf16"}))
    diag(F, "diag_fp8_math", K, "fp8_math_kernel", "*fp8e4nv", expect=("tl.exp", "fp8e4nv", "tl.float32"),
         line="tl.exp(x)")
    diag(F, "diag_fp8_plus_int_tensor", K, "fp8_int_arith_kernel", "*fp8e4nv, *i32", expect=("fp8e4nv", "i32"),
         line="x + i)")
