"""Triton 3.9 behaviour that docs/CONFORMANCE.md found missing in the drop-in (issue 27):
triton.runtime._allocation's names (Triton's with_allocator fixture), CompilationError's
error_message, the keys of CompiledKernel.asm, an int argument equal to 1 specialized as a
constexpr (what a @jit(repr=...) callback sees, do_not_specialize), and Triton's checks of
a tensor descriptor made in a kernel. References: Triton 3.9's runtime/jit.py,
python/src/specialize.cc, language/semantic.py and runtime/_allocation.py."""

import pytest

import tilec

tilec.install_triton()

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

torch = pytest.importorskip("torch")


# ---- triton.runtime._allocation ---------------------------------------------------------

def test_allocation_module_names():
    from triton.runtime import _allocation
    from triton.runtime._allocation import NullAllocator

    for name in ("Buffer", "Allocator", "NullAllocator", "set_allocator", "set_profile_allocator",
                 "has_profile_allocator", "_allocator", "_NULL_ALLOCATOR", "_profile_allocator"):
        assert hasattr(_allocation, name), name
    with pytest.raises(RuntimeError, match="no allocator was set"):
        NullAllocator()(128, 16, None)
    assert isinstance(_allocation._allocator.get(), NullAllocator)


def test_with_allocator_fixture_pattern():
    # Triton's python/test/conftest.py: set an allocator for a test, restore NullAllocator after
    from triton.runtime import _allocation
    from triton.runtime._allocation import NullAllocator

    def alloc(size, align, stream):
        return torch.empty(size, dtype=torch.int8)

    triton.set_allocator(alloc)
    try:
        assert _allocation._allocator.get() is alloc

        @triton.jit
        def k(X):
            tl.store(X, 1.0)

        x = torch.zeros(1)
        k[(1,)](x)
        assert x.item() == 1.0
    finally:
        triton.set_allocator(NullAllocator())
    assert isinstance(_allocation._allocator.get(), NullAllocator)
    with pytest.raises(TypeError, match="callable"):
        triton.set_allocator(3)


def test_profile_allocator():
    from triton.runtime._allocation import has_profile_allocator, set_profile_allocator

    assert not has_profile_allocator()
    set_profile_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8))
    try:
        assert has_profile_allocator()
    finally:
        set_profile_allocator(None)
    assert not has_profile_allocator()


# ---- CompilationError.error_message -----------------------------------------------------

@triton.jit
def _if_types_kernel(X, Y, flag):
    out = X
    if flag:
        final_out = tl.load(X)
    else:
        final_out = out
    tl.store(Y, final_out)


def test_compilation_error_message():
    x, y = torch.zeros(1), torch.zeros(1)
    with pytest.raises(triton.CompilationError) as e:
        _if_types_kernel[(1,)](x, y, 3)
    # test_core.py's test_const reads error_message (or the cause): Triton's words
    assert e.value.error_message.startswith("Mismatched type for final_out between then block (")
    assert "and else block (" in e.value.error_message
    assert e.value.error_message in str(e.value) and 'test_dropin_conformance.py"' in str(e.value)
    assert e.value.__cause__ is None  # Triton's: the language's error, not a tl.* function's


# ---- CompiledKernel.asm -------------------------------------------------------------------

@triton.jit
def _store_one(X):
    tl.store(X, 1.0)


def test_asm_keys():
    h = _store_one[(1,)](torch.zeros(1))
    for key in ("llir", "ttir", "asm", "llvm", "tile"):
        assert key in h.asm, key
    assert "define" in h.asm["llir"] and h.asm["llir"] == h.asm["llvm"]
    for key in ("ttgir", "ptx", "cubin", "sass", "amdgcn"):
        assert key not in h.asm
        with pytest.raises(KeyError, match="compiles this kernel for the CPU"):
            h.asm[key]
    with pytest.raises(KeyError, match="TritonGPU IR"):
        h.asm["ttgir"]
    with pytest.raises(KeyError, match="Unknown key: 'nope'"):
        h.asm["nope"]


