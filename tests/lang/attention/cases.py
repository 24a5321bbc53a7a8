"""Cases of the lang family 'attention': fused attention forward (online softmax in base 2, causal
and not) (its kernels are in attention/kernels.py, and the benchmark's bench/kernels/attention.py)."""
import numpy as np

from harness import add, bf16_bits, compare, rng, target

BENCH = "../../bench/kernels/attention.py"


def cases():
    # fp32 tl.dot defaults to tf32 on nvptx (Triton on NVIDIA): operands rounded to 10 mantissa bits
    tol = 5e-3 if target().startswith("nvptx") else 1e-4
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
        add("attention", "attn_fwd_h%d_l%d_d%d%s" % (H, L, D, "_causal" if causal else ""), "attention/kernels.py",
            "attn_fwd_kernel", ((L + BM - 1) // BM, H),
            dict(q_ptr=q, k_ptr=k, v_ptr=v, o_ptr=np.zeros_like(q), lse_ptr=np.zeros((H, L), np.float32), seq_len=L,
                 sm_scale=float(1 / np.sqrt(D)), BM=BM, BN=BN, D=D, CAUSAL=causal),
            ["o_ptr", "lse_ptr"], lambda a, c=causal: attn_ref(a, c), rtol=tol, atol=tol)

    # The benchmark's kernel (bench/kernels/attention.py: [Z, H, SEQ, D] strides, causal blocks
    # below the diagonal unmasked and the diagonal block masked, in two calls of one helper).
    # Program 0 of a causal launch runs the unmasked loop zero times: q, loaded before it and
    # buffered for the dot inside it, must still be there for the diagonal loop.
    for (Z, H, L, D, BM, BN, causal, bf) in [(1, 2, 64, 16, 32, 32, True, False), (2, 1, 96, 32, 32, 16, True, False),
                                             (1, 2, 64, 16, 16, 32, False, False), (1, 1, 64, 32, 32, 32, True, True),
                                             (1, 2, 64, 16, 16, 16, False, True),
                                             # BLOCK_M >= 16 x warps: on nvptx the scores stay in the MMA
                                             # fragments (row max/sum by quad shuffles, p @ v's A from them)
                                             (1, 2, 128, 64, 64, 64, False, True), (1, 1, 256, 32, 128, 64, True, True),
                                             (2, 1, 128, 64, 128, 32, False, True), (1, 1, 192, 16, 64, 32, True, True),
                                             (1, 1, 128, 128, 128, 32, True, True)]:
        r = rng(170 + L + D + bf)
        q, k, v = (r.standard_normal((Z, H, L, D)).astype(np.float32) for _ in range(3))
        sc = float(1 / np.sqrt(D))
        if bf:
            (qb, q), (kb, k), (vb, v) = bf16_bits(q), bf16_bits(k), bf16_bits(v)
        ref = attn_ref({"q_ptr": q.reshape(Z * H, L, D), "k_ptr": k.reshape(Z * H, L, D),
                        "v_ptr": v.reshape(Z * H, L, D), "sm_scale": sc}, causal)
        args = dict(q_ptr=q, k_ptr=k, v_ptr=v, o_ptr=np.zeros_like(q), lse_ptr=np.zeros((Z * H, L), np.float32),
                    sm_scale=sc, stride_z=H * L * D, stride_h=L * D, stride_n=D, H=H, SEQ=L,
                    HEAD_DIM=D, BLOCK_M=BM, BLOCK_N=BN, CAUSAL=causal)
        name = "attn_bench_z%d_h%d_l%d_d%d_bm%d_bn%d%s%s" % (Z, H, L, D, BM, BN, "_causal" if causal else "",
                                                         "_bf16" if bf else "")
        if not bf:
            add("attention", name, BENCH, "attn_fwd_kernel", (L // BM, Z * H), args, ["o_ptr", "lse_ptr"],
                lambda a, ref=ref: {"o_ptr": ref["o_ptr"].reshape(a["q_ptr"].shape), "lse_ptr": ref["lse_ptr"]},
                rtol=tol, atol=tol)
            continue
        args.update(q_ptr=(qb, "bf16"), k_ptr=(kb, "bf16"), v_ptr=(vb, "bf16"), o_ptr=(np.zeros_like(qb), "bf16"))

        def check(a, res, ref=ref):
            # p is rounded to bf16 for the second dot and o stored as bf16: ~2^-8 relative
            o = (res["o_ptr"].astype(np.uint32) << 16).view(np.float32).reshape(ref["o_ptr"].shape)
            return (compare("o_ptr", o, ref["o_ptr"], 2e-2, 2e-2) or
                    compare("lse_ptr", res["lse_ptr"].reshape(ref["lse_ptr"].shape), ref["lse_ptr"], 1e-4, 1e-4))
        add("attention", name, BENCH, "attn_fwd_kernel", (L // BM, Z * H), args, ["o_ptr", "lse_ptr"], check=check)

    # fp16 at the bench's blocks (BLOCK_M 128, BLOCK_N 64): on sm_90a both dots run on wgmma
    # (q staged once, swizzled; p @ v's A from the scores' registers); HEAD_DIM 128 puts q's and
    # k's 256-byte rows in two 128-byte swizzle atoms; BLOCK_M 64 is one m-tile a warpgroup.
    for (Z, H, L, D, BM, BN, causal) in [(1, 2, 256, 64, 128, 64, False), (1, 1, 256, 64, 128, 64, True),
                                         (1, 1, 128, 128, 64, 32, False), (1, 1, 192, 128, 64, 64, True)]:
        r = rng(230 + L + D + BM + causal)
        q, k, v = (r.standard_normal((Z, H, L, D)).astype(np.float16) for _ in range(3))
        sc = float(1 / np.sqrt(D))
        ref = attn_ref({"q_ptr": q.reshape(Z * H, L, D), "k_ptr": k.reshape(Z * H, L, D),
                        "v_ptr": v.reshape(Z * H, L, D), "sm_scale": sc}, causal)
        args = dict(q_ptr=q, k_ptr=k, v_ptr=v, o_ptr=np.zeros_like(q), lse_ptr=np.zeros((Z * H, L), np.float32),
                    sm_scale=sc, stride_z=H * L * D, stride_h=L * D, stride_n=D, H=H, SEQ=L,
                    HEAD_DIM=D, BLOCK_M=BM, BLOCK_N=BN, CAUSAL=causal)

        def check16(a, res, ref=ref):
            # p is rounded to fp16 for the second dot and o stored as fp16: ~2^-11 relative
            o = res["o_ptr"].astype(np.float64).reshape(ref["o_ptr"].shape)
            return (compare("o_ptr", o, ref["o_ptr"], 4e-3, 4e-3) or
                    compare("lse_ptr", res["lse_ptr"].reshape(ref["lse_ptr"].shape), ref["lse_ptr"], 1e-4, 1e-4))
        add("attention", "attn_bench_z%d_h%d_l%d_d%d_bm%d_bn%d%s_fp16" % (Z, H, L, D, BM, BN, "_causal" if causal else ""),
            BENCH, "attn_fwd_kernel", (L // BM, Z * H), args, ["o_ptr", "lse_ptr"], check=check16)

    # Scores read only by row reductions (max, argmax, sum) and the next dot's A, K given
    # transposed, masked keys (nvptx: kept in the MMA fragments at BM 64 and 128 with 4 warps;
    # at BM 16 through shared memory)
    for (M, N, D, BM, nk) in [(128, 64, 32, 64, 50), (128, 32, 64, 128, 32), (32, 64, 16, 16, 64)]:
        r = rng(190 + M + N + D)
        q = r.standard_normal((M, D)).astype(np.float16)
        kt = r.standard_normal((D, N)).astype(np.float16)
        v = r.standard_normal((N, D)).astype(np.float16)
        q[3, :] = 0  # a row of equal scores: argmax takes the first key

        def ref_rows(a, nk=nk):
            s = a["q_ptr"].astype(np.float64) @ a["kt_ptr"].astype(np.float64)
            s[:, nk:] = -np.inf
            p = np.exp(s - s.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            return {"o_ptr": p @ a["v_ptr"].astype(np.float64), "amax_ptr": s.argmax(1)}

        def check_rows(a, res, ref_rows=ref_rows):
            ref = ref_rows(a)
            # argmax of near-ties may differ by the scores' fp32 rounding: compare the scores
            s = a["q_ptr"].astype(np.float64) @ a["kt_ptr"].astype(np.float64)
            got = s[np.arange(s.shape[0]), res["amax_ptr"]]
            want = s[np.arange(s.shape[0]), ref["amax_ptr"]]
            bad = (res["amax_ptr"] >= nk) | (np.abs(got - want) > 1e-3 * (1 + np.abs(want)))
            if bad.any():
                return "amax_ptr: row %d: got %d, expected %d" % (np.argmax(bad), res["amax_ptr"][np.argmax(bad)],
                                                                   ref["amax_ptr"][np.argmax(bad)])
            if res["amax_ptr"][3] != 0:
                return "amax_ptr[3]: got %d, expected 0 (ties: the first key)" % res["amax_ptr"][3]
            return compare("o_ptr", res["o_ptr"], ref["o_ptr"], 1e-2, 1e-2)
        add("attention", "scores_rows_m%d_n%d_d%d_bm%d_nk%d" % (M, N, D, BM, nk), "attention/kernels.py",
            "scores_rows_kernel", (M // BM,),
            dict(q_ptr=q, kt_ptr=kt, v_ptr=v, o_ptr=np.zeros((M, D), np.float32), amax_ptr=np.zeros(M, np.int32),
                 n_keys=nk, BM=BM, BN=N, D=D), ["o_ptr", "amax_ptr"], check=check_rows)

    # Row state carried beside the accumulator: a running max starting from memory, an int32
    # count, the rescaled acc; TRACE stores the running max inside the loop too (nvptx: the
    # row vectors then stay in shared memory). BM 64 and 128 with 4 warps keep them in the
    # quads' registers on nvptx; BM 16 does not.
    for (M, N, D, BM, BN, trace) in [(128, 192, 32, 64, 64, False), (128, 128, 64, 128, 32, False),
                                     (128, 192, 32, 64, 64, True), (32, 64, 16, 16, 32, False)]:
        r = rng(230 + M + N + D + BM + trace)
        q = (r.standard_normal((M, D)) * 0.5).astype(np.float16)
        k = (r.standard_normal((N, D)) * 0.5).astype(np.float16)
        m0 = r.standard_normal(M).astype(np.float32)
        m0[::7] = -np.inf  # rows that start from -inf: the first block always raises them
        nblk = N // BN

        def ref_rows(a, BN=BN, nblk=nblk):
            qd, kd = a["q_ptr"].astype(np.float64), a["k_ptr"].astype(np.float64)
            m = a["m_ptr"].astype(np.float64).copy()
            c = np.zeros(m.shape, np.int64)
            acc = np.zeros(qd.shape)
            trace = np.zeros((nblk, m.size))
            for j in range(nblk):
                kb = kd[j * BN:(j + 1) * BN]
                s = (qd @ kb.T).astype(np.float32).astype(np.float64)
                mx = s.max(1)
                mn = np.maximum(m, mx)
                c += mx > m
                p = np.exp2(s - mn[:, None]).astype(np.float16).astype(np.float64)
                acc = acc * np.exp2(m - mn)[:, None] + p @ kb
                trace[j] = mn
                m = mn
            return {"o_ptr": acc, "m_ptr": m, "c_ptr": c, "trace_ptr": trace}

        def check_state(a, res, ref_rows=ref_rows, trace=trace):
            ref = ref_rows(a)
            err = (compare("o_ptr", res["o_ptr"], ref["o_ptr"], 1e-2, 1e-2) or
                   compare("m_ptr", res["m_ptr"], ref["m_ptr"], 1e-5, 1e-5))
            if err:
                return err
            if trace:
                err = compare("trace_ptr", res["trace_ptr"], ref["trace_ptr"], 1e-5, 1e-5)
                if err:
                    return err
            # a block raises the max when its row max is above the running one (random scores:
            # no two within their rounding of each other, so the count is exact)
            bad = np.abs(res["c_ptr"] - ref["c_ptr"]) > 0
            return "c_ptr: row %d: got %d, expected %d" % (np.argmax(bad), res["c_ptr"][np.argmax(bad)],
                                                            ref["c_ptr"][np.argmax(bad)]) if bad.any() else None
        add("attention", "row_state_m%d_n%d_d%d_bm%d_bn%d%s" % (M, N, D, BM, BN, "_trace" if trace else ""),
            "attention/kernels.py", "row_state_kernel", (M // BM,),
            dict(q_ptr=q, k_ptr=k, o_ptr=np.zeros((M, D), np.float32), m_ptr=m0, c_ptr=np.zeros(M, np.int32),
                 trace_ptr=np.zeros((nblk, M), np.float32), n_keys=N, BM=BM, BN=BN, D=D, TRACE=trace),
            ["o_ptr", "m_ptr", "c_ptr", "trace_ptr"], check=check_state)

    # Six online-softmax loops in a row (nvptx: more fragment records than one kernel keeps at
    # once; a finished loop's make room — the 32-record limit refused this before)
    r = rng(260)
    q = (r.standard_normal((64, 32)) * 0.3).astype(np.float16)
    k = (r.standard_normal((128, 32)) * 0.3).astype(np.float16)

    def many_ref(a):
        s = a["q_ptr"].astype(np.float64) @ a["k_ptr"].astype(np.float64).T
        out = np.zeros((64, 32))
        for p in range(6):
            e = np.exp2(s * (p + 1) - (s * (p + 1)).max(1, keepdims=True))
            out += (e / e.sum(1, keepdims=True)) @ a["k_ptr"].astype(np.float64)
        return {"o_ptr": out}
    add("attention", "many_loops_6", "attention/kernels.py", "many_loops_kernel", (1,),
        dict(q_ptr=q, k_ptr=k, o_ptr=np.zeros((64, 32), np.float32), n_keys=128, BM=64, BN=64, D=32, PASSES=6),
        ["o_ptr"], many_ref, rtol=2e-2, atol=2e-2)
