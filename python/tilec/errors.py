"""Exceptions of the tilec package.

Every failure of the C library arrives as a status (code, message, optional file:line:col);
``_from_status`` turns it into one of these classes. Compile errors are
``CompilationError`` (located, with the source line and a caret), failures while a kernel
runs (``device_assert`` under ``debug=True``, bounds violations under
``TILEC_CHECK_BOUNDS=1``, races under ``TILEC_CHECK_RACES=1``) are ``KernelError``.
"""

import linecache

__all__ = ["TilecError", "CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct",
           "KernelError"]


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
    """The ``__cause__`` of a CompilationError that a ``tl.*`` function raised: its message
    without the location."""


# What raised a compile error (the C API's tilec_status_origin).
ORIGIN_LANGUAGE = 0  # the language itself: names, operators, statements
ORIGIN_BUILTIN = 1  # a tl.* function or tensor method refused its arguments
ORIGIN_STATIC_ASSERT = 2  # a failed tl.static_assert


class CompilationError(TilecError):
    """A kernel that does not compile: syntax, semantics or an unsupported construct.

    Attributes: ``filename``, ``lineno``, ``col`` (1-based; 0 when the error has no
    location), ``source_line`` (the text of that line or None), ``message`` (without the
    location), ``code`` (the tilec status code name, e.g. ``"TILEC_ERROR_SEMANTIC"``),
    ``frames`` (the @jit calls that led to the error, innermost first: ``(function, file,
    def_line, line, col)``) and ``origin`` (``ORIGIN_*``). ``error_message`` is Triton's
    name for the message without the location (None for a call site whose ``__cause__`` is
    the error in the callee). As in Triton, an error a ``tl.*`` function raised has a
    ``__cause__`` carrying its bare message; other errors have none.
    """

    def __init__(self, message, filename=None, lineno=0, col=0, source_line=None, code=None, *, frames=(),
                 origin=ORIGIN_LANGUAGE, reason=None, text=None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.source_line = source_line
        self.code = code
        self.frames = list(frames)
        self.origin = origin
        self.error_message = message if reason is None else reason
        super().__init__(text if text is not None else _render(filename, lineno, col, message, source_line))
        if origin == ORIGIN_BUILTIN and self.error_message is not None:
            # Triton raises its CompilationError from the error the tl.* function raised, and
            # its tests read the message there (str(exc.__cause__)).
            self.__cause__ = CompilationErrorCause(self.error_message)

    def as_triton(self):
        """This error as Triton raises it (what a kernel written against `triton` gets): the
        text `at LINE:COL:` (in the function, COL 0-based) with the function's source up to
        there, and inside @jit helpers one exception per call, each raised from the one in
        its callee. The error itself when it has no frames."""
        if not self.frames:
            return self
        exc = _triton_chain(self.code, self.error_message, self.origin, self.frames, self.source_line)
        inner = exc
        while isinstance(inner.__cause__, CompilationError):
            inner = inner.__cause__
        _, file, _, line, _ = self.frames[0]
        if self.origin == ORIGIN_BUILTIN and (self.filename, self.lineno) != (file, line):
            # raised inside a constexpr function (Python Triton runs, whose traceback would
            # show the line): the cause says where
            inner.__cause__ = CompilationErrorCause(_render(self.filename, self.lineno, self.col, self.error_message,
                                                            self.source_line))
        return exc


class CompileTimeAssertionFailure(CompilationError):
    """A failed ``tl.static_assert``."""


class UnsupportedLanguageConstruct(CompilationError):
    """A construct of the language that tilec does not compile."""


def _triton_excerpt(file, def_line, line, col):
    """Triton's source excerpt: the function's lines from its `def` to `line` (at most 12),
    dedented as the compiler saw them, then a caret under col (0-based)."""
    def_text = linecache.getline(file, def_line) if file else ""
    indent = len(def_text) - len(def_text.lstrip())
    lines = []
    for n in range(max(def_line, line - 11), line + 1):
        t = linecache.getline(file, n).rstrip("\r\n") if file else ""
        lines.append(t[indent:] if not t[:indent].strip() else t.lstrip())
    if not any(lines):
        return None, indent
    return "\n".join(lines + [" " * col + "^"]), indent


def _triton_chain(code, reason, origin, frames, source_line):
    """The exception chain Triton raises for an error under the calls `frames` (innermost
    first): the innermost error where it happened (a CompileTimeAssertionFailure for a
    static assert), raised by one CompilationError per caller at its call site, each
    `from` the one inside, with Triton's `at LINE:COL:` (relative to the function's def)
    and the function's source up to there."""
    exc = None
    for i, (function, file, def_line, line, col) in enumerate(frames):
        innermost = i == 0
        excerpt, indent = _triton_excerpt(file, def_line, line, max(col - 1, 0))
        if excerpt is None:
            excerpt = (source_line or "") + "\n" + " " * max(col - 1, 0) + "^" if innermost and source_line else \
                " <source unavailable>"
        text = f'at {line - def_line + 1}:{max(col - 1, 0)}: File "{file}", line {line}, in {function}\n{excerpt}'
        if innermost:
            text += "\n" + reason
            cls = CompilationError
            if origin == ORIGIN_STATIC_ASSERT:
                cls = CompileTimeAssertionFailure
            elif code == "TILEC_ERROR_UNSUPPORTED" and origin == ORIGIN_LANGUAGE:
                cls = UnsupportedLanguageConstruct
            exc = cls(reason, file, line, col + indent, _line(file, line), code, frames=frames[i:], origin=origin,
                      text=text)
            exc.__suppress_context__ = True
        else:
            outer = CompilationError(reason, file, line, col + indent, _line(file, line), code, frames=frames[i:],
                                     reason=None, text=text)
            outer.error_message = None
            outer.__cause__ = exc
            exc = outer
    return exc


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


def _from_status(code, message, filename, lineno, col, source_line, kernel, reason=None, origin=ORIGIN_LANGUAGE,
                 frames=()):
    """Called by tilec._C: the exception for one tilec_status."""
    if reason is None:
        reason = message
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
        cls = CompileTimeAssertionFailure if origin == ORIGIN_STATIC_ASSERT else CompilationError
        return cls(message, filename, lineno, col, source_line, code, frames=frames, origin=origin, reason=reason)
    if code == "TILEC_ERROR_INVALID_ARGUMENT":
        if kernel:
            message = f"kernel '{kernel}': {message}"
        return CompilationError(message, None, 0, 0, None, code)
    return TilecError(f"{code}: {message}")
