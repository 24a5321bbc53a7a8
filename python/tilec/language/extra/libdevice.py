"""``tl.extra.libdevice`` — CUDA libdevice's math functions by name
(``from triton.language.extra import libdevice``; ``libdevice.asin(x)``). tilec computes
them on the CPU (SLEEF or inline code). Canonical path ``triton.language.extra.libdevice``;
``triton.language.extra.cuda.libdevice`` and ``...cpu.libdevice`` name the same module.

The names: Triton 3.9's libdevice module (CUDA's list, below), the compiler's elementwise
math functions and the functions of its prelude that are not triton.language names
(``tilec._C.language_functions()``: what a kernel may call as ``libdevice.NAME``). The
CUDA functions the compiler does not know (``NOT_COMPILED``: directed rounding other than
to nearest, Bessel and gamma functions, ...) keep their stand-in here, so host code that
imports them runs; a kernel that calls one fails to compile with "libdevice function
'NAME' is not supported"."""

from .._stubs import export_stubs
from ... import _C

__tilec_path__ = "triton.language.extra.libdevice"

_NAMES = """
clz popc byte_perm mulhi mul24 brev sad abs floor rcp64h rsqrt ceil trunc exp2 saturatef
fma_rn fma_rz fma_rd fma_ru fast_dividef div_rn div_rz div_rd div_ru rcp_rn rcp_rz rcp_rd
rcp_ru sqrt_rn sqrt_rz sqrt_rd sqrt_ru sqrt add_rn add_rz add_rd add_ru mul_rn mul_rz mul_rd
mul_ru double2float_rn double2float_rz double2float_rd double2float_ru double2int_rn
double2int_rz double2int_rd double2int_ru double2uint_rn double2uint_rz double2uint_rd
double2uint_ru int2double_rn uint2double_rn float2int_rn float2int_rz float2int_rd
float2int_ru float2uint_rn float2uint_rz float2uint_rd float2uint_ru int2float_rn
int2float_rz int2float_rd int2float_ru uint2float_rn uint2float_rz uint2float_rd
uint2float_ru hiloint2double double2loint double2hiint float2ll_rn float2ll_rz float2ll_rd
float2ll_ru float2ull_rn float2ull_rz float2ull_rd float2ull_ru double2ll_rn double2ll_rz
double2ll_rd double2ll_ru double2ull_rn double2ull_rz double2ull_rd double2ull_ru
ll2float_rn ll2float_rz ll2float_rd ll2float_ru ull2float_rn ull2float_rz ull2float_rd
ull2float_ru ll2double_rn ll2double_rz ll2double_rd ll2double_ru ull2double_rn ull2double_rz
ull2double_rd ull2double_ru int_as_float float_as_int uint_as_float float_as_uint
longlong_as_double double_as_longlong fast_sinf fast_cosf fast_log2f fast_logf fast_expf
fast_tanf fast_exp10f fast_log10f fast_powf hadd rhadd sub_rn sub_rz sub_rd sub_ru rsqrt_rn
ffs rint llrint nearbyint isnan signbit copysign finitef isinf nextafter sin cos sinpi cospi
tan log2 exp exp10 cosh sinh tanh atan2 atan asin acos log log10 log1p acosh asinh atanh
expm1 hypot rhypot norm3d rnorm3d norm4d rnorm4d cbrt rcbrt j0 j1 y0 y1 yn jn cyl_bessel_i0
cyl_bessel_i1 erf erfinv erfc erfcx erfcinv normcdfinv normcdf lgamma ldexp scalbn fmod
remainder fma pow tgamma round llround fdim ilogb logb isfinited fast_tanhf
""".split()
# CUDA libdevice's arities (every other function takes one argument)
_ARITY = {name: 2 for name in """
mulhi mul24 fast_dividef div_rn div_rz div_rd div_ru add_rn add_rz add_rd add_ru mul_rn mul_rz
mul_rd mul_ru sub_rn sub_rz sub_rd sub_ru hiloint2double fast_powf hadd rhadd copysign nextafter
atan2 hypot rhypot yn jn ldexp scalbn fmod remainder pow fdim
""".split()}
_ARITY.update({name: 3 for name in "sad byte_perm fma fma_rn fma_rz fma_rd fma_ru norm3d rnorm3d".split()})
_ARITY.update({"norm4d": 4, "rnorm4d": 4})
_CUDA_NAMES = _NAMES
from ...language import _TRITON_FUNCTIONS  # noqa: E402 (tilec.language imports this module last)

_TL_NAMES = frozenset(_TRITON_FUNCTIONS)
_COMPILED = {n for n, g, why in _C.language_functions() if why is None}
_NAMES = sorted(set(_CUDA_NAMES) | {n for n, g, _ in _C.language_functions()
                                    if g == "math" or (g == "prelude" and n not in _TL_NAMES)})
#: CUDA libdevice functions that kernels cannot call on tilec (see the module docstring).
NOT_COMPILED = sorted(set(_CUDA_NAMES) - _COMPILED)
export_stubs(globals(), __tilec_path__, _NAMES, arity=lambda name: _ARITY.get(name, 1) if name in _CUDA_NAMES else None,
             refusal=lambda name: f"libdevice function '{name}' is not supported" if name in NOT_COMPILED else None)
__all__ = list(_NAMES)
