# Float elementwise: where/abs/minimum/maximum, unary minus, scalar broadcasting, true
# division, and a load whose mask differs from the store mask so `other=` is observable.
import triton
import triton.language as tl


@triton.jit
def float_ops_kernel(x_ptr, y_ptr, out_ptr, sel_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    half = n_elements // 2
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    # Lanes at or past n_elements // 2 read `other`, and those lanes are still stored.
    y = tl.load(y_ptr + offsets, mask=offsets < half, other=-2.0)
    picked = tl.where(x > y, x - y, tl.abs(x) * 0.5)
    out = picked + tl.minimum(x, y) * tl.maximum(x, 0.25) - x / (tl.abs(y) + 1.0)
    out = -out + 3.0
    tl.store(out_ptr + offsets, out, mask=mask)
    sel = tl.where(x >= y, 1.0, -1.0) + tl.where(x != y, 0.0, 10.0)
    tl.store(sel_ptr + offsets, sel, mask=mask)
