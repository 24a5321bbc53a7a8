# The tilec prelude: tl.* functions written in the kernel language itself. tilec parses
# this file with every kernel; `tl.NAME` resolves here before the native builtins, so a
# function defined below is callable as tl.NAME (and as libdevice.NAME when marked so).
import triton
import triton.language as tl
from triton.language.extra import libdevice

# ---------------------------------------------------------------------------------------
# Random numbers: Philox4x32-10 (and Philox4x64 for 64-bit counters) as Triton defines them
# in triton/language/random.py, so the same seed and offsets give the same bits.
#
# Conventions and where they come from:
# - Round function and constants: Salmon et al., "Parallel random numbers: as easy as
#   1, 2, 3" (SC'11) and Random123's philox.h. One round maps (c0, c1, c2, c3) with key
#   (k0, k1) to (hi(M1*c2) ^ c1 ^ k0, lo(M1*c2), hi(M0*c0) ^ c3 ^ k1, lo(M0*c0)), where
#   M0 = 0xD2511F53, M1 = 0xCD9E8D57 (32-bit) and the key is bumped by the Weyl constants
#   0x9E3779B9 / 0xBB67AE85 after every round (the first round uses the key as given).
#   Triton names M0 PHILOX_ROUND_A, M1 PHILOX_ROUND_B, and the Weyl constants
#   PHILOX_KEY_A / PHILOX_KEY_B; tests/e2e/random_test.c checks a C version of exactly
#   this against Random123's published known-answer vectors.
# - Key = seed: Triton's philox() widens the seed to uint64 (sign-extending a signed seed,
#   so a negative int32 seed has k1 = 0xffffffff) and uses k0 = low 32 bits, k1 = high 32.
# - Counter = offset: Triton's randint4x() passes c0 = offset.to(uint32) (truncating a
#   64-bit offset), c1 = the high 32 bits of a 64-bit offset (0 for narrower offsets),
#   c2 = c3 = 0. randint is the first word, rand maps it with uint_to_uniform_float, randn
#   is Box-Muller on the first two words, the *4x variants return all four.
#
# tilec types an integer literal in [2^31, 2^32) as int64 where Triton types it uint32,
# which would widen the uint32 arithmetic below to int64; every constant is therefore
# built with an explicit dtype (tl.cast) instead of relying on literal promotion.
# ---------------------------------------------------------------------------------------


# triton.language.standard's compile-time helpers, which libraries import by name
# (`from triton.language.standard import _log2`): Python functions run at compile time.
@triton.constexpr_function
def _log2(i):
    log2 = 0
    n = i
    while n > 1:
        n >>= 1
        log2 += 1
    return log2


@triton.constexpr_function
def _is_power_of_two(i):
    return (i & (i - 1)) == 0 and i != 0


@triton.constexpr_function
def _get_int_dtype(bitwidth, signed):
    if signed:
        if bitwidth == 8:
            return tl.int8
        if bitwidth == 16:
            return tl.int16
        if bitwidth == 32:
            return tl.int32
        if bitwidth == 64:
            return tl.int64
    else:
        if bitwidth == 1:
            return tl.int1
        if bitwidth == 8:
            return tl.uint8
        if bitwidth == 16:
            return tl.uint16
        if bitwidth == 32:
            return tl.uint32
        if bitwidth == 64:
            return tl.uint64
    tl.static_assert(False, "Unsupported bitwidth")


# triton.language.standard's combine functions, for tl.reduce / tl.associative_scan in
# code that imports them by name (`from triton.language.standard import _sum_combine`).
@triton.jit
def _sum_combine(a, b):
    return a + b


@triton.jit
def _prod_combine(a, b):
    return a * b


@triton.jit
def _xor_combine(a, b):
    return a ^ b


@triton.jit
def _or_combine(a, b):
    return a | b


@triton.jit
def _elementwise_max(a, b):
    return tl.maximum(a, b)


@triton.jit
def _elementwise_min(a, b):
    return tl.minimum(a, b)


@triton.jit
def _argmax_combine(value1, index1, value2, index2, tie_break_left):
    # the larger value wins; an equal value wins with the smaller index when tie_break_left
    if tie_break_left:
        first = (value1 > value2) | ((value1 == value2) & (index1 < index2))
    else:
        first = value1 > value2
    return tl.where(first, value1, value2), tl.where(first, index1, index2)


@triton.jit
def _argmax_combine_tie_break_left(value1, index1, value2, index2):
    return _argmax_combine(value1, index1, value2, index2, True)


@triton.jit
def _argmax_combine_tie_break_fast(value1, index1, value2, index2):
    return _argmax_combine(value1, index1, value2, index2, False)


@triton.jit
def _argmin_combine(value1, index1, value2, index2, tie_break_left):
    if tie_break_left:
        first = (value1 < value2) | ((value1 == value2) & (index1 < index2))
    else:
        first = value1 < value2
    return tl.where(first, value1, value2), tl.where(first, index1, index2)


@triton.jit
def _argmin_combine_tie_break_left(value1, index1, value2, index2):
    return _argmin_combine(value1, index1, value2, index2, True)


@triton.jit
def _argmin_combine_tie_break_fast(value1, index1, value2, index2):
    return _argmin_combine(value1, index1, value2, index2, False)


@triton.constexpr_function
def _pick_sum_dtype(in_dtype, dtype):
    # the accumulator of tl.sum: dtype when given, else 32 bits for narrower integers
    if dtype is not None:
        return dtype
    if in_dtype.is_int_signed() and in_dtype.int_bitwidth < 32:
        return tl.int32
    if in_dtype.is_int_unsigned() and in_dtype.int_bitwidth < 32:
        return tl.uint32
    return in_dtype


