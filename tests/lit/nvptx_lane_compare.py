# `cols == t` with cols consecutive in a chunk and t the same in every lane (cross entropy's
# `tl.where(cols == target, g - 1.0, g)`): conversion/eval.c's cmp_consecutive compares one
# scalar, t - cols[0] (out of range: the chunk's width), with the lane numbers. Each lane is a
# 32-bit compare with an immediate; no per-lane column values (LLVM hoisted 16 of them out of
# the gradient loop: 40 registers on sm_90, 32 now, as Triton's) and no 64-bit compare of
# them with the i64 target.
# RUN: %tilec compile %S/../../bench/kernels/cross_entropy.py -k cross_entropy_kernel -s "*bf16:16, *bf16:16, *i64:16, *fp32:16, i32:16, i32:16, i32, i32, 4096" --target nvptx --arch sm_90 --num-warps 8 --emit ptx | FileCheck %s --check-prefix=CE --implicit-check-not='setp.eq.b64 {{%p[0-9]+}}, {{%rd[0-9]+}}, {{%rd[0-9]+}}'
# RUN: %tilec compile %s -k match -s "*i32:16, *fp32:16, 1024" --target nvptx --arch sm_90 --num-warps 4 --emit ptx | FileCheck %s --check-prefix=I32
import triton
import triton.language as tl


@triton.jit
def match(t_ptr, out_ptr, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    t = tl.load(t_ptr)
    tl.store(out_ptr + cols, tl.where(cols == t, 1.0, 0.0))

# The gradient loop: 16 lanes a trip, two chunks of 8, each against 0..7.
# CE: .visible .entry cross_entropy_kernel(
# CE-COUNT-8: setp.eq.b32 {{%p[0-9]+}}, [[D:%r[0-9]+]], {{[0-7]}};
# CE: ex2.approx.f32
# CE: setp.eq.b32 {{%p[0-9]+}}, {{%r[0-9]+}}, 0;
# CE-NEXT: setp.eq.b32 {{%p[0-9]+}}, {{%r[0-9]+}}, 1;

# 1024 fp32 over 128 threads: two chunks of 4, each t - first column against 0..3.
# I32: .visible .entry match(
# I32: sub.s32
# I32: setp.eq.b32 {{%p[0-9]+}}, {{%r[0-9]+}}, 0;
# I32-NEXT: setp.eq.b32 {{%p[0-9]+}}, {{%r[0-9]+}}, 1;
# I32-NEXT: setp.eq.b32 {{%p[0-9]+}}, {{%r[0-9]+}}, 2;
# I32-NEXT: setp.eq.b32 {{%p[0-9]+}}, {{%r[0-9]+}}, 3;
# I32-NOT: setp.eq.b32 {{%p[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
# I32: st.global.v4.b32
# I32: ret;