# ---- an int argument equal to 1 -----------------------------------------------------------

def _repr(spec):
    ty = spec.signature["value1"]
    cst = "_".join(k for k, v in spec.constants.items() if isinstance(k, str) and v == 1)
    return f"kernel_{ty}_{cst}"


@triton.jit(repr=_repr)
def _is_one_kernel(value1, is_one, X):
    tl.store(X, is_one + value1)


@triton.jit(repr=_repr, do_not_specialize=["is_one"])
def _is_one_dns_kernel(value1, is_one, X):
    tl.store(X, is_one + value1)


@triton.jit(repr=_repr)
def _is_one_annotated_kernel(value1, is_one: tl.int32, X):
    tl.store(X, is_one + value1)


@pytest.mark.parametrize("value, ty", [(-1, "i32"), (0, "i32"), (2**31, "i64"), (2**63, "u64")])
def test_int_one_is_constexpr(value, ty):
    # Triton's test_value_specialization: the callback sees is_one among the constants
    x = torch.zeros(1, dtype=torch.float64)
    h = _is_one_kernel[(1,)](value, 1, x)
    assert h.name == f"kernel_{ty}_is_one"
    seen = {}
    k = triton.jit(repr=lambda s: seen.update(sig=dict(s.signature), cst=dict(s.constants)) or "k")(
        _is_one_kernel.fn)
    k[(1,)](value, 1, x)
    assert seen["sig"]["is_one"] == "constexpr" and seen["cst"] == {"is_one": 1}
    assert seen["sig"]["value1"] == ty


def test_int_one_not_specialized():
    # do_not_specialize, and an annotated parameter (Triton: ("i32", None)), stay runtime values
    x = torch.zeros(1)
    assert _is_one_dns_kernel[(1,)](5, 1, x).name == "kernel_i32_"
    assert _is_one_annotated_kernel[(1,)](5, 1, x).name == "kernel_i32_"
    assert x.item() == 6.0
    # the value 1 still computes as 1 when specialized
    assert _is_one_kernel[(1,)](1, 1, x).name == "kernel_constexpr_value1_is_one" and x.item() == 2.0


# ---- tensor descriptors made in a kernel ------------------------------------------------

@triton.jit
def _desc_block_kernel(ptr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(ptr, [128, 128], [128, 1], [1, BN])
    tl.store(ptr + tl.arange(0, BN), desc.load([0, 0]).reshape(BN))


@triton.jit
def _desc_stride_kernel(ptr, S: tl.constexpr):
    desc = tl.make_tensor_descriptor(ptr, [8, 4], [S, 1], [8, 4])
    tl.store(ptr + tl.arange(0, 4), tl.sum(desc.load([0, 0]), 0))


def test_descriptor_block_shape_and_strides():
    # Triton's test_tma_load_block_shape_err / test_tma_store_block_shape_err
    x = torch.arange(128 * 128, dtype=torch.int32).reshape(128, 128)
    with pytest.raises(triton.CompilationError) as e:
        _desc_block_kernel[(1,)](x, 2)
    assert "Descriptor block shape must have at least 16 bytes in the last dimension, but got 2 * 4 = 8 bytes" \
        in str(e.value.__cause__)
    with pytest.raises(triton.CompilationError, match="at least 16 bytes"):
        _desc_block_kernel[(1,)](x.to(torch.int16), 4)
    _desc_block_kernel[(1,)](x, 4)  # 16 bytes
    assert x[0, :4].tolist() == [0, 1, 2, 3]
    y = torch.ones(64)
    with pytest.raises(triton.CompilationError, match="strides must be 16-byte aligned, but got a stride of 6 "):
        _desc_stride_kernel[(1,)](y, 6)
    _desc_stride_kernel[(1,)](y, 8)
    assert y[:4].tolist() == [8.0] * 4
