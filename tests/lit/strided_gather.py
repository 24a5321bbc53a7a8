# Irregular (strided) offsets are the one case that gathers; a uniform pointer is a
# scalar load broadcast to the tile.
# RUN: %tilec compile %s -k strided -s "*fp32, *fp32, i32, 64" --target x86-64-v4 --emit vector | FileCheck %s
import triton.language as tl
import triton


@triton.jit
def strided(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    s = tl.load(x_ptr)  # uniform: one scalar load
    v = tl.load(x_ptr + offs * 2, mask=offs * 2 < n, other=0.0)
    tl.store(out_ptr + offs, v + s)

# CHECK: llvm.load {{.*}} -> f32
# CHECK: vector.gather
# CHECK: vector.store
# CHECK-NOT: vector.scatter
