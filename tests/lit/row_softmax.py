# A softmax row (whole row one tile, runtime length n): the row is read from memory by
# the max and again by exp(x - max) without a stack copy (nothing writes in between);
# the max reduction over the masked load runs unmasked full chunks with a masked rest;
# exp(x - max), which the sum and the store both read, is buffered by the sum's own loop,
# which also prefetches (for writing) the output line the division pass stores later.
# RUN: %tilec compile %s -k softmax -s "*fp32:16, *fp32:16, i32, 4096" --target x86-64-v4 --emit vector | FileCheck %s
import triton
import triton.language as tl


@triton.jit
def softmax(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * n + cols, mask=cols < n, other=-float('inf'))
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n + cols, num / tl.sum(num, axis=0), mask=cols < n)

# Only the exp values are buffered: one stack buffer.
# CHECK: memref.alloca() {{.*}} : memref<4096xf32>
# CHECK-NOT: memref.alloca
# The max: a 4-way unrolled loop of plain loads, each folded in with a NaN-ignoring select
# (one vmaxps), then the masked rest; a row that comes out as -inf is recomputed with maxnum.
# CHECK: scf.for {{.*}} iter_args
# CHECK-NOT: vector.maskedload
# CHECK: %[[X:.*]] = vector.load
# CHECK-NEXT: %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[ACC:.*]] : vector<16xf32>
# CHECK-NEXT: arith.select %[[GT]], %[[X]], %[[ACC]]
# CHECK-NOT: arith.maxnumf
# CHECK: scf.yield
# CHECK: vector.maskedload
# The exp, in line (sleef-glue/inline_exp.c): its last op puts NaN inputs back.
# CHECK: math.roundeven
# CHECK: scf.for {{.*}} iter_args
# CHECK: math.roundeven
# CHECK: arith.cmpf uno
# CHECK-NEXT: arith.select
# CHECK-NEXT: vector.store
# CHECK-NEXT: memref.prefetch {{.*}}, write, locality<3>, data
# CHECK-NEXT: arith.addf
