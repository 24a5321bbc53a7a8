"""Triton's specialization rules, checked on the signature each launch compiles: tensors
by dtype and 16-byte alignment, ints by range (i32/i64/u64), divisibility by 16 and == 1,
bools, floats, None, constexprs; do_not_specialize(_on_alignment); annotations.
The expected entries are Triton 3.9's (runtime/jit.py + its native specializer)."""

import numpy as np
import pytest

import tilec
import tilec.language as tl
from conftest import needs_torch
from kernels_native import (annotated_kernel, mode_kernel, nospec_index_kernel, nospec_kernel, scale_kernel,
                            store_scalar_kernel)

INT_CASES = [
    # value, numpy dtype of the output, Triton's entry
    (1, np.int32, "1"),
    (0, np.int32, "i32:16"),
    (16, np.int32, "i32:16"),
    (17, np.int32, "i32"),
    (-16, np.int32, "i32:16"),
    (2 ** 31 - 1, np.int32, "i32"),
    (-2 ** 31, np.int32, "i32:16"),
    (2 ** 31, np.int64, "i64:16"),
    (2 ** 31 + 1, np.int64, "i64"),
    (-2 ** 31 - 1, np.int64, "i64"),
    (2 ** 63 - 1, np.int64, "i64"),
    (2 ** 63, np.uint64, "u64:16"),
    (2 ** 64 - 1, np.uint64, "u64"),
]


@pytest.mark.parametrize("value, dt, entry", INT_CASES)
def test_int_specialization(value, dt, entry):
    out = np.zeros(1, dt)
    k = store_scalar_kernel[(1,)](out, value)
    assert k.signature == f"*{np.dtype(dt).name.replace('int', 'i').replace('ui', 'u')}:16, {entry}"
    assert int(out[0]) == value


def test_pointer_alignment():
    out = np.zeros(8, np.int32)
    assert store_scalar_kernel[(1,)](out, 5).signature == "*i32:16, i32"
    assert store_scalar_kernel[(1,)](out[1:], 5).signature == "*i32, i32"
    assert out[1] == 5
    assert store_scalar_kernel[(1,)](out[4:], 5).signature == "*i32:16, i32"


def test_do_not_specialize_by_name():
    out = np.zeros(4, np.int32)
    assert nospec_kernel[(1,)](out, 1).signature == "*i32, i32"
    assert out[0] == 1
    assert nospec_kernel[(1,)](out, 32).signature == "*i32, i32"
    assert nospec_kernel[(1,)](out[1:], 32).signature == "*i32, i32"


def test_do_not_specialize_by_index():
    out = np.zeros(1, np.int32)
    assert nospec_index_kernel[(1,)](out, 1).signature == "*i32:16, i32"
    assert nospec_index_kernel[(1,)](out, 16).signature == "*i32:16, i32"


def test_params_record_flags():
    p = {q.name: q for q in nospec_kernel.params}
    assert p["a"].do_not_specialize and not p["a"].do_not_specialize_on_alignment
    assert p["out_ptr"].do_not_specialize_on_alignment and not p["out_ptr"].do_not_specialize
    assert nospec_kernel.arg_names == ["out_ptr", "a"]
    assert [q.num for q in nospec_kernel.params] == [0, 1]


def test_bool_float_none():
    out = np.zeros(1, np.float32)
    assert store_scalar_kernel[(1,)](out, 2.5).signature == "*fp32:16, fp32"
    assert out[0] == 2.5
    b = np.zeros(1, np.bool_)
    assert store_scalar_kernel[(1,)](b, True).signature == "*i1:16, i1"
    assert b[0]


def test_annotations_force_scalar_types():
    out = np.zeros(1, np.int64)
    k = annotated_kernel[(1,)](out, 5, 2)
    assert k.signature == "*i64:16, i64, fp32"
    assert out[0] == 7
    # annotated ints keep the divisibility hint but are never the constant 1
    assert annotated_kernel[(1,)](out, 32, 1.0).signature == "*i64:16, i64:16, fp32"
    assert annotated_kernel[(1,)](out, 1, 1.0).signature == "*i64:16, i64, fp32"
    assert out[0] == 2


def test_string_constexpr_and_memory_cache():
    x = np.arange(8, dtype=np.float32)
    k1 = mode_kernel[(1,)](x, 8, "double", BLOCK=8)
    np.testing.assert_array_equal(x, 2 * np.arange(8))
    k2 = mode_kernel[(1,)](x, 8, "add", BLOCK=8)
    np.testing.assert_array_equal(x, 2 * np.arange(8) + 100)
    assert k1 is not k2
    assert mode_kernel[(1,)](x, 8, "double", BLOCK=8) is k1
    assert mode_kernel[(1,)](x, 8, MODE="double", BLOCK=tl.constexpr(8)) is k1


