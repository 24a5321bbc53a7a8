"""``tl.core`` — Triton keeps the language's classes and functions in
``triton.language.core``; host code sometimes imports them from there (``from
triton.language.core import constexpr``). Everything is re-exported from
``tilec.language``."""

from . import *  # noqa: F401,F403
from . import constexpr, dtype, pointer_type, tensor, tensor_descriptor, block_type  # noqa: F401

__tilec_path__ = "triton.language"


def get_int_dtype(bitwidth, signed):
    """The integer dtype of a width and signedness (Triton's ``core.get_int_dtype``); kernels
    call it as a constexpr function (``triton.constexpr_function(core.get_int_dtype)``)."""
    if bitwidth == 1:
        return int1  # noqa: F405
    elif bitwidth == 8 and signed:
        return int8  # noqa: F405
    elif bitwidth == 8 and not signed:
        return uint8  # noqa: F405
    elif bitwidth == 16 and signed:
        return int16  # noqa: F405
    elif bitwidth == 16 and not signed:
        return uint16  # noqa: F405
    elif bitwidth == 32 and signed:
        return int32  # noqa: F405
    elif bitwidth == 32 and not signed:
        return uint32  # noqa: F405
    elif bitwidth == 64 and signed:
        return int64  # noqa: F405
    elif bitwidth == 64 and not signed:
        return uint64  # noqa: F405
    else:
        raise ValueError(f'Unsupported bitwidth {bitwidth} and signedness {signed}')


# Triton's module constants of triton.language.core that libraries use (a parameter default
# `descending: tl.constexpr = core.CONSTEXPR_0`; the names of builtin markers and warnings)
CONSTEXPR_0 = constexpr(0)
TRITON_BUILTIN = "__triton_builtin__"
CAT_CAN_REORDER_WARNING = ("tl.cat(can_reorder=True) is deprecated and will be removed in Triton 3.10, "
                           "when concatenation will always be deterministic. Pass can_reorder=False "
                           "(the default) to adopt the new behavior.")
RESHAPE_CAN_REORDER_WARNING = ("tl.reshape(can_reorder=True) is deprecated and will be removed in Triton 3.10. "
                               "Pass can_reorder=False (the default) to adopt the new behavior.")