@triton.jit
def _umulhi64(a, b):
    # High 64 bits of the 128-bit product of two uint64 values (tl.umulhi of 64-bit
    # operands calls this), by schoolbook multiplication of 32-bit halves: no partial sum
    # below can overflow 64 bits.
    a_lo = a & 0xFFFFFFFF
    a_hi = a >> 32
    b_lo = b & 0xFFFFFFFF
    b_hi = b >> 32
    ll = a_lo * b_lo
    lh = a_lo * b_hi
    hl = a_hi * b_lo
    mid = (ll >> 32) + (lh & 0xFFFFFFFF) + (hl & 0xFFFFFFFF)
    return a_hi * b_hi + (lh >> 32) + (hl >> 32) + (mid >> 32)


@triton.jit
def _u64_const(hi, lo):
    # A uint64 constant from two 32-bit halves: literals of 2^63 and above do not parse.
    return (tl.cast(hi, tl.uint64) << 32) | tl.cast(lo, tl.uint64)


@triton.jit
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = 10):
    # n_rounds Philox rounds on counters (c0..c3) with key (k0, k1), all uint32 or all
    # uint64; unrolled (static_range) like Triton, so n_rounds must be a constexpr.
    if c0.dtype == tl.uint32:
        key_a = tl.cast(0x9E3779B9, tl.uint32)
        key_b = tl.cast(0xBB67AE85, tl.uint32)
        round_a = tl.cast(0xD2511F53, tl.uint32)
        round_b = tl.cast(0xCD9E8D57, tl.uint32)
        for _ in tl.static_range(n_rounds):
            _c0, _c2 = c0, c2
            c0 = tl.umulhi(round_b, _c2) ^ c1 ^ k0
            c2 = tl.umulhi(round_a, _c0) ^ c3 ^ k1
            c1 = round_b * _c2
            c3 = round_a * _c0
            k0 = k0 + key_a
            k1 = k1 + key_b
    else:
        tl.static_assert(c0.dtype == tl.uint64, "philox_impl: counters must be uint32 or uint64")
        # Philox4x64 constants (Random123 PHILOX_M4x64_*, PHILOX_W64_*).
        key_a = _u64_const(0x9E3779B9, 0x7F4A7C15)
        key_b = _u64_const(0xBB67AE85, 0x84CAA73B)
        round_a = _u64_const(0xD2E7470E, 0xE14C6C93)
        round_b = _u64_const(0xCA5A8263, 0x95121157)
        for _ in tl.static_range(n_rounds):
            _c0, _c2 = c0, c2
            c0 = _umulhi64(round_b, _c2) ^ c1 ^ k0
            c2 = _umulhi64(round_a, _c0) ^ c3 ^ k1
            c1 = round_b * _c2
            c3 = round_a * _c0
            k0 = k0 + key_a
            k1 = k1 + key_b
    return c0, c1, c2, c3


@triton.jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = 10):
    # Keyed by `seed` (any integer scalar or literal). 32-bit counters use the 64-bit seed
    # split into two key words; 64-bit counters use the whole seed as k0 and k1 = 0.
    seed = tl.to_tensor(seed)
    tl.static_assert(seed.dtype.is_int(), "the seed of tl.rand/randn/randint/philox must be an integer (Triton: "
                     "seed.dtype.is_int()), not a float")
    seed = tl.cast(seed, tl.uint64)
    if c0.dtype.primitive_bitwidth == 32:
        k_hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
        k_lo = (seed & 0xFFFFFFFF).to(tl.uint32)
        return philox_impl(tl.cast(c0, tl.uint32, bitcast=True), tl.cast(c1, tl.uint32, bitcast=True),
                           tl.cast(c2, tl.uint32, bitcast=True), tl.cast(c3, tl.uint32, bitcast=True),
                           k_lo, k_hi, n_rounds)
    else:
        tl.static_assert(c0.dtype.primitive_bitwidth == 64, "philox: counters must be 32 or 64 bits wide")
        return philox_impl(tl.cast(c0, tl.uint64, bitcast=True), tl.cast(c1, tl.uint64, bitcast=True),
                           tl.cast(c2, tl.uint64, bitcast=True), tl.cast(c3, tl.uint64, bitcast=True),
                           seed, tl.cast(0, tl.uint64), n_rounds)


@triton.jit
def randint4x(seed, offset, n_rounds: tl.constexpr = 10):
    # Four blocks of random uint32 for a block of integer offsets.
    offset_lo = offset.to(tl.uint32)
    zero = offset_lo * 0
    if offset.dtype.primitive_bitwidth > 32:
        offset_hi = (offset >> 32).to(tl.uint32)
    else:
        offset_hi = zero
    return philox(seed, offset_lo, offset_hi, zero, zero, n_rounds)


@triton.jit
def randint(seed, offset, n_rounds: tl.constexpr = 10):
    r0, _, _, _ = randint4x(seed, offset, n_rounds)
    return r0


@triton.jit
def uint_to_uniform_float(x):
    # Random bits to fp32 in [0, 1): fold the signed view onto [0, INT_MAX] and scale by
    # the largest factor that keeps INT_MAX * scale below 1.0 after fp32 rounding.
    if x.dtype == tl.uint32 or x.dtype == tl.int32:
        x = x.to(tl.int32, bitcast=True)
        scale = 4.6566127342e-10
    else:
        tl.static_assert(x.dtype == tl.uint64 or x.dtype == tl.int64,
                         "uint_to_uniform_float: expects 32- or 64-bit integers")
        x = x.to(tl.int64, bitcast=True)
        scale = 1.0842020432385337e-19
    x = tl.where(x < 0, -x - 1, x)
    return x * scale


@triton.jit
def rand(seed, offset, n_rounds: tl.constexpr = 10):
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@triton.jit
def rand4x(seed, offsets, n_rounds: tl.constexpr = 10):
    i1, i2, i3, i4 = randint4x(seed, offsets, n_rounds)
    return (uint_to_uniform_float(i1), uint_to_uniform_float(i2), uint_to_uniform_float(i3),
            uint_to_uniform_float(i4))


