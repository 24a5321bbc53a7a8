"""The Triton host API of the drop-in (`import triton` served by tilec): autotune,
heuristics, Config, cdiv/next_power_of_2, testing, runtime.driver, errors, the compiled
kernel handle, tools.tensor_descriptor, _internal_testing, knobs. References are numpy
/ torch / plain Python; bad input must raise clear exceptions."""

import os

import numpy as np
import pytest

import tilec

tilec.install_triton()

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.runtime.errors import AutotunerError  # noqa: E402

torch = pytest.importorskip("torch")


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


@triton.jit
def count_kernel(out_ptr, n, BLOCK: tl.constexpr):
    # adds the number of elements this program covers to out[0]
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr, tl.sum((offs < n).to(tl.int32), axis=0))


def _grid(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]), )


def fake_bench(timings):
    """A do_bench that times configs by their BLOCK from `timings` (and runs them once)."""
    seen = []

    def do_bench(kernel_call, quantiles):
        kernel_call()
        block = kernel_call.__closure__ and _current_block(kernel_call)
        seen.append(block)
        t = timings[block]
        return [t, t, t]

    return do_bench, seen


def _current_block(kernel_call):
    for cell in kernel_call.__closure__:
        v = cell.cell_contents
        if isinstance(v, dict) and "BLOCK" in v:
            return v["BLOCK"]
    raise AssertionError("no BLOCK in the benchmarked call")


# ---- Config ---------------------------------------------------------------------------

def test_config_all_kwargs_and_str():
    c = triton.Config({"BLOCK": 64}, num_warps=8, num_stages=2, num_cpu_threads=1)
    assert c.kwargs == {"BLOCK": 64}
    assert c.all_kwargs() == {"BLOCK": 64, "num_warps": 8, "num_ctas": 1, "num_stages": 2, "num_cpu_threads": 1}
    assert "BLOCK: 64" in str(c) and "num_warps: 8" in str(c)
    assert c == triton.Config({"BLOCK": 64}, num_warps=8, num_stages=2, num_cpu_threads=1)
    assert len({c, triton.Config({"BLOCK": 64}, num_warps=8, num_stages=2, num_cpu_threads=1)}) == 1
    assert c != triton.Config({"BLOCK": 32})
    assert "maxnreg" not in triton.Config({}).all_kwargs()


def test_config_bad_input():
    with pytest.raises(TypeError, match="kwargs must be a dict"):
        triton.Config([("BLOCK", 4)])
    with pytest.raises(TypeError, match="pre_hook must be callable"):
        triton.Config({}, pre_hook=3)


# ---- autotune -------------------------------------------------------------------------

def _tuned(configs, **kw):
    return triton.autotune(configs=configs, **kw)(scale_kernel)


def test_autotune_picks_fastest_and_caches_per_key():
    bench, seen = fake_bench({16: 3.0, 64: 1.0, 256: 2.0})
    k = _tuned([triton.Config({"BLOCK": b}) for b in (16, 64, 256)], key=["n"], do_bench=bench)
    x = torch.arange(1000, dtype=torch.float32)
    y = torch.empty_like(x)
    k[_grid](x, y, 1000, 2.0)
    assert k.best_config.kwargs == {"BLOCK": 64}
    assert sorted(seen) == [16, 64, 256]
    assert torch.equal(y, x * 2)
    assert list(k.cache) == [(1000, "torch.float32", "torch.float32")]
    # same key: no new benchmark
    y.zero_()
    k[_grid](x, y, 1000, 3.0)
    assert len(seen) == 3 and torch.equal(y, x * 3)
    # another n: tuned again; another dtype: tuned again
    k[_grid](x[:999], y[:999], 999, 1.0)
    assert len(seen) == 6 and len(k.cache) == 2
    xd = x.double()
    k[_grid](xd, xd.clone(), 1000, 1.0)
    assert len(seen) == 9 and (1000, "torch.float64", "torch.float64") in k.cache
    assert k.configs_timings is not None and len(k.configs_timings) == 3


def test_autotune_really_benchmarks_on_cpu():
    k = _tuned([triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 1024})], key=["n"])
    k.num_warmups, k.num_reps = 1, 3  # short runs of triton.testing.do_bench
    x = torch.rand(5000)
    y = torch.empty_like(x)
    k[_grid](x, y, 5000, 0.5)
    assert k.best_config in k.configs
    assert torch.allclose(y, x * 0.5)
    timings = list(k.configs_timings.values())
    assert all(len(t) == 3 and 0 < t[0] < float("inf") for t in timings)


def test_autotune_cache_results_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    bench, seen = fake_bench({16: 2.0, 64: 1.0, 256: 3.0})
    configs = [triton.Config({"BLOCK": b}) for b in (16, 64)]
    x = torch.rand(500)
    y = torch.empty_like(x)
    first = _tuned(configs, key=["n"], do_bench=bench, cache_results=True)
    first[_grid](x, y, 500, 2.0)
    assert sorted(seen) == [16, 64] and len(list((tmp_path / "autotune").iterdir())) == 1
    # a new autotuner of the same kernel, key and configs (another process) reuses the timings
    again = _tuned(configs, key=["n"], do_bench=bench, cache_results=True)
    y.zero_()
    again[_grid](x, y, 500, 3.0)
    assert len(seen) == 2 and again.best_config.kwargs == {"BLOCK": 64} and torch.allclose(y, x * 3)
    # other configs or another key: tuned again
    _tuned(configs + [triton.Config({"BLOCK": 256})], key=["n"], do_bench=bench, cache_results=True)[_grid](
        x, y, 500, 1.0)
    assert len(seen) == 5
    _tuned(configs, key=["n"], do_bench=bench, cache_results=True)[_grid](x[:400], y[:400], 400, 1.0)
    assert len(seen) == 7
    # without cache_results nothing is read
    _tuned(configs, key=["n"], do_bench=bench)[_grid](x, y, 500, 1.0)
    assert len(seen) == 9


