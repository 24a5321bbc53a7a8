# Accumulation loops that run once (BLOCK = next_power_of_2(N), the tutorials' layer norm):
# a carried tile too large for the registers lives in a stack buffer, so the code from the
# first such loop on is versioned under `scf.if (each such loop runs once)`. The then-branch
# has the loops inlined: the accumulators are evaluated where the reductions consume them,
# with no access to the buffers; the else-branch is the buffered loop. The versioning is the
# pipeline's step single-trip-loops (tile IR in, tile IR out): the front end's IR and the IR
# after the step before it (dot-combine) have the plain loops; --emit single-trip-loops shows
# the versioned tile IR.
# RUN: %tilec compile %s -k two_pass -s "*fp32:16, *fp32:16, i32, 8192" --target x86-64-v4 --emit vector | FileCheck %s
# RUN: %tilec compile %s -k two_pass -s "*fp32:16, *fp32:16, i32, 8192" --emit tile | FileCheck %s --check-prefix=TILE
# RUN: %tilec compile %s -k two_pass -s "*fp32:16, *fp32:16, i32, 8192" --emit dot-combine | FileCheck %s --check-prefix=TILE
# RUN: %tilec compile %s -k two_pass -s "*fp32:16, *fp32:16, i32, 8192" --target x86-64-v4 --emit single-trip-loops | FileCheck %s --check-prefix=STEP
# RUN: %tilec compile %s -k two_pass -s "*fp32:16, *fp32:16, i32, 256" --target x86-64-v4 --emit vector | FileCheck %s --check-prefix=SMALL
import triton
import triton.language as tl


@triton.jit
def two_pass(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        d = tl.where(cols < N, tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.) - mean, 0.)
        acc += d * d
    tl.store(out_ptr + row, tl.sum(acc, axis=0) / N)

# The loops' trip counts are tested (lb < ub && ub - lb <= step in i64; with lb = 0 and
# both loops alike, canonicalization leaves 0 < N && N <= 8192), then the single-trip
# code reads x directly.
# CHECK: arith.cmpi sgt, {{.*}} : i64
# CHECK: arith.cmpi sle, {{.*}}, %c8192_i64 : i64
# CHECK: scf.if
# CHECK-NOT: memref<8192xf32>
# CHECK: vector.maskedload
# CHECK-NOT: memref<8192xf32>
# CHECK: } else {
# CHECK: vector.store {{.*}} memref<8192xf32>

# TILE-NOT: scf.if
# TILE: scf.for
# TILE: scf.for

# The then-branch has no loop: each accumulator is its initial value plus one trip's load.
# STEP: arith.cmpi sle, {{.*}} : i64
# STEP: scf.if %{{[0-9]+}} {
# STEP-NOT: scf.for
# STEP: "tile.load"
# STEP: "tile.reduce"
# STEP-NOT: scf.for
# STEP: } else {
# STEP: scf.for
# STEP: scf.for

# A tile that fits in the registers is carried there; nothing is versioned.
# SMALL-NOT: arith.cmpi sle, {{.*}} : i64
# SMALL: scf.while
