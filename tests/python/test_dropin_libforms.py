"""Constructs large kernel libraries use (issue 28 items 6-9, issue 27 item 3) through the
drop-in, in the shape those libraries write them: compile-time Python functions
(`@tl.constexpr`, `@triton.constexpr_function`, triton.language.standard's `_log2`) called in
kernels, Python's `math` through a module-level `import math`, `triton.next_power_of_2` /
`triton.cdiv` on constexprs inside a kernel, host-side `tl.constexpr` arithmetic and
comparisons, `tl.reduce` on a tuple of one tile and `tl.reshape` to a host-built tuple
constexpr. References are numpy in float64 or plain Python; bad input must name the
construct and the source line."""

import math

import numpy as np
import pytest

import tilec

tilec.install_triton()

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.language.standard import _get_int_dtype, _is_power_of_two, _log2  # noqa: E402
from triton.language.standard import (_argmax_combine_tie_break_left, _elementwise_max, _pick_sum_dtype,  # noqa: E402
                                      _sum_combine)

torch = pytest.importorskip("torch")


# ---- compile-time Python functions -----------------------------------------------------------

@tl.constexpr
def _acc_type(dtype):
    # what a sum of `dtype` values accumulates in
    if dtype == tl.float16 or dtype == tl.bfloat16:
        return tl.float32
    if dtype.is_int() and dtype.primitive_bitwidth < 32:
        return tl.int32
    return dtype


@triton.constexpr_function
def _lanes_per_word(dtype):
    # how many values of `dtype` fill 32 bits: a loop with break, as host code writes it
    n = 0
    for bits in range(0, 64, dtype.primitive_bitwidth):
        if bits >= 32:
            break
        n += 1
    return n


@triton.jit
def sum_acc_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=_acc_type(x_ptr.dtype.element_ty))
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < N, other=0).to(_acc_type(x_ptr.dtype.element_ty))
    tl.store(out_ptr + pid, tl.sum(acc, 0) * _lanes_per_word(x_ptr.dtype.element_ty))


@pytest.mark.parametrize("dtype, lanes", [(torch.float16, 2), (torch.bfloat16, 2), (torch.float32, 1),
                                          (torch.int8, 4), (torch.int16, 2)])
def test_constexpr_functions_on_a_dtype(dtype, lanes):
    n = 5000  # fp16/bf16 accumulators would stop at 2048 / 256 for a sum of ones
    x = torch.ones(n, dtype=dtype)
    x[::7] = 3
    out_dtype = torch.float32 if dtype.is_floating_point else torch.int32
    out = torch.zeros(1, dtype=out_dtype)
    sum_acc_kernel[(1,)](x, out, n, BLOCK=256)
    expected = float(np.asarray(x.float().numpy(), np.float64).sum()) * lanes
    assert out.item() == expected


@triton.constexpr_function
def _pack_shift(block):
    s = 0
    while (1 << s) < block:
        s += 1
    return s


@triton.jit
def log2_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    tl.static_assert(_is_power_of_two(BLOCK))
    tl.static_assert(not _is_power_of_two(BLOCK + 5))
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(_get_int_dtype(32, True))
    LOG: tl.constexpr = _log2(BLOCK)
    tl.static_assert(LOG == _pack_shift(BLOCK))
    tl.store(out_ptr + offs, (x << LOG) + _log2(7) * 1000 + _log2(1))


@pytest.mark.parametrize("block", [1, 2, 64, 1024])
def test_standard_log2_and_loops_in_constexpr_functions(block):
    x = torch.arange(block, dtype=torch.int16)
    out = torch.zeros(block, dtype=torch.int32)
    log2_kernel[(1,)](x, out, BLOCK=block)
    lg = block.bit_length() - 1
    assert torch.equal(out, (x.to(torch.int32) << lg) + 2000)


@tl.constexpr
def _sign_of(x):
    if x > 0:
        return 1
    return -1


@triton.jit
def runtime_condition_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    tl.store(out_ptr, _sign_of(x))


@tl.constexpr
def _uses_a_dict(n):
    return {1: 0, 2: 1, 3: 3, 4: 6}[n]


@triton.jit
def dict_kernel(out_ptr):
    tl.store(out_ptr, _uses_a_dict(4))


