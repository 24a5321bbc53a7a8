"""@jit helpers of the modpkg package."""
import triton
import triton.language as tl

from . import PKG_OFFSET


@triton.jit
def triple(x):
    return x * 3 + PKG_OFFSET
