# Math on tiles calls SLEEF's vector entry point for the target's ISA and width: f16 on
# AVX-512, f8 on AVX2, f4 on SSE; u35 under --fast-math where SLEEF has it. (fp32 exp and
# exp2 are expanded in line instead: inline_exp.py.)
# RUN: %tilec compile %s -k k -s "*fp32, *fp32, 256" --target x86-64-v4 --emit vector | FileCheck %s --check-prefix=V4
# RUN: %tilec compile %s -k k -s "*fp32, *fp32, 256" --target x86-64-v3 --emit vector | FileCheck %s --check-prefix=V3
# RUN: %tilec compile %s -k k -s "*fp32, *fp32, 256" --target x86-64-v2 --emit vector | FileCheck %s --check-prefix=V2
# RUN: %tilec compile %s -k k -s "*fp32, *fp32, 256" --target x86-64-v4 --fast-math --emit vector | FileCheck %s --check-prefix=FAST
# RUN: %tilec compile %s -k k -s "*fp32, *fp32, 256" --target x86-64-v3 --emit asm | FileCheck %s --check-prefix=ASM3
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, o_ptr, B: tl.constexpr):
    i = tl.arange(0, B)
    x = tl.load(x_ptr + i)
    tl.store(o_ptr + i, tl.log(x) + tl.sin(x))

# V4: call @Sleef_logf16_u10
# V4: call @Sleef_sinf16_u10
# V3: call @Sleef_logf8_u10
# V3-NOT: f16_u
# V2: call @Sleef_logf4_u10
# FAST: call @Sleef_logf16_u35
# FAST: call @Sleef_sinf16_u35
# ASM3-NOT: zmm
# ASM3: Sleef_logf8_u10
# ASM3-NOT: zmm
