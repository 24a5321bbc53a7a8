# sm_90a: a K loop's tl.dot accumulator (fp16/bf16 into fp32) on the warpgroup MMA
# (backend/nvptx_wgmma.c). The bench matmul (128x128x32, 4 warps = one warpgroup, 3 stages):
# both operands pipelined with cp.async into the core-matrix layout; each trip waits for its
# group, makes the copies visible to the async proxy (fence.proxy.async), meets the other
# warps, then runs 2 k steps x 2 m-tiles of wgmma.mma_async.m64n128k16 from the two stage
# buffers' descriptors (B row-major: N-major, imm-trans-b 1), commits and waits for the group.
# A B given as tl.trans(x) is K-major (imm-trans-b 0). sm_90 keeps mma.sync (its PTX runs on
# later chips too). ptxas: no spills, and no serialization of the wgmma.
# RUN: %tilec compile %S/../../bench/kernels/matmul.py -k matmul_kernel -s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 128, 32, 8" --target nvptx --arch sm_90a --emit ptx > %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: grep -c 'wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16' %t.ptx | FileCheck %s --check-prefix=COUNT
# RUN: %tilec compile %S/../../bench/kernels/matmul.py -k matmul_kernel -s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 128, 32, 8" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=SM90
# RUN: %tilec compile %S/../lang/pipeline/kernels.py -k recomputed_kernel -s "*bf16:16, *bf16:16, *fp32:16, i32:16, i32:16, i32:16, 64, 64, 32, 3" --target nvptx --arch sm_90a --emit ptx | FileCheck %s --check-prefix=TRANS

# CHECK: .target sm_90a
# CHECK: wgmma.fence.sync.aligned;
# CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;
# CHECK: wgmma.commit_group.sync.aligned;
# CHECK: wgmma.wait_group.sync.aligned 0;
# CHECK: cp.async.wait_group 1;
# CHECK-NEXT: // begin inline asm
# CHECK-NEXT: fence.proxy.async.shared::cta;
# CHECK-NEXT: // end inline asm
# CHECK-NEXT: bar.sync 0;
# RUN: FileCheck %s --check-prefix=NOSYNC < %t.ptx
# NOSYNC-NOT: mma.sync
# NOSYNC-NOT: ldmatrix

# COUNT: 4

# SM90: .target sm_90
# SM90-NOT: wgmma
# SM90: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# SM90-NOT: wgmma

# TRANS: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;

# REQUIRES: ptxas
# RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
# PTXAS-NOT: serialized
# PTXAS: 0 bytes spill stores, 0 bytes spill loads
# PTXAS-NOT: serialized
