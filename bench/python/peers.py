"""One benchmark measurement: ``peers.py IMPL KERNEL SIZE...`` prints one JSON line with the
median time of IMPL (tilec, interpreter, numpy, torch) on KERNEL (vector_add N, softmax
ROWS COLS) and the largest difference from a numpy reference.

The interpreter is Triton's own (``TRITON_INTERPRET=1`` must be set before triton is
imported: bench/python/run.py starts one process per measurement)."""

import json
import os
import statistics
import sys
import time

import numpy as np


def median_time(fn, budget=1.0, min_reps=3, max_reps=200):
    fn()  # warm-up: compiles / loads the kernel, touches the pages
    times = []
    t_end = time.perf_counter() + budget
    while len(times) < min_reps or (time.perf_counter() < t_end and len(times) < max_reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), len(times)


def np_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main():
    impl, kernel = sys.argv[1], sys.argv[2]
    sizes = [int(s) for s in sys.argv[3:]]
    rng = np.random.default_rng(0)
    if kernel == "vector_add":
        (n,) = sizes
        xs = [rng.random(n, dtype=np.float32) for _ in range(2)]
        ref = xs[0] + xs[1]
        shape = (n,)
    else:
        rows, cols = sizes
        xs = [rng.standard_normal((rows, cols), dtype=np.float32)]
        ref = np_softmax(xs[0])
        shape = (rows, cols)

    budget = float(os.environ.get("BENCH_BUDGET", "1.0"))
    if impl in ("tilec", "interpreter"):
        import torch  # the Triton interpreter wants torch tensors; tilec takes them too
        import kernels as K
        ins = [torch.from_numpy(x) for x in xs]
        out = torch.empty(shape)
        if kernel == "vector_add":
            grid = (K.cdiv(n, 1024),)
            fn = lambda: K.add_kernel[grid](ins[0], ins[1], out, n, BLOCK=1024)  # noqa: E731
        else:
            block = K.next_power_of_2(cols)
            fn = lambda: K.softmax_kernel[(rows,)](out, ins[0], cols, cols, cols, BLOCK=block)  # noqa: E731
        if impl == "interpreter":
            budget = 0.0  # tens of seconds per run: one timed run after the warm-up
        t, reps = median_time(fn, budget, min_reps=1 if impl == "interpreter" else 3)
        result = out.numpy()
    elif impl == "numpy":
        out = np.empty(shape, np.float32)
        if kernel == "vector_add":
            fn = lambda: np.add(xs[0], xs[1], out=out)  # noqa: E731
        else:
            def fn():
                np.subtract(xs[0], xs[0].max(axis=1, keepdims=True), out=out)
                np.exp(out, out=out)
                np.divide(out, out.sum(axis=1, keepdims=True), out=out)
        t, reps = median_time(fn, budget)
        result = out
    elif impl == "torch":
        import torch
        ins = [torch.from_numpy(x) for x in xs]
        out = torch.empty(shape)
        if kernel == "vector_add":
            fn = lambda: torch.add(ins[0], ins[1], out=out)  # noqa: E731
        else:
            fn = lambda: torch.softmax(ins[0], dim=1, out=out)  # noqa: E731
        t, reps = median_time(fn, budget)
        result = out.numpy()
    else:
        raise SystemExit(f"unknown implementation {impl}")
    err = float(np.max(np.abs(result.astype(np.float64) - ref)))
    print(json.dumps({"impl": impl, "kernel": kernel, "size": "x".join(map(str, sizes)), "ms": t * 1e3,
                      "reps": reps, "max_abs_err": err}))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