def test_autotune_single_config_does_not_benchmark():
    k = _tuned([triton.Config({"BLOCK": 128})], key=["n"], do_bench=lambda *a, **kw: pytest.fail("benchmarked"))
    x = torch.rand(300)
    y = torch.empty_like(x)
    k[_grid](x, y, 300, 2.0)
    assert k.best_config.kwargs == {"BLOCK": 128} and torch.allclose(y, x * 2)


def test_autotune_prune_configs_by():
    bench, seen = fake_bench({16: 1.0, 64: 2.0, 256: 3.0, 512: 4.0})
    pruned_calls = []

    def early(configs, named_args, **kwargs):
        pruned_calls.append(sorted(named_args))
        return [c for c in configs if c.kwargs["BLOCK"] >= 64]

    def perf_model(**kw):
        return -kw["BLOCK"]  # predicts bigger blocks are faster

    k = _tuned([triton.Config({"BLOCK": b}) for b in (16, 64, 256, 512)], key=["n"], do_bench=bench,
               prune_configs_by={"early_config_prune": early, "perf_model": perf_model, "top_k": 2})
    x = torch.rand(700)
    k[_grid](x, torch.empty_like(x), 700, 1.0)
    assert sorted(seen) == [256, 512]
    assert k.best_config.kwargs["BLOCK"] == 256
    assert pruned_calls == [["factor", "n", "x_ptr", "y_ptr"]]


def test_autotune_prune_to_nothing_is_an_error():
    k = _tuned([triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})], key=["n"],
               prune_configs_by={"early_config_prune": lambda configs, nargs, **kw: []})
    x = torch.rand(8)
    with pytest.raises(AutotunerError, match="No valid autotuner configs after pruning"):
        k[_grid](x, x, 8, 1.0)
    assert isinstance(AutotunerError("x"), triton.TritonError)


def test_autotune_reset_to_zero():
    bench, _ = fake_bench({32: 1.0, 128: 2.0})
    k = triton.autotune([triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 128})], key=["n"],
                        reset_to_zero=["out_ptr"], do_bench=bench)(count_kernel)
    out = torch.zeros(1, dtype=torch.int32)
    k[_grid](out, 1000)
    # each benchmark run added 1000; the reset leaves only the real launch's count
    assert out.item() == 1000


def test_autotune_restore_value():
    bench, _ = fake_bench({32: 1.0, 128: 2.0})
    k = triton.autotune([triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 128})], key=["n"],
                        restore_value=["out_ptr"], do_bench=bench)(count_kernel)
    out = torch.full((1, ), 5, dtype=torch.int32)
    k[_grid](out, 1000)
    assert out.item() == 1005


def test_autotune_hooks_and_config_pre_hook():
    events = []
    bench, _ = fake_bench({32: 1.0, 128: 2.0})
    configs = [triton.Config({"BLOCK": 32}, pre_hook=lambda nargs: events.append(("cfg", nargs["BLOCK"]))),
               triton.Config({"BLOCK": 128})]
    k = triton.autotune(configs, key=["n"], do_bench=bench,
                        pre_hook=lambda nargs, reset_only=False: events.append(("pre", reset_only)),
                        post_hook=lambda nargs, exception: events.append(("post", exception)))(count_kernel)
    out = torch.zeros(1, dtype=torch.int32)
    k[_grid](out, 100)
    assert events[:3] == [("cfg", 32), ("pre", False), ("post", None)]
    assert ("pre", True) in events            # after tuning, reset only
    assert events[-1] == ("cfg", 32)          # the chosen config's pre_hook before the launch


def test_autotune_bad_arguments():
    with pytest.raises(ValueError, match="key contains names that are not kernel arguments: N"):
        _tuned([triton.Config({"BLOCK": 16})], key=["N"])
    with pytest.raises(ValueError, match="reset_to_zero contains names that are not kernel arguments: z"):
        _tuned([triton.Config({"BLOCK": 16})], key=["n"], reset_to_zero=["z"])
    with pytest.raises(TypeError, match="key must be a list of argument names"):
        _tuned([triton.Config({"BLOCK": 16})], key="n")
    with pytest.raises(TypeError, match=r"configs\[1\] is a dict"):
        _tuned([triton.Config({"BLOCK": 16}), {"BLOCK": 32}], key=["n"])
    with pytest.raises(ValueError, match="unknown entries"):
        _tuned([triton.Config({"BLOCK": 16})], key=["n"], prune_configs_by={"topk": 1})
    with pytest.raises(TypeError, match="must decorate a @triton.jit function"):
        triton.autotune([triton.Config({})], key=[])(lambda x: x)


def test_autotune_conflicting_meta_parameter():
    k = _tuned([triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})], key=["n"])
    x = torch.rand(8)
    with pytest.raises(ValueError, match="Conflicting meta-parameters: BLOCK"):
        k[_grid](x, x, 8, 1.0, BLOCK=64)


@triton.jit
def static_block_kernel(x_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= 64, "BLOCK too large")
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs.to(tl.float32) + 1, mask=offs < n)


def test_autotune_skips_configs_that_do_not_compile():
    bench, seen = fake_bench({256: 1.0, 32: 2.0})
    k = triton.autotune([triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 32})], key=["n"],
                        do_bench=bench)(static_block_kernel)
    x = torch.zeros(100)
    k[_grid](x, 100)
    assert k.best_config.kwargs == {"BLOCK": 32}
    assert torch.equal(x, torch.arange(1, 101, dtype=torch.float32))
    assert k.configs_timings[triton.Config({"BLOCK": 256})][0] == float("inf")


