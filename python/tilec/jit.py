"""``@tilec.jit``: Triton kernels compiled by tilec and launched on CPU arrays.

``kernel[grid](*args, **kwargs)`` runs in C (tilec._C.Dispatcher): it binds the arguments,
specializes them with Triton's rules into a cache key, looks the key up in the function's
dict of compiled kernels and launches with the GIL released. Only a cache miss comes back
here (``JITFunction._compile``): the key becomes a signature for the C compiler, the
function's module context is gathered (tilec._globals) and the kernel is compiled or
loaded from tilec's disk cache.
"""

import inspect
import os
import re
import sys
import types
import warnings

from . import _C
from . import _cpu
from . import _globals
from .errors import CompilationError
from . import language as tl

__all__ = ["jit", "JITFunction", "KernelParam", "CompiledKernel", "LAUNCH_OPTIONS"]

#: Keyword arguments of a launch that are not kernel parameters: GPU launch options that
#: tilec accepts and ignores (``num_cpu_threads`` sets the thread count; ``debug``
#: overrides the function's debug flag).
LAUNCH_OPTIONS = frozenset({
    "num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "num_cpu_threads", "vec_lib",
    "debug", "sanitize_overflow", "launch_cooperative_grid", "launch_pdl", "cluster_dims", "ctas_per_cga",
    "enable_warp_specialization", "matrix_instr_nonkdim", "waves_per_eu", "kpack", "extern_libs",
    "instrumentation_mode", "max_num_imprecise_acc_default", "default_dot_input_precision",
    "allowed_dot_input_precisions", "supported_fp8_dtypes", "enable_fast_math", "enable_reflect_ftz",
    "arch", "ptx_version", "ir_override", "num_buffers_warp_spec", "num_consumer_groups",
    "reg_dec_producer", "reg_inc_consumer", "fpsan_homomorphic_casts", "grf_mode", "generate_native_code",
    "advanced_path", "one_matrix_per_load_for_bt", "enable_tile_load_linear_layout", "threads_per_warp",
})

# the dispatcher's key bits (python/src/dispatch.c): debug, then the checks (TILEC_CHECKS_*)
_OPT_DEBUG, _OPT_CHECKS_SHIFT, _OPT_CHECKS_MASK = 1, 1, 0xF  # the key's first item (python/src/dispatch.c)

# Triton's canonical scalar type names for annotations (``n: tl.int64``, ``x: float``).
_CANON = {
    "bool": "u1", "int1": "u1", "uint1": "u1", "i1": "u1", "half": "fp16", "float16": "fp16",
    "bfloat16": "bf16", "float": "fp32", "float32": "fp32", "double": "fp64", "float64": "fp64",
    "int8": "i8", "int16": "i16", "int": "i32", "int32": "i32", "int64": "i64", "uint8": "u8",
    "uint16": "u16", "uint32": "u32", "uint64": "u64",
}
for _v in list(_CANON.values()):
    _CANON[_v] = _v


def _annotation_text(ann):
    """Triton's normalized annotation string ("constexpr", "i64", "*fp32", "" for none)."""
    if ann is inspect.Parameter.empty or ann is None:
        return ""
    if isinstance(ann, str):
        text = ann.strip()
        if text.startswith(("tl.", "triton.language.")):
            text = text.rsplit(".", 1)[-1]
        return _CANON.get(text, text)
    if isinstance(ann, type):
        if ann.__name__ == "constexpr":
            return "constexpr"
        return _CANON.get(ann.__name__, ann.__name__)
    if type(ann).__name__ == "dtype" and hasattr(ann, "name"):
        return _CANON.get(ann.name, ann.name)
    if isinstance(ann, tl.pointer_type):
        return "*" + _CANON.get(ann.element_ty.name, ann.element_ty.name)
    return str(ann)


class KernelParam:
    """One parameter of a @jit function (Triton's ``KernelParam``)."""

    def __init__(self, num, param, do_not_specialize, do_not_specialize_on_alignment):
        self.num = num
        self._param = param
        self.name = param.name
        self.annotation = _annotation_text(param.annotation)
        self.is_constexpr = "constexpr" in self.annotation
        self.do_not_specialize = do_not_specialize
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment

    @property
    def default(self):
        return self._param.default

    @property
    def has_default(self):
        return self._param.default is not inspect.Parameter.empty

    @property
    def annotation_type(self):
        """The scalar type a non-constexpr annotation forces ("i64", "fp32", "u1"), or ""."""
        a = self.annotation
        if self.is_constexpr or a.startswith("*"):
            return ""
        return a if a in _CANON.values() else ""

    def __repr__(self):
        return f"KernelParam({self.num}, {self.name!r})"


