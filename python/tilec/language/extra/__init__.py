"""``tl.extra`` — extra function libraries; ``libdevice`` (CUDA's math library names,
computed by tilec with SLEEF and inline code on the CPU)."""

from . import libdevice  # noqa: F401

__tilec_path__ = "triton.language.extra"
__all__ = ["libdevice"]
