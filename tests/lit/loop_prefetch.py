# A loop over rows whose row pointer is recomputed from the induction variable each trip
# (the tutorial softmax's persistent loop) or advanced by a loop-carried `+=` of a value
# the loop computes after the load: each
# contiguous chunk the loop loads is prefetched (to L2) one trip ahead, at the chunk's
# index plus the per-trip step in elements (conversion/memory.c trip_delta): num_programs
# rows times the row stride, which the hardware prefetchers do not follow.
# RUN: %tilec compile %s -k rows -s "*fp32:16, *fp32:16, i32, i32, 1024" --target x86-64-v4 --emit vector | FileCheck %s
# RUN: %tilec compile %s -k rows_carried -s "*fp32:16, *fp32:16, i32, i32, 1024" --target x86-64-v4 --emit vector | FileCheck %s --check-prefix=CARRIED
import triton
import triton.language as tl


@triton.jit
def rows(out_ptr, in_ptr, stride, n_rows, BLOCK: tl.constexpr):
    for r in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        x = tl.load(in_ptr + r * stride + tl.arange(0, BLOCK))
        tl.store(out_ptr + r, tl.sum(x, axis=0))


@triton.jit
def rows_carried(out_ptr, in_ptr, stride, n_rows, BLOCK: tl.constexpr):
    p = in_ptr + tl.program_id(0) * stride + tl.arange(0, BLOCK)
    nprog = tl.num_programs(0)
    for r in tl.range(tl.program_id(0), n_rows, nprog):
        x = tl.load(p)
        tl.store(out_ptr + r, tl.sum(x, axis=0))
        p += nprog * stride

# The trip step (the loop's step, num_programs) times the stride, as an element index.
# CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STEP:[^ ]*]]
# CHECK: %[[S64:.*]] = arith.extsi %[[STEP]] : i32 to i64
# CHECK-NEXT: %[[T:.*]] = arith.muli %[[S64]], %{{.*}} : i64
# CHECK-NEXT: %[[D:.*]] = arith.index_cast %[[T]] : i64 to index
# CHECK-NEXT: memref.prefetch %[[ROW:.*]][%[[D]]], read, locality<2>, data
# CHECK: scf.for %[[J:.*]] = %c64 to %c1024
# CHECK-NEXT: %[[A:.*]] = arith.addi %[[J]], %[[D]] : index
# CHECK-NEXT: memref.prefetch %[[ROW]][%[[A]]], read, locality<2>, data
# CHECK-NEXT: vector.load %[[ROW]][%[[J]]]

# The carried pointer: its increment, nprog * stride, is computed after the load in the
# loop; the prefetch computes it again from its lowered factors.
# CARRIED: scf.for
# CARRIED: %[[N:.*]] = arith.extsi %{{.*}} : i32 to i64
# CARRIED-NEXT: %[[S:.*]] = arith.extsi %{{.*}} : i32 to i64
# CARRIED-NEXT: %[[T:.*]] = arith.muli %[[N]], %[[S]] : i64
# CARRIED-NEXT: %[[D:.*]] = arith.index_cast %[[T]] : i64 to index
# CARRIED-NEXT: %[[A:.*]] = arith.addi %{{.*}}, %[[D]] : index
# CARRIED-NEXT: memref.prefetch %{{.*}}[%[[A]]], read, locality<2>, data
# CARRIED-NEXT: vector.load
