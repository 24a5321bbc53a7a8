"""Kernels whose output may be written early: softmax keeps exp(x - max) in its output row
and rescales it there when no row it reads overlaps that row, or the row is its own input
row read only by the exp (conversion/output_buffer.c); otherwise it keeps it on the stack. These launch such kernels on overlapping numpy views
(in place, shifted either way, a second input that is the output, a load between the sum
and the store) and on separate arrays, against numpy references computed from copies of
the inputs taken before the launch."""

import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def softmax_row(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    row = tl.program_id(0)
    x = tl.load(in_ptr + row * n + cols, mask=cols < n, other=-float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n + cols, num / tl.sum(num, axis=0), mask=cols < n)


@tilec.jit
def softmax_scaled(out_ptr, in_ptr, w_ptr, n, BLOCK: tl.constexpr):
    # a second load in the store's value: w may be the output itself
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + cols, mask=cols < n, other=-float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))
    den = tl.sum(num, axis=0)
    w = tl.load(w_ptr + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr + cols, num / den * w, mask=cols < n)


@tilec.jit
def softmax_keep_old(out_ptr, old_ptr, in_ptr, n, BLOCK: tl.constexpr):
    # the output's old contents are read between the sum and the store, kept elsewhere
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + cols, mask=cols < n, other=-float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))
    den = tl.sum(num, axis=0)
    old = tl.load(out_ptr + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr + cols, num / den, mask=cols < n)
    tl.store(old_ptr + cols, old, mask=cols < n)


@tilec.jit
def softmax_two_outputs(out_ptr, exp_ptr, in_ptr, n, BLOCK: tl.constexpr):
    # exp(x - max) is stored twice: it cannot live in either output early
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + cols, mask=cols < n, other=-float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + cols, num / tl.sum(num, axis=0), mask=cols < n)
    tl.store(exp_ptr + cols, num, mask=cols < n)


def _softmax(x):
    e = np.exp(x.astype(np.float64) - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _block(n):
    return 1 << max(0, (n - 1).bit_length())


def _close(got, exp):
    np.testing.assert_allclose(got, exp, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("rows, n", [(4, 1000), (3, 4096), (2, 17), (1, 1)])
def test_separate_arrays_and_padding(rows, n):
    x = (np.random.default_rng(n).standard_normal(rows * n) * 5).astype(np.float32)
    # guard elements after the last row: the padding lanes of the block must not be written
    out = np.full(rows * n + 64, 7.0, np.float32)
    softmax_row[(rows,)](out, x, n, BLOCK=_block(n))
    _close(out[:rows * n].reshape(rows, n), _softmax(x.reshape(rows, n)))
    assert np.all(out[rows * n:] == 7.0)


@pytest.mark.parametrize("n", [1000, 4096])
def test_in_place(n):
    x = (np.random.default_rng(1).standard_normal(2 * n) * 5).astype(np.float32)
    ref = _softmax(x.reshape(2, n))
    softmax_row[(2,)](x, x, n, BLOCK=_block(n))
    _close(x.reshape(2, n), ref)


@pytest.mark.parametrize("shift", [-37, -3, -1, 1, 3, 16, 37, 999])
def test_overlapping_rows(shift):
    n = 1000
    buf = np.zeros(n + 2048, np.float32)
    x = buf[1024:1024 + n]
    x[:] = np.random.default_rng(shift + 100).standard_normal(n).astype(np.float32) * 5
    ref = _softmax(x.copy())
    out = buf[1024 + shift:1024 + shift + n]
    softmax_row[(1,)](out, x, n, BLOCK=1024)
    _close(out, ref)


@pytest.mark.parametrize("alias", ["none", "w_is_out", "w_inside_out", "all_three"])
def test_second_load_of_the_output(alias):
    n = 777
    rng = np.random.default_rng(5)
    buf = rng.standard_normal(n + 10).astype(np.float32)
    out = buf[:n]
    x = out if alias == "all_three" else (rng.standard_normal(n) * 3).astype(np.float32)
    w = {"none": rng.standard_normal(n).astype(np.float32), "w_is_out": out, "w_inside_out": buf[5:5 + n],
         "all_three": out}[alias]
    ref = _softmax(x.copy()) * w.astype(np.float64)  # x and w as they were before the launch
    softmax_scaled[(1,)](out, x, w, n, BLOCK=1024)
    _close(out, ref)


def test_load_between_sum_and_store():
    n = 2000
    rng = np.random.default_rng(9)
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    out = rng.standard_normal(n).astype(np.float32)
    before = out.copy()
    old = np.zeros(n, np.float32)
    softmax_keep_old[(1,)](out, old, x, n, BLOCK=2048)
    np.testing.assert_array_equal(old, before)
    _close(out, _softmax(x))


def test_value_stored_twice():
    n = 3000
    x = (np.random.default_rng(3).standard_normal(n) * 3).astype(np.float32)
    out = np.zeros(n, np.float32)
    e = np.zeros(n, np.float32)
    softmax_two_outputs[(1,)](out, e, x, n, BLOCK=4096)
    _close(out, _softmax(x))
    np.testing.assert_allclose(e, np.exp(x.astype(np.float64) - x.max()), rtol=2e-6, atol=1e-30)