class _Asm(dict):
    """``CompiledKernel.asm``: the kernel's IR per pipeline stage, computed on first use.
    Keys are tilec's stages ("tile", "vector", "llvm-dialect", "llvm", "asm") and Triton's
    names for the nearest stage ("ttir": the tile dialect, "llir": LLVM IR). Triton's GPU
    stages (TritonGPU IR, PTX, cubin, SASS, AMDGCN, ...) do not exist for a CPU kernel: their
    keys raise a KeyError that says so (and ``in`` is False), as does an unknown key."""

    _ALIASES = {"ttir": "tile", "ttcir": "vector", "llir": "llvm"}
    _STAGES = ("tile", "vector", "llvm-dialect", "llvm", "asm")
    _GPU_STAGES = {"ttgir": "TritonGPU IR (GPU layouts)", "ptx": "PTX", "cubin": "a cubin", "sass": "SASS",
                   "amdgcn": "AMDGCN assembly", "hsaco": "an HSA code object"}

    def __init__(self, emit):
        super().__init__()
        self._emit = emit

    def __missing__(self, key):
        stage = self._ALIASES.get(key, key)
        if stage not in self._STAGES:
            known = ", ".join(repr(k) for k in self.keys())
            what = self._GPU_STAGES.get(key)
            if what:
                raise KeyError(f"asm[{key!r}]: tilec compiles this kernel for the CPU, so there is no {what}; "
                               f"the stages it has: {known}")
            raise KeyError(f"Unknown key: {key!r} (the stages tilec has: {known})")
        text = self._emit(stage)
        self[key] = text
        return text

    def keys(self):
        return list(self._STAGES) + list(self._ALIASES)

    def __contains__(self, key):
        return key in self._STAGES or key in self._ALIASES


class CompiledKernel(_C.Kernel):
    """One compiled specialization of a kernel (what a launch or ``warmup`` returns).

    ``kernel[grid](*args)`` launches it with all the kernel's arguments in order
    (constexpr values included and ignored); ``metadata``, ``n_regs``, ``n_spills`` and
    ``asm`` mirror Triton's CompiledKernel. A CPU program is one thread that runs alone on
    a core: ``n_regs`` is the vector registers of the target, ``metadata.shared`` the cache
    the core has to itself (L2), so GPU host code that sizes a persistent grid from them
    (NUM_REGS // (n_regs * warpSize * num_warps), max_shared_mem // shared, as Triton's
    fused-softmax tutorial does) gets one program per core; ``n_spills`` is 0."""

    n_spills = 0

    @property
    def n_regs(self):
        return _cpu.vector_registers(self.target)

    def _init(self, jitfn, spec, compiler, options):
        self.function = jitfn
        self._spec = spec
        self._compiler = compiler
        self.metadata = types.SimpleNamespace(
            name=self.name,
            num_warps=options.get("num_warps", 4),
            num_stages=options.get("num_stages", 3),
            num_ctas=options.get("num_ctas", 1),
            shared=_cpu.l2_bytes(),
            target=self.target,
            debug=bool(spec.get("_debug")),
            signature=self.signature,
        )
        self.asm = _Asm(self._emit)
        self.packed_metadata = None

    @property
    def name(self):
        return self.__dict__.get("_repr_name") or _C.Kernel.name.__get__(self)

    @property
    def hash(self):
        """Triton's CompiledKernel.hash: a sha256 hex digest naming what was compiled (the
        kernel's module context, name, parameter values and types, target and options), equal
        for two compiles of the same specialization (a warmup and a preload)."""
        h = self.__dict__.get("_hash")
        if h is None:
            import hashlib

            spec = self._spec
            text = repr((_globals.context_digest(spec), spec.get("kernel"), spec.get("defines"), self.target,
                         spec.get("_debug"), self.metadata.num_warps, self.metadata.num_stages))
            h = self._hash = hashlib.sha256(text.encode()).hexdigest()
        return h

    def _set_name(self, name):
        self._repr_name = str(name)
        self.metadata.name = self._repr_name

    def _emit(self, stage):
        spec = {k: v for k, v in self._spec.items() if not k.startswith("_")}
        return self._compiler.emit(stage=stage, **spec)

    def _init_handles(self):
        """Triton loads the GPU module here; a tilec kernel is loaded already."""

    def __getitem__(self, grid):
        def launcher(*args, **options):
            g = grid(dict(zip(self.function.arg_names, args))) if callable(grid) else grid
            return self.launch(g, args, num_threads=int(options.get("num_cpu_threads") or 0))

        return launcher

    def __repr__(self):
        return f"<tilec CompiledKernel {self.name} [{self.signature}]>"


