# Kernels for the lang family 'libforms': the constructs large libraries of real kernels use
# (issue 28), each written in the shape those libraries write it: a block pointer's
# .type.element_ty as a cast target, `.value` of constexprs handed to @jit helpers,
# libdevice.pow with an int32 exponent, the libdevice rounding-mode arithmetic, the tensor
# methods logical_and/logical_or/item/softmax, triton.next_power_of_2 / cdiv and math.pi on
# constexprs inside a kernel.
import math

import triton
import triton.language as tl
from triton.language.extra import libdevice


# ---- types of block pointers and tiles -----------------------------------------------------

@triton.jit
def scale_block_ptr_kernel(x_ptr, out_ptr, M, N, scale, BM: tl.constexpr, BN: tl.constexpr):
    # load in the input's type, compute in fp32, store in the output block pointer's element type
    pid = tl.program_id(0)
    in_bp = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BM, 0),
                              block_shape=(BM, BN), order=(1, 0))
    out_bp = tl.make_block_ptr(out_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BM, 0),
                               block_shape=(BM, BN), order=(1, 0))
    for _ in range(0, tl.cdiv(N, BN)):
        x = tl.load(in_bp, boundary_check=(0, 1)).to(tl.float32)
        y = x * scale
        tl.store(out_bp, y.to(out_bp.type.element_ty), boundary_check=(0, 1))
        in_bp = tl.advance(in_bp, (0, BN))
        out_bp = tl.advance(out_bp, (0, BN))


@triton.jit
def block_ptr_dtype_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # the same through .dtype.element_ty, and the Triton facts of these types at compile time
    bp = tl.make_block_ptr(x_ptr, shape=(N,), strides=(1,), offsets=(0,), block_shape=(BLOCK,), order=(0,))
    obp = tl.make_block_ptr(out_ptr, shape=(N,), strides=(1,), offsets=(0,), block_shape=(BLOCK,), order=(0,))
    bt = bp.type.element_ty
    tl.static_assert(bt.is_block())
    tl.static_assert(bp.type.is_ptr())
    tl.static_assert(not bp.type.is_block())
    tl.static_assert(bt.shape == (BLOCK,))
    tl.static_assert(bt.get_block_shapes() == (BLOCK,))
    tl.static_assert(bt.numel == BLOCK)
    tl.static_assert(bt.element_ty == x_ptr.dtype.element_ty)
    tl.static_assert(bt.scalar == x_ptr.type.element_ty)
    tl.static_assert(bp.dtype == bp.type)
    tl.static_assert(bp.type.scalar == bp.type)
    tl.static_assert(bp.type.element_ty != bt.element_ty)
    tl.static_assert(isinstance(bt, tl.block_type))
    x = tl.load(bp, boundary_check=(0,), padding_option="zero")
    acc = x.to(tl.float32)
    tl.static_assert(acc.type.is_block())
    tl.static_assert(acc.type.element_ty == tl.float32)
    tl.static_assert(acc.type.scalar == acc.dtype)
    tl.static_assert(acc.type.shape == acc.shape)
    tl.static_assert(acc.type != tl.float32)
    s = tl.sum(acc, 0)
    tl.static_assert(s.type == tl.float32)
    tl.store(obp, (acc + s).to(obp.dtype.element_ty), boundary_check=(0,))
    tl.store(obp, (acc + s).to(bp.type.element_ty.element_ty).to(obp.type.element_ty), boundary_check=(0,))


@triton.jit
def block_ptr_type_as_dtype_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # a block type is no scalar dtype: tl.zeros wants .element_ty
    bp = tl.make_block_ptr(x_ptr, shape=(N,), strides=(1,), offsets=(0,), block_shape=(BLOCK,), order=(0,))
    acc = tl.zeros((BLOCK,), dtype=bp.type.element_ty)
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


@triton.jit
def block_ptr_bad_attr_kernel(x_ptr, N, BLOCK: tl.constexpr):
    bp = tl.make_block_ptr(x_ptr, shape=(N,), strides=(1,), offsets=(0,), block_shape=(BLOCK,), order=(0,))
    tl.static_print(bp.shape)


# ---- .value of constexprs in @jit helpers ----------------------------------------------

