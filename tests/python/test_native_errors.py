"""Errors as exceptions: compile errors are CompilationError with file:line:col, the
source line and a caret; kernels that fail while running (device_assert under
debug=True, the debug checks of TILEC_CHECK / TRITON_DEBUG=1: bounds, races, loads of
memory tilec.debug.uninitialized marked) raise KernelError naming the kernel, the source
line and the program id. The interpreter survives all of them."""

import inspect
import os
import re

import numpy as np
import pytest

import tilec
import tilec.language as tl
import kernels_native
from conftest import needs_torch
from kernels_native import assert_kernel, bad_kernel, oob_kernel, race_kernel


def _line_of(text):
    src, _ = inspect.getsourcelines(kernels_native)
    for i, line in enumerate(src):
        if text in line:
            return i + 1, line.rstrip("\n")
    raise AssertionError(text)


def test_compilation_error_is_located():
    x = np.zeros(4, np.float32)
    with pytest.raises(tilec.CompilationError) as info:
        bad_kernel[(1,)](x, BLOCK=4)
    e = info.value
    lineno, line = _line_of("undefined_name + 1")
    assert e.filename == kernels_native.__file__
    assert e.lineno == lineno
    assert e.col == line.index("undefined_name") + 1
    assert e.source_line == line
    assert e.message == "name 'undefined_name' is not defined"
    assert str(e) == (f"{e.filename}:{lineno}:{e.col}: error: name 'undefined_name' is not defined\n"
                      f"{line}\n{' ' * (e.col - 1)}^")
    assert isinstance(e, tilec.TilecError)
    # as in Triton, only an error a tl.* function raised has a cause (its bare message)
    assert e.__cause__ is None and e.origin == tilec.errors.ORIGIN_LANGUAGE
    assert e.frames == [("bad_kernel", e.filename, lineno - 2, lineno, e.col)]


def test_compilation_error_is_not_cached():
    x = np.zeros(4, np.float32)
    for _ in range(2):
        with pytest.raises(tilec.CompilationError):
            bad_kernel[(1,)](x, BLOCK=4)
    assert len(bad_kernel.cache) == 0


def test_device_assert_under_debug():
    x = np.array([1, 2, -3, 4], np.float32)
    with pytest.raises(tilec.KernelError) as info:
        assert_kernel[(1,)](x, 4, BLOCK=4)
    e = info.value
    lineno, line = _line_of("tl.device_assert(x >= 0")
    assert e.kernel == "assert_kernel"
    assert (e.filename, e.lineno, e.source_line) == (kernels_native.__file__, lineno, line)
    assert "kernel 'assert_kernel': device assertion failed in program (0, 0, 0), tile index [2]: " \
           "x must be non-negative" in str(e)
    assert isinstance(e, RuntimeError)
    x[2] = 3
    assert_kernel[(1,)](x, 4, BLOCK=4)  # passes now; the interpreter is fine


def test_device_assert_names_the_failing_program():
    x = np.zeros(64, np.float32)
    x[50] = -1
    with pytest.raises(tilec.KernelError, match=r"in program \(3, 0, 0\), tile index \[2\]"):
        assert_kernel[(4,)](x, 64, BLOCK=16)


def test_bounds_check(monkeypatch):
    x = np.arange(4, dtype=np.float32)
    out = np.zeros(8, np.float32)
    oob_kernel[(1,)](np.zeros(8, np.float32), out, BLOCK=8)  # unchecked build, in bounds
    monkeypatch.setenv("TILEC_CHECK_BOUNDS", "1")
    with pytest.raises(tilec.KernelError) as info:
        oob_kernel[(1,)](x, out, BLOCK=8)
    lineno, line = _line_of("tl.load(x_ptr + offs))")
    assert info.value.lineno == lineno and info.value.kernel == "oob_kernel"
    assert "kernel 'oob_kernel': load from 'x_ptr' at element 4 is out of bounds (buffer has 4 elements) " \
           "in program (0, 0, 0)" in str(info.value)
    oob_kernel[(1,)](np.zeros(8, np.float32), out, BLOCK=8)  # in bounds: fine


