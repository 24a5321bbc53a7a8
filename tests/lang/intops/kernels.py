# Integer operators with Triton's semantics (tests/lang, family "intops"): result type after
# promotion (checked by storing into int64/uint64 buffers, which sign- or zero-extend),
# `>>` arithmetic when the left operand is signed, C-style `//` and `%`, and the values
# Triton's interpreter gives where LLVM leaves them undefined (x // 0 == 0, x % 0 == 0,
# shift amounts read as unsigned, from the width up: 0 or the sign).
import triton
import triton.language as tl


# z_OP[i] = x[i] OP y[i] for the operators defined on every pair of integer types
@triton.jit
def arith_kernel(x_ptr, y_ptr, add_ptr, sub_ptr, mul_ptr, and_ptr, or_ptr, xor_ptr, shl_ptr, shr_ptr,
                 lt_ptr, le_ptr, gt_ptr, ge_ptr, eq_ptr, ne_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m)
    y = tl.load(y_ptr + i, mask=m)
    tl.store(add_ptr + i, x + y, mask=m)
    tl.store(sub_ptr + i, x - y, mask=m)
    tl.store(mul_ptr + i, x * y, mask=m)
    tl.store(and_ptr + i, x & y, mask=m)
    tl.store(or_ptr + i, x | y, mask=m)
    tl.store(xor_ptr + i, x ^ y, mask=m)
    tl.store(shl_ptr + i, x << y, mask=m)
    tl.store(shr_ptr + i, x >> y, mask=m)
    tl.store(lt_ptr + i, x < y, mask=m)
    tl.store(le_ptr + i, x <= y, mask=m)
    tl.store(gt_ptr + i, x > y, mask=m)
    tl.store(ge_ptr + i, x >= y, mask=m)
    tl.store(eq_ptr + i, x == y, mask=m)
    tl.store(ne_ptr + i, x != y, mask=m)


# // and % (same signedness only); also the unary operators on x
@triton.jit
def divmod_kernel(x_ptr, y_ptr, div_ptr, mod_ptr, neg_ptr, inv_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m)
    y = tl.load(y_ptr + i, mask=m)
    tl.store(div_ptr + i, x // y, mask=m)
    tl.store(mod_ptr + i, x % y, mask=m)
    tl.store(neg_ptr + i, -x, mask=m)
    tl.store(inv_ptr + i, ~x, mask=m)


# A tile against Python numbers and constexprs: the number adopts the tile's type (also
# unsigned: u32_tile // C is an unsigned division).
@triton.jit
def scalar_kernel(x_ptr, o1_ptr, o2_ptr, o3_ptr, o4_ptr, o5_ptr, o8_ptr, n,
                  C: tl.constexpr, C2: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m)
    tl.store(o1_ptr + i, x // C, mask=m)
    tl.store(o2_ptr + i, x % C, mask=m)
    tl.store(o3_ptr + i, x >> 3, mask=m)
    tl.store(o4_ptr + i, C2 >> (x & 7), mask=m)
    tl.store(o5_ptr + i, x * 3 + 1, mask=m)
    tl.store(o8_ptr + i, x << C, mask=m)


# A runtime scalar parameter (i32) takes part in promotion like a tensor
@triton.jit
def runtime_scalar_kernel(x_ptr, o6_ptr, o7_ptr, s, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m)
    tl.store(o6_ptr + i, x // s, mask=m)
    tl.store(o7_ptr + i, x % s, mask=m)


# int1 (bool) tiles in arithmetic: + wraps in one bit, with an int tile it widens
@triton.jit
def bool_kernel(x_ptr, y_ptr, o1_ptr, o2_ptr, o3_ptr, o4_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m)
    y = tl.load(y_ptr + i, mask=m)
    a = x > 0
    b = y > 0
    tl.store(o1_ptr + i, a + b, mask=m)
    tl.store(o2_ptr + i, a + y, mask=m)
    tl.store(o3_ptr + i, (a ^ b) | (a & b), mask=m)
    tl.store(o4_ptr + i, a * 5 - b, mask=m)


# ---- errors ----------------------------------------------------------------------------------
@triton.jit
def mixed_sign_mod_kernel(x_ptr, y_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.load(y_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), x % y)


@triton.jit
def mixed_sign_div_kernel(x_ptr, y_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.load(y_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), x // y)


@triton.jit
def float_and_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), x & 1)


@triton.jit
def scalar_out_of_range_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), x + 300)


