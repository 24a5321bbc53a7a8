/* bench/peers/opencl/vector_add.cl — PoCL peer for vector add: one work-item per element,
 * work-group size left to PoCL, which vectorizes across work-items of a group.
 * Equivalent to bench/kernels/vector_add.py (the global size is exactly n). */
__kernel void vadd(__global const float *x, __global const float *y, __global float *out) {
  size_t i = get_global_id(0);
  out[i] = x[i] + y[i];
}
