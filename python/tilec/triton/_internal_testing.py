"""triton._internal_testing for the drop-in: the helpers Triton's (and triton-cpu's) own
test files import, behaving as on triton-cpu's CPU backend (`is_cpu()` is True, every
GPU predicate False, `device` tensors live on the CPU).

In:  test code. Out: dtype name lists, random inputs (numpy_random), conversions between
numpy arrays and kernel arguments (to_triton/to_numpy, TensorWrapper for unsigned and
fp8 dtypes torch cannot hold), target predicates, run_in_process.
"""

import os
import re
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Optional

import numpy as np
from numpy.random import RandomState

import triton
import triton.language as tl
from triton import knobs  # noqa: F401  (test files import it from here)
from triton.backends import backends  # noqa: F401
from triton.runtime.jit import TensorWrapper, reinterpret, type_canonicalisation_dict

int_dtypes = ['int8', 'int16', 'int32', 'int64']
uint_dtypes = ['uint8', 'uint16', 'uint32', 'uint64']
integral_dtypes = int_dtypes + uint_dtypes
float_dtypes = ['float16', 'float32', 'float64']
float_dtypes_with_bfloat16 = float_dtypes + ['bfloat16']
dtypes = integral_dtypes + float_dtypes
dtypes_with_bfloat16 = dtypes + ['bfloat16']
torch_float8_dtypes = ['float8_e4m3fn', 'float8_e5m2']
torch_dtypes = ['bool'] + int_dtypes + ['uint8'] + float_dtypes + ['bfloat16']
tma_dtypes = sorted(set(dtypes_with_bfloat16) - {"int64", "uint64", "float64"})


def is_interpreter():
    return os.environ.get('TRITON_INTERPRET', '0') == '1'


def is_compile_warmup():
    return False


def get_current_target():
    if is_interpreter():
        return None
    return triton.runtime.driver.active.get_current_target()


def _backend_is(name):
    target = get_current_target()
    return target is not None and target.backend == name


def is_cuda():
    return _backend_is("cuda")


def is_hip():
    return _backend_is("hip")


def is_xpu():
    return _backend_is("xpu")


def is_cpu():
    return not is_interpreter() and _backend_is("cpu")


def _false():
    return False


# GPU generations: never true on the CPU.
is_ampere_or_newer = is_blackwell = is_blackwell_ultra = is_rubin = _false
is_hopper_or_newer = is_hopper = is_sm12x = _false
is_hip_cdna2 = is_hip_cdna3 = is_hip_cdna4 = is_hip_rdna3 = is_hip_rdna4m = is_hip_rdna4 = _false
is_hip_gfx1250 = is_hip_cdna3_or_newer = is_hip_cdna = is_hip_rdna = _false


is_hip_mi200 = is_hip_mi300 = is_hip_mi350 = is_hip_gfx11 = is_hip_gfx12 = _false

_GPU_PREDICATE = re.compile(r"^is_(hip|cuda|hopper|blackwell|ampere|sm\d+|rubin|xpu)\w*$")


def __getattr__(name):
    # GPU generation predicates this file does not list (test files add new ones with
    # each Triton release): all False on the CPU.
    if _GPU_PREDICATE.match(name):
        return _false
    raise AttributeError(f"module 'triton._internal_testing' has no attribute '{name}'")


def get_hip_lds_size():
    return 65536


def get_arch():
    target = get_current_target()
    return "" if target is None else str(target.arch)


def random_int(low, high, *, warmup_value=None, **kwargs):
    import torch
    return int(torch.randint(low, high, size=(), **kwargs).item())


def random_float(*, warmup_value=0.5, **kwargs):
    import torch
    return float(torch.rand((), **kwargs).item())


def numpy_random(shape, dtype_str, rs: Optional[RandomState] = None, low=None, high=None):
    """Random values of numpy dtype `dtype_str` (never 0 for integers, so divisions are
    safe; bfloat16 as float32 values with the low 16 bits cleared; float8 as raw int8
    bytes). Pass `rs` to get different values from two calls."""
    if isinstance(shape, int):
        shape = (shape, )
    if rs is None:
        rs = RandomState(seed=17)
    if dtype_str in integral_dtypes:
        info = np.iinfo(getattr(np, dtype_str))
        low = info.min if low is None else max(low, info.min)
        high = info.max if high is None else min(high, info.max)
        x = rs.randint(low, high, shape, dtype=getattr(np, dtype_str))
        x[x == 0] = 1
        return x
    if dtype_str and 'float8' in dtype_str:
        return rs.randint(20, 40, shape, dtype=np.int8)
    if dtype_str in float_dtypes:
        return rs.normal(0, 1, shape).astype(dtype_str)
    if dtype_str == 'bfloat16':
        bits = rs.normal(0, 1, shape).astype('float32').view('uint32') & np.uint32(0xffff0000)
        return bits.view('float32')
    if dtype_str in ['bool', 'int1', 'bool_']:
        return rs.normal(0, 1, shape) > 0.0
    raise RuntimeError(f'Unknown dtype {dtype_str}')


def to_triton(x, device, dst_type=None):
    """A kernel argument holding numpy array `x`: a torch tensor on `device`, or a
    TensorWrapper for unsigned (torch has only uint8) and float8 `dst_type`s; float32
    data with dst_type 'bfloat16' becomes a bfloat16 tensor."""
    import torch
    t = x.dtype.name
    if t in uint_dtypes:
        signed = x.astype(getattr(np, t[1:]))
        return reinterpret(torch.tensor(signed, device=device), getattr(tl, t))
    if dst_type and 'float8' in dst_type:
        return reinterpret(torch.tensor(x, device=device), getattr(tl, dst_type))
    if t == 'float32' and dst_type == 'bfloat16':
        return torch.tensor(x, device=device).bfloat16()
    return torch.tensor(x, device=device)