def test_autotune_all_configs_failing_raises_the_compile_error():
    k = triton.autotune([triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"],
                        do_bench=lambda call, quantiles: (call(), [1.0] * 3)[1])(static_block_kernel)
    with pytest.raises(triton.CompilationError, match="BLOCK too large"):
        k[_grid](torch.zeros(10), 10)


def test_autotune_warmup_compiles_every_config():
    k = _tuned([triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})], key=["n"])
    x = torch.rand(64)
    handles = k.warmup(x, x, 64, 1.0, grid=(1, ))
    assert len(handles) == 2


def test_autotune_print(capsys, monkeypatch):
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    bench, _ = fake_bench({16: 2.0, 32: 1.0})
    k = _tuned([triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})], key=["n"], do_bench=bench)
    x = torch.rand(64)
    k[_grid](x, torch.empty_like(x), 64, 1.0)
    out = capsys.readouterr().out
    assert "Triton autotuning for function scale_kernel" in out and "BLOCK: 32" in out


# ---- heuristics -----------------------------------------------------------------------

def test_heuristics_compute_meta_parameters():
    k = triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"])})(scale_kernel)
    x = torch.rand(100)
    y = torch.empty_like(x)
    k[(1, )](x, y, 100, 4.0)
    assert torch.allclose(y, x * 4)


def test_heuristics_under_autotune():
    k = triton.autotune([triton.Config({"factor": 2.0}), triton.Config({"factor": 3.0})], key=["n"],
                        do_bench=lambda call, quantiles: (call(), [1.0] * 3)[1])(
                            triton.heuristics({"BLOCK": lambda a: 64})(scale_kernel))
    x = torch.rand(200)
    y = torch.empty_like(x)
    k[_grid](x, y, 200)
    assert torch.allclose(y, x * k.best_config.kwargs["factor"])


def test_heuristics_bad_input():
    with pytest.raises(TypeError, match="expects a dict"):
        triton.heuristics([("BLOCK", 1)])(scale_kernel)
    with pytest.raises(TypeError, match="value for 'BLOCK' is not callable"):
        triton.heuristics({"BLOCK": 16})(scale_kernel)


# ---- helpers --------------------------------------------------------------------------

@pytest.mark.parametrize("n", [-3, 0, 1, 2, 3, 5, 1000, 1024, 1025, 2**40 + 1])
def test_next_power_of_2(n):
    expected = 0 if n <= 0 else 1 << (n - 1).bit_length()
    assert triton.next_power_of_2(n) == expected
    assert expected == 0 or (expected >= n and expected // 2 < n)


@pytest.mark.parametrize("x, y", [(0, 4), (1, 4), (8, 4), (9, 4), (1000, 7)])
def test_cdiv(x, y):
    assert triton.cdiv(x, y) == -(-x // y)


@triton.jit
def cdiv_in_kernel(out_ptr, N: tl.constexpr, B: tl.constexpr):
    tl.store(out_ptr, triton.cdiv(N, B))
    tl.store(out_ptr + 1, tl.cdiv(N, B))


def test_cdiv_inside_a_kernel():
    out = torch.zeros(2, dtype=torch.int32)
    cdiv_in_kernel[(1, )](out, N=10, B=4)
    assert out.tolist() == [3, 3]


# ---- testing --------------------------------------------------------------------------

def test_do_bench_modes():
    calls = []
    f = lambda: calls.append(1)
    ms = triton.testing.do_bench(f, warmup=1, rep=2)
    assert isinstance(ms, float) and ms >= 0
    q = triton.testing.do_bench(f, warmup=1, rep=2, quantiles=[0.5, 0.2, 0.8])
    assert len(q) == 3 and q[1] <= q[0] <= q[2]
    all_times = triton.testing.do_bench(f, warmup=1, rep=2, return_mode="all")
    assert isinstance(all_times, list) and len(all_times) >= 1
    assert triton.testing.do_bench(f, warmup=1, rep=2, return_mode="min") <= \
        triton.testing.do_bench(f, warmup=1, rep=2, return_mode="max") + 1.0
    assert triton.testing.do_bench_cudagraph(f, rep=2) >= 0
    with pytest.raises(ValueError, match="return_mode must be one of"):
        triton.testing.do_bench(f, return_mode="avg")
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        triton.testing.do_bench(f, warmup=1, rep=1, quantiles=[1.5])


def test_do_bench_times_a_kernel():
    x = torch.rand(4096)
    y = torch.empty_like(x)
    ms = triton.testing.do_bench(lambda: scale_kernel[(4, )](x, y, 4096, 2.0, BLOCK=1024), warmup=1, rep=5)
    assert 0 < ms < 1000 and torch.allclose(y, x * 2)


def test_assert_close():
    triton.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.001, 2.0]))
    triton.testing.assert_close(np.array([1.0, np.nan]), [1.0, np.nan])
    triton.testing.assert_close(1.0, 1.005)
    triton.testing.assert_close(torch.ones(3, dtype=torch.bfloat16), torch.ones(3))
    with pytest.raises(AssertionError):
        triton.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]))
    with pytest.raises(AssertionError, match="is not close to"):
        triton.testing.assert_close(1.0, 1.5, err_msg="scalar")
    triton.testing.assert_close(1.0, 1.5, atol=lambda dtype: 1.0)
    with pytest.raises(AssertionError):
        triton.testing.assert_close([1.0, 100.0], [1.0, 101.0], atol=0, rtol=1e-3)


