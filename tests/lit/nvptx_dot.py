# tl.dot on nvptx: fp16 and bf16 tiles into fp32 run on tensor cores from sm_80
# (mma.sync.m16n8k16; C's 16x8 tiles dealt to the warps in 2-D blocks, the A and B fragments
# loaded with ldmatrix (.trans for B) once per k16 step; the operands in shared memory, C
# written to shared once);
# fp32 tiles with the default input_precision (tf32) run m16n8k8 .tf32 MMAs (nvptx_dot_tf32.py);
# other dots — exact fp32 (input_precision="ieee"), older chips — deal C's blocks to the threads as FMAs.
# A K loop's accumulator (`acc = tl.dot(a, b, acc)`, also `tl.dot(a, b, acc * s)`) stays in
# the warps' MMA fragments: the loop carries them, nothing of C goes through shared memory
# inside it, and C is stored to shared once after the loop.
# RUN: %tilec compile %s -k mm -s "*fp16, *fp16, *fp32, 64, 64, 32" --target nvptx --emit ptx | FileCheck %s
# RUN: %tilec compile %s -k mm -s "*bf16, *bf16, *fp32, 64, 32, 64" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=BF16
# RUN: %tilec compile %s -k mm -s "*fp16, *fp16, *fp32, 64, 64, 32" --target nvptx --arch sm_75 --emit ptx | FileCheck %s --check-prefix=OLD
# RUN: %tilec compile %s -k mm -s "*fp32, *fp32, *fp32, 32, 32, 32" --target nvptx --emit ptx | FileCheck %s --check-prefix=F32
# RUN: %tilec compile %s -k mm_loop -s "*fp16, *fp16, *fp32, i32, 128, 128, 32, 0" --target nvptx --arch sm_90 --emit vector | FileCheck %s --check-prefix=LOOP
# RUN: %tilec compile %s -k mm_loop -s "*fp16, *fp16, *fp32, i32, 128, 128, 32, 1" --target nvptx --arch sm_90 --emit vector | FileCheck %s --check-prefix=LOOP
# RUN: %tilec compile %s -k mm_loop -s "*fp16, *fp16, *fp32, i32, 128, 128, 32, 0" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=LOOPPTX
# RUN: %tilec compile %s -k mm_masked -s "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, 128, 128, 32" --target nvptx --arch sm_90 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=MASKED
import triton
import triton.language as tl


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    tl.store(c_ptr + m[:, None] * N + n[None, :], tl.dot(a, b))


@triton.jit
def mm_loop(a_ptr, b_ptr, c_ptr, KT, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr, SCALE: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, BK)
    acc = tl.zeros((M, N), dtype=tl.float32)
    for kt in range(0, KT):
        a = tl.load(a_ptr + m[:, None] * (KT * BK) + (kt * BK + k)[None, :])
        b = tl.load(b_ptr + (kt * BK + k)[:, None] * N + n[None, :])
        if SCALE:
            acc = tl.dot(a, b, acc * 0.5)
        else:
            acc = tl.dot(a, b, acc)
    tl.store(c_ptr + m[:, None] * N + n[None, :], acc)

@triton.jit
def mm_masked(a_ptr, b_ptr, c_ptr, M, N, K, ld, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # the tutorial's masked K loop (row strides ld, a multiple of 16 elements)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * ld + (k0 + rk)[None, :], mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * ld + rn[None, :], mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * ld + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

# CHECK: .visible .entry mm(
# CHECK: bar.sync 0
# CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# CHECK: st.shared.v2.b32
# CHECK: bar.sync 0

# BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

# OLD-NOT: mma.sync
# OLD: fma.rn.f32
# OLD-NOT: mma.sync

# F32: cvt.rna.tf32.f32
# F32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

# 4 warps over 128x128: each warp a 64x64 block, 32 tiles of 4 f32 carried by the K loop,
# the k16 loop inside it carrying them too; C's stores to shared come after the K loop.
# LOOP: {{%[0-9]+}}:32 = scf.for {{.*}} to %arg3 step
# LOOP-NOT: vector.store {{.*}}vector<2xf32>
# LOOP: {{%[0-9]+}}:32 = scf.for {{.*}} step %c16 iter_args(
# LOOP-NOT: vector.store {{.*}}vector<2xf32>
# LOOP-COUNT-32: nvvm.mma.sync
# LOOP-NOT: vector.store {{.*}}vector<2xf32>
# LOOP: scf.yield
# LOOP-NOT: vector.store {{.*}}vector<2xf32>
# LOOP: scf.yield
# LOOP-COUNT-64: vector.store {{.*}}vector<2xf32>

# LOOPPTX: .visible .entry mm_loop(
# LOOPPTX-NOT: .local
# LOOPPTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# LOOPPTX-NOT: .local

# Masked operand tiles loaded in the trip that uses them (num_stages 1; the default pipelines
# them with cp.async: nvptx_pipeline.py): where a thread's chunks are all inside the masks they
# load with ld.global.v4 (the alignment from ld:16) and are stored to shared as v4, all loads first.
# MASKED: .visible .entry mm_masked(
# MASKED-NOT: .local
# MASKED: ld.global.v4.b32
# MASKED: ld.global.v4.b32
# MASKED: st.shared.v4.b32
# MASKED: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# MASKED: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# MASKED: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# MASKED-NOT: .local
