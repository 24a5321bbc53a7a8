"""triton.compiler.compiler for the drop-in: the compiled-kernel class host code imports
from here, ``compile`` over an ``ASTSource`` (a @jit function and a signature, compiled
for the CPU without a launch), Triton's LazyDict and max_shared_mem, and the refused names
of Triton's own compiler (IRSource and ``compile`` of an IR file, make_backend,
get_cache_key: see tilec.triton._refused)."""

import functools
import hashlib

from tilec import CompiledKernel

from .. import _refused
from ..runtime.cache import triton_key  # noqa: F401  (torch's inductor imports it from here too)

IRSource = _refused.refused_class("triton.compiler.IRSource")


class ASTSource:
    """Triton's compiler input for a @jit function: ``ASTSource(fn, signature,
    constexprs=None, attrs=None)``. ``signature`` maps each parameter name to its type
    ("*fp32", "i32", "constexpr", ...); ``constexprs`` maps a parameter name, or a path
    tuple ((index,), (index, element)...), to its value; ``attrs`` maps paths to Triton's
    attributes ([["tt.divisibility", 16]]). ``triton.compile(src)`` compiles it."""

    def __init__(self, fn, signature, constexprs=None, attrs=None):
        from tilec.jit import JITFunction
        if not isinstance(fn, JITFunction):
            raise TypeError(f"ASTSource: fn must be a @triton.jit function, got {type(fn).__name__}")
        self.fn = fn
        self.ext = "ttir"
        self.name = fn.__name__
        self.signature = signature
        self.constants = {}
        for k, v in (constexprs or {}).items():
            if isinstance(k, str):
                if k not in fn.arg_names:
                    raise ValueError(f"ASTSource: {fn.__name__} has no parameter '{k}'")
                k = (fn.arg_names.index(k), )
            if not isinstance(k, tuple):
                raise TypeError(f"ASTSource: a constexprs key must be a parameter name or a path tuple, got {k!r}")
            self.constants[k] = v
        self.attrs = attrs or {}
        for k in self.signature:
            if not isinstance(k, str):
                raise TypeError("Signature keys must be string")

    def hash(self):
        """A sha256 hex digest of the function's source key, attributes, signature and
        constants (Triton's ASTSource.hash)."""
        sig = [v for _, v in sorted(self.signature.items())]
        consts = "-".join(getattr(v, "cache_key", None) or str(v) for _, v in sorted(self.constants.items()))
        return hashlib.sha256(f"{self.fn.cache_key}-{self.attrs}-{sig}-{consts}".encode()).hexdigest()

    def parse_options(self):
        return {}


def compile(src, target=None, options=None, _env_vars=None):  # noqa: A001 - Triton's name
    """``triton.compile(ASTSource(fn, signature, constexprs))``: compiles the specialization
    for the CPU (``target`` None or the drop-in's ``GPUTarget("cpu", ...)``) and returns
    its CompiledKernel (``asm``, ``metadata``, ``kernel[grid](*args)``) without launching
    it. A compile error raises ``triton.CompilationError``. ``options``: num_warps,
    num_stages, num_ctas, debug. An IR file (a path) is refused: tilec compiles Python
    kernel source only."""
    if isinstance(src, str):
        raise NotImplementedError(_refused.refusal_message("triton.compiler.IRSource"))
    if not isinstance(src, ASTSource):
        raise TypeError(f"triton.compile: src must be an ASTSource, got {type(src).__name__}")
    backend = getattr(target, "backend", "cpu")
    if backend != "cpu":
        raise NotImplementedError(f"triton.compile for target {target}: tilec's drop-in compiles for the CPU; "
                                  "GPU libraries are built with `tilec compile FILE.py --target nvptx`")
    from tilec.jit import compile_specialization
    return compile_specialization(src.fn, src.signature, src.constants, src.attrs, options or {})


make_backend = _refused.refused_function("triton.compiler.make_backend")
get_cache_key = _refused.refused_function("triton.compiler.get_cache_key")


class LazyDict:
    """A dict completed on first `get()`: `add(func, args)` queues `func(*args)`, a dict
    merged into the data then (Triton's launch metadata)."""

    def __init__(self, data):
        self.data = data
        self.extras = []

    def get(self):
        for func, args in self.extras:
            self.data = self.data | func(*args)
        self.extras.clear()
        return self.data

    def add(self, func, args):
        self.extras.append((func, args))


@functools.lru_cache()
def max_shared_mem(device):
    """The device's shared memory per block in Triton; the CPU's per-core cache (L2) here,
    as `get_device_properties(device)["max_shared_mem"]`."""
    from ..runtime.driver import driver
    return driver.active.utils.get_device_properties(device)["max_shared_mem"]


__all__ = ["CompiledKernel", "ASTSource", "IRSource", "LazyDict", "compile", "get_cache_key", "make_backend",
           "max_shared_mem"]
