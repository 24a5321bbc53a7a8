# bench/report.py — turns the raw JSON lines of one scripts/bench.sh run into
# bench/results.json, bench/REPORT.md (tables of medians and tilec/peer speed ratios, targets,
# the size sweep, machine, commands), bench/chart.png and bench/sweep.png (cost vs size,
# log-log). Run with /usr/bin/python3 (needs matplotlib).
import argparse
import json
import statistics
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")  # no display on the benchmark machine
import matplotlib.pyplot as plt  # noqa: E402

IMPL_NAMES = OrderedDict([
    ("tilec", "tilec"),
    ("c", "C -O3 -march=native -fopenmp"),
    ("openblas", "OpenBLAS sgemm"),
    ("pocl", "PoCL (OpenCL)"),
    ("numpy", "numpy"),
    ("torch", "torch eager"),
    ("inductor", "torch.compile (inductor CPU)"),
    ("interpreter", "Triton interpreter"),
])
SHORT_NAMES = {"tilec": "tilec", "c": "C", "openblas": "OpenBLAS", "pocl": "PoCL", "numpy": "numpy",
               "torch": "torch", "inductor": "torch.compile", "interpreter": "interpreter"}
COLORS = {"tilec": "#d62728", "c": "#1f77b4", "openblas": "#2ca02c", "pocl": "#ff7f0e", "numpy": "#9467bd",
          "torch": "#8c564b", "inductor": "#e377c2", "interpreter": "#7f7f7f"}
PY_PEERS = ["torch", "inductor"]  # measured at 2 threads only (bench/python/peers.py)

# (bench, size, title, reference peer, peers, work units and unit name)
MEM_PEERS = ["c", "pocl", "numpy"] + PY_PEERS
MM_PEERS = ["openblas", "pocl", "numpy"] + PY_PEERS
KERNELS = [
    ("vector_add", "16777216", "vector add 2^24 fp32", "c", MEM_PEERS, 12 * 2**24, "GB/s"),
    ("softmax", "4096x1024", "softmax 4096×1024 (BLOCK 1024)", "c", MEM_PEERS, 8 * 4096 * 1024, "GB/s"),
    ("softmax", "1024x8192", "softmax 1024×8192 (BLOCK 8192)", "c", MEM_PEERS, 8 * 1024 * 8192, "GB/s"),
    ("softmax (BLOCK 8192)", "4096x5000", "softmax 4096×5000, BLOCK 8192 (the tutorial's next_power_of_2(N), masked tail)",
     "c", ["c"], 8 * 4096 * 5000, "GB/s"),
    ("layernorm", "1024x8192", "layer norm fwd 1024×8192, BLOCK 256", "c", MEM_PEERS, 8 * 1024 * 8192, "GB/s"),
    ("layernorm (BLOCK 8192)", "1024x8192", "layer norm fwd 1024×8192, BLOCK 8192 (the tutorial's next_power_of_2(N))",
     "c", ["c"], 8 * 1024 * 8192, "GB/s"),
    ("layernorm (BLOCK 16384)", "1024x12000",
     "layer norm fwd 1024×12000, BLOCK 16384 (the tutorial's next_power_of_2(N), masked tail)",
     "c", ["c"], 8 * 1024 * 12000, "GB/s"),
    ("matmul", "1024", "matmul fp32 N=1024", "openblas", MM_PEERS, 2 * 1024**3, "GFLOP/s"),
    ("matmul", "2048", "matmul fp32 N=2048", "openblas", MM_PEERS, 2 * 2048**3, "GFLOP/s"),
    ("matmul", "4096", "matmul fp32 N=4096", "openblas", MM_PEERS, 2 * 4096**3, "GFLOP/s"),
]
# numpy ufuncs and Triton's interpreter (numpy underneath) use one core: their 1-thread rows
# stand for both thread counts.
SINGLE_THREADED = {"numpy": {"vector_add", "softmax", "layernorm"}, "interpreter": None}
# The size sweep (2 threads): family, title, reference peer, other peers, x of a size, x label.
SWEEP = [
    ("vector_add", "vector add fp32", "c", ["torch", "interpreter"], lambda s: int(s), "elements"),
    ("softmax", "softmax ROWS×1024 (BLOCK 1024)", "c", ["torch", "interpreter"],
     lambda s: int(s.split("x")[0]) * int(s.split("x")[1]), "elements"),
    ("layernorm", "layer norm ROWS×8192 (tilec BLOCK 8192; also BLOCK 256)", "c", ["torch", "interpreter"],
     lambda s: int(s.split("x")[0]) * int(s.split("x")[1]), "elements"),
    ("matmul", "matmul fp32 N×N×N", "openblas", ["torch", "interpreter"], lambda s: int(s), "N"),
]


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def aggregate(rows):
    """One entry per (bench, size, impl, threads): several ok samples (one-sample-per-process
    rows such as cold compiles) become the median of medians and the min of mins."""
    groups = OrderedDict()
    for r in rows:
        groups.setdefault((r["bench"], r["size"], r["impl"], r["threads"]), []).append(r)
    out = {}
    for key, rs in groups.items():
        ok = [r for r in rs if r["status"] in ("ok", "mismatch") and "median_s" in r]
        if ok:
            e = dict(ok[0])
            e["median_s"] = statistics.median(r["median_s"] for r in ok)
            e["min_s"] = min(r["min_s"] for r in ok)
            e["reps"] = sum(r["reps"] for r in ok)
            e["processes"] = len(ok)
            if any(r["status"] == "mismatch" for r in ok):
                e["status"] = "mismatch"
                e["note"] = next(r["note"] for r in ok if r["status"] == "mismatch")
        else:
            e = dict(rs[0])
        out[key] = e
    return out