@triton.jit
def _lowest_of(dtype):
    # the smallest value of a dtype, chosen at compile time from the dtype object itself
    dtype_ = dtype.value
    if dtype_.is_floating():
        low: tl.constexpr = float("-inf")
        return low
    if dtype_.is_int_signed():
        width: tl.constexpr = dtype_.int_bitwidth
        low: tl.constexpr = -(2 ** (width - 1))
        return low
    return 0


@triton.jit
def _masked_max(x, mask, dtype: tl.constexpr):
    fill = _lowest_of(dtype)
    return tl.max(tl.where(mask, x, fill), 0)


@triton.jit
def rowmax_value_kernel(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr, DTYPE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + row * stride + offs, mask=mask)
    m = _masked_max(x, mask, DTYPE)
    tl.static_assert(BLOCK.value == BLOCK)
    SCALE: tl.constexpr = 2
    tl.store(out_ptr + row, m * SCALE.value + (N > BLOCK.value))


# ---- libdevice.pow with an integer exponent ----------------------------------------------

@triton.jit
def pow_int_kernel(x_ptr, e_ptr, out_ptr, out2_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    e = tl.load(e_ptr + offs, mask=mask, other=0)
    tl.store(out_ptr + offs, libdevice.pow(x, e), mask=mask)
    # a literal exponent is an int32 too (Triton's (fp32, int32) overload)
    tl.store(out2_ptr + offs, libdevice.pow(x, 3), mask=mask)


@triton.jit
def pow_int64_kernel(x_ptr, e_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    e = tl.load(e_ptr + offs)
    tl.store(out_ptr + offs, libdevice.pow(x, e))


# ---- tensor methods ------------------------------------------------------------------------

@triton.jit
def logical_methods_kernel(a_ptr, b_ptr, out_ptr, N, lo, hi, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    outside = (a < lo).logical_or(a > hi)
    both = (a > 0).logical_and(b > 0)
    nan = (a != a).logical_or(b != b)
    r = outside.to(tl.int32) + 2 * both.to(tl.int32) + 4 * nan.to(tl.int32)
    tl.store(out_ptr + offs, r, mask=mask)


@triton.jit
def item_softmax_kernel(x_ptr, out_ptr, s_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x.softmax())
    first = tl.load(x_ptr + tl.arange(0, 1))
    tl.store(s_ptr, first.item() + tl.sum(x, 0).item())


# ---- triton.next_power_of_2 / cdiv and math on constexprs -----------------------------------

@triton.jit
def npow2_row_sum_kernel(x_ptr, out_ptr, N: tl.constexpr):
    BLOCK: tl.constexpr = triton.next_power_of_2(N)
    CHUNKS: tl.constexpr = triton.cdiv(N, 4)
    tl.static_assert(triton.next_power_of_2(0) == 0)
    tl.static_assert(triton.next_power_of_2(1) == 1)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < N, other=0.0)
    tl.store(out_ptr, tl.sum(x, 0) + CHUNKS * 1000 + BLOCK * 100000)


@triton.jit
def gelu_tanh_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask)
    k: tl.constexpr = math.sqrt(2.0 / math.pi)
    inner = k * (x + 0.044715 * x * x * x)
    t = 2 * tl.sigmoid(2 * inner) - 1
    tl.store(out_ptr + offs, 0.5 * x * (1 + t) + 0 * math.e * math.tau * (math.inf > 0), mask=mask)


# ---- libdevice's rounding-mode arithmetic and conversions ----------------------------------

@triton.jit
def rounding_kernel(x_ptr, y_ptr, z_ptr, out_ptr, N, FN: tl.constexpr, NARGS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask)
    if NARGS == 1:
        r = getattr(libdevice, FN)(x)
    elif NARGS == 2:
        r = getattr(libdevice, FN)(x, tl.load(y_ptr + offs, mask=mask))
    else:
        r = getattr(libdevice, FN)(x, tl.load(y_ptr + offs, mask=mask), tl.load(z_ptr + offs, mask=mask))
    tl.store(out_ptr + offs, r, mask=mask)


@triton.jit
def fma_rz_fp64_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, libdevice.fma_rz(x, x, x))
