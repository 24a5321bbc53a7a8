"""triton.runtime._allocation for the drop-in: Triton 3.9's names (Buffer, Allocator,
NullAllocator, set_allocator, set_profile_allocator, has_profile_allocator and the context
variable holding the allocator). Triton asks the allocator for global scratch memory
(tensor-map descriptors built on the device, profiling buffers); tilec's CPU kernels need
none, so an allocator is only stored: host code that installs one, or resets the default
with NullAllocator() as Triton's test fixtures do, keeps working."""

from contextvars import ContextVar
from typing import Optional, Protocol


class Buffer(Protocol):
    """What an allocator returns: anything with a data pointer."""

    def data_ptr(self) -> int:
        ...


class Allocator(Protocol):
    """`allocator(size, alignment, stream) -> Buffer`."""

    def __call__(self, size: int, alignment: int, stream: Optional[int]) -> Buffer:
        ...


class NullAllocator:
    """The default allocator: a kernel that needed scratch memory would fail with Triton's
    message (tilec's kernels never call it)."""

    def __call__(self, size: int, alignment: int, stream: Optional[int]) -> Buffer:
        raise RuntimeError("Kernel requires a runtime memory allocation, but no allocator was set. "
                           "Use triton.set_allocator to specify an allocator.")


_NULL_ALLOCATOR = NullAllocator()

_allocator: ContextVar = ContextVar("_allocator", default=_NULL_ALLOCATOR)


def set_allocator(allocator) -> None:
    """Install `allocator(size, alignment, stream)` for the current context (Triton calls it
    at launch for kernels that need a global-memory workspace; tilec's never do). It must
    be callable; None restores the NullAllocator."""
    if allocator is None:
        allocator = _NULL_ALLOCATOR
    if not callable(allocator):
        raise TypeError(f"set_allocator expects a callable (size, alignment, stream) or None, "
                        f"got {type(allocator).__name__}")
    _allocator.set(allocator)


def get_allocator():
    """The allocator set_allocator installed (a NullAllocator by default)."""
    return _allocator.get()


class _AllocatorWrapper:
    """An allocator with ContextVar-like get()/set(), as Triton keeps its profile allocator."""

    def __init__(self, allocator) -> None:
        self._allocator = allocator

    def get(self):
        return self._allocator

    def set(self, allocator) -> None:
        self._allocator = allocator

    def __call__(self, size: int, alignment: int, stream: Optional[int]):
        return self._allocator(size, alignment, stream)


_profile_allocator = _AllocatorWrapper(_NULL_ALLOCATOR)


def set_profile_allocator(allocator) -> None:
    """Install the allocator Triton's profiler calls before a launch (None: the default)."""
    _profile_allocator.set(allocator if allocator is not None else _NULL_ALLOCATOR)


def has_profile_allocator() -> bool:
    """Whether set_profile_allocator installed an allocator other than NullAllocator."""
    return not isinstance(_profile_allocator.get(), NullAllocator)
