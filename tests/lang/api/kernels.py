# Kernels for the lang family 'api': the tl.* names of Triton's __all__ beyond the core
# builtins (swizzle2d, add/sub/mul, to_tensor, PropagateNan, isinstance, atomic_load/store,
# map_elementwise, load/store_tensor_descriptor, pi32_t, libdevice functions) and the
# located errors for the ones tilec refuses.
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def swizzle_kernel(out_i, out_j, SI: tl.constexpr, SJ: tl.constexpr, G: tl.constexpr):
    i = tl.arange(0, SI)[:, None]
    j = tl.arange(0, SJ)[None, :]
    ni, nj = tl.swizzle2d(i, j, SI, SJ, G)
    offs = i * SJ + j
    tl.store(out_i + offs, ni)
    tl.store(out_j + offs, nj)


@triton.jit
def swizzle_scalar_kernel(out, size_i, size_j, G: tl.constexpr):
    # the tutorial's use: scalar program ids
    pid_i = tl.program_id(0)
    pid_j = tl.program_id(1)
    ni, nj = tl.swizzle2d(pid_i, pid_j, size_i, size_j, G)
    tl.store(out + (pid_i * size_j + pid_j) * 2, ni)
    tl.store(out + (pid_i * size_j + pid_j) * 2 + 1, nj)


@triton.jit
def arith_kernel(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    a = tl.add(x, y)
    s = tl.sub(a, 3, sanitize_overflow=False)
    m = tl.mul(s, tl.to_tensor(2))
    c = tl.add(5, 6)  # constexpr operands fold
    tl.store(out_ptr + offs, m + c + tl.TRITON_MAX_TENSOR_NUMEL // 1048576)


@triton.jit
def to_tensor_kernel(out_ptr):
    # Triton's typing of Python scalars: int32, uint32, int64, fp32, int1
    tl.store(out_ptr + 0, tl.to_tensor(7).dtype.primitive_bitwidth)
    tl.store(out_ptr + 1, (tl.to_tensor(3000000000) >> 31).to(tl.int64))  # uint32: logical shift
    tl.store(out_ptr + 2, tl.to_tensor(2 ** 40).dtype.primitive_bitwidth)
    tl.store(out_ptr + 3, (tl.to_tensor(1.5) * 2).to(tl.int64))
    tl.store(out_ptr + 4, tl.to_tensor(True).dtype.primitive_bitwidth)
    tl.store(out_ptr + 5, isinstance(tl.to_tensor(1), tl.tensor))


@triton.jit
def propagate_nan_kernel(x_ptr, y_ptr, all_ptr, none_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(all_ptr + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(none_ptr + offs, tl.minimum(x, y, propagate_nan=tl.PropagateNan.NONE))
    tl.store(all_ptr + offs + N, tl.clamp(x, -1.0, 2.0, propagate_nan=tl.PropagateNan.ALL))
    tl.store(none_ptr + offs + N, tl.clamp(x, -1.0, 2.0))


@triton.jit
def _kind(v):
    if isinstance(v, tl.tensor):
        return 1
    elif isinstance(v, tl.constexpr):
        if isinstance(v, (float, bool)):
            return 3
        else:
            return 2
    elif isinstance(v, tl.tuple):
        return 4
    else:
        return 5


@triton.jit
def isinstance_kernel(out_ptr, n, K: tl.constexpr):
    tl.store(out_ptr + 0, _kind(n))
    tl.store(out_ptr + 1, _kind(K))
    tl.store(out_ptr + 2, _kind(1.5))
    tl.store(out_ptr + 3, _kind((1, 2)))
    tl.store(out_ptr + 4, _kind(tl.float32))
    tl.store(out_ptr + 5, isinstance(K, int))
    tl.store(out_ptr + 6, isinstance(tl.float16, tl.dtype))
    desc = tl.make_tensor_descriptor(out_ptr, [8], [1], [8])
    tl.store(out_ptr + 7, isinstance(desc, tl.tensor_descriptor))


@triton.jit
def atomic_load_store_kernel(f_ptr, i_ptr, fout_ptr, iout_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    f = tl.atomic_load(f_ptr + offs)
    i = tl.atomic_load(i_ptr + offs, mask=offs < N, sem="acquire")
    tl.store(fout_ptr + offs, f)
    tl.atomic_store(iout_ptr + offs, i * 2, mask=offs < N - 1, sem="release")
    tl.atomic_store(f_ptr + offs, f + 1.0)


@triton.jit
def _square_plus(a, b):
    return a * a + b


@triton.jit
def map_elementwise_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.map_elementwise(_square_plus, x, 1.0))


@triton.jit
def _divmod2(a0, a1, b0, b1):
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@triton.jit
def _affine4(x0, x1, x2, x3, s0, s1, s2, s3):
    return x0 * s0, x1 * s1 + 1.0, x2 * s2 + 2.0, x3 * s3 + 3.0


@triton.jit
def map_pack_kernel(a_ptr, b_ptr, q_ptr, r_ptr, x_ptr, y_ptr, N: tl.constexpr, M: tl.constexpr, K: tl.constexpr):
    # pack=P: the function takes P elements of each operand and returns P of each result
    offs = tl.arange(0, N)
    q, r = tl.map_elementwise(_divmod2, tl.load(a_ptr + offs), tl.load(b_ptr + offs), pack=2)
    tl.store(q_ptr + offs, q)
    tl.store(r_ptr + offs, r)
    o2 = tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :]
    tl.store(y_ptr + o2, tl.map_elementwise(_affine4, tl.load(x_ptr + o2), 2.0, pack=4))


@triton.jit
def _compare(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@triton.jit
def _clamp_steps(x):
    y = x
    if x > 10:
        y = 10.0
        if x > 100:
            return -1.0
    z = y * 2
    if z < 0:
        z = 0.0
    return z + 1


@triton.jit
def _selu(x, alpha):
    if x > 0:
        return x
    return alpha * (tl.exp(x) - 1)


@triton.jit
def map_branches_kernel(x_ptr, y_ptr, c_ptr, s_ptr, k_ptr, N: tl.constexpr):
    # runtime branches on the mapped elements (early returns, nested ifs, a name set in one
    # branch): each element takes its own path's values
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(c_ptr + offs, tl.map_elementwise(_compare, x, tl.load(y_ptr + offs)))
    tl.store(s_ptr + offs, tl.map_elementwise(_selu, x.to(tl.float32) / 10, 1.5))
    tl.store(k_ptr + offs, tl.map_elementwise(_clamp_steps, x.to(tl.float32)))


@triton.jit
def _printing(x):
    if x > 0:
        tl.device_print("positive", x)
    return x


@triton.jit
def map_branch_effect_kernel(x_ptr):
    offs = tl.arange(0, 8)
    tl.store(x_ptr + offs, tl.map_elementwise(_printing, tl.load(x_ptr + offs)))


@triton.jit
def map_pack_bad_kernel(x_ptr):
    offs = tl.arange(0, 8)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, tl.map_elementwise(_square_plus, x, x, pack=3))


@triton.jit
def descriptor_fn_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BM, BN])
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    v = tl.load_tensor_descriptor(src, [pm, pn])
    tl.store_tensor_descriptor(dst, [pm, pn], v + 1)


@triton.jit
def pi32_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    p = x_ptr.to(tl.pi32_t)  # *u32 reinterpreted as *i32
    tl.store(out_ptr + offs, tl.load(p + offs))


@triton.jit
def libdevice_kernel(x_ptr, y_ptr, out_ptr, FN: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    if FN == "signbit":
        r = libdevice.signbit(x).to(tl.float32)
    elif FN == "copysign":
        r = libdevice.copysign(x, y)
    elif FN == "hypot":
        r = libdevice.hypot(x, y)
    elif FN == "fdim":
        r = libdevice.fdim(x, y)
    elif FN == "saturatef":
        r = libdevice.saturatef(x)
    elif FN == "ilogb":
        r = libdevice.ilogb(x).to(tl.float32)
    elif FN == "logb":
        r = libdevice.logb(x)
    elif FN == "ldexp":
        r = libdevice.ldexp(x, y.to(tl.int32))
    elif FN == "erfinv":
        r = libdevice.erfinv(x)
    elif FN == "exp10":
        r = libdevice.exp10(x)
    elif FN == "llrint":
        r = libdevice.llrint(x).to(tl.float32)
    elif FN == "float2int_rn":
        r = libdevice.float2int_rn(x).to(tl.float32)
    elif FN == "isfinited":
        r = libdevice.isfinited(x).to(tl.float32)
    elif FN == "fast_dividef":
        r = libdevice.fast_dividef(x, y)
    else:
        r = libdevice.normcdf(x)
    tl.store(out_ptr + offs, r)


# ---- refused forms (diagnostics) ---------------------------------------------------------

@triton.jit
def inline_asm_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(x_ptr + tl.arange(0, 8), y)


@triton.jit
def call_class_kernel(x_ptr):
    t = tl.tensor(x_ptr)
    tl.store(x_ptr, t)


@triton.jit
def bad_propagate_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.maximum(x, x, propagate_nan=tl.PropagateNan.SOME))


@triton.jit
def atomic_poll_kernel(x_ptr):
    tl.atomic_poll(x_ptr, 1)


@triton.jit
def isinstance_unknown_kernel(x_ptr):
    tl.store(x_ptr, isinstance(x_ptr, tl.float32))


@triton.jit
def topk_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, K: tl.constexpr, DESC: tl.constexpr,
                KW: tl.constexpr):
    rows = tl.arange(0, R)[:, None]
    x = tl.load(x_ptr + rows * C + tl.arange(0, C)[None, :])
    if KW == 0:
        t = tl.topk(x, K)  # descending by default
    elif KW == 1:
        t = tl.topk(x, k=K, dim=1, descending=DESC)
    else:
        t = x.topk(K, descending=DESC)
    tl.store(out_ptr + rows * K + tl.arange(0, K)[None, :], t)


