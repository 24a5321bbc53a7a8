"""triton.compiler.compiler for the drop-in (host code imports CompiledKernel from here)."""

from tilec import CompiledKernel
from . import compile

__all__ = ["CompiledKernel", "compile"]
