"""triton.backends for the drop-in: GPUTarget, DriverBase, and `backends`, the registry of
Triton's compiler backends (plugins of Triton's own MLIR compiler: "nvidia", "amd", and
triton-cpu's "cpu"). tilec is not one of them — it is a compiler of its own — so
`backends` is empty. This is also what keeps torch.compile working beside the drop-in:
torch takes `"cpu" in triton.backends.backends` to mean that Inductor may generate Triton
code for CPU tensors and compile it with Triton's compiler (triton.compile, ASTSource),
which the drop-in does not have; without it, Inductor compiles CPU graphs with its C++
backend, and a drop-in kernel called inside a compiled function runs eagerly on tilec.
The active driver (the CPU) is `triton.runtime.driver.active`."""

from .compiler import GPUTarget
from .driver import DriverBase


class Backend:
    """An entry of `backends` (Triton's: the backend's compiler and driver classes)."""

    def __init__(self, compiler, driver):
        self.compiler = compiler
        self.driver = driver


backends = {}

__all__ = ["GPUTarget", "DriverBase", "Backend", "backends"]
