/* examples/softmax/aot.c — softmax through a precompiled kernel library: includes the header
 * `tilec compile --header` wrote for softmax.py, calls softmax_kernel_launch (one program per
 * row) and checks the result against a C reference. */
#include "softmax_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <tilec/runtime.h>

#include "reference.h"

int main(void) {
  float *x = malloc(sizeof(float) * ROWS * COLS), *out = malloc(sizeof(float) * ROWS * COLS);
  if (!x || !out) return 1;
  fill_input(x, ROWS, COLS);
  if (softmax_kernel_launch(ROWS, 1, 1, out, x, COLS, COLS, COLS) != 0) {
    fprintf(stderr, "softmax (aot): launch failed: %s\n", tilec_last_error());
    return 1;
  }
  double err = softmax_error(x, out, ROWS, COLS);
  int ok = err < 1e-6;
  printf("softmax (aot): %dx%d max_abs_err=%.3g %s\n", ROWS, COLS, err, ok ? "OK" : "MISMATCH");
  free(x);
  free(out);
  return ok ? 0 : 1;
}
