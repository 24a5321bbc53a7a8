# Atomics on scalar and tile pointers, masked, returning old values (tests/lang, family
# "atomics").
import triton
import triton.language as tl


# one atomic per lane on distinct addresses: dst[i] = OP(dst[i], val[i]) for i < n,
# old[i] = the previous dst[i]
@triton.jit
def atomic_tile_kernel(dst_ptr, val_ptr, old_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    v = tl.load(val_ptr + i, mask=m)
    p = dst_ptr + i
    if OP == "add":
        old = tl.atomic_add(p, v, mask=m)
    elif OP == "max":
        old = tl.atomic_max(p, v, mask=m)
    elif OP == "min":
        old = tl.atomic_min(p, v, mask=m)
    elif OP == "and":
        old = tl.atomic_and(p, v, mask=m)
    elif OP == "or":
        old = tl.atomic_or(p, v, mask=m)
    elif OP == "xor":
        old = tl.atomic_xor(p, v, mask=m)
    elif OP == "xchg":
        old = tl.atomic_xchg(p, v, mask=m)
    else:
        tl.static_assert(False, "unknown OP")
    tl.store(old_ptr + i, old, mask=m)


# every lane of every program adds 1 to one counter (lanes with i >= n do not):
# the old values seen must be 0, 1, ..., n - 1 in some order
@triton.jit
def ticket_kernel(ctr_ptr, tickets_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    one = tl.full([BLOCK], 1, tl.int32)
    t = tl.atomic_add(ctr_ptr + tl.zeros([BLOCK], tl.int32), one, mask=i < n, sem="acq_rel", scope="gpu")
    tl.store(tickets_ptr + i, t, mask=i < n)


# contended float max/min/add into a few bins and a scalar float add per program
@triton.jit
def contended_float_kernel(x_ptr, mx_ptr, mn_ptr, sum_ptr, total_ptr, n, BINS: tl.constexpr,
                           BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m, other=0.0)
    b = i % BINS
    tl.atomic_max(mx_ptr + b, x, mask=m)
    tl.atomic_min(mn_ptr + b, x, mask=m)
    tl.atomic_add(sum_ptr + b, x, mask=m, sem="relaxed")
    tl.atomic_add(total_ptr, tl.sum(x, axis=0))


# compare-and-swap on a tile: lanes whose dst equals cmp take val; old values returned
@triton.jit
def cas_tile_kernel(dst_ptr, cmp_ptr, val_ptr, old_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    old = tl.atomic_cas(dst_ptr + i, tl.load(cmp_ptr + i), tl.load(val_ptr + i))
    tl.store(old_ptr + i, old)


# scalar atomics returning old values; each program adds its id and records what it saw
@triton.jit
def scalar_atomics_kernel(acc_ptr, seen_ptr, bits_ptr):
    pid = tl.program_id(0)
    seen = tl.atomic_add(acc_ptr, pid + 1)
    tl.store(seen_ptr + pid, seen)
    tl.atomic_or(bits_ptr, 1 << (pid % 32))
    tl.atomic_max(bits_ptr + 1, pid * 7 % 23)
    tl.atomic_min(bits_ptr + 2, 100 - pid)
    tl.atomic_xor(bits_ptr + 3, pid)


# a 2-D tile of float atomics cut by a mask on both dimensions
@triton.jit
def atomic2d_kernel(dst_ptr, old_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.arange(0, BM)[:, None]
    c = tl.arange(0, BN)[None, :]
    m = (r < M) & (c < N)
    old = tl.atomic_add(dst_ptr + r * N + c, (r * 100 + c).to(tl.float32), mask=m)
    tl.store(old_ptr + r * N + c, old, mask=m)


# fp16 atomic adds, four lanes per address
@triton.jit
def atomic_f16_kernel(dst_ptr, x_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.atomic_add(dst_ptr + i % 4, tl.load(x_ptr + i))


# A row or column sum of a 16-bit float tile added atomically (the shape of Triton's
# test_tensor_atomic_rmw): the pointers hold fp16 or bf16 bits (BF16 chooses), old values
# come back. The sum keeps the dtype and accumulates in fp32.
@triton.jit
def atomic_sum16_kernel(z_ptr, x_ptr, old_ptr, AXIS: tl.constexpr, S0: tl.constexpr, S1: tl.constexpr,
                        BF16: tl.constexpr):
    if BF16:
        z_ptr = z_ptr.to(tl.pointer_type(tl.bfloat16))
        x_ptr = x_ptr.to(tl.pointer_type(tl.bfloat16))
        old_ptr = old_ptr.to(tl.pointer_type(tl.bfloat16))
    r0 = tl.arange(0, S0)
    r1 = tl.arange(0, S1)
    x = tl.load(x_ptr + r0[:, None] * S1 + r1[None, :])
    z = tl.sum(x, axis=AXIS)
    tl.static_assert(z.dtype == x.dtype)
    if AXIS == 1:
        old = tl.atomic_add(z_ptr + r0, z)
        tl.store(old_ptr + r0, old)
    else:
        old = tl.atomic_add(z_ptr + r1, z)
        tl.store(old_ptr + r1, old)


# Two lanes per address (offset // 2), 16-bit floats; then cas and an old-value exchange
# through a 16-bit cas loop of its own
@triton.jit
def atomic_pairs16_kernel(x_ptr, val_ptr, c_ptr, NUM: tl.constexpr, BF16: tl.constexpr):
    if BF16:
        x_ptr = x_ptr.to(tl.pointer_type(tl.bfloat16))
        val_ptr = val_ptr.to(tl.pointer_type(tl.bfloat16))
        c_ptr = c_ptr.to(tl.pointer_type(tl.bfloat16))
    off = tl.arange(0, NUM)
    offset = off[:, None] * NUM + off[None, :]
    tl.atomic_add(x_ptr + offset // 2, tl.load(val_ptr + offset))
    # cas: lane i swaps in 2.0 where c holds 1.0
    i = tl.arange(0, NUM)
    tl.atomic_cas(c_ptr + i, tl.full([NUM], 1.0, c_ptr.dtype.element_ty), tl.full([NUM], 2.0, c_ptr.dtype.element_ty))


@triton.jit
def atomic_max_bf16_kernel(x_ptr):
    p = x_ptr.to(tl.pointer_type(tl.bfloat16))
    tl.atomic_max(p + tl.arange(0, 16), tl.full([16], 1.0, tl.bfloat16))


@triton.jit
def atomic_add_i16_kernel(x_ptr):
    tl.atomic_add(x_ptr + tl.arange(0, 16), 1)


# (moved here from pending/kernels.py once it compiled)
@triton.jit
def atomic_add_kernel(x_ptr, total_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    i = pid * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m, other=0)
    tl.atomic_add(total_ptr, tl.sum(x, axis=0))
    tl.atomic_add(hist_ptr + (x % 8), 1, mask=m)


@triton.jit
def atomic_cas_lock_kernel(lock_ptr, counter_ptr, log_ptr):
    pid = tl.program_id(0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    c = tl.load(counter_ptr)
    tl.store(log_ptr + pid, c)
    tl.store(counter_ptr, c + 1)
    tl.atomic_xchg(lock_ptr, 0)
