#!/usr/bin/env python3
"""Property test: the same random tile kernel on every target, each result against numpy.

Each case is a kernel generated from a seed and run with `tilec run` on every configuration
asked: the CPU (host) and the GPU lowering in the CTA emulator (--target nvptx-emu) at sm_80
(mma.sync) and sm_90a (wgmma) with 1, 4 or 8 warps, so one program meets every distribution of
its tiles over threads, warps and warpgroups. Every output is compared with numpy's float64
evaluation of the same program (integers exactly, floats within 5e-3 of max(1, |max|)), an
evaluation independent of tilec.

A kernel is one program's arithmetic over a BM x BN block of rows (BM, BN 1 to 256; the grid:
1 to 3 blocks of M rows, M and N sometimes ragged), built from: masked 2-D loads (fp32, fp16,
bf16, int32, int8, int16, uint8; rows and columns past the edges read `other`), elementwise
and math ops, row and column vectors broadcast back (reductions over either axis: sum, max,
min, argmax/argmin with ties), whole-tile reductions, cumsum over either axis, tl.trans and a
reshape-transpose, tl.flip, tl.sort, tl.where on column conditions, loops carrying a tile, and
tl.dot: fp16, bf16 or int8 operands, one step or a K loop (the pipelined path; K ragged at run
time, the K edge masked), A row- or column-major (its stride a run-time value), B loaded as
[K, N] or transposed from [N, K], the accumulator from zeros or a loaded tile; two dots
chained through a softmax (attention's shape), and attention's loop with an online softmax
(the rows plans, wgmma with A from registers at sm_90a). The numpy reference models the whole
BM x BN tile, masked lanes included (they carry `other` into axis-0 reductions), and rounds to
fp16 where the kernel does (p before p @ v).

    usage: targets.py TILEC [--seed S] [--count N] [--configs C,...] [-j J] [--keep DIR] [-v]
           targets.py TILEC --seed S --print        (the kernel of seed S)

--configs: host, or smARCHxW[sS] for nvptx-emu --arch sm_ARCH --num-warps W [--num-stages S]
(sm80x1, sm80x4, sm90ax8, sm80x4s2, ...); default host,sm80x4,sm90ax4,sm80x1,sm90ax8. A case
fails on a wrong result, a crash or a compile error other than 'not supported on nvptx yet' (a
clean refusal of the GPU lowering); a failure whose every configuration gives the same result
says so (the reference's numerics, or a bug common to all targets). --keep DIR writes each
failing case's kernel, inputs and the `tilec run` command of every configuration (cmd.txt)
to DIR/seedS.

ctest (lang.targets, label nvptx) runs a fixed sample: --count 8 --seed 100 (the family
'generated' runs seeds 1-32 in every mode of the suite). A larger run:

    /usr/bin/python3 tests/lang/property/targets.py build/tilec --count 2000 --seed 7 -j 2

Needs the standard library and numpy (/usr/bin/python3).
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "generated"))
sys.dont_write_bytecode = True
import harness  # noqa: E402
from gen import Gen, tolerance  # noqa: E402

def config_args(name):
    if name == "host":
        return []
    # smARCHxW[sS]: sm80x4, sm90ax8, sm80x4s2 (--num-stages 2)
    m = re.fullmatch(r"sm(\d+a?)x(\d+)(?:s(\d+))?", name)
    if not m:
        raise SystemExit("unknown configuration %r (host, or smARCHxW[sS]: sm80x4, sm90ax8, sm80x4s2)" % name)
    extra = ["--num-stages", m.group(3)] if m.group(3) else []
    return ["--target", "nvptx-emu", "--arch", "sm_" + m.group(1), "--num-warps", m.group(2)] + extra


def save(d, src, args, outs, grid, configs):
    """The kernel, its inputs and the `tilec run` command of each configuration, in d."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernel.py"), "w") as f:
        f.write(src)
    words = []
    for k, v in args.items():
        if isinstance(v, tuple):  # (bits, "bf16")
            np.save(os.path.join(d, k + ".npy"), v[0])
            words.append("%s=%s.npy:%s" % (k, k, v[1]))
        elif isinstance(v, np.ndarray):
            np.save(os.path.join(d, k + ".npy"), v)
            words.append("%s=%s.npy" % (k, k))
        else:
            words.append("%s=%s" % (k, v))
    words += ["--out %s=%s.out.npy" % (o, o) for o in outs]
    with open(os.path.join(d, "cmd.txt"), "w") as f:
        for cfg in configs:
            f.write("tilec run kernel.py -k kernel --grid %s %s %s\n" % (
                ",".join(map(str, grid)), " ".join(words), " ".join(config_args(cfg))))


def run_one(seed, configs, keep, verbose):
    src, args, outs, grid = Gen(seed).build()
    tmp = tempfile.mkdtemp(prefix="tilec-diff-")
    fails = []
    try:
        path = os.path.join(tmp, "k%d.py" % seed)
        with open(path, "w") as f:
            f.write(src)
        results = []
        for cfg in configs:
            rc, out, err, res = harness.run_kernel(path, "kernel", grid, args, list(outs), timeout=120,
                                                   extra=config_args(cfg))
            if rc != 0:
                if "not supported on nvptx yet" in err:
                    continue
                lines = err.strip().splitlines() or ["?"]
                first = next((ln for ln in lines if "error" in ln), lines[-1])
                fails.append("%s: exit %s: %s" % (cfg, rc, first[:300]))
                continue
            results.append(res)
            for o, exp in outs.items():
                rt, at = tolerance(exp, "f" if exp.dtype.kind == "f" else "i")
                msg = harness.compare(o, res[o], exp, rt, at)
                if msg:
                    fails.append("%s: %s" % (cfg, msg))
        if fails and len(fails) == len(configs) and len(results) == len(configs) and all(
                harness.compare(o, results[0][o], results[i][o], 1e-5, 1e-5) is None
                for i in range(1, len(results)) for o in outs):
            fails.append("(every target gives the same: the reference's numerics, or a bug common to all)")
        if fails and keep:
            save(os.path.join(keep, "seed%d" % seed), src, args, outs, grid, configs)
        if verbose and not fails:
            print("ok   seed %d (%s)" % (seed, " ".join(configs)))
        return seed, fails, src
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tilec")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--configs", default="host,sm80x4,sm90ax4,sm80x1,sm90ax8")
    ap.add_argument("-j", "--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("--keep")
    ap.add_argument("--print", action="store_true", help="print the kernel of --seed and exit")
    ap.add_argument("-v", "--verbose", action="store_true")
    opts = ap.parse_args()
    harness.TILEC = os.path.abspath(opts.tilec)
    if opts.print:
        src, args, outs, grid = Gen(opts.seed).build()
        print(src)
        print("# grid", grid, {k: (v if not isinstance(v, (np.ndarray, tuple)) else getattr(v, "shape", v[0].shape))
                               for k, v in args.items()})
        return 0
    configs = opts.configs.split(",")
    seeds = range(opts.seed, opts.seed + opts.count)
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as ex:
        for seed, fails, src in ex.map(lambda s: run_one(s, configs, opts.keep, opts.verbose), seeds):
            if fails:
                bad += 1
                print("FAIL seed %d" % seed)
                for f in fails:
                    print("  " + f)
                if opts.verbose:
                    print(src)
    print("%d kernels, %d failed (configs %s)" % (len(seeds), bad, ",".join(configs)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
