# Barriers between global accesses each thread makes at its own positions (backend/nvptx.c,
# owned accesses): a rank-1 nest deals position p to thread (p / width) mod T, so two accesses
# through one base pointer computed outside every loop, with offsets that are multiples of
# the CTA's span of chunks (width * T lanes), touch each element from one thread and need no
# barrier between them. Through two bases the barrier runs only when they are not congruent
# modulo that span (bytes): an scf.if on (a - b) & (span - 1) != 0 around it. A loop's one
# barrier needed only for what ran before the loop (a scalar store) moves before the loop.
# Cross entropy (bench/kernels/cross_entropy.py), its gradient written in place: no
# unconditional barrier in either of its store loops; the gradient loop's barrier runs only
# when x_ptr and dx_ptr are not congruent modulo 8 chunks of 16 bytes * 256 threads = 4096.
# RUN: %tilec compile %S/../../bench/kernels/cross_entropy.py -k cross_entropy_kernel -s "*bf16:16, *bf16:16, *i64:16, *fp32:16, i32:16, i32:16, i32, i32, 4096" --target nvptx --arch sm_90 --num-warps 8 --emit vector | FileCheck %s --check-prefix=CE
# RUN: %tilec compile %s -k inplace -s "*fp32:16, i32, 1024" --target nvptx --arch sm_90 --num-warps 4 --emit vector | FileCheck %s --check-prefix=SAME
# RUN: %tilec compile %s -k reversed -s "*fp32:16, i32, 1024" --target nvptx --arch sm_90 --num-warps 4 --emit vector | FileCheck %s --check-prefix=REV
# RUN: %tilec compile %s -k inplace -s "*fp32:16, i32, 1024" --target nvptx-emu --num-warps 4 --emit vector | FileCheck %s --check-prefix=EMU
# Scalar stores run on thread 0 only: none is ordered against another (layer norm's mean and
# rstd stores: one barrier after both, before the normalizing loop, not one after each).
# RUN: %tilec compile %S/../../bench/kernels/layernorm.py -k layernorm_fwd_kernel -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 8192" --target nvptx --arch sm_90 --num-warps 8 --emit vector | FileCheck %s --check-prefix=LN
# A scalar store of thread 0 and a tile whose span from its base is known (its offsets a
# tl.arange: memory.c's span marks) are ordered only when the scalar meets the span: rmsnorm's
# rstd store, then its 4096 bf16 of the row (8192 bytes): the barrier runs when
# rstd - row + 3 < 8195 (unsigned), never in the bench (distinct buffers).
# RUN: %tilec compile %S/../../bench/kernels/rmsnorm.py -k rmsnorm_fwd_kernel -s "*bf16:16, *bf16:16, *bf16:16, *fp32:16, i32:16, i32:16, fp32, 4096" --target nvptx --arch sm_90 --num-warps 8 --emit vector | FileCheck %s --check-prefix=RMS
import triton
import triton.language as tl


@triton.jit
def inplace(x_ptr, n, BLOCK: tl.constexpr):
    # one base: each trip reads and writes the positions of its threads, no barrier at all
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n)
        tl.store(x_ptr + cols, x * 2.0, mask=cols < n)


@triton.jit
def reversed(x_ptr, n, BLOCK: tl.constexpr):
    # positions read by other threads than the ones that write them: the barriers stay
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + start + BLOCK - 1 - tl.arange(0, BLOCK))
        tl.store(x_ptr + cols, x * 2.0)

# The ignored rows' loop (zeros stored): its barrier before the loop, none in the trips.
# CE-LABEL: func.func @__tilec_kernel_cross_entropy_kernel(
# CE: nvvm.barrier0
# CE-NEXT: scf.for
# CE-NOT: nvvm.barrier0
# CE: vector.maskedstore
# CE-NOT: nvvm.barrier0
# CE: llvm.getelementptr %arg3
# CE-NEXT: nvvm.barrier0
# The online softmax loop: its two reductions' barriers, one each.
# CE: scf.for {{.*}} iter_args
# CE: nvvm.barrier0
# CE: nvvm.barrier0
# The gradient loop: the barrier before it orders the loss store; in the trips one
# conditional barrier.
# CE: llvm.store
# CE: nvvm.barrier0
# CE-NEXT: scf.for
# CE: [[A:%[0-9]+]] = llvm.ptrtoint
# CE-NEXT: [[B:%[0-9]+]] = llvm.ptrtoint
# CE-NEXT: [[D:%[0-9]+]] = arith.subi [[A]], [[B]] : i64
# CE-NEXT: [[M:%[0-9]+]] = arith.andi [[D]], %c4095_i64 : i64
# CE-NEXT: [[C:%[0-9]+]] = arith.cmpi ne, [[M]], %c0_i64 : i64
# CE-NEXT: scf.if [[C]] {
# CE-NEXT: nvvm.barrier0
# CE-NEXT: }
# CE-NOT: nvvm.barrier0
# CE: vector.{{(masked)?}}load
# CE-NOT: nvvm.barrier0
# CE: vector.{{(masked)?}}store
# CE-NOT: nvvm.barrier0
# CE: return

# SAME-LABEL: func.func @__tilec_kernel_inplace(
# SAME-NOT: nvvm.barrier0
# SAME: vector.load
# SAME-NOT: nvvm.barrier0
# SAME: vector.store
# SAME-NOT: nvvm.barrier0
# SAME: return

# REV-LABEL: func.func @__tilec_kernel_reversed(
# REV: scf.for
# REV: nvvm.barrier0
# REV-NOT: scf.if
# REV: vector.store
# REV: return

# The emulator's barrier goes the same way.
# EMU-LABEL: func.func @__tilec_kernel_inplace(
# EMU-NOT: tilec_rt_emu_barrier()
# EMU: return

# LN-LABEL: func.func @__tilec_kernel_layernorm_fwd_kernel(
# LN: llvm.store
# LN-NOT: nvvm.barrier0
# LN: llvm.store {{.*}} !llvm.ptr
# LN-NEXT: }
# LN-NEXT: nvvm.barrier0
# LN-NEXT: scf.for

# RMS-LABEL: func.func @__tilec_kernel_rmsnorm_fwd_kernel(
# RMS: nvvm.barrier0
# RMS: llvm.store
# RMS-NOT: nvvm.barrier0
# RMS: llvm.ptrtoint
# RMS-NEXT: llvm.ptrtoint
# RMS-NEXT: arith.subi
# RMS-NEXT: arith.subi {{.*}}, %c-3_i64 : i64
# RMS-NEXT: [[C:%[0-9]+]] = arith.cmpi ult, {{.*}}, %c8195_i64 : i64
# RMS-NEXT: scf.if [[C]] {
# RMS-NEXT: nvvm.barrier0
# RMS-NEXT: }
# RMS-NOT: nvvm.barrier0
# RMS: vector.{{(masked)?}}store
# RMS-NOT: nvvm.barrier0
# RMS: return
