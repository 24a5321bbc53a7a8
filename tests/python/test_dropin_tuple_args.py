"""Tuple and NamedTuple kernel arguments that are not tl.constexpr (Triton 3.x, issue 27): the
tuple is flattened into the kernel's arguments, each element specialized as Triton's
specialize_impl does for tuple elements (tensors with their alignment, ints by value with 1 a
constexpr, floats, bools, None and tl.constexpr values, nested tuples); inside the kernel
t[i], len(t), iteration, unpacking, nested tuples and a NamedTuple's fields work. Also
tl.tuple(...) and list comprehensions over tuples in kernels. References: numpy, and Triton's
python/test/unit/language/test_tuple.py shapes."""

from typing import NamedTuple

import numpy as np
import pytest

import tilec

tilec.install_triton()

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

torch = pytest.importorskip("torch")


@triton.jit
def _index_kernel(_0, Ptrs, _1: tl.constexpr, values, _2):
    # Triton's test_index: elements by a static_range index, len(), a comprehension in a helper
    values = _increment(values)
    for i in tl.static_range(len(values)):
        tl.store(Ptrs[i], values[i])


@triton.jit
def _increment(values):
    return tl.tuple([v + 1 for v in values])


@pytest.mark.parametrize("size", [0, 1, 2, 3, 5])
def test_tuple_of_pointers_and_ints(size):
    vals = tuple(i + 1 for i in range(size))
    rets = tuple(torch.zeros(1) for _ in vals)
    _index_kernel[(1,)](0, rets, 0, vals, 0)
    assert [r.item() for r in rets] == [v + 1 for v in vals]


@triton.jit
def _nested_kernel(Out, N1, t, cst: tl.constexpr, val, t2):
    # Triton's test_serialize: None, constexpr and 1 elements are compile-time values
    tl.static_assert(N1 is None)
    tl.static_assert(t[1][1] is None)
    tl.static_assert(t[1][3] == 4)
    tl.store(Out + 0, tl.load(t[0]))
    tl.store(Out + 1, t[1][0])
    tl.store(Out + 2, tl.load(t[1][2]))
    tl.store(Out + 3, cst + val)
    tl.store(Out + 4, tl.load(t2[0]))
    tl.store(Out + 5, len(t) * 10 + len(t[1]))


def test_nested_tuples():
    x0, x1, y0 = (torch.tensor([v], dtype=torch.int32) for v in (8, 12, 10))
    z = torch.zeros(6, dtype=torch.int32)
    _nested_kernel[(1,)](z, None, (x0, (1, None, x1, tl.constexpr(4))), 20, 1, (y0,))
    assert z.tolist() == [8, 1, 12, 21, 10, 24]


@triton.jit
def _assign_kernel(XPtrs, YPtrs, values):
    X0, X1 = XPtrs
    x0, x1, _ = values
    tl.store(X0, x0)
    tl.store(X1, x1)
    s = 0.0
    for p in YPtrs:
        tl.store(p, s)
        s += 1.5


def test_unpacking_and_iteration():
    x = tuple(torch.zeros(1) for _ in range(2))
    y = tuple(torch.full((1,), -1.0) for _ in range(3))
    _assign_kernel[(1,)](x, y, (2.0, 3.0, None))
    assert [t.item() for t in x] == [2.0, 3.0] and [t.item() for t in y] == [0.0, 1.5, 3.0]


class Tensor(NamedTuple):
    ptr: object
    shape: tuple
    stride: tuple


@triton.jit
def _mask(t, BM: tl.constexpr, BN: tl.constexpr):
    return (tl.arange(0, BM)[:, None] < t.shape[0]) & (tl.arange(0, BN)[None, :] < t.shape[1])


@triton.jit
def _namedtuple_kernel(X, Y, BM: tl.constexpr, BN: tl.constexpr):
    # a NamedTuple's fields by name, also in a helper; torch.Size / stride() tuples inside
    om = tl.arange(0, BM)[:, None]
    on = tl.arange(0, BN)[None, :]
    x = tl.load(X.ptr + om * X.stride[0] + on * X.stride[1], mask=_mask(X, BM, BN), other=0.0)
    tl.store(Y.ptr + om * Y.stride[0] + on * Y.stride[1], x * 2, mask=_mask(Y, BM, BN))


