# Kernels with the constructs of Triton's tutorials 05 (layer norm backward), 07 (extern
# libdevice), 08 (grouped GEMM from device-side tables) and 09 (persistent matmul)
# (tests/lang, family "tutorials"). Written for these tests, not copied from the tutorials.
import triton
import triton.language as tl
from triton.language.extra import libdevice


# ---- 05 layer norm backward ------------------------------------------------------------------
# Each program handles one row: dx from (x, dy, w, mean, rstd), then its dy * x_hat and dy
# are added to row (row % GROUPS) of the partial dw / db buffers under that row's spin lock.
# `seen_ptr[g]` says whether the partial row g already holds a sum.
@triton.jit
def ln_bwd_dx_kernel(x_ptr, dy_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr,
                     pdw_ptr, pdb_ptr, lock_ptr, seen_ptr, stride, N,
                     GROUPS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < N
    xr = tl.load(x_ptr + row * stride + cols, mask=inside, other=0.0).to(tl.float32)
    g = tl.load(dy_ptr + row * stride + cols, mask=inside, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=inside, other=0.0).to(tl.float32)
    mu = tl.load(mean_ptr + row)
    rs = tl.load(rstd_ptr + row)
    xhat = tl.where(inside, (xr - mu) * rs, 0.0)
    gw = tl.where(inside, g * w, 0.0)
    proj = tl.sum(xhat * gw, axis=0) / N
    mean_gw = tl.sum(gw, axis=0) / N
    dx = rs * (gw - xhat * proj - mean_gw)
    tl.store(dx_ptr + row * stride + cols, dx, mask=inside)

    # partial sums for this row's group
    grp = row % GROUPS
    contrib_w = (g * xhat).to(tl.float32)
    contrib_b = g
    lock = lock_ptr + grp
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    seen = tl.load(seen_ptr + grp)
    dst_w = pdw_ptr + grp * N + cols
    dst_b = pdb_ptr + grp * N + cols
    if seen == 0:
        tl.atomic_xchg(seen_ptr + grp, 1)
    else:
        contrib_w += tl.load(dst_w, mask=inside, other=0.0)
        contrib_b += tl.load(dst_b, mask=inside, other=0.0)
    tl.store(dst_w, contrib_w, mask=inside)
    tl.store(dst_b, contrib_b, mask=inside)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


# Sum the GROUPS partial rows column block by column block with a 2-D tile loop.
@triton.jit
def ln_bwd_dwdb_kernel(pdw_ptr, pdb_ptr, dw_ptr, db_ptr, GROUPS, N,
                       BM: tl.constexpr, BN: tl.constexpr):
    c0 = tl.program_id(0) * BN
    cols = c0 + tl.arange(0, BN)
    acc_w = tl.zeros((BM, BN), dtype=tl.float32)
    acc_b = tl.zeros((BM, BN), dtype=tl.float32)
    for r0 in range(0, GROUPS, BM):
        rows = r0 + tl.arange(0, BM)
        m = (rows[:, None] < GROUPS) & (cols[None, :] < N)
        where = rows[:, None] * N + cols[None, :]
        acc_w += tl.load(pdw_ptr + where, mask=m, other=0.0)
        acc_b += tl.load(pdb_ptr + where, mask=m, other=0.0)
    tl.store(dw_ptr + cols, tl.sum(acc_w, axis=0), mask=cols < N)
    tl.store(db_ptr + cols, tl.sum(acc_b, axis=0), mask=cols < N)


# ---- 07 extern functions -------------------------------------------------------------------
@triton.jit
def asin_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    v = tl.load(x_ptr + offs, mask=keep)
    tl.store(y_ptr + offs, libdevice.asin(v), mask=keep)


# ---- 08 grouped GEMM -----------------------------------------------------------------------
# Problem g: C_g[m, n] = A_g[m, k] @ B_g[k, n]. All matrices live in one buffer; `offs_ptr`
# holds 3 element offsets per problem (A, B, C), `dims_ptr` 3 sizes (M, N, K) and `lds_ptr`
# 3 leading dimensions. The programs walk all tiles of all problems, tile ids advancing by
# the number of programs.
@triton.jit
def _tile_product(pa, pb, pc, m, n, k, lda, ldb, ldc, tm, tn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    ri = tm * BM + tl.arange(0, BM)
    rj = tn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, k, BK):
        kk = k0 + rk
        ta = tl.load(pa + ri[:, None] * lda + kk[None, :],
                     mask=(ri[:, None] < m) & (kk[None, :] < k), other=0.0)
        tb = tl.load(pb + kk[:, None] * ldb + rj[None, :],
                     mask=(kk[:, None] < k) & (rj[None, :] < n), other=0.0)
        acc = tl.dot(ta, tb, acc)
    tl.store(pc + ri[:, None] * ldc + rj[None, :], acc.to(pc.dtype.element_ty),
             mask=(ri[:, None] < m) & (rj[None, :] < n))


@triton.jit
def grouped_gemm_offsets_kernel(buf_ptr, offs_ptr, dims_ptr, lds_ptr, n_problems,
                                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    tile = tl.program_id(0)
    first = 0
    for g in range(n_problems):
        m = tl.load(dims_ptr + 3 * g)
        n = tl.load(dims_ptr + 3 * g + 1)
        k = tl.load(dims_ptr + 3 * g + 2)
        tiles_n = tl.cdiv(n, BN)
        count = tl.cdiv(m, BM) * tiles_n
        while (tile >= first) and (tile < first + count):
            pa = buf_ptr + tl.load(offs_ptr + 3 * g)
            pb = buf_ptr + tl.load(offs_ptr + 3 * g + 1)
            pc = buf_ptr + tl.load(offs_ptr + 3 * g + 2)
            local = tile - first
            _tile_product(pa, pb, pc, m, n, k,
                          tl.load(lds_ptr + 3 * g), tl.load(lds_ptr + 3 * g + 1),
                          tl.load(lds_ptr + 3 * g + 2), local // tiles_n, local % tiles_n,
                          BM, BN, BK)
            tile += tl.num_programs(0)
        first += count


# Same walk, but the tables hold BYTE offsets and the matrix pointers are made with
# int64 -> pointer casts of (address of the buffer + byte offset).
@triton.jit
def grouped_gemm_int2ptr_kernel(buf_ptr, boffs_ptr, dims_ptr, lds_ptr, n_problems,
                                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                                DT: tl.constexpr):
    base = buf_ptr.to(tl.int64)
    tile = tl.program_id(0)
    first = 0
    g = 0
    while g < n_problems:
        m = tl.load(dims_ptr + 3 * g)
        n = tl.load(dims_ptr + 3 * g + 1)
        k = tl.load(dims_ptr + 3 * g + 2)
        tiles_n = tl.cdiv(n, BN)
        count = tl.cdiv(m, BM) * tiles_n
        while tile < first + count:
            if DT == "fp16":
                pa = (base + tl.load(boffs_ptr + 3 * g)).to(tl.pointer_type(tl.float16))
                pb = (base + tl.load(boffs_ptr + 3 * g + 1)).to(tl.pointer_type(tl.float16))
                pc = (base + tl.load(boffs_ptr + 3 * g + 2)).to(tl.pointer_type(tl.float16))
            else:
                pa = (base + tl.load(boffs_ptr + 3 * g)).to(tl.pointer_type(tl.float32))
                pb = (base + tl.load(boffs_ptr + 3 * g + 1)).to(tl.pointer_type(tl.float32))
                pc = (base + tl.load(boffs_ptr + 3 * g + 2)).to(tl.pointer_type(tl.float32))
            local = tile - first
            _tile_product(pa, pb, pc, m, n, k,
                          tl.load(lds_ptr + 3 * g), tl.load(lds_ptr + 3 * g + 1),
                          tl.load(lds_ptr + 3 * g + 2), local // tiles_n, local % tiles_n,
                          BM, BN, BK)
            tile += tl.num_programs(0)
        first += count
        g += 1


# ---- 09 persistent matmul ------------------------------------------------------------------
@triton.jit
def _swizzle(t, tiles_m, tiles_n, GROUP: tl.constexpr):
    band = GROUP * tiles_n
    top = (t // band) * GROUP
    h = tl.minimum(tiles_m - top, GROUP)
    return top + (t % band) % h, (t % band) // h


@triton.jit
def persistent_mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, lda, ldb, ldc,
                         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                         GROUP: tl.constexpr, NUM_SMS: tl.constexpr):
    tl.static_assert(BN % 2 == 0, "the epilogue splits BN in halves")
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    steps_k = tl.cdiv(K, BK)
    for t in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_SMS, flatten=True):
        tm, tn = _swizzle(t, tiles_m, tiles_n, GROUP)
        ri = tl.max_contiguous(tl.multiple_of(tm * BM + tl.arange(0, BM), BM), BM)
        rj = tl.max_contiguous(tl.multiple_of(tn * BN + tl.arange(0, BN), BN), BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for s in range(steps_k):
            kk = s * BK + tl.arange(0, BK)
            ta = tl.load(a_ptr + ri[:, None] * lda + kk[None, :],
                         mask=(ri[:, None] < M) & (kk[None, :] < K), other=0.0)
            tb = tl.load(b_ptr + kk[:, None] * ldb + rj[None, :],
                         mask=(kk[:, None] < K) & (rj[None, :] < N), other=0.0)
            acc = tl.dot(ta, tb, acc)
        halves = acc.reshape(BM, 2, BN // 2).permute(0, 2, 1)
        left, right = tl.split(halves)
        cl = tn * BN + tl.arange(0, BN // 2)
        cr = cl + BN // 2
        tl.store(c_ptr + ri[:, None] * ldc + cl[None, :], left.to(c_ptr.dtype.element_ty),
                 mask=(ri[:, None] < M) & (cl[None, :] < N))
        tl.store(c_ptr + ri[:, None] * ldc + cr[None, :], right.to(c_ptr.dtype.element_ty),
                 mask=(ri[:, None] < M) & (cr[None, :] < N))
