"""Builds the drop-in's `triton.language...` modules as views of tilec.language's.

In:  the namespace of a drop-in module, the tilec module it mirrors, the canonical
Triton path. Out: every public object of the tilec module bound in the drop-in module
(the same objects, so dtypes and functions compare and hash equal), `__tilec_path__`
set to the Triton path the compiler knows the module by, and attribute lookups that
miss forwarded to the tilec module.
"""

import importlib


def load(name):
    """The tilec module `name`, or None when tilec does not have it."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name == name:
            return None
        raise


def reexport(namespace, source, tilec_path):
    if source is not None:
        for key, value in vars(source).items():
            if key.startswith("__") and key.endswith("__") and key not in ("__all__",):
                continue
            namespace.setdefault(key, value)
    namespace["__tilec_path__"] = tilec_path
    module_name = namespace["__name__"]

    def __getattr__(attr):
        if source is not None and not attr.startswith("__"):
            try:
                return getattr(source, attr)
            except AttributeError:
                pass
        raise AttributeError(f"module '{tilec_path}' has no attribute '{attr}' (tilec's Triton drop-in, "
                             f"{module_name})")

    namespace["__getattr__"] = __getattr__
