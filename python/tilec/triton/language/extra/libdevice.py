"""triton.language.extra.libdevice for the drop-in: tilec.language.extra.libdevice."""

from ..._reexport import load as _load, reexport as _reexport

_reexport(globals(), _load("tilec.language.extra.libdevice"), "triton.language.extra.libdevice")
