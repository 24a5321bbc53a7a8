# bench/kernels/cross_entropy.py — benchmark kernel: cross entropy over a large vocabulary the
# way Liger-Kernel's training kernel is written (same math, tilec's own code): one program per
# row of logits; a first sweep over the vocabulary in BLOCK_SIZE chunks keeps an online
# softmax (running max m and running sum d of exp(x - m)); the row's loss is
# m + log(d) - x[target]; a second sweep in the same kernel writes the gradient of the mean
# loss, (softmax(x) - onehot(target)) / n_valid, over the logits (dx_ptr may be x_ptr: in
# place, as Liger does, so the logits' memory holds the gradient). Rows whose target is
# ignore_index get loss 0 and a zero gradient. Statistics in fp32 for bf16 logits.
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(x_ptr, dx_ptr, target_ptr, loss_ptr, row_stride, n_cols, n_valid, ignore_index,
                         BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * row_stride
    dx_row = dx_ptr + row * row_stride
    target = tl.load(target_ptr + row)
    if target == ignore_index:
        for start in range(0, n_cols, BLOCK_SIZE):
            cols = start + tl.arange(0, BLOCK_SIZE)
            tl.store(dx_row + cols, tl.zeros([BLOCK_SIZE], dtype=dx_ptr.dtype.element_ty), mask=cols < n_cols)
        tl.store(loss_ptr + row, 0.0)
        return
    x_target = tl.load(x_row + target).to(tl.float32)
    m = float("-inf")
    d = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    lse = m + tl.log(d)
    tl.store(loss_ptr + row, (lse - x_target) / n_valid)
    inv_d = 1.0 / d
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=float("-inf")).to(tl.float32)
        g = tl.exp(x - m) * inv_d
        g = tl.where(cols == target, g - 1.0, g) / n_valid
        tl.store(dx_row + cols, g.to(dx_ptr.dtype.element_ty), mask=mask)
