# bench/kernels/softmax.py — benchmark kernels: numerically stable row softmax, one row per
# program (softmax_kernel) or BLOCK_M rows (softmax_rows_kernel); a row is one tile of
# BLOCK_SIZE = next power of two >= n_cols, padded with -inf so padding lanes neither win
# the max nor add to the sum (exp(-inf) = 0).
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    valid = cols < n_cols
    src = in_ptr + row * in_row_stride + cols
    x = tl.load(src, mask=valid, other=-float('inf'))
    # Subtract the row maximum first: exp of large inputs would overflow otherwise.
    shifted = x - tl.max(x, axis=0)
    num = tl.exp(shifted)
    den = tl.sum(num, axis=0)
    dst = out_ptr + row * out_row_stride + cols
    tl.store(dst, num / den, mask=valid)


@triton.jit
def softmax_rows_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
                        BLOCK_M: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    # BLOCK_M rows a program (short rows: one row would leave most of the CTA idle); each
    # row is reduced along the tile's last axis.
    rows = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_SIZE)
    valid = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(in_ptr + rows[:, None] * in_row_stride + cols[None, :], mask=valid, other=-float('inf'))
    shifted = x - tl.max(x, axis=1)[:, None]
    num = tl.exp(shifted)
    den = tl.sum(num, axis=1)
    tl.store(out_ptr + rows[:, None] * out_row_stride + cols[None, :], num / den[:, None], mask=valid)
