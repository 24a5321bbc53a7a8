# Reductions (tests/lang, family "reductions").
import triton
import triton.language as tl


@triton.jit
def sum_axes_kernel(x_ptr, s0_ptr, s1_ptr, sall_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.arange(0, BM)
    c = tl.arange(0, BN)
    mask = (r[:, None] < M) & (c[None, :] < N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :], mask=mask, other=0.0)
    tl.store(s0_ptr + c, tl.sum(x, axis=0), mask=c < N)
    tl.store(s1_ptr + r, tl.sum(x, 1), mask=r < M)
    tl.store(sall_ptr, tl.sum(x))


@triton.jit
def maxmin_axes_kernel(x_ptr, mx0_ptr, mn1_ptr, mxall_ptr, mnall_ptr, M, N,
                       BM: tl.constexpr, BN: tl.constexpr):
    r = tl.arange(0, BM)
    c = tl.arange(0, BN)
    mask = (r[:, None] < M) & (c[None, :] < N)
    offs = r[:, None] * N + c[None, :]
    xa = tl.load(x_ptr + offs, mask=mask, other=-float("inf"))
    xb = tl.load(x_ptr + offs, mask=mask, other=float("inf"))
    tl.store(mx0_ptr + c, tl.max(xa, axis=0), mask=c < N)
    tl.store(mn1_ptr + r, tl.min(xb, axis=1), mask=r < M)
    tl.store(mxall_ptr, tl.max(xa))
    tl.store(mnall_ptr, tl.min(xb, axis=None))


@triton.jit
def keepdims_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # x - rowmax(x, keep_dims) + colsum(x, keep_dims)
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    m = tl.max(x, axis=1, keep_dims=True)          # [M, 1]
    s = tl.sum(x, axis=0, keep_dims=True)          # [1, N]
    tl.store(out_ptr + r[:, None] * N + c[None, :], x - m + s)


@triton.jit
def indices_kernel(x_ptr, vmax_ptr, imax_ptr, vmin_ptr, imin_ptr, amax_ptr, amin_ptr,
                   M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    v, i = tl.max(x, axis=1, return_indices=True)
    tl.store(vmax_ptr + r, v)
    tl.store(imax_ptr + r, i)
    w, j = tl.min(x, 1, return_indices=True)
    tl.store(vmin_ptr + r, w)
    tl.store(imin_ptr + r, j)
    tl.store(amax_ptr + c, tl.argmax(x, axis=0))
    tl.store(amin_ptr + c, tl.argmin(x, 0))


@triton.jit
def argmax_1d_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # masked lanes must not win: they read -inf / +inf
    i = tl.arange(0, BLOCK)
    a = tl.load(x_ptr + i, mask=i < n, other=-float("inf"))
    b = tl.load(x_ptr + i, mask=i < n, other=float("inf"))
    tl.store(out_ptr, tl.argmax(a, axis=0))
    tl.store(out_ptr + 1, tl.argmin(b, axis=0))


@triton.jit
def xor_sum_kernel(x_ptr, out0_ptr, out1_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(out0_ptr + c, tl.xor_sum(x, axis=0))
    tl.store(out1_ptr + r, x.xor_sum(axis=1))


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def reduce_fn_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # product over rows with a user combine function
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(out_ptr + r, tl.reduce(x, 1, _mul_combine))


@triton.jit
def reduce_tuple_kernel(x_ptr, val_ptr, idx_ptr, M: tl.constexpr, N: tl.constexpr):
    # (value, index) argmax with ties going to the largest index (opposite of tl.argmax)
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    idx = tl.broadcast_to(c[None, :], (M, N))
    v, i = tl.reduce((x, idx), axis=1, combine_fn=_argmax_last_combine)
    tl.store(val_ptr + r, v)
    tl.store(idx_ptr + r, i)


@triton.jit
def _argmax_last_combine(v1, i1, v2, i2):
    take2 = (v2 > v1) | ((v2 == v1) & (i2 > i1))
    return tl.where(take2, v2, v1), tl.where(take2, i2, i1)


@triton.jit
def method_forms_kernel(x_ptr, s_ptr, mx_ptr, mn_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(s_ptr + r, x.sum(axis=1))
    tl.store(mx_ptr + c, x.max(axis=0))
    tl.store(mn_ptr, x.min())


@triton.jit
def sum_dtype_kernel(x_ptr, out_ptr, out64_ptr, outf_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)                          # int8
    s = tl.sum(x)                                   # promoted to int32
    tl.store(out_ptr, s)
    tl.store(out64_ptr, tl.sum(x, dtype=tl.int64))
    tl.store(outf_ptr, tl.sum(x, axis=0, dtype=tl.float32))


@triton.jit
def sum_3d_kernel(x_ptr, s2_ptr, s1_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + a[:, None, None] * (B * C) + b[None, :, None] * C + c[None, None, :])
    s2 = tl.sum(x, axis=2)                          # [A, B]
    tl.store(s2_ptr + a[:, None] * B + b[None, :], s2)
    s1 = tl.max(x, axis=1)                          # [A, C]
    tl.store(s1_ptr + a[:, None] * C + c[None, :], s1)


@triton.jit
def int_max_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # integer max/min (int16 inputs are upcast like Triton)
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(out_ptr + r, tl.max(x, axis=1).to(tl.int32) - tl.min(x, axis=1).to(tl.int32))


@triton.jit
def row_maxmin_nan_kernel(x_ptr, mx_ptr, mn_ptr, N, BLOCK: tl.constexpr):
    # masked-off lanes are NaN: tl.max / tl.min ignore NaNs (maxnum), a row of NaNs gives NaN
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=float('nan'))
    tl.store(mx_ptr + row, tl.max(x, axis=0))
    tl.store(mn_ptr + row, tl.min(x, axis=0))


@triton.jit
def past_bound_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # BLOCK = next_power_of_2(N) or more: lanes past N hold `other` (or the where's other
    # branch) and take part in every reduction, whatever value that is
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    p = x_ptr + row * N + cols
    o = out_ptr + row * 9
    x0 = tl.load(p, mask=m, other=0.)
    tl.store(o + 0, tl.sum(x0, axis=0))
    tl.store(o + 1, tl.sum(tl.load(p, mask=m, other=1.5), axis=0))
    tl.store(o + 2, tl.max(tl.load(p, mask=m, other=float('-inf')), axis=0))
    tl.store(o + 3, tl.min(tl.load(p, mask=m, other=0.25), axis=0))
    tl.store(o + 4, tl.sum(tl.where(m, x0, cols.to(tl.float32)), axis=0))
    tl.store(o + 5, 1.0 / tl.sum(x0, axis=0))  # the sign of a zero sum
    xi = tl.load(p, mask=m, other=float('-inf'))
    tl.store(o + 6, tl.sum(tl.exp(xi - tl.max(xi, axis=0)), axis=0))
    tl.store(o + 7, tl.sum(tl.where(m, x0 * x0, 0.), axis=0))
    tl.store(o + 8, tl.sum(tl.where(m, x0 - 1.0, 0.), axis=0) + tl.max(x0 + 2.0, axis=0))


@triton.jit
def past_bound_int_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    p = x_ptr + row * N + cols
    o = out_ptr + row * 5
    tl.store(o + 0, tl.sum(tl.load(p, mask=m, other=0), axis=0))
    tl.store(o + 1, tl.sum(tl.load(p, mask=m, other=3), axis=0))
    tl.store(o + 2, tl.xor_sum(tl.load(p, mask=m, other=5), axis=0))
    tl.store(o + 3, tl.max(tl.load(p, mask=m, other=-7), axis=0))
    tl.store(o + 4, tl.reduce_or(tl.load(p, mask=m, other=64), axis=0))


@triton.jit
def sum_argmax_shared_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, ORDER: tl.constexpr):
    # a sum and an argmax of the same tile: their first tree steps are one shuffle of x (an
    # LLVM 22 x86 shuffle lowering once read lanes [0,1] for the sum's [2,3] step: 28 for 48)
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    s = tl.sum(x, 0)
    i = tl.argmax(x, 0)
    m = tl.min(x, 0)
    if ORDER == 0:
        tl.store(out_ptr + 3, i)
        tl.store(out_ptr, s)
    else:
        tl.store(out_ptr, s)
        tl.store(out_ptr + 1, i)
    tl.store(out_ptr + 2, m.to(out_ptr.dtype.element_ty))


@triton.jit
def dealt_rows_kernel(x_ptr, y_ptr, s_ptr, i_ptr, n_rows, n_cols, BM: tl.constexpr, BN: tl.constexpr):
    # several rows a program, each reduced along its last axis twice (max, then the sum of
    # what the max gave) and once with indices: the tile stays where the nests put it
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=-float("inf"))
    m = tl.max(x, axis=1)
    e = tl.exp(x - m[:, None])
    s = tl.sum(e, axis=1)
    tl.store(y_ptr + rows[:, None] * n_cols + cols[None, :], e / s[:, None], mask=mask)
    tl.store(s_ptr + rows, s, mask=rows < n_rows)
    tl.store(i_ptr + rows, tl.argmax(x, axis=1), mask=rows < n_rows)


