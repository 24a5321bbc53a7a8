"""Cases of the lang family 'layernorm': layer norm forward on fp32 and fp16 rows. The kernel is
the benchmark's (bench/kernels/layernorm.py, one copy: these cases check what bench times)."""
import numpy as np

from harness import add, rng

K = "../../bench/kernels/layernorm.py"


def cases():
    # layer norm (fp32 and fp16 inputs)
    for (R, N, B, dt) in [(7, 100, 32, np.float32), (3, 33, 64, np.float32), (4, 1, 16, np.float32), (5, 77, 16, np.float16)]:
        x = (rng(110 + N).standard_normal((R, N)) * 2 + 0.5).astype(dt)
        w = rng(111).standard_normal(N).astype(np.float32)
        bb = rng(112).standard_normal(N).astype(np.float32)

        def ref(a):
            x = a["x_ptr"].astype(np.float64)
            mu = x.mean(1)
            var = ((x - mu[:, None]) ** 2).mean(1)
            rs = 1 / np.sqrt(var + 1e-5)
            y = (x - mu[:, None]) * rs[:, None] * a["w_ptr"] + a["b_ptr"]
            return {"y_ptr": y, "mean_ptr": mu, "rstd_ptr": rs}
        tol = 2e-3 if dt == np.float16 else 1e-4
        add("layernorm", "layernorm_fwd_%dx%d_%s" % (R, N, np.dtype(dt).name), K, "layernorm_fwd_kernel", (R,),
            dict(x_ptr=x, y_ptr=np.zeros((R, N), dt), w_ptr=w, b_ptr=bb, mean_ptr=np.zeros(R, np.float32),
                 rstd_ptr=np.zeros(R, np.float32), row_stride=N, N=N, eps=1e-5, BLOCK_SIZE=B),
            ["y_ptr", "mean_ptr", "rstd_ptr"], ref, rtol=tol, atol=tol)
