# Triton's typing of Python numbers (tests/lang, family "typing"): a number assigned to a name
# is a rank-0 tensor of its literal type (methods work on it, its arithmetic is the tensor
# kind: C division, int32 wrap-around); a number against a tile adopts the tile's type when
# it is of the same or a lower kind; floats outside fp32's range are fp64; a float seed is an
# error.
import triton
import triton.language as tl


@triton.jit
def assigned_scalars_kernel(x_ptr, out_ptr, fout_ptr, n):
    a = 5
    b = a.to(tl.float32) / 2
    tl.store(fout_ptr + 0, b)
    c, d = 1, 2
    tl.store(out_ptr + 0, (c + d).to(tl.int64) * 3)
    x = 7
    tl.store(out_ptr + 1, x // -2)
    tl.store(out_ptr + 2, x % -2)
    big = 2147483647
    tl.store(out_ptr + 3, big + 1)
    acc = 0
    for i in range(n):
        acc += tl.load(x_ptr + i)
    tl.store(out_ptr + 4, acc.to(tl.int64) * 4294967296)
    f = 1.5
    tl.store(fout_ptr + 1, f.to(tl.float16).to(tl.float32) + f)
    t = True
    tl.store(out_ptr + 5, t.to(tl.int32) + t)


# the number takes the tile's type (fp16 stays fp16, int8 wraps, uint8 wraps), a float number
# with an int tile gives fp32, or fp64 when it does not fit fp32; bools
@triton.jit
def literal_vs_tile_kernel(h_ptr, i8_ptr, u8_ptr, i32_ptr, oh_ptr, oi8_ptr, ou8_ptr, of32_ptr, of64_ptr, ob_ptr,
                           N: tl.constexpr):
    i = tl.arange(0, N)
    h = tl.load(h_ptr + i)
    tl.store(oh_ptr + i, h * 1.5 + 2)
    q = tl.load(i8_ptr + i)
    tl.store(oi8_ptr + i, q + 1)
    u = tl.load(u8_ptr + i)
    tl.store(ou8_ptr + i, u - 1)
    v = tl.load(i32_ptr + i)
    tl.store(of32_ptr + i, v * 0.5)
    tl.store(of64_ptr + i, v * 1e300)
    tl.store(ob_ptr + i, (v > 0) + 1 + True)


@triton.jit
def int64_literal_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), x + 1099511627776)


@triton.jit
def float_seed_kernel(out_ptr, seed):
    offs = tl.arange(0, 16)
    tl.store(out_ptr + offs, tl.rand(seed, offs))


@triton.jit
def float_literal_seed_kernel(out_ptr):
    offs = tl.arange(0, 16)
    tl.store(out_ptr + offs, tl.randint(0.5, offs))


# Triton's shape rules for expand_dims: axes against the final rank, inserted in ascending
# order; chained comparisons on constexprs short-circuit
@triton.jit
def expand_dims_kernel(out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    t = tl.expand_dims(r, (3, 1, 2))
    tl.static_assert(t.shape == [N, 1, 1, 1])
    t = tl.expand_dims(r, (-4, 2, -1))
    tl.static_assert(t.shape == [1, N, 1, 1])
    tl.static_assert(0 < N <= 64)
    tl.static_assert(not (N < 0 < undefined_name))
    s = tl.expand_dims(tl.sum(r), -1)
    tl.static_assert(s.shape == [1])
    tl.store(out_ptr + r, tl.reshape(t, [N]) + s)


@triton.jit
def expand_dims_bad_axis_kernel(out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    t = tl.expand_dims(r, -3)


@triton.jit
def expand_dims_duplicate_kernel(out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    t = tl.expand_dims(r, (0, -3))


@triton.jit
def program_id_axis_kernel(out_ptr):
    pid = tl.program_id(20)


@triton.jit
def block_condition_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    if x > 0:
        tl.store(x_ptr, 1)


@triton.jit
def _two(x):
    return x, x + 1


# unpacking as Triton allows it: nested targets, one-element tuples, tuples returned by
# helpers, chained assignment, shapes
@triton.jit
def unpack_kernel(out_ptr):
    (a, b), c = (1, 2), 3
    d, = (4,)
    e, f = _two(tl.load(out_ptr))
    g = h = 7
    m, n = tl.arange(0, 4).shape, 2
    tl.static_assert(m == (4,))
    tl.store(out_ptr, a + b + c + d + e + f + g + h + n)


@triton.jit
def unpack_number_kernel(out_ptr):
    a, b = 1


@triton.jit
def unpack_count_kernel(out_ptr):
    a, b, c = _two(1)
