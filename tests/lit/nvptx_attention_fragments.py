# Attention's scores on nvptx stay in the warps' MMA fragments (backend/nvptx_frags.c,
# "fragment tiles"): s = q @ k^T is read only by row reductions and, through elementwise
# ops, by the A operand of p @ v, so with the warps along M (BLOCK_M >= 16 x warps) each
# row's max and sum are folded in the lane and combined across the row's 4 lanes (butterfly
# shuffles by 2 and 1, no 8-lane groups), and p @ v's A fragments are converted from s's C
# fragments. The row vectors m_i, l_i, m_new, alpha stay in the quads' registers ("row
# vectors"): the loop carries them as 4 f32 a lane (2 m-tiles x rows g, g + 8) beside the
# accumulator's 16 fragments, and its body reads and writes no shared memory but through
# ldmatrix and cp.async (the vector stage: no memref/vector load or store in the loop). k and v
# are loaded in one pipeline group (backend/nvptx_pipeline.c: the first dot of the loop loads
# the later one's operands too): the loop's barriers are its first-trip and per-trip ones, one
# cp.async wait a trip, none between the row reductions and p @ v. With BLOCK_M = 16 (one m-tile for 4
# warps) the scores go through shared memory and the row-group reductions (groups of 8
# lanes: shuffles by 4, 2, 1).
# RUN: %tilec compile %s -k attn -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, 128, 64, 64" --target nvptx --arch sm_90 --emit ptx | FileCheck %s
# RUN: %tilec compile %s -k attn -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, 128, 64, 64" --target nvptx --arch sm_90 --emit vector | FileCheck %s --check-prefix=ROWS
# RUN: %tilec compile %s -k attn -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, 16, 64, 64" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=SMALL
import triton
import triton.language as tl


@triton.jit
def attn(q_ptr, k_ptr, v_ptr, o_ptr, N_CTX, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + offs_m[:, None] * D + offs_d[None, :])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for start in range(0, N_CTX, BN):
        k = tl.load(k_ptr + (start + offs_n)[:, None] * D + offs_d[None, :])
        s = tl.dot(q, tl.trans(k))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + (start + offs_n)[:, None] * D + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    tl.store(o_ptr + offs_m[:, None] * D + offs_d[None, :], (acc / l_i[:, None]).to(tl.float16))

# CHECK: .visible .entry attn(
# CHECK-NOT: shfl.sync.down.b32 {{.*}}, 4, 31, -1;
# CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# CHECK-NOT: shfl.sync.down.b32 {{.*}}, 4, 31, -1;
# CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
# CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
# CHECK-NOT: shfl.sync.down.b32
# CHECK: ex2.approx
# CHECK-NOT: shfl.sync.down.b32

# q, computed before the loop, is staged once into rows padded to 72 halves (ldmatrix without
# bank conflicts; its row-major buffer's 128-byte rows put all 8 rows of an ldmatrix in one
# bank group), then the loop reads it there.
# ROWS: memref.cast {{.*}} to memref<9216xf16>
# ROWS: vector.store {{.*}} vector<8xf16>
# ROWS: scf.for {{.*}} -> (f32, f32, f32, f32, vector<4xf32>, {{.*}}, vector<4xf32>, f32, f32, f32, f32)
# ROWS-NOT: {{memref.load|memref.store|vector.load|vector.store}}
# ROWS: scf.if
# ROWS-NEXT: nvvm.barrier0
# ROWS-NOT: {{memref.load|memref.store|vector.load|vector.store}}
# ROWS: nvvm.cp.async.wait.group 1
# ROWS-NEXT: nvvm.barrier0
# ROWS-NOT: {{memref.load|memref.store|vector.load|vector.store|nvvm.barrier0|nvvm.cp.async.wait.group}}
# ROWS: nvvm.shfl.sync  bfly
# ROWS-NOT: {{memref.load|memref.store|vector.load|vector.store|nvvm.barrier0|nvvm.cp.async.wait.group}}
# ROWS: nvvm.mma.sync
# ROWS-NOT: {{memref.load|memref.store|vector.load|vector.store|nvvm.barrier0}}
# ROWS: scf.yield {{.*}} : f32, f32, f32, f32, vector<4xf32>
# ROWS-NEXT: }
# After the loop the thread's index is read anew (tc_nvptx_fresh_thread_id), then the row
# vectors and the accumulator go to shared memory for the code that follows.
# ROWS-NEXT: llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;"
# ROWS: llvm.intr.assume
# ROWS-NEXT: nvvm.barrier0

# SMALL: .visible .entry attn(
# SMALL: shfl.sync.down.b32 {{.*}}, 4, 31, -1;
