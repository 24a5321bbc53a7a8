"""Cases of the lang family 'typing': Python numbers against tensors, numbers assigned to names,
seeds (its kernels are in typing/kernels.py)."""
import numpy as np

from harness import add, diag, rng


def cases():
    F = "typing"
    K = "typing/kernels.py"
    xs = np.array([3, -1, 4, 1, -5], np.int32)

    def aref(a):
        s = int(a["x_ptr"].astype(np.int64).sum())
        return {"out_ptr": np.array([9, -3, 1, -2147483648, s * 4294967296, 2], np.int64),
                "fout_ptr": np.array([2.5, 3.0], np.float32)}
    add(F, "assigned_numbers_are_tensors", K, "assigned_scalars_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(6, np.int64), fout_ptr=np.zeros(2, np.float32), n=5),
        ["out_ptr", "fout_ptr"], aref)
    N = 64
    r = rng(1200)
    h = (r.standard_normal(N) * 100).astype(np.float16)
    q = r.integers(-128, 128, N).astype(np.int8)
    q[:2] = [127, -128]
    u = r.integers(0, 256, N).astype(np.uint8)
    u[:2] = [0, 255]
    v = r.integers(-1000, 1000, N).astype(np.int32)

    def lref(a):
        with np.errstate(over="ignore"):
            hh = (a["h_ptr"] * np.float16(1.5)).astype(np.float16) + np.float16(2)
        return {"oh_ptr": hh.astype(np.float16), "oi8_ptr": (a["i8_ptr"].astype(np.int16) + 1).astype(np.int8),
                "ou8_ptr": (a["u8_ptr"].astype(np.int16) - 1).astype(np.uint8),
                "of32_ptr": a["i32_ptr"].astype(np.float32) * np.float32(0.5),
                "of64_ptr": a["i32_ptr"].astype(np.float64) * 1e300,
                "ob_ptr": (a["i32_ptr"] > 0).astype(np.int32) + 2}
    add(F, "number_adopts_tile_type", K, "literal_vs_tile_kernel", (1,),
        dict(h_ptr=h, i8_ptr=q, u8_ptr=u, i32_ptr=v, oh_ptr=np.zeros(N, np.float16), oi8_ptr=np.zeros(N, np.int8),
             ou8_ptr=np.zeros(N, np.uint8), of32_ptr=np.zeros(N, np.float32), of64_ptr=np.zeros(N, np.float64),
             ob_ptr=np.zeros(N, np.int32), N=N),
        ["oh_ptr", "oi8_ptr", "ou8_ptr", "of32_ptr", "of64_ptr", "ob_ptr"], lref)
    diag(F, "diag_int64_literal_vs_i32_tile", K, "int64_literal_kernel", "*i32",
         expect=("1099511627776", "out of range", "i32"), line="tl.store(x_ptr")
    diag(F, "diag_float_seed", K, "float_seed_kernel", "*fp32, fp32", expect=("seed", "integer", "tl.rand"),
         line="tl.store(out_ptr + offs")
    diag(F, "diag_float_literal_seed", K, "float_literal_seed_kernel", "*i32", expect=("seed", "integer"),
         line="tl.store(out_ptr + offs, tl.randint")
    add(F, "expand_dims_axes_and_chains", K, "expand_dims_kernel", (1,), dict(out_ptr=np.zeros(16, np.int32), N=16),
        ["out_ptr"], lambda a: {"out_ptr": np.arange(16) + 120})
    diag(F, "diag_expand_dims_invalid_axis", K, "expand_dims_bad_axis_kernel", "*i32, 16", expect=("invalid axis -3",),
         line="t = tl.expand_dims(r, -3)")
    diag(F, "diag_expand_dims_duplicate_axes", K, "expand_dims_duplicate_kernel", "*i32, 16",
         expect=("duplicate axes, normalized axes = [0, 0]",), line="t = tl.expand_dims(r, (0")
    diag(F, "diag_program_id_axis", K, "program_id_axis_kernel", "*i32",
         expect=("program_id axis must be 0, 1, or 2 but got 20",), line="pid = tl.program_id")
    diag(F, "diag_if_block_condition", K, "block_condition_kernel", "*i32",
         expect=("Boolean value of Tensor with more than one value is ambiguous",), line="if x > 0:")
    add(F, "unpacking", K, "unpack_kernel", (1,), dict(out_ptr=np.array([5], np.int32)), ["out_ptr"],
        lambda a: {"out_ptr": [37]})
    diag(F, "diag_unpack_number", K, "unpack_number_kernel", "*i32", expect=("cannot unpack non-iterable",),
         line="a, b = 1")
    diag(F, "diag_unpack_count", K, "unpack_count_kernel", "*i32",
         expect=("not enough values to unpack (expected 3, got 2)",),
         line="a, b, c = _two")
