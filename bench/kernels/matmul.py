# bench/kernels/matmul.py — benchmark kernel: C = A @ B (fp32, row-major), written as a GPU
# tile matmul would be: grouped program order, 2-D pointer tiles advanced along K, tl.dot
# into an fp32 accumulator, masked edges. Only the block sizes are chosen for the CPU.
#
# Block sizes (signature constexprs, set in scripts/bench.sh; default 128 x 128 x 32, group 8):
# - The accumulator tile BLOCK_M x BLOCK_N = 128 x 128 fp32 is 64 KiB; per K step the A tile
#   (128 x 32) and the B tile (32 x 128) are 16 KiB each. tl.dot packs both into contiguous
#   stack buffers and sweeps the accumulator with a 4 x 64 register microkernel (16 zmm
#   accumulators on AVX-512); the next K step's tiles are prefetched into L2 (the pointer
#   tiles advance by a fixed step), a few lines per register block, which is what keeps
#   N = 2048/4096 fed.
# - Why 128 x 128: each packed A and B element feeds 128 FMAs (64 x 128 tiles: B only 64),
#   so the packing costs less per FLOP. Measured with 2 threads against OpenBLAS in the same
#   run (2026-11-26, after the spread prefetches): 128x128x32 1.01-1.03x / 0.98x / 0.95-0.96x
#   at N = 1024 / 2048 / 4096; 64x128x32 0.89-1.02x / 0.96-1.01x / 0.91-0.95x; 128x256x64
#   0.91-1.0x / 0.95-0.97x / 0.92x; 64x128x64 0.84-0.87x at 4096.
# - 64 and 128 are multiples of every SIMD width (4/8/16 fp32), so rows split into full vectors.
# - N = 1024 gives 8 x 8 = 64 programs: enough to balance 2 threads with a static schedule;
#   GROUP_SIZE_M = 8 keeps the B panels of 8 neighbouring rows of tiles hot in L2.
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    # Map the linear program id to a (tile row, tile column) so that GROUP_SIZE_M tile rows
    # are walked column by column: consecutive programs share B panels.
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_SIZE_M * tiles_n
    group = pid // per_group
    first_m = group * GROUP_SIZE_M
    group_rows = min(tiles_m - first_m, GROUP_SIZE_M)
    pid_m = first_m + ((pid % per_group) % group_rows)
    pid_n = (pid % per_group) // group_rows

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - kb * BLOCK_K
        a = tl.load(a_tile, mask=(rows[:, None] < M) & (ks[None, :] < k_left), other=0.0)
        b = tl.load(b_tile, mask=(ks[:, None] < k_left) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk

    c_tile = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_tile, acc, mask=(rows[:, None] < M) & (cols[None, :] < N))