def str_to_triton_dtype(x: str):
    """'int32' / 'float16' / 'bool' ... -> the tl dtype (Triton's: str_to_ty of the name's
    canonical short form)."""
    return tl.str_to_ty(type_canonicalisation_dict[x], None)


def torch_dtype_name(dtype) -> str:
    import torch
    if isinstance(dtype, tl.dtype):
        return dtype.name
    if isinstance(dtype, torch.dtype):
        return re.match(r'^torch\.(\w+)$', str(dtype)).group(1)
    raise TypeError(f'not a triton or torch dtype: {type(dtype)}')


def to_numpy(x):
    import torch
    if isinstance(x, TensorWrapper):
        # tl dtype names ('uint32', 'float8e4nv'...) map to numpy by their Python name
        name = next((n for n in dir(tl) if getattr(tl, n) is x.dtype and hasattr(np, n)), None)
        if name is None:
            return x.base.cpu().numpy()
        return x.base.cpu().numpy().astype(getattr(np, name))
    if isinstance(x, torch.Tensor):
        if x.dtype is torch.bfloat16:
            return x.cpu().float().numpy()
        return x.cpu().numpy()
    raise ValueError(f"Not a triton-compatible tensor: {x}")


def supports_tma(byval_only=False):
    return is_interpreter()


def supports_ws():
    return is_interpreter()


def supports_clc():
    return False


def tma_skip_msg(byval_only=False):
    if byval_only:
        return "Requires __grid_constant__ TMA support (NVIDIA Hopper or higher, CUDA 12.0 or higher)"
    return "Requires advanced TMA support (NVIDIA Hopper or higher, CUDA 12.3 or higher)"


try:
    import pytest as _pytest
except ImportError:  # pytest is only needed by test files
    _pytest = None
if _pytest is not None:
    requires_tma = _pytest.mark.skipif(not supports_tma(), reason=tma_skip_msg())


def skip_if_unsupported_cluster_size(num_ctas):
    pass


def _fresh_knobs_impl(skipped_attr=None):
    """What Triton's python/test/conftest.py builds its `fresh_knobs` fixtures from: a pair
    (fresh, reset). fresh() gives each knob group of triton.knobs (but those named in
    skipped_attr) a copy with no assignments, unsets the groups' environment variables and
    returns triton.knobs; reset() puts the groups, the variables and propagate_env back."""
    skipped = set(skipped_attr or ())
    groups = {name: group for name, group in vars(knobs).items()
              if isinstance(group, knobs.base_knobs) and name not in skipped}
    saved_env = {}
    saved_propagate = knobs.propagate_env

    def fresh():
        for name, group in groups.items():
            setattr(knobs, name, group.copy().reset())
            for knob in group.knob_descriptors.values():
                if knob.key not in saved_env:
                    saved_env[knob.key] = os.environ.pop(knob.key, None)
        knobs.propagate_env = True
        return knobs

    def reset():
        for name, group in groups.items():
            setattr(knobs, name, group)
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        knobs.propagate_env = saved_propagate

    return fresh, reset


def default_alloc_fn(size: int, align: int, _):
    import torch
    return torch.empty(size, dtype=torch.int8, device="cpu")


def unwrap_tensor(t):
    return t.base if isinstance(t, TensorWrapper) else t


@dataclass
class ProcessResult:
    exc: Optional[BaseException]
    driver_stderr_output: str


class ReplenishingProcessPool:
    """Triton keeps a worker process (and a spare) with `preload_module` imported to run
    tests that may crash the GPU context. tilec turns kernel failures into exceptions, so
    the pool runs each task in this process, as run_in_process does; `preload_module` is
    imported when the pool starts."""

    def __init__(self, preload_module):
        self.preload_module = preload_module
        self.started = False

    def start(self):
        if not self.started:
            import importlib
            importlib.import_module(self.preload_module)
            self.started = True

    def close(self):
        self.started = False

    def run(self, client_fn, args=(), kwargs=None, env=None):
        self.start()
        return _run_here(client_fn, args, kwargs, env)


_PROCESS_POOL = None


@contextmanager
def use_process_pool(preload_module):
    """Within the block, run_in_process goes through a ReplenishingProcessPool."""
    global _PROCESS_POOL
    pool = ReplenishingProcessPool(preload_module)
    pool.start()
    _PROCESS_POOL = pool
    try:
        yield pool
    finally:
        pool.close()
        _PROCESS_POOL = None


def run_in_process(client_fn, args=(), kwargs=None, env=None):
    """Run `client_fn(*args, **kwargs)` with `env` added to the environment and the
    process's stderr (file descriptor 2, which kernel output uses) captured. tilec turns
    kernel failures into exceptions instead of crashing, so this runs in this process;
    returns ProcessResult(exception or None, captured stderr)."""
    if _PROCESS_POOL is not None:
        return _PROCESS_POOL.run(client_fn, args, kwargs, env)
    return _run_here(client_fn, args, kwargs, env)


def _run_here(client_fn, args=(), kwargs=None, env=None):
    kwargs = kwargs or {}
    saved_env = dict(os.environ)
    if env:
        os.environ.update(env)
    sys.stderr.flush()
    saved_fd = os.dup(2)
    exc = None
    with tempfile.TemporaryFile("w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            client_fn(*args, **kwargs)
        except Exception as e:  # reported, as Triton's helper reports the child's exception
            exc = e
        finally:
            sys.stderr.flush()
            os.dup2(saved_fd, 2)
            os.close(saved_fd)
            os.environ.clear()
            os.environ.update(saved_env)
        tmp.seek(0)
        err = tmp.read().decode(errors="replace")
    return ProcessResult(exc, err)
