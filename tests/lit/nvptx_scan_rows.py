# Scans along the last axis of a 2-D tile on nvptx (backend/nvptx_reduce.c): rows short
# enough for a group of G <= 16 lanes are scanned T / G at a time, a row per lane group
# (128 rows of 64 fp32 = 16 chunks: groups of 16 lanes, 8 rows a pass, 16 passes; the CTA
# took the rows one at a time, 128 trips with 7 threads in 8 idle). The group's inclusive
# shuffle scan (up by 1, 2, 4, 8, then 1 for the exclusive prefix) stops at its first lane,
# with no barrier in the passes' loop. Rows that need more than 16
# lanes keep the CTA per row.
# RUN: %tilec compile %s -k rows -s "*fp32:16, *fp32:16, 128, 64" --target nvptx --arch sm_90 --emit vector | FileCheck %s
# RUN: %tilec compile %s -k rows -s "*fp32:16, *fp32:16, 4, 1024" --target nvptx --arch sm_90 --emit vector | FileCheck %s --check-prefix=LONG
import triton
import triton.language as tl


@triton.jit
def rows(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(y_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=1))

# CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1
# CHECK-COUNT-5: nvvm.shfl.sync  up
# CHECK-NOT: nvvm.shfl.sync  up
# CHECK: nvvm.barrier0

# LONG: scf.for %{{.*}} = %c0 to %c4 step %c1