@triton.jit
def pair_uniform_to_normal(u1, u2):
    # Box-Muller; u1 is clamped away from 0 so log stays finite.
    u1 = tl.maximum(1.0e-7, u1)
    th = 6.283185307179586 * u2
    r = tl.sqrt(-2.0 * tl.log(u1))
    return r * tl.cos(th), r * tl.sin(th)


@triton.jit
def randn(seed, offset, n_rounds: tl.constexpr = 10):
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    n1, _ = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return n1


@triton.jit
def randn4x(seed, offset, n_rounds: tl.constexpr = 10):
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4


@triton.jit
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    # tl.softmax: along `dim` (0 when not given), as Triton defines it.
    if dim is None:
        _dim: tl.constexpr = 0
    else:
        _dim: tl.constexpr = dim
    z = x - tl.max(x, _dim, keep_dims=keep_dims)
    num = tl.exp(z)
    den = tl.sum(num, _dim, keep_dims=keep_dims)
    if ieee_rounding:
        return tl.div_rn(num, den)
    else:
        return tl.fdiv(num, den)


# ---------------------------------------------------------------------------------------
# standard.py functions written in the kernel language
# ---------------------------------------------------------------------------------------


@triton.jit
def _first_of(a, b):
    return a


@triton.jit
def _tensor_item(x):
    # x.item(): the one element of a tile as a scalar (Triton's _unsplat)
    tl.static_assert(x.numel == 1, "item() needs a tensor of one element")
    return tl.reduce(tl.reshape(x, (1,)), 0, _first_of)


@triton.jit
def swizzle2d(i, j, size_i, size_j, size_g):
    # Renumbers (i, j) of a row-major size_i x size_j grid so that consecutive linear
    # indices walk down columns inside bands of size_g rows (the last band may be
    # shorter), as tl.swizzle2d does for grouped program ordering.
    linear = i * size_j + j
    band_elems = size_g * size_j
    band = linear // band_elems
    first_row = band * size_g
    rows = tl.minimum(size_i - first_row, size_g)
    in_band = linear % band_elems
    new_i = first_row + in_band % rows
    new_j = in_band // rows
    return new_i, new_j


# ---------------------------------------------------------------------------------------
# libdevice functions without a single math-dialect op, as CUDA's libdevice defines them
# (fp32 and fp64; integer results where libdevice returns int32/int64).
# ---------------------------------------------------------------------------------------


@triton.jit
def _int_view(x):
    # The bits of a float as a signed integer of its width.
    if x.dtype == tl.float64:
        return x.to(tl.int64, bitcast=True)
    else:
        tl.static_assert(x.dtype == tl.float32, "libdevice: expects fp32 or fp64")
        return x.to(tl.int32, bitcast=True)


@triton.jit
def fast_expf(x):
    return tl.exp(x)


@triton.jit
def fast_logf(x):
    return tl.log(x)


@triton.jit
def fast_log2f(x):
    return tl.log2(x)


@triton.jit
def fast_log10f(x):
    return tl.log10(x)


@triton.jit
def fast_sinf(x):
    return tl.sin(x)


@triton.jit
def fast_cosf(x):
    return tl.cos(x)


@triton.jit
def fast_tanf(x):
    return tl.tan(x)


@triton.jit
def fast_powf(x, y):
    return tl.pow(x, y)


@triton.jit
def fast_dividef(x, y):
    return tl.fdiv(x, y)


@triton.jit
def exp10(x):
    return tl.pow(tl.full(x.shape, 10.0, x.dtype), x)


@triton.jit
def fast_exp10f(x):
    return exp10(x)


@triton.jit
def add_rn(x, y):
    return x + y


@triton.jit
def sub_rn(x, y):
    return x - y


@triton.jit
def mul_rn(x, y):
    return x * y


@triton.jit
def fma_rn(x, y, z):
    return tl.fma(x, y, z)


# Directed rounding (libdevice's _rz / _rd / _ru arithmetic and conversions) without
# changing the FPU's rounding mode: each op computes its round-to-nearest result s and a
# value r with the sign of (exact result - s), from an exact error term (TwoSum for sums,
# the product or remainder recomputed in fp64 for fp32 operands, fma residuals for fp64),
# and _round_dir moves s one ulp where the mode asks for it. fp32 results are correctly
# rounded everywhere (subnormals and overflow included); fp64 add/sub too, fp64 mul, div,
# rcp and sqrt wherever their fma residual is exact (not when the result or the residual
# falls below 2^-969, in the subnormal range).


@triton.jit
def _toward(s, up):
    # s's neighbour toward +inf where up, toward -inf elsewhere (s not NaN); a zero steps to
    # the smallest subnormal of the direction's sign
    b = _int_view(s)
    grow = (s > 0) == up
    nb = tl.where(grow, b + 1, b - 1)
    if s.dtype == tl.float64:
        tiny = tl.where(up, tl.cast(1, tl.int64), tl.cast(-9223372036854775807, tl.int64))
    else:
        tiny = tl.where(up, tl.cast(1, tl.int32), tl.cast(-2147483647, tl.int32))
    return tl.where(s == 0, tiny, nb).to(s.dtype, bitcast=True)


@triton.jit
def _round_dir(s, r, MODE: tl.constexpr):
    # s rounded to nearest, r: the sign of (exact - s) (0 or NaN: s is exact or not finite)
    r = tl.where(r == r, r, 0.0)
    if MODE == "ru":
        return tl.where(r > 0, _toward(s, s == s), s)
    elif MODE == "rd":
        return tl.where(r < 0, _toward(s, s != s), s)
    else:
        tl.static_assert(MODE == "rz")
        return tl.where((r != 0) & ((r > 0) != (s > 0)) & (s != 0), _toward(s, s < 0), s)


