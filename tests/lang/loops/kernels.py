# tests/lang/loops/kernels.py — loops that carry tiles across iterations: accumulators over
# a row in BLOCK chunks (carried in vector registers when every lane evolves on its own and
# the tile is small, in a stack buffer otherwise), and loops that read other lanes of the
# carried tile (always the buffer).
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr):
    # out[r] = sum of row r, accumulated BLOCK lanes wide across the row
    row = tl.program_id(0)
    cols0 = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + cols0
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def lane_sums_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # out[row, j] = sum of x[row, k*BLOCK + j] over k: the carried tile itself is stored
    row = tl.program_id(0)
    cols0 = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + cols0
        acc = acc + tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + row * BLOCK + cols0, acc)


@triton.jit
def moments_kernel(x_ptr, sum_ptr, sq_ptr, cnt_ptr, any_ptr, N, BLOCK: tl.constexpr):
    # two float tiles, an int tile, a boolean tile and a scalar carried together; `other`
    # is 1, so the masked-off lanes of the last chunk count
    row = tl.program_id(0)
    cols0 = tl.arange(0, BLOCK)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    q = tl.zeros([BLOCK], dtype=tl.float32)
    c = tl.zeros([BLOCK], dtype=tl.int32)
    seen = cols0 < 0
    iters = 0
    for start in range(0, N, BLOCK):
        cols = start + cols0
        v = tl.load(x_ptr + row * N + cols, mask=cols < N, other=1.0)
        s += v
        q += tl.where(cols < N, v * v, 0.0)
        c += (v > 0).to(tl.int32)
        seen = seen | (v > 2.5)
        iters += 1
    tl.store(sum_ptr + row, tl.sum(s, axis=0))
    tl.store(sq_ptr + row, tl.sum(q, axis=0))
    tl.store(cnt_ptr + row, tl.sum(c, axis=0) * 1000 + iters)
    tl.store(any_ptr + row * BLOCK + cols0, seen.to(tl.int32))


@triton.jit
def ptr_carry_kernel(x_ptr, w_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # a pointer tile advanced by BLOCK each iteration, a scalar weight loaded per
    # iteration, a float64 accumulator
    row = tl.program_id(0)
    cols0 = tl.arange(0, BLOCK)
    p = x_ptr + row * N + cols0
    acc = tl.zeros([BLOCK], dtype=tl.float64)
    k = 0
    for start in range(0, N, BLOCK):
        wk = tl.load(w_ptr + k)
        v = tl.load(p, mask=start + cols0 < N, other=0.0)
        acc += v.to(tl.float64) * wk
        p += BLOCK
        k += 1
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def window_kernel(x_ptr, out_ptr, N, LO, BLOCK: tl.constexpr):
    # a mask that is not an upper bound (lo <= cols < N), and an integer accumulator
    row = tl.program_id(0)
    cols0 = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, N, BLOCK):
        cols = start + cols0
        m = (cols >= LO) & (cols < N)
        acc += tl.load(x_ptr + row * N + cols, mask=m, other=0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def cross_lane_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # each iteration reads the whole carried tile (its max): not lane by lane
    row = tl.program_id(0)
    cols0 = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + cols0
        v = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
        acc = acc * 0.5 + v + tl.max(acc, axis=0)
    tl.store(out_ptr + row * BLOCK + cols0, acc)


@triton.jit
def gather_rows_kernel(x_ptr, idx_ptr, out_ptr, NIDX, N, BLOCK: tl.constexpr):
    # the sum of rows idx[0..NIDX) of x: a scalar load per iteration feeds the addresses
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, NIDX):
        r = tl.load(idx_ptr + i)
        acc += tl.load(x_ptr + r * N + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + cols, acc, mask=cols < N)


@triton.jit
def offs_carry_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # the offsets are carried and advanced (`offs += BLOCK`), and bound the loads
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for _ in range(0, tl.cdiv(N, BLOCK)):
        acc += tl.load(x_ptr + row * N + offs, mask=offs < N, other=0.0)
        offs += BLOCK
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def two_loops_kernel(x_ptr, out_ptr, N1, N2, BLOCK: tl.constexpr):
    # two accumulation loops with their own trip counts: tilec versions the code on
    # "each runs once" (conversion/version_loops.c); the other mixes take the loops
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N1, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * 4096 + cols, mask=cols < N1, other=0.0)
    s1 = tl.sum(acc, axis=0)
    acc2 = tl.zeros([BLOCK], dtype=tl.float32) + s1
    for start in range(0, N2, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * 4096 + cols, mask=cols < N2, other=0.0)
        acc2 += v * v
    tl.store(out_ptr + row * 2, s1)
    tl.store(out_ptr + row * 2 + 1, tl.sum(acc2, axis=0))


