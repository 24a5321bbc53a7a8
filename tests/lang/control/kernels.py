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


@triton.jit
def many_names_kernel(x_ptr, out_ptr, flag, BLOCK: tl.constexpr):
    # 72 variables in scope when the runtime if runs: only `acc` changes in it (a scope of
    # more than 64 names made every runtime if fail with "too many variables assigned")
    offs = tl.arange(0, BLOCK)
    acc = tl.load(x_ptr + offs)
    n0 = offs + 0
    n1 = n0 + 1
    n2 = n1 + 2
    n3 = n2 + 0
    n4 = n3 + 1
    n5 = n4 + 2
    n6 = n5 + 0
    n7 = n6 + 1
    n8 = n7 + 2
    n9 = n8 + 0
    n10 = n9 + 1
    n11 = n10 + 2
    n12 = n11 + 0
    n13 = n12 + 1
    n14 = n13 + 2
    n15 = n14 + 0
    n16 = n15 + 1
    n17 = n16 + 2
    n18 = n17 + 0
    n19 = n18 + 1
    n20 = n19 + 2
    n21 = n20 + 0
    n22 = n21 + 1
    n23 = n22 + 2
    n24 = n23 + 0
    n25 = n24 + 1
    n26 = n25 + 2
    n27 = n26 + 0
    n28 = n27 + 1
    n29 = n28 + 2
    n30 = n29 + 0
    n31 = n30 + 1
    n32 = n31 + 2
    n33 = n32 + 0
    n34 = n33 + 1
    n35 = n34 + 2
    n36 = n35 + 0
    n37 = n36 + 1
    n38 = n37 + 2
    n39 = n38 + 0
    n40 = n39 + 1
    n41 = n40 + 2
    n42 = n41 + 0
    n43 = n42 + 1
    n44 = n43 + 2
    n45 = n44 + 0
    n46 = n45 + 1
    n47 = n46 + 2
    n48 = n47 + 0
    n49 = n48 + 1
    n50 = n49 + 2
    n51 = n50 + 0
    n52 = n51 + 1
    n53 = n52 + 2
    n54 = n53 + 0
    n55 = n54 + 1
    n56 = n55 + 2
    n57 = n56 + 0
    n58 = n57 + 1
    n59 = n58 + 2
    n60 = n59 + 0
    n61 = n60 + 1
    n62 = n61 + 2
    n63 = n62 + 0
    n64 = n63 + 1
    n65 = n64 + 2
    n66 = n65 + 0
    n67 = n66 + 1
    n68 = n67 + 2
    n69 = n68 + 0
    if flag > 0:
        acc = acc * 2.0 + n69
    else:
        acc = acc - n69
    tl.store(out_ptr + offs, acc)


@triton.jit
def many_temps_loop_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # a loop body with 70 names of its own and one carried value (a body of more than 64
    # assigned names failed with "too many variables assigned in one loop")
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(n):
        t0 = tl.load(x_ptr + offs) + i
        t1 = t0 + 1
        t2 = t1 + 0
        t3 = t2 + 1
        t4 = t3 + 0
        t5 = t4 + 1
        t6 = t5 + 0
        t7 = t6 + 1
        t8 = t7 + 0
        t9 = t8 + 1
        t10 = t9 + 0
        t11 = t10 + 1
        t12 = t11 + 0
        t13 = t12 + 1
        t14 = t13 + 0
        t15 = t14 + 1
        t16 = t15 + 0
        t17 = t16 + 1
        t18 = t17 + 0
        t19 = t18 + 1
        t20 = t19 + 0
        t21 = t20 + 1
        t22 = t21 + 0
        t23 = t22 + 1
        t24 = t23 + 0
        t25 = t24 + 1
        t26 = t25 + 0
        t27 = t26 + 1
        t28 = t27 + 0
        t29 = t28 + 1
        t30 = t29 + 0
        t31 = t30 + 1
        t32 = t31 + 0
        t33 = t32 + 1
        t34 = t33 + 0
        t35 = t34 + 1
        t36 = t35 + 0
        t37 = t36 + 1
        t38 = t37 + 0
        t39 = t38 + 1
        t40 = t39 + 0
        t41 = t40 + 1
        t42 = t41 + 0
        t43 = t42 + 1
        t44 = t43 + 0
        t45 = t44 + 1
        t46 = t45 + 0
        t47 = t46 + 1
        t48 = t47 + 0
        t49 = t48 + 1
        t50 = t49 + 0
        t51 = t50 + 1
        t52 = t51 + 0
        t53 = t52 + 1
        t54 = t53 + 0
        t55 = t54 + 1
        t56 = t55 + 0
        t57 = t56 + 1
        t58 = t57 + 0
        t59 = t58 + 1
        t60 = t59 + 0
        t61 = t60 + 1
        t62 = t61 + 0
        t63 = t62 + 1
        t64 = t63 + 0
        t65 = t64 + 1
        t66 = t65 + 0
        t67 = t66 + 1
        t68 = t67 + 0
        t69 = t68 + 1
        acc += t69
    tl.store(out_ptr + offs, acc)


@triton.jit
def if_one_element_kernel(x_ptr, out_ptr, explicit: tl.constexpr):
    # a tile of one element as an `if` condition is its value (Triton's unsplat), at rank 1 and 2
    c = tl.load(x_ptr + tl.arange(0, 1)) > 42
    if explicit:
        c = c.item()
    if c:
        tl.store(out_ptr, 1)
    d = tl.load(x_ptr + tl.arange(0, 1)[:, None] + tl.arange(0, 1)[None, :])
    if d < 0:
        tl.store(out_ptr + 1, 2)
    else:
        tl.store(out_ptr + 1, 3)
