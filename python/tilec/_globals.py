"""The module around a kernel: what the compiler needs to resolve a kernel's free names.

Triton resolves the names a kernel uses through its Python function's ``__globals__``.
tilec's compiler never runs Python, so this module reads them here and hands the compiler
(include/tilec/tilec.h, ``tilec_global``) one entry per global name the function uses
(``fn.__code__.co_names``): constexpr globals and dtypes as CONSTEXPR / OBJECT, modules
(``tl``, ``libdevice``, ``triton.language.math``) as MODULE, kernel-language objects
imported by name as OBJECT, ``@jit`` helpers as FUNCTION entries pointing at a source
module of their own (their source and their own globals, recursively: helpers imported
from other files keep their file and line numbers), everything else as PLAIN.

In: a JITFunction. Out: the keyword arguments of ``_C.Compiler.compile`` that describe
the source (``filename``, ``source``, ``source_kind``, ``first_line``, ``globals``,
``modules``).
"""

import ast
import builtins
import copy
import dis
import inspect
import math as _math
import textwrap
import types

__all__ = ["function_source", "module_context", "value_text"]

(GLOBAL_CONSTEXPR, GLOBAL_MODULE, GLOBAL_OBJECT, GLOBAL_FUNCTION, GLOBAL_PLAIN,
 GLOBAL_SOURCE_MODULE, GLOBAL_NAMEDTUPLE) = range(7)
SOURCE_FILE, SOURCE_FUNCTIONS = 0, 1

_LIBDEVICE_ALIASES = (
    "triton.language.extra.cuda.libdevice",
    "triton.language.extra.cpu.libdevice",
    "triton.language.extra.hip.libdevice",
    "triton.language.extra.intel.libdevice",
)


def canonical_path(path):
    """Triton's dotted path with the backend-specific libdevice modules folded into one."""
    for alias in _LIBDEVICE_ALIASES:
        if path == alias or path.startswith(alias + "."):
            return "triton.language.extra.libdevice" + path[len(alias):]
    if path.startswith("triton.language.core."):
        return "triton.language." + path[len("triton.language.core."):]
    if path.startswith("triton.language.standard."):
        return "triton.language." + path[len("triton.language.standard."):]
    return path


def _dtype_attr(obj):
    """tl attribute name ("float16") of a dtype object (tilec's, real Triton's, torch's,
    numpy's), or None."""
    from . import language as tl
    from . import _C

    if isinstance(obj, tl.dtype) and not isinstance(obj, tl.pointer_type):
        return obj._attr
    sig = _C.dtype_name(obj) if type(obj).__name__ in ("dtype", "DType") else None
    if sig:
        d = tl._dtype_from_sig(sig)
        return d._attr if d is not None else None
    return None


def value_text(value):
    """A compile-time value in the compiler's define syntax ("3", "1e-06", "True", "None",
    "tl.float16", "(2, 3)", "'str'"), or None when it has none."""
    from . import language as tl

    while isinstance(value, tl.constexpr) or type(value).__name__ == "constexpr" and hasattr(value, "value"):
        value = value.value
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return "'" + value + "'"
    if isinstance(value, tuple):
        items = [value_text(v) for v in value]
        if any(i is None for i in items):
            return None
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    attr = _dtype_attr(value)
    if attr is not None:
        return "tl." + attr
    if isinstance(value, tl.pointer_type) and not value.const:  # a dtype too: Triton lets kernels read one
        inner = value_text(value.element_ty)
        return f"tl.pointer_type({inner})" if inner is not None else None
    return None


# filename -> [(first_line, last_line, indent)]: the columns the compiler reports for a
# dedented function (a kernel defined inside a function or class) are shifted back by
# `indent` when errors are raised (tilec.errors).
_DEDENTED = {}


