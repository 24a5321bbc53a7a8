"""Cases of the lang family 'functions': @triton.jit helper functions (its kernels are in
functions/kernels.py)."""
import numpy as np

from harness import add, diag, rng


def cases():
    F = "functions"
    K = "functions/kernels.py"
    x = rng(70).standard_normal(32).astype(np.float32)

    def ref(a):
        v = a["x_ptr"]
        lo, hi = np.minimum(v, -v), np.maximum(v, -v)
        return {"out1_ptr": v * 2 + 1, "out2_ptr": v * 0.5 - 3, "out3_ptr": lo + hi + lo * hi}
    add(F, "defaults_keywords_tuples", K, "helpers_kernel", (1,),
        dict(x_ptr=x, out1_ptr=np.zeros(32, np.float32), out2_ptr=np.zeros(32, np.float32),
             out3_ptr=np.zeros(32, np.float32), BLOCK=32),
        ["out1_ptr", "out2_ptr", "out3_ptr"], ref, rtol=1e-6, atol=1e-6)
    xi = rng(71).integers(-100, 100, 16).astype(np.int32)

    def cdiv2(v):  # C-style truncating division by 2
        return np.trunc(v / 2).astype(np.int32)
    add(F, "constexpr_helper_square", K, "constexpr_helper_kernel", (1,),
        dict(x_ptr=xi, out_ptr=np.zeros(16, np.int32), BLOCK=16, MODE="square"), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] ** 2 - cdiv2(a["x_ptr"] ** 2)})
    add(F, "constexpr_helper_other", K, "constexpr_helper_kernel", (1,),
        dict(x_ptr=xi, out_ptr=np.zeros(16, np.int32), BLOCK=16, MODE="plus"), ["out_ptr"],
        lambda a: {"out_ptr": (a["x_ptr"] + 100) - cdiv2(a["x_ptr"] + 100)})
    xl = rng(72).standard_normal((6, 16)).astype(np.float32)
    add(F, "helper_with_loop", K, "loop_helper_kernel", (1,),
        dict(x_ptr=xl, out_ptr=np.zeros(16, np.float32), n=6, BLOCK=16), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"].sum(0)}, rtol=1e-5, atol=1e-6)
    for (p, q) in [(17, 5), (-17, 5), (17, -5)]:
        add(F, "scalar_tuple_%d_%d" % (p, q), K, "scalar_helper_kernel", (1,),
            dict(out_ptr=np.zeros(2, np.int32), a=p, b=q), ["out_ptr"],
            lambda a, p=p, q=q: {"out_ptr": [int(p / q), p - int(p / q) * q]})
    diag(F, "recursion_error", K, "recursion_kernel", "*i32, i32", expect=("recurs",))
    diag(F, "mutual_recursion_error", K, "mutual_recursion_kernel", "*i32, i32", expect=("recurs",))
    xs = np.arange(8, dtype=np.int32) - 3
    add(F, "star_args_in_calls", K, "star_args_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(24, np.int32), N=8), ["out_ptr"],
        lambda a: {"out_ptr": np.concatenate([a["x_ptr"] * 1000 + (a["x_ptr"] + 1) * 100 + 23,
                                              1000 + a["x_ptr"] * 100 + (a["x_ptr"] + 1) * 10 + 4,
                                              a["x_ptr"] * 1000 + 567]).astype(np.int32)})
