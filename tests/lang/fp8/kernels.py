# Kernels for the lang family 'fp8': Triton's fp8 storage types (fp8e5, fp8e4nv, fp8e4b15,
# fp8e4b8, fp8e5b16) loaded, stored, cast to and from fp16/bf16/fp32, computed on (in fp32)
# and multiplied with tl.dot. The arrays are uint8 codes bound with `x.npy:fp8e4nv`.
import triton
import triton.language as tl


@triton.jit
def decode_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x.to(tl.float32))


@triton.jit
def encode_kernel(x_ptr, out_ptr, N: tl.constexpr, ROUND: tl.constexpr):
    # out's element type (from its binding) picks the format (fp8, fp16 or bf16)
    pid = tl.program_id(0)
    offs = pid * N + tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty, fp_downcast_rounding=ROUND))


@triton.jit
def encode_implicit_kernel(x_ptr, out_ptr, N: tl.constexpr):
    # tl.store converts the value to the pointer's element type
    offs = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def cast_between_kernel(x_ptr, out_ptr, N: tl.constexpr):
    # fp8 -> fp8 of another format (through fp32), masked load with an fp8 `other`
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs, mask=offs < N - 3, other=1.5)
    tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty))


@triton.jit
def arith_kernel(a_ptr, b_ptr, sum_ptr, prod_ptr, max_ptr, lt_ptr, div_ptr, neg_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    s = a + b          # same fp8 type: rounded back to it
    tl.static_assert(s.dtype == a.dtype)
    tl.store(sum_ptr + offs, s)
    tl.store(prod_ptr + offs, (a * 2.0 - b).to(tl.float32))
    tl.store(max_ptr + offs, tl.maximum(a, b))
    tl.store(lt_ptr + offs, (a < b).to(tl.int8))
    q = a / b          # fp32, as Triton computes / on floats below 32 bits
    tl.static_assert(q.dtype == tl.float32)
    tl.store(div_ptr + offs, q)
    tl.store(neg_ptr + offs, -a)


@triton.jit
def mixed_kernel(a_ptr, b_ptr, h_ptr, out8_ptr, out16_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(a_ptr + offs)   # fp8e4nv
    b = tl.load(b_ptr + offs)   # fp8e5
    h = tl.load(h_ptr + offs)   # fp16
    m = a + b                   # two fp8 types: fp16
    tl.static_assert(m.dtype == tl.float16)
    tl.store(out16_ptr + offs, m + h)
    tl.store(out8_ptr + offs, tl.where(offs % 2 == 0, a, 0.25))
    c = tl.full((N,), 3.0, tl.float8e4nv) + tl.zeros((N,), tl.float8e4nv)
    tl.store(out8_ptr + offs + N, c)


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)[:, None]
    rn = tl.arange(0, N)[None, :]
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn)
    acc = tl.dot(a, b)
    tl.static_assert(acc.dtype == tl.float32)
    acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm * N + rn, acc)


@triton.jit
def bf16_kernel(x_ptr, out_ptr, back_ptr, N: tl.constexpr):
    # bf16 codes (uint16) -> fp8e5 and back to bf16
    offs = tl.arange(0, N)
    x = tl.load(x_ptr.to(tl.pointer_type(tl.bfloat16)) + offs)
    y = x.to(tl.float8e5)
    tl.store(out_ptr + offs, y)
    tl.store(back_ptr.to(tl.pointer_type(tl.bfloat16)) + offs, y.to(tl.bfloat16))


# ---- bad forms ----------------------------------------------------------------------------

@triton.jit
def fp8_math_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.exp(x))


@triton.jit
def bad_rounding_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(out_ptr + tl.arange(0, 8), x.to(tl.float16, fp_downcast_rounding="rtp"))


@triton.jit
def rounding_on_widening_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(out_ptr + tl.arange(0, 8), x.to(tl.float64, fp_downcast_rounding="rtz"))


@triton.jit
def fp8_int_arith_kernel(x_ptr, i_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    i = tl.load(i_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), x + i)


@triton.jit
def fp8_scalar_param_kernel(x_ptr, s):
    tl.store(x_ptr, s)


# tl.abs of fp8 clears the sign bit of each code, as Triton does
@triton.jit
def abs_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.abs(tl.load(x_ptr + offs)))


@triton.jit
def scalar_pointer_kernel(x_ptr, out_ptr, codes_ptr, off, off64, N: tl.constexpr):
    # scalar arithmetic on fp8 pointers (vLLM's b_ptr + off_experts * stride_be), then a tile
    # through the moved pointer, scalar loads and stores of fp8 elements
    p = x_ptr + off
    offs = tl.arange(0, N)
    s = tl.load(x_ptr + off64 + 1)
    tl.store(out_ptr + offs, tl.load(p + offs).to(tl.float32) + s.to(tl.float32))
    q = codes_ptr + 1
    q += off64
    tl.store(q, tl.load(x_ptr + 2))
    tl.store(codes_ptr + off, s)


@triton.jit
def rounding_same_type_kernel(x_ptr, h_ptr, out_ptr, hout_ptr, N: tl.constexpr):
    # a cast to the value's own type is the value, whatever fp_downcast_rounding says (Triton;
    # fla writes b.to(p.dtype.element_ty, fp_downcast_rounding="rtne") for fp32 outputs too)
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(out_ptr.dtype.element_ty, fp_downcast_rounding="rtz"))
    tl.store(hout_ptr + offs, tl.load(h_ptr + offs).to(tl.float16, fp_downcast_rounding="rtne"))
