"""tilec.language's names and the compiler's agree: the Python modules are built from the
compiler's table (tilec._C.language_functions(): the front end's builtin registry and
prelude) and Triton's lists, and neither side may name a function the other lacks."""

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import _C
from tilec.language import _stubs
from tilec.language import math as tl_math
from tilec.language.extra import libdevice

TABLE = _C.language_functions()
KNOWN = {name for name, _, _ in TABLE}
GROUPS = {"core", "math", "tile", "atomic", "block", "descriptor", "debug", "api", "prelude"}


def _stubs_of(module):
    return {name for name, v in vars(module).items()
            if callable(v) and getattr(v, "__doc__", "") and "compiled by tilec" in (v.__doc__ or "")
            and getattr(v, "__tilec_path__", "").endswith("." + name)}


def test_compiler_table_shape():
    names = [n for n, _, _ in TABLE]
    assert names == sorted(names) and len(set(names)) == len(names) > 150
    assert {g for _, g, _ in TABLE} <= GROUPS
    row = {n: (g, why) for n, g, why in TABLE}
    assert row["load"] == ("core", None) and row["tanh"] == ("math", None) and row["sum"][0] == "tile"
    assert row["softmax"] == ("prelude", None)  # the prelude's function, not the row that refuses x.softmax()
    assert "not supported on CPU" in row["inline_asm_elementwise"][1]
    assert not any(n.startswith("_") for n in names)  # the prelude's private helpers are not the language


def test_every_compiler_function_can_be_imported_from_its_module():
    """The names issue 27 found missing (tl.sum; tl.math.tanh, pow, fmod, isnan, tan,
    log1p) and every other one the compiler knows."""
    tl_names = set(tl._TRITON_FUNCTIONS)
    for name, group, _ in TABLE:
        if group != "prelude" or name in tl_names:
            assert hasattr(tl, name), f"tl.{name}"
        else:
            assert hasattr(libdevice, name), f"libdevice.{name}"
        if group == "math":
            assert hasattr(tl_math, name) and hasattr(libdevice, name), name
    for name in ("sum", "add", "sub", "mul", "to_tensor", "map_elementwise", "atomic_load", "atomic_store"):
        assert callable(getattr(tl, name)), name
    for name in ("tanh", "pow", "fmod", "isnan", "tan", "log1p"):
        assert getattr(tl_math, name).__tilec_path__ == f"triton.language.math.{name}"


def test_every_stand_in_names_a_compiler_function():
    for module in (tl, tl_math):
        unknown = sorted(_stubs_of(module) - KNOWN)
        assert not unknown, f"{module.__name__}: stand-ins the compiler does not know: {unknown}"
    unknown = sorted(_stubs_of(libdevice) - KNOWN - set(libdevice.NOT_COMPILED))
    assert not unknown, unknown
    # NOT_COMPILED is CUDA's list minus the compiler's, nothing else
    assert set(libdevice.NOT_COMPILED) == set(libdevice._CUDA_NAMES) - {n for n, _, w in TABLE if w is None}
    assert all("is not supported" in getattr(libdevice, n).__doc__ for n in libdevice.NOT_COMPILED)


def test_triton_names_the_compiler_refuses_say_so():
    why = {n: w for n, _, w in TABLE if w}
    for name in ("inline_asm_elementwise", "dot_scaled", "atomic_poll"):
        assert why[name] in getattr(tl, name).__doc__
    with pytest.raises(RuntimeError, match=r"triton\.language\.load\(\) can only be called inside"):
        tl.load(0)


def _compile_error(source, kernel="k", signature="*fp32"):
    with pytest.raises(tilec.CompilationError) as info:
        _C.Compiler().emit(stage="tile", filename="k.py", source=source, kernel=kernel, signature=signature)
    return str(info.value)


@pytest.mark.parametrize("name", sorted(set(libdevice.NOT_COMPILED))[:3])
def test_a_libdevice_function_not_compiled_is_a_located_error(name):
    src = ("import triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n\n"
           f"@triton.jit\ndef k(x):\n    tl.store(x, libdevice.{name}(tl.load(x)))\n")
    assert f"libdevice function '{name}' is not supported" in _compile_error(src)


def test_every_compiler_function_resolves_in_a_kernel():
    """Each table name called as tl.NAME() reaches its row (an argument error or its
    refusal), never 'unknown function': the table is the front end's."""
    compiler = _C.Compiler()
    for name, group, _ in TABLE:
        src = (f"import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(x):\n"
               f"    tl.{name}()\n")
        try:
            compiler.emit(stage="tile", filename="k.py", source=src, kernel="k", signature="*fp32")
        except tilec.CompilationError as e:
            assert "unknown function" not in str(e), (name, str(e))
        except Exception as e:  # noqa: BLE001 - any other failure is a bug to report by name
            raise AssertionError(f"tl.{name}(): {type(e).__name__}: {e}") from e


@tilec.jit
def math_by_name_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tanh(x) + tl_math.log1p(x * x), mask=m)  # noqa: F821 - imported below
    tl.store(z_ptr + offs, tl.where(isnan(x / x), 1.0, 0.0) + tl.sum(x, 0) * 0.0, mask=m)  # noqa: F821


from tilec.language.math import isnan, tanh  # noqa: E402  (names the compiler's table added)


@pytest.mark.parametrize("n", [1, 7, 64])
def test_functions_imported_by_name_from_the_generated_modules_compile(n):
    x = np.linspace(-2, 2, n).astype(np.float32)
    x[0] = 0.0
    y, z = np.empty_like(x), np.empty_like(x)
    math_by_name_kernel[(1, )](x, y, z, n, BLOCK=64)
    np.testing.assert_allclose(y, np.tanh(x) + np.log1p(x * x), rtol=1e-5, atol=1e-6)
    assert np.array_equal(z, (x == 0).astype(np.float32))  # 0 / 0 is the only NaN


def test_stubs_refuse_host_calls():
    stub = _stubs.make_stub("triton.language.example", refusal="no reason")
    assert "no reason" in stub.__doc__
    with pytest.raises(RuntimeError, match="inside a @tilec.jit"):
        stub()
