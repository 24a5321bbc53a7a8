"""triton.language.standard for the drop-in: tilec.language.standard (or, where tilec keeps these
names in tilec.language itself, that module) under Triton's name."""

from .._reexport import load as _load, reexport as _reexport

_reexport(globals(), _load("tilec.language.standard") or _load("tilec.language"), "triton.language")