def test_bounds_check_uses_the_view_extent(monkeypatch):
    monkeypatch.setenv("TILEC_CHECK_BOUNDS", "1")
    base = np.zeros(16, np.float32)
    out = np.zeros(8, np.float32)
    oob_kernel[(1,)](base[8:], out, BLOCK=8)
    with pytest.raises(tilec.KernelError, match=r"at element 7 is out of bounds \(buffer has 7 elements\)"):
        oob_kernel[(1,)](base[9:], out, BLOCK=8)


def test_race_check(monkeypatch):
    monkeypatch.setenv("TILEC_CHECK_RACES", "1")
    out = np.zeros(1, np.float32)
    with pytest.raises(tilec.KernelError) as info:
        race_kernel[(4,)](out)
    assert "kernel 'race_kernel': write-write race on 'out_ptr' element 0" in str(info.value)
    # which two programs meet first depends on the threads' timing
    assert re.search(r"program \([0-3], 0, 0\) stores it at .* after program \([0-3], 0, 0\) stored it",
                     str(info.value))
    race_kernel[(1,)](out)  # one program: no race


def test_device_assert_needs_debug(monkeypatch):
    from kernels_native import assert_nodebug_kernel
    x = np.array([1, 2, -3, 4], np.float32)
    assert_nodebug_kernel[(1,)](x, 4, BLOCK=4)  # no debug: nothing checked, as in Triton
    with pytest.raises(tilec.KernelError, match="x must be non-negative"):
        assert_nodebug_kernel[(1,)](x, 4, BLOCK=4, debug=True)
    monkeypatch.setenv("TRITON_DEBUG", "1")
    with pytest.raises(tilec.KernelError, match="x must be non-negative"):
        assert_nodebug_kernel[(1,)](x, 4, BLOCK=4)


def test_check_all_from_the_environment(monkeypatch):
    x = np.arange(4, dtype=np.float32)
    out = np.zeros(8, np.float32)
    oob_kernel[(1,)](x, out, BLOCK=4)
    monkeypatch.setenv("TILEC_CHECK", "all")
    with pytest.raises(tilec.KernelError, match=r"load from 'x_ptr' at element 4 is out of bounds \(buffer has 4 "
                                                r"elements\) in program \(0, 0, 0\)"):
        oob_kernel[(1,)](x, out, BLOCK=8)
    with pytest.raises(tilec.KernelError, match="write-write race on 'out_ptr' element 0"):
        race_kernel[(4,)](np.zeros(1, np.float32))
    monkeypatch.setenv("TILEC_CHECK", "nan")  # a list: bounds not in it
    oob_kernel[(1,)](np.arange(16, dtype=np.float32)[:8], out, BLOCK=8)
    monkeypatch.setenv("TILEC_CHECK", "races,bounds")
    with pytest.raises(tilec.KernelError, match="out of bounds"):
        oob_kernel[(1,)](x, out, BLOCK=8)


def test_check_environment_typo_is_an_error(monkeypatch):
    monkeypatch.setenv("TILEC_CHECK", "bounds,rances")
    with pytest.raises(ValueError) as info:
        oob_kernel[(1,)](np.zeros(8, np.float32), np.zeros(8, np.float32), BLOCK=8)
    assert str(info.value) == ("TILEC_CHECK: unknown check 'rances' in 'bounds,rances' (expected all, none, or a "
                               "comma-separated list of bounds, nan, races and init)")


