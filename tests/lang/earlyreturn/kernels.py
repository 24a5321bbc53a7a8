# `return` under runtime conditions (tests/lang, family "earlyreturn"): a program that skips
# its row, returns in the middle with loops after it, helpers that return values on some
# paths, tuples, nested conditions; and the forms Triton rejects.
import triton
import triton.language as tl


# one program per row; programs past the last row return at once. The row is summed in a
# loop over column blocks after the return.
@triton.jit
def row_skip_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    if row >= n_rows:
        return
    acc = tl.zeros([BLOCK], tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + c, mask=c < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc))


# a store before the return happens; after it, nested loops and an 'if' whose branch
# also returns (the second return skips the last store)
@triton.jit
def middle_return_kernel(x_ptr, out_ptr, flag_ptr, lim, M: tl.constexpr, N: tl.constexpr):
    pid = tl.program_id(0)
    tl.store(flag_ptr + pid, 1)
    v = tl.load(x_ptr + pid)
    if v < 0:
        tl.store(flag_ptr + pid, 2)
        return
    total = 0.0
    for i in range(M):
        for j in range(N):
            total += v * (i + 1) + j
    if total > lim:
        tl.store(out_ptr + pid, -total)
        return
    tl.store(out_ptr + pid, total)
    tl.store(flag_ptr + pid, 3)


@triton.jit
def _pick(x, lim):
    # returns on three paths; the last one falls through to the end
    if lim < 0:
        return x * 2.0
    if lim > 100:
        return x - 1.0
    return tl.minimum(x, lim)


@triton.jit
def _pair(a, b, swap):
    if swap:
        return b, a
    return a, b


# a helper with several returns, called in a loop; a helper returning tuples
@triton.jit
def helper_return_kernel(x_ptr, lim_ptr, out_ptr, o1_ptr, o2_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid * BLOCK + i)
    acc = tl.zeros([BLOCK], tl.float32)
    for k in range(3):
        lim = tl.load(lim_ptr + pid * 3 + k)
        acc += _pick(x, lim)
    tl.store(out_ptr + pid * BLOCK + i, acc)
    a, b = _pair(x, x + 1.0, pid % 2 == 1)
    tl.store(o1_ptr + pid * BLOCK + i, a)
    tl.store(o2_ptr + pid * BLOCK + i, b)


# nested: the inner 'if' returns; a name defined after it in the outer branch and in the
# outer else is used after the outer 'if'
@triton.jit
def nested_return_kernel(a_ptr, b_ptr, out_ptr):
    pid = tl.program_id(0)
    a = tl.load(a_ptr + pid)
    b = tl.load(b_ptr + pid)
    if a > 0:
        if b > 0:
            tl.store(out_ptr + pid, 100)
            return
        x = a * 10
    else:
        x = a - 1
    tl.store(out_ptr + pid, x + b)


# ---- errors -----------------------------------------------------------------------------------
@triton.jit
def return_in_loop_kernel(x_ptr, n):
    for i in range(n):
        if tl.load(x_ptr + i) < 0:
            return
        tl.store(x_ptr + i, 0)


@triton.jit
def _mismatch(x, c):
    if c > 0:
        return x
    return 1


@triton.jit
def return_type_mismatch_kernel(x_ptr, c):
    x = tl.load(x_ptr)
    tl.store(x_ptr, _mismatch(x, c))


@triton.jit
def return_in_static_range_kernel(x_ptr):
    for i in tl.static_range(4):
        if tl.load(x_ptr + i) < 0:
            return
        tl.store(x_ptr + i, 0)


# After an early return the rest of the block may give a name another type (flash-attention's
# rotary kernel: `X = X + offsets` after `if pid_m * BLOCK_M >= seqlen: return`): a pointer
# becomes a pointer tile, an int argument a tile, a scalar tensor a tile; in a helper too.
@triton.jit
def _rebind_after_return(p, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return 0.0
    p = p + pid * BLOCK + tl.arange(0, BLOCK)
    return tl.sum(tl.load(p, mask=tl.arange(0, BLOCK) < n - pid * BLOCK, other=0.0), axis=0)


@triton.jit
def rebind_after_return_kernel(x_ptr, out_ptr, sums_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = pid.to(tl.float32) * 0.0
    tl.store(sums_ptr + pid, _rebind_after_return(x_ptr, n, BLOCK))
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    out_ptr = out_ptr + offs
    acc = acc + tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    n = offs < n
    tl.store(out_ptr, acc * 2.0, mask=n)
