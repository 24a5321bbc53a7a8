# N-D tile construction, broadcasting and shape operations (tests/lang, family "ndtiles").
import triton
import triton.language as tl


@triton.jit
def copy2d_kernel(src_ptr, dst_ptr, M, N, stride_sm, stride_dm,
                  BM: tl.constexpr, BN: tl.constexpr):
    # 2-D pointer tiles with masks on both dims; a grid of (row block, col block).
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    v = tl.load(src_ptr + rows[:, None] * stride_sm + cols[None, :], mask=mask, other=0.0)
    tl.store(dst_ptr + rows[:, None] * stride_dm + cols[None, :], v * 2.0 + 1.0, mask=mask)


@triton.jit
def outer_kernel(a_ptr, b_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # broadcasting a column against a row: out[i, j] = a[i] * b[j] - a[i]
    i = tl.arange(0, BM)
    j = tl.arange(0, BN)
    a = tl.load(a_ptr + i, mask=i < M, other=0)
    b = tl.load(b_ptr + j, mask=j < N, other=0)
    o = a[:, None] * b[None, :] - a[:, None]
    tl.store(out_ptr + i[:, None] * N + j[None, :], o, mask=(i[:, None] < M) & (j[None, :] < N))


@triton.jit
def rowloop_kernel(src_ptr, dst_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # one program walks the columns with a pointer tile advanced in a loop
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    sp = src_ptr + rows[:, None] * N + cols[None, :]
    dp = dst_ptr + rows[:, None] * N + cols[None, :]
    for start in range(0, N, BN):
        m = (rows[:, None] < M) & (start + cols[None, :] < N)
        x = tl.load(sp, mask=m, other=0.0)
        tl.store(dp, x - 3.0, mask=m)
        sp += BN
        dp += BN


@triton.jit
def colloop_kernel(src_ptr, dst_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # pointer tile advanced down the rows: p += BM * stride
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    sp = src_ptr + rows[:, None] * N + cols[None, :]
    dp = dst_ptr + rows[:, None] * N + cols[None, :]
    for start in range(0, M, BM):
        m = (start + rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(sp, mask=m, other=0)
        tl.store(dp, x * 3, mask=m)
        sp += BM * N
        dp += BM * N


@triton.jit
def negstride_kernel(src_ptr, dst_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # read the source upside down through a negative row stride
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    last = src_ptr + (M - 1) * N
    stride = -N
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    v = tl.load(last + rows[:, None] * stride + cols[None, :], mask=mask, other=0)
    tl.store(dst_ptr + rows[:, None] * N + cols[None, :], v, mask=mask)


@triton.jit
def tile3d_kernel(src_ptr, dst_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # a 3-D tile built from three aranges; adds a per-plane and per-column offset
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    c = tl.arange(0, C)
    offs = a[:, None, None] * (B * C) + b[None, :, None] * C + c[None, None, :]
    x = tl.load(src_ptr + offs)
    y = x + a[:, None, None] * 100 + c[None, None, :]
    tl.store(dst_ptr + offs, y)


@triton.jit
def broadcast_to_kernel(a_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, M)
    j = tl.arange(0, N)
    a = tl.load(a_ptr + j)                       # [N]
    row = tl.expand_dims(a, 0)                   # [1, N]
    full = tl.broadcast_to(row, (M, N))          # [M, N]
    col = tl.expand_dims(i, 1)                   # [M, 1]
    res = full + tl.broadcast_to(col, M, N).to(tl.float32) * 10.0
    tl.store(out_ptr + i[:, None] * N + j[None, :], res)


@triton.jit
def reshape_kernel(src_ptr, out1_ptr, out2_ptr, M: tl.constexpr, N: tl.constexpr):
    # load flat, reshape to 2-D (row-major), scale by row index; also view back and ravel
    k = tl.arange(0, M * N)
    x = tl.load(src_ptr + k)
    x2 = tl.reshape(x, (M, N))
    r = tl.arange(0, M)
    y = x2 * (r[:, None] + 1)
    tl.store(out1_ptr + k, tl.ravel(y))
    z = y.view(N, M)  # reinterpretation of the same row-major order
    c = tl.arange(0, N)
    d = tl.arange(0, M)
    tl.store(out2_ptr + c[:, None] * M + d[None, :], z + 1)


@triton.jit
def trans_kernel(src_ptr, out1_ptr, out2_ptr, out3_ptr, M: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, M)
    j = tl.arange(0, N)
    x = tl.load(src_ptr + i[:, None] * N + j[None, :])    # [M, N]
    t1 = tl.trans(x)                                        # [N, M]
    t2 = x.T
    t3 = tl.permute(x, (1, 0))
    o = j[:, None] * M + i[None, :]
    tl.store(out1_ptr + o, t1)
    tl.store(out2_ptr + o, t2 * 2)
    tl.store(out3_ptr + o, t3 + 1)


@triton.jit
def permute3d_kernel(src_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # out = src.transpose(2, 0, 1) : [C, A, B]
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    c = tl.arange(0, C)
    x = tl.load(src_ptr + a[:, None, None] * (B * C) + b[None, :, None] * C + c[None, None, :])
    y = tl.permute(x, 2, 0, 1)
    cc = tl.arange(0, C)
    aa = tl.arange(0, A)
    bb = tl.arange(0, B)
    tl.store(out_ptr + cc[:, None, None] * (A * B) + aa[None, :, None] * B + bb[None, None, :], y)


@triton.jit
def join_split_kernel(a_ptr, b_ptr, joined_ptr, s0_ptr, s1_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    a = tl.load(a_ptr + i)
    b = tl.load(b_ptr + i)
    j = tl.join(a, b)                                    # [N, 2]
    two = tl.arange(0, 2)
    tl.store(joined_ptr + i[:, None] * 2 + two[None, :], j)
    # split a [N, 2] tile that is not a join result: (x, y) pairs loaded from memory
    p = tl.load(joined_ptr + i[:, None] * 2 + two[None, :]) * 3
    x, y = tl.split(p)
    tl.store(s0_ptr + i, x)
    tl.store(s1_ptr + i, y - x)


@triton.jit
def cat_interleave_kernel(a_ptr, b_ptr, cat_ptr, il_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    a = tl.load(a_ptr + i)
    b = tl.load(b_ptr + i)
    c = tl.cat(a, b, can_reorder=True)
    # can_reorder allows any order; compare sorted sums outside, store also the sum
    k = tl.arange(0, 2 * N)
    tl.store(cat_ptr + k, c)
    tl.store(il_ptr + k, tl.interleave(a, b))


@triton.jit
def fill_kernel(out1_ptr, out2_ptr, out3_ptr, x_ptr, M: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, M)
    j = tl.arange(0, N)
    offs = i[:, None] * N + j[None, :]
    f = tl.full((M, N), 7, tl.int32)
    z = tl.zeros([M, N], dtype=tl.int32)
    tl.store(out1_ptr + offs, f + z + i[:, None])
    x = tl.load(x_ptr + offs)
    zl = tl.zeros_like(x)
    tl.store(out2_ptr + offs, zl + 0.5)
    h = tl.full((M, N), -1.25, tl.float16)
    tl.store(out3_ptr + offs, h * 2)


@triton.jit
def squeeze_kernel(src_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(src_ptr + i)
    y = tl.expand_dims(x, 0)          # [1, N]
    z = tl.expand_dims(y, 2)          # [1, N, 1]
    w = tl.reshape(z, (N,))           # back to [N]
    tl.store(out_ptr + i, w * 2 - 1)


@triton.jit
def odd1_kernel(src_ptr, dst_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # a 1 x N problem in a [BM, BN] tile, grid over columns only
    rows = tl.arange(0, BM)
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(src_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=-1)
    tl.store(dst_ptr + rows[:, None] * N + cols[None, :], x + rows[:, None] * 1000, mask=mask)


@triton.jit
def col_reshape_kernel(src_ptr, out_ptr, N: tl.constexpr):
    # [N, 1] column tile flattened back to [N]
    i = tl.arange(0, N)
    x = tl.load(src_ptr + i[:, None])
    tl.store(out_ptr + i, tl.reshape(x, (N,)) + 1)


@triton.jit
def interleave_scalars_kernel(x, y, out_ptr, p_ptr):
    # two scalars interleave to join's [2]; loaded rank-0 values too
    z = tl.interleave(x, y)
    tl.static_assert(z.shape == [tl.constexpr(2)])
    tl.store(out_ptr + tl.arange(0, 2), z)
    tl.store(out_ptr + 2 + tl.arange(0, 2), tl.interleave(tl.load(p_ptr), tl.load(p_ptr + 1)))


@triton.jit
def trans_uses_kernel(src_ptr, out_ptr, twice_ptr, rowsum_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr):
    # [B, M, N] -> [B, N, M] (B == 1: a 2-D tile), then the transpose read three ways: stored,
    # by an elementwise op, and by a reduction over its rows (the source's columns)
    b = tl.arange(0, B)
    i = tl.arange(0, M)
    j = tl.arange(0, N)
    if B == 1:
        x = tl.load(src_ptr + i[:, None] * N + j[None, :])
        t = tl.trans(x)
        o = j[:, None] * M + i[None, :]
        tl.store(out_ptr + o, t)
        tl.store(twice_ptr + o, t + t)
        tl.store(rowsum_ptr + j, tl.sum(t.to(tl.float32), 1))
    else:
        x = tl.load(src_ptr + b[:, None, None] * (M * N) + i[None, :, None] * N + j[None, None, :])
        t = tl.permute(x, (0, 2, 1))
        o = b[:, None, None] * (M * N) + j[None, :, None] * M + i[None, None, :]
        tl.store(out_ptr + o, t)
        tl.store(twice_ptr + o, t + t)
        tl.store(rowsum_ptr + b[:, None] * N + j[None, :], tl.sum(t.to(tl.float32), 2))


@triton.jit
def trans_bool_kernel(src_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, M)
    j = tl.arange(0, N)
    x = tl.load(src_ptr + i[:, None] * N + j[None, :]) > 0
    tl.store(out_ptr + j[:, None] * M + i[None, :], tl.trans(x).to(tl.int8))


@triton.jit
def dot_trans_a_kernel(at_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # c = at.T @ b + at.T[:, :N] (a transposed A operand, also read by an elementwise op)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    at = tl.load(at_ptr + rk[:, None] * M + rm[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    a = tl.trans(at)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b) + tl.sum(a, 1)[:, None])


@triton.jit
def trans_sources_kernel(src_ptr, out_ptr, n_rows, M: tl.constexpr, N: tl.constexpr, FORM: tl.constexpr):
    # what a transpose reads its rows from: a masked load, an expression of a load, a load
    # also read by another op, a load whose memory is overwritten before the transpose
    i = tl.arange(0, M)
    j = tl.arange(0, N)
    offs = i[:, None] * N + j[None, :]
    o = j[:, None] * M + i[None, :]
    if FORM == 0:
        x = tl.load(src_ptr + offs, mask=i[:, None] < n_rows, other=-1.0)
        tl.store(out_ptr + o, tl.trans(x))
    elif FORM == 1:
        x = tl.load(src_ptr + offs)
        tl.store(out_ptr + o, tl.trans(x * 2.0 + 1.0))
    elif FORM == 2:
        x = tl.load(src_ptr + offs)
        t = tl.trans(x)
        tl.store(out_ptr + o, t + tl.sum(x, 0)[:, None])
    else:
        x = tl.load(src_ptr + offs)
        tl.store(src_ptr + offs, x * 0.0)
        tl.store(out_ptr + o, tl.trans(x))


@triton.jit
def slice_none_bounds_kernel(out_ptr, XBLOCK: tl.constexpr):
    # `x[None:]`, `x[:None]`, `x[None:None:None]`, `x[::None]` keep the axis like `x[:]`
    data = tl.arange(0, XBLOCK)
    a = data[None, None:]
    tl.static_assert(a.shape == [1, XBLOCK])
    b = data[None, :None]
    c = data[None, None:None:None, None]
    tl.static_assert(c.shape == [1, XBLOCK, 1])
    d = data[None, ::None, None]
    tl.static_assert(d.shape == [1, XBLOCK, 1])
    e = data[None, None::None, None]
    o = tl.arange(0, XBLOCK)[None, :]
    tl.store(out_ptr + o, a + b * 10 + tl.reshape(c, (1, XBLOCK)) * 100 + tl.reshape(d + e, (1, XBLOCK)) * 1000)


# Tiles above rank 4 (Triton has no rank limit; tilec's is TC_MAX_RANK = 16).
@triton.jit
def chained_reduce5d_kernel(in_ptr, out_ptr, D0: tl.constexpr, D1: tl.constexpr, D2: tl.constexpr,
                            D3: tl.constexpr, D4: tl.constexpr, P0: tl.constexpr, P1: tl.constexpr,
                            P2: tl.constexpr, P3: tl.constexpr, P4: tl.constexpr, R0: tl.constexpr,
                            R1: tl.constexpr, R2: tl.constexpr):
    idx = tl.arange(0, D0 * D1 * D2 * D3 * D4).reshape(D0, D1, D2, D3, D4)
    vals = tl.load(in_ptr + idx)
    vals = tl.permute(vals, [P0, P1, P2, P3, P4])
    r = tl.sum(tl.sum(tl.sum(vals, R0), R1), R2)
    st = tl.arange(0, r.shape[0] * r.shape[1]).reshape(r.shape)
    tl.store(out_ptr + st, r)


@triton.jit
def bcast6d_kernel(x_ptr, out_ptr, mx_ptr, n):
    # a 5-D pointer tile from aranges, a masked load, a 6-D tile by expand_dims, keep_dims
    # reductions broadcast back, where, and 6-D / 4-D stores
    a = tl.arange(0, 2)
    b = tl.arange(0, 4)
    c = tl.arange(0, 2)
    d = tl.arange(0, 2)
    e = tl.arange(0, 8)
    off = (a[:, None, None, None, None] * 128 + b[None, :, None, None, None] * 32 + c[None, None, :, None, None] * 16
           + d[None, None, None, :, None] * 8 + e[None, None, None, None, :])
    x = tl.load(x_ptr + off, mask=off < n, other=-1.0)
    y = tl.expand_dims(x, 2)
    m = tl.max(y, axis=5, keep_dims=True)
    z = tl.where(y > 0, y * 2.0 + m, m - y)
    tl.store(out_ptr + tl.expand_dims(off, 2), z)
    mx = tl.max(tl.max(x, axis=4), axis=0)
    o4 = tl.arange(0, 4)[:, None, None] * 4 + tl.arange(0, 2)[None, :, None] * 2 + tl.arange(0, 2)[None, None, :]
    tl.store(mx_ptr + o4, mx)


@triton.jit
def reshape9d_kernel(x_ptr, t_ptr, s_ptr, N: tl.constexpr):
    # 9-D: reshape, a full reversal of the axes, a reduction over a middle axis
    x = tl.load(x_ptr + tl.arange(0, N))
    y = tl.reshape(x, (2, 2, 2, 2, 2, 2, 2, 2, N // 256))
    t = tl.permute(y, (8, 7, 6, 5, 4, 3, 2, 1, 0))
    tl.store(t_ptr + tl.arange(0, N), tl.reshape(t, (N,)))
    s = tl.sum(y, axis=3)
    tl.store(s_ptr + tl.arange(0, N // 2), tl.reshape(s, (N // 2,)))


@triton.jit
def rank17_kernel(x_ptr, HOW: tl.constexpr):
    x = tl.load(x_ptr + tl.reshape(tl.arange(0, 2), (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2)))
    if HOW == 0:
        y = x[None, :]
    elif HOW == 1:
        y = tl.join(x, x)
    else:
        y = tl.expand_dims(x, 0)
    tl.store(x_ptr + tl.arange(0, 2), tl.reshape(tl.sum(y, axis=0), (2,)))