_compilers = {}


_WARNING_LINE = re.compile(r"^(.*):(\d+):(\d+): warning: (.*)$")


def _front_end_warnings(text):
    """The compiler's warnings (Triton's: deprecated forms, shifts past the type's width) as
    Python UserWarnings at their kernel line, as Triton issues them while compiling."""
    for line in (text or "").splitlines():
        m = _WARNING_LINE.match(line)
        if m:
            warnings.warn_explicit(m.group(4), UserWarning, m.group(1), int(m.group(2)))


def _compiler(debug, debug_info, checks):
    """One tilec compiler per combination of options, shared by all kernels. Without
    debug, tl.device_assert compiles to nothing (Triton). ``checks``: the debug checks'
    classes (TILEC_CHECKS_* bits)."""
    key = (debug, debug_info, checks)
    c = _compilers.get(key)
    if c is None:
        c = _C.Compiler(debug_info=debug_info, checks=checks, strip_asserts=not debug)
        _compilers[key] = c
    return c


class _MockTensor:
    """What ``warmup`` passes for an argument given as a dtype: a pointer of that dtype."""

    def __init__(self, dtype):
        self.dtype = dtype

    @staticmethod
    def data_ptr():
        return 0


def _is_dtype(value):
    return isinstance(value, tl.dtype) or (type(value).__name__ == "dtype" and type(value).__module__ in (
        "torch", "triton.language.core", "tilec.language"))


