# Seeded dropout (tests/lang, family "dropout").
import triton
import triton.language as tl


@triton.jit
def dropout_kernel(x_ptr, out_ptr, keep_ptr, n, p, seed, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    inb = offs < n
    x = tl.load(x_ptr + offs, mask=inb)
    u = tl.rand(seed, offs)
    keep = u > p
    y = tl.where(keep, x / (1 - p), 0.0)
    tl.store(out_ptr + offs, y, mask=inb)
    tl.store(keep_ptr + offs, keep.to(tl.int8), mask=inb)
