# tl.dot of int8 tiles into int32 on nvptx runs on tensor cores from sm_80 as
# mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 (no .satfinite: the sums wrap like the CPU
# targets'): A's fragments, and a transposed B's (tl.trans of an [N, K] tile), with ldmatrix
# (each b16 element two k-adjacent bytes). ldmatrix.trans would move 16-bit elements, not
# bytes: a row-major B (N a multiple of 16) of a K loop's dot is first written transposed to
# shared memory by the threads (16-byte loads, prmt, 32-bit stores) and read like a tl.trans
# B; a narrower one, or a one-off dot's, four ld.shared.b8 a register. The K loop's accumulator stays in the MMA fragments (no local
# memory). Older chips, and the CPU, keep the integer FMA code.
# RUN: %tilec compile %s -k mm_loop -s "*i8, *i8, *i32, i32, 64, 64, 32, False" --target nvptx --arch sm_90 --emit ptx | FileCheck %s
# RUN: %tilec compile %s -k mm_loop -s "*i8, *i8, *i32, i32, 64, 64, 64, False" --target nvptx --arch sm_80 --emit ptx | FileCheck %s --check-prefix=K64
# RUN: %tilec compile %s -k mm_loop -s "*i8, *i8, *i32, i32, 64, 64, 32, True" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=TRANS
# RUN: %tilec compile %s -k mm_loop -s "*i8, *i8, *i32, i32, 64, 8, 32, False" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=BYTES
# RUN: %tilec compile %s -k mm_loop -s "*i8, *i8, *i32, i32, 64, 64, 32, False" --target nvptx --arch sm_75 --emit ptx | FileCheck %s --check-prefix=OLD
# RUN: %tilec compile %s -k mm_loop -s "*i8, *i8, *i32, i32, 64, 64, 32, False" --emit llvm | FileCheck %s --check-prefix=CPU
import triton
import triton.language as tl


@triton.jit
def mm_loop(a_ptr, b_ptr, c_ptr, KT, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr, TRANS_B: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, BK)
    acc = tl.zeros((M, N), dtype=tl.int32)
    for kt in range(0, KT):
        a = tl.load(a_ptr + m[:, None] * (KT * BK) + (kt * BK + k)[None, :])
        if TRANS_B:
            b = tl.trans(tl.load(b_ptr + n[:, None] * (KT * BK) + (kt * BK + k)[None, :]))
        else:
            b = tl.load(b_ptr + (kt * BK + k)[:, None] * N + n[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + m[:, None] * N + n[None, :], acc)

# 4 warps over 64x64: each warp 32x32 = 2 x 4 tiles of 16x8, 8 MMAs a k32 step; A's 2 and
# B's 2 ldmatrix.x4 (two n-tiles each) a step; B^T built with prmt and 32-bit stores.
# CHECK: .visible .entry mm_loop(
# CHECK-NOT: .local
# CHECK-NOT: ld.shared.b8
# CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# CHECK-NEXT: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
# CHECK-COUNT-7: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
# CHECK-NOT: mma.sync
# CHECK-NOT: ld.shared.b8
# CHECK: ld.shared.v4.b32
# CHECK: prmt.b32
# CHECK: st.shared.b32
# CHECK-NOT: .local
# CHECK-NOT: ld.shared.b8
# CHECK: st.shared.v2.b32

# BK = 64: two k32 steps a loop step (the inner loop over them unrolled: 16 MMAs).
# K64: .visible .entry mm_loop(
# K64-NOT: .local
# K64-COUNT-16: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
# K64-NOT: mma.sync
# K64-NOT: satfinite

# TRANS: .visible .entry mm_loop(
# TRANS-NOT: .local
# TRANS-NOT: ld.shared.b8
# TRANS-NOT: prmt
# TRANS: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# TRANS-COUNT-8: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
# TRANS-NOT: mma.sync
# TRANS-NOT: prmt

# N = 8: one 16x8 tile a warp, B's register from four byte loads.
# BYTES: .visible .entry mm_loop(
# BYTES-NOT: .local
# BYTES: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# BYTES-COUNT-8: ld.shared.b8
# BYTES: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
# BYTES-NOT: mma.sync

# OLD-NOT: mma.sync
# OLD-NOT: ldmatrix
# OLD: .visible .entry mm_loop(

# CPU-NOT: mma
# CPU: define {{.*}}mm_loop