def function_source(fn):
    """(filename, source, first_line): the function's definition dedented, decorators
    removed, and the line of its file where that text starts."""
    fn = inspect.unwrap(fn)
    filename = fn.__code__.co_filename
    try:
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        from .errors import TilecError
        raise TilecError(f"cannot read the source of @jit function {fn.__qualname__} ({filename}): {e}; tilec "
                         "compiles kernels from their source, so define them in a file") from None
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    tree = ast.parse(text)
    node = tree.body[0]
    # decorators (possibly several lines each) come before the def line
    def_line = node.lineno - 1
    kept = text.splitlines(keepends=True)[def_line:]
    if indent:
        span = (start + def_line, start + len(lines) - 1, indent)
        ranges = _DEDENTED.setdefault(filename, [])
        if span not in ranges:
            ranges.append(span)
    return filename, "".join(kept), start + def_line


def source_column(filename, lineno, col):
    """The column in the file of a column the compiler reported for a dedented function."""
    for first, last, indent in _DEDENTED.get(filename, ()):
        if first <= lineno <= last and col > 0:
            return col + indent
    return col


def _path_of(value):
    """The canonical Triton path of a kernel-language object or module, or None."""
    p = getattr(value, "__tilec_path__", None)
    if isinstance(p, str):
        return canonical_path(p)
    if isinstance(value, types.ModuleType):
        name = value.__name__
        if name == "triton" or name.startswith("triton."):
            return canonical_path(name)
        return None
    mod = getattr(value, "__module__", None)
    name = getattr(value, "__name__", None)
    if isinstance(mod, str) and (mod == "triton" or mod.startswith("triton.")) and isinstance(name, str):
        return canonical_path(f"{mod}.{name}")
    return None


def _is_jit(value):
    from .jit import JITFunction

    return isinstance(value, JITFunction)


