# Kernels for the lang family 'tuples': shapes and tuples at compile time (comparisons with
# each other, with lists and constexpr tuples, len, indexing and slicing, + and *, unpacking,
# iteration) and the located errors for forms Python/Triton reject.
import triton
import triton.language as tl


@triton.jit
def _numel(shape):
    n = 1
    for d in shape:
        n = n * d
    return n


@triton.jit
def shape_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, R * C)).reshape(R, C)
    y = tl.zeros((R, C), tl.int32)
    tl.static_assert(x.shape == [R, C])
    tl.static_assert(x.shape == (R, C), "shape as a tuple")
    tl.static_assert(x.shape == y.shape)
    tl.static_assert(x.shape != [C, R * 2])
    tl.static_assert(not (x.shape == R))
    tl.static_assert(len(x.shape) == 2)
    tl.static_assert(x.shape[-1] == C)
    tl.static_assert(x.shape[1:] == (C,))
    tl.static_assert(x.shape[::-1] == [C, R])
    tl.static_assert(x.shape[:0] == ())
    tl.static_assert(x.shape + (1,) == (R, C, 1))
    tl.static_assert((1,) * 3 == (1, 1, 1))
    tl.static_assert((1, 2) < (1, 3))
    tl.static_assert((1, 2) <= (1, 2, 0))
    tl.static_assert([2] > (1, 9))
    SHAPE: tl.constexpr = (R, C)
    tl.static_assert(x.shape == SHAPE)
    M, N = x.shape
    a, (b, c) = (1, (M, N))
    dims = x.shape
    dims += (7,)
    total = 0
    for d in x.shape:
        total += d
    tl.store(out_ptr + 0, M * 100 + N)
    tl.store(out_ptr + 1, a + b + c)
    tl.store(out_ptr + 2, _numel(x.shape))
    tl.store(out_ptr + 3, total)
    tl.store(out_ptr + 4, len(dims) * 10 + dims[2])
    tl.store(out_ptr + 5, tl.sum((x + y).reshape(R * C), 0))
    tl.store(out_ptr + 6, (2 in x.shape) + (R in x.shape) * 2)


@triton.jit
def step_kwarg_kernel(out_ptr, n):
    acc = 0
    for i in tl.range(0, n, step=3, num_stages=2, loop_unroll_factor=2, flatten=False, warp_specialize=False):
        acc += i
    s = 0
    for j in tl.static_range(1, 10, step=4):
        s += j
    tl.store(out_ptr + 0, acc)
    tl.store(out_ptr + 1, s)


@triton.jit
def row_sums_after_store_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    # LLVM 22's x86 backend miscompiles the shuffle tree of these two row sums
    # (vpbroadcastq where vpshufd [2,3,2,3] is needed): see KNOWN_FAILURES
    x = tl.load(x_ptr + tl.arange(0, R * C)).reshape(R, C)
    tl.store(out_ptr + 0, 5)
    tl.store(out_ptr + 1, tl.sum(tl.sum(x, 1), 0))


# ---- bad forms ----------------------------------------------------------------------------

@triton.jit
def shape_assert_fails_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 32)).reshape(4, 8)
    tl.static_assert(x.shape == [8, 4], "x must be 8 x 4")


@triton.jit
def tensor_tuple_compare_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.static_assert((x, x) == (x, x))


@triton.jit
def tuple_order_scalar_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.static_assert(x.shape < 3)


@triton.jit
def tuple_plus_int_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    s = x.shape + 1
    tl.store(x_ptr, s[0])


@triton.jit
def tuple_slice_step_zero_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    s = x.shape[::0]
    tl.store(x_ptr, len(s))


@triton.jit
def tuple_index_range_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr, x.shape[1])


@triton.jit
def comprehension_kernel(out_ptr, n):
    # tl.tuple(...) and [elt for target in tuple if cond] as Triton compiles them (Triton's test_tuple)
    v = n
    t = tl.tuple((1, 2, 3))
    u = [v * n for v in t if v != 2]
    w = tl.tuple([4, 5]) + (6,)
    tl.store(out_ptr + 0, u[0])
    tl.store(out_ptr + 1, u[1])
    tl.store(out_ptr + 2, len(u) * 10 + len(w))
    tl.store(out_ptr + 3, (tl.tuple((1, 2)) == (1, 2)) + 10 * (tl.tuple((1, 2)) == (1, 3)))
    s = [a + b for a, b in ((1, 10), (2, 20))]
    tl.store(out_ptr + 4, s[0] + s[1])
    tl.store(out_ptr + 5, v + len(tl.tuple()))


@triton.jit
def tuple_param_kernel(t, out_ptr):
    # a tuple parameter: its runtime elements are the compiled kernel's parameters t_0, t_1_0
    tl.store(out_ptr, tl.load(t[0]) + t[1][0] + t[1][1])


@triton.jit
def comprehension_over_tensor_kernel(out_ptr):
    u = [i for i in tl.arange(0, 4)]
    tl.store(out_ptr, len(u))


@triton.jit
def tuple_pointers_kernel(ptrs, n, scales, BLOCK: tl.constexpr):
    # `tilec run ptrs=(x.npy, y.npy, z.npy) scales=(2.5, 3)`: runtime tuples of arrays and
    # numbers, flattened into ptrs_0, ptrs_1, ptrs_2, scales_0, scales_1
    x, y, z = ptrs
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    a = tl.load(x + o, mask=m)
    tl.store(y + o, a * scales[0], mask=m)
    tl.store(z + o, a + scales[1], mask=m)


@triton.jit
def tuple_nested_kernel(args, BLOCK: tl.constexpr):
    # a nested runtime tuple: (x, (y, n)), the out array the inner tuple's first element
    x, (y, n) = args
    o = tl.arange(0, BLOCK)
    m = o < n
    tl.store(y + o, tl.load(x + o, mask=m) * 2 + 1, mask=m)


@triton.jit
def listcomp_range_kernel(X_ptr, Y_ptr, sb, si, sj, N: tl.constexpr):
    # comprehensions over range() with compile-time bounds unroll into tuples (newer Triton)
    b = tl.program_id(0)
    j = tl.arange(0, N)
    row = [tl.load(X_ptr + b * sb + i * si + j * sj) for i in range(N)]
    row = [row[i] * (i + 1) for i in range(N)]
    odd = [i for i in tl.static_range(1, N, 2) if i != 3]
    for i in tl.static_range(0, N):
        tl.store(Y_ptr + b * sb + i * si + j * sj, row[i] + len(odd) * 1000)


@triton.jit
def listcomp_runtime_range_kernel(x_ptr, n):
    v = [i for i in range(n)]
    tl.store(x_ptr, len(v))
