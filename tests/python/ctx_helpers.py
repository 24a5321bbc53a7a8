"""@jit helpers and a constexpr global in a module of their own (kernels_context.py
imports them by name, under an alias, and through a module alias)."""

import tilec
import tilec.language as tl

SCALE = tl.constexpr(3)


@tilec.jit
def times_scale(x):
    return x * SCALE


@tilec.jit
def plus_one(x):
    return x + 1


@tilec.jit
def checked_div(x, d):
    tl.device_assert(d != 0, "division by zero")
    return x / d
