"""triton.tools.tensor_descriptor.TensorDescriptor for the drop-in: a host-side
description of a strided N-D tensor (base tensor, shape, strides, block shape, padding)
passed to a kernel parameter that the kernel reads with `desc.load([offsets])` /
`desc.store([offsets], value)`; the launch specializes the parameter as
`tensordesc<T[block]>` and passes a tilec_tensor_descriptor (rank 1 to 4). Checked here as Triton checks it (rank 1-5, power-of-two
block dims, last dimension contiguous, 16-byte aligned base and strides)."""

from dataclasses import dataclass
from typing import Any, List

_MAX_NUMEL = 1048576  # TRITON_MAX_TENSOR_NUMEL


def _is_power_of_two(n):
    return n > 0 and (n & (n - 1)) == 0


def _itemsize(dtype):
    size = getattr(dtype, "itemsize", None)
    if size is None:
        bits = getattr(dtype, "primitive_bitwidth", None)
        size = None if bits is None else max(1, bits // 8)
    if size is None:
        raise TypeError(f"TensorDescriptor: cannot tell the element size of dtype {dtype!r}")
    return size


def validate_block_shape(shape):
    """Triton's checks of a block shape (ints, powers of 2, at most TRITON_MAX_TENSOR_NUMEL
    elements); returns the element count."""
    numel = 1
    for i, d in enumerate(shape):
        if not isinstance(d, int):
            raise TypeError(f"Shape element {i} must have type `constexpr[int]`, got `constexpr[{type(d)}]")
        if not _is_power_of_two(d):
            raise ValueError(f"Shape element {i} must be a power of 2")
        numel *= d
    if numel > _MAX_NUMEL:
        raise ValueError(f"numel ({numel}) exceeds triton maximum tensor numel ({_MAX_NUMEL})")
    return numel


def canonicalize_dtype(dtype):
    """Triton's short type string of a torch, numpy or tl dtype ("torch.float16" -> "fp16")."""
    from ..runtime.jit import type_canonicalisation_dict
    name = str(dtype).split(".")[-1]
    try:
        return type_canonicalisation_dict[name]
    except KeyError:
        raise KeyError(f"canonicalize_dtype: {dtype!r} is not a dtype Triton kernels take") from None


def _is_floating(dtype):
    v = getattr(dtype, "is_floating_point", None)
    if v is not None:
        return v() if callable(v) else bool(v)
    f = getattr(dtype, "is_floating", None)
    return bool(f()) if callable(f) else getattr(dtype, "kind", "") == "f"


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"
    round_f32_to_tf32: bool = False

    def __post_init__(self):
        self.shape = [int(s) for s in self.shape]
        self.strides = [int(s) for s in self.strides]
        self.block_shape = list(self.block_shape)
        rank = len(self.shape)
        if not 1 <= rank <= 5:
            raise ValueError(f"TensorDescriptor: rank must be 1 to 5, got {rank}")
        if len(self.strides) != rank or len(self.block_shape) != rank:
            raise ValueError(f"TensorDescriptor: rank mismatch: shape {self.shape}, strides {self.strides}, "
                             f"block_shape {self.block_shape}")
        if not hasattr(self.base, "data_ptr") or not hasattr(self.base, "dtype"):
            raise TypeError(f"TensorDescriptor: base must be a tensor (with data_ptr() and dtype), got "
                            f"{type(self.base).__name__}")
        if type(self.base).__name__ not in ("FakeTensor", "FunctionalTensor") and self.base.data_ptr() % 16:
            raise ValueError("TensorDescriptor: base must be 16-byte aligned")
        numel = 1
        for i, d in enumerate(self.block_shape):
            if not isinstance(d, int):
                raise TypeError(f"TensorDescriptor: block_shape[{i}] must be an int, got {type(d).__name__}")
            if not _is_power_of_two(d):
                raise ValueError(f"TensorDescriptor: block_shape[{i}] = {d} is not a power of 2")
            numel *= d
        if numel > _MAX_NUMEL:
            raise ValueError(f"TensorDescriptor: block of {numel} elements exceeds the maximum tile size "
                             f"({_MAX_NUMEL})")
        elem = _itemsize(self.base.dtype)
        for i, s in enumerate(self.strides[:-1]):
            if (s * elem) % 16:
                raise ValueError(f"TensorDescriptor: strides[{i}] = {s} elements is not a multiple of 16 bytes")
        for i, d in enumerate(self.shape):
            if d <= 0:
                raise ValueError(f"TensorDescriptor: shape[{i}] = {d} must be positive")
        if self.strides[-1] != 1:
            raise ValueError(f"TensorDescriptor: the last dimension must be contiguous (stride 1), got "
                             f"{self.strides[-1]}")
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"TensorDescriptor: padding must be 'zero' or 'nan', got {self.padding!r}")
        if self.padding == "nan" and not _is_floating(self.base.dtype):
            raise ValueError("TensorDescriptor: padding 'nan' needs a floating-point tensor")
        if self.round_f32_to_tf32 and elem != 4:
            raise ValueError("TensorDescriptor: round_f32_to_tf32 is only supported for float32 tensors")

    def _tilec_tensordesc(self):
        """What tilec passes to a `tensordesc<T[block]>` kernel parameter (include/tilec/abi.h's
        tilec_tensor_descriptor): (base tensor, shape, strides, block_shape, pad with NaN)."""
        return (self.base, tuple(self.shape), tuple(self.strides), tuple(self.block_shape), self.padding == "nan")

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero", round_f32_to_tf32=False):
        """A descriptor over all of `tensor` (its shape and strides)."""
        return TensorDescriptor(tensor, list(tensor.shape), list(tensor.stride()), block_shape, padding,
                                round_f32_to_tf32)


__all__ = ["TensorDescriptor", "canonicalize_dtype", "validate_block_shape"]
