/* bench/peers/opencl/matmul.cl — PoCL peer for matmul, naive: one work-item per element of
 * C (dimension 0 = column, so neighbouring work-items read neighbouring B elements and PoCL
 * can vectorize across them), a plain K loop, no tiling or local memory. */
__kernel void matmul(__global const float *a, __global const float *b, __global float *c, int n) {
  size_t j = get_global_id(0), i = get_global_id(1);
  float acc = 0.0f;
  for (int k = 0; k < n; k++) acc += a[i * (size_t)n + k] * b[(size_t)k * n + j];
  c[i * (size_t)n + j] = acc;
}
