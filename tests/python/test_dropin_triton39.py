"""Triton 3.9 API of the drop-in that issue 27 found missing: tl.dtype by name and its
predicates, str_to_ty, PropagateNan and the kernel-side functions (tl.add, tl.sum,
tl.atomic_load, tl.map_elementwise, ...), JITFunction's 3.9 methods (_unsafe_update_src,
cache_key, add_pre_run_hook, preload, ...), Autotuner._bench's list and check_disk_cache,
the CPU's answers to triton.testing's GPU questions, runtime.cache, compiler,
AsyncCompileMode. References: numpy, Triton 3.9's documented results."""

import concurrent.futures
import json
import os
import platform

import numpy as np
import pytest

import tilec

tilec.install_triton()

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.language import PropagateNan  # noqa: E402
from triton.language.math import tanh as math_tanh  # noqa: E402

torch = pytest.importorskip("torch")


# ---- tl.dtype ----------------------------------------------------------------------------

def test_dtype_by_name_and_class_lists():
    assert tl.dtype("int8") == tl.int8 and hash(tl.dtype("int8")) == hash(tl.int8)
    assert tl.dtype(tl.constexpr("fp16")) == tl.float16 and tl.float16 == tl.constexpr(tl.float16)
    assert tl.dtype.SINT_TYPES == ["int8", "int16", "int32", "int64"]
    assert tl.dtype.UINT_TYPES == ["int1", "uint8", "uint16", "uint32", "uint64"]
    assert tl.dtype.STANDARD_FP_TYPES == ["fp16", "bf16", "fp32", "fp64"] and tl.dtype.OTHER_TYPES == ["void"]
    assert len(tl.dtype.FP_TYPES) == 9 and tl.dtype.is_dtype("fp8e5") and not tl.dtype.is_dtype("float16")
    with pytest.raises(ValueError, match="not a Triton type name"):
        tl.dtype("float7")
    for name in tl.dtype.SINT_TYPES + tl.dtype.UINT_TYPES + tl.dtype.FP_TYPES:
        d = tl.dtype(name)
        assert repr(d) == f"triton.language.{d.codegen_name()}" and getattr(tl, d.codegen_name()) == d
        assert d.itemsize == d.primitive_bitwidth // 8


def test_dtype_predicates_kind_and_mangling():
    names = tl.dtype.SINT_TYPES + tl.dtype.UINT_TYPES + tl.dtype.FP_TYPES
    for name in names:
        d = tl.dtype(name)
        for other in names:
            method = f"is_{other}" if not other.startswith("fp") else f"is_{other}"
            if hasattr(d, method):
                assert getattr(d, method)() == (name == other), (name, method)
    assert tl.int1.kind() == tl.dtype.KIND.BOOLEAN and tl.uint16.kind() == tl.dtype.KIND.INTEGRAL
    assert tl.bfloat16.kind() == tl.dtype.KIND.FLOATING
    assert tl.int1.is_int_unsigned() and tl.int1.is_bool() and not tl.int8.is_int_unsigned()
    assert [tl.int16.mangle(), tl.uint64.mangle(), tl.float8e4nv.mangle()] == ["i16", "u64", "fp8e4nv"]
    assert tl.pointer_type(tl.float32).mangle() == "Pfp32" and tl.float32.cache_key_part == "fp32"
    assert tl.float16.with_element_ty(tl.int8) is tl.int8
    blk = tl.block_type(tl.float32, [16, 4])
    assert blk.with_element_ty(tl.int8) == tl.block_type(tl.int8, [16, 4]) and blk.scalar == tl.float32
    assert blk.is_block() and blk.numel == 64 and blk.nbytes == 256 and blk.mangle() == "fp32S16_4S"
    with pytest.raises(ValueError, match="power of 2"):
        tl.block_type(tl.float32, [3])
    p = tl.pointer_type(tl.float16, const=True)
    assert p.is_ptr() and p.is_const() and str(p) == "const_pointer<fp16>" and p != tl.pointer_type(tl.float16)
    with pytest.raises(RuntimeError, match="Not implemented"):  # Triton 3.9's dtype.is_void()
        tl.void.is_void()


