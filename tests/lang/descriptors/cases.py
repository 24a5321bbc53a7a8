"""Cases of the lang family 'descriptors': tensor descriptors as arguments and made in kernels (its
kernels are in descriptors/kernels.py)."""
import numpy as np

from harness import add, diag, rng


def _desc_block_ref(x, r0, c0, BM, BN, pad):
    out = np.full((BM, BN), pad, x.dtype)
    for i in range(BM):
        for j in range(BN):
            if 0 <= r0 + i < x.shape[0] and 0 <= c0 + j < x.shape[1]:
                out[i, j] = x[r0 + i, c0 + j]
    return out


def cases():
    F = "descriptors"
    K = "descriptors/kernels.py"
    r = rng(360)
    for (M, N, BM, BN, dt) in [(19, 37, 8, 16, np.float32), (64, 64, 16, 16, np.float32), (5, 3, 8, 4, np.int32),
                               (33, 70, 32, 64, np.float16), (1, 1, 1, 1, np.float32)]:
        x = (r.standard_normal((M, N)) * 10).astype(dt)
        blk = "[%d,%d]" % (BM, BN)
        grid = (-(-M // BM), -(-N // BN))
        add(F, "arg_copy_add_%dx%d_b%dx%d_%s" % (M, N, BM, BN, np.dtype(dt).name), K, "copy_add_kernel", grid,
            dict(in_desc=(x, blk), out_desc=(np.zeros((M, N), dt), blk), M=M, N=N), ["out_desc"],
            lambda a, dt=dt: {"out_desc": (a["in_desc"][0] * dt(2) + dt(1)).astype(dt)}, rtol=1e-3 if dt == np.float16 else 0)
    x = r.standard_normal((10, 12)).astype(np.float32)
    for pad in ["zero", "nan"]:
        blk = "[8,8]" if pad == "zero" else "[8,8]:nan"
        add(F, "arg_padding_%s" % pad, K, "padding_probe_kernel", (1,),
            dict(in_desc=(x, blk), out_ptr=np.zeros(64, np.float32), BM=8, BN=8), ["out_ptr"],
            lambda a, pad=pad: {"out_ptr": _desc_block_ref(a["in_desc"][0], 6, 8, 8, 8,
                                                           np.nan if pad == "nan" else 0).ravel()})
    x3 = r.integers(-99, 99, (5, 6, 7)).astype(np.int32)
    add(F, "arg_rank3", K, "rank3_kernel", (3, 2, 2),
        dict(in_desc=(x3, "[2,4,4]"), out_ptr=np.zeros(5 * 6 * 7, np.int32), D0=5, D1=6, D2=7, B0=2, B1=4, B2=4),
        ["out_ptr"], lambda a: {"out_ptr": a["in_desc"][0].ravel()})
    for pad in ["zero", "nan"]:
        M, N, SM, BM, BN = 13, 20, 24, 8, 8
        xs = r.standard_normal(M * SM).astype(np.float32)

        def ref(a, pad=pad, M=M, N=N, SM=SM, BM=BM, BN=BN):
            view = a["x_ptr"].reshape(M, SM)[:, :N]
            out = np.zeros((M + BM, N + BN), np.float32)
            for pm in range(0, M + BM - 1, BM):
                for pn in range(0, N + BN - 1, BN):
                    if pm < M + BM and pn < N + BN:
                        b = _desc_block_ref(view, pm, pn, BM, BN, np.nan if pad == "nan" else 0)
                        out[pm:pm + BM, pn:pn + BN] = b[:M + BM - pm, :N + BN - pn]
            return {"y_ptr": out}
        add(F, "make_strided_%s" % pad, K, "make_desc_kernel", (-(-M // BM) + 1, -(-N // BN) + 1),
            dict(x_ptr=xs, y_ptr=np.zeros((M + BM, N + BN), np.float32), M=M, N=N, stride_m=SM, BM=BM, BN=BN,
                 NAN=pad == "nan"),
            ["y_ptr"], ref)
    src = r.standard_normal((20, 40)).astype(np.float32)
    idx = np.array([3, 0, 19, 7, 25, -1, 7, 11], np.int32)  # rows out of range read zeros, write nothing

    def gs_ref(a):
        dst = np.zeros((20, 40), np.float32)
        col = 30
        for rr in idx:
            if 0 <= rr < 20:
                vals = np.zeros(16, np.float32)
                for j in range(16):
                    if col + j < 40:
                        vals[j] = src[rr, col + j]
                for j in range(16):
                    if col + j < 40:
                        dst[rr, col + j] = vals[j] + 100
        return {"dst_desc": dst}
    add(F, "gather_scatter_rows", K, "gather_scatter_kernel", (1,),
        dict(src_desc=(src, "[1,16]"), dst_desc=(np.zeros((20, 40), np.float32), "[1,16]"), idx_ptr=idx, R=8, col=30),
        ["dst_desc"], gs_ref)
    acc = np.zeros((6, 5), np.int32)
    add(F, "desc_atomics", K, "desc_atomic_kernel", (7,),
        dict(acc_desc=(acc, "[8,8]"), max_desc=(np.full((6, 5), -5, np.int32), "[8,8]"), BM=8, BN=8),
        ["acc_desc", "max_desc"], lambda a: {"acc_desc": np.full((6, 5), 7, np.int32), "max_desc": np.full((6, 5), 6, np.int32)})
    xl = r.standard_normal((50, 24)).astype(np.float32)
    add(F, "desc_in_runtime_loop", K, "desc_in_loop_kernel", (3,),
        dict(in_desc=(xl, "[16,8]"), out_ptr=np.zeros(24, np.float32), M=50, BM=16, BN=8), ["out_ptr"],
        lambda a: {"out_ptr": a["in_desc"][0].sum(0)}, rtol=1e-5, atol=1e-5)
    TD = "tensordesc<fp32[16, 16]>"
    diag(F, "diag_desc_store_shape", K, "store_shape_mismatch_kernel", TD, expect=("block shape",),
         line="out_desc.store([0, 0], tl.zeros((8, 8)")
    diag(F, "diag_desc_last_stride", K, "last_stride_kernel", "*fp32", expect=("last dim must be 1",),
         line="[8, 8], [1, 8], [8, 8])")
    diag(F, "diag_desc_block_pow2", K, "block_not_pow2_kernel", "*fp32", expect=("power of 2",),
         line="[8, 8], [8, 1], [8, 6])")
    diag(F, "diag_desc_gather_rows", K, "gather_block_rows_kernel", "tensordesc<fp32[8, 16]>, *i32",
         expect=("1 row",), line="in_desc.gather(tl.load(")
    diag(F, "diag_desc_nan_padding_int", K, "nan_padding_int_kernel", "*i32", expect=("nan", "floating"),
         line='padding_option="nan")')
    # Triton's checks of a descriptor made in a kernel, with its messages: a block row of at least
    # 16 bytes (int32 x 2: 8; x 4 compiles), strides other than the last a multiple of 16 bytes
    diag(F, "diag_desc_block_under_16_bytes", K, "block_under_16_bytes_kernel", "*i32, 2",
         expect=("Descriptor block shape must have at least 16 bytes in the last dimension, but got 2 * 4 = 8 bytes",),
         line="[128, 128], [128, 1], [1, BN])")
    diag(F, "diag_desc_block_under_16_bytes_i8", K, "block_under_16_bytes_kernel", "*i8, 8",
         expect=("at least 16 bytes in the last dimension, but got 8 * 1 = 8 bytes",),
         line="[128, 128], [128, 1], [1, BN])")
    xb = np.arange(128 * 128, dtype=np.int32)
    add(F, "desc_block_16_bytes", K, "block_under_16_bytes_kernel", (1,), dict(x_ptr=xb.copy(), BN=4), ["x_ptr"],
        lambda a: {"x_ptr": np.concatenate([xb[:4], xb[4:]])})
    diag(F, "diag_desc_stride_unaligned", K, "stride_unaligned_kernel", "*fp32",
         expect=("Tensor descriptor strides must be 16-byte aligned, but got a stride of 6 * 4 = 24 bytes",),
         line="[8, 6], [6, 1], [8, 4])")
