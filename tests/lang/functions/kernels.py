# Helper @triton.jit functions (tests/lang, family "functions").
import triton
import triton.language as tl


@triton.jit
def _affine(x, scale, shift: tl.constexpr = 1.0):
    return x * scale + shift


@triton.jit
def helpers_kernel(x_ptr, out1_ptr, out2_ptr, out3_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    tl.store(out1_ptr + i, _affine(x, 2.0))                      # default
    tl.store(out2_ptr + i, _affine(x, shift=-3.0, scale=0.5))    # keywords, any order
    lo, hi = _minmax_pair(x, x * -1.0)                           # helper defined later
    s, (a, b) = _nested_tuple(lo, hi)
    tl.store(out3_ptr + i, s + a * b)


@triton.jit
def _minmax_pair(a, b):
    return tl.minimum(a, b), tl.maximum(a, b)


@triton.jit
def _nested_tuple(a, b):
    return a + b, (a, b)


@triton.jit
def _pick(x, MODE: tl.constexpr):
    if MODE == "square":
        return x * x
    else:
        return x + 100


@triton.jit
def _chain(x, MODE: tl.constexpr):
    return _pick(x, MODE) - _pick(x, MODE=MODE) // 2


@triton.jit
def constexpr_helper_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, MODE: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + i, _chain(x, MODE))


@triton.jit
def _loop_helper(p, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(n):
        acc += tl.load(p + k * BLOCK + tl.arange(0, BLOCK))
    return acc


@triton.jit
def loop_helper_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(out_ptr + i, _loop_helper(x_ptr, n, BLOCK=BLOCK))


@triton.jit
def _scalar_helper(a, b):
    q = a // b
    return q, a - q * b


@triton.jit
def scalar_helper_kernel(out_ptr, a, b):
    q, r = _scalar_helper(a, b)
    tl.store(out_ptr, q)
    tl.store(out_ptr + 1, r)


@triton.jit
def _fact(n):
    return n * _fact(n - 1)


@triton.jit
def recursion_kernel(out_ptr, n):
    tl.store(out_ptr, _fact(n))


@triton.jit
def _ping(x):
    return _pong(x) + 1


@triton.jit
def _pong(x):
    return _ping(x) * 2


@triton.jit
def mutual_recursion_kernel(out_ptr, n):
    tl.store(out_ptr, _ping(n))


@triton.jit
def _weighted(a, b, c, d):
    return a * 1000 + b * 100 + c * 10 + d


@triton.jit
def star_args_kernel(x_ptr, out_ptr, N: tl.constexpr):
    # f(*t), f(a, *t, b) and f(*t, *u): a tuple's items in its place in the arguments
    x = tl.load(x_ptr + tl.arange(0, N))
    t = (x, x + 1)
    u = (2, 3)
    tl.store(out_ptr + tl.arange(0, N), _weighted(*t, *u))
    tl.store(out_ptr + N + tl.arange(0, N), _weighted(1, *t, 4))
    tl.store(out_ptr + 2 * N + tl.arange(0, N), _weighted(*(x, 5, 6, 7)))
