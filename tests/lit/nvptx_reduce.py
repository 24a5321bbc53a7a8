# Reductions on nvptx are computed by the CTA's threads together: each thread folds its
# chunks of the row, the lanes of a warp combine through five shfl.sync.down steps (16, 8,
# 4, 2, 1), lane 0 of each warp leaves the warp's value in shared memory and, after a
# barrier, every thread combines the warps' values. 64-bit values are shuffled in two
# 32-bit halves. A reduction over a leading axis deals the
# output's chunks to the threads instead (no shuffles); one over the last axis of a tile of
# many rows gives each row to a group of 8-32 lanes (shuffles within the group). A scan deals each thread a run of
# chunks: the runs' totals are scanned with shfl.sync.up in each warp, carried across warps
# through shared memory, and each thread scans its run again from its carry.
# RUN: %tilec compile %s -k total -s "*fp32, *fp32, i32, 1024" --target nvptx --emit ptx | FileCheck %s
# RUN: %tilec compile %s -k total -s "*fp64, *fp64, i32, 1024" --target nvptx --emit ptx | FileCheck %s --check-prefix=F64
# RUN: %tilec compile %s -k total -s "*fp32, *fp32, i32, 1024" --target nvptx --num-warps 1 --emit ptx | FileCheck %s --check-prefix=ONEWARP
# RUN: %tilec compile %s -k rows -s "*fp32, *i32, 64, 64" --target nvptx --emit ptx | FileCheck %s --check-prefix=ROWS
# RUN: %tilec compile %s -k cols -s "*fp32, *fp32, 64, 64" --target nvptx --emit ptx | FileCheck %s --check-prefix=COLS
# RUN: %tilec compile %s -k prefix -s "*fp32, *fp32, 4096" --target nvptx --emit ptx | FileCheck %s --check-prefix=SCAN
import triton
import triton.language as tl


@triton.jit
def total(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + tl.program_id(0), tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))


@triton.jit
def rows(x_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.arange(0, BM)
    x = tl.load(x_ptr + r[:, None] * BN + tl.arange(0, BN)[None, :])
    tl.store(out_ptr + r, tl.argmax(x, axis=1))


@triton.jit
def cols(x_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    c = tl.arange(0, BN)
    x = tl.load(x_ptr + tl.arange(0, BM)[:, None] * BN + c[None, :])
    tl.store(out_ptr + c, tl.max(x, axis=0))

@triton.jit
def prefix(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.cumsum(tl.load(x_ptr + i), axis=0))

# CHECK: .visible .entry total(
# CHECK-NOT: bar.sync
# CHECK: shfl.sync.down.b32 {{.*}}, 16, 31, -1;
# CHECK: add{{(\.rn)?}}.f32
# CHECK: shfl.sync.down.b32 {{.*}}, 8, 31, -1;
# CHECK: shfl.sync.down.b32 {{.*}}, 4, 31, -1;
# CHECK: shfl.sync.down.b32 {{.*}}, 2, 31, -1;
# CHECK: shfl.sync.down.b32 {{.*}}, 1, 31, -1;
# CHECK: st.shared.b32
# CHECK: bar.sync 0
# CHECK: ld.shared.b32
# CHECK-NOT: bar.sync

# F64: shfl.sync.down.b32 {{.*}}, 16, 31, -1;
# F64: shfl.sync.down.b32 {{.*}}, 16, 31, -1;
# F64: add{{(\.rn)?}}.f64
# F64: st.shared.b64

# one warp: lane 0 holds the fold and broadcasts it through shared memory
# ONEWARP: shfl.sync.down.b32 {{.*}}, 1, 31, -1;
# ONEWARP: st.shared
# ONEWARP: bar.sync 0
# ONEWARP: ld.shared

# many rows: a row per group of 8 lanes (16 chunks of 4), argmax's (value, index) pairs
# through the group's 3 shuffles together, no barrier until the result tile is complete;
# the result (a 64-byte aligned shared buffer) read back 16 bytes at a time
# ROWS: .visible .entry rows(
# ROWS-NOT: bar.sync
# ROWS: setp.gt.f32
# ROWS-NOT: bar.sync
# ROWS: shfl.sync.down.b32 {{.*}}, 4, 31, -1;
# ROWS: shfl.sync.down.b32 {{.*}}, 4, 31, -1;
# ROWS-NOT: bar.sync
# ROWS: shfl.sync.down.b32 {{.*}}, 2, 31, -1;
# ROWS-NOT: bar.sync
# ROWS: shfl.sync.down.b32 {{.*}}, 1, 31, -1;
# ROWS-NOT: bar.sync
# ROWS: st.shared.b32
# ROWS: bar.sync 0
# ROWS: ld.shared.v4.b32

# COLS-NOT: shfl.sync
# COLS: max.f32

# SCAN: .visible .entry prefix(
# SCAN: shfl.sync.up.b32 {{.*}}, 1, 0, -1;
# SCAN: shfl.sync.up.b32 {{.*}}, 2, 0, -1;
# SCAN: shfl.sync.up.b32 {{.*}}, 16, 0, -1;
# SCAN: st.shared.b32
# SCAN: bar.sync 0
# SCAN: ld.shared.b32
