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
from triton.language.target_info import cuda_capability_geq


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
    tl.static_assert(isinstance(bp.type, tl.pointer_type) and isinstance(x_ptr.dtype, tl.pointer_type))
    tl.static_assert(not isinstance(bt, tl.pointer_type) and not isinstance(x_ptr.dtype, tl.block_type))
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


# ---- compile-time Python functions (item 6) and triton.language.standard's helpers ----------

from triton.language.standard import _is_power_of_two, _log2  # noqa: E402


@tl.constexpr
def _acc_dtype(dtype):
    # the type a sum of `dtype` values accumulates in
    if dtype == tl.float16 or dtype == tl.bfloat16:
        return tl.float32
    if dtype.is_int() and dtype.primitive_bitwidth < 32:
        return tl.int32
    return dtype


@triton.constexpr_function
def _per_word(dtype):
    # values of `dtype` in 32 bits, with a loop and a break as host code writes it
    n = 0
    for bits in range(0, 64, dtype.primitive_bitwidth):
        if bits >= 32:
            break
        n += 1
    return n


@triton.constexpr_function
def _ceil_log2(n):
    s = 0
    while (1 << s) < n:
        s += 1
    return s


@triton.constexpr_function
def _first_multiple(dims, k):
    # the first of dims divisible by k (0 when none): a loop over a tuple with continue/break
    found = 0
    for d in dims:
        if d % k != 0:
            continue
        found = d
        break
    return found


@triton.jit
def constexpr_fn_sum_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    tl.static_assert(_first_multiple((3, BLOCK * 2, 5, 4), 2) == BLOCK * 2)
    tl.static_assert(_first_multiple((3, 5), 2) == 0)
    tl.static_assert(_is_power_of_two(BLOCK))
    tl.static_assert(_log2(BLOCK) == _ceil_log2(BLOCK))
    acc = tl.zeros([BLOCK], dtype=_acc_dtype(x_ptr.dtype.element_ty))
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < N, other=0).to(_acc_dtype(x_ptr.dtype.element_ty))
    tl.store(out_ptr, tl.sum(acc, 0) * _per_word(x_ptr.dtype.element_ty) + (_log2(BLOCK) << 20))


@tl.constexpr
def _sign_of(x):
    if x > 0:
        return 1
    return -1


@triton.jit
def constexpr_fn_runtime_if_kernel(x_ptr, out_ptr):
    tl.store(out_ptr, _sign_of(tl.load(x_ptr)))


@triton.constexpr_function
def _triangle(n):
    return {1: 0, 2: 1, 3: 3, 4: 6}[n]  # a dict: Python the kernel language has no syntax for


@triton.jit
def constexpr_fn_unparsed_kernel(out_ptr):
    tl.store(out_ptr, _triangle(4))


# ---- issue 27: tl.reduce / associative_scan on a tuple of one, reshape to a tuple constexpr ---

@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def reduce_tuple_of_one_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    sum0, = tl.reduce((x,), 0, _add)
    cs, = tl.associative_scan((x,), 0, _add)
    tl.store(out_ptr, sum0)
    tl.store(out_ptr + 1 + tl.arange(0, BLOCK), cs)


@triton.jit
def reshape_tuple_constexpr_kernel(z_ptr, x_ptr, N: tl.constexpr, OUT_SHAPE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    z = tl.reshape(x, OUT_SHAPE)
    tl.static_assert(z.shape == OUT_SHAPE)
    tl.store(z_ptr + tl.arange(0, N), tl.reshape(z + 1, (N,)))


from triton.language.standard import _argmin_combine_tie_break_left, _pick_sum_dtype, _prod_combine  # noqa: E402


@triton.jit
def standard_combine_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.static_assert(_pick_sum_dtype(x.dtype, None) == tl.int32)
    tl.static_assert(_pick_sum_dtype(x.dtype, tl.int64) == tl.int64)
    vmin, imin = tl.reduce((x, offs), 0, _argmin_combine_tie_break_left)
    p = tl.reduce(x.to(tl.int32), 0, _prod_combine)
    tl.store(out_ptr, vmin.to(tl.int32))
    tl.store(out_ptr + 1, imin)
    tl.store(out_ptr + 2, p)


@triton.jit
def int_exponent_forms_kernel(x_ptr, e_ptr, out_ptr, BLOCK: tl.constexpr):
    # libdevice's other (fp32, int32) forms: ldexp / scalbn with a tile or a literal exponent
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    e = tl.load(e_ptr + offs)
    tl.store(out_ptr + offs, libdevice.ldexp(x, e))
    tl.store(out_ptr + BLOCK + offs, libdevice.scalbn(x, 3))
    tl.store(out_ptr + 2 * BLOCK + offs, libdevice.pow(x, -2))


@triton.jit
def item_of_many_kernel(out_ptr):
    x = tl.arange(0, 4)
    tl.store(out_ptr, x.item())


@triton.jit
def _softsign(x):
    return x / (1.0 + tl.abs(x))


@triton.jit
def apply_fn_kernel(x_ptr, y_ptr, ACT: tl.constexpr, N: tl.constexpr):
    # ACT: a @jit function or a builtin, passed as "@NAME" (the drop-in's function arguments)
    i = tl.arange(0, N)
    tl.store(y_ptr + i, ACT(tl.load(x_ptr + i)))


@triton.jit
def constexpr_type_kernel(out_ptr, strides, N: tl.constexpr, M: tl.constexpr):
    # .type of a compile-time value is tl.constexpr_type(value) (Triton's test_tuple checks a
    # specialized tuple element this way); a runtime element's is not
    tl.static_assert(isinstance(N.type, tl.constexpr_type))
    tl.static_assert(isinstance(strides[1].type, tl.constexpr_type))
    tl.static_assert(not isinstance(strides[0].type, tl.constexpr_type))
    tl.static_assert((N.type == M.type) == (N == M))
    tl.static_assert(N.type == tl.constexpr_type(4))
    pair: tl.constexpr = (N, 2.5)
    tl.static_assert(pair.type == tl.constexpr_type((4, 2.5)) and pair.type != tl.constexpr_type((4, 2)))
    tl.store(out_ptr, tl.load(strides[0]) + N)


@triton.jit
def fstring_dtype_kernel(x_ptr, out_ptr, N: tl.constexpr, NBITS: tl.constexpr, BIG: tl.constexpr):
    # f-strings and str() of compile-time values (triton_kernels' topk: tl.dtype(f"uint{n}")),
    # a static_assert message made by one, a branch with one that never runs
    x_utype: tl.constexpr = tl.dtype(f"uint{NBITS}")
    tl.static_assert(x_utype == tl.dtype("uint" + str(NBITS)), f"{x_utype} != uint{NBITS!s}")
    tl.static_assert(f"{{{N}}}:{N!r}:{'a'!r}:{1.5}:{True}:{None}:{tl.float16}" == "{8}:8:'a':1.5:True:None:fp16")
    tl.static_assert(f"{N=}, {NBITS = }, {N=:4}" == f"N=8, NBITS = {NBITS}, N=8")  # FastVideo's {X=}
    if BIG:
        tl.static_assert(N > 1024, f"N={N} is not big ({x_utype})")
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, N), x.to(x_utype, bitcast=True))


