# Block pointers, tensor descriptors, hints and pointer <-> int64 casts (tests/lang, family
# "pointers").
import triton
import triton.language as tl


# C = A @ B with block pointers: A and B advanced along K, every tile boundary-checked
@triton.jit
def block_ptr_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, lda, ldb, ldc,
                            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    a_blk = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(lda, 1), offsets=(pm * BM, 0),
                              block_shape=(BM, BK), order=(1, 0))
    b_blk = tl.make_block_ptr(b_ptr, (K, N), (ldb, 1), (0, pn * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(1, 0), padding_option="zero")
        acc = tl.dot(a, b, acc)
        a_blk = tl.advance(a_blk, (0, BK))
        b_blk = tl.advance(b_blk, (BK, 0))
    c_blk = tl.make_block_ptr(c_ptr, shape=(M, N), strides=(ldc, 1), offsets=(pm * BM, pn * BN),
                              block_shape=(BM, BN), order=(1, 0))
    tl.store(c_blk, acc, boundary_check=(0, 1))


# one (BM, BN) tile at (r0, c0) of an (M, N) matrix, read through a transposed (column-major)
# block pointer of the (N, M) view, padded with NaN, written whole into out (BN, BM)
@triton.jit
def block_ptr_nan_kernel(x_ptr, out_ptr, M, N, r0, c0, BM: tl.constexpr, BN: tl.constexpr):
    t = tl.make_block_ptr(x_ptr, shape=(N, M), strides=(1, N), offsets=(c0, r0),
                          block_shape=(BN, BM), order=(0, 1))
    v = tl.load(t, boundary_check=(0, 1), padding_option="nan")
    o = tl.arange(0, BN)[:, None] * BM + tl.arange(0, BM)[None, :]
    tl.store(out_ptr + o, v)


# rows are in bounds by construction, so only dimension 1 is checked
@triton.jit
def block_ptr_rows_kernel(x_ptr, out_ptr, M, N, BN: tl.constexpr):
    row = tl.program_id(0)
    src = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (row, 0), (1, BN), (1, 0))
    dst = tl.make_block_ptr(out_ptr, (M, N), (N, 1), (row, 0), (1, BN), (1, 0))
    for _ in range(0, N, BN):
        v = tl.load(src, boundary_check=(1,))
        tl.store(dst, v * 3, boundary_check=(1,))
        src = tl.advance(src, (0, BN))
        dst = tl.advance(dst, (0, BN))