@triton.jit
def dealt_int_3d_kernel(x_ptr, s_ptr, mx_ptr, any_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + a[:, None, None] * (B * C) + b[None, :, None] * C + c[None, None, :])
    y = x * 3 - 1
    tl.store(s_ptr + a[:, None] * B + b[None, :], tl.sum(y, axis=2))
    tl.store(mx_ptr + a[:, None] * B + b[None, :], tl.max(y, axis=2))
    tl.store(any_ptr + a[:, None] * B + b[None, :], tl.reduce_or(x > 5, axis=2).to(tl.int32))


@triton.jit
def dealt_cols_kernel(x_ptr, s_ptr, mx_ptr, i_ptr, r_ptr, n_rows, n_cols, BM: tl.constexpr, BN: tl.constexpr):
    # a tile reduced along its rows (axis 0) three ways and along its columns once
    rows = tl.arange(0, BM)
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=-float("inf"))
    y = tl.where(mask, x * 2.0 + 1.0, 0.0)
    tl.store(s_ptr + cols, tl.sum(y, axis=0), mask=cols < n_cols)
    tl.store(mx_ptr + cols, tl.max(x, axis=0), mask=cols < n_cols)
    tl.store(i_ptr + cols, tl.argmax(x, axis=0), mask=cols < n_cols)
    tl.store(r_ptr + tl.program_id(0) * BM + rows, tl.sum(y, axis=1))


@triton.jit
def dealt_cols_int_kernel(x_ptr, s_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    tl.store(s_ptr + cols, tl.sum(x - 3, axis=0))
    tl.store(o_ptr + cols, tl.reduce_or(x > 6, axis=0).to(tl.int32))


@triton.jit
def dealt_cols_nested_kernel(x_ptr, c_ptr, t_ptr, BM: tl.constexpr, BN: tl.constexpr):
    # column sums (kept where the threads computed them) read by a store and by a reduction
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    c = tl.sum(tl.load(x_ptr + rows[:, None] * BN + cols[None, :]), axis=0)
    tl.store(c_ptr + cols, c * 2.0)
    tl.store(t_ptr, tl.max(c, axis=0))
