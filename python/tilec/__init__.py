"""tilec: Triton kernels compiled for the CPU.

    import numpy as np
    import tilec
    import tilec.language as tl

    @tilec.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

    x = np.random.rand(1000).astype(np.float32); y = np.ones_like(x); out = np.empty_like(x)
    add[(tilec.cdiv(x.size, 256),)](x, y, out, x.size, BLOCK=256)

The compiler and the runtime are C (libtilec, libtilec-runtime, shipped inside this
package); ``tilec._C`` is the extension over their public API.
"""

from . import _C
from .errors import CompilationError, KernelError, TilecError
from .jit import CompiledKernel, JITFunction, KernelParam, jit
from . import language
from . import debug
from . import _hook  # the .pth may have loaded it before the package: bind the attribute
from ._hook import install_triton

__version__ = _C.version()

__all__ = ["jit", "JITFunction", "KernelParam", "CompiledKernel", "CompilationError", "KernelError",
           "TilecError", "language", "debug", "install_triton", "cdiv", "next_power_of_2", "__version__"]


def cdiv(x, y):
    """``ceil(x / y)`` for integers."""
    return (x + y - 1) // y


def next_power_of_2(n):
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


# Objects passed to non-constexpr parameters that are compile-time values (Triton:
# ("constexpr", value)).
_C.set_constexpr_types((language.constexpr, JITFunction))