def test_perf_report_table_and_files(tmp_path, capsys):
    bench_args = []

    @triton.testing.perf_report([
        triton.testing.Benchmark(x_names=["N", "M"], x_vals=[(1, 10), (2, 20)], line_arg="p", line_vals=["a", "b"],
                                 line_names=["A", "B"], plot_name="pr-test", args={"k": 3}, ylabel="ms"),
        triton.testing.Benchmark(x_names=["N"], x_vals=[4], line_arg="p", line_vals=["a"], line_names=["A"],
                                 plot_name="pr-single", args={"k": 0}, ylabel="GB/s"),
    ])
    def bench(N, p, k, M=0):
        bench_args.append((N, M, p, k))
        v = float(N * 10 + M + k + (0 if p == "a" else 0.5))
        return v, v - 1, v + 1

    dfs = bench.run(print_data=True, save_path=str(tmp_path), return_df=True)
    out = capsys.readouterr().out
    assert "pr-test:" in out and "A (ms)" in out and "B (ms)" in out
    assert (1, 10, "a", 3) in bench_args and (2, 20, "b", 3) in bench_args
    assert list(dfs[0]["A (ms)"]) == [23.0, 43.0]
    assert list(dfs[0]["B (ms)"]) == [23.5, 43.5]
    csv = (tmp_path / "pr-test.csv").read_text().splitlines()
    assert csv[0] == "N,M,A (ms),B (ms)"
    assert [float(v) for v in csv[1].split(",")] == [1, 10, 23.0, 23.5] and csv[1].endswith(",23.000000,23.500000")
    assert (tmp_path / "pr-single.csv").exists() and (tmp_path / "results.html").exists()


def test_perf_report_plot_and_dataframe(tmp_path):
    pytest.importorskip("matplotlib")  # optional: plots only when it is installed
    bench = triton.testing.perf_report(
        triton.testing.Benchmark(x_names=["N"], x_vals=[1, 2, 4], line_arg="p", line_vals=["a", "b"],
                                 line_names=["A", "B"], styles=[("blue", "-"), ("green", "--")], ylabel="GB/s",
                                 plot_name="plot-test", args={}, x_log=True))(
        lambda N, p: (float(N), float(N) - 0.5, float(N) + 0.5) if p == "a" else float(2 * N))
    df = bench.run(save_path=str(tmp_path), return_df=True)
    assert (tmp_path / "plot-test.png").stat().st_size > 0
    assert list(df["B (GB/s)"]) == [2.0, 4.0, 8.0]


def test_benchmark_bad_input():
    with pytest.raises(ValueError, match="2 line_vals but 1 line_names"):
        triton.testing.Benchmark(x_names=["N"], x_vals=[1], line_arg="p", line_vals=[1, 2], line_names=["a"],
                                 plot_name="x", args={})
    mark = triton.testing.perf_report(
        triton.testing.Benchmark(x_names=["N", "M"], x_vals=[(1, 2, 3)], line_arg="p", line_vals=[1],
                                 line_names=["a"], plot_name="x", args={}))(lambda **kw: 1.0)
    with pytest.raises(ValueError, match="Expected 2 values"):
        mark.run()


# ---- driver ---------------------------------------------------------------------------

def test_driver_is_the_cpu():
    drv = triton.runtime.driver.active
    assert drv.get_active_torch_device() == torch.device("cpu")
    assert drv.get_current_device() == 0 and drv.get_current_stream() == 0
    target = drv.get_current_target()
    assert (target.backend, target.warp_size) == ("cpu", 1)
    assert target.arch == os.uname().machine
    props = drv.utils.get_device_properties(drv.get_current_device())
    assert props["multiprocessor_count"] == len(os.sched_getaffinity(0))
    assert props["max_shared_mem"] > 0 and props["max_num_regs"] > 0 and props["warpSize"] == 1
    assert drv.utils.get_device_properties(None) == props  # torch.device("cpu").index is None
    with pytest.raises(ValueError, match="one device, the CPU"):
        drv.utils.get_device_properties(1)
    di = drv.get_device_interface()
    e0, e1 = di.Event(enable_timing=True), di.Event(enable_timing=True)
    e0.record()
    e1.record()
    assert e0.elapsed_time(e1) >= 0
    with pytest.raises(RuntimeError, match="both events must be recorded"):
        di.Event().elapsed_time(e1)
    triton.runtime.driver.set_active_to_cpu()
    assert triton.runtime.driver.active.get_current_target().backend == "cpu"
    with pytest.raises(RuntimeError, match="CPU only"):
        triton.runtime.driver.set_active_to_gpu()
    # Triton's compiler-backend registry is empty: tilec is not a plugin of Triton's compiler
    # (torch.compile reads "cpu" there as "Triton can compile CPU graphs"); the driver is the CPU
    from triton.backends import backends
    assert backends == {} and triton.runtime.driver.active.is_active()
    assert triton.runtime.driver.get_active_gpus() == []


# ---- errors ---------------------------------------------------------------------------

@triton.jit
def broken_kernel(x_ptr):
    tl.store(x_ptr, undefined_name)  # noqa: F821


def test_compilation_error_is_tritons():
    assert triton.CompilationError is tilec.CompilationError
    assert triton.TritonError is tilec.TilecError
    assert issubclass(triton.compiler.errors.CompileTimeAssertionFailure, triton.CompilationError)
    assert issubclass(triton.compiler.errors.UnsupportedLanguageConstruct, triton.CompilationError)
    with pytest.raises(triton.CompilationError) as info:
        broken_kernel[(1, )](torch.zeros(1))
    assert isinstance(info.value, triton.TritonError)
    # Triton's text: the line and 0-based column in the function, its source up to there
    text = str(info.value)
    assert text.startswith("at 2:20: ") and f'File "{__file__}"' in text and "in broken_kernel" in text
    assert text.endswith("def broken_kernel(x_ptr):\n    tl.store(x_ptr, undefined_name)  # noqa: F821\n"
                         + " " * 20 + "^\nname 'undefined_name' is not defined")
    assert info.value.__cause__ is None  # the language's error, not a tl.* function's