def get(res, bench, size, impl, t):
    e = res.get((bench, size, impl, t))
    if e is None and impl in SINGLE_THREADED and (SINGLE_THREADED[impl] is None or bench in SINGLE_THREADED[impl]):
        e = res.get((bench, size, impl, 1))
    return e


def ok(e):
    return e is not None and "median_s" in e and e["status"] in ("ok", "mismatch")


def fmt_t(s):
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs" if s < 1e-4 else f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms" if s < 1e-2 else f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def cell(e, work=None, unit=None):
    if e is None:
        return "—"
    if not ok(e):
        return {"unsupported": "not supported yet", "skipped": "not run", "unavailable": "n/a"}.get(
            e["status"], e["status"])
    s = fmt_t(e["median_s"])
    if work:
        rate = work / e["median_s"] / 1e9
        s += f"<br>{rate:.0f} {unit}" if rate >= 10 else f"<br>{rate:.1f} {unit}"
    if e["status"] == "mismatch":
        s += " **(wrong output)**"
    return s


def ratio(tilec, peer):
    """Speed of tilec relative to the peer: peer time / tilec time (> 1: tilec faster)."""
    if ok(tilec) and ok(peer):
        return peer["median_s"] / tilec["median_s"]
    return None


def ratio_min(tilec, peer):
    """The same ratio from the fastest samples: less sensitive to other work on the machine."""
    if ok(tilec) and ok(peer):
        return peer["min_s"] / tilec["min_s"]
    return None


def fmt_rr(tilec, peer):
    r, m = ratio(tilec, peer), ratio_min(tilec, peer)
    return fmt_r(r) if m is None else f"{fmt_r(r)}<br>min: {fmt_r(m).strip('*')}"


def fmt_r(r):
    if r is None:
        return "—"
    return f"**{r:.0f}×**" if r >= 100 else f"**{r:.2f}×**"


def read_machine(path):
    m = OrderedDict()
    with open(path) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                m[k] = v
    return m


def targets(res):
    """The goals of issues 4 and 16 at 2 threads, with what this run measured."""
    rows = []

    def rel(bench, size, peer, goal, label):
        t, p = get(res, bench, size, "tilec", 2), get(res, bench, size, peer, 2)
        r, rm = ratio(t, p), ratio_min(t, p)
        if r is None:
            state = "tilec: not supported yet" if t is not None and t["status"] == "unsupported" else "not measured"
            rows.append((label, f"≥ {goal}×", "—", "—", state))
        else:
            rows.append((label, f"≥ {goal}×", f"{r:.2f}×", f"{rm:.2f}×", "met" if r >= goal else "missed"))

    rel("vector_add", "16777216", "c", 0.95, "vector add vs C loop")
    rel("softmax", "4096x1024", "c", 1.0, "softmax 4096×1024 vs C + SLEEF")
    rel("softmax", "1024x8192", "c", 1.0, "softmax 1024×8192 vs C + SLEEF")
    rel("softmax (BLOCK 8192)", "4096x5000", "c", 1.0, "softmax 4096×5000, BLOCK 8192 (tutorial) vs C + SLEEF")
    rel("layernorm", "1024x8192", "c", 0.95, "layer norm 1024×8192, BLOCK 256 vs C")
    rel("layernorm (BLOCK 8192)", "1024x8192", "c", 0.95, "layer norm 1024×8192, BLOCK 8192 (tutorial) vs C")
    rel("layernorm (BLOCK 16384)", "1024x12000", "c", 0.95, "layer norm 1024×12000, BLOCK 16384 (tutorial) vs C")
    for n in ("1024", "2048", "4096"):
        rel("matmul", n, "openblas", 0.75, f"matmul N={n} vs OpenBLAS")

    def absolute(bench, size, impl, t, limit, label):
        e = res.get((bench, size, impl, t))
        if ok(e):
            rows.append((label, f"≤ {fmt_t(limit)}", fmt_t(e["median_s"]), fmt_t(e["min_s"]),
                         "met" if e["median_s"] <= limit else "missed"))
        else:
            state = "tilec: not supported yet" if e is not None and e["status"] == "unsupported" else "not measured"
            rows.append((label, f"≤ {fmt_t(limit)}", "—", "—", state))

    absolute("launch", "grid 1", "tilec", 2, 2e-6, "empty launch, grid 1")
    absolute("compile (cold)", "vector_add", "tilec", 1, 0.1, "cold compile, vector add")
    absolute("compile (cold)", "matmul", "tilec", 1, 0.5, "cold compile, matmul")
    return rows


