# Triton's random number functions (tl.rand, tl.randint, tl.randn, the *4x variants and
# tl.philox) from the tilec prelude, checked by tests/e2e/random_test.c against a C Philox
# reference: one kernel per entry point, each storing every stream it gets.
import triton
import triton.language as tl


@triton.jit
def rand_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs), mask=offs < n)


@triton.jit
def randint_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.randint(seed, offs), mask=offs < n)


@triton.jit
def randint4x_kernel(o0_ptr, o1_ptr, o2_ptr, o3_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r0, r1, r2, r3 = tl.randint4x(seed, offs)
    tl.store(o0_ptr + offs, r0, mask=mask)
    tl.store(o1_ptr + offs, r1, mask=mask)
    tl.store(o2_ptr + offs, r2, mask=mask)
    tl.store(o3_ptr + offs, r3, mask=mask)


@triton.jit
def rand4x_kernel(o0_ptr, o1_ptr, o2_ptr, o3_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    u0, u1, u2, u3 = tl.rand4x(seed, offs)
    tl.store(o0_ptr + offs, u0, mask=mask)
    tl.store(o1_ptr + offs, u1, mask=mask)
    tl.store(o2_ptr + offs, u2, mask=mask)
    tl.store(o3_ptr + offs, u3, mask=mask)


@triton.jit
def randn_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.randn(seed, offs), mask=offs < n)


@triton.jit
def randn4x_kernel(o0_ptr, o1_ptr, o2_ptr, o3_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    n0, n1, n2, n3 = tl.randn4x(seed, offs)
    tl.store(o0_ptr + offs, n0, mask=mask)
    tl.store(o1_ptr + offs, n1, mask=mask)
    tl.store(o2_ptr + offs, n2, mask=mask)
    tl.store(o3_ptr + offs, n3, mask=mask)


# Fewer rounds through the keyword, the random.* spelling, and an offset that is a scalar
# (one value per program, stored at index pid).
@triton.jit
def rounds_kernel(out_ptr, pid_ptr, seed, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.random.randint(seed, offs, n_rounds=7), mask=offs < n)
    tl.store(pid_ptr + pid, tl.randint(seed, pid + 1000000))


# Four independent counter words, 32-bit, 6 rounds.
@triton.jit
def philox_kernel(o0_ptr, o1_ptr, o2_ptr, o3_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c1 = offs * 7919
    c2 = offs ^ 0x5A5A
    c3 = n - offs
    r0, r1, r2, r3 = tl.philox(seed, offs, c1, c2, c3, 6)
    tl.store(o0_ptr + offs, r0, mask=mask)
    tl.store(o1_ptr + offs, r1, mask=mask)
    tl.store(o2_ptr + offs, r2, mask=mask)
    tl.store(o3_ptr + offs, r3, mask=mask)


# 64-bit offsets: the low word is the first counter, the high word the second.
@triton.jit
def randint64_kernel(o0_ptr, o1_ptr, f_ptr, seed, base, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    big = base + offs.to(tl.int64) * 4294967311
    r0, r1, _, _ = tl.randint4x(seed, big)
    tl.store(o0_ptr + offs, r0, mask=mask)
    tl.store(o1_ptr + offs, r1, mask=mask)
    tl.store(f_ptr + offs, tl.rand(seed, big), mask=mask)


# 64-bit counters straight into tl.philox: Philox4x64-10 keyed by (seed, 0).
@triton.jit
def philox64_kernel(o0_ptr, o1_ptr, o2_ptr, o3_ptr, f_ptr, seed, base, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c0 = base + offs.to(tl.int64)
    c1 = c0 * 3
    r0, r1, r2, r3 = tl.philox(seed, c0, c1, c0 ^ 0x7777, base - c0)
    tl.store(o0_ptr + offs, r0, mask=mask)
    tl.store(o1_ptr + offs, r1, mask=mask)
    tl.store(o2_ptr + offs, r2, mask=mask)
    tl.store(o3_ptr + offs, r3, mask=mask)
    tl.store(f_ptr + offs, tl.uint_to_uniform_float(r0), mask=mask)


# A compile-time seed (Triton's const_seed case: the literal is typed like any Python int).
@triton.jit
def const_seed_kernel(out_ptr, n, SEED: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.randint(seed=SEED, offset=offs), mask=offs < n)


# uint_to_uniform_float at the extremes: INT_MIN and INT_MAX both map just below 1.0.
@triton.jit
def limits_kernel(in_ptr, in64_ptr, out_ptr, out64_ptr, BLOCK: tl.constexpr):
    idx = tl.arange(0, BLOCK)
    tl.store(out_ptr + idx, tl.random.uint_to_uniform_float(tl.load(in_ptr + idx)))
    tl.store(out64_ptr + idx, tl.random.uint_to_uniform_float(tl.load(in64_ptr + idx)))
