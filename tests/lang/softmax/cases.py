"""Cases of the lang family 'softmax': row softmax: fused and persistent over rows, and online
(chunked rows) (its kernels are in softmax/kernels.py)."""
import numpy as np

from harness import add, rng


def _np_softmax(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def cases():
    # softmax: rows strided (out has a wider row), grid smaller than n_rows
    for (R, C, B, G) in [(7, 33, 64, 3), (100, 1, 1, 4), (1, 100, 128, 2), (33, 7, 8, 33)]:
        x = (rng(90 + R).standard_normal((R, C)) * 4).astype(np.float32)
        out = np.full((R, C + 5), 9.0, np.float32)

        def ref(a, C=C):
            o = a["out_ptr"].copy()
            o[:, :C] = _np_softmax(a["in_ptr"])
            return {"out_ptr": o}
        add("softmax", "fused_softmax_%dx%d" % (R, C), "softmax/kernels.py", "row_softmax_kernel", (G,),
            dict(out_ptr=out, in_ptr=x, in_stride=C, out_stride=C + 5, n_rows=R, n_cols=C, BLOCK=B, STAGES=2),
            ["out_ptr"], ref, rtol=1e-5, atol=1e-6)
    for (R, C) in [(3, 100), (5, 7)]:
        x = (rng(95 + R).standard_normal((R, C)) * 4).astype(np.float32)
        add("softmax", "online_softmax_%dx%d" % (R, C), "softmax/kernels.py", "online_softmax_kernel", (R,),
            dict(out_ptr=np.zeros_like(x), in_ptr=x, n_cols=C, BLOCK=16), ["out_ptr"],
            lambda a: {"out_ptr": _np_softmax(a["in_ptr"])}, rtol=1e-5, atol=1e-6)
