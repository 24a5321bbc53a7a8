/* examples/matmul/reference.h — inputs, plain C reference and comparison shared by the AOT
 * (aot.c) and JIT (jit.c) host programs of matmul.py.
 * In: row-major A (M x K) and B (K x N). Out: the max relative error of C against A @ B. */
#ifndef EXAMPLES_MATMUL_REFERENCE_H
#define EXAMPLES_MATMUL_REFERENCE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Tile sizes the kernel is compiled with (the signatures in jit.c and scripts/examples.sh).
 * Measured at 1024^3 on 2 cores (best of 7, GFLOP/s): 32x32x32 91, 64x64x32 127, 64x128x32
 * 127, 128x128x32 131, 128x128x64 124, 64x64x64 120. 64x128 is within noise of 128x128 and
 * gives twice as many programs to spread over more cores. */
enum { BM = 64, BN = 128, BK = 32, GROUP_M = 8 };

static void fill_matrix(float *a, int64_t n, uint32_t seed) {
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    a[i] = (float)(seed >> 8) / (float)(1u << 24) - 0.5f;
  }
}

static uint32_t grid_of(int32_t m, int32_t n) { return (uint32_t)(((m + BM - 1) / BM) * ((n + BN - 1) / BN)); }

/* |C - A @ B| relative to sum |A||B| per element (the fp32 rounding scale). */
static double matmul_error(const float *a, const float *b, const float *c, int32_t m, int32_t n, int32_t k) {
  double worst = 0;
  double *row = malloc(sizeof(double) * (size_t)n), *mag = malloc(sizeof(double) * (size_t)n);
  for (int32_t i = 0; i < m; i++) {
    for (int32_t j = 0; j < n; j++) row[j] = mag[j] = 0;
    for (int32_t p = 0; p < k; p++) {
      double av = a[(int64_t)i * k + p];
      const float *br = b + (int64_t)p * n;
      for (int32_t j = 0; j < n; j++) {
        row[j] += av * br[j];
        mag[j] += fabs(av * br[j]);
      }
    }
    for (int32_t j = 0; j < n; j++) {
      double err = fabs(c[(int64_t)i * n + j] - row[j]) / (mag[j] + 1e-30);
      if (!(err <= worst)) worst = isnan(err) ? INFINITY : err;
    }
  }
  free(row);
  free(mag);
  return worst;
}

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

#endif
