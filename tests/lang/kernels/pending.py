# Constructs once listed as not supported (tests/lang). Family "pending" runs sort_kernel and
# expects it to fail for now (XFAIL); the other kernels are run by the families that cover them.
import triton
import triton.language as tl


@triton.jit
def atomic_add_kernel(x_ptr, total_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    i = pid * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m, other=0)
    tl.atomic_add(total_ptr, tl.sum(x, axis=0))
    tl.atomic_add(hist_ptr + (x % 8), 1, mask=m)


@triton.jit
def atomic_cas_lock_kernel(lock_ptr, counter_ptr, log_ptr):
    pid = tl.program_id(0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    c = tl.load(counter_ptr)
    tl.store(log_ptr + pid, c)
    tl.store(counter_ptr, c + 1)
    tl.atomic_xchg(lock_ptr, 0)


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
def sort_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.sort(tl.load(x_ptr + i)))


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


@triton.jit
def block_ptr_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(N, 1), offsets=(0, 0),
                            block_shape=(BM, BN), order=(1, 0))
    dst = tl.make_block_ptr(base=out_ptr, shape=(M, N), strides=(N, 1), offsets=(0, 0),
                            block_shape=(BM, BN), order=(1, 0))
    for c in range(0, N, BN):
        v = tl.load(src, boundary_check=(0, 1), padding_option="zero")
        tl.store(dst, v + 1.0, boundary_check=(0, 1))
        src = tl.advance(src, (0, BN))
        dst = tl.advance(dst, (0, BN))


@triton.jit
def tensor_desc_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    d_in = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    d_out = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    v = d_in.load([0, 0])
    d_out.store([0, 0], v * 2.0)


@triton.jit
def device_print_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.device_print("x", x)
    tl.device_assert(x >= 0, "negative input")
    tl.store(out_ptr + i, x)
