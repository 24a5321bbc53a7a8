# Math functions (tests/lang, family "math"). One kernel applies a function picked by a
# constexpr string, so the driver can test many functions with one kernel.
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _apply(x, y, FN: tl.constexpr):
    if FN == "exp":
        r = tl.exp(x)
    elif FN == "exp2":
        r = tl.exp2(x)
    elif FN == "log":
        r = tl.log(x)
    elif FN == "log2":
        r = tl.log2(x)
    elif FN == "sin":
        r = tl.sin(x)
    elif FN == "cos":
        r = tl.cos(x)
    elif FN == "sqrt":
        r = tl.sqrt(x)
    elif FN == "sqrt_rn":
        r = tl.sqrt_rn(x)
    elif FN == "rsqrt":
        r = tl.rsqrt(x)
    elif FN == "erf":
        r = tl.erf(x)
    elif FN == "floor":
        r = tl.floor(x)
    elif FN == "ceil":
        r = tl.ceil(x)
    elif FN == "abs":
        r = tl.abs(x)
    elif FN == "sigmoid":
        r = tl.sigmoid(x)
    elif FN == "fma":
        r = tl.fma(x, y, 0.25)
    elif FN == "clamp":
        r = tl.clamp(x, -0.5, y)
    elif FN == "fdiv":
        r = tl.fdiv(x, y)
    elif FN == "div_rn":
        r = tl.div_rn(x, y)
    elif FN == "minimum":
        r = tl.minimum(x, y)
    elif FN == "maximum":
        r = tl.maximum(x, y)
    elif FN == "math_exp":
        r = tl.math.exp(x)
    elif FN == "math_log":
        r = tl.math.log(x)
    elif FN == "math_sqrt":
        r = tl.math.sqrt(x)
    elif FN == "math_rsqrt":
        r = tl.math.rsqrt(x)
    elif FN == "math_fma":
        r = tl.math.fma(x, y, x)
    elif FN == "math_abs":
        r = tl.math.abs(x)
    elif FN == "tanh":
        r = libdevice.tanh(x)
    elif FN == "asin":
        r = libdevice.asin(x)
    elif FN == "acos":
        r = libdevice.acos(x)
    elif FN == "atan":
        r = libdevice.atan(x)
    elif FN == "atan2":
        r = libdevice.atan2(x, y)
    elif FN == "pow":
        r = libdevice.pow(x, y)
    elif FN == "log1p":
        r = libdevice.log1p(x)
    elif FN == "expm1":
        r = libdevice.expm1(x)
    elif FN == "rint":
        r = libdevice.rint(x)
    elif FN == "round":
        r = libdevice.round(x)
    elif FN == "trunc":
        r = libdevice.trunc(x)
    elif FN == "tl_extra_tanh":
        r = tl.extra.libdevice.tanh(x)
    elif FN == "libdevice_exp":
        r = libdevice.exp(x)
    elif FN == "fdiv_ieee":
        r = tl.fdiv(x, y, ieee_rounding=True)
    elif FN == "fdiv_approx":
        r = tl.math.fdiv(x, y, approx=True)
    else:
        tl.static_assert(False, "unknown FN")
    return r


@triton.jit
def unary_kernel(x_ptr, y_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    i = pid * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m, other=1.0)
    y = tl.load(y_ptr + i, mask=m, other=1.0)
    tl.store(out_ptr + i, _apply(x, y, FN), mask=m)


@triton.jit
def classify_kernel(x_ptr, nan_ptr, inf_ptr, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m, other=0.0)
    tl.store(nan_ptr + i, libdevice.isnan(x).to(tl.int32), mask=m)
    tl.store(inf_ptr + i, libdevice.isinf(x).to(tl.int32), mask=m)


@triton.jit
def umulhi_kernel(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + i)
    b = tl.load(b_ptr + i)
    tl.store(out_ptr + i, tl.umulhi(a, b))


@triton.jit
def softmax_fn_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(out_ptr + r[:, None] * N + c[None, :], tl.softmax(x))


@triton.jit
def fp64_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + i, tl.exp(x) * tl.sqrt(tl.abs(x)) + libdevice.atan(x))


@triton.jit
def fp16_math_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # fp16 data goes through fp32 for the math, result stored as fp16
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i).to(tl.float32)
    tl.store(out_ptr + i, (tl.exp(x) - tl.log(tl.abs(x) + 1.0)).to(tl.float16))


@triton.jit
def div_uniform_kernel(x_ptr, w_ptr, out_ptr, sum_out_ptr, s, n, BLOCK: tl.constexpr):
    # x / d with d the same for every element: a scalar argument and a row sum
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    tl.store(out_ptr + offs, x / s, mask=m)
    w = tl.load(w_ptr + tl.arange(0, 4))
    tl.store(sum_out_ptr + offs, x / tl.sum(w, axis=0), mask=m)


@triton.jit
def hash_u64_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # 64-bit mixing constants at or above 2**63 are uint64 literals (Triton's typing)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    h = (x ^ 0x9E3779B97F4A7C15) * 0xBF58476D1CE4E5B9
    h = h ^ (h >> 31)
    tl.store(out_ptr + offs, h, mask=m)


# Functions LLVM has no intrinsic for, on one-element tiles and scalars (where SLEEF's
# vector entry points do not apply): the C library's scalar function per lane.
@triton.jit
def libm_narrow_kernel(x_ptr, out_ptr, s_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, getattr(libdevice, FN)(tl.load(x_ptr + offs)))
    tl.store(s_ptr, getattr(libdevice, FN)(tl.load(x_ptr)))