def test_static_assert_raises_compile_time_assertion_failure():
    with pytest.raises(triton.compiler.errors.CompileTimeAssertionFailure, match="BLOCK too large"):
        static_block_kernel[(1, )](torch.zeros(128), 128, BLOCK=128)


@triton.jit(debug=True)
def assert_positive_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=1.0)
    tl.device_assert(x > 0, "x must be positive")


def test_kernel_failure_is_a_runtime_triton_error():
    x = torch.ones(64)
    assert_positive_kernel[(2, )](x, 64, BLOCK=32)
    x[40] = -1.0
    with pytest.raises(RuntimeError) as info:
        assert_positive_kernel[(2, )](x, 64, BLOCK=32)
    assert isinstance(info.value, triton.TritonError) and isinstance(info.value, tilec.KernelError)
    text = str(info.value)
    assert "assert_positive_kernel" in text and "x must be positive" in text and f"{__file__}:" in text


def test_out_of_resources_message():
    e = triton.OutOfResources(300000, 1048576, "shared memory")
    assert "out of resource: shared memory, Required: 300000" in str(e)
    assert isinstance(e, triton.TritonError)


def test_static_print_prints_while_compiling(capsys):
    @triton.jit
    def static_print_kernel(x_ptr, TAG: tl.constexpr, B: tl.constexpr):
        r = tl.arange(0, B)
        tl.static_print("tag", TAG, r, x_ptr, (r * 0.5).dtype, (B, "s"))
        tl.store(x_ptr + r, r.to(tl.float32))

    tag = int.from_bytes(os.urandom(6), "little")  # a new specialization: not served from the disk cache
    x = torch.zeros(8)
    static_print_kernel[(1, )](x, tag, 8)
    assert f"tag {tag} int32[8] pointer<fp32>[] fp32 (8, 's')\n" in capsys.readouterr().out
    static_print_kernel[(1, )](x, tag, 8)  # compiled already: prints nothing, as in Triton
    assert capsys.readouterr().out == "" and x.tolist() == list(range(8))


def test_compile_takes_an_ast_source_only():
    # ASTSource compiles (test_dropin_triton39); anything else is a clear error
    with pytest.raises(TypeError, match="src must be an ASTSource"):
        triton.compile(None)


# ---- compiled kernel handle -----------------------------------------------------------

