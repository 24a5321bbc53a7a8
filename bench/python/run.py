"""The Python section of tilec's benchmarks: launch overhead, and tilec vs Triton's
interpreter (TRITON_INTERPRET=1, the real triton package), numpy and torch eager on the
same kernels in the same run. Each measurement is its own process (the interpreter must
be chosen before triton is imported). Prints a Markdown table; ``--out FILE`` also writes
it (scripts/bench.sh: bench/python/REPORT.md).

Usage: python bench/python/run.py [--quick] [--no-interpreter] [--out FILE]"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = [("vector_add", "16777216"), ("softmax", "4096x1024")]
IMPLS = ["tilec", "torch", "numpy", "interpreter"]


def run(args, env):
    r = subprocess.run([sys.executable] + args, env=env, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
    return [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")], None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="shorter time budgets")
    ap.add_argument("--no-interpreter", action="store_true", help="skip Triton's interpreter (minutes)")
    ap.add_argument("--out", help="also write the Markdown report here")
    opts = ap.parse_args()
    env = dict(os.environ)
    env.pop("TILEC_TRITON", None)
    env["BENCH_BUDGET"] = "0.3" if opts.quick else "1.5"
    lines = []
    say = lambda s="": (print(s, flush=True), lines.append(s))  # noqa: E731
    threads = env.get("TILEC_NUM_THREADS") or str(os.cpu_count())
    say("## Python: tilec from Python vs the peers a Python user has")
    say()
    say(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; tilec and torch use {threads} threads "
        f"(TILEC_NUM_THREADS, torch's default), numpy one. Command: `python bench/python/run.py`.")
    say()
    say("### Launch overhead (cached kernel, 4 arguments, no work)")
    say()
    res, err = run([os.path.join(HERE, "launch.py")], env)
    say("| what | µs per launch (median of 7 × 20000) | best |")
    say("|---|---|---|")
    for r in res or []:
        say(f"| {r['what']} | {r['us_median']:.2f} | {r['us_min']:.2f} |")
    if err:
        say(f"| launch benchmark failed: {err} | | |")
    say()
    say("### Kernels: median time per call (ms), same kernel source (bench/kernels) for tilec and the interpreter")
    say()
    say("| kernel | size | " + " | ".join(IMPLS) + " | tilec speed-up vs interpreter |")
    say("|---|---|" + "---|" * len(IMPLS) + "---|")
    for kernel, sizes in CASES:
        row = {}
        for impl in IMPLS:
            if impl == "interpreter" and opts.no_interpreter:
                row[impl] = "skipped (bench/REPORT.md: small sizes)"
                continue
            e = dict(env)
            if impl == "interpreter":
                e["TRITON_INTERPRET"] = "1"
            if impl == "tilec":
                e["TILEC_TRITON"] = "1"  # the bench kernel's `import triton` is tilec's drop-in
            res, err = run([os.path.join(HERE, "peers.py"), impl, kernel, sizes], e)
            if not err and res and res[0].get("status") == "error":
                err = res[0].get("note", "error")
            if err:
                row[impl] = f"failed ({err[:60]})"
            else:
                r = res[0]
                row[impl] = f"{r['ms']:.2f}" + (" (wrong: max err %.2g)" % r["max_abs_err"]
                                                 if r["max_abs_err"] > 1e-4 else "")
        try:
            speedup = f"{float(row['interpreter'].split()[0]) / float(row['tilec'].split()[0]):.0f}x"
        except (ValueError, KeyError):
            speedup = "-"
        say(f"| {kernel} | {sizes} | " + " | ".join(row[i] for i in IMPLS) + f" | {speedup} |")
    if opts.out:
        with open(opts.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
