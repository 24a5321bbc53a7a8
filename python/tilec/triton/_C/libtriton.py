"""``triton._C.libtriton``: ``llvm.get_cpu_features()`` (also ``cpu.llvm``) as triton-cpu's
extension has it (test files size their expectations from the host's vector features),
and ``get_cache_invalidating_env_vars()``."""

import os
import platform
import types

__tilec_path__ = "triton._C.libtriton"


def _cpu_features():
    """The host CPU's feature names ("avx512f", "fma", "neon", ...)."""
    feats = set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key = line.split(":", 1)[0].strip()
                if key in ("flags", "Features"):
                    feats.update(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    if platform.machine() in ("aarch64", "arm64"):
        feats.add("neon")  # Advanced SIMD is part of every AArch64 CPU ("asimd" in cpuinfo)
    return feats


llvm = types.SimpleNamespace(get_cpu_features=_cpu_features)
cpu = types.SimpleNamespace(llvm=llvm)

# The environment variables that change what tilec compiles or checks (Triton lists its own
# compiler's): the debug flag, the run-time checks, debug info, non-constexpr globals, tl.dot's
# default input_precision.
_CACHE_INVALIDATING = ("TRITON_DEBUG", "TRITON_ALLOW_NON_CONSTEXPR_GLOBALS", "TILEC_CHECK", "TILEC_CHECK_BOUNDS",
                       "TILEC_CHECK_RACES", "TILEC_CHECK_NAN", "TILEC_DEBUG_INFO", "TRITON_F32_DEFAULT")


def get_cache_invalidating_env_vars():
    """{name: value} of the set environment variables that change compiled kernels."""
    return {k: os.environ[k] for k in _CACHE_INVALIDATING if k in os.environ}
