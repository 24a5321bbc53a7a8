"""Exceptions of the tilec package.

Every failure of the C library arrives as a status (code, message, optional file:line:col);
``_from_status`` turns it into one of these classes. Compile errors are
``CompilationError`` (located, with the source line and a caret), failures while a kernel
runs (``device_assert`` under ``debug=True``, bounds violations under
``TILEC_CHECK_BOUNDS=1``, races under ``TILEC_CHECK_RACES=1``) are ``KernelError``.
"""

import linecache

__all__ = ["TilecError", "CompilationError", "KernelError"]


class TilecError(Exception):
    """Base class of every error tilec raises."""


def _render(filename, lineno, col, message, source_line):
    """``file:line:col: error: message`` plus the source line and a caret under col."""
    if not filename:
        return f"error: {message}"
    text = f"{filename}:{lineno}:{col}: error: {message}"
    if source_line is not None:
        caret = "".join("\t" if ch == "\t" else " " for ch in source_line[: max(col - 1, 0)])
        text += f"\n{source_line}\n{caret}^"
    return text


class CompilationErrorCause(Exception):
    """The ``__cause__`` of a CompilationError: its message without the location."""


class CompilationError(TilecError):
    """A kernel that does not compile: syntax, semantics or an unsupported construct.

    Attributes: ``filename``, ``lineno``, ``col`` (1-based; 0 when the error has no
    location), ``source_line`` (the text of that line or None), ``message`` (without the
    location) and ``code`` (the tilec status code name, e.g. ``"TILEC_ERROR_SEMANTIC"``).
    ``error_message`` is Triton's name for the message without the location.
    """

    def __init__(self, message, filename=None, lineno=0, col=0, source_line=None, code=None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.source_line = source_line
        self.code = code
        super().__init__(_render(filename, lineno, col, message, source_line))
        # Triton raises its CompilationError from the error the code generator hit, and its
        # tests read the message there (str(exc.__cause__)); the cause carries the message.
        self.__cause__ = CompilationErrorCause(message)


    @property
    def error_message(self):
        """The message without the location (Triton's ``CompilationError.error_message``)."""
        return self.message


class KernelError(TilecError, RuntimeError):
    """A kernel that failed while running: a failed ``tl.device_assert`` (``debug=True``),
    an out-of-bounds access (``TILEC_CHECK_BOUNDS=1``) or a race between programs
    (``TILEC_CHECK_RACES=1``). The message names the kernel, the source line and the
    program id; ``kernel``, ``filename``, ``lineno``, ``col`` and ``source_line`` hold them
    separately."""

    def __init__(self, message, kernel=None, filename=None, lineno=0, col=0, source_line=None):
        self.message = message
        self.kernel = kernel
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.source_line = source_line
        head = f"kernel '{kernel}': " if kernel and f"'{kernel}'" not in message else ""
        super().__init__(_render(filename, lineno, col, head + message, source_line))


_COMPILE_CODES = {
    "TILEC_ERROR_SYNTAX",
    "TILEC_ERROR_SEMANTIC",
    "TILEC_ERROR_UNSUPPORTED",
    "TILEC_ERROR_NOT_FOUND",
}


def _line(filename, lineno):
    if not filename or lineno <= 0:
        return None
    text = linecache.getline(filename, lineno)
    return text.rstrip("\r\n") if text else None


def _from_status(code, message, filename, lineno, col, source_line, kernel):
    """Called by tilec._C: the exception for one tilec_status."""
    if filename:
        from ._globals import source_column
        shifted = source_column(filename, lineno, col)
        if shifted != col:
            # a kernel defined inside a function: the compiler saw it dedented
            col, source_line = shifted, None
    if filename and source_line is None:
        source_line = _line(filename, lineno)
    if code == "TILEC_ERROR_RUNTIME":
        return KernelError(message, kernel, filename, lineno, col, source_line)
    if code in _COMPILE_CODES or filename:
        return CompilationError(message, filename, lineno, col, source_line, code)
    if code == "TILEC_ERROR_INVALID_ARGUMENT":
        if kernel:
            message = f"kernel '{kernel}': {message}"
        return CompilationError(message, None, 0, 0, None, code)
    return TilecError(f"{code}: {message}")
