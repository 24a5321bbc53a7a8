"""Drop-in program (shape of Triton's tutorial 07): libdevice functions in kernels on
torch CPU tensors, also launched with the `extern_libs` option that names a libdevice
bitcode file for the GPU backends (accepted and ignored: tilec brings its own)."""

from pathlib import Path

import torch

import triton
import triton.language as tl
from triton.language.extra import libdevice

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
    tl.store(y_ptr + offsets, libdevice.tanh(x), mask=mask)


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

def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


# the GPU tutorial points the compiler at a libdevice bitcode file of its backend
current_dir = Path(triton.__file__).parent
libdir = current_dir / ("backends/nvidia/lib" if is_cuda() else "backends/amd/lib")
extern_libs = {"libdevice": str(libdir / "libdevice.10.bc")}
output_triton = torch.empty_like(x)
asin_kernel[grid](x, output_triton, n_elements, BLOCK_SIZE=1024, extern_libs=extern_libs)
assert torch.max(torch.abs(output_torch - output_triton)).item() < 1e-6

y = torch.empty_like(x)
tanh_kernel[grid](x * 4, y, n_elements, BLOCK_SIZE=512)
diff = torch.max(torch.abs(torch.tanh(x * 4) - y)).item()
print(f"tanh: max difference {diff}")
assert diff < 1e-6, diff
print("OK libdevice_asin")
