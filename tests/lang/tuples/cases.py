"""Cases of the lang family 'tuples': shapes and tuples at compile time (its kernels are in
tuples/kernels.py)."""
import numpy as np

import os
import tempfile

from harness import add, diag, func, path_of, rng, run_tilec
import harness


def tuple_signature_header():
    """`tilec compile -s "(*fp32:16, (i32, 1)), *fp32"`: a tuple argument's runtime elements are
    parameters of the compiled kernel (the typed launcher's t_0, t_1_0), the 1 a constant."""
    with tempfile.TemporaryDirectory() as tmp:
        h = os.path.join(tmp, "k.h")
        rc, _, err = run_tilec([harness.TILEC, "compile", path_of("tuples/kernels.py"), "-k", "tuple_param_kernel",
                                "-s", "(*fp32:16, (i32, 1)), *fp32", "-o", os.path.join(tmp, "k.so"),
                                "--header", h], tmp, 120)
        if rc != 0:
            return "tilec compile failed: %s" % err.strip()[:400]
        text = open(h).read()
        want = "float *t_0, int32_t t_1_0, float *out_ptr)"
        if want not in text or 'signature "*fp32:16, i32, *fp32"' not in text:
            return "header lacks %r / the flattened signature:\n%s" % (want, text[:600])
    return None


def cases():
    F = "tuples"
    K = "tuples/kernels.py"
    add(F, "comprehension_and_tl_tuple", K, "comprehension_kernel", (1,), dict(out_ptr=np.zeros(6, np.int32), n=7),
        ["out_ptr"], lambda a: {"out_ptr": np.array([7, 21, 23, 1, 33, 7], np.int32)})
    func(F, "tuple_signature_flattened", tuple_signature_header)
    for N in (4, 8):
        xs = rng(90 + N).standard_normal((3, N, N)).astype(np.float32)
        nodd = len([i for i in range(1, N, 2) if i != 3])
        add(F, "listcomp_range_%d" % N, K, "listcomp_range_kernel", (3,),
            dict(X_ptr=xs, Y_ptr=np.zeros((3, N, N), np.float32), sb=N * N, si=N, sj=1, N=N), ["Y_ptr"],
            lambda a, xs=xs, N=N, nodd=nodd: {"Y_ptr": xs * (np.arange(N, dtype=np.float32) + 1)[None, :, None]
                                              + np.float32(nodd * 1000)})
    diag(F, "diag_listcomp_runtime_range", K, "listcomp_runtime_range_kernel", "*i32, i32",
         expect=("a comprehension over range() needs compile-time integer bounds",), line="range(n)]")
    # runtime tuples bound by `tilec run` (NAME=(A, B, ...): the harness's lists), their
    # elements' arrays written back through --out NAME_I
    r = rng(77)
    x = r.standard_normal(1000).astype(np.float32)
    add(F, "run_tuple_of_arrays", K, "tuple_pointers_kernel", (8,),
        dict(ptrs=[x, np.zeros(1000, np.float32), np.zeros(1000, np.float32)], n=1000, scales=[2.5, 3], BLOCK=128),
        ["ptrs_1", "ptrs_2"], lambda a, x=x: {"ptrs_1": x * np.float32(2.5), "ptrs_2": x + np.float32(3)})
    add(F, "run_tuple_nested", K, "tuple_nested_kernel", (1,),
        dict(args=[x[:64], [np.full(64, -1, np.float32), 50]], BLOCK=64), ["args_1_0"],
        lambda a, x=x: {"args_1_0": np.where(np.arange(64) < 50, x[:64] * 2 + 1, -1).astype(np.float32)})
    diag(F, "diag_comprehension_over_tensor", K, "comprehension_over_tensor_kernel", "*i32",
         expect=("only comprehensions over tuples are supported", "got"), line="tl.arange(0, 4)]")
    diag(F, "diag_comprehension_nested", "tuples/nested_comprehension.py", "comprehension_nested_kernel", "*i32",
         expect=("nested comprehensions are not supported",), line="for j in")
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
