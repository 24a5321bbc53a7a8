"""How the drop-in's autotuner times configs when the program gives no `do_bench`
(Autotuner._bench_interleaved): every config compiled and run before any timing, timed
in alternating rounds, at least _MIN_ROUNDS runs each, more for the near-ties; the
choice cached per key and in `best_config`; pruning before any run. Deterministic: a
fake kernel on a fake clock (each call advances it by the config's cost, its first call
also by a compile cost), and one real kernel whose slow config is ~50x slower. The
speed of the choice on real kernels is measured in bench/python/autotune.py."""

import pytest

import tilec

tilec.install_triton()

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.runtime import autotuner as at  # noqa: E402

torch = pytest.importorskip("torch")


class FakeClock:
    def __init__(self):
        self.now = 0.0  # seconds, as time.perf_counter

    def __call__(self):
        return self.now

    def advance_ms(self, ms):
        self.now += ms / 1e3


def the_kernel(x_ptr, n, BLOCK):  # what the fake stands for (named in messages)
    pass


class FakeKernel(triton.runtime.KernelInterface):
    """A kernel whose run costs `cost(BLOCK, now)` ms of fake time; the first run of each
    BLOCK also costs `compile_ms` (compiling). Records every run's BLOCK."""

    arg_names = ["x_ptr", "n", "BLOCK"]
    fn = the_kernel

    def __init__(self, clock, cost, compile_ms=1000.0, fail=()):
        self.clock, self.cost, self.compile_ms, self.fail = clock, cost, compile_ms, fail
        self.compiled, self.runs = set(), []

    def run(self, *args, grid=None, warmup=False, **kwargs):
        block = kwargs["BLOCK"]
        if block not in self.compiled:
            self.clock.advance_ms(self.compile_ms)
            self.compiled.add(block)
            if block in self.fail:
                raise triton.CompilationError(f"BLOCK {block} too large")
        self.runs.append(block)
        self.clock.advance_ms(self.cost(block, self.clock.now))


@pytest.fixture
def clock(monkeypatch):
    c = FakeClock()
    monkeypatch.setattr(at, "_clock", c)
    return c


def _tune(kernel, blocks, **kw):
    return triton.autotune([triton.Config({"BLOCK": b}) for b in blocks], key=["n"], **kw)(kernel)


def test_every_config_timed_compile_excluded_fastest_kept(clock):
    costs = {16: 9.0, 32: 3.0, 64: 5.0, 128: 30.0}
    fake = FakeKernel(clock, lambda b, now: costs[b])
    k = _tune(fake, costs)
    k[(1, )](None, 1000)
    assert k.best_config.kwargs == {"BLOCK": 32}
    # every timing is exactly the run's cost: the 1000 ms compile of each config's first
    # run is in none of them, nor are the warm-up runs of other configs
    assert {c.kwargs["BLOCK"]: t for c, t in k.configs_timings.items()} == \
        {b: pytest.approx([c] * 3) for b, c in costs.items()}
    # compiled (first run) in list order before any other run
    assert fake.runs[:4] == [16, 32, 64, 128]
    # at least _MIN_ROUNDS timed runs each (plus the compile run and >= 1 warm-up run)
    assert all(fake.runs.count(b) >= at._MIN_ROUNDS + 2 for b in costs)
    # the last run is the launch with the chosen config; the same key is not tuned again
    assert fake.runs[-1] == 32
    n = len(fake.runs)
    k[(1, )](None, 1000)
    assert fake.runs[n:] == [32] and list(k.cache) == [(1000, )]
    # another key value: tuned again
    k[(1, )](None, 999)
    assert len(k.cache) == 2 and len(fake.runs) > n + 1 + 4 * at._MIN_ROUNDS


def test_near_ties_get_more_runs(clock):
    costs = {16: 10.0, 32: 10.5, 64: 20.0}  # 16 and 32 within _CONTENDER_MARGIN, 64 is not
    fake = FakeKernel(clock, lambda b, now: costs[b])
    with pytest.warns(DeprecationWarning):  # as Triton's, still honoured
        k = _tune(fake, costs, warmup=0, rep=0)
    k[(1, )](None, 1000)
    assert k.best_config.kwargs == {"BLOCK": 16}
    # rep=0, warmup=0: exactly the minimum for the clear loser, plus the contender rounds
    # for the near-ties; one compile run and one warm-up round each; one launch at the end
    assert fake.runs.count(64) == 1 + 1 + at._MIN_ROUNDS
    assert fake.runs.count(32) == 1 + 1 + at._MIN_ROUNDS + at._CONTENDER_ROUNDS
    assert fake.runs.count(16) == 1 + 1 + at._MIN_ROUNDS + at._CONTENDER_ROUNDS + 1


