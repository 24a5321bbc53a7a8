# bench/peers/numpy_bench.py — the numpy peer (run with /usr/bin/python3, Debian's numpy):
# the same kernels as whole-array numpy expressions into preallocated outputs, timed with
# the protocol of bench/common.h; prints the same JSON lines. Threads: OPENBLAS_NUM_THREADS.
import json
import math
import os
import sys
import time

import numpy as np

SCALE = float(os.environ.get("BENCH_TIME_SCALE", "1") or 1)
THREADS = int(os.environ.get("OPENBLAS_NUM_THREADS", "1") or 1)


def measure(fn, budget):
    """Warm-up, batches of >= 2 ms, 10..200 samples filling the budget; as bench/common.h."""
    budget *= SCALE
    t0 = time.perf_counter()
    fn()
    t = time.perf_counter() - t0
    if t < 0.5:
        t0 = time.perf_counter()
        fn()
        t = time.perf_counter() - t0
    t = max(t, 1e-9)
    batch = max(1, math.ceil(2e-3 / t)) if t < 2e-3 else 1
    sample = t * batch
    reps = min(200, max(10, int(budget / sample)))
    if sample * 10 > 25.0 * SCALE:
        reps = 3
    samples = []
    for _ in range(reps):
        a = time.perf_counter()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter() - a) / batch)
    samples.sort()
    med = samples[reps // 2] if reps % 2 else 0.5 * (samples[reps // 2 - 1] + samples[reps // 2])
    return {"median_s": med, "min_s": samples[0], "reps": reps, "batch": batch}


def emit(bench, size, res, note=""):
    line = {"bench": bench, "size": size, "impl": "numpy", "threads": THREADS, "status": "ok"}
    line.update(res)
    if note:
        line["note"] = note
    print(json.dumps(line), flush=True)


def rand(shape, seed, lo, hi):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(np.float32)


def vector_add(n):
    x, y = rand(n, 1, -1, 1), rand(n, 2, -1, 1)
    out = np.empty_like(x)
    emit("vector_add", str(n), measure(lambda: np.add(x, y, out=out), 1.0), "single-threaded")


def softmax(rows, cols):
    x = rand((rows, cols), 3, -8, 8)
    out = np.empty_like(x)
    red = np.empty((rows, 1), np.float32)

    def run():
        np.max(x, axis=1, keepdims=True, out=red)
        np.subtract(x, red, out=out)
        np.exp(out, out=out)
        np.sum(out, axis=1, keepdims=True, out=red)
        np.divide(out, red, out=out)

    res = measure(run, 1.0)
    want = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    want /= want.sum(1, keepdims=True)
    assert np.allclose(out, want, rtol=1e-4, atol=1e-7)
    emit("softmax", f"{rows}x{cols}", res, "single-threaded")


def layernorm(rows, cols):
    x = rand((rows, cols), 4, -2, 3)
    w, b = rand(cols, 5, 0.5, 1.0), rand(cols, 6, -0.5, 0.5)
    y = np.empty_like(x)
    d = np.empty_like(x)
    eps = np.float32(1e-5)

    def run():
        mean = x.mean(axis=1, keepdims=True)
        np.subtract(x, mean, out=d)
        np.multiply(d, d, out=y)
        rstd = 1.0 / np.sqrt(y.mean(axis=1, keepdims=True) + eps)
        np.multiply(d, rstd, out=y)
        np.multiply(y, w, out=y)
        np.add(y, b, out=y)

    emit("layernorm", f"{rows}x{cols}", measure(run, 1.0), "single-threaded")


def matmul(n):
    a, b = rand((n, n), 7, -1, 1), rand((n, n), 8, -1, 1)
    c = np.empty_like(a)
    emit("matmul", str(n), measure(lambda: np.matmul(a, b, out=c), 2.0),
         "np.matmul -> libblas.so.3 (Debian alternative: OpenBLAS)")


def main(argv):
    what = argv[1]
    if what == "vector_add":
        vector_add(int(argv[2]))
    elif what == "softmax":
        softmax(int(argv[2]), int(argv[3]))
    elif what == "layernorm":
        layernorm(int(argv[2]), int(argv[3]))
    elif what == "matmul":
        for n in argv[2:]:
            matmul(int(n))
    else:
        sys.exit("usage: numpy_bench.py vector_add N | softmax R C | layernorm R C | matmul N...")


if __name__ == "__main__":
    main(sys.argv)
