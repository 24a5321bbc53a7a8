"""Cases of the lang family 'ndtiles': N-D tiles, broadcasting, shape ops (its kernels are in
ndtiles/kernels.py)."""
import numpy as np

from harness import add, bf16_bits, compare, diag, rng


def cases():
    F = "ndtiles"
    K = "ndtiles/kernels.py"
    ar = np.arange(16, dtype=np.int32)
    add(F, "slice_none_bounds", K, "slice_none_bounds_kernel", (1,), dict(out_ptr=np.zeros((1, 16), np.int32), XBLOCK=16),
        ["out_ptr"], lambda a: {"out_ptr": (ar + ar * 10 + ar * 100 + 2 * ar * 1000)[None, :]})
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
    add(F, "reshape_column_to_1d", K, "col_reshape_kernel", (1,),
        dict(src_ptr=np.arange(8, dtype=np.float32), out_ptr=np.zeros(8, np.float32), N=8), ["out_ptr"],
        lambda a: {"out_ptr": a["src_ptr"] + 1})

    # Transposes of the last two dims (written in square blocks transposed by vector
    # shuffles on the CPU): every element width, block sides 16 / 8 / 4, a dim too short for
    # a block (2), 3-D tiles; the result stored, doubled and summed over its rows.
    def trans_ref(a):
        s = a["src_ptr"]
        t = np.swapaxes(s, -1, -2)
        return {"out_ptr": t, "twice_ptr": t + t, "rowsum_ptr": t.astype(np.float64).sum(-1)}
    shapes = [(1, 16, 16), (1, 64, 32), (1, 32, 128), (1, 4, 8), (1, 8, 4), (1, 2, 64), (1, 64, 2), (2, 16, 32),
              (4, 8, 4)]
    dts = [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8]
    for n, (B, M, N) in enumerate(shapes):
        for dt in (dts if n < 3 else [np.float32, dts[1 + n % (len(dts) - 1)]]):
            src = rng(100 + n).integers(-40, 40, (B, M, N)).astype(dt)
            shape = (M, N) if B == 1 else (B, M, N)
            src = src.reshape(shape)
            t_shape = shape[:-2] + (N, M)
            add(F, "trans_%s_%s" % ("x".join(map(str, shape)), np.dtype(dt).name), K, "trans_uses_kernel", (1,),
                dict(src_ptr=src, out_ptr=np.zeros(t_shape, dt), twice_ptr=np.zeros(t_shape, dt),
                     rowsum_ptr=np.zeros(t_shape[:-1], np.float32), B=B, M=M, N=N),
                ["out_ptr", "twice_ptr", "rowsum_ptr"], trans_ref, rtol=1e-6)
    for (M, N) in [(16, 16), (32, 64)]:
        bits, vals = bf16_bits(rng(140 + M).integers(-40, 40, (M, N)).astype(np.float32))
        add(F, "trans_%dx%d_bf16" % (M, N), K, "trans_uses_kernel", (1,),
            dict(src_ptr=(bits, "bf16"), out_ptr=(np.zeros((N, M), np.uint16), "bf16"),
                 twice_ptr=(np.zeros((N, M), np.uint16), "bf16"), rowsum_ptr=np.zeros(N, np.float32), B=1, M=M, N=N),
            ["out_ptr", "twice_ptr", "rowsum_ptr"], None,
            check=lambda a, r, vals=vals: (compare("out_ptr", r["out_ptr"].view(np.uint16), bf16_bits(vals.T)[0], 0, 0)
                                           or compare("twice_ptr", r["twice_ptr"].view(np.uint16),
                                                      bf16_bits(2 * vals.T)[0], 0, 0)
                                           or compare("rowsum_ptr", r["rowsum_ptr"], vals.T.sum(-1), 1e-6, 0)))
        s = rng(150 + M).integers(-3, 3, (M, N)).astype(np.int8)
        add(F, "trans_bool_%dx%d" % (M, N), K, "trans_bool_kernel", (1,),
            dict(src_ptr=s, out_ptr=np.zeros((N, M), np.int8), M=M, N=N), ["out_ptr"],
            lambda a: {"out_ptr": (a["src_ptr"].T > 0).astype(np.int8)})
    at = rng(160).integers(-8, 8, (32, 64)).astype(np.float32)
    bm = rng(161).integers(-8, 8, (32, 16)).astype(np.float32)
    add(F, "dot_trans_a", K, "dot_trans_a_kernel", (1,),
        dict(at_ptr=at, b_ptr=bm, c_ptr=np.zeros((64, 16), np.float32), M=64, N=16, K=32), ["c_ptr"],
        lambda a: {"c_ptr": a["at_ptr"].T @ a["b_ptr"] + a["at_ptr"].T.sum(1)[:, None]})
    s = rng(170).integers(-50, 50, (32, 16)).astype(np.float32)
    refs = [lambda x: np.where(np.arange(32)[:, None] < 20, x, -1.0).T, lambda x: (x * 2 + 1).T,
            lambda x: x.T + x.sum(0)[:, None], lambda x: x.T]
    for form, ref in enumerate(refs):
        add(F, "trans_source_form%d" % form, K, "trans_sources_kernel", (1,),
            dict(src_ptr=s.copy(), out_ptr=np.zeros((16, 32), np.float32), n_rows=20, M=32, N=16, FORM=form),
            ["out_ptr"], lambda a, ref=ref, s=s: {"out_ptr": ref(s)})
    # tiles above rank 4: Triton's test_chained_reductions at half its shapes (32768 fp32
    # elements loaded and permuted take 256 KiB of a CTA's shared memory on nvptx), rank 6, 9-D
    for shape, perm, red in [((4, 32, 16, 4, 2), (2, 1, 0, 3, 4), (3, 1, 0)),
                             ((8, 2, 16, 4, 16), (4, 0, 1, 3, 2), (0, 2, 0))]:
        src = rng(180 + shape[0]).integers(-20, 20, int(np.prod(shape))).astype(np.float32)

        def chain_ref(a, shape=shape, perm=perm, red=red):
            v = a["in_ptr"].reshape(shape).transpose(perm)
            for r in red:
                v = v.sum(axis=r)
            return {"out_ptr": v}
        out_shape = chain_ref({"in_ptr": src})["out_ptr"].shape
        params = dict(("D%d" % i, s) for i, s in enumerate(shape))
        params.update(("P%d" % i, p) for i, p in enumerate(perm))
        params.update(("R%d" % i, r) for i, r in enumerate(red))
        add(F, "chained_reduce5d_%s" % "x".join(map(str, shape)), K, "chained_reduce5d_kernel", (1,),
            dict(in_ptr=src, out_ptr=np.zeros(out_shape, np.float32), **params), ["out_ptr"], chain_ref)
    for n in (256, 200):
        x6 = rng(190 + n).standard_normal(256).astype(np.float32)

        def bcast_ref(a, n=n):
            x = np.where(np.arange(256) < n, a["x_ptr"], -1.0).astype(np.float32).reshape(2, 4, 2, 2, 8)
            y = x[:, :, None]
            m = y.max(axis=5, keepdims=True)
            z = np.where(y > 0, y * 2 + m, m - y)
            return {"out_ptr": z.reshape(256), "mx_ptr": x.max(axis=4).max(axis=0).reshape(16)}
        add(F, "bcast6d_n%d" % n, K, "bcast6d_kernel", (1,),
            dict(x_ptr=x6, out_ptr=np.zeros(256, np.float32), mx_ptr=np.zeros(16, np.float32), n=n),
            ["out_ptr", "mx_ptr"], bcast_ref, rtol=1e-6)
    x9 = rng(200).integers(-1000, 1000, 1024).astype(np.int32)
    add(F, "reshape9d_permute_sum", K, "reshape9d_kernel", (1,),
        dict(x_ptr=x9, t_ptr=np.zeros(1024, np.int32), s_ptr=np.zeros(512, np.int32), N=1024), ["t_ptr", "s_ptr"],
        lambda a: {"t_ptr": a["x_ptr"].reshape(2, 2, 2, 2, 2, 2, 2, 2, 4).transpose().ravel(),
                   "s_ptr": a["x_ptr"].reshape(2, 2, 2, 2, 2, 2, 2, 2, 4).sum(axis=3).ravel().astype(np.int32)})
    for how, line in enumerate(["y = x[None, :]", "y = tl.join(x, x)", "y = tl.expand_dims(x, 0)"]):
        diag(F, "diag_rank17_%d" % how, K, "rank17_kernel", "*fp32, %d" % how,
             expect=("tiles of rank > 16 are not supported",), line=line)
