"""``tl.math`` — the math functions of the kernel language (compiled by tilec; host-side
stand-ins here). Canonical path ``triton.language.math``."""

from ._stubs import export_stubs

__tilec_path__ = "triton.language.math"

_NAMES = """
abs ceil cos div_rn erf exp exp2 fdiv floor fma log log2 rsqrt sin sqrt sqrt_rn umulhi
""".split()
export_stubs(globals(), __tilec_path__, _NAMES)
__all__ = list(_NAMES)
