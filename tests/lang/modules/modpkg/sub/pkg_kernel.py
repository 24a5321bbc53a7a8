"""A kernel inside a package, importing helpers by absolute and relative package paths."""
import triton
import triton.language as tl

import modpkg.ops as mo
from modpkg import ops
from modpkg.ops import triple
from ..ops import triple as triple_rel


@triton.jit
def package_imports_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, triple(x) + triple_rel(x) + ops.triple(x) + mo.triple(x))
