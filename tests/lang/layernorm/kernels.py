# Layer norm forward (tests/lang, family "layernorm").
import triton
import triton.language as tl


@triton.jit
def ln_fwd_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps,
                  BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    part = tl.zeros([BLOCK], dtype=tl.float32)
    for c0 in range(0, N, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        part += tl.load(x_row + cols, mask=cols < N, other=0.0).to(tl.float32)
    mu = tl.sum(part, axis=0) / N
    sq = tl.zeros([BLOCK], dtype=tl.float32)
    for c0 in range(0, N, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        d = tl.load(x_row + cols, mask=cols < N, other=0.0).to(tl.float32)
        d = tl.where(cols < N, d - mu, 0.0)
        sq += d * d
    var = tl.sum(sq, axis=0) / N
    inv = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mu)
    tl.store(rstd_ptr + row, inv)
    for c0 in range(0, N, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        m = cols < N
        g = tl.load(w_ptr + cols, mask=m)
        h = tl.load(b_ptr + cols, mask=m)
        v = tl.load(x_row + cols, mask=m, other=0.0).to(tl.float32)
        tl.store(y_row + cols, (v - mu) * inv * g + h, mask=m)
