"""The Triton drop-in's import hook: makes `import triton` (and every `triton.*`
submodule) resolve to tilec's implementation in `tilec.triton`.

In:  install_triton() (called by the `tilec_triton.pth` file when TILEC_TRITON=1, by
     `python -m tilec run`, or by the user before the first `import triton`).
Out: a meta-path finder at the front of sys.meta_path; `sys.modules["triton.X"]` is the
     very module object `tilec.triton.X`, so both names share classes and state; and the
     path-based finders (sys.path_importer_cache, sys.path_hooks) stop seeing any
     `triton` on disk, so an import hook that sits before ours and locates modules through
     PathFinder (pytest's assertion rewriter with `python_files = *.py`, say) finds nothing
     and the import falls through to our finder instead of loading the real triton.

This module imports nothing heavy at load time (not even importlib.abc): the .pth file
loads it at interpreter start without importing the tilec package, and `tilec.triton`
(hence tilec, its C extension and numpy) is imported only when the program imports
`triton`. The finder and loader follow the import protocols without the ABCs.
"""

import importlib
import importlib.machinery
import sys

_ALIAS = "triton"
_TARGET = "tilec.triton"


def _is_alias(fullname):
    return fullname == _ALIAS or fullname.startswith(_ALIAS + ".")


class _AliasLoader:
    """Hands out the already imported `tilec.triton.X` module as `triton.X`."""

    def __init__(self, module):
        self._module = module
        self._spec = module.__spec__

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        # importlib set __spec__ to the alias's spec before calling us; give the
        # module its own back so reloads and introspection see the real file.
        module.__spec__ = self._spec


class TritonAliasFinder:
    """Maps `triton` and `triton.*` to `tilec.triton` and `tilec.triton.*`."""

    tilec_triton_alias = True  # marker: recognised even across copies of this module

    def find_spec(self, fullname, path=None, target=None):
        if not _is_alias(fullname):
            return None
        real_name = _TARGET + fullname[len(_ALIAS):]
        try:
            module = importlib.import_module(real_name)
        except ModuleNotFoundError as e:
            if e.name is not None and (e.name == real_name or real_name.startswith(e.name + ".")):
                # A part of Triton the drop-in does not provide: say so instead of
                # falling through to the real triton package (mixing both breaks).
                raise ModuleNotFoundError(
                    f"No module named '{fullname}': tilec's Triton drop-in (TILEC_TRITON=1) "
                    f"does not provide it", name=fullname) from None
            raise
        _register_loaded_aliases(skip=fullname)
        is_pkg = hasattr(module, "__path__")
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=is_pkg)


def _register_loaded_aliases(skip):
    """Enter every imported `tilec.triton.X` as `triton.X` in sys.modules.

    Importing `tilec.triton` imports many of its submodules; had they no `triton.X` entry,
    a later `import triton.X` would load the alias afresh and importlib would then set
    attribute X of the parent to the module, clobbering what the parent bound to that
    name (`triton.runtime.driver` is the DriverConfig object, not the driver module).
    """
    for name, module in list(sys.modules.items()):
        if name == _TARGET or name.startswith(_TARGET + "."):
            alias = _ALIAS + name[len(_TARGET):]
            if alias != skip and module is not None:
                sys.modules.setdefault(alias, module)


# ---- hiding the real triton from path-based finders -------------------------------------
# A meta-path finder placed first can be overtaken: pytest inserts its assertion-rewriting
# hook at sys.meta_path[0] after start-up, and with a broad `python_files` that hook claims
# every module PathFinder can find a source file for -- the real triton in site-packages
# included. Rather than fight for the first slot, the drop-in makes the file system answer
# "no such module" for `triton` and `triton.*` while it is installed: each path entry
# finder (FileFinder, zipimporter, ...) gets an instance-level find_spec that returns None
# for those names, and new path entries get the same through a wrapped path hook. Hooks
# that ask PathFinder then find nothing, and the import reaches TritonAliasFinder.
# (tilec's own `tilec.triton.*` modules are found as usual: their names start with tilec.)

