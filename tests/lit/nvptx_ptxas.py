# NVIDIA's assembler accepts the PTX of the nvptx target at sm_80 and sm_90, math through
# libdevice included (its __nv_* functions are linked in and inlined: no call remains).
# REQUIRES: ptxas, libdevice
# RUN: %tilec compile %s -k act -s "*fp32:16, *fp32:16, i32, 1024" --target nvptx --arch sm_80 --emit ptx > %t.80.ptx
# RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
# RUN: %tilec compile %s -k act -s "*fp32:16, *fp64:16, i32, 256" --target nvptx --arch sm_90 --num-warps 2 --emit ptx > %t.90.ptx
# RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
# RUN: FileCheck %s < %t.80.ptx
import triton
import triton.language as tl


@triton.jit
def act(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.exp(x) * tl.sigmoid(x) + tl.sqrt(tl.abs(x)) + tl.math.erf(x) + tl.log(1.0 + x * x)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=m)

# CHECK: .visible .entry act(
# CHECK-NOT: call
# CHECK: ex2.approx
