# device_print / print, device_assert / assert, static_assert / static_print
# (tests/lang, family "debug"). The line numbers of the asserts are checked by the driver.
import triton
import triton.language as tl


@triton.jit
def print_kernel(x_ptr, k_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    k = tl.load(k_ptr + i)
    tl.device_print("x ", x)
    tl.device_print("two", x, k.to(tl.float32))
    print("scalar", tl.program_id(1) * 10 + tl.program_id(0))


@triton.jit
def print2d_kernel(k_ptr, M: tl.constexpr, N: tl.constexpr):
    k = tl.load(k_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.device_print("grid", k)


@triton.jit
def assert_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, mask=i < n, other=0)
    tl.device_assert(x >= 0, "x must be non-negative", mask=i < n)
    tl.store(out_ptr + i, x * 2, mask=i < n)


@triton.jit
def assert_stmt_kernel(x_ptr, out_ptr, limit):
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid)
    assert v < limit, "value over the limit"
    tl.store(out_ptr + pid, v)


@triton.jit
def static_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    tl.static_assert(BLOCK % 8 == 0)
    tl.static_assert(SCALE > 1, "SCALE must exceed 1")
    tl.static_print("static_kernel BLOCK =", BLOCK)
    i = tl.arange(0, BLOCK)
    tl.store(out_ptr + i, tl.load(x_ptr + i) * SCALE)


@triton.jit
def print_mixed_kernel(x_ptr, k_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.device_print("xk", tl.load(x_ptr + i), tl.load(k_ptr + i))


@triton.jit
def print_hex_kernel(k_ptr, N: tl.constexpr):
    k = tl.load(k_ptr + tl.arange(0, N))
    tl.device_print("hexk", k, hex=True)
    tl.device_print("hex16", k.to(tl.int16), hex=True)


# (moved here from pending/kernels.py once it compiled)
@triton.jit
def device_print_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.device_print("x", x)
    tl.device_assert(x >= 0, "negative input")
    tl.store(out_ptr + i, x)


# Tiles above rank 4: the runtime gets their index through an array (runtime/debug.h).
@triton.jit
def print5d_kernel(k_ptr):
    k = tl.load(k_ptr + tl.reshape(tl.arange(0, 16), (2, 1, 2, 2, 2)))
    tl.device_print("five", k)


@triton.jit
def assert6d_kernel(x_ptr):
    x = tl.load(x_ptr + tl.reshape(tl.arange(0, 64), (2, 2, 2, 2, 2, 2)))
    tl.device_assert(x != 37, "x hit 37")


@triton.jit
def oob5d_kernel(x_ptr, out_ptr):
    offs = tl.reshape(tl.arange(0, 64), (2, 2, 2, 2, 4))
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


# Triton's exact line format: indices padded to ceil(log10(dim)) digits, the prefix made
# " NAME: ", "(operand N) " with several values, unsigned and hex values, text alone.
@triton.jit
def print_format_kernel(k_ptr):
    k = tl.load(k_ptr + tl.arange(0, 2)[:, None] * 16 + tl.arange(0, 16)[None, :])
    tl.device_print("k ", k)
    tl.device_print("", k, k.to(tl.uint8))
    print("text only")
    tl.device_print("h", k.to(tl.int16), hex=True)
    tl.device_print("f:", (k * 0.5).to(tl.float16))


# A constant False asserts where it runs (sglang's "Only last split should compute k_pe"):
# not at compile time, and not in a branch no program takes.
@triton.jit
def const_false_assert_kernel(x_ptr, N: tl.constexpr):
    pid = tl.program_id(0)
    if pid < N - 1:
        tl.device_assert(False, "only the last program gets here")
    if pid == N:
        assert False, "past the grid"
    tl.store(x_ptr + pid, pid + 1)
