"""triton.compiler for the drop-in: the error classes and the compiled-kernel class.

`triton.compile(src, ...)` (Triton's ahead-of-time entry point over ASTSource/IR files)
has no counterpart here: kernels compile when launched or with `kernel.warmup(...)`,
and ahead of time with the `tilec compile` command.
"""

from tilec import CompiledKernel
from .errors import CompilationError, CompileTimeAssertionFailure, UnsupportedLanguageConstruct


def compile(src, target=None, options=None, *args, **kwargs):
    """Not provided by the drop-in (see the module docstring)."""
    raise NotImplementedError(
        "triton.compile() is not provided by tilec's Triton drop-in: kernels compile on "
        "their first launch or with kernel.warmup(*args, grid=...); ahead of time use "
        "`tilec compile FILE.py -k KERNEL -s SIGNATURE`")


__all__ = ["CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct",
           "CompiledKernel", "compile"]
