# sm_90a: attention's two tl.dot on the warpgroup MMA (backend/nvptx_wgmma.c). The bench
# kernel (BLOCK_M 128, BLOCK_N 64, HEAD_DIM 64, 4 warps = one warpgroup): the rows plan is
# the warpgroups' (warp w holds rows 64 i + 16 w + g, + 8, every column), so s = q @ k^T stays
# in wgmma's accumulator registers and the row max/sum are the quads' shuffles as on mma.sync.
# q, the same every trip, is staged once before the loop in the swizzled K-major layout (its
# stores made visible to the async proxy); k and v are pipelined by cp.async into swizzled
# stages, in one group (one wait a trip). s: 4 k steps x 2 m-tiles of m64n64k16 from two descriptors (k^T = tl.trans(k):
# K-major, imm-trans-b 0), the first of each m-tile with scale-d 0 (s starts at zero: no
# accumulator registers to clear). p @ v: A from the registers s's fragments were converted
# into ({a0..a3}: mma.sync's A fragment of the warp's 16 rows), B = v N-major (imm-trans-b 1).
# No mma.sync, no ldmatrix; ptxas: no spills and no serialization of the wgmma.
# RUN: %tilec compile %S/../../bench/kernels/attention.py -k attn_fwd_kernel -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 128, 64, False" --target nvptx --arch sm_90a --emit ptx > %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: FileCheck %s --check-prefix=SCORES < %t.ptx
# RUN: FileCheck %s --check-prefix=PV < %t.ptx
# RUN: FileCheck %s --check-prefix=NOSYNC < %t.ptx
# RUN: grep -c 'wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {[^}]*}, %rd[0-9]*, %rd[0-9]*, p, 1, 1, 0, 0;' %t.ptx | FileCheck %s --check-prefix=COUNT
# RUN: grep -c 'wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {[^}]*}, {%r[0-9]*, %r[0-9]*, %r[0-9]*, %r[0-9]*}, %rd[0-9]*, p, 1, 1, 1;' %t.ptx | FileCheck %s --check-prefix=COUNT
# k and v in one pipeline group: one cp.async wait a trip (and one proxy fence before its barrier)
# RUN: grep -c 'cp.async.wait_group' %t.ptx | FileCheck %s --check-prefix=ONE
# RUN: %tilec compile %S/../../bench/kernels/attention.py -k attn_fwd_kernel -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 128, 64, False" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=SM90

# q staged before the loop, swizzled, then published to the async proxy
# CHECK: .target sm_90a
# CHECK: st.shared.v4
# CHECK: fence.proxy.async.shared::cta;
# CHECK-NEXT: // end inline asm
# CHECK-NEXT: bar.sync 0;
# (the loop's blocks are laid out rotated: the two dots are checked apart)
# the scores: scale-d 0 on the first k step, then the row max by the quad's two shuffles
# SCORES: wgmma.fence.sync.aligned;
# SCORES: setp.ne.b32 p, %r{{[0-9]+}}, 0;
# SCORES: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
# SCORES: wgmma.commit_group.sync.aligned;
# SCORES: wgmma.wait_group.sync.aligned 0;
# SCORES: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
# SCORES: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
# p @ v: A from registers (p rounded to f16 pairs)
# PV: cvt.rn.f16x2.f32
# PV: wgmma.fence.sync.aligned;
# PV: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
# PV: wgmma.commit_group.sync.aligned;
# PV: wgmma.wait_group.sync.aligned 0;

# NOSYNC-NOT: mma.sync
# NOSYNC-NOT: ldmatrix

# COUNT: 8
# ONE: 1

# SM90: .target sm_90
# SM90-NOT: wgmma
# SM90: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# SM90-NOT: wgmma

# REQUIRES: ptxas
# RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
# PTXAS-NOT: serialized
# PTXAS: 0 bytes spill stores, 0 bytes spill loads
# PTXAS-NOT: serialized
