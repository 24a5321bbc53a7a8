# tl.dot of fp32 tiles on nvptx follows Triton on NVIDIA: input_precision "tf32" (the default,
# also allow_tf32=True) runs on tensor cores as mma.sync.m16n8k8 .tf32 with each operand
# register rounded by cvt.rna.tf32.f32 (A, and a transposed B, through ldmatrix; a row-major B
# element by element); "tf32x3" runs three MMAs per tile and k step on the operands' tf32 big
# and small parts (v - big), the small products' NaN (inf - inf) dropped before they join C;
# "bf16x3" / "bf16x6" split the operands into 2 / 3 bf16 parts (cvt.rn.bf16x2.f32) for 3 / 6
# m16n8k16 .bf16 MMAs the same way; "ieee" (also allow_tf32=False) stays exact fp32 FMAs. The
# loop's accumulator stays in the MMA fragments (no local memory).
# RUN: %tilec compile %s -k mm_loop -s "*fp32, *fp32, *fp32, i32, 64, 64, 32, 'default'" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=TF32
# RUN: %tilec compile %s -k mm_loop -s "*fp32, *fp32, *fp32, i32, 64, 64, 32, 'tf32'" --target nvptx --arch sm_80 --emit ptx | FileCheck %s --check-prefix=TF32
# RUN: %tilec compile %s -k mm_loop -s "*fp32, *fp32, *fp32, i32, 64, 64, 32, 'allow_tf32=True'" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=TF32
# RUN: %tilec compile %s -k mm_loop -s "*fp32, *fp32, *fp32, i32, 64, 64, 32, 'tf32x3'" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=X3
# RUN: %tilec compile %s -k mm_loop -s "*fp32, *fp32, *fp32, i32, 64, 64, 32, 'ieee'" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=IEEE
# RUN: %tilec compile %s -k mm_loop -s "*fp32, *fp32, *fp32, i32, 64, 64, 32, 'allow_tf32=False'" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=IEEE
# RUN: %tilec compile %s -k mm_loop -s "*fp32, *fp32, *fp32, i32, 64, 64, 32, 'bf16x3'" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=BF3
# RUN: %tilec compile %s -k mm_loop -s "*fp32, *fp32, *fp32, i32, 64, 64, 32, 'bf16x6'" --target nvptx --arch sm_80 --emit ptx | FileCheck %s --check-prefix=BF6
# RUN: %tilec compile %s -k mm_loop -s "*fp32, *fp32, *fp32, i32, 64, 64, 32, 'tf32'" --target nvptx --arch sm_75 --emit ptx | FileCheck %s --check-prefix=IEEE
# RUN: %tilec compile %s -k mm_loop -s "*fp32, *fp32, *fp32, i32, 64, 64, 32, 'tf32'" --emit llvm | FileCheck %s --check-prefix=CPU
import triton
import triton.language as tl


@triton.jit
def mm_loop(a_ptr, b_ptr, c_ptr, KT, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr, P: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, BK)
    acc = tl.zeros((M, N), dtype=tl.float32)
    for kt in range(0, KT):
        a = tl.load(a_ptr + m[:, None] * (KT * BK) + (kt * BK + k)[None, :])
        b = tl.load(b_ptr + (kt * BK + k)[:, None] * N + n[None, :])
        if P == "default":
            acc = tl.dot(a, b, acc)
        elif P == "allow_tf32=True":
            acc = tl.dot(a, b, acc, allow_tf32=True)
        elif P == "allow_tf32=False":
            acc = tl.dot(a, b, acc, allow_tf32=False)
        else:
            acc = tl.dot(a, b, acc, input_precision=P)
    tl.store(c_ptr + m[:, None] * N + n[None, :], acc)

# 4 warps over 64x64: each warp 32x32 = 2 x 4 tiles of 16x8, 8 MMAs a k8 step.
# TF32: .visible .entry mm_loop(
# TF32-NOT: .local
# TF32: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# TF32: ld.shared.{{b32|f32}}
# TF32: cvt.rna.tf32.f32
# TF32-COUNT-8: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# TF32-NOT: mma.sync
# TF32-NOT: .local
# TF32: st.shared.v2.{{b32|f32}}

# X3: .visible .entry mm_loop(
# X3-NOT: .local
# X3: cvt.rna.tf32.f32
# X3: sub.{{(rn.)?}}f32
# X3: cvt.rna.tf32.f32
# X3-COUNT-24: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# X3-NOT: mma.sync
# X3-NOT: .local

# 8 tiles a warp, a k16 step: 24 MMAs (bf16x3), 48 (bf16x6).
# BF3: .visible .entry mm_loop(
# BF3-NOT: .local
# BF3: ld.shared.v2.{{b32|f32}}
# BF3: cvt.rn.bf16x2.f32
# BF3-COUNT-24: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# BF3-NOT: mma.sync
# BF3-NOT: .local

# BF6: .visible .entry mm_loop(
# BF6-NOT: .local
# BF6: cvt.rn.bf16x2.f32
# BF6-COUNT-48: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# BF6-NOT: mma.sync
# BF6-NOT: .local

# IEEE-NOT: mma.sync
# IEEE-NOT: cvt.rna.tf32
# IEEE: fma.rn.f32
# IEEE-NOT: mma.sync

# CPU-NOT: tf32
# CPU: fma
