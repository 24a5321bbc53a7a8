# Casts: i32 -> i8 (wraps), i8 -> fp32 (signed), i32 -> fp32, fp32 -> i32 (truncates toward
# zero), and i1 comparison results widened to i8/i32/fp32.
import triton
import triton.language as tl


@triton.jit
def cast_kernel(x_ptr, xi_ptr, o8_ptr, of_ptr, oi_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    xi = tl.load(xi_ptr + offsets, mask=mask, other=0)
    positive = x > 0
    narrow = xi.to(tl.int8)
    tl.store(o8_ptr + offsets, narrow + positive.to(tl.int8), mask=mask)
    f = xi.to(tl.float32) * 0.5 + narrow.to(tl.float32) + positive.to(tl.float32)
    tl.store(of_ptr + offsets, f, mask=mask)
    tl.store(oi_ptr + offsets, x.to(tl.int32) + (xi < 0).to(tl.int32), mask=mask)