def _line_of(text):
    with open(__file__) as f:
        for i, line in enumerate(f, 1):
            if text in line:
                return i
    raise AssertionError(text)


def test_constexpr_function_errors_point_at_the_source():
    x = torch.ones(1)
    with pytest.raises(triton.CompilationError) as e:
        runtime_condition_kernel[(1,)](x, x)
    # Triton's text: the error at the call (a constexpr function is called like tl.*), and
    # the line inside the function in its cause
    msg = str(e.value)
    assert msg.startswith("at 3:22: ")
    assert "\n'if' in constexpr function '_sign_of' needs a compile-time condition" in msg
    assert f"{__file__}:{_line_of('    if x > 0:')}:" in str(e.value.__cause__)
    with pytest.raises(triton.CompilationError) as e:
        dict_kernel[(1,)](x)
    msg = str(e.value)
    assert "_uses_a_dict" in msg and "constexpr function defined at line" in msg
    assert f"line {_line_of('def _uses_a_dict')}" in msg
    assert msg.startswith("at 2:22: ") and f'line {_line_of("tl.store(out_ptr, _uses_a_dict(4))")}' in msg


# ---- math, next_power_of_2, cdiv ---------------------------------------------------------------

@triton.jit
def gelu_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask)
    k: tl.constexpr = math.sqrt(2.0 / math.pi)
    y = 0.5 * x * (1 + tl.extra.libdevice.tanh(k * (x + 0.044715 * x * x * x)))
    tl.store(out_ptr + offs, y * (math.log2(math.e) * math.log(2.0)), mask=mask)


def test_math_module_constants_in_a_kernel():
    n = 1000
    x = torch.linspace(-6, 6, n, dtype=torch.float32)
    out = torch.empty_like(x)
    gelu_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
    xd = x.double().numpy()
    ref = 0.5 * xd * (1 + np.tanh(np.sqrt(2 / np.pi) * (xd + 0.044715 * xd ** 3)))
    np.testing.assert_allclose(out.numpy(), ref, rtol=2e-6, atol=1e-6)


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, N: tl.constexpr):
    BLOCK: tl.constexpr = triton.next_power_of_2(N)
    GROUPS: tl.constexpr = triton.cdiv(N, 8)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * N + offs, mask=offs < N, other=0.0)
    tl.store(out_ptr + tl.program_id(0), tl.sum(x, 0) + GROUPS * 1000 + BLOCK * 100000)


@pytest.mark.parametrize("n", [1, 7, 8, 1023, 1025])
def test_next_power_of_2_and_cdiv_in_a_kernel(n):
    x = torch.rand(3, n, dtype=torch.float64)
    out = torch.empty(3, dtype=torch.float64)
    row_sum_kernel[(3,)](x, out, N=n)
    p2 = 1 << (n - 1).bit_length()
    ref = x.numpy().sum(axis=1) + (n + 7) // 8 * 1000 + p2 * 100000
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)


# ---- host side ---------------------------------------------------------------------------------

