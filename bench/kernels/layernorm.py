# bench/kernels/layernorm.py — benchmark kernel: layer norm forward, one row per program.
# Three passes over the row in BLOCK_SIZE column chunks (mean, variance, normalize), so a
# row of any length works with a fixed tile size; also writes the row's mean and 1/std.
#
# Benchmarked with BLOCK_SIZE = 256: 16 chunks of 16 fp32 lanes, so on AVX-512 each pass's
# accumulator tile is carried in 16 zmm registers for the whole loop
# (conversion/register_tiles.c); and at the tutorial's next_power_of_2(N) (8192, 16384),
# where each loop runs once and tilec versions the code so the accumulators are never
# buffered (conversion/version_loops.c). A BLOCK between the two (1024: several trips, too
# large for registers) keeps its accumulator in a stack buffer that every chunk loads and
# stores. bench/REPORT.md has the rows against the C loop.
import triton
import triton.language as tl


@triton.jit
def layernorm_fwd_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, row_stride, N, eps,
                         BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * row_stride
    y_row = y_ptr + row * row_stride

    # Pass 1: mean. Accumulate a BLOCK_SIZE-wide partial sum and reduce it once at the end.
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_row + cols, mask=cols < N, other=0.).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N

    # Pass 2: variance around the mean (two-pass form: no cancellation from E[x^2]-E[x]^2).
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        v = tl.load(x_row + cols, mask=cols < N, other=0.).to(tl.float32)
        d = tl.where(cols < N, v - mean, 0.)
        acc += d * d
    var = tl.sum(acc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)

    # Pass 3: normalize, then scale and shift by the per-column weight and bias.
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        m = cols < N
        w = tl.load(w_ptr + cols, mask=m)
        b = tl.load(b_ptr + cols, mask=m)
        v = tl.load(x_row + cols, mask=m, other=0.).to(tl.float32)
        tl.store(y_row + cols, (v - mean) * rstd * w + b, mask=m)
