"""triton.compiler.errors for the drop-in.

tilec raises tilec.CompilationError (file:line:col, source line, caret); under the drop-in
its text is Triton's (`at 2:4:`, the function's source up to the error, a caret) and an
error inside @jit helpers is raised from the callee's, one exception per call, as Triton
does. A failed tl.static_assert is a CompileTimeAssertionFailure, an unsupported language
construct an UnsupportedLanguageConstruct; both are CompilationErrors.
"""

from tilec.errors import CompilationError, CompileTimeAssertionFailure, UnsupportedLanguageConstruct

__all__ = ["CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct"]
