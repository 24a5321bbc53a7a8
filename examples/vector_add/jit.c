/* examples/vector_add/jit.c — vector add compiled at run time: the JIT API reads add.py (path
 * in argv[1]), compiles add_kernel (or loads it from the disk cache), and launches it with
 * packed arguments; every element is checked against a plain C loop. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c17 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <tilec/tilec.h>

#include "../jit_common.h"

int main(int argc, char **argv) {
  const char *file = argc > 1 ? argv[1] : "examples/vector_add/add.py";
  int32_t n = 98432; /* not a multiple of BLOCK_SIZE: the last program is masked */
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *out = malloc(n * sizeof *out);
  if (!x || !y || !out) return 1;
  for (int32_t i = 0; i < n; i++) {
    x[i] = (float)(i % 1000) * 0.25f;
    y[i] = 1.0f / (float)(i + 1);
    out[i] = NAN;
  }
  char how[96];
  tilec_jit_kernel *k = example_jit(file, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024", how, sizeof how);
  if (!k) return 1;
  void *args[] = {&x, &y, &out, &n};
  if (example_check(tilec_jit_kernel_launch(k, (uint32_t)(n + 1023) / 1024, 1, 1, args, 4, NULL),
                    "vector_add (jit): launch"))
    return 1;
  double max_err = 0;
  for (int32_t i = 0; i < n; i++) {
    double err = fabs((double)out[i] - (double)(x[i] + y[i]));
    if (!(err <= max_err)) max_err = isnan(err) ? INFINITY : err;
  }
  printf("vector_add (jit): N=%d max_abs_err=%g %s [%s]\n", n, max_err, max_err == 0 ? "OK" : "MISMATCH", how);
  tilec_jit_kernel_release(k);
  free(x);
  free(y);
  free(out);
  return max_err == 0 ? 0 : 1;
}