def test_str_to_ty_and_internal_testing_dtypes():
    assert tl.str_to_ty("i32", None) is tl.int32 and tl.str_to_ty("u1", None) is tl.int1
    assert tl.str_to_ty("*fp32", None) == tl.pointer_type(tl.float32)
    assert tl.str_to_ty("*kbf16", None) == tl.pointer_type(tl.bfloat16, const=True)
    assert tl.str_to_ty("constexpr", 5) == tl.constexpr_type(5)
    td = tl.str_to_ty("tensordesc<fp16[16, 32]>", None)
    assert isinstance(td, tl.tensor_descriptor_type) and td.block_type == tl.block_type(tl.float16, [16, 32])
    assert td.shape_type == tl.tuple_type([tl.int32] * 2) and str(td) == "tensor_descriptor<<(16, 32), fp16>>"
    assert tl.str_to_ty(("i32", "*fp16"), None) == tl.tuple_type([tl.int32, tl.pointer_type(tl.float16)])
    from triton._internal_testing import str_to_triton_dtype
    assert str_to_triton_dtype("int32") is tl.int32 and str_to_triton_dtype("bool") is tl.int1
    assert str_to_triton_dtype("float16") is tl.float16 and str_to_triton_dtype("bfloat16") is tl.bfloat16
    t = tl.tuple([1, 2.0])
    assert len(t) == 2 and t[1] == 2.0 and list(t[0:1]) == [1] and str(t.type) == "[constexpr_type[1],constexpr_type[2.0]]"
    assert tl.TRITON_MAX_TENSOR_NUMEL == 1048576 and int(PropagateNan.ALL) == 0xFFFF and PropagateNan.NONE == 0


# ---- kernel-side functions through the drop-in ------------------------------------------

@triton.jit
def _double(a, b):
    return a * 2 + b


