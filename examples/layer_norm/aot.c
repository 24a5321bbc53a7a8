/* examples/layer_norm/aot.c — layer norm through a precompiled kernel library: calls
 * layer_norm_kernel_launch from the generated header (one program per row) and checks the
 * result against a C reference. */
#include "layer_norm_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <tilec/runtime.h>

#include "reference.h"

int main(void) {
  float *x = malloc(sizeof(float) * ROWS * N), *y = malloc(sizeof(float) * ROWS * N);
  float *w = malloc(sizeof(float) * N), *b = malloc(sizeof(float) * N);
  if (!x || !y || !w || !b) return 1;
  fill_inputs(x, w, b);
  if (layer_norm_kernel_launch(ROWS, 1, 1, x, y, w, b, N, N, EPS) != 0) {
    fprintf(stderr, "layer_norm (aot): launch failed: %s\n", tilec_last_error());
    return 1;
  }
  double err = layer_norm_error(x, w, b, y);
  int ok = err < 1e-4;
  printf("layer_norm (aot): %dx%d max_abs_err=%.3g %s\n", ROWS, N, err, ok ? "OK" : "MISMATCH");
  free(x);
  free(y);
  free(w);
  free(b);
  return ok ? 0 : 1;
}
