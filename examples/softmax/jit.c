/* examples/softmax/jit.c — softmax compiled at run time: reads softmax.py (path in argv[1]),
 * compiles it through the JIT API (cached on disk for the next run), launches one program
 * per row and checks the result against a C reference. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c17 */
#include <stdio.h>
#include <stdlib.h>
#include <tilec/tilec.h>

#include "../jit_common.h"
#include "reference.h"

int main(int argc, char **argv) {
  const char *file = argc > 1 ? argv[1] : "examples/softmax/softmax.py";
  float *x = malloc(sizeof(float) * ROWS * COLS), *out = malloc(sizeof(float) * ROWS * COLS);
  if (!x || !out) return 1;
  fill_input(x, ROWS, COLS);
  char how[96];
  tilec_jit_kernel *k = example_jit(file, "softmax_kernel", "*fp32:16, *fp32:16, i32, i32, i32, 1024", how, sizeof how);
  if (!k) return 1;
  int32_t cols = COLS;
  void *args[] = {&out, &x, &cols, &cols, &cols};
  if (example_check(tilec_jit_kernel_launch(k, ROWS, 1, 1, args, 5, NULL), "softmax (jit): launch")) return 1;
  double err = softmax_error(x, out, ROWS, COLS);
  int ok = err < 1e-6;
  printf("softmax (jit): %dx%d max_abs_err=%.3g %s [%s]\n", ROWS, COLS, err, ok ? "OK" : "MISMATCH", how);
  tilec_jit_kernel_release(k);
  free(x);
  free(out);
  return ok ? 0 : 1;
}
