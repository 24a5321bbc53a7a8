"""Cases of the lang family 'intops': integer operators against a Python-int model of Triton's
rules (its kernels are in intops/kernels.py)."""
import numpy as np

from harness import add, diag, rng


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


def cases():
    F = "intops"
    K = "intops/kernels.py"
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

    diag(F, "diag_mixed_sign_mod", K, "mixed_sign_mod_kernel", "*i32, *u32", expect=("different signedness",),
         line="tl.store(x_ptr")
    diag(F, "diag_mixed_sign_div", K, "mixed_sign_div_kernel", "*u8, *i8", expect=("different signedness",),
         line="tl.store(x_ptr + tl.arange(0, 16), x //")
    diag(F, "diag_float_bitwise", K, "float_and_kernel", "*fp32", expect=("invalid operands of type",),
         line="tl.store(x_ptr + tl.arange(0, 16), x &")
    diag(F, "diag_scalar_out_of_range", K, "scalar_out_of_range_kernel", "*i8", expect=("300", "out of range", "i8"),
         line="tl.store(x_ptr + tl.arange(0, 16), x +")
    diag(F, "diag_unsigned_negative_scalar", K, "unsigned_negative_kernel", "*u16", expect=("unsigned", "negative"),
         line="tl.store(x_ptr + tl.arange(0, 16), x + -1)")
    diag(F, "diag_float_shift", K, "float_shift_kernel", "*fp16", expect=("invalid operands of type",),
         line="tl.store(x_ptr + tl.arange(0, 16), x <<")
    diag(F, "diag_int_mask_store", K, "int_mask_store_kernel", "*i32, i32", expect=("boolean", "tl.store", "i32"),
         line="tl.store(x_ptr + i, i, mask=(i")
    diag(F, "diag_int_mask_load", K, "int_mask_load_kernel", "*i32, i32", expect=("boolean", "tl.load"),
         line="x = tl.load(x_ptr + i, mask=i")
    diag(F, "diag_int_mask_atomic", K, "int_mask_atomic_kernel", "*i32, i32", expect=("boolean", "tl.atomic_add"),
         line="tl.atomic_add")

    # -x of int16 widened to int32/int64 and compared: -(-32768) wraps to -32768 (numpy's
    # int16 arithmetic); every edge of int16 and its neighbours
    x16 = np.array([0, -32768, 32767, -32767, -1, 1, 2, -2, 255, -256, 16384, -16384, 12345, -12345, 7, -7],
                   np.int16)
    add(F, "neg16_widen", K, "neg16_widen_kernel", (1,),
        dict(x_ptr=x16, o32_ptr=np.zeros(16, np.int32), o64_ptr=np.zeros(16, np.int64),
             neg_lt_ptr=np.zeros(16, np.int8), s_ptr=np.zeros(1, np.int64), BLOCK=16),
        ["o32_ptr", "o64_ptr", "neg_lt_ptr", "s_ptr"],
        lambda a: {"o32_ptr": (-a["x_ptr"]).astype(np.int32), "o64_ptr": (-a["x_ptr"]).astype(np.int64),
                   "neg_lt_ptr": ((-a["x_ptr"]) < 0).astype(np.int8),
                   "s_ptr": (-a["x_ptr"][1:2]).astype(np.int64)})

    # shift amounts from the width up, also 64-bit ones whose low 32 bits are small (2^32 + 3:
    # a truncated amount would shift by 3), and int32 shifted by constants past 32
    amts = [0, 1, 3, 31, 32, 63, 64, 65, 100, (1 << 32), (1 << 32) + 1, (1 << 32) + 3, (1 << 40) + 5, 1 << 62,
            -(1 << 63), -1, -64, -(1 << 32) + 2, 7, (1 << 33) + 63, (1 << 32) + 64, 2, 62, 33, 40, 48,
            (1 << 63) - 1, (1 << 48) + 1, (1 << 32) + 31, (1 << 32) + 32, 16, 8]
    ws = np.array(amts * 2, np.int64)
    wx = np.array([5] * len(amts) + [-12345] * len(amts), np.int64)

    def wide_ref(a):
        x = [int(v) for v in a["x_ptr"]]
        y = [int(v) % (1 << 64) for v in a["y_ptr"]]
        shl = [((v << s) if s < 64 else 0) for v, s in zip(x, y)]
        shr = [v >> min(s, 63) for v, s in zip(x, y)]
        ushr = [((v % (1 << 64)) >> s) if s < 64 else 0 for v, s in zip(x, y)]
        wrap = lambda v: (v + (1 << 63)) % (1 << 64) - (1 << 63)
        c = [(0 + (-1 if v < 0 else 0) * 2 + 0) for v in x]
        return {"shl_ptr": np.array([wrap(v) for v in shl], np.int64), "shr_ptr": np.array(shr, np.int64),
                "ushr_ptr": np.array([wrap(v) for v in ushr], np.int64), "c_ptr": np.array(c, np.int32)}
    add(F, "wide_shift_amounts", K, "wide_shift_kernel", (1,),
        dict(x_ptr=wx, y_ptr=ws, shl_ptr=np.zeros(64, np.int64), shr_ptr=np.zeros(64, np.int64),
             ushr_ptr=np.zeros(64, np.int64), c_ptr=np.zeros(64, np.int32), BLOCK=64),
        ["shl_ptr", "shr_ptr", "ushr_ptr", "c_ptr"], wide_ref)

    # lane_match_kernel: consecutive columns against a per-program t (see the kernel)
    def lane_ref(start, n):
        def ref(a):
            k = np.arange(n, dtype=np.int64)
            cols = _wrap(_obj(start + k), np.int32).astype(np.int64)
            t64, t32 = a["t64_ptr"], a["t32_ptr"].astype(np.int64)
            eq = cols[None, :] == t64[:, None]
            c = _wrap(_obj(start + np.arange(64)), np.int32).astype(np.int64)
            t2 = t64[(np.arange(8)[:, None] * 4 + np.arange(4)[None, :]) % 8]
            return {"eq_ptr": eq.astype(np.int8).ravel(), "ne_ptr": (~eq).astype(np.int8).ravel(),
                    "eq32_ptr": np.where(cols[None, :] == t32[:, None], 5, -3).astype(np.int32).ravel(),
                    "eq64_ptr": ((start + k)[None, :] == t64[:, None]).astype(np.int8).ravel(),
                    "eq2_ptr": (c[None, None, :] == t2[:, :, None]).astype(np.int8).ravel()}
        return ref

    for start in (0, -5, (1 << 31) - 200):
        n = 300
        offs = [0, 1, 127, 128, n - 1, n, -1, 205]
        t64 = np.array([start + o for o in offs], np.int64)
        t64[5] += 1 << 32                   # truncates onto a column: no match in 64 bits
        if start == 0:
            t64[6] = -(1 << 40)
        t32 = _wrap(_obj(t64), np.int32).astype(np.int32)
        outs = {k: np.zeros(8 * n, np.int8) for k in ("eq_ptr", "ne_ptr", "eq64_ptr")}
        outs["eq32_ptr"] = np.zeros(8 * n, np.int32)
        outs["eq2_ptr"] = np.zeros(8 * 256, np.int8)
        add(F, "lane_match_%d" % start, K, "lane_match_kernel", (8,),
            dict(t64_ptr=t64, t32_ptr=t32, **outs, start=start, n=n, BLOCK=128),
            ["eq_ptr", "ne_ptr", "eq32_ptr", "eq64_ptr", "eq2_ptr"], lane_ref(start, n))