@triton.jit
def _check_fp(x, y, NAME: tl.constexpr):
    tl.static_assert((x.dtype == tl.float32 or x.dtype == tl.float64) and x.dtype == y.dtype,
                     NAME + " takes two fp32 or two fp64 operands (libdevice's forms)")


@triton.jit
def _add_dir(x, y, MODE: tl.constexpr):
    _check_fp(x, y, "libdevice.add_" + MODE)
    s = x + y
    if MODE == "rd":
        # an exact zero sum is -0 rounding down unless both operands are +0 (IEEE 754)
        s = tl.where(s == 0, -((-x) + (-y)), s)
    bb = s - x
    e = (x - (s - bb)) + (y - bb)  # TwoSum: x + y == s + e exactly
    inf = float("inf")
    overflow = (tl.abs(s) == inf) & (tl.abs(x) < inf) & (tl.abs(y) < inf)
    return _round_dir(s, tl.where(overflow, -s, e), MODE)


@triton.jit
def _mul_dir(x, y, MODE: tl.constexpr):
    _check_fp(x, y, "libdevice.mul_" + MODE)
    if x.dtype == tl.float32:
        p = x.to(tl.float64) * y.to(tl.float64)  # exact: 48 bits
        s = p.to(tl.float32)
        return _round_dir(s, p - s.to(tl.float64), MODE)
    else:
        s = x * y
        return _round_dir(s, tl.fma(x, y, -s), MODE)


@triton.jit
def _div_dir(x, y, MODE: tl.constexpr):
    _check_fp(x, y, "libdevice.div_" + MODE)
    q = tl.div_rn(x, y)  # IEEE's quotient on every target (`/` is div.full.f32 on NVIDIA)
    if x.dtype == tl.float32:
        r = x.to(tl.float64) - q.to(tl.float64) * y.to(tl.float64)  # exact
    else:
        r = tl.fma(-q, y, x)
    return _round_dir(q, tl.where(y > 0, r, -r), MODE)


@triton.jit
def _sqrt_dir(x, MODE: tl.constexpr):
    tl.static_assert(x.dtype == tl.float32 or x.dtype == tl.float64,
                     "libdevice.sqrt_" + MODE + " takes an fp32 or fp64 operand")
    s = tl.sqrt_rn(x)  # IEEE's root on every target (tl.sqrt is sqrt.approx on NVIDIA)
    if x.dtype == tl.float32:
        r = x.to(tl.float64) - s.to(tl.float64) * s.to(tl.float64)
    else:
        r = tl.fma(-s, s, x)
    return _round_dir(s, r, MODE)


@triton.jit
def _fma_dir(x, y, z, MODE: tl.constexpr):
    tl.static_assert(x.dtype == tl.float32 and y.dtype == tl.float32 and z.dtype == tl.float32,
                     "libdevice.fma_" + MODE + " takes fp32 operands here (the fp64 forms have no exact error term)")
    p = x.to(tl.float64) * y.to(tl.float64)
    zz = z.to(tl.float64)
    s = p + zz
    if MODE == "rd":
        s = tl.where(s == 0, -((-p) + (-zz)), s)
    bb = s - p
    e = (p - (s - bb)) + (zz - bb)  # p + z == s + e exactly
    f = s.to(tl.float32)
    d = s - f.to(tl.float64)  # exact; when nonzero it outweighs e
    return _round_dir(f, tl.where(d != 0, d, e), MODE)


@triton.jit
def add_rz(x, y):
    return _add_dir(x, y, "rz")


@triton.jit
def add_rd(x, y):
    return _add_dir(x, y, "rd")


@triton.jit
def add_ru(x, y):
    return _add_dir(x, y, "ru")


@triton.jit
def sub_rz(x, y):
    return _add_dir(x, -y, "rz")


@triton.jit
def sub_rd(x, y):
    return _add_dir(x, -y, "rd")


@triton.jit
def sub_ru(x, y):
    return _add_dir(x, -y, "ru")


@triton.jit
def mul_rz(x, y):
    return _mul_dir(x, y, "rz")


@triton.jit
def mul_rd(x, y):
    return _mul_dir(x, y, "rd")


@triton.jit
def mul_ru(x, y):
    return _mul_dir(x, y, "ru")


@triton.jit
def div_rz(x, y):
    return _div_dir(x, y, "rz")


@triton.jit
def div_rd(x, y):
    return _div_dir(x, y, "rd")


@triton.jit
def div_ru(x, y):
    return _div_dir(x, y, "ru")


@triton.jit
def rcp_rz(x):
    return _div_dir(tl.full(x.shape, 1.0, x.dtype), x, "rz")


@triton.jit
def rcp_rd(x):
    return _div_dir(tl.full(x.shape, 1.0, x.dtype), x, "rd")


@triton.jit
def rcp_ru(x):
    return _div_dir(tl.full(x.shape, 1.0, x.dtype), x, "ru")


@triton.jit
def sqrt_rz(x):
    return _sqrt_dir(x, "rz")


@triton.jit
def sqrt_rd(x):
    return _sqrt_dir(x, "rd")


@triton.jit
def sqrt_ru(x):
    return _sqrt_dir(x, "ru")


@triton.jit
def fma_rz(x, y, z):
    return _fma_dir(x, y, z, "rz")


@triton.jit
def fma_rd(x, y, z):
    return _fma_dir(x, y, z, "rd")


@triton.jit
def fma_ru(x, y, z):
    return _fma_dir(x, y, z, "ru")


