"""triton.language for the drop-in: tilec.language under Triton's name, plus the
submodules Triton programs import (core, math, standard, random, target_info, extra.libdevice,
extra.cuda.libdevice, extra.cpu.libdevice, extra.hip.libdevice)."""

from .._reexport import load as _load, reexport as _reexport

_reexport(globals(), _load("tilec.language"), "triton.language")

import importlib as _importlib  # noqa: E402

# Bound explicitly: `from . import core` would keep tilec's own submodule object, which the
# copy above already put in this namespace.
for _name in ("core", "extra", "math", "random", "standard", "target_info"):
    globals()[_name] = _importlib.import_module(f"{__name__}.{_name}")
del _name
