"""Cases of the lang family 'tutorials': layer norm backward, extern asin, grouped GEMM, persistent
matmul (its kernels are in tutorials/kernels.py)."""
import numpy as np

from harness import add, func, rng, compare, run_kernel, target


def _ln_bwd_ref(x, dy, w, eps=1e-5):
    x = x.astype(np.float64)
    dy = dy.astype(np.float64)
    mu = x.mean(1)
    rs = 1 / np.sqrt(((x - mu[:, None]) ** 2).mean(1) + eps)
    xhat = (x - mu[:, None]) * rs[:, None]
    gw = dy * w
    dx = rs[:, None] * (gw - xhat * (xhat * gw).mean(1, keepdims=True) - gw.mean(1, keepdims=True))
    return mu, rs, xhat, dx


def _ln_bwd(M, N, G, BLOCK, dt, threads, seed):
    """Layer norm backward as two launches: dx + partial dw/db under per-group spin locks,
    then the reduction of the partial rows."""
    r = rng(seed)
    x = (r.standard_normal((M, N)) * 1.5 + 0.3).astype(dt)
    dy = r.standard_normal((M, N)).astype(dt)
    w = r.standard_normal(N).astype(np.float32)
    mu, rs, xhat, dx = _ln_bwd_ref(x, dy, w)
    tol = 2e-3 if dt == np.float16 else 1e-4
    args = dict(x_ptr=x, dy_ptr=dy, w_ptr=w, mean_ptr=mu.astype(np.float32), rstd_ptr=rs.astype(np.float32),
                dx_ptr=np.zeros((M, N), dt), pdw_ptr=np.full((G, N), 123.0, np.float32),
                pdb_ptr=np.full((G, N), -55.0, np.float32), lock_ptr=np.zeros(G, np.int32),
                seen_ptr=np.zeros(G, np.int32), stride=N, N=N, GROUPS=G, BLOCK=BLOCK)
    rc, out, err, res = run_kernel("tutorials/kernels.py", "ln_bwd_dx_kernel", (M,), args,
                                   ["dx_ptr", "pdw_ptr", "pdb_ptr", "lock_ptr", "seen_ptr"],
                                   timeout=60, extra=["--threads", str(threads)])
    if rc != 0:
        return "dx kernel: tilec exited with %s: %s" % (rc, (err.strip().splitlines() or [""])[0])
    m = compare("dx_ptr", res["dx_ptr"], dx, tol, tol)
    if m:
        return m
    dyf = dy.astype(np.float64)
    pdw = np.zeros((G, N))
    pdb = np.zeros((G, N))
    for row in range(M):
        pdw[row % G] += dyf[row] * xhat[row]
        pdb[row % G] += dyf[row]
    used = np.arange(G) < M
    if (res["lock_ptr"] != 0).any():
        return "locks not released: %s" % res["lock_ptr"]
    m = compare("seen_ptr", res["seen_ptr"], used.astype(np.int32), 0, 0)
    if m:
        return m
    # rows of groups without any program keep their initial contents
    pdw[~used] = 123.0
    pdb[~used] = -55.0
    # The partial rows add M/G fp32 terms in whatever order the programs take the lock, so
    # their rounding grows with M/G; a lost update is off by a whole row's term (~1).
    acc_tol = max(tol, 2e-6 * M / G)
    for name, exp in (("pdw_ptr", pdw), ("pdb_ptr", pdb)):
        m = compare(name, res[name], exp, acc_tol, acc_tol)
        if m:
            return m + " (lost update under the lock?)"
    BN = 32
    args2 = dict(pdw_ptr=res["pdw_ptr"], pdb_ptr=res["pdb_ptr"], dw_ptr=np.zeros(N, np.float32),
                 db_ptr=np.zeros(N, np.float32), GROUPS=G, N=N, BM=8, BN=BN)
    rc, out, err, res2 = run_kernel("tutorials/kernels.py", "ln_bwd_dwdb_kernel", ((N + BN - 1) // BN,), args2,
                                    ["dw_ptr", "db_ptr"])
    if rc != 0:
        return "dwdb kernel: tilec exited with %s: %s" % (rc, (err.strip().splitlines() or [""])[0])
    # (unused groups add their initial contents, as the kernel does not know they are unused)
    m = compare("dw_ptr", res2["dw_ptr"], pdw.sum(0), acc_tol, acc_tol)
    return m or compare("db_ptr", res2["db_ptr"], pdb.sum(0), acc_tol, acc_tol)


def _grouped_problems(dt, seed, byte_offsets):
    """One buffer holding A, B, C of every problem (packed back to back at odd offsets),
    the offset table (elements or bytes), the (M, N, K) and leading-dimension tables and
    the expected buffer after the kernel."""
    probs = [(33, 17, 40, 3), (8, 64, 16, 0), (70, 5, 23, 1), (1, 1, 1, 0), (16, 48, 9, 2)]
    r = rng(seed)
    chunks, offs, dims, lds = [], [], [], []
    pos = 0
    exp_chunks = []
    for (m, n, k, pad) in probs:
        a = (r.standard_normal((m, k + pad)) * 0.5).astype(dt)
        b = (r.standard_normal((k, n + pad)) * 0.5).astype(dt)
        c = np.full((m, n + pad), 7.0, dt)
        ce = c.astype(np.float64)
        ce[:, :n] = a[:, :k].astype(np.float64) @ b[:, :n].astype(np.float64)
        for arr, e in ((a, a), (b, b), (c, ce)):
            offs.append(pos)
            chunks.append(arr.ravel())
            exp_chunks.append(np.asarray(e, np.float64).ravel())
            pos += arr.size
        dims += [m, n, k]
        lds += [k + pad, n + pad, n + pad]
    buf = np.concatenate(chunks)
    tiles = sum(((m + 15) // 16) * ((n + 15) // 16) for (m, n, k, p) in probs)
    scale = np.dtype(dt).itemsize if byte_offsets else 1
    return (buf, np.array(offs, np.int64) * scale, np.array(dims, np.int32), np.array(lds, np.int32),
            np.concatenate(exp_chunks), len(probs), tiles)


def cases():
    # fp32 tl.dot defaults to tf32 on nvptx (Triton on NVIDIA): operands rounded to 10 mantissa bits
    tol = 1e-2 if target().startswith("nvptx") else 1e-4
    F = "tutorials"
    K = "tutorials/kernels.py"
    for (M, N, G, B, dt, th) in [(37, 100, 4, 128, np.float32, 4), (200, 33, 8, 64, np.float32, 4),
                                 (64, 77, 16, 128, np.float16, 3), (3, 100, 8, 128, np.float32, 2),
                                 # long critical sections: without the lock this loses updates
                                 (3000, 1000, 2, 1024, np.float32, 2)]:
        func(F, "ln_bwd_%dx%d_g%d_%s" % (M, N, G, np.dtype(dt).name),
             lambda M=M, N=N, G=G, B=B, dt=dt, th=th: _ln_bwd(M, N, G, B, dt, th, 150 + M))

    # 07: libdevice.asin on a masked vector; the tail beyond n holds out-of-domain values
    # that must neither be computed into y nor overwrite its sentinel
    for dt, n in [(np.float32, 1000), (np.float64, 77)]:
        x = rng(160).uniform(-1, 1, n + 5).astype(dt)
        x[:4] = [-1.0, 1.0, 0.0, -0.0]
        x[n:] = 2.0
        y = np.full(n + 5, 9.0, dt)

        def asin_ref(a, n=n):
            e = a["y_ptr"].astype(np.float64).copy()
            e[:n] = np.arcsin(a["x_ptr"][:n].astype(np.float64))
            return {"y_ptr": e}
        add(F, "extern_asin_%s" % np.dtype(dt).name, K, "asin_kernel", ((n + 255) // 256,),
            dict(x_ptr=x, y_ptr=y, n=n, BLOCK=256), ["y_ptr"], asin_ref,
            rtol=2e-7 if dt == np.float64 else 2e-6, atol=1e-7)

    # 08: grouped GEMM from device-side tables, 5 persistent programs for 25 tiles
    def grouped(kernel, dt, byte_offsets, extra, tol, seed):
        buf, offs, dims, lds, exp, nprob, tiles = _grouped_problems(dt, seed, byte_offsets)
        args = dict(buf_ptr=buf)
        args["boffs_ptr" if byte_offsets else "offs_ptr"] = offs
        args.update(dims_ptr=dims, lds_ptr=lds, n_problems=nprob, BM=16, BN=16, BK=8, **extra)
        add(F, "grouped_gemm_%s_%s" % ("int2ptr" if byte_offsets else "offsets", np.dtype(dt).name), K, kernel,
            (5,), args, ["buf_ptr"], lambda a, exp=exp: {"buf_ptr": exp}, rtol=tol, atol=tol)
    grouped("grouped_gemm_offsets_kernel", np.float32, False, {}, tol, 170)
    grouped("grouped_gemm_int2ptr_kernel", np.float32, True, dict(DT="fp32"), tol, 171)
    grouped("grouped_gemm_int2ptr_kernel", np.float16, True, dict(DT="fp16"), 4e-3, 172)

    # 09: persistent matmul, tl.range(pid, tiles, NUM_SMS, flatten=True), split epilogue
    for (M, N, Kd, BM, BN, BK, dt, sms) in [(100, 77, 53, 32, 32, 16, np.float16, 3),
                                            (33, 64, 16, 16, 64, 16, np.float32, 4),
                                            (5, 9, 130, 16, 16, 32, np.float32, 7)]:
        r = rng(180 + M)
        a = r.standard_normal((M, Kd)).astype(dt)
        b = r.standard_normal((Kd, N)).astype(dt)
        c = np.full((M, N + 5), -1.0, np.float32)

        def pref(args, N=N):
            e = args["c_ptr"].astype(np.float64).copy()
            e[:, :N] = args["a_ptr"].astype(np.float64) @ args["b_ptr"].astype(np.float64)
            return {"c_ptr": e}
        add(F, "persistent_matmul_%dx%dx%d_%s_sms%d" % (M, N, Kd, np.dtype(dt).name, sms), K, "persistent_mm_kernel",
            (sms,), dict(a_ptr=a, b_ptr=b, c_ptr=c, M=M, N=N, K=Kd, lda=Kd, ldb=N, ldc=N + 5,
                         BM=BM, BN=BN, BK=BK, GROUP=2, NUM_SMS=sms),
            ["c_ptr"], pref, rtol=tol if dt == np.float32 else 1e-4, atol=tol if dt == np.float32 else 1e-4)
