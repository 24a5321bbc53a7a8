# Row-wise fused softmax, persistent over rows (tests/lang, family "softmax").
import triton
import triton.language as tl


@triton.jit
def row_softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                       BLOCK: tl.constexpr, STAGES: tl.constexpr):
    first = tl.program_id(0)
    step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    for row in tl.range(first, n_rows, step, num_stages=STAGES):
        src = in_ptr + row * in_stride
        vals = tl.load(src + cols, mask=valid, other=-float("inf"))
        shifted = vals - tl.max(vals, axis=0)
        num = tl.exp(shifted)
        den = tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_stride + cols, num / den, mask=valid)


@triton.jit
def online_softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    # one row per program, columns in chunks: running max and rescaled running sum
    row = tl.program_id(0)
    base = in_ptr + row * n_cols
    cols = tl.arange(0, BLOCK)
    m = -float("inf")
    s = 0.0
    for c0 in range(0, n_cols, BLOCK):
        x = tl.load(base + c0 + cols, mask=c0 + cols < n_cols, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for c0 in range(0, n_cols, BLOCK):
        x = tl.load(base + c0 + cols, mask=c0 + cols < n_cols, other=0.0)
        tl.store(out_ptr + row * n_cols + c0 + cols, tl.exp(x - m) / s, mask=c0 + cols < n_cols)