@triton.jit
def scale_kernel_fresh(x_ptr, y_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


def test_warmup_handle_and_relaunch():
    x = torch.rand(100)
    y = torch.zeros_like(x)
    kernel = scale_kernel_fresh.warmup(x, y, 100, 3.0, BLOCK=128, grid=(1, ), num_warps=4, num_stages=2)
    kernel._init_handles()
    props = triton.runtime.driver.active.utils.get_device_properties(0)
    assert kernel.n_regs in (16, 32) and kernel.n_spills == 0
    assert kernel.metadata.num_warps == 4 and kernel.metadata.num_stages == 2
    assert kernel.metadata.shared == props["max_shared_mem"] > 0
    # the fused-softmax tutorial's occupancy arithmetic gives one program per core
    occupancy = props["max_num_regs"] // (kernel.n_regs * props["warpSize"] * 8)
    assert min(occupancy, props["max_shared_mem"] // kernel.metadata.shared) == 1
    assert torch.count_nonzero(y) == 0  # warmup compiles, does not run
    kernel[(1, 1, 1)](x, y, 100, 3.0, 128)  # all arguments positionally, constexprs included
    assert torch.allclose(y, x * 3)
    # another num_warps / num_stages is another compiled kernel, as in Triton: its metadata says so
    k8 = scale_kernel_fresh.warmup(x, y, 100, 3.0, BLOCK=128, grid=(1, ), num_warps=8, num_stages=2)
    k1 = scale_kernel_fresh.warmup(x, y, 100, 3.0, BLOCK=128, grid=(1, ), num_warps=4, num_stages=1)
    assert (k8.metadata.num_warps, k8.metadata.num_stages) == (8, 2) and k8 is not kernel
    assert (k1.metadata.num_warps, k1.metadata.num_stages) == (4, 1)
    assert scale_kernel_fresh.warmup(x, y, 100, 3.0, BLOCK=128, grid=(1, ), num_warps=8, num_stages=2) is k8
    h = scale_kernel_fresh[(1, )](x, y, 100, 5.0, BLOCK=128)
    assert torch.allclose(y, x * 5) and h.metadata.name == kernel.metadata.name


@pytest.mark.parametrize("options", [dict(num_cpu_threads=1), dict(vec_lib="libsleef"), dict(num_ctas=1, maxnreg=64),
                                     dict(enable_fp_fusion=False)])
def test_launch_options_accepted(options):
    x = torch.rand(3000)
    y = torch.empty_like(x)
    scale_kernel[(3, )](x, y, 3000, 2.0, BLOCK=1024, **options)
    assert torch.allclose(y, x * 2)


def test_unknown_launch_keyword_is_an_error():
    x = torch.rand(8)
    with pytest.raises(TypeError, match="not_an_option"):
        scale_kernel[(1, )](x, x, 8, 1.0, BLOCK=8, not_an_option=1)


def test_jit_function_called_directly_is_an_error():
    with pytest.raises(RuntimeError, match="outside of the scope of a kernel"):
        scale_kernel(1, 2, 3, 4)


# ---- patched kernels (Triton's test files: patch_kernel) ---------------------------------

from triton.language.extra import libdevice  # noqa: E402  (used only by patched kernel text)


def _patch_kernel(template, to_replace):
    kernel = triton.JITFunction(template.fn)
    for key, value in to_replace.items():
        kernel.src = kernel.src.replace(key, value)
    return kernel


def test_patched_kernel_source():
    @triton.jit
    def kernel(Z, X, SIZE: tl.constexpr):
        off = tl.arange(0, SIZE)
        x = tl.load(X + off)
        z = GENERATE_TEST_HERE  # noqa: F821
        tl.store(Z + off, z)

    assert kernel.src.startswith("def kernel(Z, X, SIZE: tl.constexpr):") and "GENERATE_TEST_HERE" in kernel.src
    x = torch.rand(16)
    for expr, ref in (("x * 2 + 1", x * 2 + 1), ("tl.exp(x)", torch.exp(x)), ("libdevice.tanh(x)", torch.tanh(x))):
        patched = _patch_kernel(kernel, {"GENERATE_TEST_HERE": expr})
        z = torch.empty_like(x)
        patched[(1, )](Z=z, X=x, SIZE=16, num_warps=4)
        assert torch.allclose(z, ref, atol=1e-6), expr
    # assigning src again drops what was compiled from the old text
    patched.src = patched.src.replace("libdevice.tanh(x)", "x - 1")
    patched[(1, )](z, x, SIZE=16)
    assert torch.allclose(z, x - 1)
    with pytest.raises(TypeError, match="src must be a str"):
        patched.src = None
    bad = _patch_kernel(kernel, {"GENERATE_TEST_HERE": "x +* 2"})
    with pytest.raises(triton.CompilationError):
        bad[(1, )](z, x, SIZE=16)


# ---- language -------------------------------------------------------------------------

def test_language_names():
    assert repr(tl.float16) == "triton.language.float16"
    for name in ("int8", "uint32", "float32", "bfloat16", "float64"):
        assert repr(eval(f"triton.language.{name}")) == f"triton.language.{name}"
    assert tl.constexpr is tilec.language.constexpr and tl.dtype is tilec.language.dtype
    assert tl.__tilec_path__ == "triton.language" and tl.math.__tilec_path__ == "triton.language.math"
    from triton.language.extra.cpu import libdevice as cpu_ld
    from triton.language.extra.libdevice import asin
    assert cpu_ld.asin is asin
    with pytest.raises(AttributeError, match="has no attribute 'no_such_fn'"):
        tl.no_such_fn


def test_dtype_facts_on_the_host():
    """Host code reads Triton's dtype facts (test files build fp8 inputs from them)."""
    expect = {  # name: (mantissa bits, exponent bias) from the IEEE / OCP / fnuz formats
        "float8e4nv": (3, 7), "float8e4b8": (3, 8), "float8e4b15": (3, 15), "float8e5": (2, 15),
        "float8e5b16": (2, 16), "float16": (10, 15), "bfloat16": (7, 127), "float32": (23, 127),
        "float64": (52, 1023)}
    for name, (mant, bias) in expect.items():
        dt = getattr(tl, name)
        assert (dt.fp_mantissa_width, dt.exponent_bias) == (mant, bias), name
        assert not hasattr(dt, "int_bitwidth") and dt.is_floating()
    for bits in (8, 16, 32, 64):
        s, u = getattr(tl, f"int{bits}"), getattr(tl, f"uint{bits}")
        assert (s.get_int_min_value(), s.get_int_max_value()) == (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        assert (u.get_int_min_value(), u.get_int_max_value()) == (0, (1 << bits) - 1)
        assert s.int_bitwidth == u.int_bitwidth == bits and s.itemsize == bits // 8
        assert s.int_signedness == tl.dtype.SIGNEDNESS.SIGNED and u.int_signedness == tl.dtype.SIGNEDNESS.UNSIGNED
        assert getattr(s, f"is_int{bits}")() and not getattr(s, f"is_uint{bits}")()
    assert tl.float8e4nv.is_fp8e4nv() and not tl.float8e5.is_fp8e4nv() and tl.int1.is_int1()
    assert tl.float16.is_standard_floating() and not tl.float8e5.is_standard_floating()
    with pytest.raises(RuntimeError, match="not an integer"):
        tl.float32.get_int_max_value()
    with pytest.raises(AttributeError, match="no attribute 'is_float7'"):
        tl.float32.is_float7()
    assert tl.int1.itemsize == 0 and tl.int1.is_int_unsigned()  # Triton's int1 is unsigned, 0 bytes


from triton.language.extra.cuda import libdevice as cuda_ld  # noqa: E402
from triton.language.extra.libdevice import tanh as ld_tanh  # noqa: E402


@triton.jit
def libdevice_aliases_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, cuda_ld.asin(x) + ld_tanh(x))


def test_libdevice_imported_under_other_names():
    x = torch.rand(64) - 0.5
    y = torch.empty_like(x)
    libdevice_aliases_kernel[(1, )](x, y, BLOCK=64)
    assert torch.allclose(y, torch.asin(x) + torch.tanh(x), atol=1e-6)


# ---- tensor descriptors ---------------------------------------------------------------

def test_tensor_descriptor_host_object():
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = torch.zeros(64, 32)
    d = TensorDescriptor.from_tensor(x, [16, 8])
    assert d.shape == [64, 32] and d.strides == [32, 1] and d.block_shape == [16, 8] and d.padding == "zero"
    with pytest.raises(ValueError, match="not a power of 2"):
        TensorDescriptor.from_tensor(x, [16, 6])
    with pytest.raises(ValueError, match="last dimension must be contiguous"):
        TensorDescriptor(x, [16, 32], [64, 2], [8, 8])
    with pytest.raises(ValueError, match="rank mismatch"):
        TensorDescriptor(x, [64, 32], [32], [8, 8])
    with pytest.raises(ValueError, match="rank must be 1 to 5"):
        TensorDescriptor(x, [], [], [])
    with pytest.raises(ValueError, match="padding must be 'zero' or 'nan'"):
        TensorDescriptor.from_tensor(x, [8, 8], padding="inf")
    with pytest.raises(ValueError, match="padding 'nan' needs a floating-point tensor"):
        TensorDescriptor.from_tensor(torch.zeros(8, 8, dtype=torch.int32), [8, 8], padding="nan")
    with pytest.raises(ValueError, match="strides\\[0\\] = 3 elements is not a multiple of 16 bytes"):
        TensorDescriptor(torch.zeros(30), [10, 3], [3, 1], [8, 2])
    with pytest.raises(TypeError, match="base must be a tensor"):
        TensorDescriptor([1, 2], [2], [1], [2])


@triton.jit
def desc_copy_kernel(in_desc, out_ptr, N: tl.constexpr, BLOCK_M: tl.constexpr):
    tile = in_desc.load([tl.program_id(0) * BLOCK_M, 0])
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, N)
    tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], tile * 2)