@triton.jit
def _int_to_float_dir(x, T: tl.constexpr, MODE: tl.constexpr):
    # an integer rounded to float type T: the sign of (x - f) compared in integers (f can be
    # 2^63 or 2^64, one past the integer range: x is below it)
    f = x.to(T)
    if x.dtype == tl.int32 or x.dtype == tl.uint32:
        back = f.to(tl.int64)
        wide = x.to(tl.int64)
        r = tl.where(wide > back, 1.0, tl.where(wide < back, -1.0, 0.0))
    else:
        top = 18446744073709551616.0 if x.dtype == tl.uint64 else 9223372036854775808.0
        past = f >= top
        back = tl.where(past, tl.cast(0, x.dtype), f.to(x.dtype))
        r = tl.where(past, -1.0, tl.where(x > back, 1.0, tl.where(x < back, -1.0, 0.0)))
    return _round_dir(f, r.to(T), MODE)


@triton.jit
def int2float_rz(x):
    return _int_to_float_dir(x.to(tl.int32), tl.float32, "rz")


@triton.jit
def int2float_rd(x):
    return _int_to_float_dir(x.to(tl.int32), tl.float32, "rd")


@triton.jit
def int2float_ru(x):
    return _int_to_float_dir(x.to(tl.int32), tl.float32, "ru")


@triton.jit
def uint2float_rz(x):
    return _int_to_float_dir(x.to(tl.uint32), tl.float32, "rz")


@triton.jit
def uint2float_rd(x):
    return _int_to_float_dir(x.to(tl.uint32), tl.float32, "rd")


@triton.jit
def uint2float_ru(x):
    return _int_to_float_dir(x.to(tl.uint32), tl.float32, "ru")


@triton.jit
def ll2float_rz(x):
    return _int_to_float_dir(x.to(tl.int64), tl.float32, "rz")


@triton.jit
def ll2float_rd(x):
    return _int_to_float_dir(x.to(tl.int64), tl.float32, "rd")


@triton.jit
def ll2float_ru(x):
    return _int_to_float_dir(x.to(tl.int64), tl.float32, "ru")


@triton.jit
def ull2float_rz(x):
    return _int_to_float_dir(x.to(tl.uint64), tl.float32, "rz")


@triton.jit
def ull2float_rd(x):
    return _int_to_float_dir(x.to(tl.uint64), tl.float32, "rd")


@triton.jit
def ull2float_ru(x):
    return _int_to_float_dir(x.to(tl.uint64), tl.float32, "ru")


@triton.jit
def ll2double_rz(x):
    return _int_to_float_dir(x.to(tl.int64), tl.float64, "rz")


@triton.jit
def ll2double_rd(x):
    return _int_to_float_dir(x.to(tl.int64), tl.float64, "rd")


@triton.jit
def ll2double_ru(x):
    return _int_to_float_dir(x.to(tl.int64), tl.float64, "ru")


@triton.jit
def ull2double_rz(x):
    return _int_to_float_dir(x.to(tl.uint64), tl.float64, "rz")


@triton.jit
def ull2double_rd(x):
    return _int_to_float_dir(x.to(tl.uint64), tl.float64, "rd")


@triton.jit
def ull2double_ru(x):
    return _int_to_float_dir(x.to(tl.uint64), tl.float64, "ru")


@triton.jit
def _double2float_dir(x, MODE: tl.constexpr):
    tl.static_assert(x.dtype == tl.float64, "libdevice.double2float_" + MODE + " takes an fp64 operand")
    f = x.to(tl.float32)
    return _round_dir(f, x - f.to(tl.float64), MODE)


@triton.jit
def double2float_rz(x):
    return _double2float_dir(x, "rz")


@triton.jit
def double2float_rd(x):
    return _double2float_dir(x, "rd")


@triton.jit
def double2float_ru(x):
    return _double2float_dir(x, "ru")


@triton.jit
def signbit(x):
    return (_int_view(x) < 0).to(tl.int32)


@triton.jit
def copysign(x, y):
    return tl.where(signbit(y) != 0, -tl.abs(x), tl.abs(x))


@triton.jit
def isfinited(x):
    return (tl.abs(x) < float("inf")).to(tl.int32)


@triton.jit
def finitef(x):
    return isfinited(x)


@triton.jit
def fmax(x, y):
    return tl.maximum(x, y)


@triton.jit
def fmin(x, y):
    return tl.minimum(x, y)


@triton.jit
def fdim(x, y):
    # x - y when x > y, +0 otherwise, NaN when either is NaN
    d = x - y
    return tl.where(d > 0, d, tl.where(d != d, d, 0.0))


@triton.jit
def saturatef(x):
    # clamps to [0, 1]; NaN becomes 0 as in CUDA's __saturatef
    return tl.where(x > 0.0, tl.where(x < 1.0, x, 1.0), 0.0)


@triton.jit
def hypot(x, y):
    # scaled so that x * x cannot overflow or underflow for finite inputs
    ax = tl.abs(x)
    ay = tl.abs(y)
    big = tl.maximum(ax, ay)
    small = tl.minimum(ax, ay)
    r = tl.div_rn(small, tl.where(big == 0.0, 1.0, big))
    h = big * tl.sqrt_rn(1.0 + r * r)
    h = tl.where((ax != ax) | (ay != ay), ax + ay, h)
    return tl.where((ax == float("inf")) | (ay == float("inf")), float("inf"), h)


@triton.jit
def llrint(x):
    return tl.math.rint(x).to(tl.int64)


@triton.jit
def lrint(x):
    return llrint(x)


@triton.jit
def llround(x):
    return tl.math.round(x).to(tl.int64)


@triton.jit
def lround(x):
    return llround(x)


@triton.jit
def float2int_rn(x):
    return tl.math.rint(x).to(tl.int32)


@triton.jit
def float2int_rz(x):
    return x.to(tl.int32)


@triton.jit
def float2int_rd(x):
    return tl.floor(x).to(tl.int32)


@triton.jit
def float2int_ru(x):
    return tl.ceil(x).to(tl.int32)


@triton.jit
def double2int_rn(x):
    return float2int_rn(x)


@triton.jit
def double2int_rz(x):
    return float2int_rz(x)