@triton.jit
def unsigned_negative_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), x + -1)


@triton.jit
def float_shift_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), x << 2)


# Masks are booleans (Triton: "Mask must have boolean scalar type")
@triton.jit
def int_mask_store_kernel(x_ptr, n):
    i = tl.arange(0, 16)
    tl.store(x_ptr + i, i, mask=i < n)
    tl.store(x_ptr + i, i, mask=(i < n).to(tl.int32))


@triton.jit
def int_mask_load_kernel(x_ptr, n):
    i = tl.arange(0, 16)
    x = tl.load(x_ptr + i, mask=i & 1, other=0)
    tl.store(x_ptr + i, x)


@triton.jit
def int_mask_atomic_kernel(x_ptr, n):
    i = tl.arange(0, 16)
    tl.atomic_add(x_ptr + i, 1, mask=n)


# A 16-bit negation widened afterwards (-(-32768) is -32768 in int16, and stays so when
# widened; ptxas once widened it to +32768), as a tile and as a scalar, and compared.
@triton.jit
def neg16_widen_kernel(x_ptr, o32_ptr, o64_ptr, neg_lt_ptr, s_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    n = -tl.load(x_ptr + i)
    tl.store(o32_ptr + i, n.to(tl.int32))
    tl.store(o64_ptr + i, n.to(tl.int64))
    tl.store(neg_lt_ptr + i, (n < 0).to(tl.int8))
    s = -tl.load(x_ptr + 1)
    tl.store(s_ptr, s.to(tl.int64))


# Shifts by amounts from the bit width up (Triton on NVIDIA and numpy: << and logical >>
# give 0, arithmetic >> the sign): 64-bit amounts whose low 32 bits are small, and
# constant amounts past the width of an int32.
@triton.jit
def wide_shift_kernel(x_ptr, y_ptr, shl_ptr, shr_ptr, ushr_ptr, c_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    tl.store(shl_ptr + i, x << y)
    tl.store(shr_ptr + i, x >> y)
    tl.store(ushr_ptr + i, (x.to(tl.uint64, bitcast=True) >> y.to(tl.uint64, bitcast=True)).to(tl.int64, bitcast=True))
    x32 = x.to(tl.int32)
    tl.store(c_ptr + i, (x32 << 40) + (x32 >> 40) * 2 + (x32.to(tl.uint32, bitcast=True) >> 33).to(tl.int32) * 4)


# Consecutive lanes against a value equal across them (cross entropy's `cols == target`; the
# lowering compares t - cols[0] with the lane numbers, conversion/eval.c cmp_consecutive):
# i32 columns (wrapping past 2^31 - 1 from `start`) against an i64 t (its sign-extended
# compare: a t outside i32 matches nothing) and an i32 one, i64 columns, and 2-D tiles whose
# rows compare with a per-row t.
@triton.jit
def lane_match_kernel(t64_ptr, t32_ptr, eq_ptr, ne_ptr, eq32_ptr, eq64_ptr, eq2_ptr, start, n,
                      BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    t64 = tl.load(t64_ptr + pid)
    t32 = tl.load(t32_ptr + pid)
    for s in range(0, n, BLOCK):
        i = s + tl.arange(0, BLOCK)
        m = i < n
        cols = start + i
        out = pid * n + i
        tl.store(eq_ptr + out, tl.where(cols == t64, 1, 0).to(tl.int8), mask=m)
        tl.store(ne_ptr + out, (t64 != cols).to(tl.int8), mask=m)
        tl.store(eq32_ptr + out, tl.where(cols == t32, 5, -3), mask=m)
        tl.store(eq64_ptr + out, (start.to(tl.int64) + i == t64).to(tl.int8), mask=m)
    r = tl.arange(0, 4)
    c = tl.arange(0, 64)
    t2 = tl.load(t64_ptr + (pid * 4 + r) % 8)
    tl.store(eq2_ptr + pid * 256 + r[:, None] * 64 + c[None, :],
             ((start + c)[None, :] == t2[:, None]).to(tl.int8))
