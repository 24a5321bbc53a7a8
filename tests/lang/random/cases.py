"""Cases of the lang family 'random': random numbers: ranges and statistics (its kernels are in
random/kernels.py)."""
import numpy as np

from harness import Case, add, func, run_case


def cases():
    F = "random"
    K = "random/kernels.py"
    n = 20000

    def check(a, r):
        u, g, ri = r["u_ptr"], r["g_ptr"], r["r_ptr"]
        if not ((u >= 0).all() and (u < 1).all()):
            return "rand outside [0, 1): min %r max %r" % (float(u.min()), float(u.max()))
        if abs(u.mean() - 0.5) > 0.01 or abs(u.var() - 1 / 12) > 0.005:
            return "rand mean %.4f var %.4f, expected 0.5, 0.0833" % (u.mean(), u.var())
        if np.isnan(g).any() or np.isinf(g).any():
            return "randn produced NaN/Inf"
        if abs(g.mean()) > 0.03 or abs(g.std() - 1) > 0.03:
            return "randn mean %.4f std %.4f, expected 0, 1" % (g.mean(), g.std())
        if abs((np.abs(g) < 1).mean() - 0.6827) > 0.02:
            return "randn P(|x|<1) = %.4f, expected 0.683" % (np.abs(g) < 1).mean()
        ru = ri.view(np.uint32).astype(np.float64) / 2.0 ** 32
        if abs(ru.mean() - 0.5) > 0.01:
            return "randint mean %.4f of range" % ru.mean()
        if len(np.unique(ri)) < n * 0.99:
            return "randint has %d distinct values of %d" % (len(np.unique(ri)), n)
        hist = np.histogram(u, bins=10, range=(0, 1))[0]
        if hist.min() < n / 10 * 0.9:
            return "rand histogram uneven: %s" % hist
        return None
    for seed in (0, 12345):
        add(F, "rand_randn_randint_seed%d" % seed, K, "rand_kernel", ((n + 1023) // 1024,),
            dict(u_ptr=np.full(n, -1, np.float32), g_ptr=np.zeros(n, np.float32), r_ptr=np.zeros(n, np.int32),
                 seed=seed, n=n, BLOCK=1024),
            ["u_ptr", "g_ptr", "r_ptr"], check=check)

    def check2d(a, r):
        u = r["u_ptr"]
        if not ((u >= 0).all() and (u < 1).all()):
            return "rand outside [0, 1)"
        if len(np.unique(u)) < u.size * 0.99:
            return "too many repeated values"
        return None
    add(F, "rand_2d_offsets", K, "rand2d_kernel", (1,),
        dict(u_ptr=np.zeros((32, 64), np.float32), seed=7, M=32, N=64), ["u_ptr"], check=check2d)

    def determinism():
        # values depend only on (seed, offset): the same seed gives the same values also with
        # another block size and grid; different seeds differ
        res = []
        for seed, block in ((42, 256), (42, 64), (43, 256)):
            c = Case(F, "x", K, "rand_kernel", (256 // block,),
                     dict(u_ptr=np.zeros(256, np.float32), g_ptr=np.zeros(256, np.float32),
                          r_ptr=np.zeros(256, np.int32), seed=seed, n=256, BLOCK=block),
                     ["u_ptr", "g_ptr", "r_ptr"], check=lambda a, r: res.append(r))
            err = run_case(c)
            if err:
                return err
        for k in ("u_ptr", "g_ptr", "r_ptr"):
            if not np.array_equal(res[0][k], res[1][k]):
                return "%s: same seed and offsets gave different values with BLOCK 256 and 64" % k
            if np.mean(res[0][k] == res[2][k]) > 0.01:
                return "%s: seeds 42 and 43 gave the same values" % k
        return None
    func(F, "rand_seed_determinism", determinism)
