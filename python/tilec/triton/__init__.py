"""tilec's Triton drop-in: the package served as `triton` when TILEC_TRITON=1 is set,
under `python -m tilec run SCRIPT.py`, or after tilec.install_triton().

`triton.jit` is tilec.jit (kernels compile with tilec and run on the CPU);
autotune/heuristics/Config, testing, runtime.driver, language, tools.tensor_descriptor
follow Triton 3.9's host API. Errors: triton.TritonError is tilec.TilecError and
triton.CompilationError is tilec.CompilationError.
"""

__version__ = "3.9.0"

from .runtime import (Config, InterpreterError, JITFunction, KernelInterface, MockTensor, OutOfResources,
                      TensorWrapper, autotune, heuristics, reinterpret)
from .runtime.jit import constexpr_function, jit
from .runtime._allocation import set_allocator
from .runtime._async_compile import AsyncCompileMode, FutureKernel
from .compiler import CompilationError, compile
from .errors import TritonError
from . import backends, compiler, errors, knobs, language, runtime, testing, tools
from . import _refused

aggregate = _refused.refused_function("triton.aggregate")

__tilec_path__ = "triton"


def cdiv(x, y):
    """ceil(x / y) for integers (also usable inside kernels)."""
    return (x + (y - 1)) // y


def next_power_of_2(n):
    """The smallest power of 2 >= n (0 for n <= 0, as Triton's; also usable inside kernels)."""
    n = int(n)
    if n <= 0:
        return 0
    return 1 << (n - 1).bit_length()


cdiv.__tilec_path__ = "triton.cdiv"
next_power_of_2.__tilec_path__ = "triton.next_power_of_2"


def must_use_result(x, s=True):
    """Triton's marker for builtins whose result must be used; no effect here."""
    if isinstance(x, str):
        return lambda fn: fn
    return x


__all__ = ["AsyncCompileMode", "FutureKernel", "aggregate", "autotune", "cdiv", "CompilationError", "compile", "Config", "constexpr_function", "heuristics",
           "InterpreterError", "jit", "JITFunction", "KernelInterface", "knobs", "language", "MockTensor",
           "must_use_result", "next_power_of_2", "OutOfResources", "reinterpret", "runtime", "set_allocator",
           "TensorWrapper", "TritonError", "testing", "tools", "backends", "compiler", "errors"]
