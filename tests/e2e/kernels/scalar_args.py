# Runtime scalar arguments of types fp32, i32 and i64, with Triton's promotion
# (i32 tile * i32 scalar stays i32, + i64 scalar becomes i64).
import triton
import triton.language as tl


@triton.jit
def scalar_args_kernel(x_ptr, xi_ptr, out_ptr, outl_ptr, n_elements, alpha, beta, k, s,
                       BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    xi = tl.load(xi_ptr + offsets, mask=mask, other=0)
    tl.store(out_ptr + offsets, x * alpha + beta, mask=mask)
    tl.store(outl_ptr + offsets, xi * s + k, mask=mask)
