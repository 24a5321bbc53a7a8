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
