# A 65536-element tile is a loop over native-width chunks: no huge vector types appear,
# at any stage, and the object is as small as for BLOCK_SIZE=1024.
# RUN: %tilec compile %s -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 65536" --target x86-64-v4 --emit vector | FileCheck %s
# RUN: %tilec compile %s -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 65536" --target x86-64-v4 --emit asm | FileCheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

# CHECK-NOT: vector<65536
# CHECK-NOT: vector<1024
# CHECK: arith.constant 65536 : i64
# CHECK: vector.load {{.*}} vector<16xf32>
# CHECK-NOT: vector.gather
# ASM: vaddps {{.*}}zmm
