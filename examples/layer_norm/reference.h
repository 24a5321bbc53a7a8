/* examples/layer_norm/reference.h — inputs, plain C reference and comparison shared by the
 * AOT (aot.c) and JIT (jit.c) host programs of layer_norm.py.
 * In: rows of x, weights w and biases b. Out: the normalized rows in double precision. */
#ifndef EXAMPLES_LAYER_NORM_REFERENCE_H
#define EXAMPLES_LAYER_NORM_REFERENCE_H

#include <math.h>
#include <stdint.h>

/* N is not a multiple of BLOCK: every pass ends with a partial chunk. */
enum { ROWS = 1151, N = 1000, BLOCK = 256 };
#define EPS 1e-5f

static void fill_inputs(float *x, float *w, float *b) {
  uint32_t s = 777;
  for (int64_t i = 0; i < (int64_t)ROWS * N; i++) {
    s = s * 1664525u + 1013904223u;
    /* An offset per row so the mean matters. */
    x[i] = (float)(s >> 8) / (float)(1u << 24) * 4.0f - 2.0f + (float)(i / N % 7);
  }
  for (int i = 0; i < N; i++) {
    w[i] = 0.5f + (float)i / N;
    b[i] = (float)(i % 13) * 0.1f - 0.6f;
  }
}

static double layer_norm_error(const float *x, const float *w, const float *b, const float *y) {
  double worst = 0;
  for (int r = 0; r < ROWS; r++) {
    const float *xr = x + (int64_t)r * N;
    double mean = 0, var = 0;
    for (int i = 0; i < N; i++) mean += xr[i];
    mean /= N;
    for (int i = 0; i < N; i++) var += (xr[i] - mean) * (xr[i] - mean);
    double rstd = 1.0 / sqrt(var / N + EPS);
    for (int i = 0; i < N; i++) {
      double err = fabs(y[(int64_t)r * N + i] - ((xr[i] - mean) * rstd * w[i] + b[i]));
      if (!(err <= worst)) worst = isnan(err) ? INFINITY : err;
    }
  }
  return worst;
}

#endif
