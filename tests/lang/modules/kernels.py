"""Kernels that resolve names through their module, as Triton resolves them through the
function's globals: imports of triton's modules and libdevice (by name, as a module, the
cuda/cpu paths, try/except ImportError fallbacks), constexpr and dtype globals, plain globals
in parameter defaults, @jit helpers of a sibling file with that file's own globals, and the
forms Triton refuses (each with a located error). Host code around them is skipped."""
import math
import os
from typing import NamedTuple

import numpy as np
import torch
import triton
import triton.language as tl
from triton import language as tl2
from triton.language.extra import libdevice
from triton.language.extra.libdevice import rsqrt
from triton.language.extra.libdevice import exp as ld_exp
import triton.language.extra.cuda.libdevice as cuda_ld
from triton.language.extra.libdevice import not_a_libdevice_function

import modules_helpers as mh
from modules_helpers import scale_add, helper_with_error

try:
    from triton.language.extra.libdevice import tanh
except ImportError:
    from triton.language.math import tanh

try:
    # a backend tilec does not know: the fallback is taken
    from triton.language.extra.rocm_only import erf as erf_fast
except (ImportError, ModuleNotFoundError):
    from triton.language.extra.cpu.libdevice import erf as erf_fast

if os.environ.get("SOME_HOST_SETTING") == "1":
    from triton.language.extra.libdevice import log1p as log1p_fn
else:
    from triton.language.math import log1p as log1p_fn

EPS = tl.constexpr(1e-6)
SCALE = tl.constexpr(2.5)
MODE = tl.constexpr("square")
LOG2E = tl.constexpr(math.log2(math.e))
ACC = tl.float32
OUT_DT = triton.language.float16
DEFAULT_BLOCK = 64
HALF_BLOCK = DEFAULT_BLOCK // 2
PLAIN_N = 3
ANNOTATED: tl.constexpr = 42
DEVICE = torch.device("cpu")
NOTHING = None


def host_helper(x):
    return x * 2


@triton.jit
def constexpr_globals_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr = DEFAULT_BLOCK):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m).to(ACC)
    y = x * SCALE + EPS
    if MODE == "square":
        y = y * y
    if NOTHING is None:
        y = y + LOG2E
    tl.store(out_ptr + offs, y, mask=m)


@triton.jit
def libdevice_forms_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = rsqrt(x) + libdevice.exp(-x) + ld_exp(-x) + cuda_ld.sqrt(x)
    y += tanh(x) + erf_fast(x) + log1p_fn(x) + tl.math.log(x) + tl2.sqrt(x)
    tl.store(out_ptr + offs, y, mask=m)


@triton.jit
def dtype_globals_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    acc = tl.zeros([BLOCK], dtype=ACC)
    acc += tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, acc.to(OUT_DT), mask=m)


@triton.jit
def sibling_helpers_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr = HALF_BLOCK):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    # scale_add uses modules_helpers.FACTOR (3.0), not this file's SCALE
    y = scale_add(x, 1.0) + mh.twice(x) + mh.OFFSET
    tl.store(out_ptr + offs, y, mask=m)


