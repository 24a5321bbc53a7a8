"""tilec._C.Compiler(num_stages=...): Triton's num_stages on the GPU targets (nvptx, nvptx-emu),
the pipeline depth of a K loop's tl.dot operand loads: 1 (no pipelining) to 8, 0 = the
default 3. It is part of the JIT cache key as the value used (0 and 3 share an entry); a
count out of range, or any on a CPU target, is refused as num_warps is. The Python drop-in
(kernel[grid](..., num_stages=N) on the CPU) accepts and ignores it, as Triton's other GPU
launch options."""

import numpy as np
import pytest

from tilec import CompilationError, _C
from kernels_native import add_kernel

SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def axpy(x_ptr, y_ptr, out_ptr, a, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, a * tl.load(x_ptr + offs) + tl.load(y_ptr + offs))
'''

SPEC = dict(filename="k.py", source=SOURCE, kernel="axpy", signature="*fp32:16, *fp32:16, *fp32:16, fp32, 256")


def test_num_stages_in_range_compile_on_nvptx():
    for stages in (0, 1, 2, 3, 8):
        ptx = _C.Compiler(target="nvptx", num_stages=stages).emit(stage="asm", **SPEC)
        assert ".entry axpy(" in ptx


@pytest.mark.parametrize("stages", [9, -1])
def test_num_stages_out_of_range_refused(stages):
    with pytest.raises(CompilationError, match=rf"num_stages must be from 1 \(no pipelining\) to 8, got {stages}"):
        _C.Compiler(target="nvptx-emu", num_stages=stages)


def test_num_stages_on_a_cpu_target_refused():
    with pytest.raises(CompilationError, match=r"--num-stages .*apply to the nvptx target only \(target is 'host'\)"):
        _C.Compiler(num_stages=2)
    _C.Compiler(num_stages=0)  # unset: any target


def test_num_stages_is_part_of_the_cache_key(tmp_path):
    def kernel(stages):
        return _C.Compiler(target="nvptx-emu", num_stages=stages, cache_dir=str(tmp_path)).compile(**SPEC)[0]

    default, three, two = kernel(0), kernel(3), kernel(2)
    assert default.origin == "compiled" and three.origin == "disk" and three.cache_path == default.cache_path
    assert two.origin == "compiled" and two.cache_path != default.cache_path
    # the emulated CTA computes the same whatever the depth
    x = np.arange(256, dtype=np.float32)
    y = np.full(256, 0.5, np.float32)
    for k in (default, two):
        out = np.zeros(256, np.float32)
        k.launch((1, 1, 1), (x, y, out, 2.0, 256))
        np.testing.assert_array_equal(out, 2.0 * x + y)


@pytest.mark.parametrize("stages", [0, 1, 5, 9])
def test_dropin_launch_ignores_num_stages_on_the_cpu(stages):
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    add_kernel[(1,)](x, x, out, 8, BLOCK=8, num_stages=stages)
    np.testing.assert_array_equal(out, 2 * x)
