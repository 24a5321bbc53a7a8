# bench/kernels/vector_add.py — benchmark kernel: out = x + y over n elements, one BLOCK_SIZE
# chunk per program, masked tail. Memory-bound; the peer is a C `omp parallel for simd` loop.
# Compiled by scripts/bench.sh with BLOCK_SIZE = 1024 (16 Ki programs for 2^24 elements).
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    in_bounds = offs < n
    a = tl.load(x_ptr + offs, mask=in_bounds)
    b = tl.load(y_ptr + offs, mask=in_bounds)
    tl.store(out_ptr + offs, a + b, mask=in_bounds)
