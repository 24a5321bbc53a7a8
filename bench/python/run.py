"""The Python section of tilec's benchmarks: launch overhead, and tilec vs Triton's
interpreter (TRITON_INTERPRET=1, the real triton package), numpy and torch eager on the
same kernels in the same run. Each measurement is its own process (the interpreter must
be chosen before triton is imported). Prints a Markdown table; ``--out FILE`` also writes
it (scripts/bench.sh: bench/python/REPORT.md).

The LLM-training section (issue 16: fused attention vs torch's scaled_dot_product_attention;
RMSNorm, SwiGLU and cross entropy vs the same math in torch eager) runs tilec and torch in one
process per kernel, both checked against a float64 reference first, then timed alternately
(BENCH_ROUNDS rounds, 3 by default, 1 with --quick): the ratio is torch ms / tilec ms.

Usage: python bench/python/run.py [--quick] [--no-interpreter] [--only-llm] [--out FILE]"""

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
ATTN_SHAPES = [f"{dt}:{shape}{c}" for dt in ("fp32", "bf16") for c in ("", ":causal")
               for shape in ("1x8x1024x64", "1x8x1024x128", "1x4x2048x64", "1x4x2048x128", "1x2x4096x64",
                             "1x2x4096x128")]
LLM_CASES = [("attention", ATTN_SHAPES)] + [
    (k, [f"{dt}:{shape}" for dt in ("fp32", "bf16") for shape in shapes])
    for k, shapes in (("rmsnorm_fwd", ("4096x4096", "2048x8192")), ("rmsnorm_bwd", ("4096x4096", "2048x8192")),
                      ("swiglu_fwd", ("4096x4096", "2048x11008")), ("swiglu_bwd", ("4096x4096", "2048x11008")),
                      ("cross_entropy", ("1024x32000", "256x128256")))]
TARGET = {"attention": 1.5}   # issue 16: >= 1.5x SDPA; the other LLM kernels >= 2x torch eager


def run(args, env):
    r = subprocess.run([sys.executable] + args, env=env, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
    return [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")], None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="shorter time budgets")
    ap.add_argument("--no-interpreter", action="store_true", help="skip Triton's interpreter (minutes)")
    ap.add_argument("--only-llm", action="store_true", help="only the LLM-training section")
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
    if not opts.only_llm:
        kernels_section(opts, env, say)
    llm_section(opts, env, say)
    if opts.out:
        with open(opts.out, "w") as f:
            f.write("\n".join(lines) + "\n")


def llm_section(opts, env, say):
    say()
    say("### LLM training kernels (issue 16): tilec vs torch on CPU, same process, alternating")
    say()
    rounds = "1" if opts.quick else env.get("BENCH_ROUNDS", "3")
    say(f"bench/kernels/{{attention,rmsnorm,swiglu,cross_entropy}}.py through the drop-in vs torch "
        f"(attention: `F.scaled_dot_product_attention`; the rest: the same math in eager, autograd for the "
        f"backwards). Both checked against a float64 reference first; then median time per call of each, "
        f"timed alternately, median of {rounds} rounds; ratio = torch / tilec (target: attention >= 1.5, "
        f"others >= 2). Load average at the start {os.getloadavg()[0]:.2f}.")
    say()
    say("| kernel | dtype:shape | tilec ms | torch ms | ratio | target |")
    say("|---|---|---|---|---|---|")
    e = dict(env)
    e["TILEC_TRITON"] = "1"
    e["BENCH_ROUNDS"] = rounds
    for kernel, sizes in LLM_CASES:
        res, err = run([os.path.join(HERE, "peers.py"), "pair", kernel] + sizes, e)
        for r in res or []:
            if r.get("status") != "ok":
                say(f"| {kernel} | {r['size']} | {r.get('status')}: {r.get('note', '')[:80]} | | | |")
                continue
            target = TARGET.get(kernel, 2.0)
            say(f"| {kernel} | {r['size']} | {r['tilec_ms']:.2f} | {r['torch_ms']:.2f} | {r['ratio']:.2f} | "
                f"{'met' if r['ratio'] >= target else 'missed'} (>= {target:g}) |")
        if err:
            say(f"| {kernel} | failed: {err[:80]} | | | | |")
    say()
    say(f"Load average at the end {os.getloadavg()[0]:.2f}.")


def kernels_section(opts, env, say):
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


if __name__ == "__main__":
    main()