@triton.jit
def libdevice_int_kernel(x_ptr, y_ptr, out_ptr, FN: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    if FN == "popc":
        r = libdevice.popc(x)
    elif FN == "clz":
        r = libdevice.clz(x)
    elif FN == "ffs":
        r = libdevice.ffs(x)
    elif FN == "brev":
        r = libdevice.brev(x)
    elif FN == "hadd":
        r = libdevice.hadd(x, y)
    elif FN == "rhadd":
        r = libdevice.rhadd(x, y)
    elif FN == "mulhi":
        r = libdevice.mulhi(x, y)
    else:
        r = libdevice.float_as_int(libdevice.int_as_float(x))
    tl.store(out_ptr + offs, r.to(out_ptr.dtype.element_ty, bitcast=r.dtype.primitive_bitwidth == 64))


# getattr/hasattr with compile-time names, as Triton's tests pick functions and enum values
@triton.jit
def getattr_kernel(a_ptr, b_ptr, c_ptr, FUNC: tl.constexpr, PROP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(a_ptr + offs)
    y = tl.load(b_ptr + offs)
    r = getattr(tl, FUNC)(x, y, propagate_nan=getattr(tl.PropagateNan, PROP))
    extra = hasattr(tl, "sum") + hasattr(tl, "no_such_name") * 10 + getattr(tl, "no_such_name", 100)
    tl.store(c_ptr + offs, getattr(r, "to")(tl.float32) + extra)
