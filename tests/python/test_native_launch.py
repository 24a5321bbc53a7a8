"""The native API: @tilec.jit kernels launched on numpy arrays, torch CPU tensors and
other array objects; grids; argument binding and its errors. References are numpy."""

import os
import threading

import numpy as np
import pytest

import tilec
import tilec.language as tl
from conftest import needs_torch
from kernels_native import (add_kernel, cast_kernel, copy_strided_kernel, default_kernel, flag_kernel,
                            grid2d_kernel, optional_kernel, scale_kernel)

SIZES = [1, 7, 1023, 1025]


def _grid(n, block):
    return (tilec.cdiv(n, block),)


@pytest.mark.parametrize("n", SIZES)
def test_numpy_add(n):
    rng = np.random.default_rng(n)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    add_kernel[_grid(n, 256)](x, y, out, n, BLOCK=256)
    np.testing.assert_array_equal(out, x + y)


def test_returns_compiled_kernel_and_caches_it():
    x = np.ones(64, np.float32)
    out = np.zeros(64, np.float32)
    k1 = add_kernel[(1,)](x, x, out, 64, BLOCK=64)
    k2 = add_kernel[(1,)](x, x, out, 64, BLOCK=64)
    assert isinstance(k1, tilec.CompiledKernel)
    assert k1 is k2
    assert k1.name == "add_kernel"
    assert k1.signature == "*fp32:16, *fp32:16, *fp32:16, i32:16, 64"


@needs_torch
@pytest.mark.parametrize("n", SIZES)
def test_torch_add(n):
    import torch
    x = torch.rand(n)
    y = torch.rand(n)
    out = torch.empty(n)
    add_kernel[_grid(n, 128)](x, y, out, n, BLOCK=128)
    assert torch.equal(out, x + y)


def test_grid_callable_gets_bound_arguments_and_options():
    n = 1000
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (tilec.cdiv(meta["n"], meta["BLOCK"]),)

    add_kernel[grid](x, x, out, n, BLOCK=128, num_warps=8)
    np.testing.assert_array_equal(out, 2 * x)
    assert seen["BLOCK"] == 128 and seen["n"] == n and seen["x_ptr"] is x and seen["num_warps"] == 8


def test_grid_2d_and_list():
    rows, cols = 5, 7
    out = np.zeros((rows, cols), np.int32)
    grid2d_kernel[[cols, rows]](out, cols)
    ref = np.arange(rows)[:, None] * 1000 + np.arange(cols)[None, :]
    np.testing.assert_array_equal(out, ref)


def test_empty_grid_runs_nothing():
    out = np.zeros(4, np.float32)
    add_kernel[(0,)](out, out, out, 4, BLOCK=4)
    np.testing.assert_array_equal(out, 0)


@pytest.mark.parametrize("grid, exc, text", [
    ((), ValueError, "1 to 3 dimensions"),
    ((1, 1, 1, 1), ValueError, "1 to 3 dimensions"),
    ((-1,), ValueError, "grid dimension 0 is -1"),
    (("a",), TypeError, "grid dimension 0 must be an integer"),
    (5, TypeError, "grid must be a tuple"),
])
def test_bad_grid(grid, exc, text):
    x = np.zeros(4, np.float32)
    with pytest.raises(exc, match=text):
        add_kernel[grid](x, x, x, 4, BLOCK=4)


def test_run_and_keywords():
    x = np.arange(10, dtype=np.float32)
    out = np.zeros(10, np.float32)
    add_kernel.run(x, y_ptr=x, out_ptr=out, n=10, BLOCK=16, grid=(1,))
    np.testing.assert_array_equal(out, 2 * x)


def test_defaults_are_applied():
    out = np.zeros(16, np.int32)
    default_kernel[(1,)](out)
    np.testing.assert_array_equal(out, 3)
    default_kernel[(1,)](out, 5)
    np.testing.assert_array_equal(out, 5)


def test_missing_argument():
    x = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"add_kernel\(\) missing a required argument: 'n'"):
        add_kernel[(1,)](x, x, x, BLOCK=4)


def test_extra_positional_argument():
    x = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"takes 5 positional arguments but 6 were given"):
        add_kernel[(1,)](x, x, x, 4, 4, 5)


def test_unknown_keyword():
    x = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'bogus'"):
        add_kernel[(1,)](x, x, x, 4, BLOCK=4, bogus=1)


def test_duplicate_argument():
    x = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"multiple values for argument 'n'"):
        add_kernel[(1,)](x, x, x, 4, 4, n=4)


def test_launch_options_accepted_and_ignored():
    x = np.ones(8, np.float32)
    out = np.zeros(8, np.float32)
    add_kernel[(1,)](x, x, out, 8, BLOCK=8, num_warps=8, num_stages=2, num_ctas=1, maxnreg=64,
                     enable_fp_fusion=False, num_cpu_threads=1)
    np.testing.assert_array_equal(out, 2)


