"""Launch overhead of a cached tilec kernel with 4 arguments (two arrays, an int, a
float): microseconds per ``kernel[grid](...)`` call, the kernel doing no work, for numpy
arrays and torch CPU tensors, and a plain Python call for scale. Prints JSON lines."""

import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels as K  # noqa: E402


def per_call_us(fn, calls=20000, rounds=7):
    fn()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(samples), min(samples)


def emit(what, med, best):
    print(json.dumps({"what": what, "us_median": round(med, 3), "us_min": round(best, 3)}))


def main():
    a = np.zeros(16, np.float32)
    b = np.zeros(16, np.float32)
    launch = K.launch_kernel[(1,)]
    emit("tilec launch, numpy arrays: kernel[(1,)](a, b, 16, 1.5)", *per_call_us(lambda: launch(a, b, 16, 1.5)))
    emit("tilec launch, grid lambda", *per_call_us(lambda: K.launch_kernel[lambda m: (1,)](a, b, 16, 1.5)))
    try:
        import torch
        ta, tb = torch.zeros(16), torch.zeros(16)
        emit("tilec launch, torch tensors", *per_call_us(lambda: launch(ta, tb, 16, 1.5)))
    except ImportError:
        pass

    def py(a, b, n, alpha):
        return None
    emit("plain Python function call (4 args), for scale", *per_call_us(lambda: py(a, b, 16, 1.5)))


if __name__ == "__main__":
    main()
