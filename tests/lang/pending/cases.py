"""Cases of the lang family 'pending': constructs listed as not supported yet (XFAIL while the
compiler says so) (its kernels are in pending/kernels.py)."""
import numpy as np

from harness import add, rng


# (the atomics, scans, gather, histogram, flip, block-pointer, tensor-descriptor and
# device_print cases that started here moved to their families once they compiled)
def cases():
    F = "pending"
    K = "pending/kernels.py"
    X = "listed as not supported yet: "
    xs = rng(141).integers(-50, 50, 64).astype(np.int32)
    add(F, "sort", K, "sort_kernel", (1,), dict(x_ptr=xs, out_ptr=np.zeros(64, np.int32), N=64), ["out_ptr"],
        lambda a: {"out_ptr": np.sort(a["x_ptr"])}, xfail=X + "sort")
