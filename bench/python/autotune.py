"""Does the drop-in's autotuner pick well? (issue 16, item 5: the tutorial matmul's chosen
config within 5% of the best of its config list.)

A matmul of the shape of Triton's tutorial 03 (grouped program order, masked K loop, fp32
accumulator, fp32 or fp16 inputs) under `@triton.autotune(configs, key=[M, N, K])`, run
through tilec's Triton drop-in on CPU torch tensors. For each dtype and size:

1. a reference: every config of the list timed on its own, carefully — compiled and run
   twice first, then `--rounds` rounds that each time every config once (after writing a
   last-level-cache-sized buffer), in pairs of rounds (an order, then reversed; rotating
   from pair to pair) so drift on a shared machine lands on all configs alike; the median
   per config. More rounds than the autotuner spends: this is the yardstick;
2. `--trials` fresh autotuners, each tuning once (as a user's first call does, compile
   included in its wall time but not in its timings); which config each chose. With
   --per-config, as many autotuners given `do_bench=triton.testing.do_bench` (each config
   timed alone, one after the other: Triton's own way, and the drop-in's before issue 16)
   alternate with them;
3. chosen / best: the reference median of the chosen config over the best reference median.

Prints a Markdown table (and JSON lines with --json).

Usage: python bench/python/autotune.py [--sizes 1024,2048] [--dtypes fp32,fp16]
       [--trials 3] [--rounds 12] [--configs all|cpu] [--per-config] [--json]"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

import tilec

tilec.install_triton()

import torch  # noqa: E402

import triton  # noqa: E402
import triton.language as tl  # noqa: E402


def configs_all():
    """A wide list: the register-blocking shapes that make sense on the CPU plus the
    tutorial's CUDA list (the shapes a ported program brings along)."""
    mk = lambda m, n, k, g=8: triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k,  # noqa: E731
                                             "GROUP_SIZE_M": g})
    return [mk(32, 32, 32), mk(32, 64, 32), mk(64, 32, 32), mk(64, 64, 32), mk(64, 64, 64), mk(64, 128, 32),
            mk(64, 128, 64), mk(128, 64, 32), mk(128, 128, 32), mk(128, 128, 64), mk(64, 256, 32),
            mk(128, 256, 64), mk(128, 32, 32)]


def configs_cpu():
    """The CPU config list README.md documents (python/tilec/triton: the drop-in's docs)."""
    mk = lambda m, n, k, g=8: triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k,  # noqa: E731
                                             "GROUP_SIZE_M": g})
    return [mk(64, 64, 64), mk(64, 128, 32), mk(64, 128, 64), mk(128, 128, 32), mk(128, 128, 64), mk(128, 256, 64)]


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def launch(kernel, a, b, c, **meta):
    M, K = a.shape
    _, N = b.shape
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]), )  # noqa: E731
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 **meta)


def reference(configs, a, b, c, rounds):
    """Median ms per config, configs interleaved round by round: pairs of rounds (an
    order, then the same order reversed), the order rotating from pair to pair."""
    drv = triton.runtime.driver.active
    flush = drv.get_empty_cache_for_benchmark()
    for cfg in configs:  # compile and warm every config before any timing
        launch(matmul_kernel, a, b, c, **cfg.all_kwargs())
        launch(matmul_kernel, a, b, c, **cfg.all_kwargs())
    times = {i: [] for i in range(len(configs))}
    for r in range(rounds):
        order = list(range(len(configs)))
        shift = (r // 2) % len(order)
        order = order[shift:] + order[:shift]
        if r % 2:
            order.reverse()
        for i in order:
            drv.clear_cache(flush)
            t0 = time.perf_counter()
            launch(matmul_kernel, a, b, c, **configs[i].all_kwargs())
            times[i].append((time.perf_counter() - t0) * 1e3)
    return [statistics.median(times[i]) for i in range(len(configs))], times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1024,2048")
    ap.add_argument("--dtypes", default="fp32,fp16")
    ap.add_argument("--trials", type=int, default=3, help="fresh autotuners per case")
    ap.add_argument("--rounds", type=int, default=12, help="reference rounds (each times every config once)")
    ap.add_argument("--configs", choices=("all", "cpu"), default="cpu")
    ap.add_argument("--per-config", action="store_true",
                    help="also tune with do_bench per config, one config after the other (the old way)")
    ap.add_argument("--json", action="store_true")
    opts = ap.parse_args()
    configs = configs_all() if opts.configs == "all" else configs_cpu()
    threads = os.environ.get("TILEC_NUM_THREADS") or str(os.cpu_count())
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f}, {threads} threads; command: python bench/python/autotune.py "
          + " ".join(sys.argv[1:]))
    print()
    print("| dtype | size | autotuner's benchmark | best config (ref. ms, GFLOP/s) | chosen (each trial) "
          "| chosen / best | tuning wall time (s) |")
    print("|---|---|---|---|---|---|---|")
    dtypes = {"fp32": torch.float32, "fp16": torch.float16}
    torch.manual_seed(0)
    for dname in opts.dtypes.split(","):
        for size in (int(s) for s in opts.sizes.split(",")):
            a = torch.randn((size, size), dtype=dtypes[dname])
            b = torch.randn((size, size), dtype=dtypes[dname])
            c = torch.empty((size, size), dtype=torch.float32)
            flops = 2.0 * size ** 3
            med, _ = reference(configs, a, b, c, opts.rounds)
            best = min(range(len(configs)), key=med.__getitem__)
            methods = ["default", "per-config"] if opts.per_config else ["default"]
            chosen = {m: [] for m in methods}
            walls = {m: [] for m in methods}
            for _ in range(opts.trials):
                for m in methods:
                    # per-config: each config timed alone by triton.testing.do_bench, one after
                    # the other (Triton's own autotuner on a GPU; the drop-in before issue 16)
                    bench = None if m == "default" else \
                        (lambda call, quantiles: triton.testing.do_bench(call, quantiles=quantiles))
                    tuned = triton.autotune(configs=configs, key=["M", "N", "K"], do_bench=bench)(matmul_kernel)
                    t0 = time.perf_counter()
                    launch(tuned, a, b, c)
                    walls[m].append(time.perf_counter() - t0)
                    chosen[m].append(configs.index(tuned.best_config))
            ref = torch.matmul(a.float(), b.float())
            assert torch.allclose(c, ref, atol=1e-1 if dname == "fp16" else 1e-2, rtol=1e-3), "wrong result"
            name = lambda i: "{BLOCK_SIZE_M}x{BLOCK_SIZE_N}x{BLOCK_SIZE_K}".format(**configs[i].kwargs)  # noqa: E731
            for m in methods:
                ratios = [med[i] / med[best] for i in chosen[m]]
                print(f"| {dname} | {size} | {m} | {name(best)} ({med[best]:.2f} ms, {flops / med[best] / 1e6:.0f}) | "
                      + ", ".join(f"{name(i)} ({med[i]:.2f} ms)" for i in chosen[m])
                      + f" | {', '.join(f'{r:.3f}' for r in ratios)} | {', '.join(f'{w:.1f}' for w in walls[m])} |",
                      flush=True)
                if opts.json:
                    print(json.dumps({"dtype": dname, "size": size, "method": m,
                                      "reference_ms": {name(i): round(x, 4) for i, x in enumerate(med)},
                                      "gflops": {name(i): round(flops / x / 1e6, 1) for i, x in enumerate(med)},
                                      "chosen": [name(i) for i in chosen[m]], "ratio": ratios,
                                      "tuning_s": walls[m]}), flush=True)


if __name__ == "__main__":
    main()
