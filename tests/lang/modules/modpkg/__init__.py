"""A package of @jit helpers that kernels in tests/lang/kernels import (modules family)."""
import triton.language as tl

PKG_OFFSET = tl.constexpr(0.5)
