/* examples/layer_norm/jit.c — layer norm compiled at run time from layer_norm.py (path in
 * argv[1]) through the JIT API, launched with packed arguments (one program per row) and
 * checked against a C reference. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c17 */
#include <stdio.h>
#include <stdlib.h>
#include <tilec/tilec.h>

#include "../jit_common.h"
#include "reference.h"

int main(int argc, char **argv) {
  const char *file = argc > 1 ? argv[1] : "examples/layer_norm/layer_norm.py";
  float *x = malloc(sizeof(float) * ROWS * N), *y = malloc(sizeof(float) * ROWS * N);
  float *w = malloc(sizeof(float) * N), *b = malloc(sizeof(float) * N);
  if (!x || !y || !w || !b) return 1;
  fill_inputs(x, w, b);
  char how[96];
  tilec_jit_kernel *k = example_jit(file, "layer_norm_kernel",
                                    "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32, 256", how, sizeof how);
  if (!k) return 1;
  int32_t n = N;
  float eps = EPS;
  void *args[] = {&x, &y, &w, &b, &n, &n, &eps};
  if (example_check(tilec_jit_kernel_launch(k, ROWS, 1, 1, args, 7, NULL), "layer_norm (jit): launch")) return 1;
  double err = layer_norm_error(x, w, b, y);
  int ok = err < 1e-4;
  printf("layer_norm (jit): %dx%d max_abs_err=%.3g %s [%s]\n", ROWS, N, err, ok ? "OK" : "MISMATCH", how);
  tilec_jit_kernel_release(k);
  free(x);
  free(y);
  free(w);
  free(b);
  return ok ? 0 : 1;
}
