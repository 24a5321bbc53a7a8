"""triton.backends.compiler for the drop-in: GPUTarget, the (backend, arch, warp_size)
triple host code inspects (`target.backend == "cuda"`...); tilec's is ("cpu", machine, 1)."""

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class GPUTarget:
    backend: str
    arch: Union[int, str]
    warp_size: int


__all__ = ["GPUTarget"]
