"""triton.runtime.driver for the drop-in: `driver.active` is the CPU.

In:  host code asking Triton's driver about the device. Out: answers for this machine:
`get_active_torch_device()` -> torch.device("cpu"), `get_current_target()` ->
GPUTarget("cpu", <machine, e.g. x86_64>, 1), `utils.get_device_properties(dev)` with the
CPU's numbers (cores, cache sizes), a device interface whose events are wall-clock
timers (kernel launches on the CPU are synchronous), and the benchmarking hooks
triton.testing.do_bench uses.
"""

import functools
import os
import platform
import time

from ..backends.compiler import GPUTarget


def _read_int(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


@functools.lru_cache(maxsize=None)
def _cache_sizes():
    """{level: bytes} of cpu0's data/unified caches from sysfs (empty if unknown)."""
    sizes = {}
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        entries = sorted(os.listdir(base))
    except OSError:
        return sizes
    for entry in entries:
        if not entry.startswith("index"):
            continue
        d = os.path.join(base, entry)
        try:
            with open(os.path.join(d, "type")) as f:
                kind = f.read().strip()
            with open(os.path.join(d, "size")) as f:
                text = f.read().strip()
        except OSError:
            continue
        if kind == "Instruction":
            continue
        level = _read_int(os.path.join(d, "level"))
        scale = {"K": 1024, "M": 1024 * 1024, "G": 1024 ** 3}.get(text[-1:].upper(), 1)
        try:
            value = int(text.rstrip("KMGkmg")) * scale
        except ValueError:
            continue
        if level is not None:
            sizes[level] = value
    return sizes


def _num_cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _clock_khz():
    khz = _read_int("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
    if khz:
        return khz
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("cpu mhz"):
                    return int(float(line.split(":")[1]) * 1000)
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _vector_registers():
    """Vector registers a core has (32 with AVX-512, 16 with AVX/SSE, 32 on AArch64)."""
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64"):
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("flags"):
                        return 32 if " avx512f" in line else 16
        except OSError:
            pass
        return 16
    return 32


class CPUUtils:
    """driver.active.utils"""

    def get_device_properties(self, device=None):
        """The CPU's numbers under the keys GPU host code reads. A "multiprocessor" is a
        core (the CPU runs one program per core at a time), `max_shared_mem` is the L2
        cache of one core, `max_num_regs` the vector registers of a core, `warpSize` 1
        (one program is one thread)."""
        if device not in (None, 0, "cpu") and getattr(device, "type", None) != "cpu":
            raise ValueError(f"get_device_properties: tilec's Triton drop-in has one device, the CPU "
                             f"(0 or 'cpu'), got {device!r}")
        caches = _cache_sizes()
        l2 = caches.get(2) or caches.get(1) or 0
        return {
            "multiprocessor_count": _num_cores(),
            "max_shared_mem": l2,
            "max_num_regs": _vector_registers(),
            "warpSize": 1,
            "sm_clock_rate": _clock_khz(),
            "mem_clock_rate": 0,
            "mem_bus_width": 0,
            "l1_cache_size": caches.get(1, 0),
            "l2_cache_size": l2,
            "l3_cache_size": caches.get(3, 0),
        }


class _TimerEvent:
    """A wall-clock stand-in for a CUDA event (CPU launches finish before returning)."""

    def __init__(self, enable_timing=True):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def elapsed_time(self, end_event):
        if self.t is None or end_event.t is None:
            raise RuntimeError("elapsed_time: both events must be recorded first")
        return (end_event.t - self.t) * 1000.0

    def synchronize(self):
        pass

    def query(self):
        return True


class CPUDeviceInterface:
    """driver.active.get_device_interface(): the torch.cuda-like calls do_bench makes."""

    Event = _TimerEvent

    @staticmethod
    def synchronize(device=None):
        pass

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def device_count():
        return 1

    @staticmethod
    def is_available():
        return True


class CPUDriver:
    """The active driver: the host CPU, running kernels compiled by tilec."""

    backend = "cpu"

    def __init__(self):
        self.utils = CPUUtils()

    @staticmethod
    def is_active():
        return True

    def get_current_target(self):
        return GPUTarget("cpu", platform.machine(), 1)

    def get_active_torch_device(self):
        import torch
        return torch.device("cpu")

    def get_current_device(self):
        return 0

    def set_current_device(self, device):
        if device not in (0, "cpu"):
            raise ValueError(f"set_current_device: the only device is the CPU (0), got {device!r}")

    def get_current_stream(self, device=None):
        return 0

    def get_device_interface(self):
        return CPUDeviceInterface()

    def get_benchmarker(self):
        from ..testing import do_bench
        return do_bench

    def get_empty_cache_for_benchmark(self):
        """A buffer as large as the last-level cache; writing it evicts the kernel's data."""
        import numpy as np
        caches = _cache_sizes()
        size = caches[max(caches)] if caches else 32 * 1024 * 1024
        return np.empty(min(size, 256 * 1024 * 1024) // 4, dtype=np.int32)

    def clear_cache(self, cache):
        cache.fill(0)

    def __repr__(self):
        return "CPUDriver(tilec)"


class DriverConfig:
    """`triton.runtime.driver`: `.active` (the CPU), `.default`, `set_active(...)`."""

    def __init__(self):
        self._default = None
        self._active = None

    @property
    def default(self):
        if self._default is None:
            self._default = CPUDriver()
        return self._default

    @property
    def active(self):
        if self._active is None:
            self._active = self.default
        return self._active

    def set_active(self, driver):
        self._active = driver

    def reset_active(self):
        self._active = self.default

    def set_active_to_cpu(self):
        """triton-cpu's switch to its CPU driver; tilec's driver is always the CPU."""
        self._active = self.default

    def set_active_to_gpu(self):
        raise RuntimeError("tilec's Triton drop-in runs kernels on the CPU only; there is no GPU driver")


driver = DriverConfig()

__all__ = ["driver", "DriverConfig", "CPUDriver", "CPUUtils", "CPUDeviceInterface"]
