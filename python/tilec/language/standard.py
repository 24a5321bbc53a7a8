"""``triton.language.standard`` (the drop-in serves it as this module): the kernel-language
functions of tilec.language, and the compile-time helpers libraries import from here by
name (``from triton.language.standard import _log2``). In kernels the compiler runs its own
definitions of these (frontend/prelude.py); here they are what host code calls."""

from . import __all__ as _names
from . import *  # noqa: F401,F403 - the module mirrors triton.language's functions


def _log2(i):
    """floor(log2(i)) for i >= 1, 0 below (Triton's ``standard._log2``)."""
    i = i.value if type(i).__name__ == "constexpr" else i
    log2 = 0
    while i > 1:
        i >>= 1
        log2 += 1
    return log2


def _is_power_of_two(i):
    i = i.value if type(i).__name__ == "constexpr" else i
    return (i & (i - 1)) == 0 and i != 0


def _get_int_dtype(bitwidth, signed):
    """The integer dtype of a width and signedness (Triton's ``core.get_int_dtype``)."""
    from . import int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64

    table = {(8, True): int8, (16, True): int16, (32, True): int32, (64, True): int64, (1, False): int1,
             (8, False): uint8, (16, False): uint16, (32, False): uint32, (64, False): uint64}
    key = (bitwidth.value if type(bitwidth).__name__ == "constexpr" else bitwidth, bool(signed))
    if key not in table:
        raise TypeError(f"Unsupported bitwidth {key[0]} and signedness {key[1]}")
    return table[key]


def _pick_sum_dtype(in_dtype, dtype):
    """tl.sum's accumulator type: dtype when given, else 32 bits for narrower integers."""
    if dtype is not None:
        return dtype
    if in_dtype.is_int_signed() and in_dtype.int_bitwidth < 32:
        return int32  # noqa: F405
    if in_dtype.is_int_unsigned() and in_dtype.int_bitwidth < 32:
        return uint32  # noqa: F405
    return in_dtype


class _KernelFunction:
    """A @jit function of triton.language.standard (a combine function for tl.reduce /
    tl.associative_scan) that kernels may name; the compiler has its definition."""

    def __init__(self, name):
        self.__name__ = name
        self.__tilec_path__ = "triton.language.standard." + name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"triton.language.standard.{self.__name__} is a @jit function: call it inside a kernel")

    def __repr__(self):
        return f"JITFunction(triton.language.standard:{self.__name__})"


_COMBINE = ["_sum_combine", "_prod_combine", "_xor_combine", "_or_combine", "_elementwise_max", "_elementwise_min",
            "_argmax_combine", "_argmax_combine_tie_break_left", "_argmax_combine_tie_break_fast", "_argmin_combine",
            "_argmin_combine_tie_break_left", "_argmin_combine_tie_break_fast"]
for _n in _COMBINE:
    globals()[_n] = _KernelFunction(_n)

for _f in (_log2, _is_power_of_two, _get_int_dtype, _pick_sum_dtype):
    _f.__tilec_path__ = "triton.language.standard." + _f.__name__
del _f, _n

__all__ = list(_names) + ["_log2", "_is_power_of_two", "_get_int_dtype", "_pick_sum_dtype"] + _COMBINE