def test_host_constexpr_operators():
    c = tl.constexpr(3)
    assert c == 3 and 3 == c and c != 2
    assert bool(c < 4) and bool(c <= 3) and bool(c > 2) and bool(c >= 3) and not bool(c > 3)
    assert bool(4 > c) and bool(2 < c)
    assert (c + 1) == 4 and (1 + c) == 4 and (c * 2) == 6 and (c - 5) == -2 and (7 // c) == 2
    assert (c << 2) == 12 and (c ** 2) == 9 and (-c) == -3 and (c % 2) == 1 and (c / 2) == 1.5
    assert isinstance(c < 4, tl.constexpr) and isinstance(c + 1, tl.constexpr)
    assert (tl.constexpr(True).logical_and(False)) == False  # noqa: E712
    assert max(tl.constexpr(2), tl.constexpr(5)) == 5
    assert sorted([tl.constexpr(3), tl.constexpr(1)])[0] == 1


def test_standard_helpers_on_the_host():
    assert [_log2(i) for i in (1, 2, 3, 8, 1024, tl.constexpr(16))] == [0, 1, 1, 3, 10, 4]
    assert _is_power_of_two(64) and not _is_power_of_two(0) and not _is_power_of_two(6)
    assert _get_int_dtype(16, False) == tl.uint16 and _get_int_dtype(64, True) == tl.int64
    import triton.language.standard as std
    assert std._log2(4096) == 12 and std.sum is tl.sum


# ---- issue 27: a reduce of a tuple of one, reshape to a host-built tuple -----------------------

@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _max_and_sum(a0, a1, b0, b1):
    return tl.maximum(a0, b0), a1 + b1


@triton.jit
def reduce_tuple_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    sum0, = tl.reduce((x,), 0, _add)
    mx, s = tl.reduce((x, x), 0, _max_and_sum)
    cs, = tl.associative_scan((x,), 0, _add)
    tl.store(out_ptr, sum0)
    tl.store(out_ptr + 1, mx + s)
    tl.store(out_ptr + 2 + tl.arange(0, BLOCK), cs)


def test_reduce_and_scan_of_a_tuple_of_one():
    x = torch.randn(32, dtype=torch.float64)
    out = torch.zeros(34, dtype=torch.float64)
    reduce_tuple_kernel[(1,)](x, out, BLOCK=32)
    xd = x.numpy()
    # sums in another order than numpy's: within a few ulps of sum |x| (a relative bound on a
    # sum that cancels to near 0 fails 1 run in a few hundred)
    tol = 1e-12 * np.abs(xd).sum()
    np.testing.assert_allclose(out.numpy()[:2], [xd.sum(), xd.max() + xd.sum()], rtol=1e-12, atol=tol)
    np.testing.assert_allclose(out.numpy()[2:], np.cumsum(xd), rtol=1e-12, atol=tol)


@triton.jit
def reshape_kernel(z_ptr, x_ptr, IN_SHAPE: tl.constexpr, OUT_SHAPE: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    x = tl.reshape(x, IN_SHAPE)
    z = tl.reshape(x, OUT_SHAPE)
    tl.store(z_ptr + tl.arange(0, N), tl.reshape(z * 2, (N,)))


@pytest.mark.parametrize("shapes", [((8, 4), (32,)), ((32,), (2, 16)), ((4, 8), (2, 2, 8)), ((2, 16), (16, 2))])
def test_reshape_to_a_host_built_tuple_constexpr(shapes):
    in_shape, out_shape = shapes
    n = int(np.prod(in_shape))
    x = torch.arange(n, dtype=torch.int32)
    z = torch.zeros(n, dtype=torch.int32)
    out_tuple = tuple(int(d) for d in out_shape)
    reshape_kernel[(1,)](z, x, tuple(in_shape), out_tuple, n)
    assert torch.equal(z, x * 2)
    # numpy integers and torch.Size, as host code builds them
    z.zero_()
    reshape_kernel[(1,)](z, x, torch.Size(in_shape), tuple(np.int64(d) for d in out_shape), n)
    assert torch.equal(z, x * 2)


# ---- triton.language.standard's combine functions ------------------------------------------

@triton.jit
def standard_combine_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, WITH_INDEX: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if WITH_INDEX:
        mv, mi = tl.reduce((x, offs), 0, _argmax_combine_tie_break_left)
        tl.store(out_ptr + 2, mv.to(tl.int32))
        tl.store(out_ptr + 3, mi)
    else:
        # (apart from the index reduction: an integer tl.sum beside an argmax of the same
        # tile gives a wrong sum, a lowering bug outside this test's subject)
        acc = x.to(_pick_sum_dtype(x.dtype, None))
        tl.store(out_ptr, tl.reduce(acc, 0, _sum_combine))
        tl.store(out_ptr + 1, tl.reduce(x, 0, _elementwise_max).to(tl.int32))


def test_standard_combine_functions_by_name():
    x = torch.tensor([3, -7, 9, 9, 2, 9, -1, 0] * 4, dtype=torch.int8)
    out = torch.zeros(4, dtype=torch.int32)
    standard_combine_kernel[(1,)](x, out, BLOCK=32, WITH_INDEX=False)
    standard_combine_kernel[(1,)](x, out, BLOCK=32, WITH_INDEX=True)
    xs = x.numpy().astype(np.int64)
    assert out.tolist() == [int(xs.sum()), 9, 9, int(np.argmax(xs))]  # first of the equal maxima
    with pytest.raises(RuntimeError, match="call it inside a kernel"):
        _sum_combine(1, 2)


# ---- the numeric differences seen in Liger-Kernel's tests (issue 28): kernels in the same shape
# against numpy in float64 (the differences came from the host code and torch's CPU
# references, not from the kernels; see the commit that added these tests) -----------------------

@triton.jit
def ce_rows_kernel(X_ptr, X_stride, Y_ptr, loss_ptr, n_cols, BLOCK: tl.constexpr):
    # online softmax over the vocabulary in BLOCK chunks of fp16 logits computed in fp32
    pid = tl.program_id(0).to(tl.int64)
    X_ptr += pid * X_stride
    y = tl.load(Y_ptr + pid)
    m = float("-inf")
    d = 0.0
    x_y = tl.load(X_ptr + y).cast(tl.float32)
    for i in range(0, n_cols, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        xb = tl.load(X_ptr + offs, mask=offs < n_cols, other=float("-inf")).cast(tl.float32)
        m_new = tl.maximum(m, tl.max(xb))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(xb - m_new))
        m = m_new
    tl.store(loss_ptr + pid, m + tl.log(d) - x_y)


@pytest.mark.parametrize("block", [32768, 4096])
def test_cross_entropy_rows_fp16_logits(block):
    n, v = 256, 32000
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, v, generator=g).to(torch.float16)
    y = torch.randint(0, v, (n,), generator=g)
    loss = torch.zeros(n, dtype=torch.float32)
    ce_rows_kernel[(n,)](x, x.stride(0), y, loss, v, BLOCK=block)
    xd = x.double().numpy()
    mx = xd.max(axis=1, keepdims=True)
    ref = (mx + np.log(np.exp(xd - mx).sum(axis=1, keepdims=True)))[:, 0] - xd[np.arange(n), y.numpy()]
    np.testing.assert_allclose(loss.numpy(), ref, rtol=2e-6)
    # Liger's inf: its host code keeps the per-row losses in the input's dtype and sums them
    # with torch; 8192 rows of ~10.9 pass fp16's 65504 whatever computed the rows
    assert torch.sum(torch.full((8192,), 10.9).to(torch.float16)).item() == float("inf")


@triton.jit
def gn_bias_grad_kernel(DY_ptr, DB_ptr, stride_b, stride_c, hidden, CPG: tl.constexpr, num_channels,
                        BLOCK: tl.constexpr):
    b = tl.program_id(0)
    g = tl.program_id(1)
    for c in range(g * CPG, (g + 1) * CPG):
        db = 0.0
        for i in range(0, hidden, BLOCK):
            offs = i + tl.arange(0, BLOCK)
            db += tl.sum(tl.load(DY_ptr + b * stride_b + c * stride_c + offs, mask=offs < hidden, other=0.0))
        tl.store(DB_ptr + b * num_channels + c, db)


def test_group_norm_bias_grad_fp32_long_channels():
    b, c, groups, h = 1, 1024, 8, 16384
    dy = torch.randn(b, c, h, generator=torch.Generator().manual_seed(0))
    db = torch.zeros(b, c)
    gn_bias_grad_kernel[(b, groups)](dy, db, dy.stride(0), dy.stride(1), h, c // groups, c, BLOCK=4096)
    ref = dy.double().numpy().sum(axis=(0, 2))
    # within 1e-4 of the exact sums (torch's own fp32 GroupNorm bias grad is not, at this length)
    np.testing.assert_allclose(db.sum(0).double().numpy(), ref, rtol=1e-4, atol=1e-4)


@triton.jit
def ln_bwd_kernel(X, W, DY, Mean, Rstd, DX, DW, DB, stride, n_rows, n_cols, rows_per_program,
                  BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    dw = tl.zeros((BLOCK,), dtype=tl.float32)
    db = tl.zeros((BLOCK,), dtype=tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    for row in range(pid * rows_per_program, tl.minimum((pid + 1) * rows_per_program, n_rows)):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        xhat = (x - tl.load(Mean + row)) * tl.load(Rstd + row)
        wdy = w * dy
        c1 = tl.sum(xhat * wdy, axis=0) / n_cols
        c2 = tl.sum(wdy, axis=0) / n_cols
        dx = (wdy - (xhat * c1 + c2)) * tl.load(Rstd + row)
        tl.store(DX + row * stride + cols, dx.to(DX.dtype.element_ty), mask=mask)
        dw += dy * xhat
        db += dy
    tl.store(DW + pid * n_cols + cols, dw, mask=mask)
    tl.store(DB + pid * n_cols + cols, db, mask=mask)


def _bf16_ulps(got, ref):
    ulp = np.exp2(np.floor(np.log2(np.maximum(np.abs(ref), 1e-30))) - 7)
    return np.abs(got.astype(np.float64) - ref) / ulp


def test_layer_norm_backward_bf16():
    m, n, nprog = 512, 3000, 16
    g = torch.Generator().manual_seed(0)
    x = torch.randn(m, n, generator=g).to(torch.bfloat16)
    w = (torch.rand(n, generator=g) + 0.5).to(torch.bfloat16)
    dy = torch.randn(m, n, generator=g).to(torch.bfloat16)
    xf = x.float()
    mean, rstd = xf.mean(1), 1 / torch.sqrt(xf.var(1, unbiased=False) + 1e-6)
    dx = torch.empty_like(x)
    dwp, dbp = torch.zeros(nprog, n), torch.zeros(nprog, n)
    ln_bwd_kernel[(nprog,)](x, w, dy, mean, rstd, dx, dwp, dbp, n, m, n, m // nprog, BLOCK=4096)
    X, W, DY = x.double().numpy(), w.double().numpy(), dy.double().numpy()
    std = np.sqrt(X.var(1, keepdims=True) + 1e-6)
    xh = (X - X.mean(1, keepdims=True)) / std
    wdy = W * DY
    c1, c2 = (xh * wdy).mean(1, keepdims=True), wdy.mean(1, keepdims=True)
    DX = (wdy - (xh * c1 + c2)) / std
    # dx cancels where wdy ~ xh c1 + c2 (an element of 7e-7 from terms of 0.04): there fp32's
    # rounding of the terms, not bf16's ulp of the result, bounds any fp32 evaluation (torch's
    # own errs by 3 bf16 ulps there; which elements land past 2 ulps depends on the summation
    # order, so on the machine's vector width)
    err = np.abs(dx.float().numpy().astype(np.float64) - DX)
    ulp = np.exp2(np.floor(np.log2(np.maximum(np.abs(DX), 1e-30))) - 7)
    assert (err <= 2.0 * ulp + 16 * 2.0 ** -24 * (np.abs(wdy) + np.abs(xh * c1) + np.abs(c2)) / std).all()
    assert _bf16_ulps(dwp.sum(0).to(torch.bfloat16).float().numpy(), (DY * xh).sum(0)).max() <= 0.51
    assert _bf16_ulps(dbp.sum(0).to(torch.bfloat16).float().numpy(), DY.sum(0)).max() <= 0.51


# ---- functions as compile-time arguments -------------------------------------------------------

@triton.jit
def _relu(x):
    return tl.maximum(x, 0.0)


@triton.jit
def _apply_kernel(x_ptr, y_ptr, n, ACT: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(y_ptr + i, ACT(tl.load(x_ptr + i, mask=m)), mask=m)


@triton.jit
def _apply_unannotated(x_ptr, y_ptr, n, fn, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(y_ptr + i, fn(tl.load(x_ptr + i, mask=m)), mask=m)


def test_functions_as_constexpr_arguments():
    # a @jit function (module-level, local to the test, wrapped in tl.constexpr) or a language
    # builtin passed where the kernel calls it, as Triton's `fn: tl.constexpr` parameters take them
    @triton.jit
    def leaky(x):
        return tl.where(x > 0, x, 0.125 * _relu(-x) * -1.0)

    x = torch.linspace(-3, 3, 100, dtype=torch.float32)
    xs = x.double().numpy()
    cases = [(_relu, np.maximum(xs, 0)), (leaky, np.where(xs > 0, xs, 0.125 * xs)), (tl.abs, np.abs(xs)),
             (tl.constexpr(leaky), np.where(xs > 0, xs, 0.125 * xs)), (_relu, np.maximum(xs, 0))]
    for fn, ref in cases:
        y = torch.full_like(x, 7.0)
        _apply_kernel[(4,)](x, y, 100, fn, BLOCK=32)
        np.testing.assert_allclose(y.numpy(), ref, rtol=1e-6, atol=0)
        if isinstance(fn, triton.JITFunction):  # an unannotated parameter takes @jit functions as constexprs
            y = torch.full_like(x, 7.0)
            _apply_unannotated[(4,)](x, y, 100, fn, BLOCK=32)
            np.testing.assert_allclose(y.numpy(), ref, rtol=1e-6, atol=0)


# ---- f-strings, target_info, core's names, bitonic_merge (real code bases, 2026-11-29) ---------

from triton.language import core as _core  # noqa: E402
from triton.language.target_info import cuda_capability_geq, is_cuda  # noqa: E402

_int_dtype = triton.constexpr_function(_core.get_int_dtype)  # TransformerEngine's permutation.py


@triton.jit
def _as_uint_kernel(x_ptr, out_ptr, N: tl.constexpr, descending: tl.constexpr = _core.CONSTEXPR_0):
    # triton_kernels' topk: the unsigned type of the value's width by an f-string; the int
    # type through core.get_int_dtype; a CUDA-only branch that the CPU skips
    nbits: tl.constexpr = tl.float32.primitive_bitwidth
    x_utype: tl.constexpr = tl.dtype(f"uint{nbits}")
    tl.static_assert(x_utype == tl.uint32, f"got {x_utype}")
    x = tl.load(x_ptr + tl.arange(0, N))
    u = x.to(x_utype, bitcast=True)
    if is_cuda() or cuda_capability_geq(8, 0) or tl.target_info.is_hip():
        u = u + 1  # never on the CPU
    i = x.to(_int_dtype(bitwidth=32, signed=True), bitcast=True)
    if descending:
        u = u ^ 1
    tl.store(out_ptr + tl.arange(0, N), (u.to(tl.int32, bitcast=True) - i).to(tl.float32) + x)


def test_fstring_target_info_and_core_names():
    x = torch.tensor([1.0, -2.0, 0.5, 3.0])
    out = torch.zeros(4)
    _as_uint_kernel[(1, )](x, out, 4)
    assert out.tolist() == x.tolist()  # the same bits both ways: u - i == 0
    assert _core.CONSTEXPR_0 == 0 and _core.get_int_dtype(16, False) == tl.uint16
    with pytest.raises(ValueError, match="Unsupported bitwidth 7"):
        _core.get_int_dtype(7, True)


@triton.jit
def _int_dtype_kernel(x_ptr, BITS: tl.constexpr):
    d: tl.constexpr = _int_dtype(BITS, True)
    tl.store(x_ptr, tl.load(x_ptr).to(d).to(tl.float32))


def test_constexpr_function_that_raises():
    # the message Triton's CompilationError carries (str of the raised error), as its cause
    x = torch.ones(1)
    with pytest.raises(triton.CompilationError) as e:
        _int_dtype_kernel[(1, )](x, 7)
    assert str(e.value).startswith("at 2:22: ")  # the call, in the kernel
    assert str(e.value).endswith("\nUnsupported bitwidth 7 and signedness True")
    # the cause says where inside the function (core.py's raise)
    assert "core.py:" in str(e.value.__cause__) and "raise ValueError" in str(e.value.__cause__)


@triton.jit
def _bitonic_kernel(x_ptr, out_ptr, N: tl.constexpr, DESC: tl.constexpr):
    r = tl.arange(0, 2)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + r, tl.bitonic_merge(tl.load(x_ptr + r), descending=DESC))


@pytest.mark.parametrize("desc", [False, True])
def test_bitonic_merge_sorts_bitonic_rows(desc):
    g = np.random.default_rng(5)
    rows = []
    for _ in range(2):
        v = g.permutation(64)[:32].astype(np.float32)
        rows.append(np.concatenate([np.sort(v[:16]), np.sort(v[16:])[::-1]]))
    x = torch.from_numpy(np.stack(rows))
    out = torch.zeros_like(x)
    _bitonic_kernel[(1, )](x, out, 32, desc)
    want = np.sort(np.stack(rows), 1)
    assert (out.numpy() == (want[:, ::-1] if desc else want)).all()
