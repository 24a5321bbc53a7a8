"""Cases of the lang family 'pointers': block pointers, tensor descriptors, hints, int64 <->
pointer casts (its kernels are in pointers/kernels.py)."""
import numpy as np

from harness import add, rng, compare, target


def cases():
    # fp32 tl.dot defaults to tf32 on nvptx (Triton on NVIDIA): operands rounded to 10 mantissa bits
    tol = 1e-2 if target().startswith("nvptx") else 1e-4
    F = "pointers"
    K = "pointers/kernels.py"
    for (M, N, Kd, BM, BN, BK) in [(37, 50, 29, 16, 16, 8), (16, 16, 16, 16, 16, 16), (5, 70, 100, 8, 32, 32)]:
        r = rng(230 + M)
        a = r.standard_normal((M, Kd + 3)).astype(np.float32)
        b = r.standard_normal((Kd, N + 1)).astype(np.float32)
        c = np.full((M, N + 2), 4.0, np.float32)

        def ref(args, N=N, Kd=Kd):
            e = args["c_ptr"].astype(np.float64).copy()
            e[:, :N] = args["a_ptr"][:, :Kd].astype(np.float64) @ args["b_ptr"][:, :N]
            return {"c_ptr": e}
        add(F, "block_ptr_matmul_%dx%dx%d" % (M, N, Kd), K, "block_ptr_matmul_kernel",
            ((M + BM - 1) // BM, (N + BN - 1) // BN),
            dict(a_ptr=a, b_ptr=b, c_ptr=c, M=M, N=N, K=Kd, lda=Kd + 3, ldb=N + 1, ldc=N + 2, BM=BM, BN=BN, BK=BK),
            ["c_ptr"], ref, rtol=tol, atol=tol)
    M, N = 7, 13
    x = rng(240).standard_normal((M, N)).astype(np.float32)
    for (r0, c0) in [(0, 0), (4, 8), (-2, 5)]:
        def nan_ref(a, r0=r0, c0=c0, M=M, N=N):
            e = np.full((16, 8), np.nan)
            for j in range(16):          # out[j, i] = x[r0 + i, c0 + j]
                for i in range(8):
                    if 0 <= r0 + i < M and 0 <= c0 + j < N:
                        e[j, i] = a["x_ptr"][r0 + i, c0 + j]
            return {"out_ptr": e}
        add(F, "block_ptr_colmajor_nan_pad_%d_%d" % (r0, c0), K, "block_ptr_nan_kernel", (1,),
            dict(x_ptr=x, out_ptr=np.zeros((16, 8), np.float32), M=M, N=N, r0=r0, c0=c0, BM=8, BN=16),
            ["out_ptr"], nan_ref)
    xr = rng(241).integers(-100, 100, (5, 37)).astype(np.int32)
    add(F, "block_ptr_check_dim1_only", K, "block_ptr_rows_kernel", (5,),
        dict(x_ptr=xr, out_ptr=np.zeros_like(xr), M=5, N=37, BN=16), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] * 3})
    for (M, N, BM, BN) in [(37, 50, 16, 32), (8, 16, 8, 16)]:
        xt = rng(242 + M).standard_normal((M, N)).astype(np.float32)
        tm, tn = (M + BM - 1) // BM, (N + BN - 1) // BN

        def td_ref(a, M=M, N=N, tm=tm, tn=tn, BM=BM, BN=BN):
            raw = np.zeros((tm * BM, tn * BN))
            raw[:M, :N] = a["x_ptr"]
            return {"y_ptr": a["x_ptr"] * 2.0 - 1.0, "raw_ptr": raw}
        add(F, "tensor_descriptor_tiles_%dx%d" % (M, N), K, "tensor_desc_tiles_kernel", (tm, tn),
            dict(x_ptr=xt, y_ptr=np.zeros_like(xt), raw_ptr=np.full((tm * BM, tn * BN), 8.0, np.float32), M=M, N=N,
                 BM=BM, BN=BN), ["y_ptr", "raw_ptr"], td_ref, rtol=1e-6)
    xh = rng(243).standard_normal(203).astype(np.float32)

    def hints_ref(a, n=203):
        x = a["x_ptr"]
        q = np.arange(len(a["z_ptr"])) // 4
        z = a["z_ptr"].copy()
        z[:n] = np.where(q[:n] < n, x[np.minimum(q[:n], n - 1)], 0)
        y = a["y_ptr"].copy()
        y[:n] = x[:n] + 1
        return {"y_ptr": y, "z_ptr": z}
    for dt, n, block in (("float16", 72, 32), ("float32", 40, 64), ("float32", 24, 16), ("int32", 100, 128)):
        guard = 64
        xw = (rng(170 + n).standard_normal(n + guard) * 8).astype(dt)

        def wrapped_ref(a, n=n):
            y = a["y_ptr"].copy()
            y[:n] = a["x_ptr"][:n] * 2 + 1
            return {"y_ptr": y}
        add(F, "wrapped_contiguity_hint_%s_n%d_b%d" % (dt, n, block), K, "wrapped_hint_kernel",
            ((n + block - 1) // block,), dict(x_ptr=xw, y_ptr=np.full(n + guard, -7, dt), n=n, BLOCK=block),
            ["y_ptr"], wrapped_ref, rtol=0, atol=0)
    for n, t, block in ((20, 3, 32), (24, 17, 16), (7, 0, 64)):
        rr = np.arange(((64 + block - 1) // block) * block)
        add(F, "wrapped_contiguity_hint_compare_n%d_t%d_b%d" % (n, t, block), K, "wrapped_hint_compare_kernel",
            (len(rr) // block,), dict(out_ptr=np.zeros(len(rr), np.int32), n=n, t=t, BLOCK=block), ["out_ptr"],
            lambda a, rr=rr, n=n, t=t: {"out_ptr": ((rr % n == t).astype(np.int32) +
                                                    (rr % n != t + 1).astype(np.int32) * 2)})
    kb, nb = 8, 40
    bw = rng(175).standard_normal((kb, nb + 24)).astype(np.float32)
    add(F, "wrapped_contiguity_hint_2d_columns", K, "wrapped_hint_2d_kernel", (2,),
        dict(b_ptr=bw, out_ptr=np.zeros(nb + 24, np.float32), K=kb, N=nb, stride_bk=nb + 24, BN=32, BK=8), ["out_ptr"],
        lambda a: {"out_ptr": np.concatenate([a["b_ptr"][:, :nb].astype(np.float64).sum(0), np.zeros(24)])},
        rtol=1e-5, atol=1e-5)
    add(F, "hints_multiple_of_contiguous_constancy_assume", K, "hints_kernel", (4,),
        dict(x_ptr=xh, y_ptr=np.full(206, 2.0, np.float32), z_ptr=np.full(206, 2.0, np.float32), n=203, BLOCK=64),
        ["y_ptr", "z_ptr"], hints_ref)

    def ptr_int_check(a, res):
        if res["align_ptr"][0] != 0:
            return "address %% 4 = %d" % res["align_ptr"][0]
        m = compare("diff_ptr", res["diff_ptr"], np.arange(16) * 4, 0, 0)
        m = m or compare("y_ptr", res["y_ptr"], a["x_ptr"][::-1], 0, 0)
        return m or compare("z_ptr", res["z_ptr"], a["hsrc_ptr"].astype(np.float32), 0, 0)
    add(F, "ptr_int64_casts", K, "ptr_int_kernel", (1,),
        dict(x_ptr=rng(244).standard_normal(16).astype(np.float32), hsrc_ptr=rng(245).standard_normal(16).astype(np.float16),
             slot_ptr=np.zeros(1, np.int64), diff_ptr=np.zeros(16, np.int64), y_ptr=np.zeros(16, np.float32),
             z_ptr=np.zeros(16, np.float32), align_ptr=np.full(1, 9, np.int32), BLOCK=16),
        ["diff_ptr", "y_ptr", "z_ptr", "align_ptr"], check=ptr_int_check)
    zc = rng(246).standard_normal((8, 64)).astype(np.float32)
    xc = rng(247).standard_normal((8, 64)).astype(np.float32)
    add(F, "load_before_store_broadcast_column", K, "add_first_column_inplace_kernel", (1,),
        dict(z_ptr=zc, x_ptr=xc, stride=64, BM=8, BN=64), ["z_ptr"],
        lambda a, z=zc.copy(), x=xc: {"z_ptr": x + z[:, :1]})
    xs = rng(248).standard_normal(65).astype(np.float32)
    add(F, "load_before_store_shifted_inplace", K, "shift_right_inplace_kernel", (1,),
        dict(x_ptr=xs, BLOCK=64), ["x_ptr"],
        lambda a, x=xs.copy(): {"x_ptr": np.concatenate([x[:1], x[:-1] * 2 + x[1:]])})
    wa = rng(249).standard_normal(32).astype(np.float32)
    wb = rng(250).standard_normal(32).astype(np.float32)
    # any integers, not multiples of the element size: the values must come back unchanged
    aa = rng(251).integers(0, 2**40, 32).astype(np.int64)
    ab = rng(252).integers(0, 2**40, 32).astype(np.int64)
    wc = rng(253).integers(0, 2, 32).astype(np.int32)
    add(F, "where_on_pointer_tiles", K, "where_pointers_kernel", (1,),
        dict(a_ptr=wa, b_ptr=wb, out_ptr=np.zeros(32, np.float32), addr_a_ptr=aa, addr_b_ptr=ab, cond_ptr=wc,
             addr_out_ptr=np.zeros(32, np.int64), BLOCK=32), ["out_ptr", "addr_out_ptr"],
        lambda a: {"out_ptr": np.where(np.arange(32) % 3 == 0, wa, wb), "addr_out_ptr": np.where(wc != 0, aa, ab)})
    xq = np.arange(50, dtype=np.float32)
    for skip in (0, 1, 2):      # 1 is specialized by value like Triton's ":1", so it folds
        s0 = 16 if skip > 0 else 0
        pad = np.concatenate([xq, np.zeros(100, np.float32)])
        add(F, "block_ptr_advance_in_runtime_if_%d" % skip, K, "block_ptr_if_kernel", (1,),
            dict(x_ptr=xq, out_ptr=np.zeros(16, np.float32), N=50, skip=skip, BN=16), ["out_ptr"],
            lambda a, e=pad[s0:s0 + 16] + pad[s0 + 16:s0 + 32] + pad[s0 + 32:s0 + 48]: {"out_ptr": e})
    # the older checks (were XFAIL placeholders in "pending")
    xb = rng(144).standard_normal((7, 33)).astype(np.float32)
    add(F, "make_block_ptr_advance", "pointers/kernels.py", "block_ptr_kernel", (1,),
        dict(x_ptr=xb, out_ptr=np.zeros_like(xb), M=7, N=33, BM=8, BN=16), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] + 1})
    xt = rng(145).standard_normal((8, 16)).astype(np.float32)
    add(F, "tensor_descriptor", "pointers/kernels.py", "tensor_desc_kernel", (1,),
        dict(x_ptr=xt, out_ptr=np.zeros_like(xt), M=8, N=16, BM=8, BN=16), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] * 2})

    # A scalar store and a tile store into one buffer (pointers/kernels.py): the scalar at
    # soff from each program's base, the tile at 8..8+n (BLOCK lanes span 8..8+BLOCK).
    def aliased_ref(scalar_first, n, soff, BLOCK, progs):
        def ref(a):
            buf, x = a["buf_ptr"].copy(), a["x_ptr"].reshape(progs, BLOCK)
            for p in range(progs):
                row = buf[p * (BLOCK + 16):(p + 1) * (BLOCK + 16)]
                s = np.float32(x[p, :n].astype(np.float64).sum()) if scalar_first else np.float32(p * 3 + 1)
                if scalar_first:
                    row[soff] = s
                row[8:8 + n] = x[p, :n] * np.float32(2)
                if not scalar_first:
                    row[soff] = s
            return {"buf_ptr": buf}
        return ref

    for BLOCK, n in [(1024, 1024), (1024, 1000), (4096, 4096)]:
        progs = 24
        xs = rng(2100 + n).integers(-8, 9, progs * BLOCK).astype(np.float32)
        for soff in sorted({7, 8, 8 + 5, 8 + n - 1, 8 + BLOCK - 1, 8 + BLOCK}):
            for first in (True, False):
                kname = "scalar_then_tile_kernel" if first else "tile_then_scalar_kernel"
                add(F, "%s_b%d_n%d_off%d" % (kname[:-7], BLOCK, n, soff), K, kname, (progs,),
                    dict(buf_ptr=np.full(progs * (BLOCK + 16), -1, np.float32), x_ptr=xs, soff=soff, n=n,
                         BLOCK=BLOCK), ["buf_ptr"], aliased_ref(first, n, soff, BLOCK, progs))
