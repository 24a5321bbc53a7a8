# The tl.dot operands of a K loop are loaded num_stages - 1 trips ahead (Triton's software
# pipelining, backend/nvptx_pipeline.c): one cp.async.cg of 16 bytes per chunk into a ring of
# num_stages shared buffers; the first trip issues trips 0 .. S-2, each trip waits for its own
# group (cp.async.wait_group S-2), meets the other warps at a barrier, issues trip t+S-1 and
# commits it, then runs its MMAs (ldmatrix + mma.sync) on buffer t mod S. num_stages 1 turns it
# off; operands the axis analysis cannot prove 16-byte aligned (a stride without :16) are
# loaded in the trip that uses them, as before. ptxas: no spills at the bench's config.
# RUN: %tilec compile %s -k mm -s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 32" --target nvptx --arch sm_90 --emit ptx > %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: FileCheck %s --check-prefix=WAIT < %t.ptx
# RUN: grep -c 'cp.async.cg.shared.global \[%%rd[0-9]*\], \[%%rd[0-9+]*\], 16, %%r[0-9]*;' %t.ptx | FileCheck %s --check-prefix=COUNT
# RUN: FileCheck %s --check-prefix=ZFILL < %t.ptx
# RUN: %tilec compile %s -k mm -s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 32" --target nvptx --arch sm_90 --num-stages 4 --emit ptx | FileCheck %s --check-prefix=FOUR
# RUN: %tilec compile %s -k mm -s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 32" --target nvptx --arch sm_90 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=OFF
# RUN: %tilec compile %s -k mm -s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32, i32:16, 128, 128, 32" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=UNALIGNED
# Shared memory: fp32 128x128x64 takes 69 KB a stage. On sm_90 3 stages fit, and the
# accumulator's 64 KB buffer after the loop takes the stages' bytes (they live in the loop);
# on sm_80 (163 KB) 2 stages. The bench attention at d 128, BM 64, BN 128 (bf16, causal) goes
# over sm_80's shared memory with 3 stages only once its later buffers are in: it is lowered
# again with 2 (end_kernel's retry), not refused. (At BM 128, BN 32 it did too until buffers
# whose address ldmatrix takes were packed by where those addresses are used: 121,856 bytes
# with 3 stages now.)
# RUN: %tilec compile %s -k mm -s "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 64" --target nvptx --arch sm_90 --emit ptx > %t.f32.ptx
# RUN: FileCheck %s --check-prefix=FP32-90 < %t.f32.ptx
# RUN: FileCheck %s --check-prefix=FP32LD < %t.f32.ptx
# RUN: %tilec compile %s -k mm -s "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 64" --target nvptx --arch sm_80 --emit ptx | FileCheck %s --check-prefix=FP32-80
# RUN: %tilec compile %S/../../bench/kernels/attention.py -k attn_fwd_kernel -s "*bf16:16, *bf16:16, *bf16:16, *bf16:16, *fp32:16, fp32, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 64, 128, True" --target nvptx --arch sm_80 --emit ptx | FileCheck %s --check-prefix=RETRY
# A loop's own tl.range(..., num_stages=N) sets its depth over the kernel's (also over --num-stages 1);
# out of 1..8 it is an error at the call.
# RUN: %tilec compile %s -k mm_range -s "*fp16:16, *fp16:16, *fp16:16, i32:16, 128, 128, 32, 2" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=RANGE2
# RUN: %tilec compile %s -k mm_range -s "*fp16:16, *fp16:16, *fp16:16, i32:16, 128, 128, 32, 4" --target nvptx --arch sm_90 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=RANGE4
# RUN: %tilec compile %s -k mm_range -s "*fp16:16, *fp16:16, *fp16:16, i32:16, 128, 128, 32, 9" --target nvptx --emit ptx 2>&1 | FileCheck %s --check-prefix=RANGE9
# RUN: %tilec compile %s -k mm_range -s "*fp16:16, *fp16:16, *fp16:16, i32:16, 128, 128, 32, 2" --target host --emit llvm > /dev/null
import triton
import triton.language as tl


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :]
    b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kb in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_tile, mask=(rows[:, None] < M) & (ks[None, :] < K - kb * BK), other=0.0)
        b = tl.load(b_tile, mask=(ks[:, None] < K - kb * BK) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BK
        b_tile += BK * stride_bk
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16))

@triton.jit
def mm_range(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in tl.range(0, K, BK, num_stages=STAGES):
        a = tl.load(a_ptr + rows[:, None] * K + (k0 + ks)[None, :])
        b = tl.load(b_ptr + (k0 + ks)[:, None] * BN + cols[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * BN + cols[None, :], acc.to(tl.float16))

# RANGE2: cp.async.wait_group 0;
# RANGE4: cp.async.wait_group 2;
# num_stages is a hint (Triton's): 9 is the deepest pipeline, 8 stages
# RANGE9: cp.async.wait_group 6;

# Each trip: its group has landed, the warps meet, trip t+2 goes out (committed), the MMAs:
# (the PTX's block order is LLVM's: the MMAs may come first in the text)
# CHECK: .visible .entry mm(
# CHECK-DAG: cp.async.commit_group;
# CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# WAIT: cp.async.wait_group 1;
# WAIT-NEXT: bar.sync 0;
# 4 + 4 chunks of 16 bytes a trip, in the first trip's loop over trips 0 and 1 and in every trip,
# each with a source size (16, or 0 where its mask is false: zero filled, as other=0.0 asks):
# COUNT: 16
# and no edge path through registers (no global load at all: the operands only by cp.async)
# ZFILL: .visible .entry mm(
# ZFILL-NOT: ld.global
# ZFILL: ret;

# FOUR: cp.async.wait_group 2;

# OFF-NOT: cp.async
# OFF: mma.sync.aligned.m16n8k16
# OFF-NOT: cp.async

# A's rows are stride_am apart, not known to be 16-byte aligned: A is loaded in the trip that
# uses it, element by element (its edge path), and stored to its buffer; B is still pipelined.
# UNALIGNED-DAG: cp.async.wait_group 1;
# UNALIGNED-DAG: cp.async.cg.shared.global
# UNALIGNED-DAG: cp.async.commit_group;
# UNALIGNED-DAG: ld.global.b16
# UNALIGNED-DAG: mma.sync.aligned.m16n8k16

# FP32-90: cp.async.wait_group 1;
# FP32-90: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# B's tf32 elements come from the stage buffer with ld.shared, never a generic ld (LD.E):
# FP32LD-NOT: {{^\s+ld\.b32}}
# FP32LD: ld.shared.b32
# FP32LD-NOT: {{^\s+ld\.b32}}
# FP32LD: ret;

# FP32-80: cp.async.wait_group 0;
# FP32-80: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

# RETRY-NOT: cp.async.wait_group 1;
# RETRY: cp.async.wait_group 0;
# RETRY-NOT: cp.async.wait_group 1;
# RETRY: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