def test_triton_debug_turns_the_checks_on(monkeypatch):
    x = np.arange(4, dtype=np.float32)
    out = np.zeros(8, np.float32)
    oob_kernel[(1,)](x, out, BLOCK=8)  # unchecked: reads past x, nothing reported
    monkeypatch.setenv("TRITON_DEBUG", "1")
    with pytest.raises(tilec.KernelError, match=r"load from 'x_ptr' at element 4 is out of bounds"):
        oob_kernel[(1,)](x, out, BLOCK=8)
    with pytest.raises(tilec.KernelError, match="write-write race on 'out_ptr' element 0"):
        race_kernel[(4,)](np.zeros(1, np.float32))
    # debug=False at the launch is the caller's word: neither asserts nor checks
    oob_kernel[(1,)](x, out, BLOCK=8, debug=False)


def _line_here(text):
    for i, line in enumerate(open(__file__), 1):
        if text in line:
            return i
    raise AssertionError(text)


@tilec.jit
def shift_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    """dst[i] = src[i]: a race between programs only when dst and src overlap shifted."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)


def test_read_write_race_through_two_arguments(monkeypatch):
    monkeypatch.setenv("TILEC_CHECK", "races")
    x = np.arange(65, dtype=np.float32)
    shift_kernel[(4,)](x[:64], np.zeros(64, np.float32), 64, BLOCK=16)  # disjoint: fine
    shift_kernel[(4,)](x[:64], x[:64], 64, BLOCK=16)  # the same elements, each by one program
    with pytest.raises(tilec.KernelError) as info:
        shift_kernel[(4,)](x[1:], x[:64], 64, BLOCK=16)  # dst[i] is src[i - 1]: a neighbour's
    lineno = _line_here("tl.store(dst_ptr + offs, tl.load(src_ptr + offs")
    assert info.value.lineno == lineno
    assert ("kernel 'shift_kernel': read-write race on 'dst_ptr' element 16: program (1, 0, 0) stores it at "
            f"{__file__}:{lineno}:5 after program (0, 0, 0) loaded it at {__file__}:{lineno}:30") in str(info.value)


@tilec.jit
def row_softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


def test_bounds_check_writes_nothing_past_the_buffer(monkeypatch):
    # Softmax keeps exp(x - max) in its output row before the division (the store's row is
    # the buffer); with bounds checks that row must lie inside the output, or nothing of it
    # is written before the store reports.
    monkeypatch.setenv("TILEC_CHECK", "bounds")
    x = np.random.default_rng(3).standard_normal((4, 64)).astype(np.float32)
    whole = np.full(4 * 64 + 64, 7.0, np.float32)
    row_softmax_kernel[(4,)](whole[:4 * 64], x, 64, BLOCK=64)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(whole[:4 * 64].reshape(4, 64), e / e.sum(1, keepdims=True), rtol=1e-6)
    whole[:] = 7.0
    with pytest.raises(tilec.KernelError, match=r"store to 'out_ptr' at element 232 is out of bounds "
                                                r"\(buffer has 232 elements\) in program \(3, 0, 0\)"):
        row_softmax_kernel[(4,)](whole[:3 * 64 + 40], x, 64, BLOCK=64)
    assert (whole[3 * 64 + 40:] == 7.0).all()


@tilec.jit
def accumulate_kernel(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.load(acc_ptr + offs, mask=offs < n)
    tl.store(acc_ptr + offs, acc + tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@tilec.jit
def fill_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs.to(tl.float32), mask=offs < n)


def test_uninitialized_numpy(monkeypatch):
    monkeypatch.setenv("TILEC_CHECK", "init")
    x = np.ones(64, np.float32)
    acc = tilec.debug.uninitialized(np.empty(64, np.float32))
    with pytest.raises(tilec.KernelError) as info:
        accumulate_kernel[(4,)](x, acc, 64, BLOCK=16)
    lineno = _line_here("acc = tl.load(acc_ptr + offs")
    assert info.value.lineno == lineno
    assert ("kernel 'accumulate_kernel': load from 'acc_ptr' at element 0 reads memory nothing has stored to "
            "since it was marked uninitialized, in program (0, 0, 0)") in str(info.value)
    fill_kernel[(4,)](acc, 64, BLOCK=16)  # the stores mark what they write, across launches
    accumulate_kernel[(4,)](x, acc, 64, BLOCK=16)
    np.testing.assert_array_equal(acc, np.arange(64, dtype=np.float32) + 1)
    assert tilec.debug.forget(acc) is True
    assert tilec.debug.forget(acc) is False
    accumulate_kernel[(4,)](x, np.zeros(64, np.float32), 64, BLOCK=16)  # never marked


def test_uninitialized_needs_the_check(monkeypatch):
    acc = tilec.debug.uninitialized(np.zeros(64, np.float32))
    accumulate_kernel[(4,)](np.ones(64, np.float32), acc, 64, BLOCK=16)  # unchecked: nothing reported
    monkeypatch.setenv("TILEC_CHECK", "bounds,races")
    accumulate_kernel[(4,)](np.ones(64, np.float32), acc, 64, BLOCK=16)
    monkeypatch.setenv("TRITON_DEBUG", "1")
    monkeypatch.delenv("TILEC_CHECK")
    with pytest.raises(tilec.KernelError, match="reads memory nothing has stored to"):
        accumulate_kernel[(4,)](np.ones(64, np.float32), acc, 64, BLOCK=16)


def test_uninitialized_bad_arguments():
    with pytest.raises(TypeError, match=r"tilec.debug.uninitialized: expected a numpy array or a torch tensor, "
                                        r"got list"):
        tilec.debug.uninitialized([1, 2])
    with pytest.raises(ValueError, match="tilec.debug.uninitialized: the array is not C-contiguous"):
        tilec.debug.uninitialized(np.zeros((4, 4), np.float32)[:, 1])
    a = tilec.debug.uninitialized(np.zeros(16, np.float32))
    with pytest.raises(ValueError, match=r"tilec.debug.uninitialized: .*overlap"):
        tilec.debug.uninitialized(a[4:])
    assert tilec.debug.uninitialized(np.zeros(0, np.float32)).size == 0


@needs_torch
def test_uninitialized_torch(monkeypatch):
    import torch
    monkeypatch.setenv("TILEC_CHECK", "all")
    acc = tilec.debug.uninitialized(torch.empty(64))
    with pytest.raises(tilec.KernelError, match=r"load from 'acc_ptr' at element 0 reads memory"):
        accumulate_kernel[(4,)](torch.ones(64), acc, 64, BLOCK=16)
    fill_kernel[(4,)](acc, 64, BLOCK=16)
    accumulate_kernel[(4,)](torch.ones(64), acc, 64, BLOCK=16)
    assert torch.equal(acc, torch.arange(64, dtype=torch.float32) + 1)


def test_triton_debug_turns_the_checks_on_in_the_dropin(tmp_path):
    # Triton's own switch, in a program written for Triton (a fresh interpreter: the drop-in
    # takes over `import triton` for the whole process)
    import subprocess
    import sys
    script = tmp_path / "prog.py"
    script.write_text(
        "import numpy as np\n"
        "import tilec\n"
        "tilec.install_triton()\n"
        "import triton\n"
        "import triton.language as tl\n"
        "\n"
        "@triton.jit\n"
        "def oob(x_ptr, out_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    tl.store(out_ptr + offs, tl.load(x_ptr + offs))\n"
        "\n"
        "try:\n"
        "    oob[(1,)](np.arange(4, dtype=np.float32), np.zeros(8, np.float32), BLOCK=8)\n"
        "    print('no error')\n"
        "except tilec.KernelError as e:\n"
        "    print(e.message)\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tilec.__file__)))
    env.pop("TRITON_DEBUG", None)
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "no error", out.stderr
    env["TRITON_DEBUG"] = "1"
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == ("load from 'x_ptr' at element 4 is out of bounds (buffer has 4 elements) in "
                                  "program (0, 0, 0), tile index [4]"), out.stderr
