# Scans, gathers, histograms and flips (tests/lang, family "scans").
import triton
import triton.language as tl


@triton.jit
def _max_fn(a, b):
    return tl.maximum(a, b)


# (a1, b1) then (a2, b2): the affine maps h -> a * h + b composed, first one applied first
@triton.jit
def _affine_fn(a1, b1, a2, b2):
    return a1 * a2, a2 * b1 + b2


@triton.jit
def cumsum2d_kernel(x_ptr, c0_ptr, c1_ptr, r0_ptr, r1_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    tl.store(c0_ptr + rows * N + cols, tl.cumsum(x, axis=0))
    tl.store(c1_ptr + rows * N + cols, tl.cumsum(x, 1))
    tl.store(r0_ptr + rows * N + cols, tl.cumsum(x, axis=0, reverse=True))
    tl.store(r1_ptr + rows * N + cols, x.cumsum(1, reverse=True))


@triton.jit
def cumprod_kernel(x_ptr, p_ptr, rp_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    tl.store(p_ptr + rows * N + cols, tl.cumprod(x, axis=1))
    tl.store(rp_ptr + rows * N + cols, tl.cumprod(x, axis=0, reverse=True))


# masked 1-D running max; lanes beyond n hold -inf so they cannot win
@triton.jit
def running_max_kernel(x_ptr, f_ptr, r_ptr, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, mask=i < n, other=-float("inf"))
    tl.store(f_ptr + i, tl.associative_scan(x, 0, _max_fn), mask=i < n)
    tl.store(r_ptr + i, tl.associative_scan(x, 0, _max_fn, reverse=True), mask=i < n)


# h[t] = a[t] * h[t-1] + b[t] along each row (h[-1] = 0), forwards and backwards, as a
# scan over a tuple of two tiles
@triton.jit
def linear_recurrence_kernel(a_ptr, b_ptr, h_ptr, hr_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    _, h = tl.associative_scan((a, b), axis=1, combine_fn=_affine_fn)
    _, hr = tl.associative_scan((a, b), axis=1, combine_fn=_affine_fn, reverse=True)
    tl.store(h_ptr + offs, h)
    tl.store(hr_ptr + offs, hr)


@triton.jit
def gather2d_kernel(x_ptr, i1_ptr, i0_ptr, g1_ptr, g0_ptr, M: tl.constexpr, N: tl.constexpr,
                    K: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    x = tl.load(x_ptr + rows * N + tl.arange(0, N)[None, :])
    # along axis 1: (M, K) from (M, N)
    i1 = tl.load(i1_ptr + rows * K + tl.arange(0, K)[None, :])
    tl.store(g1_ptr + rows * K + tl.arange(0, K)[None, :], tl.gather(x, i1, axis=1))
    # along axis 0: (M, N) with row indices
    i0 = tl.load(i0_ptr + rows * N + tl.arange(0, N)[None, :])
    tl.store(g0_ptr + rows * N + tl.arange(0, N)[None, :], tl.gather(x, i0, 0))


@triton.jit
def histogram_masked_kernel(x_ptr, h_ptr, hm_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, mask=i < n, other=0)
    b = tl.arange(0, BINS)
    tl.store(h_ptr + b, tl.histogram(x, BINS))
    tl.store(hm_ptr + b, tl.histogram(x, BINS, mask=i < n))


@triton.jit
def flip2d_kernel(x_ptr, f0_ptr, f1_ptr, fd_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(f0_ptr + offs, tl.flip(x, 0))
    tl.store(f1_ptr + offs, tl.flip(x, dim=1))
    tl.store(fd_ptr + offs, x.flip())


# fewer / more indices than source elements along the gathered axis
@triton.jit
def gather_resize_kernel(x_ptr, i_ptr, out_ptr, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    j = tl.load(i_ptr + tl.arange(0, K))
    tl.store(out_ptr + tl.arange(0, K), tl.gather(x, j, 0))


# int8 input: cumsum accumulates in int32 (or the given dtype); bool input counts
@triton.jit
def cumsum_dtype_kernel(x_ptr, o_ptr, o64_ptr, ob_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(o_ptr + i, tl.cumsum(x, 0))
    tl.store(o64_ptr + i, tl.cumsum(x, 0, dtype=tl.int64))
    tl.store(ob_ptr + i, tl.cumsum(x > 0, 0))


@triton.jit
def flip3d_kernel(x_ptr, o_ptr):
    o = (tl.arange(0, 2)[:, None, None] * 32 + tl.arange(0, 4)[None, :, None] * 8
         + tl.arange(0, 8)[None, None, :])
    tl.store(o_ptr + o, tl.flip(tl.load(x_ptr + o), 1))


@triton.jit
def histogram_i64_kernel(x_ptr, o_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(o_ptr + tl.arange(0, 8), tl.histogram(x, 8))


@triton.jit
def scan16_kernel(x_ptr, s_ptr, rs_ptr, p_ptr, N: tl.constexpr):
    # fp16 scans keep fp16 but accumulate in fp32 (each prefix rounded once)
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(s_ptr + i, tl.cumsum(x, 0))
    tl.store(rs_ptr + i, tl.cumsum(x, 0, reverse=True))
    tl.store(p_ptr + i, tl.cumprod(x * 0.01 + 1.0, 0))


# (moved here from pending/kernels.py once it compiled)
@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def cumsum_kernel(x_ptr, c_ptr, r_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(c_ptr + i, tl.cumsum(x, axis=0))
    tl.store(r_ptr + i, tl.associative_scan(x, 0, _add, reverse=True))


@triton.jit
def histogram_kernel(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(tl.load(x_ptr + i), BINS))


@triton.jit
def gather_kernel(x_ptr, idx_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    j = tl.load(idx_ptr + i)
    tl.store(out_ptr + i, tl.gather(x, j, 0))


@triton.jit
def flip_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.flip(tl.load(x_ptr + i), 0))


# ---- index tiles from lane-moving ops, the load through them used twice (issue 33) ----------
# FORM: the op computing the index tile s from x: 0 tl.sort, 1 tl.cumsum, 2 tl.flip,
# 3 tl.gather, 4 a reverse tl.associative_scan, 5 a reshape / trans / reshape round trip,
# 6 tl.sort descending. ZERO: s enters the address only as `s * 0` (the compiler crashed).
@triton.jit
def index_from_lane_move_kernel(x_ptr, tab_ptr, a_ptr, b_ptr, N: tl.constexpr, FORM: tl.constexpr,
                                ZERO: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if FORM == 0:
        s = tl.sort(x, 0)
    elif FORM == 1:
        s = tl.cumsum(x, 0)
    elif FORM == 2:
        s = tl.flip(x, 0)
    elif FORM == 3:
        s = tl.gather(x, (offs * 5 + 3) & (N - 1), 0)
    elif FORM == 4:
        s = tl.associative_scan(x, 0, _max_fn, reverse=True)
    elif FORM == 5:
        s = tl.reshape(tl.trans(tl.reshape(x, (4, N // 4))), (N,))
    else:
        s = tl.sort(x, descending=True)
    if ZERO:
        p = tl.load(tab_ptr + offs + s * 0)
    else:
        p = tl.load(tab_ptr + s)
    tl.store(a_ptr + offs, p)
    tl.store(b_ptr + offs, p + 1)


# Liger-Kernel's fused_moe shape: tokens sorted by expert through a packed uint32 key, the
# position read back out of it and a table loaded there, stored twice; the expert too.
@triton.jit
def moe_sort_key_kernel(expert_ptr, tab_ptr, a_ptr, b_ptr, e_ptr, N: tl.constexpr):
    offs_local = tl.arange(0, N)
    expert = tl.load(expert_ptr + offs_local)
    kv_pairs = tl.sort(((expert << 16) | offs_local).to(tl.uint32), 0)
    token = (kv_pairs & 0xFFFF).to(tl.int32)
    w = tl.load(tab_ptr + token)
    tl.store(a_ptr + offs_local, w)
    tl.store(b_ptr + offs_local, w * 2.0)
    tl.store(e_ptr + offs_local, (kv_pairs >> 16).to(tl.int32))


# A sorted index used as an address and as a value, by a load, a reduction and two stores;
# a 2-D transposed index loaded through and stored twice.
@triton.jit
def sorted_index_many_uses_kernel(x_ptr, tab_ptr, a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    s = tl.sort(tl.load(x_ptr + offs))
    p = tl.load(tab_ptr + s)
    tl.store(a_ptr + offs, p + s)
    tl.store(b_ptr + s, p)  # s is a permutation here: a scatter
    tl.store(c_ptr + offs, p * 0 + tl.sum(p, 0) + s)


@triton.jit
def trans_index_twice_kernel(x_ptr, tab_ptr, a_ptr, b_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    t = tl.reshape(tl.trans(tl.load(x_ptr + tl.arange(0, C)[:, None] * R + tl.arange(0, R)[None, :])), (R, C))
    p = tl.load(tab_ptr + t)
    tl.store(a_ptr + offs, p)
    tl.store(b_ptr + offs, p - t)


# A gather of a loop-carried tile: its source is the carried buffer, read at other lanes
# than the ones the yield writes (wrote the buffer in place, reading lanes already written).
@triton.jit
def gather_loop_carried_kernel(x_ptr, i_ptr, o_ptr, N: tl.constexpr, T: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x_ptr + offs)
    idx = tl.load(i_ptr + offs)
    for _ in range(T):
        v = tl.gather(v, idx, 0)
    tl.store(o_ptr + offs, v)


# The sorting network on rows of every power-of-two length (one loop over its passes).
@triton.jit
def sort_rows_kernel(x_ptr, a_ptr, d_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(a_ptr + offs, tl.sort(x, 1))
    tl.store(d_ptr + offs, tl.sort(x, 1, descending=True))


# A scatter through a permutation and a store of x + 1 into the array x was loaded from, in
# one statement group: x is read before either store (it also feeds a third store's mask),
# and the later of the two stores wins everywhere (they may not share a loop over chunks).
@triton.jit
def scatter_and_store_kernel(x_ptr, p_ptr, o_ptr, N: tl.constexpr, SCATTER_FIRST: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    p = tl.flip(tl.load(p_ptr + offs), 0)
    if SCATTER_FIRST:
        tl.store(x_ptr + p, p)
        tl.store(x_ptr + offs, x + 1)
    else:
        tl.store(x_ptr + offs, x + 1)
        tl.store(x_ptr + p, p)
    tl.store(o_ptr + offs, p, mask=(x & 3) != 1)


@triton.jit
def bitonic_merge_kernel(x_ptr, out_ptr, R: tl.constexpr, N: tl.constexpr, DESC: tl.constexpr):
    # tl.bitonic_merge of each row (the last dimension): a bitonic row comes out sorted
    r = tl.arange(0, R)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + r, tl.bitonic_merge(tl.load(x_ptr + r), descending=DESC))