class JITFunction:
    """A kernel (or helper) decorated with ``@tilec.jit``.

    ``kernel[grid](*args, **kwargs)`` launches it; ``grid`` is a tuple of 1-3 ints or a
    callable taking the dict of bound arguments (``lambda meta: (cdiv(n,
    meta["BLOCK"]),)``). Arguments are numpy arrays, torch CPU tensors, objects with
    ``__array_interface__`` or ``__dlpack__``, ints, floats, bools, None and (nested) tuples
    or NamedTuples of those, flattened as Triton 3.x does; constexpr
    parameters take any compile-time value. Launch options such as ``num_warps`` are
    accepted and ignored.
    """

    def __init__(self, fn, debug=None, do_not_specialize=None, do_not_specialize_on_alignment=None, noinline=None,
                 repr=None, **ignored):
        self.fn = fn
        self._repr = repr
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__globals__ = fn.__globals__
        self.__wrapped__ = fn
        self.module = fn.__module__
        self.debug = debug
        self.noinline = noinline
        self.do_not_specialize = list(do_not_specialize or [])
        self.do_not_specialize_on_alignment = list(do_not_specialize_on_alignment or [])
        self.signature = inspect.signature(fn)
        self.params = []
        for i, p in enumerate(self.signature.parameters.values()):
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"@jit function {fn.__name__}: *args/**kwargs parameters are not supported")
            dns = i in self.do_not_specialize or p.name in self.do_not_specialize
            dnsoa = i in self.do_not_specialize_on_alignment or p.name in self.do_not_specialize_on_alignment
            self.params.append(KernelParam(i, p, dns, dnsoa))
        self.arg_names = [p.name for p in self.params]
        self.constexprs = [p.num for p in self.params if p.is_constexpr]
        self._dispatcher = _C.Dispatcher(
            name=fn.__name__,
            names=tuple(self.arg_names),
            constexpr=tuple(p.is_constexpr for p in self.params),
            defaults=tuple(p.default for p in self.params),
            empty=inspect.Parameter.empty,
            dns=tuple(p.do_not_specialize for p in self.params),
            dnsoa=tuple(p.do_not_specialize_on_alignment for p in self.params),
            annotations=tuple(_scalar_annotation(p) for p in self.params),
            options=LAUNCH_OPTIONS,
            compile_cb=self._compile,
            debug=debug,
        )
        self._context = None
        # Triton's: (name, id(globals)) -> (value when compiled, globals) of the value globals
        # the compiled kernels read; a launch after one changed is a RuntimeError
        self.used_global_vals = {}
        self._src = None
        self._src_patched = False
        self._fn_name = f"{fn.__module__}.{self.__qualname__}"
        self.hash = None  # cache_key, computed on first use
        self.pre_run_hooks = []

    # ---- launching -------------------------------------------------------------------

    def run(self, *args, grid=None, warmup=False, **kwargs):
        """Binds, specializes, compiles if needed and (unless ``warmup``) launches;
        returns the CompiledKernel."""
        if self.pre_run_hooks:
            self._call_pre_run_hooks(args, kwargs)
        self._warmup = warmup  # what knobs.runtime's jit hooks are told (is_warmup)
        try:
            return self._dispatcher.run(args, kwargs, grid, warmup)
        finally:
            self._warmup = False  # kernel[grid](...) compiles through the dispatcher alone

    def __getitem__(self, grid):
        if self.pre_run_hooks:
            return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)
        return self._dispatcher.bind(grid)

    def add_pre_run_hook(self, hook):
        """Calls ``hook(*args, **kwargs)`` before every launch or warmup with the launch's
        arguments (and Triton's ``debug`` option in kwargs), as Triton does."""
        if not callable(hook):
            raise TypeError(f"add_pre_run_hook: hook must be callable, got {type(hook).__name__}")
        self.pre_run_hooks.append(hook)

    def _call_pre_run_hooks(self, args, kwargs):
        hook_kwargs = dict(kwargs)
        hook_kwargs["debug"] = kwargs.get("debug", self.debug) or _env_on("TRITON_DEBUG")
        hook_kwargs.setdefault("instrumentation_mode", "")
        hook_kwargs.setdefault("fpsan_homomorphic_casts", False)
        for hook in list(self.pre_run_hooks):
            hook(*args, **hook_kwargs)

    def warmup(self, *args, grid=None, **kwargs):
        """Compiles the specialization these arguments select without launching it;
        arguments may be dtypes in place of tensors (``kernel.warmup(torch.float32, ...)``)."""
        # a dtype stands for a tensor of it, except at a constexpr parameter, where it is the value
        args = tuple(_MockTensor(a) if _is_dtype(a) and not (i < len(self.params) and self.params[i].is_constexpr)
                     else a for i, a in enumerate(args))
        return self.run(*args, grid=grid, warmup=True, **kwargs)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel")

    @property
    def src(self):
        """The kernel's source text from its ``def`` line on (dedented). Assigning it
        replaces the text the kernel compiles from, as with Triton's ``JITFunction.src``
        (Triton's test files patch kernels with ``kernel.src = kernel.src.replace(...)``);
        the kernels compiled from the old text are dropped."""
        if self._src is None:
            self._src = _globals.function_source(self.fn)[1]
        return self._src

    @src.setter
    def src(self, text):
        self._unsafe_update_src(text)

    def _unsafe_update_src(self, new_src):
        """Replaces the text the kernel compiles from (Triton 3.9's way to patch a kernel:
        ``k._unsafe_update_src(k.src.replace(...))``; assigning ``src`` does the same here,
        as in earlier Triton). The kernels compiled from the old text are dropped and
        ``cache_key`` is recomputed; as in Triton, the caller resets ``hash`` of kernels
        that call this one."""
        if not isinstance(new_src, str):
            raise TypeError(f"{self.__name__}.src must be a str, got {type(new_src).__name__}")
        self._src = new_src
        self._src_patched = True
        self.hash = None
        self._dispatcher.cache.clear()

    @property
    def cache_key(self):
        """A hex digest of what the kernel compiles from: its source text (as patched), its
        first line, and everything its module context hands the compiler — the globals it
        uses (constexpr values, dtypes, module aliases) and the sources of the @jit helpers
        and modules it reaches. Computed once (Triton's ``hash``); ``_unsafe_update_src``
        resets it."""
        if self.hash is None:
            self.hash = f"recursion:{self._fn_name}"  # a helper that reaches this kernel again
            try:
                self.hash = _globals.context_digest(self._tilec_source())
            except BaseException:
                self.hash = None
                raise
        return self.hash

    def parse(self):
        """The kernel's source as a Python ``ast.Module`` holding its one function."""
        import ast
        tree = ast.parse(self.src)
        if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
            raise ValueError(f"{self.__name__}.src must be one function definition")
        return tree

    @property
    def type(self):
        """Triton's type of a @jit function used as a value: constexpr_type(self)."""
        return tl.constexpr_type(self)

    def get_capture_scope(self):
        """The names the function sees: its globals, updated with its closure's values."""
        fn = self.fn
        if fn.__closure__ is None:
            return self.__globals__
        nonlocals = {}
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                nonlocals[name] = cell.cell_contents
            except ValueError:
                pass
        return self.__globals__ | nonlocals

    def is_gluon(self):
        return False

    def repr(self, specialization):
        """The name Triton gives a compiled specialization: the ``repr=`` callback's
        answer, else the function's module-qualified name."""
        return self._fn_name if self._repr is None else self._repr(specialization)

    def create_binder(self):
        from .triton._refused import refusal_message
        raise NotImplementedError(refusal_message("triton.runtime.jit.JITFunction.create_binder"))

    def preload(self, specialization_data):
        """Compiles the specialization that Triton's ``specialization_data`` JSON describes
        (what ``knobs.runtime.jit_cache_hook`` receives: name, signature, constants,
        divisibility attributes, options, target), as a warmup does; returns the
        CompiledKernel. The data must name this function and the CPU target."""
        return _preload(self, specialization_data)

    @property
    def cache(self):
        """dict: specialization key -> CompiledKernel (this process's compiled kernels)."""
        return self._dispatcher.cache

    @property
    def device_caches(self):
        """Triton's per-device caches: ``device_caches[device][0]`` is the dict of compiled
        kernels (the same for every device: tilec's kernels run on the CPU), which
        ``.clear()`` empties so the next launch compiles again; the other entries (target,
        backend, binder) are None."""
        return _DeviceCaches(self)

    def __repr__(self):
        return f"JITFunction({self.module}:{self.__qualname__})"

    # ---- compiling (cache misses only) ----------------------------------------------

    def _tilec_source(self):
        """The source description the compiler gets: file, text, first line, module
        context (see tilec._globals)."""
        return _globals.module_context(self)

    def _signature_defines(self, key, extra):
        """[(name, value)] for every parameter from a specialization key; a constexpr
        argument with no text of its own (a @jit function, a builtin) becomes "@NAME", a
        global of the kernel's module context that ``extra`` ({NAME: value}) collects."""
        defines = []
        for p, item in zip(self.params, key[1:]):
            value = item
            while type(value).__name__ == "constexpr" and hasattr(value, "value"):
                value = value.value
            if (p.is_constexpr or not isinstance(item, (str, tuple))) and _globals.global_value_entry(value):
                name = "__tilec_arg_" + p.name
                extra[name] = value
                text = "@" + name
            elif not p.is_constexpr and isinstance(item, tuple):
                text = _tuple_entry_text(self.__name__, p.name, item, extra)
            elif p.is_constexpr or not isinstance(item, str):
                text = _globals.value_text(item)
                if text is None:
                    raise TypeError(f"{self.__name__}(): argument '{p.name}' = {item!r} cannot be a compile-time "
                                    "value (expected int, float, bool, str, None, a dtype or a tuple of those)")
            else:
                text = item
            defines.append((p.name, text))
        return defines

    def _triton_api(self):
        """Is this kernel written against `triton` (the drop-in)? Its module holds one of the
        drop-in's modules (`import triton`, `import triton.language as tl`). Its compile
        errors then read like Triton's (CompilationError.as_triton): its users compare them
        with Triton's and its tests parse them; a kernel written against `tilec` keeps the
        compiler's `file:line:col: error:` text."""
        for v in self.fn.__globals__.values():
            if isinstance(v, types.ModuleType) and (v.__name__ or "").startswith("tilec.triton"):
                return True
        return False

    def _compile(self, key, bound):
        bits = key[0]
        options = {k: v for k, v in bound.items() if k in LAUNCH_OPTIONS and k not in self.arg_names}
        nw = options.get("num_warps")
        if nw is not None:
            # Triton validates its launch options the same way (a GPU program is num_warps
            # warps; tilec runs it as one CPU thread, but the host code's mistake is the same)
            assert isinstance(nw, int) and nw > 0 and (nw & (nw - 1)) == 0, "num_warps must be a power of 2"
        debug = bool(bits & _OPT_DEBUG)
        debug_info = debug or _env_on("TILEC_DEBUG_INFO")
        compiler = _compiler(debug, debug_info, (bits >> _OPT_CHECKS_SHIFT) & _OPT_CHECKS_MASK)
        cache_hook, post_hook = _jit_hooks()
        hook_args = self._hook_args(key, options) if cache_hook or post_hook else None
        if cache_hook and cache_hook(**hook_args):
            return None  # the hook took the compile: nothing compiled, nothing launched (Triton)
        extra, watched = {}, {}
        defines = self._signature_defines(key, extra)
        spec = dict(_globals.module_context(self, extra, watched))
        spec["kernel"] = self.fn.__name__
        spec["defines"] = defines
        try:
            kernel, warning = compiler.compile(cls=CompiledKernel, **spec)
        except CompilationError as e:
            if not self._triton_api():
                raise
            t = e.as_triton()
            raise t from t.__cause__  # `from`: the callee's error stays the cause; e is not shown
        notes = compiler.notes
        if notes:  # tl.static_print, as Triton prints it while compiling (not when served from the cache)
            sys.stdout.write(notes)
        _front_end_warnings(compiler.warnings)
        if warning:
            warnings.warn(f"tilec: {warning}", RuntimeWarning, stacklevel=3)
        spec["_debug"] = debug
        if watched:  # Triton's check that the globals read have not changed, at each launch
            self.used_global_vals.update(watched)
            self._dispatcher.watch_globals(tuple((name, d, v) for (name, _), (v, d) in self.used_global_vals.items()))
        kernel._init(self, spec, compiler, options)
        if self._repr is not None:
            kernel._set_name(self._repr(self._specialization(key)))
        if post_hook:
            post_hook(**hook_args)
        return kernel

    def _hook_args(self, key, options):
        """The keyword arguments of Triton's knobs.runtime.jit_cache_hook and
        jit_post_compile_hook for a compile of ``key``; ``compile["specialization_data"]`` is
        the JSON ``preload`` takes."""
        import json
        import platform

        sp = self._specialization(key)
        constants, attrs = {}, {}

        def walk(path, item, ty):
            if isinstance(ty, tuple):
                for j, (x, t) in enumerate(zip(item, ty)):
                    walk(path + (j, ), x, t)
            elif ty == "constexpr":
                value = 1 if item == "1" else item
                while type(value).__name__ == "constexpr" and hasattr(value, "value"):
                    value = value.value
                constants[path] = value
            elif isinstance(item, str) and item.endswith(":16"):
                attrs[path] = [["tt.divisibility", 16]]

        for p, item in zip(self.params, key[1:]):
            walk((p.num, ), item, sp.signature[p.name])

        def encode(v):
            if isinstance(v, JITFunction):
                return {"jit_function": f"{v.module}:{v.__qualname__}"}
            if _is_dtype(v):
                return str(v)
            if isinstance(v, tuple):
                return [encode(x) for x in v]
            return v if v is None or isinstance(v, (bool, int, float, str)) else repr(v)

        opts = {"num_warps": options.get("num_warps", 4), "num_ctas": options.get("num_ctas", 1),
                "num_stages": options.get("num_stages", 3), "enable_fp_fusion": options.get("enable_fp_fusion", True),
                "launch_cooperative_grid": False, "extern_libs": None, "debug": bool(key[0] & _OPT_DEBUG)}
        target = {"backend": "cpu", "arch": platform.machine(), "warp_size": 1}
        data = json.dumps({"name": self._fn_name, "signature": sp.signature,
                           "constant_keys": [list(k) for k in constants], "constant_vals": [encode(v) for v in
                                                                                            constants.values()],
                           "attrs_keys": [list(k) for k in attrs], "attrs_vals": list(attrs.values()),
                           "options": opts, "key": repr(key), "target": target})
        arg_reprs = ", ".join(f"{p.name}: {ty}" for p, ty in zip(self.params, key[1:]))
        warmup = getattr(self, "_warmup", False)
        compile = {"key": key, "signature": sp.signature, "device": "cpu", "constants": constants,
                   "num_warps": opts["num_warps"], "num_ctas": opts["num_ctas"], "num_stages": opts["num_stages"],
                   "enable_fp_fusion": opts["enable_fp_fusion"], "launch_cooperative_grid": False,
                   "extern_libs": None, "configs": [attrs], "specialization_data": data, "is_warmup": warmup}
        return {"key": key, "repr": f"{self.__qualname__}[num_warps={opts['num_warps']}]({arg_reprs})",
                "fn": _JitFunctionInfo(sys.modules.get(self.module), self.__qualname__, self), "compile": compile,
                "is_manual_warmup": warmup, "already_compiled": False}

    def _specialization(self, key):
        """What Triton's ``@jit(repr=...)`` callback gets: the kernel's name, ``signature``
        (parameter -> "i32", "*fp32", ..., "constexpr") and ``constants``. An unannotated int
        argument equal to 1 (not in ``do_not_specialize``) is a constexpr there, as in Triton
        3.9 (its key item is the compiler's signature entry "1")."""
        signature, constants = {}, {}
        for p, item in zip(self.params, key[1:]):
            if not p.is_constexpr and isinstance(item, tuple):
                signature[p.name] = _tuple_signature(item)
            elif p.is_constexpr or not isinstance(item, str):
                signature[p.name] = "constexpr"
                constants[p.name] = item
            elif item == "1":
                signature[p.name] = "constexpr"
                constants[p.name] = 1
            else:
                signature[p.name] = item.split(":")[0]
        return types.SimpleNamespace(name=self.__name__, fn=self, signature=signature, constants=constants)