def _hiding_find_spec(original):
    def find_spec(fullname, target=None):
        if _is_alias(fullname):
            return None
        return original(fullname, target)
    find_spec.tilec_triton_hidden = original
    return find_spec


def _hide_in(finder):
    """Give one path entry finder the hiding find_spec (idempotent)."""
    current = getattr(finder, "find_spec", None)
    if current is None or getattr(current, "tilec_triton_hidden", None) is not None:
        return
    try:
        finder.find_spec = _hiding_find_spec(current)
    except (AttributeError, TypeError):  # a finder type without an instance dict: left as is
        pass


def _unhide_in(finder):
    if getattr(getattr(finder, "find_spec", None), "tilec_triton_hidden", None) is not None:
        try:
            del finder.find_spec
        except AttributeError:
            pass


def _hiding_path_hook(hook):
    def path_hook(entry):
        finder = hook(entry)
        _hide_in(finder)
        return finder
    path_hook.tilec_triton_hook = hook
    return path_hook


def _hide_real_triton():
    sys.path_hooks[:] = [h if getattr(h, "tilec_triton_hook", None) is not None else _hiding_path_hook(h)
                         for h in sys.path_hooks]
    for finder in list(sys.path_importer_cache.values()):
        if finder is not None:
            _hide_in(finder)


def _unhide_real_triton():
    sys.path_hooks[:] = [getattr(h, "tilec_triton_hook", None) or h for h in sys.path_hooks]
    for finder in list(sys.path_importer_cache.values()):
        if finder is not None:
            _unhide_in(finder)


def _installed_finder():
    for finder in sys.meta_path:
        if getattr(finder, "tilec_triton_alias", False):
            return finder
    return None


def _real_triton_modules():
    """Names in sys.modules that belong to a triton that is not tilec's."""
    names = []
    for name, module in list(sys.modules.items()):
        if not _is_alias(name) or module is None:
            continue
        if not getattr(module, "__name__", "").startswith(_TARGET):
            names.append(name)
    return names


def is_triton_installed():
    """True when `import triton` resolves to tilec's drop-in."""
    return _installed_finder() is not None


def install_triton(force=False):
    """Make `import triton` and all `triton.*` submodules resolve to tilec.

    Call it before the first `import triton` of the process (TILEC_TRITON=1 and
    `python -m tilec run SCRIPT.py` do this at start-up). Calling it again is a no-op.

    If the real triton package was already imported, objects made from it (e.g.
    `@triton.jit` functions) would keep using it, so this raises RuntimeError unless
    `force=True`, which removes the real triton's modules from sys.modules so that the
    next `import triton` yields tilec's (earlier references still point to the real one).
    """
    real = _real_triton_modules()
    if real:
        if not force:
            where = getattr(sys.modules.get(_ALIAS), "__file__", None) or real[0]
            raise RuntimeError(
                "tilec.install_triton() must run before the first `import triton`: the real "
                f"triton package ({where}) is already imported. Call install_triton() first, "
                "set TILEC_TRITON=1, run the program with `python -m tilec run SCRIPT.py`, or "
                "pass force=True to drop the real triton from sys.modules.")
        for name in real:
            del sys.modules[name]
    if _installed_finder() is None:
        sys.meta_path.insert(0, TritonAliasFinder())
    _hide_real_triton()


def uninstall_triton():
    """Remove the import hook and tilec's `triton` entries from sys.modules."""
    finder = _installed_finder()
    while finder is not None:
        sys.meta_path.remove(finder)
        finder = _installed_finder()
    _unhide_real_triton()
    for name in list(sys.modules):
        if _is_alias(name):
            del sys.modules[name]


def _env_enabled(value):
    return value.strip().lower() not in ("", "0", "false", "no", "off")


def install_from_env():
    """Called by tilec_triton.pth at interpreter start: install when TILEC_TRITON is set."""
    import os
    if _env_enabled(os.environ.get("TILEC_TRITON", "")):
        install_triton()