def test_tensor_descriptor_kernel_argument():
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = torch.rand(64, 16)
    out = torch.empty_like(x)
    d = TensorDescriptor.from_tensor(x, [16, 16])
    h = desc_copy_kernel[(4, )](d, out, N=16, BLOCK_M=16)
    assert torch.equal(out, x * 2)
    assert h.signature.startswith("tensordesc<fp32[16, 16]>, *fp32:16")
    out.zero_()
    h[(4, )](d, out, 16, 16)  # the compiled-kernel handle takes the descriptor too
    assert torch.equal(out, x * 2)
    with pytest.raises(TypeError, match="argument 'in_desc' must be a TensorDescriptor"):
        h[(4, )](x, out, 16, 16)
    with pytest.raises(TypeError, match="is a descriptor of fp64, the kernel takes tensordesc<fp32"):
        h[(4, )](TensorDescriptor.from_tensor(x.double(), [16, 16]), out, 16, 16)


@triton.jit
def desc_rows_kernel(in_desc, out_ptr, BLOCK: tl.constexpr):
    # reads a BLOCK x BLOCK tile at (pid * BLOCK, 0): rows and columns past the shape read the padding
    tile = in_desc.load([tl.program_id(0) * BLOCK, 0])
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :], tile)


@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_tensor_descriptor_view_and_padding(padding):
    from triton.tools.tensor_descriptor import TensorDescriptor
    big = torch.rand(40, 32)
    view = big[3:, 4:]  # a strided view: base is element (3, 4), row stride 32
    d = TensorDescriptor(view, list(view.shape), list(view.stride()), [16, 16], padding=padding)
    out = torch.empty(48, 16)
    desc_rows_kernel[(3, )](d, out, BLOCK=16)
    pad = float("nan") if padding == "nan" else 0.0
    ref = torch.full((48, 16), pad)
    ref[:37, :16] = view[:, :16]
    assert torch.equal(out.nan_to_num(-7.0), ref.nan_to_num(-7.0))


def test_tensor_descriptor_rank_limit():
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = torch.rand(2, 2, 2, 2, 16)
    d = TensorDescriptor.from_tensor(x, [1, 1, 1, 1, 16])
    with pytest.raises(ValueError, match="tensor descriptor 'in_desc': rank 5 \\(tilec takes rank 1 to 4\\)"):
        desc_copy_kernel[(1, )](d, x, N=16, BLOCK_M=16)


# ---- _internal_testing ----------------------------------------------------------------

def test_internal_testing_helpers():
    from triton import _internal_testing as it
    assert it.is_cpu() and not it.is_cuda() and not it.is_hip() and not it.is_hip_cdna()
    assert not it.is_interpreter() and not it.supports_tma()
    from triton._internal_testing import is_hip_mi300, is_hip_gfx12, is_hopper  # names test files import
    assert not is_hip_mi300() and not is_hip_gfx12() and not is_hopper() and not it.is_hip_gfx2000()
    assert it.get_arch() == os.uname().machine
    with pytest.raises(AttributeError, match="has no attribute 'not_a_helper'"):
        it.not_a_helper
    assert it.dtypes_with_bfloat16[-1] == "bfloat16" and "uint64" in it.integral_dtypes
    a = it.numpy_random(16, "int8")
    assert a.dtype == np.int8 and np.all(a != 0)
    assert np.array_equal(a, it.numpy_random(16, "int8"))  # fixed default seed
    bf = it.numpy_random((4, 4), "bfloat16")
    assert bf.dtype == np.float32 and np.all((bf.view(np.uint32) & 0xFFFF) == 0)
    assert it.numpy_random(8, "bool").dtype == np.bool_
    with pytest.raises(RuntimeError, match="Unknown dtype"):
        it.numpy_random(4, "complex64")
    u = it.to_triton(np.array([1, 2, 2**32 - 1], dtype=np.uint32), device="cpu")
    assert isinstance(u, triton.TensorWrapper) and u.dtype is tl.uint32
    assert it.to_numpy(u).tolist() == [1, 2, 2**32 - 1]
    b = it.to_triton(np.array([1.5], dtype=np.float32), device="cpu", dst_type="bfloat16")
    assert b.dtype == torch.bfloat16 and it.to_numpy(b).tolist() == [1.5]
    assert it.str_to_triton_dtype("float16") is tl.float16
    assert it.torch_dtype_name(torch.int16) == "int16" and it.torch_dtype_name(tl.float32) == "fp32"
    with pytest.raises(ValueError, match="Not a triton-compatible tensor"):
        it.to_numpy([1])


@triton.jit
def add_one_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=m) + 1, mask=m)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
def test_unsigned_tensor_wrapper_argument(dtype):
    from triton import _internal_testing as it
    info = np.iinfo(dtype)
    x = np.array([0, 1, info.max - 1, info.max], dtype=dtype)
    t = it.to_triton(x, device="cpu")
    add_one_kernel[(1, )](t, 4, BLOCK=4)
    assert it.to_numpy(t).tolist() == [1, 2, int(info.max), 0]  # unsigned wrap-around


