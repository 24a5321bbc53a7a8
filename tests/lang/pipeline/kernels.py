# tests/lang/pipeline/kernels.py — K loops whose tl.dot operands nvptx loads num_stages - 1
# trips ahead (backend/nvptx_pipeline.c): pointers carried and advanced, pointers recomputed
# from the induction variable (a step other than 1), a persistent outer loop (the pipeline
# starts again for each tile), a loop from a lower bound other than 0 after a dot outside it,
# and two dots in one loop. Every kernel is also plain Triton: the CPU runs them as written.
import triton
import triton.language as tl


@triton.jit
def carried_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :]
    b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kb in range(0, tl.cdiv(K, BK)):
        k_left = K - kb * BK
        a = tl.load(a_tile, mask=(rows[:, None] < M) & (ks[None, :] < k_left), other=0.0)
        b = tl.load(b_tile, mask=(ks[:, None] < k_left) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BK
        b_tile += BK * stride_bk
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def recomputed_kernel(a_ptr, bt_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      STAGES: tl.constexpr):
    # B given transposed (N x K, k contiguous): tl.trans in the dot; k0 steps by BK; the loop's
    # own num_stages (tl.range)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in tl.range(0, K, BK, num_stages=STAGES):
        kk = k0 + ks
        a = tl.load(a_ptr + rows[:, None] * K + kk[None, :], mask=(rows[:, None] < M) & (kk[None, :] < K), other=0.0)
        bt = tl.load(bt_ptr + cols[:, None] * K + kk[None, :], mask=(cols[:, None] < N) & (kk[None, :] < K),
                     other=0.0)
        acc += tl.dot(a, tl.trans(bt))
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # fewer programs than tiles: each runs the K loop for several tiles
    tiles_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * tiles_n
    for t in range(tl.program_id(0), tiles, tl.num_programs(0)):
        rows = (t // tiles_n) * BM + tl.arange(0, BM)
        cols = (t % tiles_n) * BN + tl.arange(0, BN)
        ks = tl.arange(0, BK)
        a_tile = a_ptr + rows[:, None] * K + ks[None, :]
        b_tile = b_ptr + ks[:, None] * N + cols[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kb in range(0, tl.cdiv(K, BK)):
            a = tl.load(a_tile, mask=(rows[:, None] < M) & (ks[None, :] < K - kb * BK), other=0.0)
            b = tl.load(b_tile, mask=(ks[:, None] < K - kb * BK) & (cols[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
            a_tile += BK
            b_tile += BK * N
        tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def offset_start_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # K block 0 outside the loop, the loop from 1 (its trips count from its lower bound)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    a0 = tl.load(a_ptr + rows[:, None] * K + ks[None, :], mask=rows[:, None] < M, other=0.0)
    b0 = tl.load(b_ptr + ks[:, None] * N + cols[None, :], mask=cols[None, :] < N, other=0.0)
    acc = tl.dot(a0, b0)
    for kb in range(1, K // BK):
        a = tl.load(a_ptr + rows[:, None] * K + (kb * BK + ks)[None, :], mask=rows[:, None] < M, other=0.0)
        b = tl.load(b_ptr + (kb * BK + ks)[:, None] * N + cols[None, :], mask=cols[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def two_dots_kernel(x_ptr, w1_ptr, w2_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # c = x @ w1 + (x @ w2) * 2: two dots on loads of one loop, each pipelined on its own
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    acc1 = tl.zeros((BM, BN), dtype=tl.float32)
    acc2 = tl.zeros((BM, BN), dtype=tl.float32)
    for kb in range(0, tl.cdiv(K, BK)):
        kk = kb * BK + ks
        x1 = tl.load(x_ptr + rows[:, None] * K + kk[None, :], mask=(rows[:, None] < M) & (kk[None, :] < K), other=0.0)
        w1 = tl.load(w1_ptr + kk[:, None] * N + cols[None, :], mask=(kk[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc1 = tl.dot(x1, w1, acc1)
        x2 = tl.load(x_ptr + rows[:, None] * K + kk[None, :], mask=(rows[:, None] < M) & (kk[None, :] < K), other=0.0)
        w2 = tl.load(w2_ptr + kk[:, None] * N + cols[None, :], mask=(kk[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc2 = tl.dot(x2, w2, acc2)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc1 + acc2 * 2.0,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def writes_ahead_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # each trip overwrites the B rows the next trip loads (b[k + BK:k + 2 BK] += 1): a loop that
    # writes memory is not pipelined (an early load would miss the store); one program
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    ks = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kb in range(0, K // BK):
        a = tl.load(a_ptr + rows[:, None] * K + (kb * BK + ks)[None, :])
        b = tl.load(b_ptr + (kb * BK + ks)[:, None] * BN + cols[None, :])
        acc = tl.dot(a, b, acc)
        nxt = b_ptr + ((kb + 1) * BK + ks)[:, None] * BN + cols[None, :]
        tl.store(nxt, tl.load(nxt) + 1.0, mask=((kb + 1) * BK + ks)[:, None] < K)
    tl.store(c_ptr + rows[:, None] * BN + cols[None, :], acc)


@triton.jit
def other_kernel(a_ptr, b_ptr, c_ptr, M, N, K, OTHER: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr):
    # the masked value of A is OTHER (0: cp.async's zero fill; else the edge path through
    # registers), B's is 1, so a masked A element counts in the result as OTHER * 1
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kb in range(0, tl.cdiv(K, BK)):
        kk = kb * BK + ks
        a = tl.load(a_ptr + rows[:, None] * K + kk[None, :], mask=(rows[:, None] < M) & (kk[None, :] < K), other=OTHER)
        b = tl.load(b_ptr + kk[:, None] * N + cols[None, :], mask=(kk[:, None] < K) & (cols[None, :] < N), other=1.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def no_other_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A's rows past M are masked without `other` (undefined: zero filled on nvptx), read only
    # into rows of C that are not stored; K a multiple of BK
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kb in range(0, K // BK):
        kk = kb * BK + ks
        a = tl.load(a_ptr + rows[:, None] * K + kk[None, :], mask=rows[:, None] < M)
        b = tl.load(b_ptr + kk[:, None] * N + cols[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=rows[:, None] < M)


@triton.jit
def invariant_kernel(a_ptr, b_ptr, c_ptr, n, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # both operands the same every trip: nothing to pipeline (sm_90a: both staged once before
    # the loop in wgmma's swizzled layouts)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    acc = tl.zeros([M, N], dtype=tl.float32)
    for i in range(n):
        acc = tl.dot(a, b, acc * 0.5)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
