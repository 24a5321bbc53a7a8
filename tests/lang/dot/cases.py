"""Cases of the lang family 'dot': tl.dot on fp32, fp16, bf16 and integer tiles (its kernels are in
dot/kernels.py)."""
import numpy as np

import harness
from harness import add, rng, bf16_bits


def within_fp32_sum(a, b, c0, k):
    """check= for a dot accumulated in fp32 in any order: c = c0 + a @ b (a, b exact in fp32,
    so every product is exact) within (k + 2) * 2^-24 * (|c0| + |a| @ |b|), the bound for a sum
    of k + 1 terms rounded in any order; inf and NaN where the fp64 sum has them."""
    exact = c0.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    bound = (k + 2) * 2.0 ** -24 * (np.abs(c0).astype(np.float64) + np.abs(a).astype(np.float64) @ np.abs(b)) + 1e-30

    def check(args, res):
        got = res["c_ptr"].astype(np.float64)
        fin = np.isfinite(exact)
        with np.errstate(invalid="ignore"):
            bad = fin & ~(np.abs(got - exact) <= bound)
        bad |= ~fin & ~((got == exact) | (np.isnan(got) & np.isnan(exact)))
        if bad.any():
            i = tuple(int(x) for x in np.argwhere(bad)[0])
            return "c_ptr[%s]: got %r, expected %r within %.3g (%d of %d differ)" % (
                ",".join(map(str, i)), got[i], exact[i], bound[i], int(bad.sum()), bad.size)
        return None
    return check