def test_scalar_float_and_bool():
    x = np.arange(20, dtype=np.float32)
    out = np.zeros(20, np.float32)
    scale_kernel[(1,)](x, out, 20, 0.5, BLOCK=32)
    np.testing.assert_array_equal(out, x * np.float32(0.5))
    o = np.zeros(1, np.int32)
    flag_kernel[(1,)](o, True, 7)
    assert o[0] == 7
    flag_kernel[(1,)](o, False, 7)
    assert o[0] == -7


def test_numpy_scalars_are_numbers():
    x = np.arange(20, dtype=np.float32)
    out = np.zeros(20, np.float32)
    scale_kernel[(1,)](x, out, np.int64(20), np.float32(2.0), BLOCK=32)
    np.testing.assert_array_equal(out, 2 * x)


def test_none_is_a_constexpr():
    out = np.zeros(10, np.float32)
    k = optional_kernel[(1,)](out, None, 10, BLOCK=16)
    np.testing.assert_array_equal(out, 1)
    bias = np.arange(10, dtype=np.float32)
    optional_kernel[(1,)](out, bias, 10, BLOCK=16)
    np.testing.assert_array_equal(out, 1 + bias)
    assert "None" in k.signature


def test_non_contiguous_view_passes_its_data_pointer():
    base = np.arange(100, dtype=np.float32)
    view = base[3::4]  # a strided view starting at element 3
    out = np.zeros(view.size, np.float32)
    copy_strided_kernel[(1,)](view, out, view.size, view.strides[0] // 4, BLOCK=32)
    np.testing.assert_array_equal(out, view)


@needs_torch
def test_torch_non_contiguous_view():
    import torch
    m = torch.arange(60, dtype=torch.float32).reshape(6, 10)
    col = m[:, 3]  # stride 10, storage offset 3
    out = torch.zeros(6)
    copy_strided_kernel[(1,)](col, out, 6, col.stride(0), BLOCK=8)
    assert torch.equal(out, col)


class _ArrayInterface:
    """A minimal producer of __array_interface__ (no buffer protocol, no data_ptr)."""

    def __init__(self, arr):
        self._arr = arr
        self.__array_interface__ = arr.__array_interface__


class _DLPackOnly:
    """Exposes only __dlpack__/__dlpack_device__ (numpy is the producer)."""

    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, **kwargs):
        return self._arr.__dlpack__()

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


@pytest.mark.parametrize("wrap", [_ArrayInterface, _DLPackOnly, memoryview])
def test_array_protocols(wrap):
    n = 50
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 2, np.float32)
    out = np.zeros(n, np.float32)
    add_kernel[(1,)](wrap(x), wrap(y), wrap(out), n, BLOCK=64)
    np.testing.assert_array_equal(out, x + 2)


@pytest.mark.parametrize("dt", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                                np.uint64, np.float16, np.float64, np.bool_])
def test_numpy_dtypes(dt):
    n = 33
    x = (np.arange(n) % 7).astype(dt)
    out = np.zeros(n, np.float32)
    cast_kernel[(1,)](x, out, n, BLOCK=64)
    np.testing.assert_array_equal(out, x.astype(np.float32))


@needs_torch
def test_torch_bfloat16():
    import torch
    x = torch.randn(100).to(torch.bfloat16)
    out = torch.zeros(100)
    cast_kernel[(1,)](x, out, 100, BLOCK=128)
    assert torch.equal(out, x.float())


def test_unsupported_dtype():
    x = np.zeros(4, np.complex64)
    out = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"cast_kernel\(\): argument 'x_ptr' has dtype complex64"):
        cast_kernel[(1,)](x, out, 4, BLOCK=4)


class _FakeGpuTensor:
    """Looks like a torch tensor on a GPU."""

    dtype = "torch.float32"
    is_cpu = False
    device = "cuda:0"

    def data_ptr(self):
        return 4096


def test_gpu_tensor_is_refused():
    out = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match=r"argument 'x_ptr' is a tensor on device 'cuda:0'"):
        add_kernel[(1,)](_FakeGpuTensor(), out, out, 4, BLOCK=4)


@needs_torch
def test_torch_meta_tensor_is_refused():
    import torch
    x = torch.empty(4, device="meta")
    out = torch.zeros(4)
    with pytest.raises(ValueError, match=r"argument 'x_ptr' is a tensor on device 'meta'"):
        add_kernel[(1,)](x, out, out, 4, BLOCK=4)


