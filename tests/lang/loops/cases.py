"""Cases of the lang family 'loops': loops carrying tiles (its kernels are in loops/kernels.py)."""
import numpy as np

from harness import add, rng


def cases():
    F = "loops"
    K = "loops/kernels.py"
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

    # Loops that run once, zero times or more, alone and mixed: the single-trip version and
    # the loops must agree (integer-valued floats: every summation order is exact).
    def two_loops_ref(a, N1, N2, BLOCK):
        x = a["x_ptr"].astype(np.float64)
        s1 = x[:, :N1].sum(1)
        s2 = (x[:, :N2] ** 2).sum(1) + s1 * BLOCK  # acc2 starts at s1 in every lane
        return {"out_ptr": np.stack([s1, s2], 1).astype(np.float32)}
    for N1, N2, BLOCK in [(100, 1000, 1024), (1000, 1024, 1024), (100, 3000, 1024), (3000, 100, 1024),
                          (0, 100, 1024), (100, 0, 1024), (4096, 4096, 4096), (5, 7, 512)]:
        x = ints(N1 + 7 * N2 + BLOCK, (R, 4096), -8, 9)
        add(F, "two_loops_n%d_n%d_block%d" % (N1, N2, BLOCK), K, "two_loops_kernel", (R,),
            dict(x_ptr=x, out_ptr=np.zeros((R, 2), np.float32), N1=N1, N2=N2, BLOCK=BLOCK), ["out_ptr"],
            lambda a, N1=N1, N2=N2, BLOCK=BLOCK: two_loops_ref(a, N1, N2, BLOCK))
    for NIDX in [1, 0]:  # a step-1 loop over a scalar count that runs once / never
        x = ints(NIDX + 40, (12, 300), -9, 10)
        idx = rng(NIDX + 41).integers(0, 12, max(NIDX, 1)).astype(np.int32)
        add(F, "gather_rows_nidx%d_block512" % NIDX, K, "gather_rows_kernel", (1,),
            dict(x_ptr=x, idx_ptr=idx, out_ptr=np.zeros(300, np.float32), NIDX=NIDX, N=300, BLOCK=512), ["out_ptr"],
            lambda a, NIDX=NIDX: {"out_ptr": a["x_ptr"][a["idx_ptr"][:NIDX]].sum(0).astype(np.float32)})

    # A loop that reads x and writes x + SHIFT (the same buffer): trips ordered by a barrier on
    # nvptx unless each element is read and written by one thread (backend/nvptx.c, owned
    # accesses); integer-valued floats, so the sequential reference is exact.
    def shifted_rewrite_ref(a, n, shift, BLOCK):
        x = a["x_ptr"].copy()
        for start in range(0, n, BLOCK):
            end = min(start + BLOCK, n)
            x[start + shift:end + shift] = x[start:end] * np.float32(2) + np.float32(1)
        return {"x_ptr": x}
    for n, shift, BLOCK in [(3000, 0, 1024), (3000, 512, 1024), (3000, 1024, 1024), (3000, 4, 1024), (3000, 3, 1024),
                            (700, 100, 256)]:
        x = ints(n + shift, (n + shift,), -4, 5)
        add(F, "shifted_rewrite_n%d_shift%d_block%d" % (n, shift, BLOCK), K, "shifted_rewrite_kernel", (1,),
            dict(x_ptr=x, n=n, SHIFT=shift, BLOCK=BLOCK), ["x_ptr"],
            lambda a, n=n, shift=shift, BLOCK=BLOCK: shifted_rewrite_ref(a, n, shift, BLOCK))

    # carried tiles a GPU keeps in each thread's registers (read in place after the loop:
    # stored, reduced), or cannot (read reversed, through an if): the same results either way
    def blocked(x, N, BLOCK):
        return list(blocks(x, N, BLOCK))
    for N, BLOCK in [(3000, 1024), (2048, 2048), (100, 512)]:
        x = ints(900 + N, (R, N), -8, 9)
        bl = blocked(x, N, BLOCK)
        add(F, "carried_flip_n%d_block%d" % (N, BLOCK), K, "carried_flip_kernel", (R,),
            dict(x_ptr=x, out_ptr=np.zeros((R, BLOCK), np.float32), N=N, BLOCK=BLOCK), ["out_ptr"],
            lambda a, bl=bl: {"out_ptr": sum(bl)[:, ::-1]})
        a, b = np.zeros((R, BLOCK), np.float32), np.ones((R, BLOCK), np.float32)
        for v in bl:
            a, b = b, a + v
        add(F, "carried_swap_n%d_block%d" % (N, BLOCK), K, "carried_swap_kernel", (R,),
            dict(x_ptr=x, out_ptr=np.zeros((R, 2, BLOCK), np.float32), N=N, BLOCK=BLOCK), ["out_ptr"],
            lambda args, a=a, b=b: {"out_ptr": np.stack([a, 2 * b], axis=1)})
        acc = np.zeros((R, BLOCK), np.float32)
        for k, v in enumerate(bl):
            acc = (acc * 0.5 if k else acc) + v
        add(F, "carried_if_n%d_block%d" % (N, BLOCK), K, "carried_if_kernel", (R,),
            dict(x_ptr=x, out_ptr=np.zeros((R, BLOCK), np.float32), N=N, BLOCK=BLOCK), ["out_ptr"],
            lambda args, acc=acc: {"out_ptr": acc})
    for RB, BR, BC in [(3, 16, 64), (5, 32, 32)]:
        x = ints(910 + RB, (RB * BR, BC), -8, 9)
        add(F, "carried_2d_%dx%dx%d" % (RB, BR, BC), K, "carried_2d_kernel", (1,),
            dict(x_ptr=x, out_ptr=np.zeros((BR, BC), np.float32), R=RB, BR=BR, BC=BC), ["out_ptr"],
            lambda a, RB=RB, BR=BR, BC=BC: {"out_ptr": a["x_ptr"].reshape(RB, BR, BC).sum(0)})
    for ROWS, N, BLOCK, progs in [(7, 3000, 1024, 3), (4, 512, 256, 4)]:
        x = ints(920 + N, (ROWS, N), -8, 9)
        acc = sum(blocked(x, N, BLOCK)).astype(np.float64)
        d = acc - acc.sum(1, keepdims=True) / BLOCK
        add(F, "carried_nested_r%d_n%d_block%d" % (ROWS, N, BLOCK), K, "carried_nested_kernel", (progs,),
            dict(x_ptr=x, out_ptr=np.zeros(ROWS, np.float32), ROWS=ROWS, N=N, BLOCK=BLOCK), ["out_ptr"],
            lambda args, d=d: {"out_ptr": (d * d).sum(1)}, rtol=1e-5)

    # a dot's accumulator also read by another carried value's update in the same trip
    for KD, BM, BN, BK, dt in [(96, 32, 32, 32, np.float16), (64, 16, 64, 16, np.float32)]:
        a = ints(930 + KD, (BM, KD), -3, 4, dt)
        b = ints(931 + KD, (KD, BN), -3, 4, dt)
        acc, t = np.zeros((BM, BN)), np.ones((BM, BN))
        for k in range(0, KD, BK):
            acc, t = acc + a[:, k:k + BK].astype(np.float64) @ b[k:k + BK].astype(np.float64), acc + t
        add(F, "carried_dot_swap_k%d_%s" % (KD, np.dtype(dt).name), K, "carried_dot_swap_kernel", (1,),
            dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((BM, BN), np.float32), K=KD, BM=BM, BN=BN, BK=BK), ["c_ptr"],
            lambda args, r=acc * 1000 + t: {"c_ptr": r}, rtol=0, atol=1e-3)

    # the carried tile is each trip's dot (no accumulator): the last trip's product
    for KD, BM, BN, BK, dt, ieee in [(96, 32, 32, 32, np.float16, False), (64, 32, 32, 16, np.float32, True)]:
        a = ints(940 + KD, (BM, KD), -3, 4, dt)
        b = ints(941 + KD, (KD, BN), -3, 4, dt)
        ref = a[:, KD - BK:].astype(np.float64) @ b[KD - BK:].astype(np.float64)
        add(F, "carried_last_dot_k%d_%s" % (KD, np.dtype(dt).name), K, "carried_last_dot_kernel", (1,),
            dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((BM, BN), np.float32), K=KD, BM=BM, BN=BN, BK=BK, IEEE=ieee),
            ["c_ptr"], lambda args, r=ref: {"c_ptr": r}, rtol=0, atol=1e-3)