@triton.jit
def normcdf(x):
    return 0.5 * tl.math.erfc(-x * 0.7071067811865476)


@triton.jit
def sinpi(x):
    return tl.sin(x * 3.141592653589793)


@triton.jit
def cospi(x):
    return tl.cos(x * 3.141592653589793)


@triton.jit
def ilogb(x):
    # the unbiased exponent (subnormals included) as int32; ilogb(0) = INT_MIN,
    # ilogb(inf) = INT_MAX, ilogb(NaN) = INT_MIN as CUDA defines them
    ax = tl.abs(x)
    e = tl.floor(tl.log2(tl.where((ax > 0) & (ax < float("inf")), ax, 1.0))).to(tl.int32)
    # log2 may round up just below a power of two: correct by one step (libdevice.exp2:
    # subnormal powers kept, where tl.exp2 is ex2.approx.ftz on NVIDIA)
    p = libdevice.exp2(e.to(x.dtype))
    e = tl.where(p > ax, e - 1, e)
    e = tl.where(ax == 0.0, -2147483648, e)
    e = tl.where(ax == float("inf"), 2147483647, e)
    return tl.where(ax != ax, -2147483648, e)


@triton.jit
def logb(x):
    ax = tl.abs(x)
    e = ilogb(x).to(x.dtype)
    e = tl.where(ax == 0.0, -float("inf"), e)
    e = tl.where(ax == float("inf"), float("inf"), e)
    return tl.where(ax != ax, x, e)


