"""Facts about the host CPU that Triton host code asks the "device" for.

In:  sysfs / /proc/cpuinfo, a kernel's target string ("x86_64-pc-linux-gnu znver4 512-bit").
Out: core count, cache sizes per level, vector registers per core. Used by
CompiledKernel (n_regs, metadata.shared) and by the drop-in's
`triton.runtime.driver.active.utils.get_device_properties`.
"""

import functools
import os
import platform


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


@functools.lru_cache(maxsize=None)
def cache_sizes():
    """{level: bytes} of cpu0's data/unified caches (empty when sysfs does not say)."""
    sizes = {}
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        entries = sorted(os.listdir(base))
    except OSError:
        return sizes
    for entry in entries:
        if not entry.startswith("index"):
            continue
        kind = _read(os.path.join(base, entry, "type"))
        text = _read(os.path.join(base, entry, "size"))
        level = _read(os.path.join(base, entry, "level"))
        if kind is None or kind == "Instruction" or not text or not level or not level.isdigit():
            continue
        scale = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(text[-1:].upper(), 1)
        digits = text.rstrip("KMGkmg")
        if digits.isdigit():
            sizes[int(level)] = int(digits) * scale
    return sizes


def l2_bytes():
    """The cache one core has to itself (L2; L1 when there is none; 1 MiB if unknown)."""
    sizes = cache_sizes()
    return sizes.get(2) or sizes.get(1) or 1024 * 1024


def num_cores():
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def clock_khz():
    text = _read("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
    if text and text.isdigit():
        return int(text)
    info = _read("/proc/cpuinfo") or ""
    for line in info.splitlines():
        if line.lower().startswith("cpu mhz"):
            try:
                return int(float(line.split(":")[1]) * 1000)
            except (ValueError, IndexError):
                break
    return 0


def vector_registers(target=None):
    """Vector registers of a core for a kernel target string (or the host): 32 on x86-64
    with 512-bit vectors (AVX-512) and on AArch64, 16 on other x86-64."""
    text = target or ""
    if text.startswith("aarch64") or (not text and platform.machine().lower() in ("aarch64", "arm64")):
        return 32
    if text:
        return 32 if "512-bit" in text else 16
    flags = next((line for line in (_read("/proc/cpuinfo") or "").splitlines() if line.startswith("flags")), "")
    return 32 if " avx512f" in flags else 16


@functools.lru_cache(maxsize=None)
def features():
    """The host's CPU feature flags (/proc/cpuinfo "flags" or "Features")."""
    for line in (_read("/proc/cpuinfo") or "").splitlines():
        key = line.split(":", 1)[0].strip()
        if key in ("flags", "Features"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def vector_bits():
    """The width of the vectors tilec compiles for on the host: 512 (AVX-512), 256 (AVX2),
    128 (SSE, NEON)."""
    f = features()
    if "avx512f" in f:
        return 512
    return 256 if "avx2" in f else 128
