# tl.dot on nvptx: fp16 and bf16 tiles into fp32 run on tensor cores from sm_80
# (mma.sync.m16n8k16, C's 16x8 tiles dealt to the warps; the operands and C in shared
# memory); other dots — fp32 inputs, older chips — deal C's blocks to the threads as FMAs.
# RUN: %tilec compile %s -k mm -s "*fp16, *fp16, *fp32, 64, 64, 32" --target nvptx --emit ptx | FileCheck %s
# RUN: %tilec compile %s -k mm -s "*bf16, *bf16, *fp32, 64, 32, 64" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=BF16
# RUN: %tilec compile %s -k mm -s "*fp16, *fp16, *fp32, 64, 64, 32" --target nvptx --arch sm_75 --emit ptx | FileCheck %s --check-prefix=OLD
# RUN: %tilec compile %s -k mm -s "*fp32, *fp32, *fp32, 32, 32, 32" --target nvptx --emit ptx | FileCheck %s --check-prefix=F32
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

# CHECK: .visible .entry mm(
# CHECK: bar.sync 0
# CHECK: ld.shared.b16
# CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# CHECK: st.shared.b32
# CHECK: bar.sync 0

# BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

# OLD-NOT: mma.sync
# OLD: fma.rn.f32
# OLD-NOT: mma.sync

# F32-NOT: mma.sync
# F32: fma.rn.f32