class _JitFunctionInfo(types.SimpleNamespace):
    """Triton's JitFunctionInfo: module, name, jit_function."""

    def __init__(self, module, name, jit_function):
        super().__init__(module=module, name=name, jit_function=jit_function)


def _jit_hooks():
    """(jit_cache_hook, jit_post_compile_hook) of the drop-in's knobs.runtime (None when the
    drop-in was never imported)."""
    knobs = sys.modules.get("tilec.triton.knobs")
    runtime = getattr(knobs, "runtime", None)
    return getattr(runtime, "jit_cache_hook", None), getattr(runtime, "jit_post_compile_hook", None)


class _DeviceCaches:
    """JITFunction.device_caches: any device -> (kernel cache, key cache, None, None, None)."""

    def __init__(self, fn):
        self._fn = fn

    def __getitem__(self, device):
        return (self._fn.cache, {}, None, None, None)

    def __contains__(self, device):
        return True

    def __repr__(self):
        return f"device_caches({self._fn!r})"


def _tuple_entry_text(kernel, name, item, extra, path=""):
    """The compiler's signature entry of a tuple argument from its key item (the dispatcher's
    specialization of each element): "(*fp32:16, i32, 1, None, (fp32,))", a runtime element
    as its type, a compile-time one as its value; a NamedTuple's elements as FIELD=ENTRY; a
    @jit function or builtin element as "@NAME", a global ``extra`` collects."""
    fields = getattr(item, "_fields", None)
    parts = []
    for j, x in enumerate(item):
        value = x
        while type(value).__name__ == "constexpr" and hasattr(value, "value"):
            value = value.value
        if isinstance(x, tuple):
            text = _tuple_entry_text(kernel, name, x, extra, f"{path}_{j}")
        elif isinstance(x, str):
            text = x
        elif _globals.global_value_entry(value):
            glob = f"__tilec_arg_{name}{path}_{j}"
            extra[glob] = value
            text = "@" + glob
        else:
            text = _globals.value_text(x)
            if text is None:
                raise TypeError(f"{kernel}(): element {j} of tuple argument '{name}' = {x!r} cannot be a compile-time "
                                "value (expected int, float, bool, None, tl.constexpr, a tensor or a tuple of those)")
        parts.append(f"{fields[j]}={text}" if fields else text)
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _tuple_signature(item):
    """Triton's signature of a tuple argument: the elements' types ("i32", "*fp32", ...),
    "constexpr" for compile-time ones, nested, as a tuple (a NamedTuple of its own type)."""
    tys = tuple(_tuple_signature(x) if isinstance(x, tuple) else
                x.split(":")[0] if isinstance(x, str) and x != "1" else "constexpr" for x in item)
    return type(item)(*tys) if hasattr(item, "_fields") else tys


