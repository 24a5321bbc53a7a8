"""Cases of the lang family 'dropout': seeded dropout: kept values scaled exactly, keep rate close
to 1 - p (its kernels are in dropout/kernels.py)."""
import numpy as np

from harness import add, rng, compare


def cases():
    # dropout: kept values scaled exactly, keep rate close to 1 - p, seed-dependent mask
    n = 10000

    def drop_check(a, r, p=0.3):
        x, y, keep = a["x_ptr"], r["out_ptr"], r["keep_ptr"].astype(bool)
        exp = np.where(keep, x / np.float32(1 - p), 0).astype(np.float32)
        m = compare("out_ptr", y, exp, 1e-6, 0)
        if m:
            return m
        rate = keep.mean()
        if abs(rate - (1 - p)) > 0.02:
            return "keep rate %.4f, expected %.2f" % (rate, 1 - p)
        return None
    xd = rng(120).standard_normal(n).astype(np.float32) + 3
    add("dropout", "dropout_p0.3", "dropout/kernels.py", "dropout_kernel", ((n + 511) // 512,),
        dict(x_ptr=xd, out_ptr=np.zeros(n, np.float32), keep_ptr=np.zeros(n, np.int8), n=n, p=0.3, seed=1234, BLOCK=512),
        ["out_ptr", "keep_ptr"], check=drop_check)
