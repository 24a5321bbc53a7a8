/* examples/vector_add/main.c — a C host program for add.py's add_kernel: it includes the
 * header `tilec compile --header` generated, links only the kernel .so, launches one program
 * per 1024 elements and checks every element against a plain C loop. */
#include "add_kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <tilec/runtime.h>

#define BLOCK_SIZE 1024 /* the constexpr in the signature given to tilec compile */

static uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

int main(void) {
  /* Not a multiple of BLOCK_SIZE, so the last program runs with a partial mask. */
  const int32_t n = 98432;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *out = malloc(n * sizeof *out);
  if (!x || !y || !out) {
    fprintf(stderr, "vector_add: out of memory\n");
    return 1;
  }
  for (int32_t i = 0; i < n; i++) {
    x[i] = (float)(i % 1000) * 0.25f;
    y[i] = 1.0f / (float)(i + 1);
    out[i] = NAN; /* so an element the kernel skipped cannot pass */
  }

  if (add_kernel_launch(cdiv(n, BLOCK_SIZE), 1, 1, x, y, out, n) != 0) {
    fprintf(stderr, "vector_add: launch failed: %s\n", tilec_last_error());
    return 1;
  }

  double max_err = 0;
  int32_t bad = -1;
  for (int32_t i = 0; i < n; i++) {
    float want = x[i] + y[i];
    double err = fabs((double)out[i] - (double)want);
    if (!(err <= max_err)) { /* NaN compares false: counts as an error */
      max_err = isnan(err) ? INFINITY : err;
      if (bad < 0) bad = i;
    }
  }
  free(x);
  free(y);
  free(out);
  printf("vector_add: N=%d max_abs_err=%g %s\n", n, max_err, max_err == 0 ? "OK" : "MISMATCH");
  if (max_err != 0) {
    fprintf(stderr, "vector_add: first mismatch at index %d\n", bad);
    return 1;
  }
  return 0;
}
