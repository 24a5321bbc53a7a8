/* examples/matmul/aot.c — matmul through a precompiled library holding two specializations
 * (all :16 hints with unit strides, and a generic one); matmul_kernel_launch picks per call.
 * Runs an aligned 1024^3 product (fast variant) and an odd-sized one (generic variant). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c17 */
#include "matmul_kernel.h"

#include <stdio.h>
#include <tilec/runtime.h>

#include "reference.h"

/* Row-major C = A @ B; returns 0 when it matches the reference. */
static int run(int32_t m, int32_t n, int32_t k) {
  float *a = aligned_alloc(64, sizeof(float) * ((size_t)m * k + 16));
  float *b = aligned_alloc(64, sizeof(float) * ((size_t)k * n + 16));
  float *c = aligned_alloc(64, sizeof(float) * ((size_t)m * n + 16));
  if (!a || !b || !c) return 1;
  fill_matrix(a, (int64_t)m * k, 1);
  fill_matrix(b, (int64_t)k * n, 2);
  const char *variant = matmul_kernel_launch_variant(a, b, c, m, n, k, k, 1, n, 1, n, 1);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (matmul_kernel_launch(grid_of(m, n), 1, 1, a, b, c, m, n, k, k, 1, n, 1, n, 1) != 0) {
    fprintf(stderr, "matmul (aot): launch failed: %s\n", tilec_last_error());
    return 1;
  }
  double s = seconds_since(&t0);
  double err = matmul_error(a, b, c, m, n, k);
  int ok = err < 1e-5;
  printf("matmul (aot): %dx%dx%d via %s max_rel_err=%.3g %.1f GFLOP/s %s\n", m, n, k, variant ? variant : "?", err,
         2.0 * m * n * k / s / 1e9, ok ? "OK" : "MISMATCH");
  free(a);
  free(b);
  free(c);
  return ok ? 0 : 1;
}

int main(void) { return run(1024, 1024, 1024) | run(257, 129, 100); }
