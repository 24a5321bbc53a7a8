"""The module around a kernel: names resolve through the kernel's Python globals
(constexpr and dtype globals, @jit helpers from other modules, libdevice functions
imported by name, module aliases), kernels defined inside functions work, and
diagnostics point at the right file, line and column of each module."""

import inspect

import numpy as np
import pytest

import ctx_helpers
import kernels_context as kc
import tilec
import tilec.language as tl
from tilec import _globals


def _line(module, text):
    src, _ = inspect.getsourcelines(module)
    for i, line in enumerate(src):
        if text in line:
            return i + 1, line.rstrip("\n")
    raise AssertionError(text)


def test_context_entries():
    ctx = _globals.module_context(kc.helpers_kernel)
    assert ctx["source_kind"] == _globals.SOURCE_FUNCTIONS
    assert ctx["source"].startswith("def helpers_kernel(")
    assert ctx["first_line"] == _line(kc, "def helpers_kernel(")[0]
    g = {name: (kind, value, mod) for name, kind, value, mod in ctx["globals"]}
    assert g["tl"][:2] == (_globals.GLOBAL_MODULE, "triton.language")
    assert g["OFFSET"][:2] == (_globals.GLOBAL_CONSTEXPR, "10")
    assert g["plus_one"][:2] == (_globals.GLOBAL_FUNCTION, "plus_one")
    assert g["ts"][:2] == (_globals.GLOBAL_FUNCTION, "times_scale")
    assert g["h"][0] == _globals.GLOBAL_SOURCE_MODULE
    filename, source, kind, first, entries = ctx["modules"][g["ts"][2]]
    assert filename == ctx_helpers.__file__ and kind == _globals.SOURCE_FUNCTIONS
    assert source.startswith("def times_scale(x):")
    assert first == _line(ctx_helpers, "def times_scale(x):")[0]
    assert ("SCALE", _globals.GLOBAL_CONSTEXPR, "3", 0) in entries
    assert ctx["modules"][g["h"][2]][0] == ctx_helpers.__file__


def test_context_libdevice_and_dtype_entries():
    g = {e[0]: e for e in _globals.module_context(kc.libdevice_kernel)["globals"]}
    assert g["fast_rsqrt"][1:3] == (_globals.GLOBAL_OBJECT, "triton.language.extra.libdevice.rsqrt")
    assert g["libdevice"][1:3] == (_globals.GLOBAL_MODULE, "triton.language.extra.libdevice")
    g = {e[0]: e for e in _globals.module_context(kc.dtype_global_kernel)["globals"]}
    assert g["OUT_DT"][1:3] == (_globals.GLOBAL_OBJECT, "triton.language.float16")
    g = {e[0]: e for e in _globals.module_context(kc.plain_global_kernel)["globals"]}
    assert g["NOT_CONSTEXPR"][1:3] == (_globals.GLOBAL_PLAIN, "5")


def test_value_text():
    assert _globals.value_text(tl.constexpr(3)) == "3"
    assert _globals.value_text(1e-6) == "1e-06"
    assert _globals.value_text(True) == "True"
    assert _globals.value_text(None) == "None"
    assert _globals.value_text("leaky_relu") == "'leaky_relu'"
    assert _globals.value_text(tl.bfloat16) == "tl.bfloat16"
    assert _globals.value_text((2, 3)) == "(2, 3)"
    assert _globals.value_text((4,)) == "(4,)"
    assert _globals.value_text(object()) is None


def test_helpers_from_other_modules():
    x = np.arange(20, dtype=np.float32)
    out = np.zeros(20, np.float32)
    kc.helpers_kernel[(1,)](x, out, 20, BLOCK=32)
    np.testing.assert_array_equal(out, (x + 1) + 3 * x + (x + 1) + 10)


def test_libdevice_by_name():
    x = np.linspace(0.5, 4, 33, dtype=np.float32)
    out = np.zeros_like(x)
    kc.libdevice_kernel[(1,)](x, out, 33, BLOCK=64)
    np.testing.assert_allclose(out, 1 / np.sqrt(x) + np.sqrt(x), rtol=1e-6)


def test_dtype_global():
    x = np.linspace(-3, 3, 17, dtype=np.float32)
    out = np.zeros(17, np.float16)
    kc.dtype_global_kernel[(1,)](x, out, 17, BLOCK=32)
    np.testing.assert_array_equal(out, x.astype(np.float16))


def test_dtype_constexpr_argument():
    from kernels_native import dtype_kernel
    x = np.arange(8, dtype=np.float32) / 3
    out = np.zeros(8, np.float16)
    k = dtype_kernel[(1,)](x, out, 8, tl.float16, BLOCK=8)
    np.testing.assert_array_equal(out, x.astype(np.float16))
    assert "tl.float16" in k.signature or "fp16" in k.signature


def test_plain_global_is_an_error():
    out = np.zeros(1, np.int32)
    with pytest.raises(tilec.CompilationError, match="Cannot access global variable NOT_CONSTEXPR") as info:
        kc.plain_global_kernel[(1,)](out)
    lineno, line = _line(kc, "tl.store(out_ptr, NOT_CONSTEXPR)")
    assert info.value.filename == kc.__file__ and info.value.lineno == lineno and info.value.source_line == line


def test_assert_in_helper_points_at_the_helper_file():
    x = np.ones(1, np.float32)
    with pytest.raises(tilec.KernelError) as info:
        kc.helper_assert_kernel[(1,)](x, 0.0)
    lineno, line = _line(ctx_helpers, 'tl.device_assert(d != 0, "division by zero")')
    e = info.value
    assert (e.filename, e.lineno, e.source_line) == (ctx_helpers.__file__, lineno, line)
    assert "division by zero" in str(e)


def test_kernel_defined_inside_a_function():
    FACTOR = tl.constexpr(2)  # a closure variable: resolved like a global

    @tilec.jit
    def local_kernel(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * FACTOR + ctx_helpers.SCALE, mask=mask)

    x = np.arange(10, dtype=np.float32)
    local_kernel[(1,)](x, 10, BLOCK=16)
    np.testing.assert_array_equal(x, np.arange(10) * 2 + 3)


def test_error_in_a_nested_kernel_is_located_in_the_file():
    @tilec.jit
    def broken(x_ptr):
        tl.store(x_ptr, not_defined_anywhere)  # noqa: F821

    x = np.zeros(1, np.float32)
    with pytest.raises(tilec.CompilationError) as info:
        broken[(1,)](x)
    e = info.value
    src, first = inspect.getsourcelines(test_error_in_a_nested_kernel_is_located_in_the_file)
    lineno = first + next(i for i, line in enumerate(src) if "not_defined_anywhere)" in line)
    line = src[lineno - first].rstrip("\n")
    assert (e.filename, e.lineno) == (__file__, lineno)
    assert e.source_line == line
    assert e.col == line.index("not_defined_anywhere") + 1


def test_debug_info_names_each_file():
    x = np.ones(1, np.float32)
    k = kc.helper_assert_kernel.warmup(x, 1.0, grid=(1,))
    llvm = k.asm["llvm"]
    assert "kernels_context.py" in llvm and "ctx_helpers.py" in llvm


def test_function_without_source():
    ns = {"tl": tl}
    exec(compile("def nosrc(x_ptr):\n    tl.store(x_ptr, 1)\n", "<generated>", "exec"), ns)
    k = tilec.jit(ns["nosrc"])
    with pytest.raises(tilec.TilecError, match=r"cannot read the source of @jit function nosrc \(<generated>\)"):
        k[(1,)](np.zeros(1, np.int32))
