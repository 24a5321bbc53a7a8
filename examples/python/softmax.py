"""A Python host program: Triton's fused softmax compiled by tilec and launched on numpy
arrays (and torch CPU tensors when torch is installed), checked against numpy.

    pip install .            # at the repository root (scripts/demo.sh does it in a venv)
    python examples/python/softmax.py
"""

import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    # Each program normalizes rows pid, pid + num_programs, ... (a persistent loop).
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x, out):
    """Row-wise softmax of a 2-D float32 array or tensor into out."""
    n_rows, n_cols = x.shape
    # strides in elements: numpy counts bytes, torch elements
    in_stride = x.strides[0] // x.itemsize if isinstance(x, np.ndarray) else x.stride(0)
    out_stride = out.strides[0] // out.itemsize if isinstance(out, np.ndarray) else out.stride(0)
    grid = lambda meta: (min(meta["n_rows"], 64),)  # noqa: E731
    return softmax_kernel[grid](out, x, in_stride, out_stride, n_rows, n_cols,
                                BLOCK=tilec.next_power_of_2(n_cols))


def reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1823, 781), dtype=np.float32)
    out = np.empty_like(x)
    kernel = softmax(x, out)
    err = np.max(np.abs(out - reference(x)))
    print(f"numpy: softmax {x.shape} with {kernel.name} [{kernel.signature}]: max abs error {err:.2e}",
          "OK" if err < 1e-5 else "WRONG")
    ok = err < 1e-5
    try:
        import torch
    except ImportError:
        print("torch: not installed, skipped")
    else:
        xt = torch.from_numpy(x)[:, 5:]  # a non-contiguous view: rows 781 apart, 776 columns
        yt = torch.empty(xt.shape)
        softmax(xt, yt)
        err_t = (yt - torch.softmax(xt, dim=1)).abs().max().item()
        print(f"torch: softmax of a strided view {tuple(xt.shape)}: max abs error {err_t:.2e}",
              "OK" if err_t < 1e-5 else "WRONG")
        ok = ok and err_t < 1e-5
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
