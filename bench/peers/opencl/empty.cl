/* bench/peers/opencl/empty.cl — PoCL peer for launch overhead: a kernel that does nothing,
 * with one buffer argument like bench/kernels/empty.py. Launched with work-groups of one
 * work-item, so a grid of G tilec programs maps to G work-groups. */
__kernel void empty(__global float *x) {
  (void)x;
}
