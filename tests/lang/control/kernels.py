# Control flow (tests/lang, family "control").
import triton
import triton.language as tl


@triton.jit
def if_elif_kernel(x_ptr, out_ptr, sel, BLOCK: tl.constexpr):
    # runtime if/elif/else on a scalar; tiles defined in every branch and used after
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    if sel == 0:
        y = x + 1.0
        s = 10
    elif sel == 1:
        y = x * 2.0
        s = 20
    else:
        y = -x
        s = 30
    tl.store(out_ptr + i, y + s)


@triton.jit
def if_tile_cond_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # the condition is a reduction result; only one branch assigns `z`'s replacement
    pid = tl.program_id(0)
    i = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, mask=i < n, other=0.0)
    z = x
    total = tl.sum(x, axis=0)
    if total > 0:
        z = x - total
    tl.store(out_ptr + i, z, mask=i < n)


@triton.jit
def for_runtime_kernel(out_ptr, lo, hi, step, BLOCK: tl.constexpr):
    # for over range with runtime bounds and step; loop-carried tile and scalar
    i = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.int32)
    cnt = 0
    for k in range(lo, hi, step):
        acc += i * k
        cnt += 1
    tl.store(out_ptr + i, acc + cnt)


@triton.jit
def tl_range_kernel(out_ptr, lo, hi, step, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in tl.range(lo, hi, step, num_stages=3, loop_unroll_factor=2):
        acc = acc * 0.5 + k
    tl.store(out_ptr + i, acc + i)


@triton.jit
def neg_step_kernel(out_ptr, BLOCK: tl.constexpr, START: tl.constexpr, STEP: tl.constexpr):
    # negative constexpr step; order matters: h = h * 3 + k
    i = tl.arange(0, BLOCK)
    h = i * 0
    for k in range(START, -1, STEP):
        h = h * 3 + k
    tl.store(out_ptr + i, h + i)


@triton.jit
def nested_kernel(x_ptr, out_ptr, M, N, BN: tl.constexpr):
    # nested runtime loops: out[r] = sum over row r in BN chunks, rows with a scalar loop
    c = tl.arange(0, BN)
    for r in range(0, M):
        acc = tl.zeros((BN,), dtype=tl.float32)
        for c0 in range(0, N, BN):
            acc += tl.load(x_ptr + r * N + c0 + c, mask=c0 + c < N, other=0.0)
        tl.store(out_ptr + r, tl.sum(acc, axis=0))


@triton.jit
def while_kernel(n_ptr, out_ptr, BLOCK: tl.constexpr):
    # Collatz steps of a scalar with a runtime while
    v = tl.load(n_ptr + tl.program_id(0))
    steps = 0
    while v != 1:
        if v % 2 == 0:
            v = v // 2
        else:
            v = 3 * v + 1
        steps += 1
    tl.store(out_ptr + tl.program_id(0), steps)


@triton.jit
def static_range_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, NREP: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    acc = x
    for k in tl.static_range(1, NREP):
        acc = acc * x + k          # Horner-like polynomial, unrolled
    tl.store(out_ptr + i, acc)


@triton.jit
def constexpr_str_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, ACT: tl.constexpr, BIAS: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    if ACT == "relu":
        x = tl.maximum(x, 0.0)
    elif ACT == "leaky":
        x = tl.where(x > 0, x, x * 0.125)
    else:
        x = x * 1.0
    if BIAS is None:
        y = x
    else:
        y = x + BIAS
    tl.store(out_ptr + i, y)


@triton.jit
def ternary_kernel(x_ptr, out_ptr, flag, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    s = 2.0 if SCALE > 1 else 0.5             # constexpr ternary
    t = x if flag > 0 else -x                 # runtime ternary on tiles
    n = 3 if flag > 0 else 5                  # runtime ternary on scalars
    tl.store(out_ptr + i, t * s + n)


@triton.jit
def early_zero_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # an if with no else that changes a loop-carried pointer and a tile
    p = x_ptr
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    i = tl.arange(0, BLOCK)
    for k in range(0, n):
        v = tl.load(p + i)
        if k % 2 == 1:
            v = v * -1.0
        acc += v
        p += BLOCK
    tl.store(out_ptr + i, acc)


@triton.jit
def while_tile_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # while loop carrying a tile: halve until every element is below 1
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    it = 0
    while tl.max(x, axis=0) >= 1.0:
        x = x * 0.5
        it += 1
    tl.store(out_ptr + i, x + it)


@triton.jit
def ternary_effects_kernel(a_ptr, b_ptr, x_ptr, out_ptr):
    # a runtime conditional expression runs only its taken branch (Triton lowers it to an
    # scf.if): one atomic per program, void branches, a constant merged with a loaded value
    pid = tl.program_id(0)
    old = tl.atomic_add(a_ptr + pid, 1) if pid % 2 == 0 else tl.atomic_add(b_ptr + pid, 1)
    tl.store(out_ptr + pid, old)
    v = 3.5 if pid % 2 == 0 else tl.load(x_ptr)
    tl.store(out_ptr + 4 + pid, v)
    tl.store(out_ptr + 8 + pid, 1.0) if pid == 0 else tl.store(out_ptr + 8 + pid, 2.0)
    w = (1 if pid == 1 else 2) if pid < 2 else 3
    tl.store(out_ptr + 12 + pid, w)
