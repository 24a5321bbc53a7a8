"""Cases of the lang family 'libforms': the constructs large kernel libraries use (issue 28),
against numpy (its kernels are in libforms/kernels.py)."""
import numpy as np

from harness import add, diag, line_of, rng, target


def _f16_exact(a):
    return np.asarray(a, np.float64).astype(np.float16)


def cases():
    F = "libforms"
    K = "libforms/kernels.py"

    # block pointer .type.element_ty as the store's cast target, every element type
    for M, N, BM, BN, dt in [(7, 33, 4, 16, np.float16), (16, 16, 16, 16, np.float32), (5, 9, 8, 4, np.float64),
                             (1, 1, 1, 1, np.float16)]:
        x = rng(2800 + M * N).uniform(-4, 4, (M, N)).astype(dt)
        add(F, "block_ptr_type_element_ty_%s_%dx%d" % (np.dtype(dt).name, M, N), K, "scale_block_ptr_kernel",
            ((M + BM - 1) // BM,), dict(x_ptr=x, out_ptr=np.zeros((M, N), dt), M=M, N=N, scale=1.5, BM=BM, BN=BN),
            ["out_ptr"], lambda a, dt=dt: {"out_ptr": (a["x_ptr"].astype(np.float32) * np.float32(1.5)).astype(dt)})
    for N, BLOCK, dt in [(10, 16, np.float16), (16, 16, np.float32), (1, 2, np.float64)]:
        x = rng(2810 + N).uniform(-2, 2, N).astype(dt)

        def ref(a, N=N, BLOCK=BLOCK, dt=dt):
            acc = np.zeros(BLOCK, np.float32)
            acc[:N] = a["x_ptr"].astype(np.float32)
            return {"out_ptr": (acc + acc.sum(dtype=np.float32))[:N].astype(dt)}
        add(F, "block_ptr_dtype_facts_%s_n%d" % (np.dtype(dt).name, N), K, "block_ptr_dtype_kernel", (1,),
            dict(x_ptr=x, out_ptr=np.zeros(N, dt), N=N, BLOCK=BLOCK), ["out_ptr"], ref, rtol=1e-6, atol=1e-6)
    diag(F, "diag_block_type_not_a_dtype", K, "block_ptr_type_as_dtype_kernel", "*fp32, *fp32, i32, 16",
         expect=("must be a scalar dtype", "block type <(16,), fp32>", "its scalar type is .element_ty"),
         line="tl.zeros((BLOCK,), dtype=bp.type.element_ty)")
    diag(F, "diag_block_ptr_attr", K, "block_ptr_bad_attr_kernel", "*fp32, i32, 16",
         expect=("block pointer has no attribute 'shape'",), line="bp.shape")

    # .value of a dtype constexpr handed to a @jit helper (and of int constexprs)
    for dt, lo, hi, tlname in [(np.float32, -100, 100, "tl.float32"), (np.int32, -2 ** 31, 2 ** 31 - 1, "tl.int32"),
                               (np.int16, -2 ** 15, 2 ** 15 - 1, "tl.int16"), (np.float16, -100, 100, "tl.float16")]:
        for N, BLOCK in [(1, 16), (13, 16), (16, 16)]:
            R = 3
            x = rng(2820 + N).integers(lo // 2, hi // 2, (R, N), endpoint=True).astype(dt) if dt != np.float32 \
                and dt != np.float16 else rng(2820 + N).uniform(lo, hi, (R, N)).astype(dt)
            x[1, :] = -np.abs(x[1, :]) - 1  # all negative: a fill of 0 for the masked lanes would win
            out_dt = np.float32 if dt == np.float16 else dt

            def ref(a, N=N, BLOCK=BLOCK, out_dt=out_dt):
                m = a["x_ptr"].max(axis=1).astype(np.float64)
                return {"out_ptr": (m * 2 + (N > BLOCK)).astype(out_dt)}
            add(F, "value_of_dtype_constexpr_%s_n%d" % (np.dtype(dt).name, N), K, "rowmax_value_kernel", (R,),
                dict(x_ptr=x, out_ptr=np.zeros(R, out_dt), N=N, stride=N, BLOCK=BLOCK, DTYPE=tlname), ["out_ptr"], ref)

    # libdevice.pow(fp32 / fp64, int32)
    for dt in (np.float32, np.float64):
        n = 1025
        r = rng(2830)
        x = r.uniform(-3, 3, n).astype(dt)
        e = r.integers(-12, 13, n).astype(np.int32)
        x[:8] = [0.0, -0.0, 2.0, -2.0, np.inf, -np.inf, np.nan, 1.0]
        e[:8] = [-1, 3, 100, 101, -2, 3, 0, 2 ** 31 - 1]
        x[8:12] = [-1.0, -1.0, 0.5, 1e-20]
        e[8:12] = [2 ** 31 - 1, -2 ** 31, 200, 3]

        def ref(a, dt=dt):
            with np.errstate(all="ignore"):
                xs, es = a["x_ptr"].astype(np.float64), a["e_ptr"].astype(np.float64)
                return {"out_ptr": np.power(xs, es).astype(dt), "out2_ptr": np.power(xs, 3.0).astype(dt)}
        add(F, "libdevice_pow_int32_%s" % np.dtype(dt).name, K, "pow_int_kernel", ((n + 127) // 128,),
            dict(x_ptr=x, e_ptr=e, out_ptr=np.zeros(n, dt), out2_ptr=np.zeros(n, dt), N=n, BLOCK=128),
            ["out_ptr", "out2_ptr"], ref, rtol=2e-7 if dt == np.float32 else 1e-15)
    x = np.array([1.5, -3.0, 0.25, 7.0, 1e-30, -2.5, 3e30, 0.0], np.float32)
    e = np.array([3, -4, 100, -130, 90, 0, 5, 7], np.int32)
    def int_exp_ref(a):
        xd = a["x_ptr"].astype(np.float64)
        with np.errstate(all="ignore"):
            return {"out_ptr": np.concatenate([np.ldexp(xd, a["e_ptr"]), np.ldexp(xd, 3),
                                               np.power(xd, -2.0)]).astype(np.float32)}
    add(F, "libdevice_int_exponent_forms", K, "int_exponent_forms_kernel", (1,),
        dict(x_ptr=x, e_ptr=e, out_ptr=np.zeros(24, np.float32), BLOCK=8), ["out_ptr"], int_exp_ref, rtol=2e-7)
    diag(F, "diag_item_of_many", K, "item_of_many_kernel", "*i32",
         expect=("in tensor.item()", "item() needs a tensor of one element"), line="x.item()")
    diag(F, "diag_pow_int64_exponent", K, "pow_int64_kernel", "*fp32, *i64, *fp32, 16",
         expect=("int32 exponent", "got i64"), line="libdevice.pow(x, e)")

    # x.logical_or(y), x.logical_and(y)
    for N in (1, 7, 64):
        r = rng(2840 + N)
        a_ = r.uniform(-3, 3, N).astype(np.float32)
        b_ = r.uniform(-3, 3, N).astype(np.float32)
        if N > 2:
            a_[0], b_[1] = np.nan, np.nan

        def ref(a):
            x, y = a["a_ptr"], a["b_ptr"]
            with np.errstate(invalid="ignore"):
                return {"out_ptr": ((x < -1) | (x > 1)).astype(np.int32) + 2 * ((x > 0) & (y > 0)).astype(np.int32)
                        + 4 * (np.isnan(x) | np.isnan(y)).astype(np.int32)}
        add(F, "logical_or_and_methods_n%d" % N, K, "logical_methods_kernel", (1,),
            dict(a_ptr=a_, b_ptr=b_, out_ptr=np.zeros(N, np.int32), N=N, lo=-1.0, hi=1.0, BLOCK=64), ["out_ptr"], ref)

    # x.item(), x.softmax()
    for BLOCK in (1, 8, 128):
        x = rng(2850 + BLOCK).uniform(-5, 5, BLOCK).astype(np.float32)

        def ref(a):
            v = a["x_ptr"].astype(np.float64)
            e = np.exp(v - v.max())
            return {"out_ptr": e / e.sum(), "s_ptr": np.array([v[0] + v.sum()])}
        add(F, "item_softmax_methods_block%d" % BLOCK, K, "item_softmax_kernel", (1,),
            dict(x_ptr=x, out_ptr=np.zeros(BLOCK, np.float32), s_ptr=np.zeros(1, np.float32), BLOCK=BLOCK),
            ["out_ptr", "s_ptr"], ref, rtol=1e-5, atol=1e-6)

    # triton.next_power_of_2 / triton.cdiv on a constexpr inside the kernel, math.* constants
    for N in (1, 7, 8, 1023, 1025):
        x = rng(2860 + N).uniform(-1, 1, N).astype(np.float32)
        p2 = 1 << (N - 1).bit_length()
        add(F, "next_power_of_2_in_kernel_n%d" % N, K, "npow2_row_sum_kernel", (1,),
            dict(x_ptr=x, out_ptr=np.zeros(1, np.float32), N=N), ["out_ptr"],
            lambda a, N=N, p2=p2: {"out_ptr": np.array([a["x_ptr"].astype(np.float64).sum()
                                                         + (N + 3) // 4 * 1000 + p2 * 100000])}, rtol=1e-6)
    n = 1000
    x = rng(2870).uniform(-6, 6, n).astype(np.float32)
    add(F, "math_pi_gelu_tanh", K, "gelu_tanh_kernel", ((n + 255) // 256,),
        dict(x_ptr=x, out_ptr=np.zeros(n, np.float32), N=n, BLOCK=256), ["out_ptr"],
        lambda a: {"out_ptr": 0.5 * a["x_ptr"].astype(np.float64) * (1 + np.tanh(
            np.sqrt(2 / np.pi) * (a["x_ptr"].astype(np.float64) + 0.044715 * a["x_ptr"].astype(np.float64) ** 3)))},
        rtol=1e-5, atol=1e-6)
    rounding_cases()
    constexpr_function_cases()


# ---- reference for the rounding-mode functions: exact rationals rounded by hand ------------

def _round_to(q, dt, mode):
    """The rational q rounded to dtype dt toward zero ('rz'), down ('rd') or up ('ru')."""
    from fractions import Fraction
    fmax = Fraction(float(np.finfo(dt).max))
    if q > fmax:
        return dt(np.inf) if mode == "ru" else dt(np.finfo(dt).max)
    if q < -fmax:
        return dt(-np.inf) if mode == "rd" else dt(-np.finfo(dt).max)
    c = dt(float(q))  # within an ulp or two of q
    if mode == "rz":
        mode = "rd" if q > 0 else "ru"
    if mode == "rd":
        while Fraction(float(c)) > q:
            c = np.nextafter(c, dt(-np.inf))
        while Fraction(float(np.nextafter(c, dt(np.inf)))) <= q:
            c = np.nextafter(c, dt(np.inf))
    else:
        while Fraction(float(c)) < q:
            c = np.nextafter(c, dt(np.inf))
        while Fraction(float(np.nextafter(c, dt(-np.inf)))) >= q:
            c = np.nextafter(c, dt(-np.inf))
    return c


def _directed(op, mode, args, dt):
    """libdevice's OP_r{z,d,u} on one set of operands, from exact rationals (IEEE 754's
    special values and signs of zero)."""
    from fractions import Fraction
    import math
    vals = [float(a) for a in args]
    with np.errstate(all="ignore"):
        rn = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
              "div": lambda x, y: x / y, "rcp": lambda x: 1 / x, "sqrt": np.sqrt,
              "fma": lambda x, y, z: x * y + z}[op](*[dt(v) for v in vals])
    if not all(math.isfinite(v) for v in vals) or (op in ("div", "rcp") and vals[-1] == 0) or \
            (op == "sqrt" and vals[0] < 0):
        return dt(rn)  # inf, NaN and division by zero are exact
    f = [Fraction(v) for v in vals]
    if op == "sqrt":
        if f[0] == 0:
            return dt(vals[0])
        c = dt(np.sqrt(dt(vals[0])))  # correctly rounded; move it per the mode
        if mode in ("rz", "rd"):
            while Fraction(float(c)) ** 2 > f[0]:
                c = np.nextafter(c, dt(-np.inf))
        else:
            while Fraction(float(c)) ** 2 < f[0]:
                c = np.nextafter(c, dt(np.inf))
        return c
    q = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
         "div": lambda x, y: x / y, "rcp": lambda x: 1 / x, "fma": lambda x, y, z: x * y + z}[op](*f)
    if q == 0:
        if op in ("mul", "div"):
            return dt(-0.0) if (math.copysign(1, vals[0]) < 0) != (math.copysign(1, vals[1]) < 0) else dt(0.0)
        if op == "fma":  # the product's sign, and its value's zeroness, then z
            terms = [math.copysign(0.0 if f[0] * f[1] == 0 else 1.0, math.copysign(1, vals[0]) * math.copysign(1, vals[1])),
                     vals[2]]
        else:
            terms = [vals[0], vals[1] if op == "add" else -vals[1]]
        neg = [math.copysign(1, t) < 0 for t in terms]
        if all(neg) or (mode == "rd" and not (not neg[0] and not neg[1])):
            return dt(-0.0)
        return dt(0.0)
    return _round_to(q, dt, mode)


def _same_bits(got, exp):
    got, exp = np.asarray(got), np.asarray(exp)
    both_nan = np.isnan(got) & np.isnan(exp)
    same = (got == exp) & (np.signbit(got) == np.signbit(exp))
    bad = np.nonzero(~(same | both_nan))[0]
    if len(bad):
        i = bad[0]
        return "%d of %d differ, first at %d: got %r, expected %r" % (len(bad), len(got), i, got[i], exp[i])
    return None


def _rounding_inputs(dt, op, n, seed):
    r = rng(seed)
    fi = np.finfo(dt)
    mant = r.uniform(1, 2, (3, n)) * r.choice([-1, 1], (3, n))
    expo = r.integers(-8, 9, (3, n))
    v = (mant * np.exp2(expo)).astype(dt)
    # edges: exact results, zeros of both signs, overflow, subnormal results, inf, NaN
    tiny = fi.tiny if dt == np.float64 else np.float32(1.2e-38)
    edge = [(1.0, 1.0, 1.0), (1.0, -1.0, -1.0), (0.0, -0.0, 0.0), (-0.0, -0.0, -0.0), (fi.max, fi.max, fi.max),
            (-fi.max, fi.max, -fi.max), (3.0, 7.0, -21.0), (np.inf, 2.0, 1.0), (np.nan, 1.0, 1.0),
            (1.0, 3.0, 1e-30), (2.0, 0.0, 0.0), (-5.0, 0.0, 0.0), (1.0, -3.0, 0.1)]
    if dt == np.float32:  # results below 2^-126 (fp64's subnormal range is outside the exact claim)
        edge += [(tiny, 0.3, 1e-45), (-tiny, 1.7, 3e-39), (1e-30, -1e-10, 1e-45), (3e-39, 1e-38, -3e-39)]
    for i, e in enumerate(edge):
        v[:, i] = e
    if op == "sqrt":
        v[0] = np.abs(v[0])
        v[0, 0] = -1.0
    return v[0], v[1], v[2]


def rounding_cases():
    F = "libforms"
    K = "libforms/kernels.py"
    n = 300
    for dt in (np.float32, np.float64):
        for op, nargs in [("add", 2), ("sub", 2), ("mul", 2), ("div", 2), ("rcp", 1), ("sqrt", 1), ("fma", 3)]:
            if op == "fma" and dt == np.float64:
                continue
            for mode in ("rz", "rd", "ru"):
                x, y, z = _rounding_inputs(dt, op, n, 2880 + nargs)

                def check(a, res, op=op, mode=mode, dt=dt, nargs=nargs):
                    args = [a["x_ptr"], a["y_ptr"], a["z_ptr"]][:nargs]
                    exp = np.array([_directed(op, mode, [v[i] for v in args], dt) for i in range(len(a["x_ptr"]))], dt)
                    return _same_bits(res["out_ptr"], exp)
                add(F, "libdevice_%s_%s_%s" % (op, mode, np.dtype(dt).name), K, "rounding_kernel", ((n + 127) // 128,),
                    dict(x_ptr=x, y_ptr=y, z_ptr=z, out_ptr=np.zeros(n, dt), N=n, FN="%s_%s" % (op, mode),
                         NARGS=nargs, BLOCK=128), ["out_ptr"], check=check)
    # conversions
    from fractions import Fraction
    r = rng(2890)
    conv = [("double2float", np.float64, np.float32,
             np.concatenate([r.uniform(-1e3, 1e3, 200), [0.0, -0.0, 1e300, -1e300, 1e-50, -1e-50, 1.5, np.nan, np.inf,
                                                          3.4028235677973366e38, 1.401298464324817e-45 * 1.5]])),
            ("int2float", np.int32, np.float32,
             np.concatenate([r.integers(-2 ** 31, 2 ** 31, 200), [2 ** 31 - 1, -2 ** 31, 16777217, -16777217, 0]])),
            ("uint2float", np.uint32, np.float32,
             np.concatenate([r.integers(0, 2 ** 32, 200), [2 ** 32 - 1, 16777217, 0]])),
            ("ll2float", np.int64, np.float32,
             np.concatenate([r.integers(-2 ** 63, 2 ** 63, 200, dtype=np.int64), [2 ** 63 - 1, -2 ** 63, 0]])),
            ("ull2float", np.uint64, np.float32,
             np.concatenate([r.integers(0, 2 ** 64, 200, dtype=np.uint64), np.array([2 ** 64 - 1, 0], np.uint64)])),
            ("ll2double", np.int64, np.float64,
             np.concatenate([r.integers(-2 ** 63, 2 ** 63, 200, dtype=np.int64), [2 ** 63 - 1, -2 ** 63, 2 ** 53 + 1]])),
            ("ull2double", np.uint64, np.float64,
             np.concatenate([r.integers(0, 2 ** 64, 200, dtype=np.uint64),
                             np.array([2 ** 64 - 1, 2 ** 53 + 1], np.uint64)]))]
    for name, src, dst, vals in conv:
        x = np.asarray(vals).astype(src)
        m = len(x)
        for mode in ("rz", "rd", "ru"):
            def check(a, res, dst=dst, mode=mode):
                exp = []
                for v in a["x_ptr"]:
                    if isinstance(v, np.floating) and not np.isfinite(v):
                        exp.append(dst(v))
                    elif v == 0:
                        exp.append(dst(v))
                    else:
                        exp.append(_round_to(Fraction(int(v)) if not isinstance(v, np.floating) else Fraction(float(v)),
                                             dst, mode))
                return _same_bits(res["out_ptr"], np.array(exp, dst))
            add(F, "libdevice_%s_%s" % (name, mode), K, "rounding_kernel", ((m + 127) // 128,),
                dict(x_ptr=x, y_ptr=x, z_ptr=x, out_ptr=np.zeros(m, dst), N=m, FN="%s_%s" % (name, mode), NARGS=1,
                     BLOCK=128), ["out_ptr"], check=check)
    diag(F, "diag_fma_rz_fp64", K, "fma_rz_fp64_kernel", "*fp64, *fp64, 16",
         expect=("libdevice.fma_rz takes fp32 operands",), line="libdevice.fma_rz(x, x, x)")


def constexpr_function_cases():
    F = "libforms"
    K = "libforms/kernels.py"
    for dt, per_word in [(np.float16, 2), (np.float32, 1), (np.int8, 4), (np.int16, 2), (np.float64, 1)]:
        for N, BLOCK in [(5000, 256), (1, 1), (7, 8)]:
            x = np.ones(N, dt)
            x[::7] = 3  # 5000 values summing past fp16's 2048: an fp16 accumulator would stop
            out_dt = {np.float16: np.float32, np.int8: np.int32, np.int16: np.int32}.get(dt, dt)
            lg = BLOCK.bit_length() - 1
            add(F, "constexpr_function_acc_%s_n%d" % (np.dtype(dt).name, N), K, "constexpr_fn_sum_kernel", (1,),
                dict(x_ptr=x, out_ptr=np.zeros(1, out_dt), N=N, BLOCK=BLOCK), ["out_ptr"],
                lambda a, per_word=per_word, lg=lg, out_dt=out_dt: {"out_ptr": np.array(
                    [a["x_ptr"].astype(np.float64).sum() * per_word + (lg << 20)], out_dt)})
    diag(F, "diag_constexpr_function_runtime_if", K, "constexpr_fn_runtime_if_kernel", "*fp32, *i32",
         expect=("'if' in constexpr function '_sign_of' needs a compile-time condition", "got i1 scalar"),
         line=line_of(K, "    if x > 0:"))
    diag(F, "diag_constexpr_function_unparsed", K, "constexpr_fn_unparsed_kernel", "*i32",
         expect=("'_triangle' cannot be used in a kernel", "constexpr function defined at line",
                 "whose body uses Python tilec does not evaluate"), line="_triangle(4))")
    x = (np.arange(16) * 0.5 - 3).astype(np.float64)
    add(F, "reduce_scan_tuple_of_one", K, "reduce_tuple_of_one_kernel", (1,),
        dict(x_ptr=x, out_ptr=np.zeros(17, np.float64), BLOCK=16), ["out_ptr"],
        lambda a: {"out_ptr": np.concatenate([[a["x_ptr"].sum()], np.cumsum(a["x_ptr"])])}, rtol=1e-12)
    for shape in [(4, 4), (16,), (2, 2, 4), (1, 16)]:
        x = np.arange(16, dtype=np.int32)
        add(F, "reshape_tuple_constexpr_%s" % "x".join(map(str, shape)), K, "reshape_tuple_constexpr_kernel", (1,),
            dict(z_ptr=np.zeros(16, np.int32), x_ptr=x, N=16, OUT_SHAPE=str(shape).replace(" ", "")), ["z_ptr"],
            lambda a: {"z_ptr": a["x_ptr"] + 1})
    x = np.array([3, -2, 1, -2, 5, 1, -1, 2], np.int8)
    add(F, "standard_combine_functions", K, "standard_combine_kernel", (1,),
        dict(x_ptr=x, out_ptr=np.zeros(3, np.int32), BLOCK=8), ["out_ptr"],
        lambda a: {"out_ptr": np.array([a["x_ptr"].min(), np.argmin(a["x_ptr"]),
                                        np.prod(a["x_ptr"].astype(np.int64))], np.int32)})
    x = np.arange(512, dtype=np.int32)
    add(F, "reshape_tuple_constexpr_rank9", K, "reshape_tuple_constexpr_kernel", (1,),
        dict(z_ptr=np.zeros(512, np.int32), x_ptr=x, N=512, OUT_SHAPE="(2,2,2,2,2,2,2,2,2)"), ["z_ptr"],
        lambda a: {"z_ptr": a["x_ptr"] + 1})
    diag(F, "diag_reshape_rank_17", K, "reshape_tuple_constexpr_kernel",
         "*i32, *i32, 131072, (2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2)",
         expect=("tiles of rank > 16 are not supported", "17 dimensions"), line="tl.reshape(x, OUT_SHAPE)")
    xa = np.linspace(-3, 3, 32).astype(np.float32)
    add(F, "function_argument_jit", K, "apply_fn_kernel", (1,),
        dict(x_ptr=xa, y_ptr=np.zeros(32, np.float32), ACT="@_softsign", N=32), ["y_ptr"],
        lambda a: {"y_ptr": a["x_ptr"] / (1 + np.abs(a["x_ptr"]))}, rtol=1e-6)
    diag(F, "diag_function_argument_undefined", K, "apply_fn_kernel", "*fp32, *fp32, @_no_such_fn, 32",
         expect=("name '_no_such_fn' is not defined",))
    for m in (4, 5):
        add(F, "constexpr_type_of_values_m%d" % m, K, "constexpr_type_kernel", (1,),
            dict(out_ptr=np.zeros(1, np.int32), strides=[np.array([7], np.int32), 1], N=4, M=m), ["out_ptr"],
            lambda a: {"out_ptr": np.array([11], np.int32)})

    # f-strings and str() of compile-time values
    for nbits, dt, udt in [(32, np.float32, np.uint32), (16, np.float16, np.uint16)]:
        x = rng(2900 + nbits).uniform(-4, 4, 8).astype(dt)
        add(F, "fstring_dtype_uint%d" % nbits, K, "fstring_dtype_kernel", (1,),
            dict(x_ptr=x, out_ptr=np.zeros(8, udt), N=8, NBITS=nbits, BIG=False), ["out_ptr"],
            lambda a, udt=udt: {"out_ptr": a["x_ptr"].view(udt)})
    diag(F, "diag_fstring_static_assert_message", K, "fstring_dtype_kernel", "*fp32, *u32, 8, 32, True",
         expect=("static assertion failed: N=8 is not big (uint32)",), line="tl.static_assert(N > 1024")
    diag(F, "diag_fstring_of_a_tensor", K, "fstring_tensor_kernel", "*fp32",
         expect=("Cannot evaluate f-string containing non-constexpr conversion values",), line='f"x={x}"')

    def many_names(a):
        x = a["x_ptr"].astype(np.float64)
        av = [x + 1]
        for _ in range(7):
            av.append(av[-1] + 1)
        bv = [av[7] * 2]
        for i in range(7):
            bv.append(bv[-1] + av[i])
        cv = [bv[7] - av[7]]
        for i in range(7):
            cv.append(cv[-1] - bv[i])
        dv = [cv[7] + cv[0]]
        for i in range(7):
            dv.append(dv[-1] + cv[i + 1])
        e1 = dv[7] + sum(dv[0:7]) + bv[7] + cv[7] + av[7]
        out = np.zeros(8, np.float32)
        out[:5] = e1[:5]
        return {"out_ptr": out}
    add(F, "many_live_names_after_early_return", K, "many_live_names_after_return_kernel", (8,),
        dict(x_ptr=rng(2910).integers(-50, 50, 8).astype(np.float32), out_ptr=np.zeros(8, np.float32), n=5),
        ["out_ptr"], many_names)

    # tl.target_info: False on the CPU; an NVIDIA chip (sm_80 and later here) is CUDA >= 8.0
    g = int(target().startswith("nvptx"))
    xt = np.linspace(-3, 3, 16).astype(np.float32)
    add(F, "target_info_answers_for_the_target", K, "target_info_kernel", (1,),
        dict(x_ptr=xt, flags_ptr=np.full(5, 7, np.int32), N=16), ["x_ptr", "flags_ptr"],
        lambda a, g=g: {"x_ptr": np.exp(a["x_ptr"].astype(np.float64)).astype(np.float32),
                        "flags_ptr": np.array([g, g, 0, 0, g], np.int32)}, rtol=1e-5)
    diag(F, "diag_target_info_current_target", K, "target_info_current_kernel", "*fp32",
         expect=("tl.target_info.current_target() is a host object",), line="current_target()")
    # a constexpr function that raises stops the compile with its message (Triton's str(e))
    add(F, "constexpr_function_returns_before_raise", K, "constexpr_function_raises_kernel", (1,),
        dict(x_ptr=np.array([2.75], np.float32), BITS=16), ["x_ptr"],
        lambda a: {"x_ptr": np.array([3.0], np.float32)})
    diag(F, "diag_constexpr_function_raises", K, "constexpr_function_raises_kernel", "*fp32, 7",
         expect=("no integer dtype of 7 bits",), line=line_of(K, 'raise ValueError(f"no integer dtype of {bits} bits")'))

    xd = np.array([1.5, -3.0, 7.25, 0.1, 448.0, -0.5, 2.0, 9.0], np.float32)
    add(F, "div_rn_fdiv_number_and_tile", K, "div_rn_number_kernel", (1,),
        dict(x_ptr=xd, out_ptr=np.zeros(8, np.float32), N=8), ["out_ptr"],
        lambda a: {"out_ptr": (np.float32(2688) / a["x_ptr"] + a["x_ptr"] / np.float32(4)) + a["x_ptr"] / np.float32(2)},
        rtol=1e-6)
