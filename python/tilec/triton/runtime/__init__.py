"""triton.runtime for the drop-in: the JIT (tilec's), autotuner, driver, errors."""

from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .driver import driver
from .errors import InterpreterError, OutOfResources
from .jit import JITFunction, KernelInterface, MockTensor, TensorWrapper, reinterpret
from .cache import RedisRemoteCacheBackend, RemoteCacheBackend
from . import autotuner, build, cache, errors, jit  # noqa: F401

__all__ = ["autotune", "Autotuner", "Config", "driver", "Heuristics", "heuristics", "InterpreterError",
           "JITFunction", "KernelInterface", "MockTensor", "OutOfResources", "reinterpret", "TensorWrapper", "RemoteCacheBackend",
           "RedisRemoteCacheBackend", "build", "cache"]
