"""Cases of the lang family 'reductions': reductions over axes, keep_dims, argmax/argmin ties, NaN
handling, integers (its kernels are in reductions/kernels.py)."""
import numpy as np

from harness import add, rng


def _reductions():
    F = "reductions"
    K = "reductions/kernels.py"
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


def _reductions_int():
    # the same index kernels on int32 data
    F = "reductions"
    K = "reductions/kernels.py"
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
    # rows longer than a CTA's threads times a chunk (nvptx: each thread folds several
    # chunks, several warps combine through shared memory), fp64 (shuffled in halves)
    xl = rng(33).standard_normal((3, 3000))
    add(F, "sum_axes_long_rows_f64", K, "sum_axes_kernel", (1,),
        dict(x_ptr=xl, s0_ptr=np.zeros(3000), s1_ptr=np.zeros(3), sall_ptr=np.zeros(1), M=3, N=3000, BM=4, BN=4096),
        ["s0_ptr", "s1_ptr", "sall_ptr"],
        lambda a: {"s0_ptr": a["x_ptr"].sum(0), "s1_ptr": a["x_ptr"].sum(1), "sall_ptr": [a["x_ptr"].sum()]},
        rtol=1e-12, atol=1e-12)
    xtl = rng(34).integers(0, 4, (2, 2048)).astype(np.int32)
    add(F, "reduce_tuple_combine_long_rows_i32", K, "reduce_tuple_kernel", (1,),
        dict(x_ptr=xtl, val_ptr=np.zeros(2, np.int32), idx_ptr=np.zeros(2, np.int32), M=2, N=2048),
        ["val_ptr", "idx_ptr"],
        lambda a: {"val_ptr": a["x_ptr"].max(1), "idx_ptr": 2047 - a["x_ptr"][:, ::-1].argmax(1)})
    xt = rng(32).integers(0, 4, (8, 16)).astype(np.int32)
    add(F, "reduce_tuple_combine_i32", K, "reduce_tuple_kernel", (1,),
        dict(x_ptr=xt, val_ptr=np.zeros(8, np.int32), idx_ptr=np.zeros(8, np.int32), M=8, N=16),
        ["val_ptr", "idx_ptr"],
        lambda a: {"val_ptr": a["x_ptr"].max(1), "idx_ptr": 15 - a["x_ptr"][:, ::-1].argmax(1)})


def _past_bound():
    # Reductions over a tile larger than the row (BLOCK = next_power_of_2(N) and more): the
    # lanes past N hold each load's `other` and count. Rows: random, all -0.0 (a zero sum's
    # sign: the +0.0 lanes past N make it +0.0), all -inf (exp(-inf - -inf) is NaN), all NaN.
    F = "reductions"
    K = "reductions/kernels.py"

    def padded(x, block, other):
        return np.concatenate([x, np.full((x.shape[0], block - x.shape[1]), other, x.dtype)], 1)

    def sum_ieee(z):  # numpy's sum of -0.0s is +0.0; IEEE (and Triton's tree) keeps -0.0
        s = z.sum(1)
        return np.where(np.all((z == 0) & np.signbit(z), 1), -0.0, s)

    def expect(block, n):
        # tl.max / tl.min ignore NaN (maxnum): np.fmax / np.fmin
        def f(a):
            x = a["x_ptr"].reshape(-1, n).astype(np.float64)
            z = padded(x, block, 0.)
            xi = padded(x, block, -np.inf)
            with np.errstate(all="ignore"):
                out = np.stack([z.sum(1), padded(x, block, 1.5).sum(1), np.fmax.reduce(xi, 1),
                            np.fmin.reduce(padded(x, block, 0.25), 1),
                                np.concatenate([x, np.broadcast_to(np.arange(n, block, dtype=np.float64),
                                                                   (x.shape[0], block - n))], 1).sum(1),
                                np.float32(1) / sum_ieee(z),
                                np.exp(xi - np.fmax.reduce(xi, 1)[:, None]).sum(1),
                                (z * z).sum(1), (x - 1.0).sum(1) + np.fmax.reduce(z + 2.0, 1)], 1)
            return {"out_ptr": out.astype(np.float32).reshape(-1)}
        return f

    for n, block in [(1000, 1024), (12000, 16384), (1024, 4096), (4096, 4096), (17, 4096), (0, 256)]:
        rows = 6
        x = rng(40 + n).standard_normal((rows, n)).astype(np.float32)
        if n:
            x[1, :] = -0.0
            x[2, :] = -np.inf
            x[3, :] = np.nan
            x[4, ::3] = np.nan
        add(F, "past_bound_%d_block%d" % (n, block), K, "past_bound_kernel", (rows,),
            dict(x_ptr=x.reshape(-1) if n else np.zeros(1, np.float32), out_ptr=np.zeros(rows * 9, np.float32),
                 N=n, BLOCK=block),
            ["out_ptr"], expect(block, n) if n else
            (lambda a, block=block: {"out_ptr": np.tile(np.array(
                [0., 1.5 * block, -np.inf, 0.25, np.arange(block).sum(), np.inf, np.nan, 0., 2.], np.float32), rows)}),
            rtol=1e-5, atol=1e-3)
    for n, block in [(1000, 1024), (3000, 4096), (4096, 4096)]:
        xi = rng(50 + n).integers(-100, 100, (3, n)).astype(np.int32)
        xi[1, :] = -9

        def f(a, n=n, block=block):
            x = a["x_ptr"].reshape(-1, n).astype(np.int64)
            return {"out_ptr": np.stack([
                padded(x, block, 0).sum(1), padded(x, block, 3).sum(1),
                np.bitwise_xor.reduce(padded(x, block, 5), 1), padded(x, block, -7).max(1),
                np.bitwise_or.reduce(padded(x, block, 64), 1)], 1).astype(np.int32).reshape(-1)}
        add(F, "past_bound_int_%d_block%d" % (n, block), K, "past_bound_int_kernel", (3,),
            dict(x_ptr=xi.reshape(-1), out_ptr=np.zeros(15, np.int32), N=n, BLOCK=block), ["out_ptr"], f)


