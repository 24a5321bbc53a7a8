/* bench/peers/opencl/softmax.cl — PoCL peer for softmax, written naively: one work-item per
 * row loops over its columns (max, exp and sum, scale). No local memory or sub-groups:
 * this is the straightforward port a user would write first. */
__kernel void softmax(__global const float *in, __global float *out, int cols) {
  size_t r = get_global_id(0);
  __global const float *x = in + r * (size_t)cols;
  __global float *y = out + r * (size_t)cols;
  float m = -INFINITY;
  for (int c = 0; c < cols; c++) m = fmax(m, x[c]);
  float sum = 0.0f;
  for (int c = 0; c < cols; c++) {
    float e = exp(x[c] - m);
    y[c] = e;
    sum += e;
  }
  float inv = 1.0f / sum;
  for (int c = 0; c < cols; c++) y[c] *= inv;
}
