"""triton.set_allocator for the drop-in. Triton asks the allocator for global scratch
memory (tensor-map descriptors built on the device); tilec's CPU kernels need none, so
the allocator is only stored (host code that installs one keeps working)."""

_allocator = None


def set_allocator(allocator):
    """Install `allocator(size, alignment, stream)`; it must be callable or None."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise TypeError(f"set_allocator expects a callable (size, alignment, stream) or None, "
                        f"got {type(allocator).__name__}")
    _allocator = allocator


def get_allocator():
    return _allocator
