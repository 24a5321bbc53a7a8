"""``tl.core`` — Triton keeps the language's classes and functions in
``triton.language.core``; host code sometimes imports them from there (``from
triton.language.core import constexpr``). Everything is re-exported from
``tilec.language``."""

from . import *  # noqa: F401,F403
from . import constexpr, dtype, pointer_type, tensor, tensor_descriptor, block_type  # noqa: F401

__tilec_path__ = "triton.language"
