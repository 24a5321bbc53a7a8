"""Cases of the lang family 'matmul': grouped tiled matmul with a fused activation, a column-major
A and a padded C (its kernels are in matmul/kernels.py)."""
import numpy as np

from harness import add, rng


def cases():
    # matmul: a is column-major (strides), c has a padded row stride
    def gelu_tanh(x):
        return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
    acts = {"none": lambda x: x, "gelu_tanh": gelu_tanh, "relu_sq": lambda x: np.maximum(x, 0) ** 2}
    for (M, N, Kd, BM, BN, BK, G, act) in [(100, 33, 70, 32, 16, 16, 2, "gelu_tanh"), (7, 1, 33, 16, 16, 16, 4, "none"),
                                            (64, 64, 64, 16, 32, 32, 3, "relu_sq"), (1, 100, 7, 16, 32, 16, 1, "none")]:
        a = rng(100 + M).standard_normal((M, Kd)).astype(np.float16)
        a_cm = np.asfortranarray(a).ravel(order="K").copy()  # column-major storage of a
        b = rng(101 + N).standard_normal((Kd, N)).astype(np.float16)
        c = np.zeros((M, N + 2), np.float16)
        tiles = ((M + BM - 1) // BM) * ((N + BN - 1) // BN)

        def ref(args, a=a, act=act, N=N):
            o = args["c_ptr"].copy()
            o[:, :N] = acts[act](a.astype(np.float64) @ args["b_ptr"].astype(np.float64)).astype(np.float16)
            return {"c_ptr": o}
        add("matmul", "grouped_matmul_%dx%dx%d_%s" % (M, N, Kd, act), "matmul/kernels.py", "gemm_kernel", (tiles,),
            dict(a_ptr=a_cm, b_ptr=b, c_ptr=c, M=M, N=N, K=Kd, s_am=1, s_ak=M, s_bk=N, s_bn=1, s_cm=N + 2, s_cn=1,
                 BM=BM, BN=BN, BK=BK, GROUP=G, ACTIVATION=act),
            ["c_ptr"], ref, rtol=2e-3, atol=2e-3)