def _shared_steps():
    # sum, argmax and min of one tile share the tree's first shuffles; every width the
    # vector registers give (chunk of 16 i32 on AVX-512, 8 on AVX2) and several element types
    F = "reductions"
    K = "reductions/kernels.py"
    for dt in (np.int32, np.int64, np.float32):
        for block in (8, 16, 32, 64, 128):
            x = np.tile(np.array([3, -7, 9, 9, 2, 9, -1, 0], dt), block // 8)
            x[block // 2 + 1] = 11 if block > 8 else x[block // 2 + 1]
            for order in (0, 1):
                def ref(a, order=order):
                    v = a["x_ptr"]
                    out = np.zeros(4, v.dtype)
                    out[0] = v.sum()
                    out[3 if order == 0 else 1] = v.argmax()
                    out[2] = v.min()
                    return {"out_ptr": out}
                add(F, "sum_argmax_shared_%s_block%d_order%d" % (np.dtype(dt).name, block, order), K,
                    "sum_argmax_shared_kernel", (1,),
                    dict(x_ptr=x.copy(), out_ptr=np.zeros(4, dt), BLOCK=block, ORDER=order), ["out_ptr"], ref)


def _row_groups():
    # Many rows reduced along the last axis at once (nvptx: groups of 8-32 lanes per row,
    # shuffles inside the group, no barrier per row): attention's 128x64 row max/sum, rows
    # of several chunks per lane, rows longer than 16 chunks per lane (a loop), masked
    # rows and columns, 3-D tiles, value-and-index reductions with ties, fp64 and int32.
    F = "reductions"
    K = "reductions/kernels.py"
    for (M, N, BM, BN) in [(100, 60, 128, 64), (30, 200, 32, 256), (6, 1500, 8, 2048), (128, 64, 128, 64)]:
        x = rng(40 + M).standard_normal((M, N)).astype(np.float32)
        add(F, "row_groups_sum_%dx%d" % (M, N), K, "sum_axes_kernel", (1,),
            dict(x_ptr=x, s0_ptr=np.zeros(N, np.float32), s1_ptr=np.zeros(M, np.float32),
                 sall_ptr=np.zeros(1, np.float32), M=M, N=N, BM=BM, BN=BN),
            ["s0_ptr", "s1_ptr", "sall_ptr"],
            lambda a: {"s0_ptr": a["x_ptr"].sum(0), "s1_ptr": a["x_ptr"].sum(1), "sall_ptr": [a["x_ptr"].sum()]},
            rtol=1e-4, atol=1e-4)
        add(F, "row_groups_maxmin_%dx%d" % (M, N), K, "maxmin_axes_kernel", (1,),
            dict(x_ptr=x, mx0_ptr=np.zeros(N, np.float32), mn1_ptr=np.zeros(M, np.float32),
                 mxall_ptr=np.zeros(1, np.float32), mnall_ptr=np.zeros(1, np.float32), M=M, N=N, BM=BM, BN=BN),
            ["mx0_ptr", "mn1_ptr", "mxall_ptr", "mnall_ptr"],
            lambda a: {"mx0_ptr": a["x_ptr"].max(0), "mn1_ptr": a["x_ptr"].min(1),
                       "mxall_ptr": [a["x_ptr"].max()], "mnall_ptr": [a["x_ptr"].min()]})
    xl = rng(47).standard_normal((64, 256))
    add(F, "row_groups_sum_f64", K, "sum_axes_kernel", (1,),
        dict(x_ptr=xl, s0_ptr=np.zeros(256), s1_ptr=np.zeros(64), sall_ptr=np.zeros(1), M=64, N=256, BM=64, BN=256),
        ["s0_ptr", "s1_ptr", "sall_ptr"],
        lambda a: {"s0_ptr": a["x_ptr"].sum(0), "s1_ptr": a["x_ptr"].sum(1), "sall_ptr": [a["x_ptr"].sum()]},
        rtol=1e-12, atol=1e-12)
    for dt in (np.float32, np.int32):
        xi = rng(48).integers(-3, 4, (128, 64)).astype(dt)
        xi[3, :] = 2
        xi[:, 5] = 9
        xi[7, 40:] = 9   # ties with the column of 9s: the lowest index wins
        add(F, "row_groups_argmax_ties_%s" % np.dtype(dt).name, K, "indices_kernel", (1,),
            dict(x_ptr=xi, vmax_ptr=np.zeros(128, dt), imax_ptr=np.zeros(128, np.int32),
                 vmin_ptr=np.zeros(128, dt), imin_ptr=np.zeros(128, np.int32),
                 amax_ptr=np.zeros(64, np.int32), amin_ptr=np.zeros(64, np.int32), M=128, N=64),
            ["vmax_ptr", "imax_ptr", "vmin_ptr", "imin_ptr", "amax_ptr", "amin_ptr"],
            lambda a: {"vmax_ptr": a["x_ptr"].max(1), "imax_ptr": a["x_ptr"].argmax(1),
                       "vmin_ptr": a["x_ptr"].min(1), "imin_ptr": a["x_ptr"].argmin(1),
                       "amax_ptr": a["x_ptr"].argmax(0), "amin_ptr": a["x_ptr"].argmin(0)})
    xt = rng(49).integers(0, 4, (64, 128)).astype(np.int32)
    add(F, "row_groups_tuple_combine", K, "reduce_tuple_kernel", (1,),
        dict(x_ptr=xt, val_ptr=np.zeros(64, np.int32), idx_ptr=np.zeros(64, np.int32), M=64, N=128),
        ["val_ptr", "idx_ptr"],
        lambda a: {"val_ptr": a["x_ptr"].max(1), "idx_ptr": 127 - a["x_ptr"][:, ::-1].argmax(1)})
    x3 = rng(50).standard_normal((4, 32, 64)).astype(np.float32)
    add(F, "row_groups_3d", K, "sum_3d_kernel", (1,),
        dict(x_ptr=x3, s2_ptr=np.zeros((4, 32), np.float32), s1_ptr=np.zeros((4, 64), np.float32), A=4, B=32, C=64),
        ["s2_ptr", "s1_ptr"], lambda a: {"s2_ptr": a["x_ptr"].sum(2), "s1_ptr": a["x_ptr"].max(1)},
        rtol=1e-5, atol=1e-5)


def _dealt_rows():
    # Several rows a program reduced along the last axis (nvptx: each thread folds the chunks
    # the nests deal it, so the tile stays in its registers): rows of many chunks per thread
    # (4x1024, 2x4096), rows spanning several warps (2x512 at 8 warps), rows of a few lanes
    # (16x64, 8x128), a tile smaller than the CTA (2x32: threads without a chunk), masked
    # rows and columns, value-and-index reductions, int32 and bool over 3-D tiles.
    F = "reductions"
    K = "reductions/kernels.py"
    for (M, N, BM, BN) in [(10, 1000, 4, 1024), (5, 4000, 2, 4096), (37, 500, 2, 512), (50, 60, 16, 64),
                           (7, 30, 2, 32), (9, 100, 8, 128), (6, 256, 4, 256)]:
        x = rng(60 + M).standard_normal((M, N)).astype(np.float32)
        x[M // 2, N // 3] = x[M // 2, N // 2] = 9.0  # a tie: the lowest index wins

        def ref(a):
            v = a["x_ptr"].astype(np.float64)
            e = np.exp(v - v.max(1, keepdims=True))
            return {"y_ptr": e / e.sum(1, keepdims=True), "s_ptr": e.sum(1), "i_ptr": a["x_ptr"].argmax(1)}
        add(F, "dealt_rows_%dx%d_block%dx%d" % (M, N, BM, BN), K, "dealt_rows_kernel", ((M + BM - 1) // BM,),
            dict(x_ptr=x, y_ptr=np.zeros_like(x), s_ptr=np.zeros(M, np.float32), i_ptr=np.zeros(M, np.int32),
                 n_rows=M, n_cols=N, BM=BM, BN=BN),
            ["y_ptr", "s_ptr", "i_ptr"], ref, rtol=1e-5, atol=1e-6)
    # columns (axis 0): rows of more chunks than threads (each thread's own columns), of
    # fewer (the lanes and warps holding a column combine), and a tile smaller than the CTA
    for (M, N, BM, BN) in [(7, 3000, 8, 1024), (30, 100, 32, 128), (100, 40, 128, 64), (5, 20, 8, 32),
                           (3, 600, 4, 2048), (16, 256, 16, 256)]:
        x = rng(80 + M).standard_normal((M, N)).astype(np.float32)
        x[M // 2, N // 3] = x[0, N // 3] = 9.0  # a tie: the lowest row wins
        nprog = (N + BN - 1) // BN

        def ref(a, M=M, BM=BM, BN=BN, nprog=nprog):
            v = a["x_ptr"].astype(np.float64)
            r = np.zeros((nprog, BM))
            for q in range(nprog):
                r[q, :M] = (v[:, q * BN:(q + 1) * BN] * 2 + 1).sum(1)
            return {"s_ptr": (v * 2 + 1).sum(0), "mx_ptr": a["x_ptr"].max(0), "i_ptr": a["x_ptr"].argmax(0),
                    "r_ptr": r.reshape(-1)}
        add(F, "dealt_cols_%dx%d_block%dx%d" % (M, N, BM, BN), K, "dealt_cols_kernel", (nprog,),
            dict(x_ptr=x, s_ptr=np.zeros(N, np.float32), mx_ptr=np.zeros(N, np.float32), i_ptr=np.zeros(N, np.int32),
                 r_ptr=np.zeros(nprog * BM, np.float32), n_rows=M, n_cols=N, BM=BM, BN=BN),
            ["s_ptr", "mx_ptr", "i_ptr", "r_ptr"], ref, rtol=1e-5, atol=1e-4)
    for (M, N) in [(16, 64), (4, 1024), (64, 32)]:
        xi = rng(90 + N).integers(-9, 8, (M, N)).astype(np.int32)
        add(F, "dealt_cols_int_%dx%d" % (M, N), K, "dealt_cols_int_kernel", (1,),
            dict(x_ptr=xi, s_ptr=np.zeros(N, np.int32), o_ptr=np.zeros(N, np.int32), M=M, N=N),
            ["s_ptr", "o_ptr"],
            lambda a: {"s_ptr": (a["x_ptr"] - 3).sum(0), "o_ptr": (a["x_ptr"] > 6).any(0).astype(np.int32)})
    for (BM, BN) in [(8, 1024), (4, 4096)]:
        xn = rng(95 + BM).standard_normal((BM, BN)).astype(np.float32)
        add(F, "dealt_cols_nested_%dx%d" % (BM, BN), K, "dealt_cols_nested_kernel", (1,),
            dict(x_ptr=xn, c_ptr=np.zeros(BN, np.float32), t_ptr=np.zeros(1, np.float32), BM=BM, BN=BN),
            ["c_ptr", "t_ptr"],
            lambda a: {"c_ptr": 2 * a["x_ptr"].astype(np.float64).sum(0),
                       "t_ptr": [a["x_ptr"].astype(np.float64).sum(0).max()]}, rtol=1e-5, atol=1e-5)
    for (A, B, C) in [(2, 4, 256), (4, 8, 32), (2, 2, 2048)]:
        xi = rng(70 + C).integers(-20, 8, (A, B, C)).astype(np.int32)
        add(F, "dealt_int_3d_%dx%dx%d" % (A, B, C), K, "dealt_int_3d_kernel", (1,),
            dict(x_ptr=xi, s_ptr=np.zeros((A, B), np.int32), mx_ptr=np.zeros((A, B), np.int32),
                 any_ptr=np.zeros((A, B), np.int32), A=A, B=B, C=C),
            ["s_ptr", "mx_ptr", "any_ptr"],
            lambda a: {"s_ptr": (a["x_ptr"] * 3 - 1).sum(2), "mx_ptr": (a["x_ptr"] * 3 - 1).max(2),
                       "any_ptr": (a["x_ptr"] > 5).any(2).astype(np.int32)})


def cases():
    _shared_steps()
    _reductions()
    _reductions_int()
    _past_bound()
    _row_groups()
    _dealt_rows()