def test_namedtuple_fields():
    x = torch.randn(32, 32)
    y = torch.zeros(16, 24)
    _namedtuple_kernel[(1,)](Tensor(x, x.shape, x.stride()), Tensor(y, y.shape, y.stride()), 64, 64)
    torch.testing.assert_close(y, x[:16, :24] * 2, rtol=0, atol=0)
    # a transposed view: strides (1, 32) specialize differently and still compute
    xt = x.t()
    y.zero_()
    _namedtuple_kernel[(1,)](Tensor(xt, xt.shape, xt.stride()), Tensor(y, y.shape, y.stride()), 64, 64)
    torch.testing.assert_close(y, xt[:16, :24] * 2, rtol=0, atol=0)


@triton.jit
def _strides_kernel(X, shape: tl.constexpr, strides, m_n):
    # Triton's test_passing_tuple_with_constexpr: a runtime tuple next to a constexpr one
    xs = X + tl.arange(0, shape[0])[:, None] * strides[0] + tl.arange(0, shape[1])[None, :] * strides[1]
    data = tl.load(xs)
    for i in tl.range(0, m_n[1]):
        data = m_n[0] * data
    tl.store(xs, data)


def test_tuple_next_to_constexpr_tuple():
    x = torch.arange(0, 64).reshape(8, 8)
    want = 8 * x.clone()
    _strides_kernel[(1,)](x, x.shape, x.stride(), (2, 3))
    assert torch.equal(x, want)


def test_specialization_of_elements():
    # the elements' key: 1 is a constexpr (also under do_not_specialize: Triton specializes a
    # tuple's elements always), multiples of 16 get :16; the repr callback sees Triton's
    # signature of the tuple (the elements' types, "constexpr" for compile-time ones)
    seen = []

    def rep(spec):
        seen.append((spec.signature["t"], dict(spec.constants)))
        return "k"

    k = triton.jit(repr=rep, do_not_specialize=["t"])(_sum3.fn)
    out = torch.zeros(1, dtype=torch.int64)
    for t, want in (((1, 32, 5), 38), ((2, 32, 5), 39), ((2, 33, 5), 40), ((2, 34, 5), 41)):
        k[(1,)](t, out)
        assert out.item() == want
    assert seen == [(("constexpr", "i32", "i32"), {}),
                    (("i32", "i32", "i32"), {}), (("i32", "i32", "i32"), {})]
    assert len(k.cache) == 3  # (1, 32:16, 5), (2, 32:16, 5), (2, 33|34, 5)


@triton.jit
def _sum3(t, Out):
    tl.store(Out, t[0] + t[1] + t[2])


def test_bad_elements():
    out = torch.zeros(1, dtype=torch.int64)
    with pytest.raises(TypeError, match="argument 't'"):
        _sum3[(1,)]((1, "two", 3), out)
    with pytest.raises(TypeError, match="argument 't'"):
        _sum3[(1,)]((1, object(), 3), out)


@triton.jit
def _tuple_ops_kernel(Out):
    # Triton's test_eq / test_add: tl.tuple in a kernel
    tl.store(Out + 0, tl.tuple((1, 2)) == (1, 2))
    tl.store(Out + 1, tl.tuple((1, 2)) == (1, 3))
    t = tl.tuple((4, 5)) + (6, 7)
    for i in tl.static_range(4):
        tl.store(Out + 2 + i, t[i])


def test_tl_tuple_in_kernel():
    out = torch.zeros(6, dtype=torch.int32)
    _tuple_ops_kernel[(1,)](out)
    assert out.tolist() == [1, 0, 4, 5, 6, 7]


@triton.jit
def fn(Out):
    # a kernel named `fn` (Triton's test_eq): its library's symbols must not clash with the ABI's
    tl.store(Out, 3)


def test_kernel_named_fn():
    out = torch.zeros(1, dtype=torch.int32)
    fn[(1,)](out)
    assert out.item() == 3


def test_numpy_arrays_in_tuples():
    a = np.zeros(1, np.float32)
    b = np.zeros(1, np.float32)
    _assign_kernel[(1,)]((a, b), (np.zeros(1, np.float32),) * 3, (4.0, 5.0, None))
    assert a[0] == 4.0 and b[0] == 5.0


# ---- NamedTuples built in kernels, functions inside tuples, *args, the jit hooks --------------

class _Closure(NamedTuple):
    fn: tl.constexpr
    captured: tuple


class _View(NamedTuple):
    ptr: object
    shape: tuple
    stride: tuple = (1, 1)


