# bench/kernels/swiglu.py — benchmark kernels: SwiGLU (the gated MLP's c = silu(a) * b) forward
# and backward the way Liger-Kernel's training kernels are written (same math, tilec's own
# code): one row per program, the row one tile of BLOCK_SIZE = next_power_of_2(n_cols); silu
# in fp32, rounded to b's dtype before the product. The backward recomputes silu from a
# instead of saving it: with s = sigmoid(a),
#   db = dc * silu(a),   da = dc * b * (s + silu(a) * (1 - s)).
import triton
import triton.language as tl


@triton.jit
def swiglu_fwd_kernel(c_ptr, a_ptr, b_ptr, row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    a = tl.load(a_ptr + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + row * row_stride + cols, mask=mask, other=0.0)
    silu = a * tl.sigmoid(a)
    tl.store(c_ptr + row * row_stride + cols, silu.to(b.dtype) * b, mask=mask)


@triton.jit
def swiglu_bwd_kernel(da_ptr, db_ptr, dc_ptr, a_ptr, b_ptr, row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    dc = tl.load(dc_ptr + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    s = tl.sigmoid(a)
    silu = a * s
    db = dc * silu
    da = dc * b * (s + silu * (1.0 - s))
    tl.store(da_ptr + row * row_stride + cols, da.to(da_ptr.dtype.element_ty), mask=mask)
    tl.store(db_ptr + row * row_stride + cols, db.to(db_ptr.dtype.element_ty), mask=mask)
