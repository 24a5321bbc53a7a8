# Kernels for the lang family 'descriptors': tensor descriptors as kernel arguments
# (tensordesc<T[B...]>, bound by `tilec run` as FILE.npy:[B0,B1]) and made in the kernel
# (tl.make_tensor_descriptor): load, store, padding, gather/scatter of rows, atomics,
# attributes and isinstance; located errors for bad forms.
import triton
import triton.language as tl


@triton.jit
def copy_add_kernel(in_desc, out_desc, M, N):
    # one block per program; the edge blocks are partly outside the tensor
    tl.static_assert(isinstance(in_desc, tl.tensor_descriptor))
    BM: tl.constexpr = in_desc.block_shape[0]
    BN: tl.constexpr = in_desc.block_shape[1]
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    x = in_desc.load([pm, pn])
    out_desc.store([pm, pn], x * 2 + 1)


@triton.jit
def padding_probe_kernel(in_desc, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    # a block hanging over the bottom-right corner: what the padding gives
    x = in_desc.load([in_desc.shape[0] - BM // 2, in_desc.shape[1] - BN // 2])
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    tl.store(out_ptr + rows * BN + cols, x)


@triton.jit
def rank3_kernel(in_desc, out_ptr, D0, D1, D2, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr):
    x = in_desc.load([tl.program_id(0) * B0, tl.program_id(1) * B1, tl.program_id(2) * B2])
    i = tl.program_id(0) * B0 + tl.arange(0, B0)[:, None, None]
    j = tl.program_id(1) * B1 + tl.arange(0, B1)[None, :, None]
    k = tl.program_id(2) * B2 + tl.arange(0, B2)[None, None, :]
    tl.store(out_ptr + (i * D1 + j) * D2 + k, x, mask=(i < D0) & (j < D1) & (k < D2))


@triton.jit
def make_desc_kernel(x_ptr, y_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr, NAN: tl.constexpr):
    # a strided view (every row stride_m elements apart) through tl.make_tensor_descriptor
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[stride_m, 1], block_shape=[BM, BN],
                                    padding_option="nan" if NAN else "zero")
    dst = tl.make_tensor_descriptor(y_ptr, [M + BM, N + BN], [N + BN, 1], [BM, BN])
    tl.static_assert(src.dtype == tl.float32)
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    dst.store([pm, pn], src.load([pm, pn]))


@triton.jit
def gather_scatter_kernel(src_desc, dst_desc, idx_ptr, R: tl.constexpr, col):
    rows = tl.load(idx_ptr + tl.arange(0, R))
    v = src_desc.gather(rows, col)
    dst_desc.scatter(v + 100.0, rows, col)


@triton.jit
def desc_atomic_kernel(acc_desc, max_desc, BM: tl.constexpr, BN: tl.constexpr):
    # every program adds ones to the same block (the count of programs per element) and
    # maxes its program id into another
    ones = tl.full((BM, BN), 1, tl.int32)
    acc_desc.atomic_add([0, 0], ones)
    max_desc.atomic_max([0, 0], ones * tl.program_id(0))


@triton.jit
def desc_in_loop_kernel(in_desc, out_ptr, M, BM: tl.constexpr, BN: tl.constexpr):
    # column sums: the descriptor crosses a runtime loop
    acc = tl.zeros((BN,), tl.float32)
    for m in range(0, M, BM):
        acc += tl.sum(in_desc.load([m, tl.program_id(0) * BN]), 0)
    tl.store(out_ptr + tl.program_id(0) * BN + tl.arange(0, BN), acc)


# ---- bad forms ----------------------------------------------------------------------------

@triton.jit
def store_shape_mismatch_kernel(out_desc):
    out_desc.store([0, 0], tl.zeros((8, 8), tl.float32))


@triton.jit
def last_stride_kernel(x_ptr):
    d = tl.make_tensor_descriptor(x_ptr, [8, 8], [1, 8], [8, 8])
    tl.store(x_ptr, tl.sum(tl.sum(d.load([0, 0]), 0), 0))


@triton.jit
def block_not_pow2_kernel(x_ptr):
    d = tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [8, 6])
    tl.store(x_ptr, tl.sum(tl.sum(d.load([0, 0]), 0), 0))


@triton.jit
def gather_block_rows_kernel(in_desc, idx_ptr):
    v = in_desc.gather(tl.load(idx_ptr + tl.arange(0, 8)), 0)
    in_desc.store([0, 0], v)


@triton.jit
def nan_padding_int_kernel(x_ptr):
    d = tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [8, 8], padding_option="nan")
    tl.store(x_ptr, tl.sum(tl.sum(d.load([0, 0]), 0), 0))


@triton.jit
def block_under_16_bytes_kernel(x_ptr, BN: tl.constexpr):
    # Triton's test_tma_load_block_shape_err: a TMA block row needs 16 bytes (int32 [1, 2]: 8)
    d = tl.make_tensor_descriptor(x_ptr, [128, 128], [128, 1], [1, BN])
    tl.store(x_ptr + tl.arange(0, BN), tl.sum(d.load([0, 0]), 0))


@triton.jit
def stride_unaligned_kernel(x_ptr):
    # a row stride of 12 fp32 values (48 bytes) is 16-byte aligned; 6 (24 bytes) is not
    d = tl.make_tensor_descriptor(x_ptr, [8, 6], [6, 1], [8, 4])
    tl.store(x_ptr + tl.arange(0, 4), tl.sum(d.load([0, 0]), 0))
