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
