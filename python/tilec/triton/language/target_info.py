"""triton.language.target_info for the drop-in: tilec.language.target_info under Triton's
name (the CPU target; every GPU predicate False)."""

from .._reexport import load as _load, reexport as _reexport

_reexport(globals(), _load("tilec.language.target_info"), "triton.language.target_info")
