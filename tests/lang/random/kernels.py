# Random numbers (tests/lang, family "random"): ranges and statistics only.
import triton
import triton.language as tl


@triton.jit
def rand_kernel(u_ptr, g_ptr, r_ptr, seed, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(u_ptr + offs, tl.rand(seed, offs), mask=m)
    tl.store(g_ptr + offs, tl.randn(seed, offs), mask=m)
    tl.store(r_ptr + offs, tl.randint(seed, offs), mask=m)


@triton.jit
def rand2d_kernel(u_ptr, seed, M: tl.constexpr, N: tl.constexpr):
    # 2-D offsets tile
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    offs = r[:, None] * N + c[None, :]
    tl.store(u_ptr + offs, tl.rand(seed, offs))