class _PreloadPointer:
    """A stand-in pointer argument of a given dtype and address for preload."""

    def __init__(self, dtype, address):
        self.dtype = dtype
        self._address = address

    def data_ptr(self):
        return self._address


# A value of each scalar type, divisible by 16 or not (Triton's "tt.divisibility" 16)
_PRELOAD_INTS = {"i32": (16, 17), "i64": (1 << 40, (1 << 40) + 1), "u64": ((1 << 63) + 16, (1 << 63) + 17)}


def _preload(jitfn, data_text):
    import json
    import platform

    data = json.loads(data_text)
    if data.get("name") != jitfn._fn_name:
        raise RuntimeError(f"Specialization data is for {data.get('name')} but trying to preload for {jitfn._fn_name}")
    target = {"backend": "cpu", "arch": platform.machine(), "warp_size": 1}
    if data.get("target") != target:
        raise RuntimeError(f"Specialization data is for {data.get('target')} but trying to preload for {target}")
    constants = {tuple(k): v for k, v in zip(data.get("constant_keys", []), data.get("constant_vals", []))}
    attrs = {tuple(k): v for k, v in zip(data.get("attrs_keys", []), data.get("attrs_vals", []))}

    def decode(value):
        if isinstance(value, str) and tl.dtype.is_dtype(value):
            return tl.dtype(value)
        if isinstance(value, dict) and "constexpr" in value:
            value = value["constexpr"]
        return tuple(decode(v) for v in value) if isinstance(value, list) else value

    return compile_specialization(jitfn, data["signature"], constants, attrs, data.get("options", {}), decode,
                                  "preload")