class _Builder:
    """Collects the source modules of a kernel's @jit helpers and of the user modules it
    reaches through an alias (deduplicated)."""

    def __init__(self):
        self.modules = []  # (filename, source, kind, first_line, globals)
        self.index = {}    # id(JITFunction.fn) or id(module) -> module index
        # Triton's used_global_vals: (name, id(dict)) -> (snapshot, dict) of the value globals
        # (constexprs, dtypes, numbers) the kernel and its helpers read
        self.watched = {}

    def python_module(self, mod):
        """A user module (``import helpers as h`` ... ``h.fn(x)``): its file is a source
        module, with the names its @jit functions may use as globals."""
        key = id(mod)
        if key in self.index:
            return self.index[key]
        idx = len(self.modules)
        self.index[key] = idx
        self.modules.append(None)
        entries = []
        for name, value in list(vars(mod).items()):
            if name.startswith("__"):
                continue
            if _is_jit(value) and getattr(value.fn, "__module__", None) == mod.__name__ \
                    and inspect.unwrap(value.fn).__code__.co_filename == mod.__file__:
                continue  # defined in the file itself: the compiler reads it there
            entry = self.entry(name, value)
            if entry is not None and entry[1] != GLOBAL_PLAIN:
                entries.append(entry)
        self.modules[idx] = (mod.__file__, None, SOURCE_FILE, 0, entries)
        return idx

    def helper_module(self, jitfn):
        key = id(jitfn.fn)
        if key in self.index:
            return self.index[key]
        idx = len(self.modules)
        self.index[key] = idx
        self.modules.append(None)  # reserve: helpers may recurse
        filename, source, first_line = function_source(jitfn.fn)
        patched = _patched_source(jitfn)
        entries = self.globals_of(jitfn.fn, _loaded_names(patched) if patched is not None else ())
        source = patched if patched is not None else source
        self.modules[idx] = (filename, source, SOURCE_FUNCTIONS, first_line, entries)
        return idx

    def constexpr_function_module(self, fn):
        """A compile-time Python function (``@triton.constexpr_function``, ``@tl.constexpr``):
        its source under a decorator line the compiler recognizes, which takes the place of
        the line before the def, so the def keeps its line number."""
        key = id(fn)
        if key in self.index:
            return self.index[key]
        idx = len(self.modules)
        self.index[key] = idx
        self.modules.append(None)
        filename, source, first_line = function_source(fn)
        entries = self.globals_of(fn)
        self.modules[idx] = (filename, "@triton.constexpr_function\n" + source, SOURCE_FUNCTIONS,
                             max(first_line - 1, 1), entries)
        return idx

    def globals_of(self, fn, extra_names=()):
        fn = inspect.unwrap(fn)
        g = fn.__globals__
        closure = {}
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    closure[name] = cell.cell_contents
                except ValueError:
                    pass
        names = list(fn.__code__.co_names) + list(fn.__code__.co_freevars) + list(extra_names)
        read = _global_reads(fn.__code__) if not extra_names else _source_global_reads(extra_names)
        entries = []
        seen = set()
        for name in names:
            if name in seen:
                continue
            seen.add(name)
            if name in closure:
                value, var_dict = closure[name], closure
            elif name in g:
                value, var_dict = g[name], g
            else:
                continue  # an attribute name, a builtin, or undefined: the compiler decides
            entry = self.entry(name, value)
            if entry is not None:
                entries.append(entry)
                if name in read:
                    self.watch(name, value, var_dict, entry[1])
        return entries

    def watch(self, name, value, var_dict, kind):
        """Records a value global the kernel reads (not a function, module or class), which
        a launch checks has not changed since (python/src/dispatch.c, check_watched)."""
        if kind not in (GLOBAL_CONSTEXPR, GLOBAL_OBJECT, GLOBAL_PLAIN) or value is None or value_text(value) is None:
            return  # only what a kernel can take as a value (numbers, strings, dtypes, tuples; constexprs of them)
        try:
            snapshot = copy.deepcopy(value)
        except Exception:  # noqa: BLE001 - a value that cannot be copied is not watched
            return
        self.watched[(name, id(var_dict))] = (snapshot, var_dict)

    def entry(self, name, value):
        from . import language as tl

        if _is_jit(value):
            return (name, GLOBAL_FUNCTION, value.fn.__name__, self.helper_module(value))
        pyfn = _constexpr_function_of(value)
        if pyfn is not None:
            return (name, GLOBAL_FUNCTION, pyfn.__name__, self.constexpr_function_module(pyfn))
        if value is _math:  # Python's math: its constants and functions on constexprs
            return (name, GLOBAL_MODULE, "math", 0)
        if isinstance(value, tl.constexpr) or (type(value).__name__ == "constexpr" and hasattr(value, "value")):
            text = value_text(value)
            return (name, GLOBAL_CONSTEXPR, text, 0) if text is not None else (name, GLOBAL_PLAIN, None, 0)
        path = _path_of(value)
        if path is not None:
            kind = GLOBAL_MODULE if isinstance(value, types.ModuleType) or path in _MODULE_PATHS else GLOBAL_OBJECT
            return (name, kind, path, 0)
        if _dtype_attr(value) is not None:
            return (name, GLOBAL_OBJECT, "triton.language." + _dtype_attr(value), 0)
        if isinstance(value, tl.pointer_type) and value_text(value) is not None:
            return (name, GLOBAL_CONSTEXPR, value_text(value), 0)
        fields = _namedtuple_fields(value)
        if fields is not None:
            return (name, GLOBAL_NAMEDTUPLE, fields, 0)
        if isinstance(value, types.ModuleType):
            if _has_kernel_names(value):
                return (name, GLOBAL_SOURCE_MODULE, None, self.python_module(value))
            return (name, GLOBAL_PLAIN, None, 0)
        if value is getattr(builtins, name, object()):
            return None
        return (name, GLOBAL_PLAIN, value_text(value), 0)


def _global_reads(code):
    """The names a function's code reads as globals or closure variables (not attribute
    names, which co_names also holds), its nested code objects included."""
    names = set()
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF") and isinstance(ins.argval, str):
            names.add(ins.argval)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _global_reads(c)
    return names


def _namedtuple_fields(value):
    """A NamedTuple class's fields as the compiler takes them ("ptr, shape, stride=(1, 1)"; a
    default with no compile-time text is left out, so a call must give that field), or None."""
    if not (isinstance(value, type) and issubclass(value, tuple) and isinstance(getattr(value, "_fields", None), tuple)):
        return None
    defaults = getattr(value, "_field_defaults", {}) or {}
    parts = []
    for f in value._fields:
        text = value_text(defaults[f]) if f in defaults else None
        parts.append(f if text is None else f"{f}={text}")
    return ", ".join(parts)


