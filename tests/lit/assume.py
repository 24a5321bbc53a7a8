# tl.assume on a runtime scalar reaches LLVM as llvm.assume (Triton emits llvm.intr.assume),
# so code the assumption rules out is dropped: the 'else' store of 7 disappears.
# RUN: %tilec compile %s -k k -s "*i32, i32" --emit tile | FileCheck %s --check-prefix=TILE
# RUN: %tilec compile %s -k k -s "*i32, i32" --emit llvm | FileCheck %s --check-prefix=LLVM
import triton
import triton.language as tl


@triton.jit
def k(out_ptr, n):
    size = n - tl.program_id(0) * 128
    tl.assume(size >= 128)
    if size >= 128:
        tl.store(out_ptr + tl.program_id(0), size)
    else:
        tl.store(out_ptr + tl.program_id(0), 7)

# TILE: llvm.intr.assume
# LLVM: call void @llvm.assume
# LLVM-NOT: store i32 7
