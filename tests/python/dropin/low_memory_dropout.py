"""Drop-in program (shape of Triton's tutorial 04): dropout whose mask comes from
tl.rand(seed, offsets), so it is never stored: checked for the kept/zeroed values, the
keep ratio, and reproducibility by seed."""

import torch

import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def _dropout(x_ptr, x_keep_ptr, output_ptr, n_elements, p, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    x_keep = tl.load(x_keep_ptr + offsets, mask=mask)
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def dropout(x, x_keep, p):
    output = torch.empty_like(x)
    assert x.is_contiguous()
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    _dropout[grid](x, x_keep, output, n_elements, p, BLOCK_SIZE=1024)
    return output


@triton.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def seeded_dropout(x, p, seed):
    output = torch.empty_like(x)
    assert x.is_contiguous()
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    _seeded_dropout[grid](x, output, n_elements, p, seed, BLOCK_SIZE=1024)
    return output


torch.manual_seed(0)
x = torch.randn(size=(10, ), device=DEVICE)
p = 0.5
x_keep = (torch.rand(size=(10, ), device=DEVICE) > p).to(torch.int32)
output = dropout(x, x_keep=x_keep, p=p)
expected = torch.where(x_keep.bool(), x / (1 - p), torch.zeros_like(x))
assert torch.allclose(output, expected), (output, expected)

x = torch.randn(size=(100000, ), device=DEVICE) + 10.0  # no zeros in the input
output = seeded_dropout(x, p=0.5, seed=123)
output2 = seeded_dropout(x, p=0.5, seed=123)
output3 = seeded_dropout(x, p=0.5, seed=512)
kept = output != 0
assert torch.equal(output, output2), "same seed, different masks"
assert not torch.equal(output, output3), "different seeds, same mask"
assert torch.allclose(output[kept], x[kept] * 2), "kept values are not x / (1 - p)"
ratio = kept.float().mean().item()
assert 0.48 < ratio < 0.52, f"keep ratio {ratio}"
print(f"dropout: keep ratio {ratio:.4f}")
print("OK low_memory_dropout")