def compile_specialization(jitfn, signature, constants, attrs, options, decode=lambda v: v, what="compile"):
    """Compiles ``jitfn`` for Triton's description of a specialization, without launching it:
    ``signature`` (parameter -> "*fp32", "i32", "constexpr", a list of those for a tuple),
    ``constants`` ((parameter index, element index...) -> value; ``decode`` maps each value
    first), ``attrs`` (path -> [["tt.divisibility", 16]]) and ``options`` (num_warps,
    num_stages, num_ctas, debug). What ``preload`` and ``triton.compile(ASTSource(...))`` do:
    each parameter gets a stand-in argument of its type (a pointer at address 0 or 4, an
    integer divisible by 16 or not) and the kernel is warmed up with them."""

    def stand_in(name, path, ty):
        # a value of the type the data gives (a tuple parameter: one per element, by path)
        if isinstance(ty, (list, tuple)):
            return tuple(stand_in(name, path + (j, ), t) for j, t in enumerate(ty))
        divisible = ["tt.divisibility", 16] in [list(a) for a in attrs.get(path, [])]
        if ty == "constexpr":
            if path not in constants:
                raise RuntimeError(f"{what}: the specialization has no value for constexpr parameter '{name}'")
            value = decode(constants[path])
            return tl.constexpr(value) if len(path) > 1 else value
        if not isinstance(ty, str):
            raise TypeError(f"{what}: the type of parameter '{name}' must be a str, got {ty!r}")
        if ty.startswith("*"):
            elem = tl.str_to_ty(ty.lstrip("*k"), None)
            return _PreloadPointer(elem, 0 if divisible else 4)
        if ty in _PRELOAD_INTS:
            return _PRELOAD_INTS[ty][0 if divisible else 1]
        if ty in ("i1", "u1"):
            return True
        if ty == "fp32":
            return 0.5
        raise RuntimeError(f"{what}: parameter '{name}' of type {ty} cannot be compiled by tilec's drop-in "
                           "(pointers, i1, i32, i64, u64, fp32 and constexpr parameters can)")

    args = []
    for p in jitfn.params:
        ty = signature.get(p.name)
        if ty is None and (p.num, ) in constants:
            ty = "constexpr"
        if ty is None:
            raise RuntimeError(f"{what}: the specialization has no type for parameter '{p.name}'")
        args.append(stand_in(p.name, (p.num, ), ty))
    options = {k: v for k, v in (options or {}).items() if k in ("num_warps", "num_stages", "num_ctas", "debug")}
    return jitfn.run(*args, grid=(1, ), warmup=True, **options)