def test_cache_keys_follow_specialization():
    x = np.zeros(64, np.float32)
    scale_kernel.cache.clear()
    scale_kernel[(1,)](x, x, 64, 1.0, BLOCK=64)
    scale_kernel[(1,)](x, x, 48, 2.0, BLOCK=64)   # same key: 64 and 48 are both divisible by 16
    scale_kernel[(1,)](x, x, 7, 2.0, BLOCK=64)    # i32 without the hint
    scale_kernel[(1,)](x, x, 1, 2.0, BLOCK=64)    # the constant 1
    scale_kernel[(1,)](x[1:], x, 7, 2.0, BLOCK=64)
    keys = sorted(k[1:] for k in scale_kernel.cache)
    assert keys == sorted([
        ("*fp32:16", "*fp32:16", "i32:16", "fp32", 64),
        ("*fp32:16", "*fp32:16", "i32", "fp32", 64),
        ("*fp32:16", "*fp32:16", "1", "fp32", 64),
        ("*fp32", "*fp32:16", "i32", "fp32", 64),
    ])


@needs_torch
@pytest.mark.parametrize("name, entry", [
    ("float32", "*fp32"), ("float16", "*fp16"), ("bfloat16", "*bf16"), ("float64", "*fp64"),
    ("int8", "*i8"), ("int16", "*i16"), ("int32", "*i32"), ("int64", "*i64"), ("uint8", "*u8"),
    ("bool", "*i1"), ("float8_e4m3fn", "*fp8e4nv"), ("float8_e5m2", "*fp8e5"),
])
def test_torch_dtypes(name, entry):
    import torch
    t = torch.zeros(16, dtype=getattr(torch, name))
    assert tilec._C.classify(t)[:2] == ("pointer", entry[1:])


@needs_torch
def test_torch_unsupported_dtype():
    import torch
    out = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"argument 'x_ptr' has dtype torch.complex64"):
        scale_kernel[(1,)](torch.zeros(4, dtype=torch.complex64), out, 4, 1.0, BLOCK=4)


def test_tuple_argument_for_runtime_parameter():
    # Triton 3.x passes a tuple to a runtime parameter element by element (the drop-in's
    # test_dropin_tuple_args.py has the uses); this kernel multiplies a tile by it, which
    # does not compile, and an element of an unsupported type names the parameter
    out = np.zeros(4, np.float32)
    with pytest.raises(tilec.CompilationError, match=r"kernels_native.py:21:.*a tuple can only be repeated"):
        scale_kernel[(1,)](out, out, 4, (1, 2), BLOCK=4)
    with pytest.raises(TypeError, match=r"argument 'alpha' has unsupported type str"):
        scale_kernel[(1,)](out, out, 4, (1, "x"), BLOCK=4)


def test_warmup_with_dtypes_compiles_without_running():
    k = scale_kernel.warmup(tl.float32, tl.float32, 100, 1.5, BLOCK=128, grid=(1,))
    assert k.signature == "*fp32:16, *fp32:16, i32, fp32, 128"
    assert k.metadata.num_warps == 4 and k.n_spills == 0
    # a CPU program: the target's vector registers, its core's L2 as "shared memory"
    assert k.n_regs == (32 if "512-bit" in k.target else 16) and k.metadata.shared > 0
    k._init_handles()
    x = np.arange(100, dtype=np.float32)
    out = np.zeros(100, np.float32)
    k[(1,)](x, out, 100, 1.5, 128)  # a compiled kernel takes every argument, constexprs included
    np.testing.assert_array_equal(out, x * np.float32(1.5))


def test_asm_stages():
    out = np.zeros(1, np.int32)
    k = store_scalar_kernel[(1,)](out, 3)
    assert "tile.store" in k.asm["tile"] or "tile.store" in k.asm["ttir"]
    assert "define" in k.asm["llvm"]
    assert "ret" in k.asm["asm"]
    with pytest.raises(KeyError):
        k.asm["ptx"]


def test_tuple_constexpr():
    from kernels_native import tuple_kernel
    out = np.zeros((2, 4), np.int32)
    k = tuple_kernel[(1,)](out, (2, 4))
    np.testing.assert_array_equal(out, np.arange(2)[:, None] * 10 + np.arange(4)[None, :])
    assert tuple_kernel[(1,)](out, (2, 4)) is k


@needs_torch
def test_torch_dtype_constexpr():
    import torch
    from kernels_native import dtype_kernel
    x = torch.arange(8, dtype=torch.float32) / 3
    out = torch.zeros(8, dtype=torch.bfloat16)
    dtype_kernel[(1,)](x, out, 8, torch.bfloat16, BLOCK=8)
    assert torch.equal(out, x.to(torch.bfloat16))