def tf32_round(x):
    """fp32 array rounded to tf32 (10 mantissa bits) to nearest, ties away from zero, as
    cvt.rna.tf32.f32; inf and NaN kept."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x1000) & 0xFFFFE000).astype(np.uint32)
    special = (u & 0x7F800000) == 0x7F800000
    return np.where(special, u.astype(np.uint32), r).view(np.float32)


def effective_precision(p):
    """What an fp32 tl.dot with precision p ("default", "allow_tf32=True/False" or an
    input_precision) computes on the target of this run: CPU targets every one exactly;
    nvptx tf32 (the default, as Triton on NVIDIA), tf32x3, bf16x3 and bf16x6 on tensor cores,
    ieee exactly."""
    if not harness.target().startswith("nvptx"):
        return "ieee"
    return {"default": "tf32", "allow_tf32=True": "tf32", "tf32": "tf32", "TF32": "tf32",
            "tf32x3": "tf32x3", "bf16x3": "bf16x3", "bf16x6": "bf16x6"}.get(p, "ieee")


def within_precision(a, b, c0, k, p):
    """check= for c = c0 + a @ b with fp32 a, b by tl.dot with precision p on this target:
    ieee within fp32 accumulation of the exact products; tf32 the same bound around the
    product of the operands rounded to tf32 (tf32 products are exact in fp32: any other
    rounding of the operands, or none, misses it by ~2^-11 relative); tf32x3 within
    (3k + 16) * 2^-24 of the exact dot (the dropped small x small product and the small
    parts' rounding are 2^-22 relative each), far inside tf32's error; bf16x3 within
    (3k + 800) * 2^-24 (its dropped mid x mid and the mid parts' rounding: 2^-16 each), bf16x6
    within (6k + 34) * 2^-24 (six fp32-accumulated products a step, the rest 2^-24)."""
    def check(args, res):
        e = effective_precision(p)
        if e == "tf32":
            return within_fp32_sum(tf32_round(a), tf32_round(b), c0, k)(args, res)
        kk = {"tf32x3": 3 * k + 14, "bf16x3": 3 * k + 798, "bf16x6": 6 * k + 32}.get(e, k)
        return within_fp32_sum(a, b, c0, kk)(args, res)
    return check


def cases():
    F = "dot"
    K = "dot/kernels.py"
    for (M, N, Kd, BM, BN, BK) in [(16, 16, 16, 16, 16, 16), (33, 7, 100, 16, 8, 32), (1, 100, 7, 16, 32, 16)]:
        a = rng(40 + M).standard_normal((M, Kd)).astype(np.float32)
        b = rng(41 + N).standard_normal((Kd, N)).astype(np.float32)
        # the default precision: tf32 on nvptx
        add(F, "dot_f32_%dx%dx%d" % (M, N, Kd), K, "dot_kernel", ((M + BM - 1) // BM, (N + BN - 1) // BN),
            dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((M, N), np.float32), M=M, N=N, K=Kd, BM=BM, BN=BN, BK=BK),
            ["c_ptr"], None, check=within_precision(a, b, np.zeros((M, N), np.float32), Kd, "default"))
    a = rng(42).standard_normal((16, 32)).astype(np.float16)
    b = rng(43).standard_normal((32, 16)).astype(np.float16)
    add(F, "dot_f16", K, "dot_half_kernel", (1,),
        dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((16, 16), np.float32), M=16, N=16, K=32), ["c_ptr"],
        lambda a: {"c_ptr": a["a_ptr"].astype(np.float64) @ a["b_ptr"].astype(np.float64)}, rtol=1e-4, atol=1e-4)
    add(F, "matmul_operator", K, "matmul_op_kernel", (1,),
        dict(a_ptr=a.astype(np.float32), b_ptr=b.astype(np.float32), c_ptr=np.zeros((16, 16), np.float32),
             M=16, N=16, K=32), ["c_ptr"],
        lambda a: {"c_ptr": a["a_ptr"].astype(np.float64) @ a["b_ptr"]}, rtol=1e-4, atol=1e-4)
    # A and B each read by two ops (B's buffer, not the packing straight from its loads), at
    # K = 16 and 32
    for Kb in (16, 32):
        ab, af = bf16_bits(rng(44).standard_normal((16, Kb)))
        bb, bf = bf16_bits(rng(45).standard_normal((Kb, 32)))
        add(F, "dot_bf16_bitcast" + ("" if Kb == 16 else "_k32"), K, "dot_bf16_kernel", (1,),
            dict(a_ptr=ab, b_ptr=bb, c_ptr=np.zeros((16, 32), np.float32), d_ptr=np.zeros((16, 32), np.float32),
                 M=16, N=32, K=Kb), ["c_ptr", "d_ptr"],
            lambda a, af=af, bf=bf: {"c_ptr": af.astype(np.float64) @ bf + 1.0, "d_ptr": af.astype(np.float64) @ bf},
            rtol=1e-4, atol=1e-4)
    # bf16 tiles: on a CPU with AVX512-BF16 the pair path (VDPBF16PS on B packed as row pairs),
    # else widened to fp32 FMAs; both within fp32 accumulation of the exact products. K = 16
    # (one tile), odd K (masked tails), BK = 1 (a tile with an odd K: the pair padded with
    # zeros), fewer and more columns than the 4 x 64 microkernel, an existing accumulator.
    for (M, N, Kd, BM, BN, BK) in [(16, 64, 16, 16, 64, 16), (64, 128, 32, 64, 128, 32),
                                   (33, 70, 37, 16, 64, 16), (20, 40, 101, 32, 32, 64),
                                   (8, 16, 5, 8, 16, 1), (65, 130, 200, 32, 64, 32)]:
        ab, af = bf16_bits(rng(60 + Kd).standard_normal((M, Kd)))
        bb, bf = bf16_bits(rng(61 + N).standard_normal((Kd, N)))
        c0 = rng(62 + M).standard_normal((M, N)).astype(np.float32)
        add(F, "dot_bf16_%dx%dx%d_block_%dx%dx%d" % (M, N, Kd, BM, BN, BK), K, "dot_acc_kernel",
            ((M + BM - 1) // BM, (N + BN - 1) // BN),
            dict(a_ptr=(ab, "bf16"), b_ptr=(bb, "bf16"), c_ptr=c0.copy(), M=M, N=N, K=Kd, BM=BM, BN=BN, BK=BK),
            ["c_ptr"], None, check=within_fp32_sum(af, bf, c0, Kd))
    # Inf and NaN: a pair (A[r, k], +0) padding an odd K must not turn inf * B into NaN
    # (inf * 0 in the padding); NaN in A or B stays NaN.
    ab, af = bf16_bits(rng(63).standard_normal((8, 5)))
    bb, bf = bf16_bits(rng(64).uniform(0.5, 2.0, (5, 16)))
    for (r, k, v) in ((0, 4, np.inf), (1, 0, -np.inf), (2, 2, np.nan)):
        ab[r, k] = bf16_bits(np.array([v]))[0][0]
    af = (ab.astype(np.uint32) << 16).view(np.float32)
    bb[3, 5] = bf16_bits(np.array([np.nan]))[0][0]
    bf = (bb.astype(np.uint32) << 16).view(np.float32)
    c0 = np.zeros((8, 16), np.float32)
    for BK in (1, 4, 8):
        add(F, "dot_bf16_inf_nan_odd_k_block_8x16x%d" % BK, K, "dot_acc_kernel", (1, 1),
            dict(a_ptr=(ab, "bf16"), b_ptr=(bb, "bf16"), c_ptr=c0.copy(), M=8, N=16, K=5, BM=8, BN=16, BK=BK),
            ["c_ptr"], None, check=within_fp32_sum(af, bf, c0, 5))
    # B = tl.trans(a load): packed into pairs through the transpose
    ab, af = bf16_bits(rng(67).standard_normal((16, 32)))
    bb, bf = bf16_bits(rng(68).standard_normal((64, 32)))
    add(F, "dot_bf16_trans_b", K, "dot_trans_b_kernel", (1,),
        dict(a_ptr=(ab, "bf16"), bt_ptr=(bb, "bf16"), c_ptr=np.zeros((16, 64), np.float32), M=16, N=64, K=32),
        ["c_ptr"], None, check=within_fp32_sum(af, bf.T.copy(), np.zeros((16, 64), np.float32), 32))
    # batched (3-D) bf16 tiles: the pair packing per batch
    ab, af = bf16_bits(rng(65).standard_normal((2, 16, 8)))
    bb, bf = bf16_bits(rng(66).standard_normal((2, 8, 32)))
    add(F, "dot_bf16_batched_3d", K, "dot_batched_kernel", (1,),
        dict(a_ptr=(ab, "bf16"), b_ptr=(bb, "bf16"), c_ptr=np.zeros((2, 16, 32), np.float32), B=2, M=16, N=32, K=8),
        ["c_ptr"], None,
        check=lambda args, res, af=af, bf=bf: within_fp32_sum(af[0], bf[0], np.zeros((16, 32), np.float32), 8)(
            args, {"c_ptr": res["c_ptr"][0]}) or within_fp32_sum(af[1], bf[1], np.zeros((16, 32), np.float32), 8)(
            args, {"c_ptr": res["c_ptr"][1]}))
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
    # int8 dots in a masked K loop into int32 (nvptx: mma.sync m16n8k32 .s8 on tensor cores,
    # the accumulator carried in the MMA fragments): whole tiles from 16x16x32 to 128x128x128,
    # ragged edges in M, N and K (masked loads: zeros), a row-major B transposed in shared
    # memory (N a multiple of 16; up to 2 blocks of 4 x 16 a thread) or read by bytes (N = 8),
    # B read through tl.trans (ldmatrix; a single n-tile by 32-bit loads), the full int8 range
    # (-128 x -128), and C starting near the int32 limits so that the sums wrap modulo 2^32 (no
    # saturation: the CPU targets' adds, Triton's wgmma on sm_90). Every element of A and B
    # reaches the result through its own fragment position: a wrong lane, register or byte of
    # the s8 layout changes it.
    def wrap32(x):
        return ((x + 2 ** 31) % 2 ** 32 - 2 ** 31).astype(np.int32)
    for (M, N, Kd, BM, BN, BK, tb) in ((16, 16, 32, 16, 16, 32, False), (64, 64, 128, 64, 64, 32, False),
                                       (128, 128, 128, 128, 128, 64, False), (32, 128, 96, 32, 128, 32, False),
                                       (70, 40, 100, 32, 32, 32, False), (48, 24, 64, 16, 8, 32, False),
                                       (32, 128, 256, 32, 128, 128, False),
                                       (64, 64, 64, 64, 64, 32, True), (64, 8, 96, 64, 8, 32, True),
                                       (50, 70, 80, 32, 64, 64, True)):
        ai = rng(110 + M).integers(-128, 128, (M, Kd)).astype(np.int8)
        bi = rng(111 + N).integers(-128, 128, (Kd, N)).astype(np.int8)
        ai[0, :] = -128
        bi[:, 0] = -128
        c0 = rng(112 + Kd).integers(-2 ** 31, 2 ** 31, (M, N), dtype=np.int64)
        c0[0, :] = 2 ** 31 - 1  # + 128 * 128 * K: wraps to negative
        c0[1, :] = -2 ** 31     # and below
        c0 = c0.astype(np.int32)
        want = wrap32(c0.astype(np.int64) + ai.astype(np.int64) @ bi.astype(np.int64))
        add(F, "dot_i8_loop_%dx%dx%d_block_%dx%dx%d%s" % (M, N, Kd, BM, BN, BK, "_trans_b" if tb else ""), K,
            "dot_i8_loop_kernel", ((M + BM - 1) // BM, (N + BN - 1) // BN),
            dict(a_ptr=ai, b_ptr=bi.T.copy() if tb else bi, c_ptr=c0.copy(), M=M, N=N, K=Kd, BM=BM, BN=BN, BK=BK,
                 TRANS_B=tb),
            ["c_ptr"], lambda a, want=want: {"c_ptr": want})
    # one int8 dot whose C (128 x 128: 32 tiles a warp) goes to shared memory in two rounds (its
    # acc another such dot's result; B read by bytes: no loop carries C)
    ai = rng(113).integers(-128, 128, (128, 64)).astype(np.int8)
    bi = rng(114).integers(-128, 128, (64, 128)).astype(np.int8)
    add(F, "dot_i8_i32_128x128x64", K, "dot_i8_kernel", (1,),
        dict(a_ptr=ai, b_ptr=bi, c_ptr=np.zeros((128, 128), np.int32), M=128, N=128, K=64), ["c_ptr"],
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

    # `acc += tl.dot(a, b)` and its spellings accumulate in the dot (as Triton's combine
    # pass); a product read twice keeps its own dot. Integer-valued inputs: every order of
    # the sums gives the exact result.
    M, N, Kd, BK = 16, 32, 64, 16
    for dname in ("fp32", "i8", "bf16"):
        av = rng(70).integers(-4, 4, (M, Kd)).astype(np.float32)
        bv = rng(71).integers(-4, 4, (Kd, N)).astype(np.float32)
        if dname == "fp32":
            aa, ba, cdt = av, bv, np.float32
        elif dname == "i8":
            aa, ba, cdt = av.astype(np.int8), bv.astype(np.int8), np.int32
        else:
            aa, ba, cdt = (bf16_bits(av)[0], "bf16"), (bf16_bits(bv)[0], "bf16"), np.float32
        c0 = rng(72).integers(-100, 100, (M, N)).astype(cdt)
        prod = av.astype(np.int64) @ bv.astype(np.int64)
        last = av[:, -BK:].astype(np.int64) @ bv[-BK:, :].astype(np.int64)
        for form, (want_c, want_x) in enumerate([(c0 + prod, 0 * prod), (c0 + prod, 0 * prod), (c0 + prod, last),
                                                 (c0 + prod + Kd // BK, 0 * prod), (c0 + 2 * prod, 0 * prod)]):
            add(F, "dot_add_form%d_%s" % (form, dname), K, "dot_add_forms_kernel", (1,),
                dict(a_ptr=aa, b_ptr=ba, c_ptr=c0.copy(), x_ptr=np.zeros((M, N), cdt), M=M, N=N, K=Kd, BK=BK,
                     FORM=form),
                ["c_ptr", "x_ptr"],
                lambda a, want_c=want_c, want_x=want_x, cdt=cdt: {"c_ptr": want_c.astype(cdt),
                                                                   "x_ptr": want_x.astype(cdt)})

    # The accumulator's expression evaluated where the dot's register blocks start: in place
    # in the carried buffer only when it reads that buffer at the same position.
    def acc_expr_ref(a, c0, b, BK, form):
        acc = c0.astype(np.float64)
        for k0 in range(0, a.shape[1], BK):
            init = acc * 0.5 if form == 0 else acc[::-1] if form == 1 else acc - acc.max(1)[:, None]
            acc = init + a[:, k0:k0 + BK].astype(np.float64) @ b[k0:k0 + BK].astype(np.float64)
        return acc.astype(np.float32)
    M, N, Kd, BK = 16, 32, 64, 16
    av = rng(80).integers(-4, 4, (M, Kd)).astype(np.float32)
    bv = rng(81).integers(-4, 4, (Kd, N)).astype(np.float32)
    c0 = rng(82).integers(-64, 64, (M, N)).astype(np.float32)
    for form, fname in enumerate(("scaled", "rows_reversed", "minus_row_max")):
        add(F, "dot_acc_expr_" + fname, K, "dot_acc_expr_kernel", (1,),
            dict(a_ptr=av, b_ptr=bv, c_ptr=c0.copy(), M=M, N=N, K=Kd, BK=BK, FORM=form), ["c_ptr"],
            lambda a, form=form, c0=c0, BK=BK: {"c_ptr": acc_expr_ref(a["a_ptr"], c0, a["b_ptr"], BK, form)})

    # An fp16 (or bf16) result: the dot accumulates in fp32 and rounds once when its result is
    # produced (an accumulator passed in is widened first), as Triton's tensor cores and its
    # interpreter do; rounding at every step of K misses these bounds by several ulps (64x64x64
    # randn: 0.067 max error where one rounding gives 0.0077).
    for bf in (False, True):
        for acc in (False, True):
            for (M, N, Kd, BK) in ((64, 64, 64, 64), (16, 32, 128, 32)):
                a16 = rng(90 + Kd).standard_normal((M, Kd)).astype(np.float16)
                b16 = rng(91 + Kd).standard_normal((Kd, N)).astype(np.float16)
                c0 = rng(92).standard_normal((M, N)) * 4 if acc else np.zeros((M, N))
                c0b, c0f = bf16_bits(c0) if bf else (c0.astype(np.float16), c0.astype(np.float16).astype(np.float64))
                add(F, "dot_%s_out_%s%dx%dx%d_bk%d" % ("bf16" if bf else "f16", "acc_" if acc else "", M, N, Kd, BK), K,
                    "dot_narrow_out_kernel", (1,),
                    dict(a_ptr=a16, b_ptr=b16, c_ptr=(c0b, "bf16") if bf else c0b, M=M, N=N, K=Kd, BK=BK,
                         BF16=bf, ACC=acc),
                    ["c_ptr"], None, check=within_narrow_dots(a16, b16, c0f, BK, bf))
    # fp32 dots by input_precision / allow_tf32 (within_precision: exact on CPU targets, tf32
    # or tf32x3 on nvptx's tensor cores): the masked K loop (its accumulator carried in the
    # MMA fragments) at a shape of whole tiles and at ragged edges, B read through tl.trans
    # (ldmatrix; an odd last n-tile element by element), and one dot whose result no loop
    # carries.
    precisions = ("default", "ieee", "tf32", "TF32", "tf32x3", "bf16x3", "bf16x6", "allow_tf32=True",
                  "allow_tf32=False")
    for (M, N, Kd, BM, BN, BK, tb) in ((64, 64, 96, 64, 64, 32, False), (70, 40, 50, 32, 32, 16, False),
                                       (64, 64, 64, 64, 64, 32, True), (64, 8, 48, 64, 8, 16, True)):
        a = rng(100 + M).standard_normal((M, Kd)).astype(np.float32)
        b = rng(101 + N).standard_normal((Kd, N)).astype(np.float32)
        c0 = rng(102).standard_normal((M, N)).astype(np.float32)
        for p in precisions if (M, tb) == (64, False) else ("default", "ieee", "tf32x3", "bf16x3"):
            add(F, "dot_precision_%s_%dx%dx%d%s" % (p.replace("=", "_"), M, N, Kd, "_trans_b" if tb else ""), K,
                "dot_precision_loop_kernel", ((M + BM - 1) // BM, (N + BN - 1) // BN),
                dict(a_ptr=a, b_ptr=b.T.copy() if tb else b, c_ptr=c0.copy(), M=M, N=N, K=Kd, BM=BM, BN=BN, BK=BK,
                     P=p, TRANS_B=tb),
                ["c_ptr"], None, check=within_precision(a, b, c0, Kd, p))
    a = rng(103).standard_normal((32, 16)).astype(np.float32)
    b = rng(104).standard_normal((16, 64)).astype(np.float32)
    for p in ("tf32", "tf32x3", "ieee"):
        add(F, "dot_precision_once_%s" % p, K, "dot_precision_once_kernel", (1,),
            dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((32, 64), np.float32), M=32, N=64, K=16, P=p), ["c_ptr"], None,
            check=within_precision(a, b, np.ones((32, 64), np.float32), 16, p))
    # inf and NaN operands come out as the exact dot's: an inf in A's row 0 makes it inf (tf32x3:
    # not NaN from inf - inf in the small parts), an inf in B's column 10 against A's column 2 of
    # ones (small parts 0: 0 x inf) makes it inf, a NaN in B's column 3 makes it NaN
    a = rng(105).uniform(0.5, 2.0, (32, 16)).astype(np.float32)
    b = rng(106).uniform(0.5, 2.0, (16, 64)).astype(np.float32)
    a[0, 5] = np.inf
    a[:, 2] = 1.0
    b[2, 10] = np.inf
    b[7, 3] = np.nan
    for p in ("tf32", "tf32x3", "bf16x3", "bf16x6", "ieee"):
        add(F, "dot_precision_inf_nan_%s" % p, K, "dot_precision_once_kernel", (1,),
            dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((32, 64), np.float32), M=32, N=64, K=16, P=p), ["c_ptr"], None,
            check=within_precision(a, b, np.ones((32, 64), np.float32), 16, p))

    # Which products a precision keeps, exactly: A = B = 1 + 2^-10 everywhere (a tf32 value, bf16
    # parts hi = 1, mid = 2^-10), K = 16, plus 1: 17 + 2^-5 + 2^-16 exactly, but bf16x3 drops
    # mid x mid (2^-20 a product): 17 + 2^-5 (nvptx).
    one = np.full((32, 16), 1 + 2.0 ** -10, np.float32)
    for p in ("tf32", "tf32x3", "bf16x3", "bf16x6", "ieee"):
        add(F, "dot_precision_parts_%s" % p, K, "dot_precision_once_kernel", (1,),
            dict(a_ptr=one, b_ptr=one.T.copy(), c_ptr=np.zeros((32, 32), np.float32), M=32, N=32, K=16, P=p),
            ["c_ptr"], lambda a, p=p: {"c_ptr": np.full((32, 32), 17 + 2.0 ** -5 + (
                0 if effective_precision(p) == "bf16x3" else 2.0 ** -16))})

    a16 = rng(95).standard_normal((2, 32, 64)).astype(np.float16)
    b16 = rng(96).standard_normal((2, 64, 32)).astype(np.float16)
    add(F, "dot_f16_out_3d", K, "dot_f16_out_3d_kernel", (1,),
        dict(a_ptr=a16, b_ptr=b16, c_ptr=np.zeros((2, 32, 32), np.float16), B=2, M=32, N=32, K=64), ["c_ptr"],
        None, check=lambda args, res: within_narrow_dots(a16[0], b16[0], np.zeros((32, 32)), 64, False)(
            args, {"c_ptr": res["c_ptr"][0]}) or within_narrow_dots(a16[1], b16[1], np.zeros((32, 32)), 64, False)(
            args, {"c_ptr": res["c_ptr"][1]}))


def within_narrow_dots(a, b, c0, bk, bf):
    """check= for c = c0 + a @ b computed as one dot per bk columns of K whose result is fp16
    (bf: bf16): each dot sums in fp32 and rounds once, so |c - exact| stays within a rounding
    (unit roundoff u: 2^-11, bf16 2^-8) of each partial result P_k and of each dot's own product
    D_k (the sum may be formed after the dot rounded), plus the fp32 sums' error and half the
    smallest subnormal; exact in fp64."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    u = 2.0 ** -8 if bf else 2.0 ** -11
    tiny = 0.0 if bf else 2.0 ** -25
    acc = c0.astype(np.float64)
    bound = np.zeros_like(acc)
    for k0 in range(0, a.shape[1], bk):
        d = a64[:, k0:k0 + bk] @ b64[k0:k0 + bk]
        acc = acc + d
        bound += u * (np.abs(acc) + np.abs(d)) + (bk + 2) * 2.0 ** -24 * (
            np.abs(acc) + np.abs(a64[:, k0:k0 + bk]) @ np.abs(b64[k0:k0 + bk])) + 2 * tiny
    exact = acc
    if a.shape[1] == bk:  # one dot: one rounding of a sum of products exact in fp32
        bound = u * np.abs(exact) + (bk + 2) * 2.0 ** -24 * (np.abs(c0) + np.abs(a64) @ np.abs(b64)) + tiny

    def check(args, res):
        got = res["c_ptr"]
        got = (got.astype(np.uint32) << 16).view(np.float32) if got.dtype == np.uint16 else got
        got = got.astype(np.float64)
        bad = ~(np.abs(got - exact) <= bound)
        if bad.any():
            i = tuple(int(x) for x in np.argwhere(bad)[0])
            return "c_ptr[%s]: got %r, expected %r within %.3g (%d of %d differ, max error %.3g)" % (
                ",".join(map(str, i)), got[i], exact[i], bound[i], int(bad.sum()), bad.size,
                float(np.abs(got - exact).max()))
        return None
    return check
