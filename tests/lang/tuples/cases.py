"""Cases of the lang family 'tuples': shapes and tuples at compile time (its kernels are in
tuples/kernels.py)."""
import numpy as np

from harness import add, diag, rng


def cases():
    F = "tuples"
    K = "tuples/kernels.py"
    for (R, C) in [(4, 8), (2, 16), (8, 2)]:
        x = rng(320 + R).integers(-9, 9, R * C).astype(np.int32)
        add(F, "shape_compare_%dx%d" % (R, C), K, "shape_kernel", (1,), dict(x_ptr=x, out_ptr=np.zeros(7, np.int32), R=R, C=C),
            ["out_ptr"], lambda a, R=R, C=C: {"out_ptr": np.array(
                [R * 100 + C, 1 + R + C, R * C, R + C, 37, a["x_ptr"].sum(), (2 in (R, C)) + 2], np.int32)})
    xs = (np.arange(32) % 7 - 3).astype(np.int32)
    add(F, "row_sums_after_store_2x16", K, "row_sums_after_store_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(2, np.int32), R=2, C=16), ["out_ptr"],
        lambda a: {"out_ptr": np.array([5, a["x_ptr"].sum()], np.int32)})
    for n in [0, 1, 10, 11]:
        add(F, "range_step_kwarg_n%d" % n, K, "step_kwarg_kernel", (1,), dict(out_ptr=np.zeros(2, np.int32), n=n),
            ["out_ptr"], lambda a, n=n: {"out_ptr": np.array([sum(range(0, n, 3)), sum(range(1, 10, 4))], np.int32)})
    diag(F, "diag_shape_static_assert", K, "shape_assert_fails_kernel", "*fp32", expect=("x must be 8 x 4",),
         line='"x must be 8 x 4"')
    diag(F, "diag_tuple_of_tensors_compare", K, "tensor_tuple_compare_kernel", "*fp32",
         expect=("tuples holding tensors",),
         line="(x, x) == (x, x)")
    diag(F, "diag_tuple_order_scalar", K, "tuple_order_scalar_kernel", "*fp32", expect=("cannot order a tuple",),
         line="x.shape < 3")
    diag(F, "diag_tuple_plus_int", K, "tuple_plus_int_kernel", "*fp32", expect=("concatenate",),
         line="s = x.shape + 1")
    diag(F, "diag_tuple_slice_step_zero", K, "tuple_slice_step_zero_kernel", "*fp32", expect=("step cannot be zero",),
         line="x.shape[::0]")
    diag(F, "diag_tuple_index_range", K, "tuple_index_range_kernel", "*fp32", expect=("out of range",),
         line="x.shape[1])")
