"""triton.compiler.compiler for the drop-in: the compiled-kernel class host code imports
from here, Triton's LazyDict and max_shared_mem, and the refused names of Triton's own
compiler (ASTSource, IRSource, compile, make_backend, get_cache_key: see
tilec.triton._refused)."""

import functools

from tilec import CompiledKernel

from .. import _refused
from ..runtime.cache import triton_key  # noqa: F401  (torch's inductor imports it from here too)

ASTSource = _refused.refused_class("triton.compiler.ASTSource")
IRSource = _refused.refused_class("triton.compiler.IRSource")
compile = _refused.refused_function("triton.compiler.compile")  # noqa: A001 - Triton's name
make_backend = _refused.refused_function("triton.compiler.make_backend")
get_cache_key = _refused.refused_function("triton.compiler.get_cache_key")


class LazyDict:
    """A dict completed on first `get()`: `add(func, args)` queues `func(*args)`, a dict
    merged into the data then (Triton's launch metadata)."""

    def __init__(self, data):
        self.data = data
        self.extras = []

    def get(self):
        for func, args in self.extras:
            self.data = self.data | func(*args)
        self.extras.clear()
        return self.data

    def add(self, func, args):
        self.extras.append((func, args))


@functools.lru_cache()
def max_shared_mem(device):
    """The device's shared memory per block in Triton; the CPU's per-core cache (L2) here,
    as `get_device_properties(device)["max_shared_mem"]`."""
    from ..runtime.driver import driver
    return driver.active.utils.get_device_properties(device)["max_shared_mem"]


__all__ = ["CompiledKernel", "ASTSource", "IRSource", "LazyDict", "compile", "get_cache_key", "make_backend",
           "max_shared_mem"]
