"""``triton._C.libtriton``: ``cpu.llvm.get_cpu_features()`` as triton-cpu's extension has it
(test files size their expectations from the host's vector features)."""

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


cpu = types.SimpleNamespace(llvm=types.SimpleNamespace(get_cpu_features=_cpu_features))
