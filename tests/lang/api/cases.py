"""Cases of the lang family 'api': tl.* names of Triton's __all__ beyond the core builtins (its
kernels are in api/kernels.py)."""
import math

import numpy as np

from harness import add, diag, f32, rng


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


def cases():
    F = "api"
    K = "api/kernels.py"
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
    pa = rng(307).integers(-1000, 1000, 64).astype(np.int32)
    pb = rng(308).integers(1, 50, 64).astype(np.int32) * np.where(np.arange(64) % 3 == 0, -1, 1).astype(np.int32)
    px = rng(309).standard_normal((4, 16)).astype(np.float32)

    def pack_ref(a):
        q = np.trunc(pa / pb).astype(np.int32)  # Triton's // and % on ints truncate (C)
        return {"q_ptr": q, "r_ptr": (pa - q * pb).astype(np.int32),
                "y_ptr": px * np.float32(2) + np.tile(np.arange(4, dtype=np.float32), 16).reshape(4, 16)}
    add(F, "map_elementwise_pack", K, "map_pack_kernel", (1,),
        dict(a_ptr=pa, b_ptr=pb, q_ptr=np.zeros(64, np.int32), r_ptr=np.zeros(64, np.int32), x_ptr=px,
             y_ptr=np.zeros((4, 16), np.float32), N=64, M=4, K=16), ["q_ptr", "r_ptr", "y_ptr"], pack_ref, rtol=1e-6)
    bx = rng(310).integers(-300, 300, 128).astype(np.int32)
    by = np.where(np.arange(128) % 4 == 0, bx, rng(311).integers(-300, 300, 128)).astype(np.int32)

    def branches_ref(a):
        xf = bx.astype(np.float32)
        s = xf / np.float32(10)
        y = np.where(xf > 10, np.float32(10), xf)
        z = np.maximum(y * 2, 0) + 1
        return {"c_ptr": np.sign(bx - by).astype(np.int32),
                "s_ptr": np.where(s > 0, s, np.float32(1.5) * (np.exp(s) - 1)).astype(np.float32),
                "k_ptr": np.where(xf > 100, np.float32(-1), z).astype(np.float32)}
    add(F, "map_elementwise_branches", K, "map_branches_kernel", (1,),
        dict(x_ptr=bx, y_ptr=by, c_ptr=np.zeros(128, np.int32), s_ptr=np.zeros(128, np.float32),
             k_ptr=np.zeros(128, np.float32), N=128), ["c_ptr", "s_ptr", "k_ptr"], branches_ref, rtol=1e-5, atol=1e-6)
    diag(F, "diag_map_elementwise_branch_effect", K, "map_branch_effect_kernel", "*fp32",
         expect=("a branch on the mapped elements stores, prints or asserts",))
    diag(F, "diag_map_elementwise_pack", K, "map_pack_bad_kernel", "*fp32",
         expect=("pack=3 must divide the operands' 8 elements",))
    M, N = 19, 37
    xm = rng(305).standard_normal((M, N)).astype(np.float32)
    add(F, "load_store_tensor_descriptor", K, "descriptor_fn_kernel", (3, 3),
        dict(x_ptr=xm, out_ptr=np.zeros((M, N), np.float32), M=M, N=N, BM=8, BN=16), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] + np.float32(1)})
    u = rng(306).integers(0, 2 ** 32, 16, dtype=np.uint64).astype(np.uint32)
    add(F, "pi32_t_pointer_cast", K, "pi32_kernel", (1,), dict(x_ptr=u, out_ptr=np.zeros(16, np.int32), N=16),
        ["out_ptr"], lambda a: {"out_ptr": a["x_ptr"].view(np.int32)})

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
        "float_as_int": lambda x, y: [int(v) for v in x],
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
         line="tl.inline_asm_elementwise(")
    diag(F, "diag_call_class", K, "call_class_kernel", "*i32", expect=("tl.tensor is a type",),
         line="t = tl.tensor(x_ptr)")
    diag(F, "diag_propagate_nan_member", K, "bad_propagate_kernel", "*fp32", expect=("PropagateNan", "SOME"),
         line="PropagateNan.SOME")
    diag(F, "diag_atomic_poll", K, "atomic_poll_kernel", "*i32", expect=("atomic_poll", "not supported"),
         line="tl.atomic_poll(x_ptr, 1)")
    diag(F, "diag_isinstance_dtype_class", K, "isinstance_unknown_kernel", "*i32", expect=("isinstance",),
         line="isinstance(x_ptr, tl.float32)")
