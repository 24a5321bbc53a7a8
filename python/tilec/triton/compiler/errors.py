"""triton.compiler.errors for the drop-in.

tilec raises one compile-error class, tilec.CompilationError (file:line:col, source
line, caret). Triton's finer classes are aliases of it, so `pytest.raises(
triton.compiler.errors.CompileTimeAssertionFailure)` catches a failed tl.static_assert
and `except triton.CompilationError` catches every located compile error.
"""

from tilec.errors import CompilationError

CompileTimeAssertionFailure = CompilationError
UnsupportedLanguageConstruct = CompilationError

__all__ = ["CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct"]
