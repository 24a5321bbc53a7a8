"""Kernels whose names resolve through their module's globals, as in Triton: constexpr
and dtype globals, @jit helpers imported from another module (by name, renamed, through a
module alias), libdevice functions imported by name, and a plain global (an error)."""

import ctx_helpers as h
import tilec
import tilec.language as tl
from ctx_helpers import plus_one
from ctx_helpers import times_scale as ts
from tilec.language.extra import libdevice
from tilec.language.extra.libdevice import rsqrt as fast_rsqrt

OFFSET = tl.constexpr(10)
OUT_DT = tl.float16
NOT_CONSTEXPR = 5


@tilec.jit
def helpers_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = plus_one(x) + ts(x) + h.plus_one(x) + OFFSET  # (x + 1) + 3x + (x + 1) + 10
    tl.store(out_ptr + offs, y, mask=mask)


@tilec.jit
def libdevice_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, fast_rsqrt(x) + libdevice.sqrt(x), mask=mask)


@tilec.jit
def dtype_global_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(OUT_DT), mask=mask)


@tilec.jit
def plain_global_kernel(out_ptr):
    tl.store(out_ptr, NOT_CONSTEXPR)


@tilec.jit(debug=True)
def helper_assert_kernel(x_ptr, d):
    tl.store(x_ptr, h.checked_div(tl.load(x_ptr), d))
