# Vector width and ISA come from the target: AVX2 code has no zmm registers.
# RUN: %tilec compile %s -k scale -s "*fp32, *fp32, i32, 1024" --target x86-64-v3 --emit asm | FileCheck %s --check-prefix=AVX2
# RUN: %tilec compile %s -k scale -s "*fp32, *fp32, i32, 1024" --target x86-64-v4 --emit asm | FileCheck %s --check-prefix=AVX512
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0 + 1.0, mask=m)

# AVX2-NOT: zmm
# AVX2: ymm
# AVX2-NOT: zmm
# AVX512: zmm