CHECKS_INTRO = ("What `--check all` (bounds, NaN, race and init checks together) costs: "
                "`bench/check_cost.py` runs each kernel with `tilec run --repeat` unchecked and checked, "
                "alternating in one run; the first table is wall time at 2 threads (medians of the rounds' "
                "medians, and minimums), the second CPU time per launch at 1 thread (a run of 2R launches "
                "minus one of R), which other work on the machine disturbs less.")


def write_checks(w, checks_md):
    """The debug checks' section: bench/check_cost.py's tables, as it printed them."""
    w("## Debug checks (`--check all`)")
    w("")
    w(CHECKS_INTRO)
    w("")
    with open(checks_md) as f:
        w(f.read().rstrip("\n"))
    w("")


def write_report(res, machine, commands, path, chart_name, checks_md=None):
    L = []
    w = L.append
    w("# tilec benchmarks")
    w("")
    w(f"Generated by `scripts/bench.sh` on {machine.get('date', '?')} "
      f"(tilec {machine.get('tilec_commit', '?')}); rerun it to refresh this file, `results.json` and "
      f"`{chart_name}`. The run took {machine.get('duration_s', '?')} s."
      + (" **Quick mode (`--quick`): short time budgets, numbers are rough.**" if machine.get("quick") == "1" else ""))
    w("")
    try:
        loads = [float(machine.get(k, "0").split()[0]) for k in ("loadavg_start", "loadavg_end")]
    except ValueError:
        loads = [0.0, 0.0]
    try:
        cpus = int(machine.get("cpus", "0"))
    except ValueError:
        cpus = 0
    # Other work: load before the run started, or more at its end than the run's own threads
    # (up to one per CPU) account for.
    if loads[0] >= 1 or loads[1] >= (cpus or 1) + 1:
        w(f"**This run shared the machine with other work** (load average {loads[0]:.1f} at the start, "
          f"{loads[1]:.1f} at the end, on {machine.get('cpus', '?')} CPUs): times are several times a quiet "
          "machine's and ratios swing by ±30% or more from row to row; rerun on a quiet machine "
          "(`--wait-idle`) for numbers to quote.")
        w("")
    w("**Ratios** are the speed of tilec relative to a peer: peer median time ÷ tilec median time, "
      "so > 1 means tilec is faster. Every number comes from this one run; peers of a row ran "
      "right after tilec.")
    w("")
    w("## Machine")
    w("")
    w("| | |")
    w("|---|---|")
    for k, label in [("cpu", "CPU"), ("cpus", "logical CPUs"), ("cores_per_socket", "cores per socket"),
                     ("threads_per_core", "threads per core"), ("caches", "caches"), ("simd", "SIMD flags"),
                     ("memory", "memory"), ("kernel", "kernel"), ("os", "OS"), ("cc", "C compiler (peers, drivers)"),
                     ("pocl", "PoCL device"), ("openblas", "OpenBLAS (Debian)"), ("sleef", "SLEEF (Debian)"),
                     ("numpy", "numpy"), ("torch", "torch (venv; eager and torch.compile)"),
                     ("triton", "triton (venv; its interpreter)"), ("loadavg_start", "load average at the start"),
                     ("loadavg_end", "load average at the end")]:
        w(f"| {label} | {machine.get(k, '?')} |")
    corename = next((e["note"].split(";")[0] for k, e in res.items() if k[2] == "openblas" and "note" in e
                     and e["note"].startswith("corename")), None)
    if corename:
        w(f"| OpenBLAS kernel (`openblas_get_corename()`) | {corename.split('=', 1)[1]} |")
    w("")

    w("## Against the targets (2 threads)")
    w("")
    w("Judged on medians; the min column repeats the comparison with the fastest samples, "
      "which other work on the machine disturbs less.")
    w("")
    w("| target | goal | measured (median) | (min) | |")
    w("|---|---|---|---|---|")
    for label, goal, got, got_min, state in targets(res):
        w(f"| {label} | {goal} | {got} | {got_min} | {state} |")
    w("")

    w(f"![chart]({chart_name})")
    w("")
    w("## Kernels")
    w("")
    w("Median time per call (and throughput: bytes read + written, or 2N³ flops), one row per "
      "implementation; *tilec vs X* is X's time ÷ tilec's (> 1: tilec faster). torch and "
      "torch.compile ran at 2 threads only; min times and repetition counts are in `results.json`.")
    w("")
    for bench, size, title, ref, peers, work, unit in KERNELS:
        w(f"### {title}")
        w("")
        w("| implementation | 1 thread | tilec vs it | 2 threads | tilec vs it |")
        w("|---|---|---|---|---|")
        notes = OrderedDict()
        for impl in ["tilec"] + peers:
            cells = [IMPL_NAMES[impl]]
            for t in (1, 2):
                te, e = get(res, bench, size, "tilec", t), get(res, bench, size, impl, t)
                c = cell(e, work, unit)
                if e is not None and ok(e) and e["threads"] != t:
                    c += f" ({e['threads']} thread)"
                if e is None and impl in PY_PEERS and t == 1:
                    c = "— (2 threads only)"
                cells += [f"**{c}**" if impl == "tilec" and ok(e) else c,
                          "" if impl == "tilec" else fmt_rr(te, e)]
                if e is None:
                    continue
                if not ok(e) or e["status"] == "mismatch":
                    msg = {"unsupported": "not supported yet"}.get(e["status"], e["status"])
                    note = e.get("note", "")
                    if e["status"] == "unsupported" and note.startswith("not supported yet"):
                        text = f"{impl}: {note}"
                    else:
                        text = f"{impl}: {msg}" + (f" ({note})" if note else "")
                    notes.setdefault(text, []).append(t)
                elif impl != "tilec" and e.get("note") and not e["note"].startswith("corename"):
                    notes.setdefault(f"{impl}: {e['note']}", [])
            w("| " + " | ".join(cells) + " |")
        w("")
        for text, ts in notes.items():
            suffix = f" — {' and '.join(map(str, sorted(set(ts))))} thread(s)" if ts and len(set(ts)) < 2 else ""
            w(f"- {text}{suffix}")
        if notes:
            w("")

    write_sweep(res, w)

    w("## Launch overhead (empty kernel)")
    w("")
    w("Per launch, median over batches of back-to-back launches. tilec: the generated "
      "`empty_kernel_launch`; C: a direct call (grid 1) or an `omp parallel for` over 1024 empty "
      "calls; PoCL: `clEnqueueNDRangeKernel` + `clFinish` with work-groups of one work-item.")
    w("")
    w("| grid | threads | tilec | C (OpenMP) | PoCL | tilec vs PoCL |")
    w("|---|---|---|---|---|---|")
    lnotes = OrderedDict()
    for size in ("grid 1", "grid 1024"):
        for t in (1, 2):
            te, ce, pe = (res.get(("launch", size, i, t)) for i in ("tilec", "c", "pocl"))
            w(f"| {size} | {t} | {cell(te)} | {cell(ce)} | {cell(pe)} | {fmt_rr(te, pe)} |")
            if te is not None and not ok(te):
                lnotes.setdefault(f"tilec: {te.get('note', te['status'])}", None)
    w("")
    for n in lnotes:
        w(f"- {n}")
    if lnotes:
        w("")

    w("## Compile time")
    w("")
    w("Median over fresh processes. tilec *API*: `tilec_compiler_create` + "
      "`tilec_compiler_build_library` (object + linked .so + header) in a process that has not "
      "used MLIR yet; *CLI*: `tilec compile` run as a child process, wall time. PoCL: "
      "`clBuildProgram` in a fresh process with an empty (cold) or filled (cached) kernel cache; "
      "PoCL still generates code per work-group size at the first launch, which this does not "
      "include. tilec *cached*: a fresh process runs `tilec_compiler_create` + `tilec_jit_compile`, which finds the kernel in the JIT disk cache.")
    w("")
    w("| kernel | tilec cold (API) | tilec cold (CLI) | tilec cached | PoCL cold | PoCL cached |")
    w("|---|---|---|---|---|---|")
    cnotes = OrderedDict()
    for size, psize in (("vector_add", "vector_add"), ("softmax", None), ("layernorm", None),
                        ("matmul", "matmul"), (None, "5 kernels")):
        def c(bench, s, impl):
            if s is None:
                return "—"
            e = res.get((bench, s, impl, 1))
            if e is not None and not ok(e) and e["status"] == "unsupported":
                cnotes.setdefault(f"tilec {s}: {e.get('note', '')}", None)
            return cell(e)
        w(f"| {size or 'all 5 OpenCL kernels'} | {c('compile (cold)', size, 'tilec')} | "
          f"{c('compile (cold, CLI)', size, 'tilec')} | {c('compile (cached)', size, 'tilec')} | "
          f"{c('compile (cold)', psize, 'pocl')} | {c('compile (cached)', psize, 'pocl')} |")
    w("")
    for n in cnotes:
        w(f"- {n}")
    if cnotes:
        w("")

    if checks_md:
        write_checks(w, checks_md)

    bm = machine.get("matmul_blocks", "64 64 32 8").split()
    w("## How it was measured")
    w("")
    w(f"- The kernel and launch suite ran {machine.get('rounds', '?')} round(s), each measurement in its own "
      "process; a row shows the median of the runs' medians (min: the smallest sample). In the "
      f"memory-bound rows tilec and the C loop alternate, {machine.get('alternate', '1')} short runs each "
      "per round: this machine's memory bandwidth moves between levels for tens of seconds, and "
      "alternating makes both sample the same levels.")
    w("- Every measurement: untimed warm-up call(s), then ≥ 10 timed samples (up to 200, filling "
      "a time budget of 1–2 s); calls under 2 ms are timed in batches of ≥ 2 ms. A call so slow "
      "that 10 samples would exceed 25 s gets 3 samples (the count is in `results.json`). "
      "Every output is checked against a double-precision reference (all of vector add, every "
      "7th row of softmax/layer norm, 512 sampled entries of matmul).")
    w("- Threads: tilec `TILEC_NUM_THREADS`, C `OMP_NUM_THREADS`, OpenBLAS and numpy "
      "`OPENBLAS_NUM_THREADS` (+ `openblas_set_num_threads`), PoCL 3.1 `POCL_MAX_PTHREAD_COUNT` "
      "(it sets the device's compute units). numpy's elementwise functions use one thread; "
      "their 1-thread time is shown in both rows.")
    w("- OpenBLAS and numpy run with `OPENBLAS_CORETYPE` and `OPENBLAS_L2_SIZE` removed from "
      "their environment (the machines set them; they halve sgemm speed), so OpenBLAS picks "
      "its kernel itself; the kernel it picked is shown above.")
    w("- Buffers are 64-byte aligned host memory; PoCL buffers wrap it (`CL_MEM_USE_HOST_PTR`), "
      "so no copies are timed. PoCL kernels are straightforward ports (one work-item per element "
      "or row, no local memory); row kernels use work-groups of 16 rows because with a NULL "
      "local size PoCL 3.1 puts all rows in one work-group and uses one thread. The naive PoCL "
      "matmul (~1 GFLOP/s) runs only at N = 1024.")
    w(f"- The C softmax uses SLEEF's vector exp of the width `-march=native` enables (reported "
      f"in its row). tilec's matmul uses BLOCK_M×BLOCK_N×BLOCK_K = {bm[0]}×{bm[1]}×{bm[2]}, "
      f"GROUP_SIZE_M = {bm[3]} (why: `bench/kernels/matmul.py`; `TILEC_BENCH_MATMUL_BLOCKS` overrides). "
      f"The layer norm kernel (the shape of Triton's tutorial 05 forward kernel: three loops over the "
      f"row) runs at BLOCK_SIZE = 256, where its accumulators stay in registers (why: "
      f"`bench/kernels/layernorm.py`), and at the tutorial's BLOCK_SIZE = next_power_of_2(N) "
      f"(8192 for N = 8192, 16384 for N = 12000), where each loop runs once per row; the "
      f"BLOCK 8192/16384 rows alternate with their own C runs. Softmax takes the whole row as one "
      f"tile (BLOCK = next_power_of_2(n_cols), as the tutorial).")
    w("- Python peers (`bench/python/peers.py` in the venv of `scripts/python_venv.sh`, torch "
      f"{machine.get('torch', '?')}, triton {machine.get('triton', '?')}): torch eager "
      "(`out=` forms where torch has them; `F.layer_norm` allocates its output) every round, and "
      "`torch.compile` (inductor on CPU, which compiles C++ with the system compiler at run "
      "time; `dynamic=False`, its cache in `build/bench/inductor-cache`, the warm-up call "
      "compiles) in the first round only, both with `torch.set_num_threads(2)`; they use "
      "the timing protocol above (`bench/peers/numpy_bench.py`'s `measure`). Triton's "
      "interpreter (`TRITON_INTERPRET=1`, the real triton, running the same `bench/kernels` "
      "source as tilec) takes milliseconds per program, so it runs only in the sweep's "
      "smallest sizes, one timed call after a warm-up.")
    w("- The machine may be shared with other work: a load average above ~0.5 at the start "
      "means something else was running, and 2-thread numbers (which need both cores) suffer "
      "most. Memory-bound 2-thread times also swing between levels from run to run; compare "
      "ratios within one run only.")
    w("")
    w("## Commands")
    w("")
    # Rounds and repeated cold compiles run the same commands: each is listed once.
    counts = OrderedDict()
    for c in commands:
        counts[c] = counts.get(c, 0) + 1
    w("<details><summary>every benchmark command of this run, in first-run order "
      "(# ×N: run N times)</summary>")
    w("")
    w("```sh")
    L.extend(c if n == 1 else f"{c}  # ×{n}" for c, n in counts.items())
    w("```")
    w("")
    w("</details>")
    w("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def sweep_series(res, family):
    """{series: {size: entry}} of one sweep family at 2 threads (1 for single-threaded peers);
    layer norm also has the tilec series at BLOCK 256."""
    bench = f"sweep {family}"
    series = OrderedDict()
    for (b, size, impl, t), e in res.items():
        if b == bench:
            name = impl
        elif b == f"{bench} (BLOCK 256)" and impl == "tilec":
            name = "tilec BLOCK 256"
        else:
            continue
        if t == 2 or (t == 1 and impl in SINGLE_THREADED):
            series.setdefault(name, {})[size] = e
    return series


def write_sweep(res, w):
    fams = [f for f in SWEEP if sweep_series(res, f[0])]
    if not fams:
        return
    w("## How cost grows with size (sweep, 2 threads)")
    w("")
    w("One pass per size at 2 threads (Triton's interpreter: one thread, smallest sizes only, one timed "
      "call after a warm-up), half the time budget of the rows above; tilec and the C loop alternate "
      "once per size. Median and fastest time per call; *vs X* is X's time ÷ tilec's (medians; "
      "min: the fastest samples). Plotted log-log in `sweep.png` with the fastest samples, which "
      "other work on a shared machine disturbs least (one process per size: a descheduled "
      "thread can double a median).")
    w("")
    w("![sweep](sweep.png)")
    w("")
    for family, title, ref, peers, xof, xlabel in fams:
        ser = sweep_series(res, family)
        sizes = sorted({s for d in ser.values() for s in d}, key=xof)
        impls = [i for i in ["tilec", "tilec BLOCK 256", ref] + peers if i in ser]
        w(f"### {title}")
        w("")
        head, rule = ["size"], ["---"]
        for i in impls:
            name = SHORT_NAMES.get(i, i)
            head += [name] if i.startswith("tilec") else [name, f"tilec vs {name}"]
            rule += ["---"] if i.startswith("tilec") else ["---", "---"]
        w("| " + " | ".join(head) + " |")
        w("|" + "|".join(rule) + "|")
        ratios = OrderedDict((i, []) for i in impls if not i.startswith("tilec"))
        for size in sizes:
            te = ser.get("tilec", {}).get(size)
            cells = [size.replace("x", "×")]
            for i in impls:
                e = ser[i].get(size)
                cells.append(cell(e) + (f"<br>min {fmt_t(e['min_s'])}" if ok(e) and e["reps"] > 1 else ""))
                if not i.startswith("tilec"):
                    cells.append(fmt_rr(te, e))
                    if ratio(te, e) is not None:
                        ratios[i].append((size, ratio(te, e)))
            w("| " + " | ".join(cells) + " |")
        w("")
        for i, rs in ratios.items():
            if len(rs) >= 2:
                lo, hi = min(r for _, r in rs), max(r for _, r in rs)
                w(f"- tilec vs {SHORT_NAMES[i]}: {fmt_r(rs[0][1]).strip('*')} at {rs[0][0].replace('x', '×')}, "
                  f"{fmt_r(rs[-1][1]).strip('*')} at {rs[-1][0].replace('x', '×')} (range "
                  f"{fmt_r(lo).strip('*×')}–{fmt_r(hi).strip('*')})")
            elif rs:
                w(f"- tilec vs {SHORT_NAMES[i]}: {fmt_r(rs[0][1]).strip('*')} at {rs[0][0].replace('x', '×')}")
        tl = [(size, e) for size, e in ser.get("tilec", {}).items() if ok(e)]
        if len(tl) >= 2:
            tl.sort(key=lambda p: xof(p[0]))
            (s0, e0), (s1, e1) = tl[0], tl[-1]
            grow = (e1["median_s"] / e0["median_s"]) / (xof(s1) / xof(s0))
            w(f"- tilec: {fmt_t(e0['median_s'])} at {s0.replace('x', '×')}, {fmt_t(e1['median_s'])} at "
              f"{s1.replace('x', '×')}: {xof(s1) / xof(s0):.0f}× the {xlabel} cost {e1['median_s'] / e0['median_s']:.0f}× "
              f"the time" + (f" (N³ grows {(xof(s1) / xof(s0)) ** 3:.0f}×)" if xlabel == "N" else
                            f" (time per element at the largest size: {grow:.2f}× that at the smallest)"))
        w("")


def sweep_chart(res, machine, path):
    fams = [f for f in SWEEP if sweep_series(res, f[0])]
    if not fams:
        return False
    fig, axes = plt.subplots(2, 2, figsize=(13, 10), dpi=100)
    for ax, (family, title, ref, peers, xof, xlabel) in zip(axes.flat, fams):
        ser = sweep_series(res, family)
        for name in ["tilec", "tilec BLOCK 256", ref] + peers:
            pts = sorted((xof(s), e["min_s"]) for s, e in ser.get(name, {}).items() if ok(e))
            if not pts:
                continue
            impl = "tilec" if name.startswith("tilec") else name
            label = ("tilec BLOCK 8192 (tutorial)" if family == "layernorm" and name == "tilec" else
                     IMPL_NAMES.get(name, name) if name != "c" else "C loop") + (
                " (1 thread)" if name in SINGLE_THREADED else "")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=4,
                    linestyle="--" if name == "tilec BLOCK 256" else "-",
                    linewidth=2.2 if impl == "tilec" else 1.3, color=COLORS[impl], label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(xlabel + " (log)")
        ax.set_ylabel("seconds per call, fastest sample (log)")
        ax.set_title(title, fontsize=10)
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(fams):]:
        ax.axis("off")
    fig.suptitle(f"How cost grows with size, 2 threads — {machine.get('cpu', '?')}, {machine.get('date', '')}",
                 fontsize=12)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(path)
    return True


