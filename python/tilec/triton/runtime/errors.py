"""triton.runtime.errors for the drop-in: Triton's runtime exception classes, all
`triton.TritonError` (= tilec.TilecError) subclasses."""

from ..errors import TritonError


class _MessageError(TritonError):

    def __init__(self, error_message=None):
        super().__init__(error_message)
        self.error_message = error_message

    def __str__(self):
        return self.error_message or ""


class InterpreterError(_MessageError):
    """Triton's interpreter error (tilec never raises it; kept for `except` clauses)."""


class PTXASError(_MessageError):
    """ptxas failures on NVIDIA GPUs (never raised by the CPU drop-in)."""

    def __str__(self):
        return f"PTXAS error: {self.error_message or ''}"


class AutotunerError(_MessageError):
    """A misuse of triton.autotune (for example pruning away every config)."""

    def __str__(self):
        return f"Autotuner error: {self.error_message or ''}"


class OutOfResources(TritonError):
    """A config needs more of a resource than the target has; the autotuner skips it."""

    def __init__(self, required, limit, name):
        super().__init__(required, limit, name)
        self.required = required
        self.limit = limit
        self.name = name

    def __str__(self):
        return (f"out of resource: {self.name}, Required: {self.required}, Hardware limit: "
                f"{self.limit}. Reducing block sizes or `num_stages` may help.")

    def __reduce__(self):
        return (type(self), (self.required, self.limit, self.name))


__all__ = ["InterpreterError", "OutOfResources", "PTXASError", "AutotunerError"]
