"""triton.language.random for the drop-in: tilec.language.random (or, where tilec keeps these
names in tilec.language itself, that module) under Triton's name."""

from .._reexport import load as _load, reexport as _reexport

_reexport(globals(), _load("tilec.language.random") or _load("tilec.language"), "triton.language")
