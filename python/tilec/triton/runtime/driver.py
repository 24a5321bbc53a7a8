"""triton.runtime.driver for the drop-in: `driver.active` is the CPU.

In:  host code asking Triton's driver about the device. Out: answers for this machine:
`get_active_torch_device()` -> torch.device("cpu"), `get_current_target()` ->
GPUTarget("cpu", <machine, e.g. x86_64>, 1), `utils.get_device_properties(dev)` with the
CPU's numbers (cores, cache sizes), a device interface whose events are wall-clock
timers (kernel launches on the CPU are synchronous), and the benchmarking hooks
triton.testing.do_bench uses.
"""

import platform
import time

from tilec import _cpu

from ..backends import backends  # noqa: F401  (Triton's driver module has it: empty, see triton.backends)
from ..backends.compiler import GPUTarget
from ..backends.driver import DriverBase

# The most warps a Triton program may ask for (1024 threads of 32).
_MAX_WARPS = 32


class CPUUtils:
    """driver.active.utils"""

    def get_device_properties(self, device=None):
        """The CPU's numbers under the keys GPU host code reads. A "multiprocessor" is a
        core; a program is one thread (`warpSize` 1) that runs alone on its core, so
        `max_shared_mem` is the cache the core has to itself (L2), the same number a
        compiled kernel reports as `metadata.shared`, and `max_num_regs` is the core's
        vector registers times the most warps a program may request, the product a
        kernel's `n_regs * warpSize * num_warps` never exceeds: GPU occupancy formulas
        then give one resident program per core."""
        if device not in (None, 0, "cpu") and getattr(device, "type", None) != "cpu":
            raise ValueError(f"get_device_properties: tilec's Triton drop-in has one device, the CPU "
                             f"(0 or 'cpu'), got {device!r}")
        caches = _cpu.cache_sizes()
        return {
            "multiprocessor_count": _cpu.num_cores(),
            "max_shared_mem": _cpu.l2_bytes(),
            "max_num_regs": _cpu.vector_registers() * _MAX_WARPS,
            "warpSize": 1,
            "sm_clock_rate": _cpu.clock_khz(),
            "mem_clock_rate": 0,
            "mem_bus_width": 0,
            "l1_cache_size": caches.get(1, 0),
            "l2_cache_size": caches.get(2, 0),
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


# Triton type strings -> the C types tilec's launch functions take (tilec.h, KERNEL_launch)
_C_TYPES = {"i1": "bool", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t", "u1": "bool",
            "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t", "fp16": "uint16_t",
            "bf16": "uint16_t", "fp32": "float", "f32": "float", "fp64": "double"}


class CPUDriver(DriverBase):
    """The active driver: the host CPU, running kernels compiled by tilec."""

    backend = "cpu"

    def __init__(self):
        self.utils = CPUUtils()

    @classmethod
    def is_active(cls):
        return True

    def map_python_to_cpp_type(self, ty):
        """The C type of a kernel parameter of Triton type `ty` ("*fp32" -> "void *")."""
        if ty.startswith("*"):
            return "void *"
        try:
            return _C_TYPES[ty]
        except KeyError:
            raise ValueError(f"map_python_to_cpp_type: unknown Triton type {ty!r}") from None

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
        caches = _cpu.cache_sizes()
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

    def get_active_gpus(self):
        """triton-cpu's list of the active GPU backends' names: empty, tilec's kernels run on
        the CPU (its tutorials take the CPU path when the list is empty)."""
        return []

    def set_active_to_gpu(self):
        raise RuntimeError("tilec's Triton drop-in runs kernels on the CPU only; there is no GPU driver")


driver = DriverConfig()

__all__ = ["driver", "DriverConfig", "DriverBase", "CPUDriver", "CPUUtils", "CPUDeviceInterface", "backends"]
