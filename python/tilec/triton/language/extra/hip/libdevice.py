"""triton.language.extra.hip.libdevice for the drop-in. Triton programs import libdevice
from here; the functions are tilec's libdevice (SLEEF/inline code on the CPU), and the
compiler knows them by the canonical path triton.language.extra.libdevice."""

from ...._reexport import load as _load, reexport as _reexport

_reexport(globals(), _load("tilec.language.extra.libdevice"), "triton.language.extra.libdevice")
