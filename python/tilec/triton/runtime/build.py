"""triton.runtime.build for the drop-in: Triton compiles its GPU drivers' launchers as C
extensions at run time with these functions; tilec's launcher is part of the package, so
they are refused (NotImplementedError naming the feature). platform_key() answers."""

import platform

from .. import _refused


def platform_key():
    """The host's machine, system and architecture (Triton's key for built extensions)."""
    return ",".join([platform.machine(), platform.system(), platform.architecture()[0]])


_build = _refused.refused_function("triton.runtime.build")
compile_so_from_src = compile_so_from_file = _build
compile_module_from_src = compile_module_from_file = _build

__all__ = ["platform_key", "compile_so_from_src", "compile_so_from_file", "compile_module_from_src",
           "compile_module_from_file"]
