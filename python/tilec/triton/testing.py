"""triton.testing for the drop-in: benchmarking and checking helpers on the CPU.

In:  host callables (do_bench), values to compare (assert_close), benchmark functions
     decorated with perf_report(Benchmark(...)). Out: wall-clock timings in ms (kernel
     launches on the CPU are synchronous), AssertionError with numpy's report, result
     tables (a pandas DataFrame when pandas is installed, else a small Table with the
     same to_string/to_csv/column access) and, when matplotlib is installed, plots.
"""

import math
import os
import statistics

from . import language as tl  # noqa: F401  (Triton's testing module has it)
from . import runtime
from . import _refused


def _quantile(values, qs):
    ordered = sorted(values)
    n = len(ordered)
    out = []
    for q in qs:
        if not 0 <= q <= 1:
            raise ValueError("Quantiles must be in the range [0, 1]")
        point = q * (n - 1)
        lo, hi = math.floor(point), math.ceil(point)
        t = point - lo
        out.append((1 - t) * ordered[lo] + t * ordered[hi])
    return out


_RETURN_MODES = ("min", "max", "mean", "median", "all")


def _summarize(times, quantiles, return_mode):
    if quantiles is not None:
        res = _quantile(times, quantiles)
        return res[0] if len(res) == 1 else res
    if return_mode == "all":
        return times
    return {"min": min, "max": max, "mean": statistics.mean, "median": statistics.median}[return_mode](times)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Time `fn()` on the CPU: about `warmup` ms of warm-up runs, then about `rep` ms of
    timed runs, each after evicting the caches (as Triton flushes the GPU's L2). Returns
    ms: one number for `return_mode` ("mean", "median", "min", "max"), the list of all
    runs for "all", or the requested `quantiles`."""
    if return_mode not in _RETURN_MODES:
        raise ValueError(f"do_bench: return_mode must be one of {', '.join(_RETURN_MODES)}, got {return_mode!r}")
    if not callable(fn):
        raise TypeError(f"do_bench: fn must be callable, got {type(fn).__name__}")
    drv = runtime.driver.active
    di = drv.get_device_interface()
    fn()
    di.synchronize()
    cache = drv.get_empty_cache_for_benchmark()

    start, end = di.Event(enable_timing=True), di.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        drv.clear_cache(cache)
        fn()
    end.record()
    di.synchronize()
    estimate_ms = start.elapsed_time(end) / 5
    n_warmup = max(1, int(warmup / estimate_ms)) if estimate_ms > 0 else 1000
    n_repeat = max(1, int(rep / estimate_ms)) if estimate_ms > 0 else 1000
    for _ in range(n_warmup):
        fn()
    starts = [di.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [di.Event(enable_timing=True) for _ in range(n_repeat)]
    for i in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        drv.clear_cache(cache)
        starts[i].record()
        fn()
        ends[i].record()
    di.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return _summarize(times, quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Triton's CUDA-graph benchmark; on the CPU there are no graphs to capture, so this
    is do_bench with the same repetition time (and a short warm-up)."""
    return do_bench(fn, warmup=min(rep, 25), rep=rep, grad_to_none=grad_to_none, quantiles=quantiles,
                    return_mode=return_mode)


def do_bench_proton(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Triton's benchmark of kernel time alone with the Proton profiler; a CPU kernel is a
    call that returns when it is done, so this is do_bench."""
    return do_bench(fn, warmup=warmup, rep=rep, grad_to_none=grad_to_none, quantiles=quantiles,
                    return_mode=return_mode)


def do_bench_cudagraph_proton(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Proton over CUDA graphs in Triton; do_bench_cudagraph (do_bench) here."""
    return do_bench_cudagraph(fn, rep=rep, grad_to_none=grad_to_none, quantiles=quantiles, return_mode=return_mode)


# ---- what Triton asks a GPU, answered for the CPU --------------------------------------------

_FMA_PIPES = 2  # vector FMA instructions a core issues per cycle (x86-64 since Haswell/Zen 2, Neoverse)


def _torch_dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def get_max_simd_tflops(dtype, clock_rate, device=None):
    """Peak vector FLOP rate in TFLOP/s of the CPU at `clock_rate` kHz (Triton's unit:
    nvsmi's MHz * 1e3): cores x clock x 2 (FMA) x lanes x 2 FMA pipes, lanes of the vector
    width tilec compiles for (fp32: 16 on AVX-512, 8 on AVX2, 4 on NEON). float16 and
    bfloat16 math runs widened to fp32, at the fp32 rate. Other dtypes: RuntimeError, as
    in Triton."""
    from tilec import _cpu
    if _torch_dtype_name(dtype) not in ("float32", "float16", "bfloat16"):
        raise RuntimeError("dtype not supported")
    lanes = _cpu.vector_bits() // 32
    return _cpu.num_cores() * clock_rate * 2 * lanes * _FMA_PIPES * 1e-9


def get_max_tensorcore_tflops(dtype, clock_rate, device=None):
    """Peak rate of tl.dot in TFLOP/s at `clock_rate` kHz. A CPU has no tensor cores: tilec's
    dot runs on the vector FMA units, at get_max_simd_tflops's fp32 rate for float32,
    int32 and float16 (widened), twice that for bfloat16 with AVX-512 BF16 (two products
    per 32-bit lane) and four times for int8 with VNNI (four per lane); fp8 is widened to
    fp32. Other dtypes: RuntimeError, as in Triton."""
    from tilec import _cpu
    name = _torch_dtype_name(dtype)
    flags = _cpu.features()
    scale = {"float32": 1, "int32": 1, "float16": 1, "int16": 1,
             "bfloat16": 2 if "avx512_bf16" in flags else 1,
             "int8": 4 if flags & {"avx512_vnni", "avx_vnni"} else 1,
             "fp8e4nv": 1, "fp8e4b15": 1, "fp8e5": 1}.get(name)
    if scale is None:
        raise RuntimeError("dtype not supported")
    lanes = _cpu.vector_bits() // 32
    return _cpu.num_cores() * clock_rate * 2 * lanes * _FMA_PIPES * scale * 1e-9


_dram_gbps = None


def get_dram_gbps(device=None):
    """Memory bandwidth in GB/s, measured (once per process): the best of 5 copies of a
    buffer four times the last-level cache (at least 64 MiB), bytes read plus bytes written
    over the time. A CPU has no fixed memory clock and bus width to compute it from, as
    Triton does for a GPU (``mem_clock_rate`` and ``mem_bus_width`` are 0 in
    ``get_device_properties``)."""
    global _dram_gbps
    if _dram_gbps is None:
        import time

        import numpy as np

        from tilec import _cpu
        caches = _cpu.cache_sizes()
        nbytes = max(4 * (caches[max(caches)] if caches else 0), 64 << 20)
        src = np.ones(nbytes // 8, dtype=np.float64)
        dst = np.empty_like(src)
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            np.copyto(dst, src)
            best = min(best, time.perf_counter() - t0)
        _dram_gbps = 2 * nbytes / best / 1e9
    return _dram_gbps


def nvsmi(attrs):
    """nvidia-smi's answers for the CPU where one exists: the SM clocks ("clocks.max.sm",
    "clocks.sm", "clocks.current.sm", in MHz) are the cores' maximum clock. Any other
    attribute raises ValueError naming it (there is no NVIDIA GPU to ask)."""
    from tilec import _cpu
    out = []
    for attr in attrs:
        if attr in ("clocks.max.sm", "clocks.sm", "clocks.current.sm", "clocks.max.graphics", "clocks.gr"):
            out.append(_cpu.clock_khz() // 1000)
        else:
            raise ValueError(f"nvsmi: '{attr}' has no counterpart on the CPU (tilec's Triton drop-in runs "
                             "kernels on the CPU; there is no NVIDIA GPU or nvidia-smi)")
    return out


def cublas():
    """Triton's cuBLAS handle for the current GPU: None, there is none (Triton also
    returns None where it cannot make one)."""
    return None


def cuda_memcheck(**target_kwargs):
    """Decorator: Triton reruns the test under cuda-memcheck when its keyword arguments
    include `target_kwargs`. tilec's counterpart checks every load and store of the test's
    kernels against the arrays' bounds (TILEC_CHECK_BOUNDS=1: an out-of-bounds access
    raises tilec.KernelError) for the duration of the call."""
    import functools

    def decorator(test_fn):

        @functools.wraps(test_fn)
        def wrapper(*args, **kwargs):
            if not target_kwargs.items() <= kwargs.items():
                return test_fn(*args, **kwargs)
            saved = os.environ.get("TILEC_CHECK_BOUNDS")
            os.environ["TILEC_CHECK_BOUNDS"] = "1"
            try:
                return test_fn(*args, **kwargs)
            finally:
                if saved is None:
                    del os.environ["TILEC_CHECK_BOUNDS"]
                else:
                    os.environ["TILEC_CHECK_BOUNDS"] = saved

        return wrapper

    return decorator


cuda_graph_without_gc = _refused.refused_function("triton.testing.cuda_graph_without_gc")
set_gpu_clock = _refused.refused_function("triton.testing.set_gpu_clock")


def _to_numpy(x):
    import numpy as np
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and isinstance(x, torch.Tensor):
        x = x.detach().cpu()
        if x.dtype == torch.bfloat16:
            x = x.float()
        return x.numpy()
    if hasattr(x, "base") and hasattr(x, "data_ptr") and torch is not None and isinstance(x.base, torch.Tensor):
        raise TypeError("assert_close: compare the tensor inside the TensorWrapper (x.base) instead")
    return np.asarray(x)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Assert x and y (scalars, lists, numpy arrays or torch tensors) are elementwise
    close: |x - y| <= atol + rtol * |y| (defaults atol=1e-2, rtol=0; either may be a
    function of x's dtype), NaNs equal to NaNs."""
    import numpy as np
    dtype = getattr(x, "dtype", None)
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    atol = atol(dtype) if callable(atol) else atol
    rtol = rtol(dtype) if callable(rtol) else rtol
    xa, ya = _to_numpy(x), _to_numpy(y)
    if xa.size > 1 or ya.size > 1:
        np.testing.assert_allclose(xa, ya, atol=atol, rtol=rtol, equal_nan=True, err_msg=err_msg)
        return
    if not np.allclose(xa, ya, atol=atol, rtol=rtol, equal_nan=True):
        raise AssertionError(f"{err_msg} {xa} is not close to {ya} (atol={atol}, rtol={rtol})")


class Benchmark:
    """One plot/table of perf_report: `x_names` take each of `x_vals` (scalars, or
    tuples with one value per name); each of `line_vals` (passed as `line_arg`) is a
    line named by `line_names`; `args` are passed unchanged."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="", ylabel="",
                 x_log=False, y_log=False, styles=None):
        if len(line_vals) != len(line_names):
            raise ValueError(f"Benchmark '{plot_name}': {len(line_vals)} line_vals but {len(line_names)} line_names")
        self.x_names = list(x_names)
        self.x_vals = x_vals
        self.x_log = x_log
        self.line_arg = line_arg
        self.line_vals = line_vals
        self.line_names = line_names
        self.y_log = y_log
        self.styles = styles
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.plot_name = plot_name
        self.args = args


class Table:
    """The result table when pandas is not installed: columns by name, rows in order."""

    def __init__(self, columns):
        self.columns = list(columns)
        self.rows = []

    def append(self, row):
        if len(row) != len(self.columns):
            raise ValueError(f"row has {len(row)} values for {len(self.columns)} columns")
        self.rows.append(list(row))

    def __getitem__(self, key):
        if isinstance(key, list):
            t = Table(key)
            idx = [self.columns.index(k) for k in key]
            t.rows = [[r[i] for i in idx] for r in self.rows]
            return t
        i = self.columns.index(key)
        return [r[i] for r in self.rows]

    def __setitem__(self, key, values):
        values = list(values)
        if key in self.columns:
            i = self.columns.index(key)
            for r, v in zip(self.rows, values):
                r[i] = v
        else:
            self.columns.append(key)
            for r, v in zip(self.rows, values):
                r.append(v)

    def __len__(self):
        return len(self.rows)

    @property
    def shape(self):
        return (len(self.rows), len(self.columns))

    @staticmethod
    def _fmt(v, float_format=None):
        if v is None:
            return "NaN"
        if isinstance(v, float):
            return float_format % v if float_format else f"{v:.6f}"
        return str(v)

    def to_string(self):
        cells = [[""] + self.columns] + [[str(i)] + [self._fmt(v) for v in r] for i, r in enumerate(self.rows)]
        widths = [max(len(row[c]) for row in cells) for c in range(len(cells[0]))]
        return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in cells)

    __str__ = to_string

    def to_csv(self, path, float_format=None, index=False):
        import csv
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(([""] if index else []) + self.columns)
            for i, r in enumerate(self.rows):
                w.writerow(([i] if index else []) + [self._fmt(v, float_format) if v is not None else "" for v in r])


def _new_table(columns):
    try:
        import pandas as pd
    except ImportError:
        return Table(columns)
    return pd.DataFrame(columns=columns)


def _append(df, row):
    if isinstance(df, Table):
        df.append(row)
    else:
        df.loc[len(df)] = row


class Mark:
    """What perf_report returns: `.run(...)` measures every point and reports."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _run(self, bench, save_path, show_plots, print_data, diff_col=False, save_precision=6, **kwargs):
        y_mean = [f"{x} ({bench.ylabel})" for x in bench.line_names]
        y_min = [f"{x}-min ({bench.ylabel})" for x in bench.line_names]
        y_max = [f"{x}-max ({bench.ylabel})" for x in bench.line_names]
        x_names = list(bench.x_names)
        df = _new_table(x_names + y_mean + y_min + y_max)
        for x in bench.x_vals:
            if not isinstance(x, (list, tuple)):
                x = [x for _ in x_names]
            if len(x) != len(x_names):
                raise ValueError(f"Expected {len(x_names)} values, got {x}")
            x_args = dict(zip(x_names, x))
            means, mins, maxs = [], [], []
            for y in bench.line_vals:
                ret = self.fn(**x_args, **{bench.line_arg: y}, **bench.args, **kwargs)
                try:
                    m, lo, hi = ret
                except TypeError:
                    m, lo, hi = ret, None, None
                means.append(m)
                mins.append(lo)
                maxs.append(hi)
            _append(df, list(x) + means + mins + maxs)

        if bench.plot_name and (show_plots or save_path):
            self._plot(bench, df, x_names, y_mean, y_min, y_max, save_path, show_plots)
        df = df[x_names + y_mean]
        if diff_col and df.shape[1] == 2:
            col0, col1 = df.columns[0], df.columns[1]
            df["Diff"] = [b - a for a, b in zip(df[col0], df[col1])]
        if print_data:
            print(bench.plot_name + ":")
            print(df.to_string())
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            df.to_csv(os.path.join(save_path, f"{bench.plot_name}.csv"), float_format=f"%.{save_precision}f",
                      index=False)
        return df

    @staticmethod
    def _plot(bench, df, x_names, y_mean, y_min, y_max, save_path, show_plots):
        try:
            import matplotlib
            if not show_plots:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            return  # plots are optional: the table is still printed/saved
        plt.figure()
        ax = plt.subplot()
        first_x = x_names[0]
        xs = list(df[first_x])
        for i, (mean_label, min_label, max_label) in enumerate(zip(y_mean, y_min, y_max)):
            col = bench.styles[i][0] if bench.styles else None
            sty = bench.styles[i][1] if bench.styles else None
            ax.plot(xs, list(df[mean_label]), label=mean_label, color=col, ls=sty)
            lo, hi = list(df[min_label]), list(df[max_label])
            if all(v is not None and v == v for v in lo + hi):
                ax.fill_between(xs, [float(v) for v in lo], [float(v) for v in hi], alpha=0.15, color=col)
        ax.legend()
        ax.set_xlabel(bench.xlabel or first_x)
        ax.set_ylabel(bench.ylabel)
        ax.set_xscale("log" if bench.x_log else "linear")
        ax.set_yscale("log" if bench.y_log else "linear")
        if show_plots:
            plt.show()
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            plt.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))
        plt.close()

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        single = isinstance(self.benchmarks, Benchmark)
        benchmarks = [self.benchmarks] if single else self.benchmarks
        dfs = []
        try:
            for bench in benchmarks:
                dfs.append(self._run(bench, save_path, show_plots, print_data, **kwargs))
        finally:
            if save_path:
                os.makedirs(save_path, exist_ok=True)
                with open(os.path.join(save_path, "results.html"), "w") as html:
                    html.write("<html><body>\n")
                    for bench in benchmarks[:len(dfs)]:
                        html.write(f"<image src=\"{bench.plot_name}.png\"/>\n")
                    html.write("</body></html>\n")
        if return_df:
            return dfs[0] if single else dfs
        return None


def perf_report(benchmarks):
    """Decorator: `fn(**x_args, line_arg=..., **args)` -> ms or (ms, min, max); the
    returned Mark's `.run(print_data=True, show_plots=..., save_path=...)` reports."""
    return lambda fn: Mark(fn, benchmarks)


__all__ = ["do_bench", "do_bench_cudagraph", "do_bench_proton", "do_bench_cudagraph_proton", "assert_close", "Benchmark",
           "Mark", "perf_report", "Table", "get_dram_gbps", "get_max_simd_tflops", "get_max_tensorcore_tflops", "nvsmi",
           "cublas", "cuda_memcheck", "cuda_graph_without_gc", "set_gpu_clock"]
