# fp16 storage: loads fp16, computes in fp32 and in fp16, stores fp16 via .to(tl.float16)
# and an exact widening to fp32.
import triton
import triton.language as tl


@triton.jit
def fp16_kernel(x_ptr, y_ptr, out_ptr, sum_ptr, wide_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = tl.load(y_ptr + offsets, mask=mask, other=0.0)
    z = x.to(tl.float32) * 1.5 - y.to(tl.float32)
    tl.store(out_ptr + offsets, z.to(tl.float16), mask=mask)
    # fp16 + fp16 stays fp16 in Triton: one correctly rounded fp16 add.
    tl.store(sum_ptr + offsets, x + y, mask=mask)
    tl.store(wide_ptr + offsets, x.to(tl.float32), mask=mask)
