"""tilec._C.Compiler(enable_fp_fusion=...): Triton's option of that name on the GPU targets.
By default a * b + c compiles to one fma on nvptx (as Triton compiles for NVIDIA GPUs);
enable_fp_fusion=False keeps the product and the sum rounded on their own (mul.rn, add.rn,
which ptxas does not fuse either). The CPU targets never fuse."""

from tilec import _C

SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def axpy(x_ptr, y_ptr, out_ptr, a, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, a * tl.load(x_ptr + offs) + tl.load(y_ptr + offs))
'''


def _ptx(**options):
    return _C.Compiler(target="nvptx", **options).emit(stage="asm", filename="k.py", source=SOURCE, kernel="axpy",
                                                       signature="*fp32:16, *fp32:16, *fp32:16, fp32, 256")


def test_fp_fusion_is_on_by_default_on_nvptx():
    ptx = _ptx()
    assert "fma.rn.f32" in ptx and "mul.rn.f32" not in ptx


def test_enable_fp_fusion_false_keeps_products_and_sums_apart():
    ptx = _ptx(enable_fp_fusion=False)
    assert "fma.rn.f32" not in ptx
    assert "mul.rn.f32" in ptx and "add.rn.f32" in ptx
    assert "fma.rn.f32" in _ptx(enable_fp_fusion=True)
