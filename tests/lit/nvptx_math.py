# fp32 math on NVIDIA follows Triton (third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/
# ElementwiseOpToLLVM.cpp; docs/NVPTX.md "Math accuracy"): `/` is div.full.f32 (no IEEE
# div.rn and its slow path), tl.exp is ex2.approx.f32 of x * log2(e), tl.exp2, tl.sqrt and
# tl.rsqrt are ex2/sqrt/rsqrt.approx.ftz.f32 (what Triton's libdevice calls become with
# __CUDA_FTZ=1). The accurate forms stay accurate: tl.div_rn and tl.fdiv(ieee_rounding=True)
# are div.rn.f32, tl.sqrt_rn sqrt.rn.f32, libdevice.exp __nv_expf. fp16 divides in fp32
# (div.full, one rounding back); fp64 keeps div.rn.f64 and sqrt.rn.f64. The CPU computes
# every form accurately (no approx intrinsic).
# REQUIRES: libdevice
# RUN: %tilec compile %s -k softmax -s "*fp32, *fp32, 1024" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=SOFTMAX
# RUN: %tilec compile %s -k forms -s "*fp32, *fp32, *fp32, 'div_rn'" --target nvptx --emit ptx | FileCheck %s --check-prefix=DIVRN
# RUN: %tilec compile %s -k forms -s "*fp32, *fp32, *fp32, 'fdiv_ieee'" --target nvptx --emit ptx | FileCheck %s --check-prefix=DIVRN
# RUN: %tilec compile %s -k forms -s "*fp32, *fp32, *fp32, 'fdiv'" --target nvptx --emit ptx | FileCheck %s --check-prefix=FULL
# RUN: %tilec compile %s -k forms -s "*fp16, *fp16, *fp16, 'div'" --target nvptx --emit ptx | FileCheck %s --check-prefix=HALF
# RUN: %tilec compile %s -k forms -s "*fp64, *fp64, *fp64, 'div'" --target nvptx --emit ptx | FileCheck %s --check-prefix=F64
# RUN: %tilec compile %s -k forms -s "*fp32, *fp32, *fp32, 'sqrt'" --target nvptx --emit ptx | FileCheck %s --check-prefix=SQRT
# RUN: %tilec compile %s -k forms -s "*fp32, *fp32, *fp32, 'sqrt_rn'" --target nvptx --emit ptx | FileCheck %s --check-prefix=SQRTRN
# RUN: %tilec compile %s -k forms -s "*fp64, *fp64, *fp64, 'sqrt'" --target nvptx --emit ptx | FileCheck %s --check-prefix=SQRTRN64
# RUN: %tilec compile %s -k forms -s "*fp32, *fp32, *fp32, 'libdevice_exp'" --target nvptx --emit ptx | FileCheck %s --check-prefix=NVEXP
# RUN: %tilec compile %s -k forms -s "*fp32, *fp32, *fp32, 'exp2'" --target nvptx --emit ptx | FileCheck %s --check-prefix=EXP2
# RUN: %tilec compile %s -k forms -s "*fp32, *fp32, *fp32, 'rsqrt'" --target nvptx --emit ptx | FileCheck %s --check-prefix=RSQRT
# RUN: %tilec compile %s -k softmax -s "*fp32, *fp32, 1024" --emit llvm | FileCheck %s --check-prefix=CPU
# RUN: not %tilec compile %s -k forms -s "*fp32, *fp32, *fp32, 'both'" --target nvptx --emit ptx 2>&1 | FileCheck %s --check-prefix=BOTH
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def softmax(out_ptr, in_ptr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + tl.program_id(0) * BLOCK + cols)
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + tl.program_id(0) * BLOCK + cols, num / tl.sum(num, axis=0))


@triton.jit
def forms(x_ptr, y_ptr, out_ptr, FN: tl.constexpr):
    i = tl.arange(0, 128)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    if FN == "div":
        r = x / y
    elif FN == "div_rn":
        r = tl.math.div_rn(x, y)
    elif FN == "fdiv":
        r = tl.math.fdiv(x, y)
    elif FN == "fdiv_ieee":
        r = tl.math.fdiv(x, y, ieee_rounding=True)
    elif FN == "both":
        r = tl.math.fdiv(x, y, ieee_rounding=True, approx=True)
    elif FN == "sqrt":
        r = tl.sqrt(x)
    elif FN == "sqrt_rn":
        r = tl.sqrt_rn(x)
    elif FN == "libdevice_exp":
        r = libdevice.exp(x)
    elif FN == "exp2":
        r = tl.exp2(x)
    else:
        r = tl.rsqrt(x)
    tl.store(out_ptr + i, r)

# SOFTMAX: .visible .entry softmax(
# SOFTMAX-NOT: div.rn
# SOFTMAX: mul{{(\.rn)?}}.f32 [[P:%r[0-9]+]], {{%r[0-9]+}}, 0f3FB8AA3B;
# SOFTMAX-NEXT: ex2.approx.f32 {{%r[0-9]+}}, [[P]];
# SOFTMAX-NOT: div.rn
# SOFTMAX: div.full.f32
# SOFTMAX-NOT: div.rn
# SOFTMAX-NOT: __nv_

# DIVRN-NOT: div.full
# DIVRN: div.rn.f32
# DIVRN-NOT: div.full

# FULL-NOT: div.rn
# FULL: div.full.f32
# FULL-NOT: div.rn

# HALF: cvt.f32.f16
# HALF: div.full.f32
# HALF: cvt.rn.f16

# F64-NOT: div.full
# F64: div.rn.f64

# SQRT: sqrt.approx.ftz.f32
# SQRT-NOT: sqrt.rn
# SQRTRN-NOT: sqrt.approx
# SQRTRN: sqrt.rn.f32
# SQRTRN64: sqrt.rn.f64

# libdevice's __nv_expf: a reduction in fma, then ex2.approx.ftz of the reduced argument
# NVEXP: fma.rn.f32
# NVEXP: cvt.sat.f32.f32
# NVEXP: ex2.approx.ftz.f32
# NVEXP-NOT: ex2.approx.f32

# EXP2-NOT: mul.rn.f32 {{.*}}0f3FB8AA3B
# EXP2: ex2.approx.ftz.f32
# RSQRT: rsqrt.approx.ftz.f32

# CPU-NOT: llvm.nvvm
# CPU-NOT: tilec.precise
# CPU: fdiv

# BOTH: error: approx and ieee_rounding cannot both be True
