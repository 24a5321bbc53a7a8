#!/usr/bin/env python3
"""bench/check_cost.py — what the debug checks cost: each bench kernel timed with `tilec run
--repeat` unchecked and with the checks on, alternating in one run (ROUNDS rounds of each,
medians of the per-round medians), at 2 threads.

usage: check_cost.py TILEC [--checks 'ARGS'] [--rounds N] [--repeat N] [--only NAME,...]
       [--threads N] [--cpu]

--checks is the check flags as `tilec run` takes them (default `--check all`; the flags of an
older build, e.g. '--check-bounds --check-nan --check-races', measure that build). Prints a
Markdown table: kernel, unchecked and checked median ms (medians of the rounds' medians) and
their ratio, then the same for the minimum times (min of the rounds' minimums), which other
work on a shared machine disturbs less. --cpu measures CPU time instead, at 1 thread: the
process's user + system time of a run with 2*REPEAT launches minus one with REPEAT, per
launch (compile, loading and writing cancel out); what other processes do on the machine
then costs only cache sharing, not waiting. Needs numpy (/usr/bin/python3).
"""
import argparse
import os
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
K = os.path.join(HERE, "kernels")


def kernels(work):
    """(name, kernel file, kernel, grid, NAME=VALUE bindings) for the bench rows."""
    rng = np.random.default_rng(7)

    def arr(name, a):
        path = os.path.join(work, name + ".npy")
        np.save(path, a)
        return path

    n = 1 << 24
    vadd = ("vector add 2^24", "vector_add.py", "vadd_kernel", "%d" % (n // 1024),
            ["x_ptr=" + arr("vx", rng.standard_normal(n, np.float32)),
             "y_ptr=" + arr("vy", rng.standard_normal(n, np.float32)),
             "out_ptr=" + arr("vo", np.zeros(n, np.float32)), "n=%d" % n, "BLOCK_SIZE=1024"])
    r, c = 4096, 1024
    softmax = ("softmax 4096x1024", "softmax.py", "softmax_kernel", "%d" % r,
               ["out_ptr=" + arr("so", np.zeros((r, c), np.float32)),
                "in_ptr=" + arr("si", rng.standard_normal((r, c), np.float32)),
                "in_row_stride=%d" % c, "out_row_stride=%d" % c, "n_rows=%d" % r, "n_cols=%d" % c,
                "BLOCK_SIZE=1024"])
    r, c = 1024, 8192
    ln = ("layer norm 1024x8192 (BLOCK 256)", "layernorm.py", "layernorm_fwd_kernel", "%d" % r,
          ["x_ptr=" + arr("lx", rng.standard_normal((r, c), np.float32)),
           "y_ptr=" + arr("ly", np.zeros((r, c), np.float32)),
           "w_ptr=" + arr("lw", rng.standard_normal(c, np.float32)),
           "b_ptr=" + arr("lb", rng.standard_normal(c, np.float32)),
           "mean_ptr=" + arr("lm", np.zeros(r, np.float32)), "rstd_ptr=" + arr("lr", np.zeros(r, np.float32)),
           "row_stride=%d" % c, "N=%d" % c, "eps=1e-5", "BLOCK_SIZE=256"])
    m = 1024
    mm = ("matmul 1024 (128x128x32)", "matmul.py", "matmul_kernel", "%d" % ((m // 128) ** 2),
          ["a_ptr=" + arr("ma", rng.standard_normal((m, m), np.float32)),
           "b_ptr=" + arr("mb", rng.standard_normal((m, m), np.float32)),
           "c_ptr=" + arr("mc", np.zeros((m, m), np.float32)),
           "M=%d" % m, "N=%d" % m, "K=%d" % m, "stride_am=%d" % m, "stride_ak=1", "stride_bk=%d" % m,
           "stride_bn=1", "stride_cm=%d" % m, "stride_cn=1",
           "BLOCK_M=128", "BLOCK_N=128", "BLOCK_K=32", "GROUP_SIZE_M=8"])
    return [vadd, softmax, ln, mm]


def timed(tilec, row, extra, repeat, threads, env):
    name, file, kernel, grid, binds = row
    cmd = [tilec, "run", os.path.join(K, file), "-k", kernel, "--grid", grid, "--threads", str(threads),
           "--repeat", str(repeat)] + extra + binds
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    m = re.search(r"median_ms=([0-9.]+) min_ms=([0-9.]+)", p.stdout)
    if p.returncode or not m:
        sys.exit("%s: %s failed (exit %d): %s" % (name, " ".join(cmd), p.returncode, (p.stderr or p.stdout).strip()))
    return float(m.group(1)), float(m.group(2))


def cpu_ms(tilec, row, extra, repeat, env):
    """CPU ms per launch at 1 thread: (cpu(2R launches) - cpu(R launches)) / R."""
    def run(r):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        timed(tilec, row, extra, r, 1, env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return (run(2 * repeat) - run(repeat)) * 1000.0 / repeat


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tilec")
    ap.add_argument("--checks", default="--check all")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", help="comma-separated substrings of kernel names")
    ap.add_argument("--cpu", action="store_true", help="CPU ms per launch at 1 thread")
    a = ap.parse_args()
    extra = shlex.split(a.checks)
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, TILEC_CACHE_DIR=os.path.join(work, "cache"))
        for v in ("TILEC_CHECK", "TILEC_CHECK_BOUNDS", "TILEC_CHECK_RACES", "TILEC_CHECK_NAN"):
            env.pop(v, None)
        rows = kernels(work)
        if a.only:
            rows = [r for r in rows if any(s in r[0] for s in a.only.split(","))]
        if a.cpu:
            print("| kernel | unchecked, CPU ms per launch | `%s` | ratio |" % a.checks)
            print("|---|---|---|---|")
            for row in rows:
                plain, checked = [], []
                for _ in range(a.rounds):
                    plain.append(cpu_ms(a.tilec, row, [], a.repeat, env))
                    checked.append(cpu_ms(a.tilec, row, extra, a.repeat, env))
                p, c = statistics.median(plain), statistics.median(checked)
                print("| %s | %.3f ms | %.3f ms | %.2fx |" % (row[0], p, c, c / p), flush=True)
            return
        print("| kernel | unchecked | `%s` | ratio | unchecked (min) | checked (min) | ratio (min) |" % a.checks)
        print("|---|---|---|---|---|---|---|")
        for row in rows:
            plain, checked = [], []
            for _ in range(a.rounds):  # alternating: load on the machine hits both alike
                plain.append(timed(a.tilec, row, [], a.repeat, a.threads, env))
                checked.append(timed(a.tilec, row, extra, a.repeat, a.threads, env))
            p, c = statistics.median(t[0] for t in plain), statistics.median(t[0] for t in checked)
            pm, cm = min(t[1] for t in plain), min(t[1] for t in checked)
            print("| %s | %.3f ms | %.3f ms | %.2fx | %.3f ms | %.3f ms | %.2fx |" % (row[0], p, c, c / p, pm, cm, cm / pm),
                  flush=True)


if __name__ == "__main__":
    main()
