# The nvptx target (first step): one program is one CTA of 32 * num_warps threads, a nest's
# 128-bit chunks dealt to the threads round-robin; the PTX entry takes the kernel's
# parameters and reads the program id from %ctaid. Ops that need threads to exchange
# values are refused with a located error; so are unknown chips and warp counts, before
# LLVM sees them.
# RUN: %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target nvptx --emit ptx | FileCheck %s
# RUN: %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target nvptx --arch sm_90 --num-warps 8 --emit ptx | FileCheck %s --check-prefix=W8
# RUN: not %tilec compile %s -k row_sum -s "*fp32, *fp32, 256" --target nvptx --emit ptx 2>&1 | FileCheck %s --check-prefix=SUM
# RUN: not %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target nvptx --arch sm_99 --emit ptx 2>&1 | FileCheck %s --check-prefix=ARCH
# RUN: not %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target nvptx --num-warps 3 --emit ptx 2>&1 | FileCheck %s --check-prefix=WARPS
# RUN: not %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --emit ptx 2>&1 | FileCheck %s --check-prefix=HOST
import triton
import triton.language as tl


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def row_sum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * BLOCK + tl.arange(0, BLOCK))
    tl.store(out_ptr + row, tl.sum(x, axis=0))

# CHECK: .target sm_80
# CHECK: .visible .entry add(
# CHECK: .maxntid 128
# CHECK: %tid.x
# CHECK: %ctaid.x
# CHECK: add.rn.f32

# W8: .target sm_90
# W8: .maxntid 256

# SUM: nvptx.py:27:{{[0-9]+}}: error: reductions (tl.sum, tl.max, tl.reduce, ...) are not supported on nvptx yet

# ARCH: error: unknown NVIDIA GPU architecture 'sm_99'
# WARPS: error: num_warps must be a power of 2 from 1 to 32
# HOST: --emit ptx needs --target nvptx