def _scalar_annotation(p):
    """The tilec signature type a scalar annotation forces, or None."""
    t = p.annotation_type
    if not t:
        return None
    return "i1" if t == "u1" else t


def _env_on(name):
    v = os.environ.get(name, "")
    return bool(v) and v != "0"


def jit(fn=None, *, version=None, debug=None, do_not_specialize=None, do_not_specialize_on_alignment=None,
        noinline=None, repr=None, launch_metadata=None, **ignored):
    """Decorator: ``@tilec.jit`` or ``@tilec.jit(debug=True, do_not_specialize=["n"])``.

    Returns a :class:`JITFunction`. ``debug=True`` (or ``TRITON_DEBUG=1``, or ``debug=`` at a
    launch) turns ``tl.device_assert`` on, as in Triton (otherwise asserts compile to
    nothing), and compiles with debug info; ``do_not_specialize`` and
    ``do_not_specialize_on_alignment`` name parameters (or give their indices) that are
    not specialized on value (``== 1``, divisibility by 16) or on pointer alignment.
    """

    def decorator(f):
        return JITFunction(f, debug=debug, do_not_specialize=do_not_specialize,
                           do_not_specialize_on_alignment=do_not_specialize_on_alignment, noinline=noinline, repr=repr)

    if fn is not None:
        return decorator(fn)
    return decorator
