# The nvptx target: one program is one CTA of 32 * num_warps threads, a nest's 128-bit
# chunks dealt to the threads round-robin and fenced by barriers where they order something
# (nvptx_memory_bound.py); the PTX entry takes the
# kernel's parameters and reads the program id from %ctaid. A tile one nest writes and
# another reads at other positions lives in dynamic shared memory; reductions: nvptx_reduce.py;
# atomics and device_print run once, on thread 0, between barriers (one vprintf per element,
# in the CPU runtime's format). Unknown chips and warp counts are refused before LLVM sees
# them.
# RUN: %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target nvptx --emit ptx | FileCheck %s
# RUN: %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target nvptx --arch sm_90 --num-warps 8 --emit ptx | FileCheck %s --check-prefix=W8
# RUN: %tilec compile %s -k softmax -s "*fp32, *fp32, 512" --target nvptx --emit ptx | FileCheck %s --check-prefix=SOFTMAX
# RUN: %tilec compile %s -k transpose -s "*fp32, *fp32, 32" --target nvptx --emit ptx | FileCheck %s --check-prefix=TRANS
# RUN: not %tilec compile %s -k transpose -s "*fp32, *fp32, 256" --target nvptx --arch sm_80 --emit ptx 2>&1 | FileCheck %s --check-prefix=TOOBIG
# RUN: %tilec compile %s -k three_transposes -s "*fp32, *fp32, *fp32, *fp32, 128" --target nvptx --arch sm_80 --emit ptx | FileCheck %s --check-prefix=PACKED
# RUN: %tilec compile %s -k count -s "*i32, *fp32, 256" --target nvptx --emit ptx | FileCheck %s --check-prefix=ATOMIC
# RUN: %tilec compile %s -k show -s "*fp32, 16" --target nvptx --emit ptx | FileCheck %s --check-prefix=PRINT
# RUN: not %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target nvptx --arch sm_99 --emit ptx 2>&1 | FileCheck %s --check-prefix=ARCH
# RUN: not %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target nvptx --num-warps 3 --emit ptx 2>&1 | FileCheck %s --check-prefix=WARPS
# RUN: %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target nvptx --emit ptx | FileCheck %s --check-prefix=VER70
# RUN: %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target nvptx --arch sm_90 --ptx-version 8.3 --emit ptx | FileCheck %s --check-prefix=PTX83
# RUN: not %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target nvptx --arch sm_90 --ptx-version 7.0 --emit ptx 2>&1 | FileCheck %s --check-prefix=PTXLOW
# RUN: not %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target nvptx --ptx-version 9.9 --emit ptx 2>&1 | FileCheck %s --check-prefix=PTXBAD
# RUN: not %tilec compile %s -k add -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --emit ptx 2>&1 | FileCheck %s --check-prefix=HOST
import triton
import triton.language as tl


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def softmax(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + offs, e / tl.sum(e, axis=0))


@triton.jit
def transpose(x_ptr, out_ptr, B: tl.constexpr):
    i = tl.arange(0, B)
    x = tl.load(x_ptr + i[:, None] * B + i[None, :])
    tl.store(out_ptr + i[:, None] * B + i[None, :], tl.trans(x))


@triton.jit
def three_transposes(x_ptr, y_ptr, z_ptr, out_ptr, B: tl.constexpr):
    # three tiles of B*B fp32 through shared memory, one after the other: at B = 128 (64 KB
    # each) the three would not fit an sm_80 CTA together (192 KB), but their lifetimes do
    # not overlap, so the packed buffers share bytes and the kernel keeps 64 KB (the chip's
    # limit is checked after packing)
    i = tl.arange(0, B)
    x = tl.load(x_ptr + i[:, None] * B + i[None, :])
    tl.store(out_ptr + i[:, None] * B + i[None, :], tl.trans(x))
    y = tl.load(y_ptr + i[:, None] * B + i[None, :])
    tl.store(out_ptr + B * B + i[:, None] * B + i[None, :], tl.trans(y))
    z = tl.load(z_ptr + i[:, None] * B + i[None, :])
    tl.store(out_ptr + 2 * B * B + i[:, None] * B + i[None, :], tl.trans(z))


@triton.jit
def count(n_ptr, x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.atomic_add(n_ptr, tl.sum((x > 0).to(tl.int32), axis=0))


@triton.jit
def show(x_ptr, BLOCK: tl.constexpr):
    tl.device_print("x", tl.load(x_ptr + tl.arange(0, BLOCK)))

# CHECK: .target sm_80
# CHECK: .visible .entry add(
# CHECK: .maxntid 128
# CHECK-DAG: %tid.x
# CHECK-DAG: %ctaid.x
# chunks wholly inside `offs < n` are one aligned 128-bit access per operand (x, y: :16)
# CHECK: ld.global.v4.b32
# CHECK: ld.global.v4.b32
# CHECK: add{{(\.rn)?}}.f32
# CHECK: st.global.v4.b32

# W8: .target sm_90
# W8: .maxntid 256

# SOFTMAX: .visible .entry softmax(
# SOFTMAX: bar.sync 0

# the transposed tile is written by the threads into shared memory, then read across
# TRANS: .extern .shared .align 1024 .b8 __tilec_shared[];
# TRANS: .visible .entry transpose(
# TRANS: st.shared
# TRANS: bar.sync 0
# TRANS: ld.shared

# a 256x256 fp32 tile does not fit in a CTA's shared memory: a located error at compile time
# TOOBIG: nvptx.py:{{[0-9]+}}:{{[0-9]+}}: error: this kernel keeps 262144 bytes of tiles in shared memory; a CTA on sm_80 has at most 166912

# three 64 KB tiles one after the other: 192 KB unpacked, one 64 KB after packing, accepted
# PACKED: __tilec_shared_bytes_three_transposes = 65536

# ATOMIC: bar.sync 0
# ATOMIC: atom.global.add.u32
# ATOMIC: bar.sync 0
# PRINT: .extern .func  (.param .b32 func_retval0) vprintf
# PRINT: %tid.x
# PRINT: call.uni (retval0), vprintf,

# ARCH: error: unknown NVIDIA GPU architecture 'sm_99'
# WARPS: error: num_warps must be a power of 2 from 1 to 32
# HOST: --emit ptx needs --target nvptx

# the PTX ISA version: the chip's lowest by default (sm_80: 7.0), or --ptx-version, checked
# against the chip before LLVM (which aborts on an impossible pair)
# VER70: .version 7.0
# VER70: .target sm_80
# PTX83: .version 8.3
# PTX83: .target sm_90
# PTXLOW: error: PTX ISA 7.0 cannot target sm_90: it needs PTX 7.8 or later
# PTXBAD: error: unknown PTX ISA version '9.9' (expected MAJOR.MINOR from 3.2 to 9.0, e.g. 8.0)
