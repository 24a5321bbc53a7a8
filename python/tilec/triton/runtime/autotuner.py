"""triton.autotune / triton.heuristics / triton.Config for the drop-in.

In:  a JITFunction (or another Autotuner/Heuristics) plus configs and a tuning key.
Out: a KernelInterface whose launch picks, per distinct key (the values of the `key`
     arguments plus the dtypes of the arguments that have one), the config that ran
     fastest on this CPU (all configs timed together in alternating rounds, compile
     excluded; or each alone by the user's `do_bench`), caches it in `.cache` and
     `.best_config`, and launches the kernel with it. Configs
     that do not compile (tilec.CompilationError, OutOfResources) time as infinite; if
     every config fails the first error is raised. With cache_results=True (or
     TRITON_CACHE_AUTOTUNING=1) the timings are also kept in tilec's disk cache, keyed by
     the kernel's source, the tuning key, the configs and the CPU.
"""

import builtins
import hashlib
import inspect
import json
import os
import statistics
import time
import warnings

from ..errors import TritonError
from .. import knobs as _knobs
from .. import knobs  # noqa: F401  (the names Triton's autotuner module has)
from .._C.libtriton import get_cache_invalidating_env_vars  # noqa: F401
from .cache import get_cache_manager, triton_key  # noqa: F401
from .driver import driver  # noqa: F401
from .errors import AutotunerError, OutOfResources, PTXASError  # noqa: F401
from .jit import JITFunction, KernelInterface  # noqa: F401

# The default CPU benchmark (Autotuner._bench_interleaved): every config is timed at least
# _MIN_ROUNDS times; the configs within _CONTENDER_MARGIN of the best median are timed
# _CONTENDER_ROUNDS more times, side by side; no config more than _MAX_ROUNDS times per phase
# (all even: rounds come in pairs).
_MIN_ROUNDS = 6
_CONTENDER_MARGIN = 0.10
_CONTENDER_ROUNDS = 10
_MAX_ROUNDS = 1000
_clock = time.perf_counter  # a test may substitute a fake clock