@triton.jit
def ldexp(x, e):
    # x * 2**e in two steps so that 2**e alone cannot overflow or underflow
    half = tl.cast(e // 2, x.dtype)  # e may be a Python int: libdevice takes it as an int32
    rest = tl.cast(e, x.dtype) - half
    return x * libdevice.exp2(half) * libdevice.exp2(rest)  # subnormal powers kept on NVIDIA too


@triton.jit
def erfinv(x):
    # Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011): the
    # single-precision polynomials in w = -log(1 - x^2), then one Newton step on
    # erf(y) - x for full fp32 accuracy.
    xf = x.to(tl.float32)
    w = -tl.log((1.0 - xf) * (1.0 + xf))
    wc = w - 2.5
    p = 2.81022636e-08
    p = 3.43273939e-07 + p * wc
    p = -3.5233877e-06 + p * wc
    p = -4.39150654e-06 + p * wc
    p = 0.00021858087 + p * wc
    p = -0.00125372503 + p * wc
    p = -0.00417768164 + p * wc
    p = 0.246640727 + p * wc
    p = 1.50140941 + p * wc
    wt = tl.sqrt(tl.where(w < 5.0, 5.0, w)) - 3.0
    q = -0.000200214257
    q = 0.000100950558 + q * wt
    q = 0.00134934322 + q * wt
    q = -0.00367342844 + q * wt
    q = 0.00573950773 + q * wt
    q = -0.0076224613 + q * wt
    q = 0.00943887047 + q * wt
    q = 1.00167406 + q * wt
    q = 2.83297682 + q * wt
    y = tl.where(w < 5.0, p, q) * xf
    # Newton: y -= (erf(y) - x) / (2/sqrt(pi) * exp(-y^2))
    err = tl.math.erf(y) - xf
    y = y - err / (1.1283791670955126 * tl.exp(-y * y))
    y = tl.where(xf == 1.0, float("inf"), tl.where(xf == -1.0, -float("inf"), y))
    y = tl.where(tl.abs(xf) > 1.0, float("nan"), y)
    return y.to(x.dtype)


# ---------------------------------------------------------------------------------------
# fp8 <-> fp32, called by the front end for every cast that involves an fp8 type (fp8
# values are stored as their 8-bit codes; arithmetic runs in fp32). Formats (sign bit 7):
#   FMT 0  IEEE-like (fp8e5): the top exponent holds inf (mantissa 0) and NaN
#   FMT 1  "fn" (fp8e4nv, fp8e4b15): no inf; S.1111.111 is NaN
#   FMT 2  "fnuz" (fp8e4b8, fp8e5b16): no inf, no -0; 0x80 is the only NaN
# Narrowing rounds to nearest even (subnormals included) and saturates: finite values
# beyond the largest code and +-inf become +-max (as Triton's satfinite conversions do);
# NaN stays NaN.
# ---------------------------------------------------------------------------------------


@triton.jit
def _fp8_decode(bits, MANT: tl.constexpr, BIAS: tl.constexpr, FMT: tl.constexpr):
    # bits: uint8 codes -> fp32 values (exact)
    b = bits.to(tl.uint32)
    mag = b & 0x7F
    e = mag >> MANT
    m = mag & ((1 << MANT) - 1)
    sig = tl.where(e == 0, m, m | (1 << MANT)).to(tl.float32)
    ex = tl.maximum(e, 1).to(tl.int32) - (BIAS + MANT)
    scale = ((ex + 127) << 23).to(tl.float32, bitcast=True)
    v = sig * scale
    v = tl.where(b >= 0x80, -v, v)
    if FMT == 0:
        top: tl.constexpr = (1 << (7 - MANT)) - 1
        v = tl.where(e == top, tl.where(m == 0, v * float("inf"), float("nan")), v)
    elif FMT == 1:
        v = tl.where(mag == 0x7F, float("nan"), v)
    else:
        v = tl.where(b == 0x80, float("nan"), v)
    return v


@triton.jit
def _fp8_encode(x, MANT: tl.constexpr, BIAS: tl.constexpr, FMT: tl.constexpr):
    # x: fp32 values -> uint8 codes
    SHIFT: tl.constexpr = 23 - MANT
    bits = x.to(tl.uint32, bitcast=True)
    a = bits & 0x7FFFFFFF
    # normal codes: round the fp32 bits at the mantissa cut (ties to even), then rebias
    r = (a + ((1 << (SHIFT - 1)) - 1) + ((a >> SHIFT) & 1)) >> SHIFT
    norm = r - ((127 - BIAS) << MANT)
    # subnormal codes: the value in units of the smallest subnormal, rounded to even
    # (exact scaling by a power of two; a result of 2**MANT is the smallest normal code)
    SUB_SCALE: tl.constexpr = 2.0 ** (BIAS - 1 + MANT)
    sub = tl.math.rint(tl.abs(x) * SUB_SCALE).to(tl.uint32)
    MIN_NORMAL: tl.constexpr = (128 - BIAS) << 23
    code = tl.where(a < MIN_NORMAL, sub, norm)
    if FMT == 0:
        MAXC: tl.constexpr = (((1 << (7 - MANT)) - 2) << MANT) | ((1 << MANT) - 1)
    elif FMT == 1:
        MAXC: tl.constexpr = 0x7E
    else:
        MAXC: tl.constexpr = 0x7F
    code = tl.minimum(code, MAXC)
    sign = (bits >> 24) & 0x80
    if FMT == 2:
        code = tl.where(code == 0, code, code | sign)
        code = tl.where(a > 0x7F800000, 0x80, code)
    else:
        code = code | sign
        code = tl.where(a > 0x7F800000, 0x7F | sign, code)
    return code.to(tl.uint8)


@triton.jit
def _rtz_fixup(x, y, INT: tl.constexpr, FNUZ: tl.constexpr):
    # y = x rounded to nearest even in a narrower float type; returns x rounded toward
    # zero: where |y| > |x|, the code one step closer to zero (codes are sign-magnitude,
    # so that is code - 1; an fnuz code 0x80 would be NaN, so it becomes +0)
    code = y.to(INT, bitcast=True)
    away = tl.abs(y.to(x.dtype)) > tl.abs(x)
    down = code - tl.cast(1, INT)
    if FNUZ:
        down = tl.where(down == 0x80, tl.cast(0, INT), down)
    return tl.where(away, down, code).to(y.dtype, bitcast=True)


# ---- more libdevice: reinterpretations, conversions, integer bit functions ---------------


@triton.jit
def float_as_int(x):
    return x.to(tl.int32, bitcast=True)


@triton.jit
def float_as_uint(x):
    return x.to(tl.uint32, bitcast=True)


@triton.jit
def int_as_float(x):
    return x.to(tl.float32, bitcast=True)


@triton.jit
def uint_as_float(x):
    return x.to(tl.float32, bitcast=True)


@triton.jit
def double_as_longlong(x):
    return x.to(tl.int64, bitcast=True)


@triton.jit
def longlong_as_double(x):
    return x.to(tl.float64, bitcast=True)


@triton.jit
def int2float_rn(x):
    return x.to(tl.int32).to(tl.float32)


@triton.jit
def uint2float_rn(x):
    return x.to(tl.uint32).to(tl.float32)


@triton.jit
def ll2float_rn(x):
    return x.to(tl.int64).to(tl.float32)


@triton.jit
def ull2float_rn(x):
    return x.to(tl.uint64).to(tl.float32)


@triton.jit
def int2double_rn(x):
    return x.to(tl.int32).to(tl.float64)


@triton.jit
def uint2double_rn(x):
    return x.to(tl.uint32).to(tl.float64)


@triton.jit
def ll2double_rn(x):
    return x.to(tl.int64).to(tl.float64)


@triton.jit
def ull2double_rn(x):
    return x.to(tl.uint64).to(tl.float64)


@triton.jit
def double2float_rn(x):
    return x.to(tl.float32)


@triton.jit
def float2uint_rn(x):
    return tl.math.rint(x).to(tl.uint32)


@triton.jit
def float2ll_rn(x):
    return tl.math.rint(x).to(tl.int64)


@triton.jit
def float2ull_rn(x):
    return tl.math.rint(x).to(tl.uint64)


@triton.jit
def float2uint_rz(x):
    return x.to(tl.uint32)


@triton.jit
def float2ll_rz(x):
    return x.to(tl.int64)


@triton.jit
def float2ull_rz(x):
    return x.to(tl.uint64)


@triton.jit
def double2uint_rn(x):
    return float2uint_rn(x)


@triton.jit
def double2ll_rn(x):
    return float2ll_rn(x)


@triton.jit
def double2ull_rn(x):
    return float2ull_rn(x)


@triton.jit
def double2uint_rz(x):
    return x.to(tl.uint32)


@triton.jit
def double2ll_rz(x):
    return x.to(tl.int64)


@triton.jit
def double2ull_rz(x):
    return x.to(tl.uint64)


@triton.jit
def float2uint_rd(x):
    return tl.floor(x).to(tl.uint32)


@triton.jit
def float2uint_ru(x):
    return tl.ceil(x).to(tl.uint32)


@triton.jit
def float2ll_rd(x):
    return tl.floor(x).to(tl.int64)


@triton.jit
def float2ll_ru(x):
    return tl.ceil(x).to(tl.int64)


@triton.jit
def float2ull_rd(x):
    return tl.floor(x).to(tl.uint64)


@triton.jit
def float2ull_ru(x):
    return tl.ceil(x).to(tl.uint64)


@triton.jit
def double2uint_rd(x):
    return tl.floor(x).to(tl.uint32)


@triton.jit
def double2uint_ru(x):
    return tl.ceil(x).to(tl.uint32)


@triton.jit
def double2ll_rd(x):
    return tl.floor(x).to(tl.int64)


@triton.jit
def double2ll_ru(x):
    return tl.ceil(x).to(tl.int64)


@triton.jit
def double2ull_rd(x):
    return tl.floor(x).to(tl.uint64)


@triton.jit
def double2ull_ru(x):
    return tl.ceil(x).to(tl.uint64)


@triton.jit
def double2int_rd(x):
    return tl.floor(x).to(tl.int32)


@triton.jit
def double2int_ru(x):
    return tl.ceil(x).to(tl.int32)


@triton.jit
def rsqrt_rn(x):
    return tl.div_rn(1.0, tl.sqrt_rn(x))


@triton.jit
def rcp_rn(x):
    return tl.div_rn(1.0, x)


@triton.jit
def rcbrt(x):
    return tl.div_rn(1.0, tl.math.cbrt(x))


@triton.jit
def scalbn(x, n):
    return ldexp(x, n)


@triton.jit
def norm3d(a, b, c):
    return tl.sqrt_rn(a * a + b * b + c * c)


@triton.jit
def norm4d(a, b, c, d):
    return tl.sqrt_rn(a * a + b * b + c * c + d * d)


@triton.jit
def rnorm3d(a, b, c):
    return tl.div_rn(1.0, norm3d(a, b, c))


@triton.jit
def rnorm4d(a, b, c, d):
    return tl.div_rn(1.0, norm4d(a, b, c, d))


@triton.jit
def rhypot(x, y):
    return tl.div_rn(1.0, hypot(x, y))


@triton.jit
def normcdfinv(x):
    return 1.4142135623730951 * erfinv(2.0 * x - 1.0)


@triton.jit
def erfcinv(x):
    return erfinv(1.0 - x)


@triton.jit
def _unsigned(x):
    if x.dtype.primitive_bitwidth == 64:
        return x.to(tl.uint64, bitcast=True)
    else:
        return x.to(tl.uint32, bitcast=True)


@triton.jit
def popc(x):
    # set bits of a 32- or 64-bit integer (SWAR), as int32
    u = _unsigned(x)
    if u.dtype == tl.uint64:
        u = u - ((u >> 1) & _u64_const(0x55555555, 0x55555555))
        u = (u & _u64_const(0x33333333, 0x33333333)) + ((u >> 2) & _u64_const(0x33333333, 0x33333333))
        u = (u + (u >> 4)) & _u64_const(0x0F0F0F0F, 0x0F0F0F0F)
        return ((u * _u64_const(0x01010101, 0x01010101)) >> 56).to(tl.int32)
    else:
        u = u - ((u >> 1) & tl.cast(0x55555555, tl.uint32))
        u = (u & tl.cast(0x33333333, tl.uint32)) + ((u >> 2) & tl.cast(0x33333333, tl.uint32))
        u = (u + (u >> 4)) & tl.cast(0x0F0F0F0F, tl.uint32)
        return ((u * tl.cast(0x01010101, tl.uint32)) >> 24).to(tl.int32)


@triton.jit
def clz(x):
    # leading zero bits (32 for 0 as a 32-bit value), as int32
    u = _unsigned(x)
    BITS: tl.constexpr = u.dtype.primitive_bitwidth
    # smear the highest set bit downwards, then count the ones
    for s in tl.static_range(0, 6):
        if (1 << s) < BITS:
            u = u | (u >> (1 << s))
    return BITS - popc(u)


@triton.jit
def ffs(x):
    # 1-based position of the lowest set bit, 0 for 0
    u = _unsigned(x)
    low = u & (tl.cast(0, u.dtype) - u)
    return tl.where(u == 0, 0, popc(low - tl.cast(1, u.dtype)) + 1)


@triton.jit
def brev(x):
    # the bits of a 32- or 64-bit integer in reverse order
    u = _unsigned(x)
    BITS: tl.constexpr = u.dtype.primitive_bitwidth
    r = u ^ u
    for i in tl.static_range(BITS):
        r = r | (((u >> i) & tl.cast(1, u.dtype)) << (BITS - 1 - i))
    return r.to(x.dtype, bitcast=True)


@triton.jit
def hadd(x, y):
    # (x + y) >> 1 without overflow, rounding down
    return (x & y) + ((x ^ y) >> 1)


@triton.jit
def rhadd(x, y):
    # (x + y + 1) >> 1 without overflow
    return (x | y) - ((x ^ y) >> 1)


@triton.jit
def mulhi(x, y):
    # the high 32 bits of the 64-bit product (signed for int32, unsigned for uint32)
    if x.dtype == tl.uint32:
        return ((x.to(tl.uint64) * y.to(tl.uint64)) >> 32).to(tl.uint32)
    else:
        return ((x.to(tl.int64) * y.to(tl.int64)) >> 32).to(tl.int32)


@triton.jit
def sad(x, y, z):
    # |x - y| + z
    return tl.where(x > y, x - y, y - x) + z


@triton.jit
def bitonic_merge(x, dim: tl.constexpr = None, descending: tl.constexpr = 0):
    # tl.bitonic_merge: the merging half of a bitonic sort along the last dimension (a row
    # that is a bitonic sequence comes out sorted). Stages of half-cleaners at distances
    # n/2, n/4, ..., 1: the lower position of each pair keeps the smaller value (larger when
    # descending), the pair compared as `a > b` so a NaN stays where Triton's network leaves it.
    _dim: tl.constexpr = len(x.shape) - 1 if dim is None else dim
    tl.static_assert(_dim == len(x.shape) - 1, "only minor dimension is currently supported")
    n: tl.constexpr = x.shape[len(x.shape) - 1]
    rows: tl.constexpr = x.numel // n
    h = tl.reshape(x, (rows, n))
    for s in tl.static_range(_log2(n)):
        half: tl.constexpr = n >> (s + 1)
        g = tl.permute(tl.reshape(h, (rows * (n // (2 * half)), 2, half)), (0, 2, 1))
        a, b = tl.split(g)
        if descending:
            lo = tl.where(a > b, a, b)
            hi = tl.where(b > a, a, b)
        else:
            lo = tl.where(a > b, b, a)
            hi = tl.where(b > a, b, a)
        h = tl.reshape(tl.permute(tl.join(lo, hi), (0, 2, 1)), (rows, n))
    return tl.reshape(h, x.shape)
