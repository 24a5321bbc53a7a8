"""Cases of the lang family 'scans': cumsum / cumprod / associative_scan, gather, histogram, flip
(its kernels are in scans/kernels.py)."""
import numpy as np

from harness import add, rng


def cases():
    F = "scans"
    K = "scans/kernels.py"
    for dt in (np.int32, np.float32):
        x = rng(200).integers(-9, 10, (4, 16)).astype(dt)
        add(F, "cumsum_axes_reverse_%s" % np.dtype(dt).name, K, "cumsum2d_kernel", (1,),
            dict(x_ptr=x, c0_ptr=np.zeros_like(x), c1_ptr=np.zeros_like(x), r0_ptr=np.zeros_like(x),
                 r1_ptr=np.zeros_like(x), M=4, N=16),
            ["c0_ptr", "c1_ptr", "r0_ptr", "r1_ptr"],
            lambda a: {"c0_ptr": np.cumsum(a["x_ptr"], 0), "c1_ptr": np.cumsum(a["x_ptr"], 1),
                       "r0_ptr": np.cumsum(a["x_ptr"][::-1], 0)[::-1],
                       "r1_ptr": np.cumsum(a["x_ptr"][:, ::-1], 1)[:, ::-1]})
    # Many short rows (nvptx: scanned T / G at a time, a row per group of G lanes; the 4-row
    # cases above leave most groups past the last row)
    for (M, N, dt) in ((128, 64, np.int32), (8, 64, np.float32), (64, 16, np.int32)):
        x = rng(210 + M).integers(-9, 10, (M, N)).astype(dt)
        add(F, "cumsum_axes_reverse_rows_%dx%d_%s" % (M, N, np.dtype(dt).name), K, "cumsum2d_kernel", (1,),
            dict(x_ptr=x, c0_ptr=np.zeros_like(x), c1_ptr=np.zeros_like(x), r0_ptr=np.zeros_like(x),
                 r1_ptr=np.zeros_like(x), M=M, N=N),
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
        # a row per lane group (nvptx), the combine not commutative: each group's shuffles
        # must stop at its first lane
        rmA = rng(207).uniform(0.5, 1.0, (32, 64)).astype(np.float32)
        rmB = rng(208).standard_normal((32, 64)).astype(np.float32)
        add(F, "assoc_scan_tuple_linear_recurrence_rows%s" % ("_reverse" if rev else ""), K,
            "linear_recurrence_kernel", (1,),
            dict(a_ptr=rmA, b_ptr=rmB, h_ptr=np.zeros_like(rmA), hr_ptr=np.zeros_like(rmA), M=32, N=64), [out],
            lambda a, rev=rev, out=out: {out: recur(a["a_ptr"][:, ::-1], a["b_ptr"][:, ::-1])[:, ::-1] if rev
                                         else recur(a["a_ptr"], a["b_ptr"])}, rtol=1e-4, atol=1e-4)
    # long rows: on nvptx each thread scans a run of several chunks and the runs' carries
    # cross warps through shared memory; the combine is not commutative
    la, lb = rng(230).uniform(0.5, 1.0, (2, 2048)).astype(np.float32), rng(231).standard_normal((2, 2048)).astype(np.float32)
    for rev in (False, True):
        out = "hr_ptr" if rev else "h_ptr"
        add(F, "assoc_scan_tuple_linear_recurrence_long%s" % ("_reverse" if rev else ""), K, "linear_recurrence_kernel",
            (1,), dict(a_ptr=la, b_ptr=lb, h_ptr=np.zeros_like(la), hr_ptr=np.zeros_like(la), M=2, N=2048), [out],
            lambda a, rev=rev, out=out: {out: recur(a["a_ptr"][:, ::-1], a["b_ptr"][:, ::-1])[:, ::-1] if rev
                                         else recur(a["a_ptr"], a["b_ptr"])}, rtol=1e-4, atol=1e-4)
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
    xsl = rng(143).integers(-2 ** 40, 2 ** 40, 4096)
    add(F, "cumsum_associative_scan_reverse_long_i64", "scans/kernels.py", "cumsum_kernel", (1,),
        dict(x_ptr=xsl, c_ptr=np.zeros(4096, np.int64), r_ptr=np.zeros(4096, np.int64), N=4096), ["c_ptr", "r_ptr"],
        lambda a: {"c_ptr": np.cumsum(a["x_ptr"]), "r_ptr": np.cumsum(a["x_ptr"][::-1])[::-1]})
    add(F, "cumsum_associative_scan_reverse", "scans/kernels.py", "cumsum_kernel", (1,),
        dict(x_ptr=xs, c_ptr=np.zeros(64, np.int32), r_ptr=np.zeros(64, np.int32), N=64), ["c_ptr", "r_ptr"],
        lambda a: {"c_ptr": np.cumsum(a["x_ptr"]), "r_ptr": np.cumsum(a["x_ptr"][::-1])[::-1]})
    xh = rng(142).integers(0, 16, 64).astype(np.int32)
    add(F, "histogram", "scans/kernels.py", "histogram_kernel", (1,), dict(x_ptr=xh, out_ptr=np.zeros(16, np.int32), N=64, BINS=16),
        ["out_ptr"], lambda a: {"out_ptr": np.bincount(a["x_ptr"], minlength=16)})
    idx = rng(143).integers(0, 64, 64).astype(np.int32)
    add(F, "gather", "scans/kernels.py", "gather_kernel", (1,),
        dict(x_ptr=xs, idx_ptr=idx, out_ptr=np.zeros(64, np.int32), N=64), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"][a["idx_ptr"]]})
    add(F, "flip", "scans/kernels.py", "flip_kernel", (1,), dict(x_ptr=xs, out_ptr=np.zeros(64, np.int32), N=64), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"][::-1]})
    lane_move_index_cases(F, K)


def lane_move_index_cases(F, K):
    """Index tiles from lane-moving ops, loads through them used several times (issue 33);
    tests/lang/property/lane_moves.py composes such ops at random."""
    names = ["sort", "cumsum", "flip", "gather", "assoc_scan_reverse", "reshape_trans", "sort_descending"]
    for n in (16, 64):
        for form, nm in enumerate(names):
            for zero in (False, True):
                x = rng(240 + n).integers(0, n, n).astype(np.int32)
                if form == 1:  # prefix sums that stay inside the table
                    x = rng(241 + n).integers(0, 2, n).astype(np.int32)
                tab = rng(242 + n).standard_normal(n).astype(np.float32)

                def ref(a, form=form, zero=zero, n=n):
                    x = a["x_ptr"]
                    o = np.arange(n)
                    s = [np.sort(x), np.cumsum(x), x[::-1], x[(o * 5 + 3) & (n - 1)],
                         np.maximum.accumulate(x[::-1])[::-1], x.reshape(4, n // 4).T.reshape(n),
                         np.sort(x)[::-1]][form]
                    p = a["tab_ptr"][o if zero else s]
                    return {"a_ptr": p, "b_ptr": p + 1}
                add(F, "index_from_%s%s_used_twice_%d" % (nm, "_times_zero" if zero else "", n), K,
                    "index_from_lane_move_kernel", (1,),
                    dict(x_ptr=x, tab_ptr=tab, a_ptr=np.zeros(n, np.float32), b_ptr=np.zeros(n, np.float32), N=n,
                         FORM=form, ZERO=zero), ["a_ptr", "b_ptr"], ref, rtol=1e-6)
    for n in (16, 256):
        ex = rng(250 + n).integers(0, 8, n).astype(np.int32)
        tab = rng(251 + n).standard_normal(n).astype(np.float32)

        def moe_ref(a, n=n):
            kv = np.sort(((a["expert_ptr"].astype(np.uint32) << 16) | np.arange(n, dtype=np.uint32)))
            w = a["tab_ptr"][(kv & 0xFFFF).astype(np.int64)]
            return {"a_ptr": w, "b_ptr": w * 2, "e_ptr": (kv >> 16).astype(np.int32)}
        add(F, "moe_sort_key_gather_twice_%d" % n, K, "moe_sort_key_kernel", (1,),
            dict(expert_ptr=ex, tab_ptr=tab, a_ptr=np.zeros(n, np.float32), b_ptr=np.zeros(n, np.float32),
                 e_ptr=np.zeros(n, np.int32), N=n), ["a_ptr", "b_ptr", "e_ptr"], moe_ref)
    xp = rng(252).permutation(32).astype(np.int32)
    tp = rng(253).integers(-100, 100, 32).astype(np.int32)

    def many_ref(a):
        s = np.sort(a["x_ptr"])
        p = a["tab_ptr"][s]
        b = np.zeros(32, np.int32)
        b[s] = p
        return {"a_ptr": p + s, "b_ptr": b, "c_ptr": p.sum(dtype=np.int32) + s}
    add(F, "sorted_index_address_and_value", K, "sorted_index_many_uses_kernel", (1,),
        dict(x_ptr=xp, tab_ptr=tp, a_ptr=np.zeros(32, np.int32), b_ptr=np.zeros(32, np.int32),
             c_ptr=np.zeros(32, np.int32), N=32), ["a_ptr", "b_ptr", "c_ptr"], many_ref)
    for R, C in ((4, 8), (16, 16)):
        xt = rng(254).integers(0, R * C, C * R).astype(np.int32)
        tt = rng(255).integers(-1000, 1000, R * C).astype(np.int32)

        def trans_ref(a, R=R, C=C):
            t = a["x_ptr"].reshape(C, R).T.reshape(R, C)
            p = a["tab_ptr"][t]
            return {"a_ptr": p.reshape(-1), "b_ptr": (p - t).reshape(-1)}
        add(F, "trans_index_used_twice_%dx%d" % (R, C), K, "trans_index_twice_kernel", (1,),
            dict(x_ptr=xt, tab_ptr=tt, a_ptr=np.zeros(R * C, np.int32), b_ptr=np.zeros(R * C, np.int32), R=R, C=C),
            ["a_ptr", "b_ptr"], trans_ref)
    for T in (1, 2, 3):
        xg = rng(256).integers(-100, 100, 32).astype(np.int32)
        ig = rng(257).integers(0, 32, 32).astype(np.int32)

        def loop_ref(a, T=T):
            v = a["x_ptr"]
            for _ in range(T):
                v = v[a["i_ptr"]]
            return {"o_ptr": v}
        add(F, "gather_loop_carried_%d_trips" % T, K, "gather_loop_carried_kernel", (1,),
            dict(x_ptr=xg, i_ptr=ig, o_ptr=np.zeros(32, np.int32), N=32, T=T), ["o_ptr"], loop_ref)
    for first in (True, False):
        for n in (16, 128):
            xo = rng(260 + n).integers(-50, 50, n).astype(np.int32)
            pp = rng(261 + n).permutation(n).astype(np.int32)

            def scatter_ref(a, first=first, n=n):
                x = a["x_ptr"]
                p = a["p_ptr"][::-1]
                o = np.full(n, -7, np.int32)
                o[(x & 3) != 1] = p[(x & 3) != 1]
                return {"x_ptr": x + 1 if first else np.arange(n), "o_ptr": o}
            add(F, "scatter_%s_store_same_array_%d" % ("before" if first else "after", n), K, "scatter_and_store_kernel",
                (1,), dict(x_ptr=xo, p_ptr=pp, o_ptr=np.full(n, -7, np.int32), N=n, SCATTER_FIRST=first),
                ["x_ptr", "o_ptr"], scatter_ref)
    for C in (1, 2, 4, 8, 16, 32, 128):
        xs = rng(258 + C).standard_normal((4, C)).astype(np.float32)
        xs[0, :: 3] = 0.5  # ties
        add(F, "sort_rows_%d" % C, K, "sort_rows_kernel", (1,),
            dict(x_ptr=xs, a_ptr=np.zeros_like(xs), d_ptr=np.zeros_like(xs), R=4, C=C),
            ["a_ptr", "d_ptr"], lambda a: {"a_ptr": np.sort(a["x_ptr"], 1), "d_ptr": np.sort(a["x_ptr"], 1)[:, ::-1]})

    # tl.bitonic_merge: bitonic rows sorted; any row through the same network of half-cleaners
    def merge_network(x, desc):
        x = x.copy()
        n = x.shape[-1]
        half = n // 2
        while half >= 1:
            for i in range(n):
                if i & half:
                    continue
                a, b = x[..., i].copy(), x[..., i + half].copy()
                if desc:
                    x[..., i], x[..., i + half] = np.where(a > b, a, b), np.where(b > a, a, b)
                else:
                    x[..., i], x[..., i + half] = np.where(a > b, b, a), np.where(b > a, b, a)
            half //= 2
        return x
    for R, N, desc, dt, bitonic in [(4, 16, 0, np.float32, True), (2, 64, 1, np.int32, True),
                                    (8, 8, 0, np.int32, False), (1, 2, 1, np.float16, False),
                                    (1, 1, 0, np.float32, True)]:
        r = rng(3100 + N).permutation(R * N * 4)[:R * N].reshape(R, N).astype(dt)
        if bitonic:  # ascending then descending halves: the network sorts them (the reference's own check)
            r = np.concatenate([np.sort(r[:, :N // 2], 1), -np.sort(-r[:, N // 2:], 1)], 1) if N > 1 else r
            want = np.sort(r, 1)
            assert (merge_network(r, desc) == (want[:, ::-1] if desc else want)).all()
        add(F, "bitonic_merge_%dx%d_%s_%s%s" % (R, N, np.dtype(dt).name, "desc" if desc else "asc",
                                                "" if bitonic else "_any"), K, "bitonic_merge_kernel", (1,),
            dict(x_ptr=r, out_ptr=np.zeros_like(r), R=R, N=N, DESC=desc), ["out_ptr"],
            lambda a, desc=desc: {"out_ptr": merge_network(a["x_ptr"], desc)})
