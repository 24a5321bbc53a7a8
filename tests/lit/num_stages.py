# --num-stages N (tilec_compile_options.num_stages, Triton's num_stages): the pipeline depth of
# a K loop's tl.dot operand loads on nvptx and nvptx-emu, 1 (no pipelining) to 8, default 3.
# 0 is a usage error of the command line (0 means "the default" only in the C API); a count
# above 8 is refused by the target's one rule, naming the range; a CPU target refuses it as it
# refuses --num-warps. The help lists it; a library's descriptor records the count used.
# RUN: not %tilec compile %s -k add -s "*fp32:16, *fp32:16, i32, 1024" --target nvptx --num-stages 0 --emit ptx 2>&1 | FileCheck %s --check-prefix=ZERO
# RUN: not %tilec compile %s -k add -s "*fp32:16, *fp32:16, i32, 1024" --target nvptx --num-stages 9 --emit ptx 2>&1 | FileCheck %s --check-prefix=NINE
# RUN: not %tilec compile %s -k add -s "*fp32:16, *fp32:16, i32, 1024" --target nvptx-emu --num-stages 9 --emit vector 2>&1 | FileCheck %s --check-prefix=NINE
# RUN: not %tilec compile %s -k add -s "*fp32:16, *fp32:16, i32, 1024" --num-stages 2 --emit vector 2>&1 | FileCheck %s --check-prefix=CPU
# RUN: not %tilec run %s -k add --grid 1 --no-cache --target x86-64-v3 --num-stages 2 x_ptr=empty:fp32:1024 out_ptr=empty:fp32:1024 n=1024 BLOCK=1024 2>&1 | FileCheck %s --check-prefix=CPU
# RUN: %tilec compile %s -k add -s "*fp32:16, *fp32:16, i32, 1024" --target nvptx --num-stages 1 --emit ptx | FileCheck %s --check-prefix=PTX
# RUN: %tilec compile %s -k add -s "*fp32:16, *fp32:16, i32, 1024" --target nvptx --arch sm_90 --num-stages 8 --emit ptx | FileCheck %s --check-prefix=PTX
# RUN: %tilec compile --help 2>&1 | FileCheck %s --check-prefix=HELP
# RUN: %tilec compile %s -k add -s "*fp32:16, *fp32:16, i32, 1024" --target nvptx --num-warps 8 --num-stages 2 -o %t.so
# RUN: strings %t.so | FileCheck %s --check-prefix=DESC
# nvptx-emu takes --arch (checked, not used) beside the counts without dropping them:
# RUN: %tilec compile %s -k add -s "*fp32:16, *fp32:16, i32, 1024" --target nvptx-emu --num-warps 8 --emit vector > %t.w8
# RUN: %tilec compile %s -k add -s "*fp32:16, *fp32:16, i32, 1024" --target nvptx-emu --arch sm_90 --num-warps 8 --num-stages 2 --emit vector > %t.w8arch
# RUN: %tilec compile %s -k add -s "*fp32:16, *fp32:16, i32, 1024" --target nvptx-emu --emit vector > %t.w4
# RUN: diff %t.w8 %t.w8arch
# RUN: not diff %t.w8 %t.w4
import triton
import triton.language as tl


@triton.jit
def add(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


# ZERO: error: --num-stages expects a number of stages (1: no pipelining), got '0'
# NINE: error: num_stages must be from 1 (no pipelining) to 8, got 9
# CPU: error: --arch, --num-warps, --num-stages and --ptx-version apply to the nvptx target only (target is '{{host|x86-64-v3}}')
# PTX: .entry add(
# HELP: --num-stages N {{.*}}nvptx, nvptx-emu: pipeline stages of a K loop's tl.dot operand loads, 1 (none) to 8 (default 3)
# DESC: nvptx64-nvidia-cuda sm_80 8 warps 2 stages
