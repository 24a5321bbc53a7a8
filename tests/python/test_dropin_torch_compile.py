"""torch.compile in a process where `import triton` is tilec's drop-in (issue 33 item 1).

torch's Inductor imports Triton whenever it is importable (triton.runtime.cache,
triton_key, triton.compiler.compiler, ...). The drop-in answers what it reads, and its
triton.backends.backends is empty (tilec is not a plugin of Triton's compiler), so
Inductor compiles CPU graphs with its C++ backend and a drop-in kernel called inside a
compiled function runs eagerly on tilec (a graph break). References: the same functions
run eagerly. Inductor's C++ backend needs a C++ compiler (g++)."""

import shutil

import pytest

import tilec

tilec.install_triton()

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("c++") is None,
                                reason="torch.compile's C++ backend needs a C++ compiler")


@triton.jit
def add_one_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + 1.0, mask=m)


def _add_one(x):
    out = torch.empty_like(x)
    add_one_kernel[(triton.cdiv(x.numel(), 64), )](x, out, x.numel(), BLOCK=64)
    return out


def small_function(x, w):
    return (torch.sin(x) * w + torch.relu(x - 0.25)).sum(dim=-1)


def with_dropin_kernel(x):
    y = torch.cos(x) * 2
    return _add_one(y) - 1


def test_torch_compile_forward_and_backward_with_the_dropin_active():
    import torch._inductor.runtime.triton_compat as compat
    assert compat.HAS_TRITON and compat.triton is triton  # Inductor imported the drop-in, and it loaded
    torch._dynamo.reset()
    x = torch.randn(8, 33, requires_grad=True)
    w = torch.randn(33, requires_grad=True)
    xe, we = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    compiled = torch.compile(small_function)
    out = compiled(x, w)
    ref = small_function(xe, we)
    torch.testing.assert_close(out, ref)
    out.sum().backward()
    ref.sum().backward()
    torch.testing.assert_close(x.grad, xe.grad)
    torch.testing.assert_close(w.grad, we.grad)


def test_dropin_kernel_inside_and_beside_a_compiled_function():
    torch._dynamo.reset()
    x = torch.randn(100)
    compiled = torch.compile(with_dropin_kernel)
    torch.testing.assert_close(compiled(x), torch.cos(x) * 2)  # the kernel ran eagerly, on tilec
    assert isinstance(add_one_kernel, tilec.JITFunction)
    kernel = add_one_kernel.warmup(x, x, 100, BLOCK=64, grid=(2, ))
    assert isinstance(kernel, tilec.CompiledKernel)  # tilec's compiled kernel, not Triton's
    torch.testing.assert_close(_add_one(x), x + 1)
