# Layer normalization forward, one program per row: y = (x - mean) / sqrt(var + eps) * w + b.
# Rows of any length: each pass walks the row in BLOCK-wide chunks (Triton syntax).
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, row_stride, N, eps,
                      BLOCK: tl.constexpr):
    row = tl.program_id(axis=0)
    x_row = x_ptr + row * row_stride
    y_row = y_ptr + row * row_stride
    # Pass 1: mean. Lane-wise partial sums, reduced once at the end.
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_row + cols, mask=cols < N, other=0.0)
    mean = tl.sum(acc, axis=0) / N
    # Pass 2: variance around the mean (two passes: better rounding than E[x^2] - E[x]^2).
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < N, other=0.0)
        d = tl.where(cols < N, x - mean, 0.0)
        acc2 += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc2, axis=0) / N + eps)
    # Pass 3: normalize, scale and shift.
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        tl.store(y_row + cols, (x - mean) * rstd * w + b, mask=mask)
