/* examples/softmax/reference.h — inputs, plain C reference and comparison shared by the AOT
 * (aot.c) and JIT (jit.c) host programs of softmax.py.
 * In: a row-major matrix. Out: the row-wise softmax in double precision, and the max error. */
#ifndef EXAMPLES_SOFTMAX_REFERENCE_H
#define EXAMPLES_SOFTMAX_REFERENCE_H

#include <math.h>
#include <stdint.h>

/* Odd sizes: the last lanes of every row are masked off. */
enum { ROWS = 1823, COLS = 781, BLOCK = 1024 };

static void fill_input(float *x, int32_t rows, int32_t cols) {
  uint32_t s = 12345;
  for (int64_t i = 0; i < (int64_t)rows * cols; i++) {
    s = s * 1664525u + 1013904223u;
    x[i] = (float)(s >> 8) / (float)(1u << 24) * 20.0f - 10.0f;
  }
}

/* Largest |out - softmax(x)| over the matrix; NaN counts as infinitely wrong. */
static double softmax_error(const float *x, const float *out, int32_t rows, int32_t cols) {
  double worst = 0;
  for (int32_t r = 0; r < rows; r++) {
    const float *xr = x + (int64_t)r * cols;
    double mx = -INFINITY, sum = 0;
    for (int32_t c = 0; c < cols; c++) mx = fmax(mx, xr[c]);
    for (int32_t c = 0; c < cols; c++) sum += exp(xr[c] - mx);
    for (int32_t c = 0; c < cols; c++) {
      double err = fabs(out[(int64_t)r * cols + c] - exp(xr[c] - mx) / sum);
      if (!(err <= worst)) worst = isnan(err) ? INFINITY : err;
    }
  }
  return worst;
}

#endif
