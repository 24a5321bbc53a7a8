# bench/kernels/empty.py — benchmark kernel that does nothing: launching it measures the
# launcher's fixed cost (argument packing, grid walk, OpenMP team wake-up). It takes one
# pointer so the launch passes an argument, like the OpenCL peer `empty(__global float *)`.
import triton
import triton.language as tl


@triton.jit
def empty_kernel(x_ptr):
    pass