def test_unsupported_argument_type():
    out = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"argument 'n' has unsupported type str"):
        add_kernel[(1,)](out, out, out, "4", BLOCK=4)
    with pytest.raises(TypeError, match=r"argument 'x_ptr' has unsupported type list"):
        add_kernel[(1,)]([1.0, 2.0], out, out, 4, BLOCK=4)


def test_int_too_large():
    out = np.zeros(4, np.float32)
    with pytest.raises(OverflowError, match=r"argument 'n' = 18446744073709551616 does not fit in 64 bits"):
        add_kernel[(1,)](out, out, out, 2 ** 64, BLOCK=4)


def test_call_outside_kernel():
    with pytest.raises(RuntimeError, match="Cannot call @triton.jit'd outside of the scope of a kernel"):
        add_kernel(1, 2, 3, 4, 5)


def test_language_stub_outside_kernel():
    with pytest.raises(RuntimeError, match=r"triton.language.program_id\(\) can only be called inside"):
        tl.program_id(0)


def test_launch_from_threads():
    """Launches release the GIL and may come from several threads at once."""
    n = 4096
    x = np.arange(n, dtype=np.float32)
    outs = [np.zeros(n, np.float32) for _ in range(4)]
    add_kernel[(4,)](x, x, outs[0], n, BLOCK=1024)  # compile once first
    errors = []

    def work(o):
        try:
            for _ in range(20):
                add_kernel[(4,)](x, x, o, n, BLOCK=1024)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(o,)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for o in outs:
        np.testing.assert_array_equal(o, 2 * x)


def test_installed_package_is_used():
    """The tests run against `pip install .`, not the source tree."""
    pkg = os.path.dirname(tilec.__file__)
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert not pkg.startswith(os.path.join(here, "python"))
    names = os.listdir(pkg)
    assert "libtilec.so" in names and "libtilec-runtime.so" in names
    assert any(n.startswith("_C.") and n.endswith(".so") for n in names)


def test_gil_is_released_while_a_kernel_runs():
    """The kernel waits for a flag only this (Python) thread can set while it runs: with
    the GIL held during the launch the flag would come too late and the kernel would give
    up (after max_iters reads) and store 0."""
    from kernels_native import wait_flag_kernel
    started = np.zeros(1, np.int32)
    flag = np.zeros(1, np.int32)
    out = np.full(1, -1, np.int32)
    wait_flag_kernel[(1,)](started, np.ones(1, np.int32), out, 0)  # compile first
    started[0] = 0
    t = threading.Thread(target=lambda: wait_flag_kernel[(1,)](started, flag, out, 200_000_000))
    t.start()
    while started[0] == 0 and t.is_alive():
        pass
    flag[0] = 1
    t.join()
    assert out[0] == 1


@tilec.jit
def _const_src_kernel(src: tl.const, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n) * 2, mask=offs < n)


def test_const_pointer_annotation():
    # Triton's `ptr: tl.const` (pointer to constant data) is a valid annotation
    x = np.arange(37, dtype=np.float32)
    y = np.zeros_like(x)
    _const_src_kernel[_grid(37, 16)](x, y, 37, BLOCK=16)
    np.testing.assert_array_equal(y, 2 * x)
    with pytest.raises(RuntimeError, match="annotation"):
        tl.const()


_SHARED_TEAM = r"""
import os, sys
import numpy as np
import torch
import tilec
sys.path.insert(0, sys.argv[1])
from kernels_native import add_kernel

def threads():
    return len(os.listdir("/proc/self/task"))

torch.set_num_threads(2)
a = torch.rand(1 << 22)
torch.add(a, a, out=torch.empty_like(a))  # torch's OpenMP team (libgomp) now exists
n = 1 << 20
x = torch.rand(n)
y = torch.rand(n)
out = torch.full((n,), float("nan"))
add_kernel.warmup(x, y, out, n, BLOCK=1024, grid=(n // 1024,))  # compiled, not launched
before = threads()
for _ in range(3):
    add_kernel[(n // 1024,)](x, y, out, n, BLOCK=1024, num_cpu_threads=2)
torch.testing.assert_close(out, x + y, rtol=0, atol=0)
print(before, threads())
"""


@needs_torch
def test_launches_run_on_torchs_openmp_threads(tmp_path):
    # Under PyTorch (libgomp), a 2-thread launch runs on torch's team: no threads of another
    # OpenMP runtime that would spin against torch's (launcher/team.c).
    import subprocess
    import sys
    env = dict(os.environ, TILEC_CACHE_DIR=str(tmp_path))
    env.pop("TILEC_NUM_THREADS", None)
    r = subprocess.run([sys.executable, "-c", _SHARED_TEAM, os.path.dirname(__file__)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    before, after = map(int, r.stdout.split())
    assert after == before, f"threads before the launches {before}, after {after}"