@triton.jit
def dtype_param_kernel(x_ptr, out_ptr, info_ptr, n, BLOCK: tl.constexpr, DT: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = x.to(DT)
    if DT == tl.float16:
        y = y + tl.full([BLOCK], 1, DT)
    elif DT == tl.bfloat16:
        y = y + tl.full([BLOCK], 2, DT)
    else:
        y = y + tl.cast(3, DT)
    tl.store(out_ptr + offs, y.to(tl.float32), mask=m)
    z = tl.zeros([BLOCK], dtype=DT)
    tl.store(info_ptr + 0, DT.primitive_bitwidth)
    tl.store(info_ptr + 1, DT.is_fp16() * 1 + DT.is_bf16() * 2 + DT.is_floating() * 4 + DT.is_int() * 8)
    tl.store(info_ptr + 2, z.dtype.primitive_bitwidth)


@triton.jit
def tuple_param_kernel(out_ptr, SHAPE: tl.constexpr):
    tl.store(out_ptr + 0, SHAPE[0])
    tl.store(out_ptr + 1, SHAPE[1])
    tl.store(out_ptr + 2, len(SHAPE))
    total = 0
    for i in tl.static_range(len(SHAPE)):
        total += SHAPE[i]
    tl.store(out_ptr + 3, total)


@triton.jit
def plain_default_kernel(out_ptr, N: tl.constexpr = PLAIN_N * 2):
    tl.store(out_ptr, N)


# ---- forms Triton refuses: each compiles to a located error ----

@triton.jit
def plain_global_kernel(out_ptr):
    tl.store(out_ptr, PLAIN_N)


@triton.jit
def annotated_global_kernel(out_ptr):
    tl.store(out_ptr, ANNOTATED)


@triton.jit
def host_value_kernel(out_ptr):
    tl.store(out_ptr, DEVICE)


@triton.jit
def host_module_kernel(out_ptr):
    tl.store(out_ptr + tl.arange(0, 4), tl.zeros([4], torch.float32))


@triton.jit
def host_function_kernel(out_ptr):
    tl.store(out_ptr, host_helper(1))


@triton.jit
def unknown_libdevice_kernel(x_ptr):
    tl.store(x_ptr, not_a_libdevice_function(tl.load(x_ptr)))


@triton.jit
def helper_error_kernel(x_ptr):
    tl.store(x_ptr, helper_with_error(tl.load(x_ptr)))


@triton.jit
def unannotated_dtype_tuple_kernel(x_ptr, out_ptr, DT, S):
    # a dtype or a tuple given to a parameter without tl.constexpr is still compile-time
    offs = tl.arange(0, 16)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(DT).to(tl.float32) + S[1])


# ---- Python's math module, and names imported from host packages ----
from math import pi as PI_VALUE
from some_host_package.utils import host_util

TWO_PI = tl.constexpr(2 * PI_VALUE)


@triton.jit
def python_math_kernel(out_ptr):
    tl.store(out_ptr, TWO_PI + math.log2(8.0) + math.pi * math.floor(2.5))


@triton.jit
def plain_math_import_kernel(out_ptr):
    tl.store(out_ptr, PI_VALUE)


@triton.jit
def host_package_import_kernel(out_ptr):
    tl.store(out_ptr, host_util(1))


# ---- host-side Triton imports exist (the try body is taken), only kernels cannot use them ----
try:
    from triton.tools.tensor_descriptor import TensorDescriptor
    HAS_TENSOR_DESC = True
except ModuleNotFoundError:
    HAS_TENSOR_DESC = False


@triton.jit
def host_triton_import_kernel(out_ptr, HAS: tl.constexpr = HAS_TENSOR_DESC):
    tl.store(out_ptr, HAS)


# ---- version checks tilec cannot evaluate: equivalent APIs (first branch), differing constants ----
if triton.__version__ >= "3.0.0":
    act_tanh = libdevice.tanh
    act_cast = tl.cast
else:
    act_tanh = tl.math.tanh

    @triton.jit
    def act_cast(x, dtype):
        return x.to(dtype)

if torch.cuda.is_available():
    BLOCK_BY_DEVICE = 1024
else:
    BLOCK_BY_DEVICE = 128


@triton.jit
def version_check_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, act_cast(act_tanh(tl.load(x_ptr + offs)), tl.float16))


@triton.jit
def host_condition_constant_kernel(out_ptr, BLOCK: tl.constexpr = BLOCK_BY_DEVICE):
    tl.store(out_ptr, BLOCK)


# ---- NamedTuple classes of the kernel's file: tuples with named fields and defaults ----
SCALE_DEFAULT = 2.0


class Strided(NamedTuple):
    """a strided 1-D view"""
    ptr: tl.tensor
    n: int
    stride: tl.constexpr = 1
    scale: float = SCALE_DEFAULT


class HostOnly:
    """a host class: kernels cannot build one"""
    count = 0


class LateDefault(NamedTuple):
    a: int = 1
    b: int


@triton.jit
def strided_sum(v, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    return tl.load(v.ptr + r * v.stride, mask=r < v.n, other=0.0) * v.scale


@triton.jit
def namedtuple_class_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    dense = Strided(x_ptr, n)
    every2 = Strided(n=n, ptr=x_ptr, stride=2, scale=-1.0)
    r = tl.arange(0, BLOCK)
    tl.store(out_ptr + r, strided_sum(dense, BLOCK) + strided_sum(every2, BLOCK) + dense.stride + len(dense),
             mask=r < n)


@triton.jit
def host_class_kernel(out_ptr):
    tl.store(out_ptr, HostOnly())


@triton.jit
def late_default_kernel(out_ptr):
    tl.store(out_ptr, LateDefault(1, 2).b)
