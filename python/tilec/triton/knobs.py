"""triton.knobs for the drop-in: the settings Triton reads from TRITON_* environment
variables, as attributes (`triton.knobs.autotuning.print = True`).

A knob reads its environment variable on every access until it is assigned; an
assignment wins (and, with `propagate_env`, is written to the environment too, so child
processes see it). `del` returns a knob to its environment value. Only the knobs the
drop-in acts on or that test helpers touch are defined.
"""

import contextlib
import copy
import os

propagate_env = True


class env_base:
    """A knob backed by environment variable `key` (parsed by `parse`)."""

    def __init__(self, key, default=None):
        self.key = key
        self.default = default

    def __set_name__(self, owner, name):
        self.name = name

    def parse(self, text):
        return text

    def to_env(self, value):
        return str(value)

    def get(self):
        text = os.environ.get(self.key)
        return self.default if text is None else self.parse(text)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        if self.name in obj._overrides:
            return obj._overrides[self.name]
        return self.get()

    def __set__(self, obj, value):
        obj._overrides[self.name] = value
        if propagate_env:
            if value is None:
                os.environ.pop(self.key, None)
            else:
                os.environ[self.key] = self.to_env(value)

    def __delete__(self, obj):
        obj._overrides.pop(self.name, None)


class env_str(env_base):
    pass


class env_opt_str(env_base):
    pass


class env_bool(env_base):

    def __init__(self, key, default=False):
        super().__init__(key, default)

    def parse(self, text):
        return text.strip().lower() in ("1", "true", "on", "yes", "y")

    def to_env(self, value):
        return "1" if value else "0"


class env_int(env_base):

    def __init__(self, key, default=0):
        super().__init__(key, default)

    def parse(self, text):
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"environment variable {self.key}={text!r} is not an integer") from None


class base_knobs:
    """A group of knobs; `copy()` and `reset()` as Triton's tests use them."""

    def __init__(self):
        self._overrides = {}

    @classmethod
    def _descriptors(cls):
        found = {}
        for klass in reversed(cls.__mro__):
            for name, value in vars(klass).items():
                if isinstance(value, env_base):
                    found[name] = value
        return found

    @property
    def knob_descriptors(self):
        return self._descriptors()

    @property
    def knobs(self):
        return {name: getattr(self, name) for name in self._descriptors()}

    def copy(self):
        res = copy.copy(self)
        res._overrides = dict(self._overrides)
        return res

    def reset(self):
        self._overrides = {}
        return self

    @contextlib.contextmanager
    def scope(self):
        """`with knobs.cache.scope(): ...`: the group's settings (and their environment
        variables) as they were before the block, afterwards (Triton's test fixtures)."""
        env = {d.key: os.environ.get(d.key) for d in self._descriptors().values()}
        saved = dict(self.__dict__)
        saved["_overrides"] = dict(self._overrides)
        try:
            yield
        finally:
            self.__dict__.clear()
            self.__dict__.update(saved)
            for key, value in env.items():
                if value is not None:
                    os.environ[key] = value
                else:
                    os.environ.pop(key, None)


class autotuning_knobs(base_knobs):
    cache = env_bool("TRITON_CACHE_AUTOTUNING")
    print = env_bool("TRITON_PRINT_AUTOTUNING")

    def __init__(self):
        super().__init__()
        self.listener = None


class runtime_knobs(base_knobs):
    """jit_cache_hook(key=, repr=, fn=, compile=, is_manual_warmup=, already_compiled=) runs
    before each compile (a true result skips it: nothing compiles or launches) and
    jit_post_compile_hook with the same arguments after, as in Triton."""

    interpret = env_bool("TRITON_INTERPRET")
    debug = env_bool("TRITON_DEBUG")
    override_arch = env_opt_str("TRITON_OVERRIDE_ARCH")

    def __init__(self):
        super().__init__()
        self.jit_cache_hook = None
        self.jit_post_compile_hook = None


class compilation_knobs(base_knobs):
    always_compile = env_bool("TRITON_ALWAYS_COMPILE")
    allow_non_constexpr_globals = env_bool("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS")
    default_fp_fusion = env_bool("TRITON_DEFAULT_FP_FUSION", True)

    def __init__(self):
        super().__init__()
        self.listener = None


class cache_knobs(base_knobs):
    """Where triton.runtime.cache's FileCacheManager keeps files (tilec's own kernels go to
    its disk cache, TILEC_CACHE_DIR). `dir` unset means <home_dir>/.triton/cache."""

    home_dir = env_str("TRITON_HOME", os.path.expanduser("~/"))
    dir = env_opt_str("TRITON_CACHE_DIR")
    dump_dir = env_opt_str("TRITON_DUMP_DIR")
    override_dir = env_opt_str("TRITON_OVERRIDE_DIR")

    def __init__(self):
        super().__init__()
        self.manager_class = None
        self.remote_manager_class = None


class language_knobs(base_knobs):
    """tl.dot's default input_precision for fp32 operands (None: "tf32", Triton's NVIDIA
    default); the compiler reads TRITON_F32_DEFAULT, which an assignment sets."""

    fp32_default = env_opt_str("TRITON_F32_DEFAULT")
    default_fp_fusion = env_bool("TRITON_DEFAULT_FP_FUSION", True)
    force_disable_fp_fusion = env_bool("TRITON_FORCE_DISABLE_FP_FUSION")

    def fp_fusion_enabled(self, requested=None):
        """Whether a * b + c may become an fma: the launch's enable_fp_fusion, else the
        default; never with force_disable_fp_fusion (Triton 3.9's rule)."""
        return not self.force_disable_fp_fusion and (self.default_fp_fusion if requested is None else requested)


autotuning = autotuning_knobs()
runtime = runtime_knobs()
compilation = compilation_knobs()
cache = cache_knobs()
language = language_knobs()

__all__ = ["base_knobs", "env_base", "env_bool", "env_int", "env_str", "env_opt_str", "autotuning",
           "runtime", "compilation", "cache", "language", "propagate_env"]