@triton.jit
def api_functions_kernel(x_ptr, y_ptr, out_ptr, flag_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    s = tl.add(x, y)
    d = tl.sub(x, y)
    p = tl.mul(x, tl.to_tensor(3))
    e = tl.map_elementwise(_double, x, y)
    mx = tl.maximum(x, y, propagate_nan=PropagateNan.ALL)
    big = tl.TRITON_MAX_TENSOR_NUMEL // 1024
    tl.store(out_ptr + offs, s, mask=m)
    tl.store(out_ptr + BLOCK + offs, d, mask=m)
    tl.store(out_ptr + 2 * BLOCK + offs, p, mask=m)
    tl.store(out_ptr + 3 * BLOCK + offs, e, mask=m)
    tl.store(out_ptr + 4 * BLOCK + offs, mx + big, mask=m)
    tl.store(out_ptr + 5 * BLOCK + offs, math_tanh(x) + tl.sum(x, 0), mask=m)
    old = tl.atomic_load(flag_ptr)
    tl.atomic_store(flag_ptr + 1, old + 1.5)


@pytest.mark.parametrize("n", [1, 7, 32])
def test_kernel_side_api_functions(n):
    BLOCK = 32
    x = torch.linspace(-1, 1, n)
    y = torch.rand(n)
    y[0] = float("nan")
    out = torch.zeros(6 * BLOCK)
    flag = torch.tensor([2.0, 0.0])
    api_functions_kernel[(1, )](x, y, out, flag, n, BLOCK=BLOCK)
    o = out.view(6, BLOCK)[:, :n]
    torch.testing.assert_close(o[0], x + y, equal_nan=True)
    torch.testing.assert_close(o[1], x - y, equal_nan=True)
    torch.testing.assert_close(o[2], x * 3)
    torch.testing.assert_close(o[3], x * 2 + y, equal_nan=True)
    assert torch.isnan(o[4][0])  # PropagateNan.ALL: a NaN operand wins
    torch.testing.assert_close(o[4][1:], torch.maximum(x, y)[1:] + 1024)
    torch.testing.assert_close(o[5], torch.tanh(x) + x.sum(), rtol=1e-5, atol=1e-5)
    assert flag.tolist() == [2.0, 3.5]


# ---- JITFunction -------------------------------------------------------------------------

def _make_kernel():
    @triton.jit
    def patched_kernel(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)

    return patched_kernel


def test_unsafe_update_src_and_cache_key():
    k = _make_kernel()
    x = torch.zeros(8)
    key = k.cache_key
    assert isinstance(key, str) and len(key) == 64 and k.cache_key == key and k.hash == key
    assert _make_kernel().cache_key == key  # the same source, globals and line: the same key
    k[(1, )](x, 8, BLOCK=8)
    assert x.tolist() == [1.0] * 8
    k._unsafe_update_src(k.src.replace("+ 1.0", "+ 5.0"))
    assert k.hash is None and k.cache_key != key
    k[(1, )](x, 8, BLOCK=8)
    assert x.tolist() == [6.0] * 8
    k.src = k.src.replace("+ 5.0", "- 1.0")  # earlier Triton's way, still accepted
    k[(1, )](x, 8, BLOCK=8)
    assert x.tolist() == [5.0] * 8


def test_cache_key_covers_helpers_and_constexpr_globals():
    import types
    mod = types.ModuleType("ck_mod")
    code = ("import triton\nimport triton.language as tl\nSCALE = tl.constexpr({s})\n\n"
            "@triton.jit\ndef helper(x):\n    return x * SCALE\n\n"
            "@triton.jit\ndef kern(p):\n    tl.store(p, helper(tl.load(p)))\n")
    keys = []
    for s in (2, 3):
        path = os.path.join(os.environ["TILEC_CACHE_DIR"], f"ck_mod_{s}.py")
        with open(path, "w") as f:
            f.write(code.format(s=s))
        mod.__file__ = path
        exec(compile(code.format(s=s), path, "exec"), mod.__dict__)
        keys.append(mod.kern.cache_key)
    assert keys[0] != keys[1]


def test_jit_function_introspection():
    k = _make_kernel()
    assert k.parse().body[0].name == "patched_kernel" and k.is_gluon() is False
    assert k.type == tl.constexpr_type(k)
    assert k.repr(None) == f"{__name__}._make_kernel.<locals>.patched_kernel"
    offset = 3

    @triton.jit
    def closure_kernel(x):
        tl.store(x, offset)

    scope = closure_kernel.get_capture_scope()
    assert scope["offset"] == 3 and scope["triton"] is triton
    named = triton.jit(repr=lambda spec: f"named_{spec.name}")(closure_kernel.fn)
    assert named.repr(type("S", (), {"name": "k"})()) == "named_k"


def test_pre_run_hooks_see_each_launch():
    k = _make_kernel()
    seen = []
    k.add_pre_run_hook(lambda *args, **kwargs: seen.append((len(args), kwargs["BLOCK"], kwargs["debug"])))
    x = torch.zeros(4)
    k[(1, )](x, 4, BLOCK=4)
    k.warmup(x, 4, BLOCK=8, grid=(1, ))
    assert seen == [(2, 4, False), (2, 8, False)] and x.tolist() == [1.0] * 4
    with pytest.raises(TypeError, match="must be callable"):
        k.add_pre_run_hook(3)


def test_preload_compiles_tritons_specialization_data():
    k = _make_kernel()
    target = {"backend": "cpu", "arch": platform.machine(), "warp_size": 1}
    data = {"name": k._fn_name, "signature": {"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
            "constant_keys": [[2]], "constant_vals": [16], "attrs_keys": [[0], [1]],
            "attrs_vals": [[["tt.divisibility", 16]], []], "options": {"num_warps": 4}, "key": "k",
            "target": target}
    kernel = k.preload(json.dumps(data))
    assert kernel.signature == "*fp32:16, i32, 16"
    with pytest.raises(RuntimeError, match="Specialization data is for"):
        k.preload(json.dumps(dict(data, target=dict(target, backend="cuda"))))
    with pytest.raises(RuntimeError, match="Specialization data is for other"):
        k.preload(json.dumps(dict(data, name="other")))


PTR_I32 = tl.pointer_type(tl.int32)  # a dtype global: Triton 3.9 lets kernels read it
PTR_PTR_F16 = tl.pointer_type(tl.pointer_type(tl.float16))


@triton.jit
def pointer_type_global_kernel(x_ptr, out_ptr):
    tl.static_assert(PTR_I32 == tl.pointer_type(tl.int32))
    r = 0
    if x_ptr.dtype == PTR_I32:
        r += 1
    if PTR_PTR_F16.element_ty.element_ty == tl.float16:
        r += 2
    tl.store(out_ptr, r)


def test_pointer_type_globals():
    out = torch.zeros(1, dtype=torch.int32)
    pointer_type_global_kernel[(1, )](torch.zeros(2, dtype=torch.int32), out)
    assert out.item() == 3
    pointer_type_global_kernel[(1, )](torch.zeros(2), out)
    assert out.item() == 2


@triton.jit
def typed_fill_kernel(out_ptr, n, value, DT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.full((BLOCK, ), value, DT), mask=offs < n)


def test_compile_of_an_ast_source_without_a_launch():
    # Triton's signature / constexprs forms: constexprs by name or by path, attrs' divisibility
    src = triton.compiler.ASTSource(fn=typed_fill_kernel, signature={"out_ptr": "*fp16", "n": "i32",
                                                                     "value": "fp32", "DT": "constexpr",
                                                                     "BLOCK": "constexpr"},
                                    constexprs={"DT": tl.float16, (4, ): 32}, attrs={(0, ): [["tt.divisibility", 16]]})
    assert src.constants == {(3, ): tl.float16, (4, ): 32} and len(src.hash()) == 64
    kernel = triton.compile(src)
    assert kernel.signature == "*fp16:16, i32, fp32, tl.float16, 32"
    assert kernel.asm["llir"] and kernel.metadata.name == "typed_fill_kernel"
    out = torch.zeros(32, dtype=torch.float16)
    kernel[(1, )](out, 20, 2.5, tl.float16, 32)
    assert out.tolist() == [2.5] * 20 + [0.0] * 12
    # options, and the drop-in's own CPU target
    target = triton.runtime.driver.active.get_current_target()
    src64 = triton.compiler.ASTSource(fn=typed_fill_kernel, signature=src.signature,
                                      constexprs={"DT": tl.float32, "BLOCK": 64})
    assert triton.compile(src64, target=target, options={"num_warps": 8}).metadata.num_warps == 8


@triton.jit
def _err_inner(x):
    y = x + 1
    return tl.reshape(y, (3, ))


@triton.jit
def _err_outer(x_ptr):
    # a comment: the call is on line 3 of the function
    _err_inner(tl.load(x_ptr + tl.arange(0, 4)))


def test_compile_error_chain_is_tritons():
    # Triton's exceptions: the call site in the kernel, raised from the error in the helper
    # (`at LINE:COL:` relative to each function's def, COL 0-based), raised from what the
    # tl.* function said
    with pytest.raises(triton.CompilationError) as e:
        triton.compile(triton.compiler.ASTSource(fn=_err_outer, signature={"x_ptr": "*fp32"}))
    outer, inner = e.value, e.value.__cause__
    assert str(outer).startswith("at 3:4: ") and outer.error_message is None
    assert str(outer).endswith("    _err_inner(tl.load(x_ptr + tl.arange(0, 4)))\n    ^")
    assert isinstance(inner, triton.CompilationError) and str(inner).startswith("at 3:11: ")
    assert "def _err_inner(x):\n    y = x + 1\n    return tl.reshape(y, (3, ))\n           ^\n" in str(inner)
    assert str(inner.__cause__) == "Shape element 0 must be a power of 2" == inner.error_message
    assert [f[0] for f in outer.frames] == ["_err_outer"] and [f[0] for f in inner.frames] == ["_err_inner", "_err_outer"]

    @triton.jit
    def assert_kernel(x_ptr, N: tl.constexpr):
        tl.static_assert(N < 4, "N too large")

    with pytest.raises(triton.compiler.errors.CompileTimeAssertionFailure) as e:
        triton.compile(triton.compiler.ASTSource(fn=assert_kernel, signature={"x_ptr": "*fp32", "N": "constexpr"},
                                                 constexprs={"N": 8}))
    assert e.value.__cause__ is None and str(e.value).startswith("at 2:4: ")
    # not every compile error is an assertion failure
    with pytest.raises(triton.CompilationError) as e:
        triton.compile(triton.compiler.ASTSource(fn=_err_outer, signature={"x_ptr": "*fp32"}))
    assert not isinstance(e.value, triton.compiler.errors.CompileTimeAssertionFailure)


@triton.jit
def _warning_kernel(x_ptr, y_ptr, FLAG: tl.constexpr):
    a = tl.load(y_ptr + tl.arange(0, 16))
    b = tl.where(a, 1.0, 2.0)
    c = a << 40  # noqa: F841 - past int32's width: a warning, the value unused
    tl.store(x_ptr + tl.arange(0, 16), b)


def test_front_end_warnings_are_user_warnings(tmp_path, monkeypatch):
    # Triton's compile-time UserWarnings, at the kernel's line; a kernel loaded from the disk
    # cache (a new process) shows them again, one compiled in this process does not repeat
    import subprocess
    import sys
    import warnings

    x, y = torch.zeros(16), torch.ones(16, dtype=torch.int32)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        _warning_kernel[(1, )](x, y, 1)
    assert [(str(w.message), w.category, w.filename) for w in got] == [
        ("tl.where with a non-boolean condition is deprecated and will error out in a future triton release. Got int32",
         UserWarning, __file__),
        ("Value 40 exceeds the maximum bitwidth (32) for type 'int32'. This may result in undefined behavior.",
         UserWarning, __file__)]
    assert got[1].lineno == got[0].lineno + 1
    assert x.tolist() == [1.0] * 16
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        _warning_kernel[(1, )](x, y, 1)  # compiled already: no front end, no warning
    assert got == []
    script = tmp_path / "k.py"
    script.write_text("import warnings\nimport triton\nimport triton.language as tl\nimport torch\n\n"
                      "@triton.jit\ndef k(x_ptr):\n    x = tl.load(x_ptr + tl.arange(0, 8))\n"
                      "    tl.store(x_ptr + tl.arange(0, 8), tl.where(x, x, 2))\n\n"
                      "warnings.simplefilter('always')\nk[(1, )](torch.ones(8, dtype=torch.int32))\n")
    env = dict(os.environ, TILEC_TRITON="1", TILEC_CACHE_DIR=str(tmp_path / "cache"))
    for _ in range(2):  # compiled, then loaded from the disk cache
        r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert f"{script}:9: UserWarning: tl.where with a non-boolean condition is deprecated" in r.stderr, r.stderr


def test_compile_errors_of_an_ast_source():
    @triton.jit
    def bad_kernel(x_ptr):
        tl.store(x_ptr + tl.arange(0, 12), 1.0)

    with pytest.raises(triton.CompilationError) as e:
        triton.compile(triton.compiler.ASTSource(fn=bad_kernel, signature={"x_ptr": "*fp32"}))
    assert str(e.value.__cause__) == "arange's range must be a power of 2"
    with pytest.raises(RuntimeError, match="no type for parameter 'n'"):
        triton.compile(triton.compiler.ASTSource(fn=typed_fill_kernel, signature={"out_ptr": "*fp32"}))
    with pytest.raises(RuntimeError, match="no value for constexpr parameter 'DT'"):
        triton.compile(triton.compiler.ASTSource(fn=typed_fill_kernel, signature={
            "out_ptr": "*fp32", "n": "i32", "value": "fp32", "DT": "constexpr", "BLOCK": "constexpr"}))
    with pytest.raises(TypeError, match="Signature keys must be string"):
        triton.compiler.ASTSource(fn=bad_kernel, signature={0: "*fp32"})
    with pytest.raises(TypeError, match="must be a @triton.jit function"):
        triton.compiler.ASTSource(fn=print, signature={})
    with pytest.raises(NotImplementedError, match="IRSource"):
        triton.compile("kernel.ttgir")
    with pytest.raises(NotImplementedError, match="compiles for the CPU"):
        triton.compile(triton.compiler.ASTSource(fn=bad_kernel, signature={"x_ptr": "*fp32"}),
                       target=triton.backends.compiler.GPUTarget("cuda", 90, 32))


# ---- autotuner ---------------------------------------------------------------------------

@triton.jit
def tuned_body(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


class RecordingAutotuner(triton.runtime.Autotuner):
    """A library's subclass: keeps what _bench returns per config (Triton's quantiles)."""

    def _bench(self, *args, config, **meta):
        result = super()._bench(*args, config=config, **meta)
        self.recorded[config.kwargs["BLOCK"]] = result
        return result


def test_bench_returns_tritons_quantiles_to_a_subclass():
    configs = [triton.Config({"BLOCK": b}) for b in (16, 64)]
    bench = lambda kernel_call, quantiles: (kernel_call(), [float(len(quantiles)), 0.5, 2.0])[1]  # noqa: E731
    tuner = RecordingAutotuner(tuned_body, tuned_body.arg_names, configs, key=["n"], reset_to_zero=None,
                               restore_value=None, do_bench=bench)
    tuner.recorded = {}
    x = torch.zeros(100)
    tuner[lambda m: (triton.cdiv(100, m["BLOCK"]), )](x, 100)
    assert tuner.recorded == {16: [3.0, 0.5, 2.0], 64: [3.0, 0.5, 2.0]}
    # without a do_bench= the subclass's _bench is still called per config (not bypassed)
    tuner2 = RecordingAutotuner(tuned_body, tuned_body.arg_names, configs, key=["n"], reset_to_zero=None,
                                restore_value=None)
    tuner2.recorded = {}
    tuner2[lambda m: (triton.cdiv(100, m["BLOCK"]), )](x, 100)
    assert set(tuner2.recorded) == {16, 64}
    assert all(isinstance(v, list) and len(v) == 3 for v in tuner2.recorded.values())


def test_check_disk_cache_follows_tritons_protocol():
    configs = [triton.Config({"BLOCK": b}) for b in (16, 64)]
    tuner = triton.autotune(configs, key=["n"])(tuned_body)
    tuner.nargs = {"x_ptr": None, "n": 5}
    ran = []

    def bench():
        ran.append(1)
        tuner.configs_timings = {configs[0]: [2.0, 1.0, 3.0], configs[1]: [1.0, 0.5, 1.5]}
        tuner.cache[("check", 5)] = configs[1]

    assert tuner.check_disk_cache(("check", 5), configs, bench) is False and ran == [1]
    tuner.cache.clear()
    assert tuner.check_disk_cache(("check", 5), configs, bench) is True and ran == [1]
    assert tuner.cache[("check", 5)] == configs[1] and tuner.configs_timings[configs[0]] == [2.0, 1.0, 3.0]
    hooked = [triton.Config({"BLOCK": 16}, pre_hook=lambda a: None)]
    assert tuner.check_disk_cache(("check", 5), hooked, bench) is False and ran == [1, 1]


# ---- runtime, driver, libtriton ------------------------------------------------------------

def test_driver_and_libtriton_answers_for_the_cpu():
    from triton._C.libtriton import get_cache_invalidating_env_vars, llvm
    from triton.runtime.driver import DriverBase
    assert isinstance(llvm.get_cpu_features(), set)
    os.environ["TILEC_CHECK_BOUNDS"] = "0"
    try:
        assert get_cache_invalidating_env_vars()["TILEC_CHECK_BOUNDS"] == "0"
    finally:
        del os.environ["TILEC_CHECK_BOUNDS"]
    assert triton.runtime.driver.get_active_gpus() == []
    drv = triton.runtime.driver.active
    assert isinstance(drv, DriverBase) and drv.map_python_to_cpp_type("*fp16") == "void *"
    assert drv.map_python_to_cpp_type("i64") == "int64_t"
    assert triton.compiler.max_shared_mem(0) == drv.utils.get_device_properties(0)["max_shared_mem"]
    lazy = triton.compiler.LazyDict({"a": 1})
    lazy.add(lambda k: {k: 2}, ("b", ))
    assert lazy.get() == {"a": 1, "b": 2}
    from triton.language import target_info
    assert target_info.current_target().backend == "cpu" and not target_info.is_cuda()
    assert not target_info.cuda_capability_geq(8) and not target_info.is_hip_cdna3()
    assert tl.math.core is tl.core or tl.math.core.constexpr is tl.constexpr


def test_runtime_cache(tmp_path):
    from triton.runtime.cache import FileCacheManager, _base32, get_cache_manager, triton_key
    key = triton_key()
    assert key.startswith(f"3.9.0-tilec-{tilec.__version__}-") and key == triton_key()
    triton.knobs.cache.dir = str(tmp_path)
    try:
        m = get_cache_manager("ab" * 32)
        assert isinstance(m, FileCacheManager) and m.cache_dir == str(tmp_path / _base32("ab" * 32))
        assert m.get_file("x.json") is None
        path = m.put('{"a": 1}', "x.json")
        assert m.get_file("x.json") == path and open(path).read() == '{"a": 1}'
        m.put(b"\x00\x01", "b.bin")
        m.put_group("g", {"x.json": path})
        assert m.get_group("g") == {"x.json": path} and m.get_group("missing") is None
    finally:
        triton.knobs.cache.dir = None


def test_tensor_descriptor_helpers():
    from triton.tools.tensor_descriptor import canonicalize_dtype, validate_block_shape
    assert canonicalize_dtype(torch.float16) == "fp16" and canonicalize_dtype(torch.bool) == "u1"
    assert validate_block_shape([16, 32]) == 512
    with pytest.raises(ValueError, match="power of 2"):
        validate_block_shape([16, 3])
    with pytest.raises(ValueError, match="exceeds triton maximum tensor numel"):
        validate_block_shape([2048, 1024])


def test_async_compile_mode():
    k = _make_kernel()
    x = torch.zeros(4)
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        with triton.AsyncCompileMode(ex) as mode:
            compiled = k.warmup(x, 4, BLOCK=4, grid=(1, ))
            fk = mode.submit("key", lambda: 42, lambda v: None, lambda f: None)
            assert mode.submit("key", lambda: 0, None, None) is fk
            with pytest.raises(RuntimeError, match="already active"):
                triton.AsyncCompileMode(ex).__enter__()
        assert fk.result() == 42 and isinstance(fk, triton.FutureKernel)
    assert compiled.signature.startswith("*fp32")
    k[(1, )](x, 4, BLOCK=4)
    assert x.tolist() == [1.0] * 4


def test_internal_testing_process_pool():
    from triton._internal_testing import backends, run_in_process, use_process_pool
    assert backends == {}
    with use_process_pool("json") as pool:
        r = run_in_process(lambda: (_ for _ in ()).throw(ValueError("boom")))
        assert isinstance(r.exc, ValueError) and pool.started
    assert run_in_process(lambda: None).exc is None


# ---- triton.testing's GPU questions ----------------------------------------------------------

def test_testing_answers_for_the_cpu():
    from tilec import _cpu
    t = triton.testing
    lanes = _cpu.vector_bits() // 32
    peak = t.get_max_simd_tflops(torch.float32, 2_000_000)
    assert peak == pytest.approx(_cpu.num_cores() * 2_000_000 * 2 * lanes * 2 * 1e-9)
    assert t.get_max_simd_tflops(torch.bfloat16, 2_000_000) == peak
    assert t.get_max_tensorcore_tflops(torch.float32, 2_000_000) == peak
    assert t.get_max_tensorcore_tflops(torch.int8, 2_000_000) in (peak, 4 * peak)
    with pytest.raises(RuntimeError, match="dtype not supported"):
        t.get_max_simd_tflops(torch.int64, 1)
    assert 0.5 < t.get_dram_gbps() < 10_000 and t.get_dram_gbps() == t.get_dram_gbps()
    assert t.nvsmi(["clocks.max.sm"]) == [_cpu.clock_khz() // 1000]
    with pytest.raises(ValueError, match="'memory.used' has no counterpart on the CPU"):
        t.nvsmi(["memory.used"])
    assert t.cublas() is None and t.tl is tl
    assert t.do_bench_proton(lambda: None, warmup=1, rep=2) >= 0
    assert len(t.do_bench_cudagraph_proton(lambda: None, rep=2, quantiles=[0.5, 0.2])) == 2


@triton.jit
def oob_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)


def test_cuda_memcheck_checks_bounds_on_the_cpu():
    x = torch.zeros(2)

    @triton.testing.cuda_memcheck(check=True)
    def run(check):
        oob_kernel[(1, )](x, BLOCK=4)

    with pytest.raises(tilec.KernelError, match="out of bounds"):
        run(check=True)
    assert "TILEC_CHECK_BOUNDS" not in os.environ


# ---- Triton's runtime checks: used_global_vals, warmup dtypes, launch options in the key ----

_WATCHED = tl.constexpr(1)
_WATCHED_DTYPE = tl.int32


@triton.jit
def _reads_globals_kernel(x_ptr):
    tl.store(x_ptr, tl.full((), _WATCHED, _WATCHED_DTYPE).to(tl.float32))


def test_changed_global_is_a_runtime_error():
    # Triton 3.9's used_global_vals: a launch after a global the kernel read changed raises,
    # instead of running the kernel compiled with the old value
    global _WATCHED, _WATCHED_DTYPE
    x = torch.zeros(1)
    _reads_globals_kernel[(1, )](x)
    assert x.item() == 1.0
    assert {name for name, _ in _reads_globals_kernel.used_global_vals} == {"_WATCHED", "_WATCHED_DTYPE"}
    try:
        _WATCHED = tl.constexpr(2)
        with pytest.raises(RuntimeError, match="Global variable _WATCHED has changed since we compiled this kernel, "
                                               r"from constexpr\[1\] to constexpr\[2\]"):
            _reads_globals_kernel[(1, )](x)
        _WATCHED = tl.constexpr(1)
        _reads_globals_kernel[(1, )](x)  # the same value again: fine
        _WATCHED_DTYPE = tl.int64
        with pytest.raises(RuntimeError, match="_WATCHED_DTYPE has changed"):
            _reads_globals_kernel[(1, )](x)
    finally:
        _WATCHED, _WATCHED_DTYPE = tl.constexpr(1), tl.int32
    # attribute names (tl.store, x.to) are not globals: a module global `store` is not watched
    assert "store" not in {name for name, _ in _reads_globals_kernel.used_global_vals}


@triton.jit
def _typed_add_kernel(a, o, N: tl.constexpr, T: tl.constexpr):
    idx = tl.arange(0, N)
    tl.store(o + idx, tl.load(a + idx).to(T))


def test_warmup_dtype_at_a_constexpr_parameter_is_the_dtype():
    # a dtype stands for a tensor of it, except at a constexpr parameter (Triton's test_preload)
    k = _typed_add_kernel.warmup(torch.float32, torch.float32, 32, tl.float16, grid=(1, ))
    assert k.metadata.name == "_typed_add_kernel"
    x, o = torch.arange(32, dtype=torch.float32), torch.zeros(32)
    _typed_add_kernel[(1, )](x, o, 32, tl.float16)
    assert o.tolist() == x.tolist()


def test_enable_fp_fusion_is_another_compile():
    calls = []
    triton.knobs.runtime.jit_cache_hook = lambda **kw: calls.append(kw["compile"]["enable_fp_fusion"])
    try:
        x, o = torch.arange(32, dtype=torch.float32), torch.zeros(32)
        _typed_add_kernel[(1, )](x, o, 32, tl.float64)
        _typed_add_kernel[(1, )](x, o, 32, tl.float64, enable_fp_fusion=False)
        _typed_add_kernel[(1, )](x, o, 32, tl.float64, enable_fp_fusion=False)
    finally:
        triton.knobs.runtime.jit_cache_hook = None
    assert calls == [True, False]


def test_patched_local_and_arrays_are_not_watched():
    # test_core's patch_kernel: the original text reads `z` from the test (a numpy array),
    # the patched one binds it; neither a local nor an array is a global a launch checks
    z = np.zeros(4)

    @triton.jit
    def k(Z):
        GENERATE_TEST_HERE  # noqa: F821
        tl.store(Z + tl.arange(0, 4), z)

    k._unsafe_update_src(k.src.replace("GENERATE_TEST_HERE", "z = tl.full((4, ), 1.0, tl.float32)"))
    out = torch.zeros(4)
    k[(1, )](out)
    k[(1, )](out)
    assert out.tolist() == [1.0] * 4 and not k.used_global_vals
    assert z.tolist() == [0.0] * 4


def test_autotune_listener_and_triton_cache_dir(tmp_path, monkeypatch):
    # knobs.autotuning.listener gets the JITFunction, only when configs were compared; tuning
    # results go to Triton's cache directory when one is set (its tests' fresh_triton_cache)
    monkeypatch.delenv("TILEC_CACHE_DIR", raising=False)
    got = []
    triton.knobs.autotuning.listener = lambda **kw: got.append((kw["fn"], kw["cache_hit"]))
    try:
        with triton.knobs.cache.scope():
            triton.knobs.cache.dir = str(tmp_path)

            @triton.autotune(configs=[triton.Config({"B": 32}), triton.Config({"B": 64})], key=["n"],
                             cache_results=True)
            @triton.jit
            def copy_kernel(dst, src, n, B: tl.constexpr):
                o = tl.program_id(0) * B + tl.arange(0, B)
                tl.store(dst + o, tl.load(src + o, mask=o < n), mask=o < n)

            src, dst = torch.arange(100, dtype=torch.float32), torch.zeros(100)
            copy_kernel[lambda m: (triton.cdiv(100, m["B"]), )](dst, src, 100)
            assert torch.equal(dst, src)
            assert len(got) == 1 and isinstance(got[0][0], triton.JITFunction) and got[0][1] is False
            assert list((tmp_path / "autotune").glob("copy_kernel-*.json"))

            @triton.autotune(configs=[triton.Config({"B": 32}), triton.Config({"B": 64})], key=["n"],
                             prune_configs_by={"early_config_prune": lambda configs, nargs, **kw: configs[:1]})
            @triton.jit
            def pruned_kernel(dst, src, n, B: tl.constexpr):
                o = tl.program_id(0) * B + tl.arange(0, B)
                tl.store(dst + o, tl.load(src + o, mask=o < n), mask=o < n)

            pruned_kernel[lambda m: (triton.cdiv(100, m["B"]), )](dst, src, 100)
            assert len(got) == 1  # one config left: nothing tuned, no listener call
    finally:
        triton.knobs.autotuning.listener = None
