# A tensor descriptor parameter on a GPU is passed by value: the PTX entry takes the caller's
# tilec_tensor_descriptor (base, shape[4], strides[4], padding: 80 bytes) as one byval
# parameter and reads its fields with ld.param, so the host's args[i] (a pointer to the
# struct, as on the CPU) is exactly what cuLaunchKernel copies. A `.u64 .ptr` parameter
# loaded through global memory would read the descriptor's first 8 bytes (its base) as the
# descriptor's address. nvptx-emu takes the parameters from args[] the same way (a copy of
# each declared byval struct, a value of each other parameter): __tilec_emu_launch_K.
# RUN: %tilec compile %s -k desc_copy -s "tensordesc<fp32[8,16]>, tensordesc<fp32[8,16]>, i32" --target nvptx --emit ptx | FileCheck %s
# RUN: %tilec compile %s -k desc_copy -s "tensordesc<fp32[8,16]>, tensordesc<fp32[8,16]>, i32" --target nvptx-emu --emit llvm | FileCheck %s --check-prefix=EMU
# RUN: %tilec compile %s -k desc_copy -s "tensordesc<fp32[8,16]>, tensordesc<fp32[8,16]>, i32" --emit llvm | FileCheck %s --check-prefix=CPU
import triton
import triton.language as tl


@triton.jit
def desc_copy(in_desc, out_desc, M):
    for m in range(0, M, 8):
        out_desc.store([m, 0], in_desc.load([m, 0]))

# CHECK: .visible .entry desc_copy(
# CHECK-NEXT: .param .align 8 .b8 desc_copy_param_0[80],
# CHECK-NEXT: .param .align 8 .b8 desc_copy_param_1[80],
# CHECK-NEXT: .param .u32 desc_copy_param_2
# CHECK-NOT: .local
# CHECK-NOT: ld.global{{.*}}param
# CHECK: mov.b64 %rd[[D:[0-9]+]], desc_copy_param_0;
# CHECK: ld.param.b64 {{.*}}[desc_copy_param_0+40];
# CHECK: ld.param.b64 %rd[[BASE:[0-9]+]], [%rd[[D]]];
# CHECK-NEXT: cvta.to.global.u64 %rd{{[0-9]+}}, %rd[[BASE]];
# CHECK-NOT: .local

# EMU: define void @__tilec_emu_launch_desc_copy(ptr {{.*}}%0, i32 %1, i32 %2, i32 %3, i32 %4, i32 %5, i32 %6)
# EMU: %[[A:[0-9]+]] = load ptr, ptr %0
# EMU: call void @llvm.memcpy.p0.p0.i64(ptr {{.*}}, ptr {{.*}}%[[A]], i64 80, i1 false)
# EMU: call void @llvm.memcpy.p0.p0.i64(ptr {{.*}}, ptr {{.*}}, i64 80, i1 false)
# EMU: call void @tilec_rt_emu_cta(

# The CPU keeps its C ABI: a pointer to the caller's descriptor, no byval.
# CPU: define void @__tilec_kernel_desc_copy(ptr
# CPU-NOT: byval
