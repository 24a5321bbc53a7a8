# Integer elementwise on i32: `//` and `%` truncate like C (also for negative operands and
# negative literals), shifts by tile amounts, bitwise and/or/xor/not, integer min/max.
import triton
import triton.language as tl


@triton.jit
def int_ops_kernel(a_ptr, b_ptr, q_ptr, r_ptr, s_ptr, w_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask, other=0)
    b = tl.load(b_ptr + offsets, mask=mask, other=1)
    q = a // b
    r = a % b
    s = (a << (b & 7)) + (a >> 3)
    w = ((a & b) | (~a ^ 0x5A5)) + a % 7 - a // -3
    w = w + tl.minimum(a, b) - tl.maximum(a, -b)
    tl.store(q_ptr + offsets, q, mask=mask)
    tl.store(r_ptr + offsets, r, mask=mask)
    tl.store(s_ptr + offsets, s, mask=mask)
    tl.store(w_ptr + offsets, w, mask=mask)
