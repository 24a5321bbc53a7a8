# nvptx compiles with floating-point contraction on, as Triton does by default
# (enable_fp_fusion=True: a * b + c is one fma.rn, as LLVM's AllowFPOpFusion=Fast and ptxas
# --fmad=true give Triton); the emulator's x86 code contracts the same way where the host
# has FMA. --no-fp-fusion (tilec_compile_options.no_fp_fusion: Triton's enable_fp_fusion=False)
# rounds every product and sum on its own, and marks them so ptxas does not fuse them either
# (mul.rn/add.rn). The CPU targets keep separately rounded products and sums.
# RUN: %tilec compile %s -k axpy -s "*fp32:16, *fp32:16, *fp32:16, fp32, 1024" --target nvptx --emit ptx | FileCheck %s
# RUN: %tilec compile %s -k axpy -s "*fp64:16, *fp64:16, *fp64:16, fp64, 1024" --target nvptx --emit ptx | FileCheck %s --check-prefix=F64
# RUN: %tilec compile %s -k axpy -s "*fp32:16, *fp32:16, *fp32:16, fp32, 1024" --target nvptx --no-fp-fusion --emit ptx | FileCheck %s --check-prefix=NOFUSE
# RUN: %tilec compile %s -k axpy -s "*fp32:16, *fp32:16, *fp32:16, fp32, 1024" --target x86-64-v3 --emit llvm | FileCheck %s --check-prefix=CPU
import triton
import triton.language as tl


@triton.jit
def axpy(x_ptr, y_ptr, out_ptr, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, a * x + y - x * y)

# CHECK: .visible .entry axpy(
# CHECK: fma.rn.f32
# CHECK-NOT: mul.rn.f32

# F64: fma.rn.f64

# NOFUSE-NOT: fma.rn
# NOFUSE: mul.rn.f32
# NOFUSE-NOT: fma.rn
# NOFUSE: add.rn.f32
# NOFUSE-NOT: fma.rn

# CPU-NOT: contract
# CPU: fmul <{{[0-9]+}} x float>
# CPU-NOT: contract
