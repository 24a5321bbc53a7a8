"""``tl.math`` — the math functions of the kernel language (compiled by tilec; host-side
stand-ins here). Canonical path ``triton.language.math``.

The names: Triton 3.9's ``triton.language.math`` and every elementwise math function of
the compiler's registry (the "math" family of ``tilec._C.language_functions()``: also
``tanh``, ``pow``, ``isnan``, ... which kernels may call as ``tl.math.NAME``)."""

from . import _stubs
from .. import _C

__tilec_path__ = "triton.language.math"

_TRITON_NAMES = """
abs ceil cos div_rn erf exp exp2 fdiv floor fma log log2 rsqrt sin sqrt sqrt_rn umulhi
""".split()
_NAMES = sorted(set(_TRITON_NAMES) | {n for n, g, _ in _C.language_functions() if g == "math"})
_stubs.export_stubs(globals(), __tilec_path__, _NAMES)
__all__ = list(_NAMES)

