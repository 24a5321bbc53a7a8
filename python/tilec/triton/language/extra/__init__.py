"""triton.language.extra for the drop-in: libdevice, and the per-backend packages
(cuda, cpu, hip) whose `libdevice` is the same set of functions."""

from ..._reexport import load as _load, reexport as _reexport

_reexport(globals(), _load("tilec.language.extra"), "triton.language.extra")

import importlib as _importlib  # noqa: E402

for _name in ("cpu", "cuda", "hip", "libdevice"):
    globals()[_name] = _importlib.import_module(f"{__name__}.{_name}")
del _name