@triton.jit
def shifted_rewrite_kernel(x_ptr, n, SHIFT, BLOCK: tl.constexpr):
    # Each trip reads BLOCK elements of x and writes them SHIFT elements further on, where
    # the next trip reads them (0 < SHIFT): the trips must be ordered. nvptx: a barrier
    # between them runs unless the two base pointers are congruent modulo the CTA's span of
    # chunks (then each element is read and written by one thread: SHIFT 0, 512 with 4 warps).
    dst = x_ptr + SHIFT
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + cols, mask=cols < n)
        tl.store(dst + cols, v * 2.0 + 1.0, mask=cols < n)


@triton.jit
def carried_flip_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # the carried tile is read reversed after the loop (other threads' lanes): on a GPU it
    # cannot stay in each thread's registers
    row = tl.program_id(0)
    cols0 = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        acc += tl.load(x_ptr + row * N + start + cols0, mask=start + cols0 < N, other=0.0)
    tl.store(out_ptr + row * BLOCK + cols0, tl.flip(acc, 0))


@triton.jit
def carried_swap_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # two carried tiles that trade places every trip (a, b = b, a + x), both stored after
    row = tl.program_id(0)
    cols0 = tl.arange(0, BLOCK)
    a = tl.zeros([BLOCK], dtype=tl.float32)
    b = tl.zeros([BLOCK], dtype=tl.float32) + 1.0
    for start in range(0, N, BLOCK):
        x = tl.load(x_ptr + row * N + start + cols0, mask=start + cols0 < N, other=0.0)
        a, b = b, a + x
    tl.store(out_ptr + row * 2 * BLOCK + cols0, a)
    tl.store(out_ptr + row * 2 * BLOCK + BLOCK + cols0, b * 2.0)


@triton.jit
def carried_2d_kernel(x_ptr, out_ptr, R, BR: tl.constexpr, BC: tl.constexpr):
    # a 2-D tile summed over R blocks of rows: out = sum_k x[k*BR:(k+1)*BR, :BC]
    r0 = tl.arange(0, BR)
    c0 = tl.arange(0, BC)
    acc = tl.zeros([BR, BC], dtype=tl.float32)
    for k in range(0, R):
        acc += tl.load(x_ptr + (k * BR + r0)[:, None] * BC + c0[None, :])
    tl.store(out_ptr + r0[:, None] * BC + c0[None, :], acc)


@triton.jit
def carried_nested_kernel(x_ptr, out_ptr, ROWS, N, BLOCK: tl.constexpr):
    # an outer loop over rows, an inner one over the row's blocks, the accumulator made anew
    # for each row; the sum of squares of (acc - its mean) after the inner loop
    cols0 = tl.arange(0, BLOCK)
    for row in range(tl.program_id(0), ROWS, tl.num_programs(0)):
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, N, BLOCK):
            acc += tl.load(x_ptr + row * N + start + cols0, mask=start + cols0 < N, other=0.0)
        d = acc - tl.sum(acc, axis=0) / BLOCK
        tl.store(out_ptr + row, tl.sum(d * d, axis=0))


@triton.jit
def carried_if_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # the carried tile goes through an if inside the body (a region: a buffer on a GPU)
    row = tl.program_id(0)
    cols0 = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        v = tl.load(x_ptr + row * N + start + cols0, mask=start + cols0 < N, other=0.0)
        if start > 0:
            acc = acc * 0.5
        acc += v
    tl.store(out_ptr + row * BLOCK + cols0, acc)


@triton.jit
def carried_dot_swap_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # acc, t = tl.dot(a, b, acc), acc + t: the right side is evaluated before either is
    # assigned, so t's sum reads the acc of the trip's start (the dot must not update the
    # carried acc in place under it)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    t = tl.zeros((BM, BN), dtype=tl.float32) + 1.0
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc, t = tl.dot(a, b, acc), acc + t
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc * 1000.0 + t)


@triton.jit
def carried_last_dot_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                            IEEE: tl.constexpr):
    # the carried tile is each trip's dot, without an accumulator: the last trip's product
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        if IEEE:
            acc = tl.dot(a, b, input_precision="ieee")
        else:
            acc = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
