"""triton.runtime.jit for the drop-in.

In:  `@triton.jit` host code. Out: tilec.JITFunction objects (`triton.jit` IS
tilec.jit), plus the host-side helpers Triton programs and tests import from here:
KernelInterface (base of Autotuner/Heuristics: `kernel[grid](...)`, `warmup`),
TensorWrapper/reinterpret (a tensor whose memory is read as another Triton dtype),
MockTensor (a dtype standing in for a tensor in `warmup`), constexpr_function.
"""

import abc
import functools

from tilec import JITFunction, jit

# Triton's spellings of dtype names -> its short type strings (same table as Triton's
# triton._utils.type_canonicalisation_dict).
type_canonicalisation_dict = {
    "bool": "u1", "int1": "u1", "uint1": "u1", "i1": "u1",
    "float8e4nv": "fp8e4nv", "float8e5": "fp8e5", "float8e4b15": "fp8e4b15",
    "float8_e4m3fn": "fp8e4nv", "float8e4b8": "fp8e4b8", "float8_e4m3fnuz": "fp8e4b8",
    "float8_e5m2": "fp8e5", "float8e5b16": "fp8e5b16", "float8_e5m2fnuz": "fp8e5b16",
    "half": "fp16", "float16": "fp16", "bfloat16": "bf16", "float": "fp32",
    "float32": "fp32", "double": "fp64", "float64": "fp64",
    "int8": "i8", "int16": "i16", "int": "i32", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "void": "void",
}


class KernelInterface(abc.ABC):
    """Something launched as `kernel[grid](*args, **kwargs)`: subclasses define `run`."""

    @abc.abstractmethod
    def run(self, *args, grid, warmup, **kwargs):
        ...

    def warmup(self, *args, grid, **kwargs):
        return self.run(*map(MockTensor.wrap_dtype, args), grid=grid, warmup=True, **kwargs)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


KernelInterface.register(JITFunction)


class MockTensor:
    """A stand-in for a tensor of `dtype` (data pointer 0) for `kernel.warmup`."""

    @staticmethod
    def wrap_dtype(arg):
        if arg.__class__.__name__ == "dtype" and arg.__class__.__module__ == "torch":
            return MockTensor(arg)
        return arg

    def __init__(self, dtype, shape=None):
        self.dtype = dtype
        self.shape = [1] if shape is None else list(shape)

    def stride(self):
        strides = [1]
        for size in reversed(self.shape[1:]):
            strides.append(strides[-1] * size)
        return tuple(reversed(strides))

    @staticmethod
    def data_ptr():
        return 0

    @staticmethod
    def ptr_range():
        return 0


class TensorWrapper:
    """`base`'s memory seen as Triton dtype `dtype` (e.g. an int8 torch tensor read as
    tl.uint8 or tl.float8e4nv): the kernel gets `base`'s data pointer typed `*dtype`."""

    def __init__(self, base, dtype):
        self.dtype = dtype
        self.base = base
        self.data = getattr(base, "data", None)
        self.device = getattr(base, "device", None)
        self.shape = base.shape

    def data_ptr(self):
        return self.base.data_ptr()

    def stride(self, *args):
        return self.base.stride(*args)

    def __str__(self):
        return f"TensorWrapper[{self.dtype}]({self.base})"

    def element_size(self):
        return self.base.element_size()

    def cpu(self):
        return TensorWrapper(self.base.cpu(), self.dtype)

    def copy_(self, other):
        self.base.copy_(other.base)

    def clone(self):
        return TensorWrapper(self.base.clone(), self.dtype)

    def to(self, device):
        return TensorWrapper(self.base.to(device), self.dtype)

    def new_empty(self, sizes):
        return TensorWrapper(self.base.new_empty(sizes), self.dtype)


def reinterpret(tensor, dtype):
    """View `tensor`'s memory as Triton dtype `dtype` when passed to a kernel."""
    if isinstance(tensor, TensorWrapper):
        if dtype == tensor.base.dtype:
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    if hasattr(tensor, "data_ptr"):
        return TensorWrapper(tensor, dtype)
    raise TypeError(f"Cannot reinterpret a {type(tensor)}.")


def constexpr_function(fn):
    """Triton's @constexpr_function: a plain Python function on the host. (Inside a
    kernel tilec evaluates only the builtin ones, triton.cdiv and next_power_of_2.)"""
    if not callable(fn):
        raise TypeError(f"constexpr_function expects a function, got {type(fn).__name__}")

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        unwrap = lambda v: getattr(v, "value", v) if type(v).__name__ == "constexpr" else v
        return fn(*map(unwrap, args), **{k: unwrap(v) for k, v in kwargs.items()})

    wrapper.__triton_constexpr_function__ = True
    return wrapper


__all__ = ["JITFunction", "jit", "KernelInterface", "MockTensor", "TensorWrapper", "reinterpret",
           "constexpr_function", "type_canonicalisation_dict"]