def test_run_in_process_captures_stderr_and_exception():
    from triton import _internal_testing as it

    def client(v):
        os.write(2, b"to fd 2\n")
        if os.environ.get("DROPIN_FLAG") == "1":
            raise ValueError(v)

    res = it.run_in_process(client, args=("boom", ), env={"DROPIN_FLAG": "1"})
    assert isinstance(res.exc, ValueError) and "to fd 2" in res.driver_stderr_output
    assert "DROPIN_FLAG" not in os.environ
    assert it.run_in_process(client, args=("x", )).exc is None


# ---- knobs ----------------------------------------------------------------------------

def test_knobs(monkeypatch):
    from triton import knobs
    monkeypatch.delenv("TRITON_PRINT_AUTOTUNING", raising=False)
    assert knobs.autotuning.print is False
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    assert knobs.autotuning.print is True
    fresh = knobs.autotuning.copy().reset()
    fresh.print = False
    assert fresh.print is False and os.environ["TRITON_PRINT_AUTOTUNING"] == "0"
    del fresh.print
    assert "TRITON_PRINT_AUTOTUNING" in fresh.knob_descriptors["print"].key


def test_fresh_knobs_impl(monkeypatch):
    # Triton's conftest.py fixtures fresh_knobs / fresh_knobs_except_libraries: knob groups
    # without assignments and without their environment, all put back by reset
    from triton import knobs
    from triton._internal_testing import _fresh_knobs_impl

    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    autotuning, cache = knobs.autotuning, knobs.cache
    fresh, reset = _fresh_knobs_impl(skipped_attr={"cache"})
    k = fresh()
    try:
        assert k is knobs and knobs.autotuning is not autotuning and knobs.cache is cache
        assert "TRITON_PRINT_AUTOTUNING" not in os.environ and knobs.autotuning.print is False
        knobs.language.default_fp_fusion = False
        knobs.autotuning.print = True
        assert not knobs.language.fp_fusion_enabled(None) and knobs.language.fp_fusion_enabled(True)
    finally:
        reset()
    assert knobs.autotuning is autotuning and os.environ["TRITON_PRINT_AUTOTUNING"] == "1"
    assert "TRITON_DEFAULT_FP_FUSION" not in os.environ and knobs.language.default_fp_fusion is True
    monkeypatch.setenv("TRITON_FORCE_DISABLE_FP_FUSION", "1")
    assert not knobs.language.fp_fusion_enabled(True)


def test_knobs_fp32_default(monkeypatch):
    # knobs.language.fp32_default is TRITON_F32_DEFAULT, which the compiler reads for tl.dot's
    # default input_precision (CPU results are exact whatever it is): a bad name is Triton's error
    from triton import knobs

    @triton.jit
    def dot_default_kernel(a_ptr, c_ptr):
        r = tl.arange(0, 16)
        a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
        tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, a))

    monkeypatch.delenv("TRITON_F32_DEFAULT", raising=False)
    assert knobs.language.fp32_default is None
    a = torch.eye(16, dtype=torch.float32) * 3
    c = torch.zeros(16, 16)
    knobs.language.fp32_default = "fp64"
    try:
        assert os.environ["TRITON_F32_DEFAULT"] == "fp64"
        with pytest.raises(Exception, match="input_precision must be one of"):
            dot_default_kernel[(1, )](a, c)
        knobs.language.fp32_default = "ieee"
        dot_default_kernel[(1, )](a, c)
        assert torch.equal(c, a @ a)
    finally:
        knobs.language.fp32_default = None
        del knobs.language.fp32_default
    assert "TRITON_F32_DEFAULT" not in os.environ


def test_jit_repr_names_the_compiled_kernel():
    seen = []

    def name_of(spec):
        seen.append(spec)
        return f"scale_{spec.signature['x_ptr']}_{spec.signature['n']}_{spec.constants['BLOCK']}"

    @triton.jit(repr=name_of)
    def named_kernel(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    x = torch.arange(8, dtype=torch.float32)
    h = named_kernel[(1, )](x, 8, BLOCK=8)
    assert h.name == "scale_*fp32_i32_8" and h.metadata.name == h.name
    assert seen[0].signature["BLOCK"] == "constexpr" and seen[0].name == "named_kernel"
    assert torch.equal(x, torch.arange(8, dtype=torch.float32) * 2)
    assert named_kernel[(1, )](x, 2**40, BLOCK=8).name == "scale_*fp32_i64_8"


def test_num_warps_must_be_a_power_of_2():
    @triton.jit
    def nop_kernel(x_ptr):
        pass

    x = torch.zeros(4)
    with pytest.raises(AssertionError, match="must be a power of 2"):
        nop_kernel[(1, )](x, num_warps=3)
    for nw in (1, 2, 4, 8):
        nop_kernel[(1, )](x, num_warps=nw)


def test_libdevice_arities_and_cpu_features():
    """Host code counts libdevice arguments (inspect.signature) and reads the CPU's features
    (triton-cpu's test_math imports triton._C.libtriton.cpu)."""
    import inspect
    from triton.language.extra import libdevice
    from triton._C.libtriton import cpu
    for fn, n in [("sqrt", 1), ("erf", 1), ("atan2", 2), ("pow", 2), ("fmod", 2), ("fma", 3), ("norm4d", 4)]:
        assert len(inspect.signature(getattr(libdevice, fn)).parameters) == n, fn
    feats = cpu.llvm.get_cpu_features()
    assert isinstance(feats, set)
    import platform
    if platform.machine() == "x86_64":
        assert "sse2" in feats
