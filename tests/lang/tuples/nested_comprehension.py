# A kernel the parser refuses (tests/lang, family "tuples"): in a file of its own, since a parse
# error stops the whole file.
import triton
import triton.language as tl


@triton.jit
def comprehension_nested_kernel(out_ptr):
    u = [i for i in (1, 2) for j in (3, 4)]
    tl.store(out_ptr, len(u))
