"""triton.compiler for the drop-in: the error classes, the compiled-kernel class, LazyDict
and max_shared_mem.

Triton's own compiler entry points (`triton.compile(src, ...)` over ASTSource/IRSource,
make_backend, get_cache_key) are refused (NotImplementedError naming the feature): kernels
compile with tilec on their first launch or with `kernel.warmup(...)`, and ahead of time
with the `tilec compile` command.
"""

from .compiler import (ASTSource, CompiledKernel, IRSource, LazyDict, compile, get_cache_key, make_backend,
                       max_shared_mem)
from .errors import CompilationError, CompileTimeAssertionFailure, UnsupportedLanguageConstruct
from . import compiler, errors  # noqa: F401

__all__ = ["CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct", "CompiledKernel",
           "ASTSource", "IRSource", "LazyDict", "compile", "get_cache_key", "make_backend", "max_shared_mem"]
