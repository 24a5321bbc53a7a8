"""triton.errors for the drop-in: Triton's base exception IS tilec's, so every tilec
error (tilec.CompilationError, tilec.KernelError) is a `triton.TritonError`."""

from tilec.errors import TilecError as TritonError

__all__ = ["TritonError"]
