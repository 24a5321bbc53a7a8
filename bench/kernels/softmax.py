# bench/kernels/softmax.py — benchmark kernel: numerically stable row softmax, one row per
# program; the whole row is one tile of BLOCK_SIZE = next power of two >= n_cols, padded
# with -inf so padding lanes neither win the max nor add to the sum (exp(-inf) = 0).
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
