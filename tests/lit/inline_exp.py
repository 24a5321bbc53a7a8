# exp and exp2 on fp32 vectors are expanded in line (sleef-glue/inline_exp.c), on every ISA:
# a roundeven, FMAs and a power-of-two scaling, no SLEEF call; fp64 exp still calls SLEEF.
# The scaling is one VSCALEFPS per 16 lanes on AVX-512, two exponent-built factors on AVX2
# (the same results: each rounds once).
# (Accuracy: the lang "math" family's exp_ulp_sweep / exp2_ulp_sweep, at most 1 ulp.)
# RUN: %tilec compile %s -k k -s "*fp32, *fp32, 256" --target x86-64-v4 --emit vector | FileCheck %s --check-prefix=V4
# RUN: %tilec compile %s -k k -s "*fp32, *fp32, 256" --target x86-64-v3 --emit vector | FileCheck %s --check-prefix=V3
# RUN: %tilec compile %s -k k -s "*fp32, *fp32, 256" --target x86-64-v4 --emit asm | FileCheck %s --check-prefix=ASM4
# RUN: %tilec compile %s -k k -s "*fp32, *fp32, 256" --target x86-64-v3 --emit asm | FileCheck %s --check-prefix=ASM3
# RUN: %tilec compile %s -k k -s "*fp64, *fp64, 256" --target x86-64-v4 --emit vector | FileCheck %s --check-prefix=F64
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, o_ptr, B: tl.constexpr):
    i = tl.arange(0, B)
    x = tl.load(x_ptr + i)
    tl.store(o_ptr + i, tl.exp(x) + tl.exp2(x))

# V4-NOT: Sleef
# V4: math.roundeven {{.*}} : vector<16xf32>
# V4: math.fma
# V4-NOT: arith.bitcast
# V4: llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"
# V4: math.roundeven {{.*}} : vector<16xf32>
# V4-NOT: Sleef
# ASM4-NOT: call
# ASM4: vrndscaleps
# ASM4: vfmadd
# ASM4: vscalefps
# ASM4-NOT: call
# ASM3-NOT: call
# ASM3: vroundps
# ASM3-NOT: zmm
# ASM3-NOT: call
# F64: call @Sleef_expd8_u10
# V3-NOT: Sleef
# V3: math.roundeven {{.*}} : vector<8xf32>
# V3: math.fma
# V3: arith.bitcast {{.*}} : vector<8xi32> to vector<8xf32>
# V3-NOT: scalef
# V3-NOT: Sleef