def test_alternating_rounds_cancel_drift(clock):
    # The machine slows down while tuning (load rising by 1% per ms of fake time, 10%
    # per run): timed one config after the other, or in rounds of a fixed order, the
    # config run first would look faster. In pairs of rounds (an order, then reversed)
    # the one that is 3% faster at equal load wins.
    base = {64: 10.3, 32: 10.0}
    fake = FakeKernel(clock, lambda b, now: base[b] * (1 + now * 1e3 / 100.0), compile_ms=0.0)
    k = _tune(fake, base)
    k[(1, )](None, 1000)
    assert k.best_config.kwargs == {"BLOCK": 32}
    t = {c.kwargs["BLOCK"]: v[0] for c, v in k.configs_timings.items()}
    assert t[32] < t[64]


def test_budget_rep_ms_per_config(clock):
    costs = {16: 1.0, 32: 2.0}
    fake = FakeKernel(clock, lambda b, now: costs[b], compile_ms=0.0)
    with pytest.warns(DeprecationWarning):
        k = _tune(fake, costs, warmup=10, rep=300)
    k[(1, )](None, 1000)
    # timed rounds until 2 x 300 ms of fake time (3 ms a round): 200 rounds, then 32 is
    # not a contender (2x slower): 200 timed runs each, plus compile, warm-up (10 ms:
    # 4 rounds) and the final launch of 16
    assert fake.runs.count(32) == 1 + 4 + 200
    assert fake.runs.count(16) == 1 + 4 + 200 + 1


def test_config_that_does_not_compile_is_skipped(clock):
    costs = {16: 2.0, 32: 1.0, 64: 3.0}
    fake = FakeKernel(clock, lambda b, now: costs[b], fail=(32, ))
    k = _tune(fake, costs)
    k[(1, )](None, 1000)
    assert k.best_config.kwargs == {"BLOCK": 16}
    assert k.configs_timings[triton.Config({"BLOCK": 32})] == [float("inf")] * 3
    assert 32 not in fake.runs
    fake_all = FakeKernel(clock, lambda b, now: 1.0, fail=(16, 32))
    with pytest.raises(triton.CompilationError, match="BLOCK 16 too large"):
        _tune(fake_all, (16, 32))[(1, )](None, 1000)


def test_pruned_configs_never_run(clock):
    costs = {16: 4.0, 32: 3.0, 64: 2.0, 128: 1.0}
    fake = FakeKernel(clock, lambda b, now: costs[b])
    k = _tune(fake, costs, prune_configs_by={
        "early_config_prune": lambda configs, nargs, **kw: [c for c in configs if c.kwargs["BLOCK"] != 128],
        "perf_model": lambda **kw: kw["BLOCK"], "top_k": 2})
    k[(1, )](None, 1000)
    assert set(fake.runs) == {16, 32} and k.best_config.kwargs == {"BLOCK": 32}
    assert len(k.configs_timings) == 2


def test_user_do_bench_still_times_each_config_alone(clock):
    seen = []

    def bench(kernel_call, quantiles):
        kernel_call()
        seen.append(fake.runs[-1])
        return [float(fake.runs[-1])] * 3

    fake = FakeKernel(clock, lambda b, now: 1.0)
    k = _tune(fake, (64, 16, 32), do_bench=bench)
    k[(1, )](None, 1000)
    assert seen == [64, 16, 32] and k.best_config.kwargs == {"BLOCK": 16}
    assert k.do_bench is bench


# ---- a real kernel: the slow config is ~50x slower --------------------------------------

@triton.jit
def loop_kernel(x_ptr, y_ptr, n, UNROLL: tl.constexpr, LOOPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    for i in tl.static_range(UNROLL):  # makes the compile slower, the run hardly
        x = x * 0.5 + 0.5
    for i in range(LOOPS):  # a dependent chain: the run takes LOOPS steps
        x = x * 0.5 + 0.5
    tl.store(y_ptr + offs, x, mask=mask)


def test_real_kernel_slow_config_loses_compile_time_excluded():
    # fast: compiles slowest (256 unrolled steps, ~0.5-1 s), runs in microseconds;
    # slow: compiles quickly, runs ~2M dependent steps (milliseconds)
    fast = triton.Config({"UNROLL": 256, "LOOPS": 1})
    slow = triton.Config({"UNROLL": 1, "LOOPS": 2_000_000})
    k = triton.autotune([slow, fast], key=["n"])(loop_kernel)
    x = torch.rand(64)
    y = torch.empty_like(x)
    k[(1, )](x, y, 64, BLOCK=64)
    assert k.best_config == fast
    assert torch.allclose(y, torch.ones(64))
    t = k.configs_timings
    assert 0 < t[fast][0] < t[slow][0] < float("inf")
    assert len(t[fast]) == 3 and t[fast][1] <= t[fast][0] <= t[fast][2]
    # the compile (hundreds of ms) is in no timed run: even the 80th percentile of the
    # fast config is a small fraction of the slow one's median
    assert t[fast][2] < t[slow][0] / 4
    # cached per key: the next launch with the same n does not tune again
    timings = k.configs_timings
    k[(1, )](x, y, 64, BLOCK=64)
    assert k.configs_timings is timings and list(k.cache) == [(64, "torch.float32", "torch.float32")]
