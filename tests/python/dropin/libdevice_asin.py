"""Drop-in program (shape of Triton's tutorial 07): a libdevice function imported from
the CUDA-specific path, used in a kernel on torch CPU tensors."""

import torch

import triton
import triton.language as tl
from triton.language.extra import libdevice
from triton.language.extra.cuda import libdevice as cuda_libdevice

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def asin_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    x = libdevice.asin(x)
    tl.store(y_ptr + offsets, x, mask=mask)


@triton.jit
def tanh_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, cuda_libdevice.tanh(x), mask=mask)


torch.manual_seed(0)
size = 98432
x = torch.rand(size, device=DEVICE) * 2 - 1
output_triton = torch.zeros(size, device=DEVICE)
output_torch = torch.asin(x)
n_elements = output_torch.numel()
grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
asin_kernel[grid](x, output_triton, n_elements, BLOCK_SIZE=1024)
diff = torch.max(torch.abs(output_torch - output_triton)).item()
print(f"asin: max difference {diff}")
assert diff < 1e-6, diff

y = torch.empty_like(x)
tanh_kernel[grid](x * 4, y, n_elements, BLOCK_SIZE=512)
diff = torch.max(torch.abs(torch.tanh(x * 4) - y)).item()
print(f"tanh: max difference {diff}")
assert diff < 1e-6, diff
print("OK libdevice_asin")
