# Bad kernels for the diagnostics family: each must fail with FILE:LINE:COL: error: ...
import triton
import triton.language as tl


@triton.jit
def shape_mismatch_kernel(x_ptr):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    tl.store(x_ptr + a, a + b)


@triton.jit
def shape_mismatch_2d_kernel(x_ptr):
    a = tl.arange(0, 16)
    t = a[:, None] + a[None, :]        # [16, 16]
    u = tl.zeros((8, 16), tl.int32)
    tl.store(x_ptr + a, tl.sum(t + u, axis=0))


@triton.jit
def dot_dtype_kernel(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b))


@triton.jit
def dot_precision_kernel(a_ptr, c_ptr, P: tl.constexpr, ALLOW: tl.constexpr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    if ALLOW:
        c = tl.dot(a, a, input_precision=P, allow_tf32=True)
    else:
        c = tl.dot(a, a, input_precision=P)
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], c)


@triton.jit
def dot_shape_kernel(a_ptr, c_ptr):
    r = tl.arange(0, 16)
    s = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + s[None, :])     # [16, 32]
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, a))


@triton.jit
def unknown_fn_kernel(x_ptr):
    r = tl.arange(0, 16)
    tl.store(x_ptr + r, tl.frobulate(r))


@triton.jit
def loop_type_change_kernel(x_ptr, n):
    acc = 0
    for i in range(n):
        acc = acc + 0.5
    tl.store(x_ptr, acc)


@triton.jit
def loop_shape_change_kernel(x_ptr, n):
    acc = tl.zeros((16,), tl.float32)
    for i in range(n):
        acc = tl.zeros((32,), tl.float32)
    tl.store(x_ptr + tl.arange(0, 16), acc)


@triton.jit
def arange_not_pow2_kernel(x_ptr):
    r = tl.arange(0, 12)
    tl.store(x_ptr + r, r)


@triton.jit
def undefined_name_kernel(x_ptr):
    r = tl.arange(0, 16)
    tl.store(x_ptr + r, r + not_defined_anywhere)


@triton.jit
def tensor_index_kernel(x_ptr):
    r = tl.arange(0, 16)
    tl.store(x_ptr, r[3])


@triton.jit
def if_type_mismatch_kernel(x_ptr, n):
    if n > 0:
        v = tl.zeros((16,), tl.float32)
    else:
        v = tl.zeros((32,), tl.float32)
    tl.store(x_ptr + tl.arange(0, 16), v)


@triton.jit
def static_assert_kernel(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 16 == 0, "BLOCK must be a multiple of 16")
    r = tl.arange(0, BLOCK)
    tl.store(x_ptr + r, r)


@triton.jit
def reshape_numel_kernel(x_ptr):
    r = tl.arange(0, 16)
    tl.store(x_ptr + tl.arange(0, 8), tl.reshape(r, (8, 4)))


@triton.jit
def wrong_arg_count_kernel(x_ptr):
    r = tl.arange(0, 16)
    tl.store(x_ptr + r, _two_args(r))


@triton.jit
def _two_args(a, b):
    return a + b


@triton.jit
def loop_tile_dtype_change_kernel(x_ptr, n):
    acc = tl.zeros((16,), tl.int32)
    for i in range(n):
        acc = acc + 0.5
    tl.store(x_ptr + tl.arange(0, 16), acc)


@triton.jit
def chained_compare_kernel(x_ptr, n):
    r = tl.arange(0, 16)
    tl.store(x_ptr + r, r, mask=0 < r < n)


@triton.jit
def nested_def_kernel(x_ptr):
    def inner(v):
        return v + 1
    r = tl.arange(0, 16)
    tl.store(x_ptr + r, inner(r))


@triton.jit
def big_int_fold_kernel(x_ptr):
    K: tl.constexpr = 0x8000000000000000 + 1
    tl.store(x_ptr, K)


# Triton's store/atomic rule: the value and mask take the pointer's shape (same rank, dims 1
# or equal); they never widen the pointer tile (which wrote past a buffer before).
@triton.jit
def store_rank_mismatch_kernel(z_ptr, x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 32))
    r = tl.arange(0, 4)
    tl.store(z_ptr + r[:, None, None] * 128 + r[None, :, None] * 32 + tl.arange(0, 32)[None, None, :], x[None, :])


@triton.jit
def store_wider_value_kernel(z_ptr):
    r = tl.arange(0, 16)
    tl.store(z_ptr + r[:, None], r[:, None] + r[None, :])


@triton.jit
def store_block_to_scalar_kernel(z_ptr):
    tl.store(z_ptr, tl.arange(0, 16))


@triton.jit
def atomic_rank_mismatch_kernel(z_ptr):
    r = tl.arange(0, 16)
    tl.atomic_add(z_ptr + r[None, :], r)


@triton.jit
def load_scalar_block_mask_kernel(z_ptr):
    r = tl.arange(0, 16)
    v = tl.load(z_ptr, mask=r < 4, other=0)
    tl.store(z_ptr + r, v)


# A reduction of a 0-d tensor takes no axis (tl.max(m, other) meant as tl.maximum returned m).
@triton.jit
def reduce_scalar_runtime_axis_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    m = tl.full((), -float("inf"), tl.float32)
    blk = tl.max(tl.load(x_ptr + tl.arange(0, BLOCK)), axis=0)
    tl.store(y_ptr, tl.max(m, blk))


@triton.jit
def reduce_scalar_axis_kernel(y_ptr):
    m = tl.full((), 2.0, tl.float32)
    tl.store(y_ptr, tl.sum(m, 0))


# Pointers to constant data (`tl.const` parameters): loads work, stores and atomics are
# Triton's "Cannot store to a constant pointer"; a runtime choice between a const and a
# plain pointer is an inconsistent type, as in Triton.
@triton.jit
def const_store_kernel(src: tl.const, dst: tl.const, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = dst + offs
    tl.store(p, tl.load(src + offs))


@triton.jit
def const_atomic_kernel(dst: tl.const):
    tl.atomic_add(dst, 1.0)


@triton.jit
def const_runtime_choice_kernel(a, b: tl.const, pick):
    p = b if pick > 0 else a
    tl.store(a, tl.load(p))


@triton.jit
def _pick_ptr(a, b, pick):
    if pick > 0:
        return b
    return a


@triton.jit
def const_helper_return_kernel(a, b: tl.const, pick):
    tl.store(a, tl.load(_pick_ptr(a, b, pick)))


# An error inside @jit helpers names the calls that led there (the second call fails).
@triton.jit
def helper_chain_kernel(x_ptr):
    tl.store(x_ptr + tl.arange(0, 8), chain_outer(8))
    tl.store(x_ptr + tl.arange(0, 8), chain_outer(6))


@triton.jit
def chain_outer(W: tl.constexpr):
    return chain_inner(W) + 1


@triton.jit
def chain_inner(W: tl.constexpr):
    return tl.arange(0, W)
