/* bench/peers/opencl/layernorm.cl — PoCL peer for layer norm forward, naive like the
 * softmax peer: one work-item per row, two-pass mean/variance, then scale and shift.
 * Writes mean and 1/std per row, as bench/kernels/layernorm.py does. */
__kernel void layernorm(__global const float *x, __global float *y, __global const float *w,
                        __global const float *b, __global float *mean_out, __global float *rstd_out,
                        int cols, float eps) {
  size_t r = get_global_id(0);
  __global const float *xr = x + r * (size_t)cols;
  __global float *yr = y + r * (size_t)cols;
  float sum = 0.0f;
  for (int c = 0; c < cols; c++) sum += xr[c];
  float mean = sum / (float)cols;
  float sq = 0.0f;
  for (int c = 0; c < cols; c++) sq += (xr[c] - mean) * (xr[c] - mean);
  float rstd = 1.0f / sqrt(sq / (float)cols + eps);
  mean_out[r] = mean;
  rstd_out[r] = rstd;
  for (int c = 0; c < cols; c++) yr[c] = (xr[c] - mean) * rstd * w[c] + b[c];
}
