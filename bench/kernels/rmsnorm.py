# bench/kernels/rmsnorm.py — benchmark kernels: RMSNorm forward and backward the way
# Liger-Kernel's training kernels are written (same math, tilec's own code). One row of
# n_cols elements is one tile of BLOCK_SIZE = next_power_of_2(n_cols); statistics in fp32;
# Llama's casting: x * rstd is rounded to the input dtype before the weight multiplies it.
#
# Forward (grid = n_rows): y = (x * rstd).to(x.dtype) * w with rstd = 1/sqrt(mean(x^2) + eps),
# rstd kept per row (fp32) for the backward.
# Backward (grid = n_programs, each over a contiguous run of rows): with m = dy * w,
#   dx = rstd * m - rstd^3 / n_cols * sum(m * x) * x,
#   dw = sum over rows of dy * (x * rstd), accumulated per program in fp32 and written as
#   one row of dw_partial[n_programs, n_cols]; the host sums those rows.
import triton
import triton.language as tl


@triton.jit
def rmsnorm_fwd_kernel(y_ptr, x_ptr, w_ptr, rstd_ptr, row_stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    xf = x.to(tl.float32)
    rstd = tl.rsqrt(tl.sum(xf * xf, axis=0) / n_cols + eps)
    tl.store(rstd_ptr + row, rstd)
    y = (xf * rstd).to(x.dtype) * w
    tl.store(y_ptr + row * row_stride + cols, y, mask=mask)


@triton.jit
def rmsnorm_bwd_kernel(dx_ptr, dy_ptr, x_ptr, w_ptr, rstd_ptr, dw_partial_ptr, row_stride, n_rows, n_cols,
                       rows_per_program, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    first = pid * rows_per_program
    last = tl.minimum(first + rows_per_program, n_rows)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for r in range(first, last):
        row = r.to(tl.int64)
        x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)
        rstd = tl.load(rstd_ptr + row)
        xn = x * rstd
        m = dy * w
        dx = rstd * m - (rstd / n_cols) * tl.sum(m * xn, axis=0) * xn
        tl.store(dx_ptr + row * row_stride + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
        dw += dy * xn
    tl.store(dw_partial_ptr + pid * n_cols + cols, dw, mask=mask)
