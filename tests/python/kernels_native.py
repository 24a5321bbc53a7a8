"""Kernels the native-API tests launch (module level: the compiler reads this file)."""

import tilec
import tilec.language as tl


@tilec.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@tilec.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


@tilec.jit
def copy_strided_kernel(src_ptr, dst_ptr, n, stride, BLOCK: tl.constexpr):
    """dst[i] = src[i * stride]: the caller passes the strides of a non-contiguous view."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs * stride, mask=mask), mask=mask)


@tilec.jit
def grid2d_kernel(out_ptr, ncols):
    """out[y, x] = y * 1000 + x for a grid of (ncols, nrows) programs."""
    x = tl.program_id(0)
    y = tl.program_id(1)
    tl.store(out_ptr + y * ncols + x, y * 1000 + x)


@tilec.jit
def cast_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out = float32(x) for any element type of x."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.float32), mask=mask)


@tilec.jit
def flag_kernel(out_ptr, flag, value):
    """out[0] = value if flag else -value (flag is a runtime bool)."""
    if flag:
        tl.store(out_ptr, value)
    else:
        tl.store(out_ptr, -value)


@tilec.jit
def optional_kernel(out_ptr, bias_ptr, n, BLOCK: tl.constexpr):
    """out += bias, or += 1 when bias_ptr is None (specialized as a constexpr None)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(out_ptr + offs, mask=mask)
    if bias_ptr is None:
        v = v + 1
    else:
        v = v + tl.load(bias_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, v, mask=mask)


@tilec.jit
def default_kernel(out_ptr, value=3, BLOCK: tl.constexpr = 16):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.full((BLOCK,), value, tl.int32))


@tilec.jit(debug=True)
def assert_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x >= 0, "x must be non-negative")


@tilec.jit
def oob_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    """Reads BLOCK elements without a mask: out of bounds when x is shorter."""
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@tilec.jit
def race_kernel(out_ptr):
    """Every program stores to out[0]: a write-write race between programs."""
    tl.store(out_ptr, tl.program_id(0).to(tl.float32))


@tilec.jit
def bad_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, undefined_name + 1)  # noqa: F821 - the compile error under test


@tilec.jit
def store_scalar_kernel(out_ptr, a):
    """out[0] = a (the value arrives with the type the specialization chose)."""
    tl.store(out_ptr, a)


@tilec.jit(do_not_specialize=["a"], do_not_specialize_on_alignment=["out_ptr"])
def nospec_kernel(out_ptr, a):
    tl.store(out_ptr, a)


@tilec.jit(do_not_specialize=[1])
def nospec_index_kernel(out_ptr, a):
    tl.store(out_ptr, a)


@tilec.jit
def annotated_kernel(out_ptr, a: tl.int64, f: float):
    tl.store(out_ptr, a + f.to(tl.int64))


@tilec.jit
def dtype_kernel(x_ptr, out_ptr, n, DT: tl.constexpr, BLOCK: tl.constexpr):
    """out = x converted to DT (a dtype-valued constexpr)."""
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(DT), mask=mask)


@tilec.jit
def mode_kernel(x_ptr, n, MODE: tl.constexpr, BLOCK: tl.constexpr):
    """A string constexpr selects the operation."""
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if MODE == "double":
        x = x * 2
    else:
        x = x + 100
    tl.store(x_ptr + offs, x, mask=mask)


@tilec.jit
def wait_flag_kernel(started_ptr, flag_ptr, out_ptr, max_iters):
    """Announces that it runs, then waits (bounded) for the host to set *flag_ptr; stores
    what it saw. Atomic reads: every iteration really reads memory."""
    tl.atomic_xchg(started_ptr, 1)
    seen = tl.atomic_add(flag_ptr, 0)
    i = 0
    while (seen == 0) & (i < max_iters):
        seen = tl.atomic_add(flag_ptr, 0)
        i += 1
    tl.store(out_ptr, seen)


@tilec.jit
def assert_nodebug_kernel(x_ptr, n, BLOCK: tl.constexpr):
    """The same assertion without debug=True: Triton compiles it to nothing."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x >= 0, "x must be non-negative")
    assert x.shape[0] == BLOCK  # a Python assert in a kernel is a device_assert too


@tilec.jit
def tuple_kernel(out_ptr, SHAPE: tl.constexpr):
    """out (SHAPE[0] x SHAPE[1], row-major) = row * 10 + col; SHAPE is a tuple constexpr."""
    rows = tl.arange(0, SHAPE[0])[:, None]
    cols = tl.arange(0, SHAPE[1])[None, :]
    tl.store(out_ptr + rows * SHAPE[1] + cols, rows * 10 + cols)
