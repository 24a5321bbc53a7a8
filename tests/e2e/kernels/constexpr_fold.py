# Compile-time integer arithmetic with Python semantics where 64 bits hold the result
# (tests/e2e/errors.sh compiles it; every tl.static_assert must hold, instantly).
import triton
import triton.language as tl


@triton.jit
def fold_kernel(x_ptr, B: tl.constexpr):
    tl.static_assert(1 ** 4000000000000000000 == 1)
    tl.static_assert((-1) ** 4000000000000000001 == -1)
    tl.static_assert(0 ** 4000000000000000000 == 0)
    tl.static_assert(2 ** 62 == 4611686018427387904)
    tl.static_assert(3 ** 39 == 4052555153018976267)
    tl.static_assert((-2) ** 63 == -9223372036854775807 - 1)
    tl.static_assert(2 ** -1 == 0.5)
    tl.static_assert(-(2 ** 62) * 2 == -9223372036854775807 - 1)
    tl.static_assert(7 // -1 == -7)
    tl.static_assert(-7 % 3 == 2)
    tl.static_assert((-9223372036854775807 - 1) % -1 == 0)
    tl.static_assert(1 << 62 == 4611686018427387904)
    tl.static_assert(-1 << 63 == -9223372036854775807 - 1)
    tl.static_assert(-5 >> 100 == -1)
    tl.store(x_ptr + tl.arange(0, B), tl.full((B,), B, tl.int32))
