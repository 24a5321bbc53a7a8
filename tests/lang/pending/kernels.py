# Constructs listed as not supported yet (tests/lang, family "pending"): each case is XFAIL
# while the compiler says so, and checked like any other once it compiles; a kernel moves to
# its family's folder when it does (the atomics, scans, block-pointer, descriptor and
# device_print kernels that started here have).
import triton
import triton.language as tl


@triton.jit
def sort_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.sort(tl.load(x_ptr + i)))