class Config:
    """One point of the autotuning space: meta-parameters (`kwargs`, passed to the
    kernel as keyword arguments) plus launch options. On the CPU `num_warps`,
    `num_stages`, `num_ctas` and `maxnreg` are accepted and have no effect;
    `num_cpu_threads` (triton-cpu's option) sets the launch's thread count."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 ir_override=None, num_cpu_threads=None):
        if not isinstance(kwargs, dict):
            raise TypeError(f"triton.Config: kwargs must be a dict of meta-parameters, got "
                            f"{type(kwargs).__name__}")
        if pre_hook is not None and not callable(pre_hook):
            raise TypeError("triton.Config: pre_hook must be callable")
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_ctas = num_ctas
        self.num_stages = num_stages
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override
        self.num_cpu_threads = num_cpu_threads

    def __setstate__(self, state):
        self.__init__(state.get("kwargs", {}), state.get("num_warps", 4), state.get("num_stages", 3),
                      state.get("num_ctas", 1), state.get("maxnreg"), state.get("pre_hook"),
                      state.get("ir_override"), state.get("num_cpu_threads"))

    def _options(self):
        return (("num_warps", self.num_warps), ("num_ctas", self.num_ctas),
                ("num_stages", self.num_stages), ("maxnreg", self.maxnreg),
                ("ir_override", self.ir_override), ("num_cpu_threads", self.num_cpu_threads))

    def all_kwargs(self):
        """The meta-parameters and the launch options that are set, as one dict."""
        return {**self.kwargs, **{k: v for k, v in self._options() if v is not None}}

    def __str__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"{k}: {v}" for k, v in self._options() if k != "num_cpu_threads" or v is not None]
        return ", ".join(parts)

    __repr__ = __str__

    def __hash__(self):
        return hash((*self.all_kwargs().items(), self.pre_hook))

    def __eq__(self, other):
        if not isinstance(other, Config):
            return NotImplemented
        return (tuple(self.all_kwargs().items()), self.pre_hook) == \
            (tuple(other.all_kwargs().items()), other.pre_hook)


def _check_names(what, names, arg_names):
    unknown = [n for n in names if n not in arg_names]
    if unknown:
        raise ValueError(f"{what} contains names that are not kernel arguments: {', '.join(unknown)}. "
                         f"Valid argument names are: {', '.join(arg_names)}.")


def _median(timing):
    return timing[0] if isinstance(timing, (list, tuple)) else timing


def _base_function(fn):
    while not inspect.isfunction(fn):
        inner = getattr(fn, "fn", None)
        if inner is None or inner is fn:
            break
        fn = inner
    return fn


def _jit_function(fn):
    """The JITFunction under an Autotuner/Heuristics stack (what Triton's listener gets)."""
    from tilec import JITFunction
    while not isinstance(fn, JITFunction) and getattr(fn, "fn", None) is not None and fn.fn is not fn:
        fn = fn.fn
    return fn


def _cache_dir():
    """Where tuning results are kept: $TILEC_CACHE_DIR, else Triton's cache directory when one
    is set (`knobs.cache.dir`, $TRITON_CACHE_DIR: Triton keeps its autotuner's results there,
    and tests point it at a fresh directory), else $XDG_CACHE_HOME/tilec, else ~/.cache/tilec;
    None when TILEC_CACHE_DIR is set empty (no disk cache)."""
    d = os.environ.get("TILEC_CACHE_DIR")
    if d is not None:
        return d or None
    from ..knobs import cache as _cache_knobs
    if _cache_knobs.dir:
        return _cache_knobs.dir
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tilec")


def _tuning_file(fn, tuning_key, configs):
    """Where the timings of `configs` for `tuning_key` are kept: named by a hash of the
    kernel's source, the key, the configs, tilec's version and the CPU."""
    import platform

    import tilec
    from tilec import _cpu
    directory = _cache_dir()
    base = _base_function(fn)
    if directory is None or not inspect.isfunction(base):
        return None
    try:
        source = inspect.getsource(base)
    except (OSError, TypeError):
        return None
    parts = [tilec.__version__, platform.machine(), str(_cpu.vector_registers()), str(_cpu.num_cores()),
             base.__module__, base.__qualname__, source, repr(tuning_key)] + [str(c) for c in configs]
    digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()
    return os.path.join(directory, "autotune", f"{base.__name__[:100]}-{digest[:32]}.json")


class Autotuner(KernelInterface):
    """See `autotune`."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False,
                 do_bench=None, cache_results=False):
        if configs is None or len(configs) == 0:
            configs = [Config({}, num_warps=4, num_stages=3, num_ctas=1)]
        for i, c in enumerate(configs):
            if not isinstance(c, Config):
                raise TypeError(f"triton.autotune: configs[{i}] is a {type(c).__name__}, not a triton.Config")
        if isinstance(key, str):
            raise TypeError(f"triton.autotune: key must be a list of argument names, got the string "
                            f"'{key}' (write key=['{key}'])")
        self.fn = fn
        self.base_fn = _base_function(fn)
        self.arg_names = list(arg_names)
        self.configs = list(configs)
        self.keys = list(key)
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        _check_names("key", self.keys, self.arg_names)
        _check_names("reset_to_zero", self.reset_to_zero, self.arg_names)
        _check_names("restore_value", self.restore_value, self.arg_names)
        self.cache = {}
        self.configs_timings = None
        self.best_config = None
        self.bench_time = None
        self.nargs = None
        self.restore_copies = {}
        self._bench_errors = []
        self.cache_results = cache_results or _knobs.autotuning.cache

        self.user_defined_pre_hook = pre_hook is not None
        self.user_defined_post_hook = post_hook is not None
        if pre_hook is not None:
            self.pre_hook = pre_hook
        elif self.reset_to_zero or self.restore_value:
            self.pre_hook = self._reset_and_save
        else:
            self.pre_hook = lambda kwargs, reset_only=False: None
        if post_hook is not None:
            self.post_hook = post_hook
        elif self.restore_value:
            self.post_hook = self._restore
        else:
            self.post_hook = lambda kwargs, exception: None

        prune_configs_by = prune_configs_by or {}
        unknown = set(prune_configs_by) - {"perf_model", "top_k", "early_config_prune"}
        if unknown:
            raise ValueError(f"triton.autotune: prune_configs_by has unknown entries {sorted(unknown)}; "
                             f"expected 'perf_model', 'top_k', 'early_config_prune'")
        self.perf_model = prune_configs_by.get("perf_model")
        self.configs_top_k = prune_configs_by.get("top_k", 1.0)
        self.early_config_prune = prune_configs_by.get("early_config_prune")

        self.num_warmups = warmup
        self.num_reps = rep
        self.use_cuda_graph = use_cuda_graph
        if do_bench is not None and not callable(do_bench):
            raise TypeError("triton.autotune: do_bench must be callable (kernel_call, quantiles) -> times")
        self._do_bench = do_bench
        if do_bench is None and (warmup is not None or rep is not None or use_cuda_graph):
            warnings.warn("warmup, rep, and use_cuda_graph parameters are deprecated. See "
                          "https://github.com/triton-lang/triton/pull/4496 for details.", DeprecationWarning,
                          stacklevel=3)

    # -- hooks used for reset_to_zero / restore_value -------------------------------

    def _reset_and_save(self, kwargs, reset_only=False):
        for name in self.reset_to_zero:
            if kwargs.get(name) is not None:
                kwargs[name].zero_()
        if not reset_only:
            self.restore_copies = {n: kwargs[n].clone() for n in self.restore_value if kwargs.get(n) is not None}

    def _restore(self, kwargs, exception):
        for name, value in self.restore_copies.items():
            kwargs[name].copy_(value)
        self.restore_copies = {}

    # -- benchmarking ----------------------------------------------------------------

    @property
    def do_bench(self):
        """The per-config benchmark function (kernel_call, quantiles) -> times: the
        user's `do_bench=`, do_bench with the deprecated `warmup`/`rep`, else the active
        driver's benchmarker (triton.testing.do_bench). Without a `do_bench=` the
        autotuner itself times the configs together (`_bench_interleaved`)."""
        if self._do_bench is not None:
            return self._do_bench
        if self.num_warmups is not None or self.num_reps is not None:
            from ..testing import do_bench
            warmup = 25 if self.num_warmups is None else self.num_warmups
            rep = 100 if self.num_reps is None else self.num_reps
            return lambda kernel_call, quantiles: do_bench(kernel_call, warmup=warmup, rep=rep, quantiles=quantiles)
        from .driver import driver
        return driver.active.get_benchmarker()

    def _kernel_call(self, args, config, meta):
        """The call a benchmark times for `config`: hooks, the launch, the post hook."""
        conflicts = meta.keys() & config.kwargs.keys()
        if conflicts:
            raise ValueError(f"Conflicting meta-parameters: {', '.join(sorted(conflicts))}."
                             " Make sure that you don't re-define auto-tuned symbols.")
        current = dict(meta, **config.all_kwargs())
        full_nargs = {**self.nargs, **current}

        def kernel_call():
            if config.pre_hook:
                config.pre_hook(full_nargs)
            self.pre_hook(full_nargs)
            try:
                self.fn.run(*args, **current)
            except Exception as e:
                try:
                    self.post_hook(full_nargs, exception=e)
                finally:
                    raise
            self.post_hook(full_nargs, exception=None)

        return kernel_call

    @staticmethod
    def _skippable(error):
        """A config the CPU compiler rejects (a static_assert on the block sizes, a tile
        too large) is skipped, as Triton skips configs out of GPU resources. KernelError
        (a failure while running) is not skipped: it is a real bug."""
        from tilec.errors import CompilationError
        return isinstance(error, (CompilationError, OutOfResources))

    def _bench(self, *args, config, **meta):
        """Times one config with `self.do_bench` (the user's `do_bench=`, or the driver's
        benchmarker) and returns its timings, Triton's list of quantiles [median, p20, p80]
        ms; a config that does not compile gets [inf, inf, inf] (the error is kept for
        the case that no config compiles)."""
        kernel_call = self._kernel_call(args, config, meta)
        if _knobs.autotuning.print:
            print(f"Autotuning kernel {self.base_fn.__name__} with config {config}")
        try:
            return self.do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))
        except (TritonError, OutOfResources) as e:
            if not self._skippable(e):
                raise
            if _knobs.autotuning.print:
                print(f"Autotuning failed with {e}")
            self._bench_errors.append(e)
            return [float("inf")] * 3

    def _uses_cpu_benchmark(self):
        """True when no benchmark function was chosen (no `do_bench=`, the driver's own
        benchmarker) and `_bench` is this class's: the configs are then timed together by
        `_bench_interleaved`. A subclass that overrides `_bench` gets it called per config,
        as in Triton."""
        if self._do_bench is not None or type(self)._bench is not Autotuner._bench:
            return False
        from .. import testing
        from .driver import driver
        return driver.active.get_benchmarker() is testing.do_bench

    def _bench_interleaved(self, args, meta, configs):
        """The CPU's default benchmark of `configs`: {config: [median, p20, p80] ms},
        first error. Timing one config after another (as do_bench per config does) lets
        the load of a shared machine, which drifts over seconds, decide between configs
        whose kernels take tens of ms — a 2048 matmul gets one or two timed runs from a
        100 ms budget. So: every config is compiled and run once before any timing
        (compile time and first-touch page faults are never timed), warmed for `warmup`
        ms, then timed in rounds that run each config once, in pairs of rounds (an order,
        then the same order reversed; the order rotates from pair to pair), for at least
        _MIN_ROUNDS rounds and `rep` ms per config; the configs within _CONTENDER_MARGIN
        of the best median then get _CONTENDER_ROUNDS more rounds among themselves. A
        config's timings are the quantiles of its per-pair mean times. Each timed run
        follows a write of a last-level-cache-sized buffer, as do_bench's."""
        from .driver import driver
        drv = driver.active
        verbose = _knobs.autotuning.print
        warmup_ms = 25 if self.num_warmups is None else self.num_warmups
        rep_ms = 100 if self.num_reps is None else self.num_reps
        calls, timings, first_error = {}, {}, None
        for config in configs:
            if verbose:
                print(f"Autotuning kernel {self.base_fn.__name__} with config {config}")
            call = self._kernel_call(args, config, meta)
            try:
                call()  # compiles (or loads from the disk cache), then runs once: untimed
            except (TritonError, OutOfResources) as e:
                if not self._skippable(e):
                    raise
                if verbose:
                    print(f"Autotuning failed with {e}")
                timings[config] = [float("inf")] * 3
                first_error = first_error or e
                continue
            calls[config] = call
        if not calls:
            return timings, first_error
        flush = drv.get_empty_cache_for_benchmark()
        start = _clock()
        while True:  # warm-up: whole rounds, untimed
            for call in calls.values():
                call()
            if (_clock() - start) * 1e3 >= warmup_ms:
                break
        samples = {config: [] for config in calls}

        def timed_rounds(live, rounds, budget_ms):
            # Rounds come in pairs, the second the first reversed: in a pair each config
            # runs once at position q and once at n-1-q, so a linear drift of the
            # machine's speed adds the same to every config's pair.
            begin = _clock()
            for r in range(_MAX_ROUNDS):
                if r % 2 == 0 and r >= rounds and (_clock() - begin) * 1e3 >= budget_ms:
                    break
                shift = (r // 2) % len(live)
                order = live[shift:] + live[:shift]
                for config in (reversed(order) if r % 2 else order):
                    drv.clear_cache(flush)
                    t0 = _clock()
                    calls[config]()
                    samples[config].append((_clock() - t0) * 1e3)

        def pair_means(config):
            runs = samples[config]
            return [(runs[i] + runs[i + 1]) / 2 for i in range(0, len(runs) - 1, 2)]

        live = list(calls)
        timed_rounds(live, _MIN_ROUNDS, rep_ms * len(live))
        if len(live) > 1:
            best = builtins.min(statistics.median(pair_means(c)) for c in live)
            contenders = [c for c in live if statistics.median(pair_means(c)) <= best * (1 + _CONTENDER_MARGIN)]
            if len(contenders) > 1:
                timed_rounds(contenders, _CONTENDER_ROUNDS, 0)
        from ..testing import _quantile
        for config in calls:
            timings[config] = _quantile(pair_means(config), (0.5, 0.2, 0.8))
        return timings, first_error

    def _tuning_key(self, args, kwargs):
        all_args = {**self.nargs, **kwargs}
        named = {k: v for k, v in all_args.items() if k in self.arg_names}
        key = [named[k] for k in self.keys if k in named]
        for value in named.values():
            if hasattr(value, "dtype"):
                key.append(str(value.dtype))
        return tuple(key)

    def _benchmark(self, key, args, kwargs, configs):
        start = time.time()
        self._bench_errors = []
        if self._uses_cpu_benchmark():
            timings, first_error = self._bench_interleaved(args, kwargs, configs)
        else:
            timings = {config: self._bench(*args, config=config, **kwargs) for config in configs}
            first_error = self._bench_errors[0] if self._bench_errors else None
        self._bench_errors = []
        self.bench_time = time.time() - start
        best = builtins.min(timings, key=timings.get)
        if first_error is not None and all(_median(t) == float("inf") for t in timings.values()):
            raise first_error
        self.cache[key] = best
        self.configs_timings = timings
        full_nargs = {**self.nargs, **kwargs, **best.all_kwargs()}
        self.pre_hook(full_nargs, reset_only=True)

    def check_disk_cache(self, tuning_key, configs, bench_fn):
        """cache_results=True (or TRITON_CACHE_AUTOTUNING=1), as Triton's: the timings an
        earlier process stored for the same kernel source, tuning key and configs set
        `.cache[tuning_key]` and `.configs_timings` and True is returned; otherwise
        `bench_fn()` runs and its timings are stored (tilec's disk cache, autotune/), and
        False is returned. Configs with a pre_hook cannot be stored: bench_fn runs."""
        if not tuning_key or any(c.pre_hook for c in configs):
            bench_fn()
            return False
        path = _tuning_file(self.fn, tuning_key, configs)
        if path is not None and os.path.exists(path):
            try:
                with open(path) as f:
                    stored = json.load(f)["configs_timings"]
                by_text = {str(c): c for c in configs}
                timings = {by_text[text]: t for text, t in stored}
            except (OSError, ValueError, KeyError, TypeError):
                timings = None  # unreadable or from other configs: tune again
            if timings and len(timings) == len(configs):
                self.configs_timings = timings
                self.cache[tuning_key] = builtins.min(timings, key=timings.get)
                return True
        bench_fn()
        if path is not None:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                json.dump({"key": repr(tuning_key), "configs_timings": [(str(c), t) for c, t in
                                                                        self.configs_timings.items()]}, f)
            os.replace(tmp, path)
        return False

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        used_cached_result = True
        key = None
        if len(self.configs) > 1:
            key = self._tuning_key(args, kwargs)
            if key not in self.cache:
                used_cached_result = False
                pruned = self.prune_configs(kwargs)
                if len(pruned) == 1:
                    self.cache[key] = pruned[0]
                    used_cached_result = True
                elif self.cache_results:
                    used_cached_result = self.check_disk_cache(
                        key, pruned, lambda: self._benchmark(key, args, kwargs, pruned))
                else:
                    self._benchmark(key, args, kwargs, pruned)
                if _knobs.autotuning.listener is not None and len(pruned) > 1:  # Triton's: one config is no tuning
                    _knobs.autotuning.listener(fn=_jit_function(self.fn), key=key, best_config=self.cache[key],
                                               configs_timings=self.configs_timings,
                                               duration=None if used_cached_result else self.bench_time,
                                               cache_hit=used_cached_result)
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        if _knobs.autotuning.print and not used_cached_result:
            print(f"Triton autotuning for function {self.base_fn.__name__},\nwith key as {key},\n"
                  f"finished after {self.bench_time:.2f}s,\nbest config selected: {self.best_config};")
        if config.pre_hook is not None:
            config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
        try:
            return self.fn.run(*args, **kwargs, **config.all_kwargs())
        finally:
            self.nargs = None

    def prune_configs(self, kwargs):
        pruned = self.configs
        if self.early_config_prune:
            pruned = self.early_config_prune(self.configs, self.nargs, **kwargs)
            if not pruned:
                raise AutotunerError("No valid autotuner configs after pruning. `early_config_prune` should "
                                     "return at least one config.")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(pruned) * top_k))
            elif not isinstance(top_k, int):
                raise TypeError("Error while pruning configs, top_k must be either 1) a float <= 1.0 or 2) an int")
            if len(pruned) > top_k:
                est = {c: self.perf_model(**self.nargs, **kwargs, **c.all_kwargs()) for c in pruned}
                pruned = sorted(est, key=est.get)[:top_k]
        return list(pruned)

    def warmup(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        try:
            return [self.fn.warmup(*args, **kwargs, **c.all_kwargs()) for c in self.prune_configs(kwargs)]
        finally:
            self.nargs = None


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    """Decorator: tune a `@triton.jit` kernel over `configs` (list of triton.Config),
    re-tuning whenever the values of the arguments named in `key` (or any argument's
    dtype) change. See Triton's documentation for the other parameters; timing runs on
    the CPU with triton.testing.do_bench unless `do_bench` is given."""

    def decorator(fn):
        arg_names = getattr(fn, "arg_names", None)
        if arg_names is None:
            raise TypeError(f"triton.autotune must decorate a @triton.jit function (or another "
                            f"autotune/heuristics), got {type(fn).__name__}")
        return Autotuner(fn, arg_names, configs, key, reset_to_zero, restore_value, pre_hook=pre_hook,
                         post_hook=post_hook, prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench, cache_results=cache_results)

    return decorator


class Heuristics(KernelInterface):
    """See `heuristics`."""

    def __init__(self, fn, arg_names, values):
        if not isinstance(values, dict):
            raise TypeError(f"triton.heuristics expects a dict {{name: function(args)}}, got "
                            f"{type(values).__name__}")
        for name, f in values.items():
            if not callable(f):
                raise TypeError(f"triton.heuristics: the value for '{name}' is not callable")
        self.fn = fn
        self.values = values
        self.arg_names = list(arg_names)

    def run(self, *args, **kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)


def heuristics(values):
    """Decorator: compute meta-parameters from the launch's arguments, `values` being
    {name: function(dict of the arguments by name) -> value}."""

    def decorator(fn):
        arg_names = getattr(fn, "arg_names", None)
        if arg_names is None:
            raise TypeError(f"triton.heuristics must decorate a @triton.jit function (or another "
                            f"autotune/heuristics), got {type(fn).__name__}")
        return Heuristics(fn, arg_names, values)

    return decorator


__all__ = ["Autotuner", "Config", "Heuristics", "autotune", "heuristics"]