# tiles of an (M, N) matrix through tensor descriptors; the raw (zero-padded) tiles go to a
# (tiles_m * BM, tiles_n * BN) buffer as well
@triton.jit
def tensor_desc_tiles_kernel(x_ptr, y_ptr, raw_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    v = src.load([pm * BM, pn * BN])
    dst.store([pm * BM, pn * BN], v * 2.0 - 1.0)
    width = tl.num_programs(1) * BN
    o = (pm * BM + tl.arange(0, BM))[:, None] * width + (pn * BN + tl.arange(0, BN))[None, :]
    tl.store(raw_ptr + o, v)


# a masked copy with every hint applied to true facts
@triton.jit
def hints_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    tl.assume(n > 0)
    tl.assume(BLOCK % 4 == 0)
    start = tl.multiple_of(tl.program_id(0) * BLOCK, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(start + tl.arange(0, BLOCK), BLOCK), BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, v + 1, mask=m)
    quad = tl.max_constancy(offs // 4, 4)
    w = tl.load(x_ptr + quad, mask=quad < n, other=0)
    tl.store(z_ptr + offs, w, mask=m)


# pointer -> int64 (scalar and tile) and int64 -> pointer (scalar and tile)
@triton.jit
def ptr_int_kernel(x_ptr, hsrc_ptr, slot_ptr, diff_ptr, y_ptr, z_ptr, align_ptr,
                   BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    addr = x_ptr.to(tl.int64)
    tl.store(align_ptr, (addr % 4).to(tl.int32))
    ptrs = x_ptr + i
    tl.store(diff_ptr + i, ptrs.to(tl.int64) - addr)
    # a tile of int64 addresses (reversed order) cast back to pointers
    back = (addr + (BLOCK - 1 - i).to(tl.int64) * 4).to(tl.pointer_type(tl.float32))
    tl.store(y_ptr + i, tl.load(back))
    # an address stored to memory as int64, loaded and cast to a half pointer
    tl.store(slot_ptr, hsrc_ptr.to(tl.int64))
    tl.debug_barrier()
    hp = tl.load(slot_ptr).to(tl.pointer_type(tl.float16))
    tl.store(z_ptr + i, tl.load(hp + i).to(tl.float32))


# a 1-D block pointer advanced under a runtime condition, then in a loop
@triton.jit
def block_ptr_if_kernel(x_ptr, out_ptr, N, skip, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    if skip > 0:
        p = tl.advance(p, (BN,))
    acc = tl.zeros((BN,), tl.float32)
    for _ in range(3):
        acc += tl.load(p, boundary_check=(0,), padding_option="zero")
        p = tl.advance(p, (BN,))
    tl.store(out_ptr + tl.arange(0, BN), acc)


# Every load of a statement sees memory as it was before the next statement's stores, also
# when the store writes elements a load reads at other positions (a column of z loaded once
# and broadcast over the row that overwrites it; a shifted in-place update).
@triton.jit
def add_first_column_inplace_kernel(z_ptr, x_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    z = tl.load(x_ptr + rows[:, None] * BN + cols[None, :])
    z += tl.load(z_ptr + rows * stride)[:, None]
    tl.store(z_ptr + rows[:, None] * stride + cols[None, :], z)


@triton.jit
def shift_right_inplace_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK) + 1
    prev = tl.load(x_ptr + offs - 1)
    tl.store(x_ptr + offs, prev * 2 + tl.load(x_ptr + offs))


# tl.where on pointer tiles: pick a pointer per lane, then load through it; and on pointers
# made from int64 addresses, stored back as int64 (Triton's test_where with pointers)
@triton.jit
def where_pointers_kernel(a_ptr, b_ptr, out_ptr, addr_a_ptr, addr_b_ptr, cond_ptr, addr_out_ptr,
                          BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.where(offs % 3 == 0, a_ptr + offs, b_ptr + offs)
    tl.store(out_ptr + offs, tl.load(p))
    x = tl.load(addr_a_ptr + offs).to(tl.pi32_t)
    y = tl.load(addr_b_ptr + offs).to(tl.pi32_t)
    tl.store(addr_out_ptr + offs, tl.where(tl.load(cond_ptr + offs) != 0, x, y))


# (moved here from pending/kernels.py once it compiled)
@triton.jit
def block_ptr_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(N, 1), offsets=(0, 0),
                            block_shape=(BM, BN), order=(1, 0))
    dst = tl.make_block_ptr(base=out_ptr, shape=(M, N), strides=(N, 1), offsets=(0, 0),
                            block_shape=(BM, BN), order=(1, 0))
    for c in range(0, N, BN):
        v = tl.load(src, boundary_check=(0, 1), padding_option="zero")
        tl.store(dst, v + 1.0, boundary_check=(0, 1))
        src = tl.advance(src, (0, BN))
        dst = tl.advance(dst, (0, BN))


@triton.jit
def tensor_desc_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    d_in = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    d_out = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    v = d_in.load([0, 0])
    d_out.store([0, 0], v * 2.0)


# A scalar store (thread 0's on nvptx) and a tile store through pointers into one buffer:
# program order decides which value an address both write keeps. The GPU lowering's barrier
# between them runs only when the scalar lies in the tile's span (backend/nvptx.c, a
# conditional barrier): rmsnorm's rstd store before its normalized row.
@triton.jit
def scalar_then_tile_kernel(buf_ptr, x_ptr, soff, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    base = buf_ptr + pid * (BLOCK + 16)
    y = base + 8
    cols = tl.arange(0, BLOCK)
    m = cols < n
    x = tl.load(x_ptr + pid * BLOCK + cols, mask=m, other=0.0)
    tl.store(base + soff, tl.sum(x, axis=0))
    tl.store(y + cols, x * 2.0, mask=m)


# The other order: the tile, then the scalar (no reduction or load between to order them).
@triton.jit
def tile_then_scalar_kernel(buf_ptr, x_ptr, soff, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    base = buf_ptr + pid * (BLOCK + 16)
    y = base + 8
    cols = tl.arange(0, BLOCK)
    m = cols < n
    x = tl.load(x_ptr + pid * BLOCK + cols, mask=m, other=0.0)
    tl.store(y + cols, x * 2.0, mask=m)
    tl.store(base + soff, (pid * 3 + 1).to(tl.float32))


# A contiguity promise that breaks where offsets wrap (Triton's matmul: rm % M under
# max_contiguous(multiple_of(., BM), BM)): each chunk checks its lanes, so loads and stores
# touch only the elements the offsets name (x_ptr and y_ptr hold n elements, then a guard).
@triton.jit
def wrapped_hint_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(r % n, BLOCK), BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2 + 1)


@triton.jit
def wrapped_hint_compare_kernel(out_ptr, n, t, BLOCK: tl.constexpr):
    # `offs == t` on offsets promised contiguous that wrap: every lane equal to t matches (the
    # compare of consecutive lanes against one value is taken only where contiguity is proven)
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(r % n, BLOCK), BLOCK)
    tl.store(out_ptr + r, (offs == t).to(tl.int32) + (offs != t + 1).to(tl.int32) * 2)


@triton.jit
def wrapped_hint_2d_kernel(b_ptr, out_ptr, K, N, stride_bk, BN: tl.constexpr, BK: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rbn = tl.max_contiguous(tl.multiple_of(rn % N, BN), BN)
    rk = tl.arange(0, BK)
    b = tl.load(b_ptr + rk[:, None] * stride_bk + rbn[None, :], mask=rk[:, None] < K, other=0.0)
    tl.store(out_ptr + rbn, tl.sum(b, axis=0))  # wrapped lanes write their own column again