def short_label(bench, size):
    if bench == "matmul":
        return f"matmul\nN={size}"
    if bench == "vector_add":
        return "vector add\n2^24"
    if bench.startswith("layernorm"):
        block = bench.split("BLOCK ")[1].rstrip(")") if "BLOCK" in bench else "256"
        return f"layer norm\n{size.replace('x', '×')}\nBLOCK {block}"
    return f"{bench}\n{size.replace('x', '×')}"


def chart(res, machine, path):
    fig = plt.figure(figsize=(19, 13), dpi=100)
    gs = fig.add_gridspec(3, 2, height_ratios=[1, 1, 0.95])
    impls = ["tilec", "c", "openblas", "pocl", "numpy", "torch", "inductor"]
    width = 0.13
    for row, t in enumerate((1, 2)):
        ax = fig.add_subplot(gs[row, :])
        for x, (bench, size, title, ref, peers, _, _) in enumerate(KERNELS):
            refe = get(res, bench, size, ref, t)
            present = [i for i in impls if i == "tilec" or i in peers]
            for i, impl in enumerate(present):
                e = get(res, bench, size, impl, t)
                pos = x + (i - (len(present) - 1) / 2) * width
                if ok(e) and ok(refe):
                    v = refe["median_s"] / e["median_s"]
                    ax.bar(pos, v, width, color=COLORS[impl], edgecolor="black" if impl == "tilec" else None,
                           linewidth=0.8)
                    ax.text(pos, v * 1.08, f"{v:.2f}" if v >= 0.1 else f"{v:.3f}", ha="center", va="bottom",
                            fontsize=6.5, rotation=90)
                elif impl == "tilec":
                    ax.text(pos, 1.5e-3, "tilec: not supported yet" if e is not None and e["status"] == "unsupported"
                            else "tilec: not run", rotation=90, ha="center", va="bottom", fontsize=7,
                            color=COLORS["tilec"])
                elif e is not None and e["status"] == "skipped":
                    ax.text(pos, 1.5e-3, "not run", rotation=90, ha="center", va="bottom", fontsize=7,
                            color="gray")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_ylim(1e-3, 10)
        ax.set_xticks(range(len(KERNELS)))
        ax.set_xticklabels([short_label(k[0], k[1]) for k in KERNELS], fontsize=9)
        ax.set_xlim(-0.6, len(KERNELS) - 0.4)
        ax.set_ylabel("speed ÷ reference peer\n(log; higher is better)")
        ax.set_title(f"Kernels, {t} thread{'s' if t > 1 else ''}: speed relative to the C loop "
                     f"(matmul: relative to OpenBLAS); labels are the ratios"
                     + ("; torch and torch.compile: 2 threads only" if t == 1 else ""), fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
        if row == 0:
            for impl in impls:
                ax.bar(0, 0, 0, color=COLORS[impl], label=IMPL_NAMES[impl])
            fig.legend(loc="upper center", bbox_to_anchor=(0.5, 0.965), fontsize=9, ncol=7, frameon=False)

    ax2 = fig.add_subplot(gs[2, 0])
    cats = [("grid 1", 1), ("grid 1", 2), ("grid 1024", 1), ("grid 1024", 2)]
    for j, (size, t) in enumerate(cats):
        for i, impl in enumerate(["tilec", "c", "pocl"]):
            e = res.get(("launch", size, impl, t))
            pos = j + (i - 1) * 0.25
            if ok(e):
                ax2.bar(pos, e["median_s"] * 1e6, 0.25, color=COLORS[impl])
                ax2.text(pos, e["median_s"] * 1e6 * 1.15, fmt_t(e["median_s"]), ha="center", fontsize=7, rotation=90,
                         va="bottom")
            elif impl == "tilec":
                ax2.text(pos, 0.01, "n/a", ha="center", fontsize=7, color=COLORS["tilec"])
    ax2.axhline(2.0, color=COLORS["tilec"], linestyle="--", linewidth=0.8)
    ax2.text(3.45, 2.3, "target 2 µs", color=COLORS["tilec"], fontsize=7, ha="right")
    ax2.set_yscale("log")
    ax2.set_ylim(1e-3, 1e3)
    ax2.set_xticks(range(len(cats)))
    ax2.set_xticklabels([f"{s}\n{t} thread{'s' if t > 1 else ''}" for s, t in cats], fontsize=8)
    ax2.set_ylabel("µs per launch (log), lower is better")
    ax2.set_title("Empty kernel launch (tilec, C OpenMP, PoCL)")
    ax2.grid(axis="y", which="both", alpha=0.3)

    ax3 = fig.add_subplot(gs[2, 1])
    kinds = [("compile (cold)", "tilec", "tilec cold (API)", COLORS["tilec"]),
             ("compile (cold, CLI)", "tilec", "tilec cold (CLI)", "#f4a3a3"),
             ("compile (cold)", "pocl", "PoCL cold", COLORS["pocl"]),
             ("compile (cached)", "pocl", "PoCL cached", "#ffd199")]
    ks = ["vector_add", "softmax", "layernorm", "matmul", "5 kernels"]
    for j, k in enumerate(ks):
        for i, (bench, impl, label, color) in enumerate(kinds):
            e = res.get((bench, k, impl, 1))
            pos = j + (i - 1.5) * 0.2
            if ok(e):
                ax3.bar(pos, e["median_s"] * 1e3, 0.2, color=color, label=label)
            elif impl == "tilec" and k != "5 kernels" and bench == "compile (cold)":
                ax3.text(pos + 0.1, 1.2, "tilec: not supported yet", rotation=90, ha="center", va="bottom",
                         fontsize=7, color=COLORS["tilec"])
    ax3.set_yscale("log")
    ax3.set_ylim(1, 5000)
    ax3.set_xticks(range(len(ks)))
    ax3.set_xticklabels(["vector add", "softmax", "layer norm", "matmul", "5 OpenCL\nkernels"], fontsize=8)
    ax3.set_ylabel("ms (log), lower is better")
    ax3.set_title("Compile time (fresh process; tilec has no cache yet)")
    handles, labels_ = ax3.get_legend_handles_labels()
    uniq = OrderedDict(zip(labels_, handles))
    ax3.legend(uniq.values(), uniq.keys(), fontsize=7, loc="upper left")
    ax3.grid(axis="y", which="both", alpha=0.3)

    fig.suptitle(f"tilec vs peers — {machine.get('cpu', '?')}, {machine.get('cpus', '?')} CPUs, "
                 f"{machine.get('date', '')}", fontsize=12, y=0.99)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--machine", required=True)
    ap.add_argument("--commands", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--checks", help="bench/check_cost.py's tables (Markdown), for the debug checks' section")
    a = ap.parse_args()
    rows = load(a.raw)
    res = aggregate(rows)
    machine = read_machine(a.machine)
    with open(a.commands) as f:
        commands = [line.rstrip("\n") for line in f]
    with open(f"{a.out}/results.json", "w") as f:
        json.dump({"machine": machine,
                   "results": [e for e in res.values()],
                   "commands": commands}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    write_report(res, machine, commands, f"{a.out}/REPORT.md", "chart.png", a.checks)
    chart(res, machine, f"{a.out}/chart.png")
    swept = sweep_chart(res, machine, f"{a.out}/sweep.png")
    print(f"wrote {a.out}/results.json, {a.out}/REPORT.md, {a.out}/chart.png" + (", sweep.png" if swept else ""))


if __name__ == "__main__":
    main()