def _constexpr_function_of(value):
    """The Python function of a compile-time function a kernel may call: Triton's
    ``@constexpr_function`` (the drop-in's wrapper or Triton's ConstexprFunction) or a
    function wrapped in ``tl.constexpr``; None for anything else."""
    if getattr(value, "__triton_constexpr_function__", False):
        fn = inspect.unwrap(value)
    elif type(value).__name__ == "ConstexprFunction" and hasattr(value, "fn"):
        fn = value.fn
    elif type(value).__name__ == "constexpr" and isinstance(getattr(value, "value", None), types.FunctionType):
        fn = value.value
    else:
        return None
    return fn if isinstance(fn, types.FunctionType) and getattr(fn, "__tilec_path__", None) is None else None


def _has_kernel_names(mod):
    """A Python source module defining @jit functions or constexpr globals."""
    from . import language as tl

    f = getattr(mod, "__file__", None)
    if not isinstance(f, str) or not f.endswith(".py"):
        return False
    return any(_is_jit(v) or isinstance(v, tl.constexpr) for v in vars(mod).values())


_MODULE_PATHS = {
    "triton", "triton.language", "triton.language.math", "triton.language.extra",
    "triton.language.extra.libdevice",
}


def _patched_source(jitfn):
    """The text assigned to ``jitfn.src`` (None when it was not patched)."""
    return jitfn._src if getattr(jitfn, "_src_patched", False) else None


def _loaded_names(source):
    """Names a (patched) function text reads: a replacement may use globals the original
    function's code object never named. A tuple whose `stored` attribute holds the names it
    binds (assignments, parameters, loop targets)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return _Names()  # the compiler reports it, located
    names = _Names(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    names.stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    names.stored |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
                     for a in n.args + n.posonlyargs + n.kwonlyargs}
    return names


class _Names(list):
    stored = frozenset()


def _source_global_reads(names):
    """The globals a (patched) function text reads: names it loads and never binds."""
    return set(names) - set(getattr(names, "stored", ()))


def context_digest(context):
    """A sha256 hex digest of a module context (module_context's result): the kernel's
    file, text and first line, its globals, and each source module's text (read from its
    file when the context names only the file)."""
    import hashlib

    h = hashlib.sha256()

    def feed(*parts):
        for part in parts:
            h.update(repr(part).encode())
            h.update(b"\0")

    feed(context["filename"], context["source"], context["first_line"], context["globals"])
    for filename, source, kind, first_line, entries in context["modules"]:
        if source is None:
            try:
                with open(filename, "rb") as f:
                    source = f.read()
            except OSError:
                source = None
        feed(filename, source, kind, first_line, entries)
    return h.hexdigest()


def global_value_entry(value):
    """Whether a compile-time argument with no text of its own (a @jit function, a
    ``@constexpr_function``, a language builtin such as ``tl.extra.cuda.globaltimer``) can
    reach the kernel as a global of its module context (``module_context(extra=...)``)."""
    return _is_jit(value) or _constexpr_function_of(value) is not None or (
        isinstance(value, types.FunctionType) and _path_of(value) is not None)


def module_context(jitfn, extra=None, watched=None):
    """Keyword arguments for ``_C.Compiler.compile`` describing where ``jitfn`` comes from;
    ``extra``: {name: value} globals added to the kernel's (arguments passed as "@name");
    ``watched``: a dict that receives Triton's used_global_vals of the kernel."""
    filename, source, first_line = function_source(jitfn.fn)
    patched = _patched_source(jitfn)
    b = _Builder()
    if watched is not None:
        b.watched = watched
    entries = b.globals_of(jitfn.fn, _loaded_names(patched) if patched is not None else ())
    for name, value in (extra or {}).items():
        entry = b.entry(name, value)
        if entry is not None:
            entries.append(entry)
    source = patched if patched is not None else source
    return {
        "filename": filename,
        "source": source,
        "source_kind": SOURCE_FUNCTIONS,
        "first_line": first_line,
        "globals": entries,
        "modules": b.modules,
    }
