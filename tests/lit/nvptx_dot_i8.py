# tl.dot of int8 tiles into int32 on nvptx runs on tensor cores from sm_80 as
# mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 (no .satfinite: the sums wrap like the CPU
# targets'): A's fragments, and a transposed B's (tl.trans of an [N, K] tile), with ldmatrix
# (each b16 element two k-adjacent bytes); a row-major B four bytes a register (ldmatrix.trans
# would move 16-bit elements, not bytes). The K loop's accumulator stays in the MMA fragments
# (no local memory). Older chips, and the CPU, keep the integer FMA code.
# RUN: %tilec compile %s -k mm_loop -s "*i8, *i8, *i32, i32, 64, 64, 32, False" --target nvptx --arch sm_90 --emit ptx | FileCheck %s
# RUN: %tilec compile %s -k mm_loop -s "*i8, *i8, *i32, i32, 64, 64, 64, False" --target nvptx --arch sm_80 --emit ptx | FileCheck %s --check-prefix=K64
# RUN: %tilec compile %s -k mm_loop -s "*i8, *i8, *i32, i32, 64, 64, 32, True" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=TRANS
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

# 4 warps over 64x64: each warp 32x32 = 2 x 4 tiles of 16x8, 8 MMAs a k32 step.
# CHECK: .visible .entry mm_loop(
# CHECK-NOT: .local
# CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# CHECK-NOT: ldmatrix.sync.aligned.m8n8.x4.trans
# CHECK: ld.shared.{{u8|s8|b8}}
# CHECK-COUNT-8: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
# CHECK-NOT: mma.sync
# CHECK-NOT: .local
# CHECK: st.shared.v2.{{b32|u32|s32}}

# BK = 64: two k32 steps a loop step (an inner loop over them: 8 MMAs in its body).
# K64: .visible .entry mm_loop(
# K64-NOT: .local
# K64-COUNT-8: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
# K64-NOT: mma.sync
# K64-NOT: satfinite

# TRANS: .visible .entry mm_loop(
# TRANS-NOT: .local
# TRANS-NOT: ld.shared.{{u8|s8|b8}}
# TRANS: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# TRANS-NOT: ld.shared.{{u8|s8|b8}}
# TRANS-COUNT-8: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
# TRANS-NOT: mma.sync

# OLD-NOT: mma.sync
# OLD-NOT: ldmatrix
# OLD: .visible .entry mm_loop(

# CPU-NOT: mma
# CPU: define {{.*}}mm_loop