@triton.jit
def fstring_tensor_kernel(x_ptr):
    x = tl.load(x_ptr)
    tl.static_assert(True, f"x={x}")


@triton.jit
def many_live_names_after_return_kernel(x_ptr, out_ptr, n):
    # an early return, then more live names than an 'if' had results (32) before: the rest
    # of the function is the 'if not returned' whose results they are
    pid = tl.program_id(0)
    if pid >= n:
        return
    x = tl.load(x_ptr + pid)
    a0 = x + 1
    a1 = a0 + 1
    a2 = a1 + 1
    a3 = a2 + 1
    a4 = a3 + 1
    a5 = a4 + 1
    a6 = a5 + 1
    a7 = a6 + 1
    b0 = a7 * 2
    b1 = b0 + a0
    b2 = b1 + a1
    b3 = b2 + a2
    b4 = b3 + a3
    b5 = b4 + a4
    b6 = b5 + a5
    b7 = b6 + a6
    c0 = b7 - a7
    c1 = c0 - b0
    c2 = c1 - b1
    c3 = c2 - b2
    c4 = c3 - b3
    c5 = c4 - b4
    c6 = c5 - b5
    c7 = c6 - b6
    d0 = c7 + c0
    d1 = d0 + c1
    d2 = d1 + c2
    d3 = d2 + c3
    d4 = d3 + c4
    d5 = d4 + c5
    d6 = d5 + c6
    d7 = d6 + c7
    e0 = d7 + d0 + d1 + d2 + d3 + d4 + d5 + d6
    e1 = e0 + b7 + c7 + a7
    tl.store(out_ptr + pid, e1)


@triton.jit
def _exp_fast(x):
    # triton_kernels' swiglu: a CUDA fast path, a portable one elsewhere
    if tl.target_info.is_cuda():
        return tl.exp2(x * 1.4426950408889634)
    else:
        return tl.exp(x)


@triton.jit
def target_info_kernel(x_ptr, flags_ptr, N: tl.constexpr):
    # tl.target_info's questions, answered for the target compiled for (the CPU: no GPU)
    i = tl.arange(0, N)
    tl.store(x_ptr + i, _exp_fast(tl.load(x_ptr + i)))
    tl.store(flags_ptr + 0, tl.target_info.is_cuda())
    tl.store(flags_ptr + 1, cuda_capability_geq(8))
    tl.store(flags_ptr + 2, tl.target_info.cuda_capability_geq(99, minor=0))
    tl.store(flags_ptr + 3, tl.target_info.is_hip())
    tl.store(flags_ptr + 4, cuda_capability_geq(major=7, minor=5))


@triton.jit
def target_info_current_kernel(x_ptr):
    t: tl.constexpr = tl.target_info.current_target()
    tl.store(x_ptr, 1.0)


@triton.constexpr_function
def _int_dtype_of(bits):
    if bits == 16:
        return tl.int16
    elif bits == 32:
        return tl.int32
    raise ValueError(f"no integer dtype of {bits} bits")


@triton.jit
def constexpr_function_raises_kernel(x_ptr, BITS: tl.constexpr):
    d: tl.constexpr = _int_dtype_of(BITS)
    tl.store(x_ptr, tl.load(x_ptr).to(d).to(tl.float32) + 1)


@triton.jit
def div_rn_number_kernel(x_ptr, out_ptr, N: tl.constexpr):
    # a Python number beside a float tile in tl.div_rn / tl.fdiv takes the tile's type
    # (fouroversix: tl.div_rn(MAX_E2M1 * MAX_E4M3, amax))
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, N), tl.div_rn(6 * 448, x) + tl.fdiv(x, 4) + tl.math.div_rn(x, 2.0))
