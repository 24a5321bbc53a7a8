"""@jit helpers imported by modules.py: they resolve names through THIS module."""
import triton
import triton.language as tl

FACTOR = tl.constexpr(3.0)  # modules.py has its own SCALE; scale_add must use this one
OFFSET = tl.constexpr(0.25)


@triton.jit
def scale_add(x, y):
    return x * FACTOR + y


@triton.jit
def twice(x):
    return x + x


@triton.jit
def helper_with_error(x):
    return x + NOT_DEFINED_IN_HELPERS
