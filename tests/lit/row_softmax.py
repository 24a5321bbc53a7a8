# A softmax row (whole row one tile, runtime length n): the row is read from memory by
# the max and again by exp(x - max) without a stack copy (nothing writes in between);
# the max reduction over the masked load runs unmasked full chunks with a masked rest;
# exp(x - max), which the sum and the store both read, is buffered by the sum's own loop
# in the output row itself when the row overlaps no row the kernel reads, or is the input
# row itself (a run-time check; else the stack buffer), and the division pass rescales it
# there in place (conversion/output_buffer.c); no write prefetches of the output line
# (the capture writes it).
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

# Only the exp values are buffered: one stack buffer, for the fallback.
# CHECK: %[[STACK:.*]] = memref.alloca() {{.*}} : memref<4096xf32>
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
# The buffer: the output row [out, out + 16 KiB) when it is apart from the input row.
# CHECK: %[[OUT:.*]] = builtin.unrealized_conversion_cast {{.*}} to memref<?xf32>
# CHECK: %[[OLO:.*]] = llvm.ptrtoint
# CHECK-NEXT: %[[OHI:.*]] = arith.addi %[[OLO]], %c16384_i64
# CHECK-NEXT: %[[ILO:.*]] = llvm.ptrtoint
# CHECK-NEXT: %[[IHI:.*]] = arith.addi %[[ILO]], %c16384_i64
# CHECK-NEXT: %[[B1:.*]] = arith.cmpi ule, %[[IHI]], %[[OLO]] : i64
# CHECK-NEXT: %[[B2:.*]] = arith.cmpi ule, %[[OHI]], %[[ILO]] : i64
# CHECK-NEXT: %[[APART:.*]] = arith.ori %[[B1]], %[[B2]] : i1
# or the same row (in place: only the exp pass reads it, each chunk before writing it)
# CHECK-NEXT: %[[SAME:.*]] = arith.cmpi eq, %[[ILO]], %[[OLO]] : i64
# CHECK-NEXT: %[[OK:.*]] = arith.ori %[[APART]], %[[SAME]] : i1
# CHECK-NEXT: %[[CAST:.*]] = memref.cast %[[STACK]] : memref<4096xf32> to memref<?xf32>
# CHECK-NEXT: %[[BUF:.*]] = arith.select %[[OK]], %[[OUT]], %[[CAST]] : memref<?xf32>
# CHECK-NOT: memref.prefetch {{.*}} write
# The exp, in line (sleef-glue/inline_exp.c): its last op puts NaN inputs back; the first
# chunks are written under the store's mask (they may be past n), full ones unmasked.
# CHECK: math.roundeven
# CHECK: vector.maskedstore %[[BUF]][%c0]
# CHECK: scf.for {{.*}} iter_args
# CHECK: math.roundeven
# CHECK: arith.cmpf uno
# CHECK-NEXT: arith.select
# CHECK-NEXT: vector.store {{.*}}, %[[BUF]]
# CHECK-NEXT: arith.addf
# The division pass (after the horizontal sum) reads the buffer and writes the row (in
# place when BUF is the row);
# its tail reads only the lanes the store writes.
# CHECK: vector.extract
# CHECK: scf.for %{{.*}} = %c0
# CHECK-NEXT: vector.load %[[BUF]]
# CHECK: arith.divf
# CHECK-NEXT: vector.store {{.*}}, %[[OUT]]
# CHECK: vector.maskedload %[[BUF]]
# CHECK: arith.divf
# CHECK-NEXT: vector.maskedstore %[[OUT]]