@triton.jit
def _make_view(shape, ptr, stride):
    return _View(shape=shape, ptr=ptr, stride=stride)


@triton.jit
def _view_mask(v, BM: tl.constexpr, BN: tl.constexpr):
    return (tl.arange(0, BM)[:, None] < v.shape[0]) & (tl.arange(0, BN)[None, :] < v.shape[1])


@triton.jit
def _closure_kernel(closure, src, dst, BM: tl.constexpr, BN: tl.constexpr):
    # Triton's test_namedtuple: views rebuilt in the kernel (the global NamedTuple class, by
    # keyword), a @jit function carried in a tuple argument, its captured arguments by *args
    X = _make_view(src.shape, src.ptr, src.stride)
    Y = _View(dst.ptr, dst.shape, dst.stride)
    m = tl.arange(0, BM)[:, None]
    n = tl.arange(0, BN)[None, :]
    x = tl.load(X.ptr + m * X.stride[0] + n * X.stride[1], mask=_view_mask(X, BM, BN), other=0)
    y = closure.fn(x, *closure.captured)
    tl.store(Y.ptr + m * Y.stride[0] + n * Y.stride[1], y, mask=_view_mask(Y, BM, BN))


def test_namedtuple_built_in_kernel_with_function_in_tuple():
    @triton.jit
    def axpb(x, a_ptr, b):
        return x * tl.load(a_ptr) + b

    x = torch.randn((32, 32), generator=torch.Generator().manual_seed(7))
    y = torch.zeros((16, 16))
    a = torch.tensor([5.25])
    _closure_kernel[(1,)](_Closure(axpb, (a, 0.5)), _View(x, x.shape, x.stride()), _View(y, y.shape, y.stride()),
                          64, 64)
    # fp32 x * a + b (an fma or not) against float64: an ulp of the product's size apart at most
    np.testing.assert_allclose(y.numpy(), x[:16, :16].double().numpy() * 5.25 + 0.5, rtol=1e-6, atol=1e-5)


@triton.jit
def _default_field_kernel(out_ptr):
    v = _View(out_ptr, (4, 4))  # stride from the class's default
    tl.store(v.ptr + tl.arange(0, 4), v.stride[0] * 10 + v.shape[1] + tl.arange(0, 4))


def test_namedtuple_default_field_in_kernel():
    out = torch.zeros(4, dtype=torch.int32)
    _default_field_kernel[(1,)](out)
    assert out.tolist() == [14, 15, 16, 17]


@triton.jit
def _hooked_kernel(x, out_ptr):
    tl.static_assert(x[1][0] == 2)
    tl.store(out_ptr, x[0][0] + x[1][0])


def test_jit_cache_hooks_and_preload_of_a_tuple_specialization():
    seen = []

    def cache_hook(*args, **kwargs):
        seen.append(("cache", kwargs["compile"]["specialization_data"], kwargs["is_manual_warmup"]))

    def post_hook(*args, **kwargs):
        seen.append(("post", kwargs["fn"].jit_function is _hooked_kernel, kwargs["already_compiled"]))

    triton.knobs.runtime.jit_cache_hook = cache_hook
    triton.knobs.runtime.jit_post_compile_hook = post_hook
    try:
        _hooked_kernel.device_caches["cpu"][0].clear()
        out = torch.zeros(1, dtype=torch.int32)
        warm = _hooked_kernel.warmup(((1,), (tl.constexpr(2),)), out, grid=(1,))
        assert [s[0] for s in seen] == ["cache", "post"] and seen[0][2] is True and seen[1][1:] == (True, False)
        data = seen[0][1]
        _hooked_kernel.device_caches["cpu"][0].clear()
        pre = _hooked_kernel.preload(data)
        assert pre is not None and pre.hash == warm.hash
        # a cache hook returning True takes the compile: nothing compiles, nothing runs (and a
        # launch after a warmup is no warmup)
        warmups = []
        triton.knobs.runtime.jit_cache_hook = lambda **kw: warmups.append(kw["is_manual_warmup"]) or True
        _hooked_kernel.device_caches["cpu"][0].clear()
        assert _hooked_kernel[(1,)](((1,), (tl.constexpr(2),)), out) is None
        assert out.item() == 0 and warmups == [False]
    finally:
        triton.knobs.runtime.jit_cache_hook = None
        triton.knobs.runtime.jit_post_compile_hook = None
    _hooked_kernel[(1,)](((1,), (tl.constexpr(2),)), out)
    assert out.item() == 3
