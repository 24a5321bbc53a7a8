"""The kernels the Python benchmarks run, written once in Triton's language.

Under ``TRITON_INTERPRET=1`` they are real ``triton.jit`` functions run by Triton's
interpreter; otherwise ``tilec.jit`` functions compiled by tilec. Same source, same host
code (bench/python/peers.py)."""

import os

if os.environ.get("TRITON_INTERPRET") == "1":
    import triton as _front
    import triton.language as tl
else:
    import tilec as _front
    import tilec.language as tl

jit = _front.jit
cdiv = _front.cdiv
next_power_of_2 = _front.next_power_of_2


@jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    """One program per row, the whole row in one tile (Triton's tutorial 02, unpersisted)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, y, mask=mask)


@jit
def launch_kernel(a_ptr, b_ptr, n, alpha):
    """Four arguments and almost no work: what a launch costs."""
    if n < 0:
        tl.store(a_ptr, tl.load(b_ptr) * alpha)
