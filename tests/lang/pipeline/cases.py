"""Cases of the lang family 'pipeline': K loops whose tl.dot operands nvptx loads num_stages - 1
trips ahead with cp.async (its kernels are in pipeline/kernels.py). Inputs are small integers, so
every product and partial sum is exact in fp32 (and tf32, bf16): a trip's operands read from the
wrong stage buffer, a stale or missing trip, or a wrong edge mask changes the result exactly.
Strides are multiples of 16 elements (16-byte aligned chunks: the pipelined path); K edges that
cut a trip short, M/N edges, 1 to 7 trips (fewer than num_stages - 1 too), zero trips."""
import numpy as np

from harness import add, bf16_bits, rng

KERNELS = "pipeline/kernels.py"


def ints(seed, shape, dtype):
    return rng(seed).integers(-3, 4, shape).astype(dtype)


def exact(c_name, value):
    return lambda args: {c_name: value}


def cases():
    # pointers carried through the loop and advanced by BK (the tutorial matmul)
    for (M, N, K, BM, BN, BK, dt) in [(64, 64, 32, 32, 32, 32, "f16"), (100, 48, 80, 64, 32, 32, "f16"),
                                      (128, 64, 224, 64, 64, 32, "f16"), (64, 64, 64, 64, 64, 32, "f16"),
                                      (64, 32, 96, 32, 32, 32, "f32"), (64, 64, 128, 64, 64, 32, "bf16"),
                                      # sm_90a's wgmma (lang.nvptx_emu_sm90a): two m-tiles a warp
                                      # (the bench's 128x128x32), M/N/K edges (strides not multiples
                                      # of 16: not pipelined, mma.sync in the warpgroups' layout),
                                      # N = 256 (its widest), N = 8 (below wgmma's rows: mma.sync)
                                      (128, 128, 96, 128, 128, 32, "f16"), (200, 136, 80, 128, 128, 32, "f16"),
                                      (64, 256, 64, 64, 256, 32, "bf16"), (64, 8, 48, 64, 8, 16, "f16"),
                                      # four m-tiles a warp, a 128-byte swizzle (BK = 64); BK = 128:
                                      # A's 256-byte rows in two swizzle atoms
                                      (256, 64, 128, 256, 64, 64, "f16"), (64, 64, 384, 64, 64, 128, "f16")]:
        np_dt = np.float32 if dt != "f16" else np.float16
        a = ints(400 + K, (M, K), np_dt)
        b = ints(401 + N, (K, N), np_dt)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        args = dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((M, N), np.float32), M=M, N=N, K=K, stride_am=K, stride_bk=N,
                    stride_cm=N, BM=BM, BN=BN, BK=BK)
        if dt == "bf16":
            args.update(a_ptr=(bf16_bits(a)[0], "bf16"), b_ptr=(bf16_bits(b)[0], "bf16"))
        add("pipeline", "pipe_carried_%s_%dx%dx%d_bk%d" % (dt, M, N, K, BK), KERNELS, "carried_kernel",
            (-(-M // BM), -(-N // BN)), args, ["c_ptr"], exact("c_ptr", ref), rtol=0, atol=1e-6)

    # padded rows (strides multiples of 16: pipelined) with K = 84: the last trip's mask cuts a
    # 16-byte chunk (k 80..87), so that chunk goes through registers into the stage (on sm_90a
    # into the swizzled layout, published to wgmma by the same proxy fence)
    for (M, N, K, BM, BN, BK) in [(200, 136, 84, 128, 128, 32), (64, 48, 20, 64, 16, 16)]:
        lda, ldb = -(-K // 16) * 16 + 16, -(-N // 16) * 16 + 16
        a = ints(430 + K, (M, lda), np.float16)
        b = ints(431 + N, (K, ldb), np.float16)
        ref = a[:, :K].astype(np.float64) @ b[:, :N].astype(np.float64)
        add("pipeline", "pipe_padded_f16_%dx%dx%d_bk%d" % (M, N, K, BK), KERNELS, "carried_kernel",
            (-(-M // BM), -(-N // BN)),
            dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((M, N), np.float32), M=M, N=N, K=K, stride_am=lda, stride_bk=ldb,
                 stride_cm=N, BM=BM, BN=BN, BK=BK),
            ["c_ptr"], exact("c_ptr", ref), rtol=0, atol=1e-6)

    # pointers recomputed from the induction variable (k0 steps by BK), B transposed, the loop's
    # own tl.range(..., num_stages=S) (1: not pipelined)
    for (M, N, K, BM, BN, BK, S) in [(96, 64, 160, 32, 64, 32, 3), (50, 40, 48, 32, 32, 32, 2),
                                     (32, 32, 16, 32, 32, 32, 4), (64, 64, 224, 32, 32, 32, 5),
                                     (64, 64, 96, 32, 32, 32, 1),
                                     # wgmma with a K-major B (tl.trans), n32 and n64
                                     (128, 64, 160, 64, 64, 32, 3), (64, 96, 64, 64, 32, 32, 2)]:
        a = ints(410 + K, (M, K), np.float16)
        bt = ints(411 + N, (N, K), np.float16)
        ref = a.astype(np.float64) @ bt.astype(np.float64).T
        add("pipeline", "pipe_recomputed_%dx%dx%d_s%d" % (M, N, K, S), KERNELS, "recomputed_kernel",
            (-(-M // BM), -(-N // BN)), dict(a_ptr=a, bt_ptr=bt, c_ptr=np.zeros((M, N), np.float32), M=M, N=N, K=K,
                                             BM=BM, BN=BN, BK=BK, STAGES=S),
            ["c_ptr"], exact("c_ptr", ref), rtol=0, atol=1e-6)

    # a persistent loop over tiles around the K loop
    for (M, N, K, progs) in [(128, 96, 96, 3), (64, 64, 160, 2)]:
        a = ints(420 + K, (M, K), np.float16)
        b = ints(421 + N, (K, N), np.float16)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        add("pipeline", "pipe_persistent_%dx%dx%d_p%d" % (M, N, K, progs), KERNELS, "persistent_kernel", (progs,),
            dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((M, N), np.float32), M=M, N=N, K=K, BM=32, BN=32, BK=32),
            ["c_ptr"], exact("c_ptr", ref), rtol=0, atol=1e-6)

    # the loop from 1: three trips, one, none
    for K in (128, 64, 32):
        M, N = 64, 48
        a = ints(430 + K, (M, K), np.float16)
        b = ints(431 + K, (K, N), np.float16)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        add("pipeline", "pipe_offset_start_k%d" % K, KERNELS, "offset_start_kernel", (2, 2),
            dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((M, N), np.float32), M=M, N=N, K=K, BM=32, BN=32, BK=32),
            ["c_ptr"], exact("c_ptr", ref), rtol=0, atol=1e-6)

    # two dots in one loop
    for (M, N, K) in [(64, 64, 96), (40, 48, 48)]:
        x = ints(440 + K, (M, K), np.float16)
        w1 = ints(441 + N, (K, N), np.float16)
        w2 = ints(442 + N, (K, N), np.float16)
        ref = x.astype(np.float64) @ w1.astype(np.float64) + 2 * (x.astype(np.float64) @ w2.astype(np.float64))
        add("pipeline", "pipe_two_dots_%dx%dx%d" % (M, N, K), KERNELS, "two_dots_kernel", (-(-M // 32), -(-N // 32)),
            dict(x_ptr=x, w1_ptr=w1, w2_ptr=w2, c_ptr=np.zeros((M, N), np.float32), M=M, N=N, K=K, BM=32, BN=32,
                 BK=32),
            ["c_ptr"], exact("c_ptr", ref), rtol=0, atol=1e-6)

    # a loop that writes the rows its next trip loads: results as in program order
    M, N, K = 32, 32, 96
    a = ints(450, (M, K), np.float16)
    b = ints(451, (K, N), np.float16)
    bb = b.astype(np.float64).copy()
    bb[32:] += 1  # trip 0 adds 1 to rows 32..63 before trip 1 loads them, trip 1 to rows 64..95
    ref_b = bb.copy()
    add("pipeline", "pipe_writes_ahead", KERNELS, "writes_ahead_kernel", (1,),
        dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((M, N), np.float32), K=K, BM=32, BN=32, BK=32),
        ["c_ptr", "b_ptr"], lambda args, r=a.astype(np.float64) @ bb, rb=ref_b: {"c_ptr": r, "b_ptr": rb},
        rtol=0, atol=1e-6)

    # the masked value of A: 0 (zero filled by cp.async with a source size of 0), -2 (the edge
    # path through registers); B's masked value 1, so each masked A element adds OTHER to C
    for (M, N, K, other) in [(48, 64, 80, 0.0), (48, 64, 80, -2.0), (64, 32, 40, 0.0), (40, 40, 72, -2.0)]:
        BM, BN, BK = 32, 32, 32
        a = ints(460 + K, (M, K), np.float16)
        b = ints(461 + N, (K, N), np.float16)
        Mp, Kp = -(-M // BM) * BM, -(-K // BK) * BK
        ap = np.full((Mp, Kp), other)
        ap[:M, :K] = a
        bp = np.ones((Kp, N))
        bp[:K] = b
        ref = (ap @ bp)[:M]
        add("pipeline", "pipe_other_%g_%dx%dx%d" % (other, M, N, K), KERNELS, "other_kernel",
            (-(-M // BM), -(-N // BN)), dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((M, N), np.float32), M=M, N=N, K=K,
                                             OTHER=other, BM=BM, BN=BN, BK=BK),
            ["c_ptr"], exact("c_ptr", ref), rtol=0, atol=1e-6)

    # no `other`: rows past M masked, their results not stored
    for (M, N, K) in [(40, 32, 96), (70, 64, 64)]:
        a = ints(470 + M, (M, K), np.float16)
        b = ints(471 + N, (K, N), np.float16)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        add("pipeline", "pipe_no_other_%dx%dx%d" % (M, N, K), KERNELS, "no_other_kernel", (-(-M // 32), -(-N // 32)),
            dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((M, N), np.float32), M=M, N=N, K=K, BM=32, BN=32, BK=32),
            ["c_ptr"], exact("c_ptr", ref), rtol=0, atol=1e-6)


    # loop-invariant operands (a dot in a loop that loads nothing): acc_i = acc_{i-1} / 2 + a @ b
    for (M, N, K, n) in [(128, 64, 64, 3), (64, 128, 32, 2)]:
        a = ints(480 + M, (M, K), np.float16)
        b = ints(481 + N, (K, N), np.float16)
        ref = np.zeros((M, N))
        for _ in range(n):
            ref = ref * 0.5 + a.astype(np.float64) @ b.astype(np.float64)
        add("pipeline", "pipe_invariant_%dx%dx%d_n%d" % (M, N, K, n), KERNELS, "invariant_kernel", (1,),
            dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((M, N), np.float32), n=n, M=M, N=N, K=K),
            ["c_ptr"], exact("c_ptr", ref), rtol=0, atol=1e-6)
