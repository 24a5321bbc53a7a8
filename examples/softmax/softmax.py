# Row-wise softmax, one program per row (Triton syntax; tilec compiles the @triton.jit
# function). Rows longer than BLOCK are not supported by this kernel: the host picks
# BLOCK >= n_cols, as Triton's tutorial does with next_power_of_2.
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    # -inf in the padding lanes: they neither win the max nor add to the sum.
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    # Subtracting the row maximum keeps exp from overflowing; the result is unchanged.
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)
