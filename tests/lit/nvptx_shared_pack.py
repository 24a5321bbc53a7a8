# Shared memory packed by lifetime (backend/nvptx.c, pack_shared): buffers of 1 KB or more
# whose lives do not meet (a barrier between one's last use and the other's first) take the
# same bytes. Two loops carrying a 16384-float accumulator each (128 floats a thread of 4
# warps: more than a thread keeps in registers; the bench's layer norm's 8192 over 8 warps
# stay there, under 1 KB of shared memory for the reductions' per-warp values): 2 x 65536
# bytes kept in shared memory one after the other, so one 65536 plus the reductions'
# per-warp values (small buffers keep bytes of their own: no barrier added), not 131072
# plus them. Same on the emulator.
# A buffer whose address is taken (ldmatrix, cp.async) lives where those addresses are used:
# the bench's int8 matmul (128x128x64, 3 stages) reads B transposed into a buffer of its own
# each trip through ldmatrix; that buffer lives in the K loop, so the 64 KB int32 C written
# after the loop takes its bytes and the stages': 68,608 bytes (was 134,144: one CTA per SM
# on sm_90, three now).
# RUN: %tilec compile %S/../../bench/kernels/matmul_i8.py -k mm8 -s "*i8:16, *i8:16, *i32:16, i32:16, i32:16, i32:16, 128, 128, 64" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=I8
# RUN: %tilec compile %s -k two_accs -s "*fp32:16, *fp32:16, i32, 16384" --target nvptx --arch sm_90 --num-warps 4 --emit ptx | FileCheck %s --check-prefix=TWO
# RUN: %tilec compile %s -k two_accs -s "*fp32:16, *fp32:16, i32, 16384" --target nvptx-emu --num-warps 4 --emit vector | FileCheck %s --check-prefix=EMU
# RUN: %tilec compile %S/../../bench/kernels/layernorm.py -k layernorm_fwd_kernel -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 8192" --target nvptx --arch sm_90 --num-warps 8 --emit ptx | FileCheck %s --check-prefix=LN
import triton
import triton.language as tl


@triton.jit
def two_accs(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    mean = tl.sum(acc, axis=0) / n
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        d = tl.load(x_ptr + cols, mask=cols < n, other=0.0) - mean
        acc2 += tl.where(cols < n, d * d, 0.0)
    tl.store(out_ptr, mean)
    tl.store(out_ptr + 1, tl.sum(acc2, axis=0) / n)

# 65536 + under 1 KB of per-warp values: 65536..66559
# TWO: .u64 __tilec_shared_bytes_two_accs = {{(655[3-9][0-9]|65[6-9][0-9][0-9]|66[0-4][0-9][0-9]|665[0-5][0-9])}};
# TWO: .entry two_accs(
# EMU: @__tilec_shared_bytes_two_accs({{(655[3-9][0-9]|65[6-9][0-9][0-9]|66[0-4][0-9][0-9]|665[0-5][0-9])}} : i64)
# the bench's layer norm: its two accumulators in registers, under 1 KB of per-warp values
# LN: .u64 __tilec_shared_bytes_layernorm_fwd_kernel = {{[0-9]?[0-9]?[0-9]}};
# I8: .u64 __tilec_shared_bytes_mm8 = 68608;
