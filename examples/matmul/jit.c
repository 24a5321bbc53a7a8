/* examples/matmul/jit.c — matmul compiled at run time like Triton's JIT does it: the signature
 * is built from the actual arguments (:16 for pointers aligned to 16 and integers divisible
 * by 16, "1" for unit strides), so each shape class gets its own cached specialization. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c17 */
#include <stdio.h>
#include <string.h>
#include <tilec/tilec.h>

#include "../jit_common.h"
#include "reference.h"

static void add_int(char *sig, size_t cap, int32_t v) {
  size_t n = strlen(sig);
  snprintf(sig + n, cap - n, v == 1 ? "1, " : v % 16 == 0 ? "i32:16, " : "i32, ");
}

static int run(const char *file, int32_t m, int32_t n, int32_t k) {
  float *a = aligned_alloc(64, sizeof(float) * ((size_t)m * k + 16));
  float *b = aligned_alloc(64, sizeof(float) * ((size_t)k * n + 16));
  float *c = aligned_alloc(64, sizeof(float) * ((size_t)m * n + 16));
  if (!a || !b || !c) return 1;
  fill_matrix(a, (int64_t)m * k, 1);
  fill_matrix(b, (int64_t)k * n, 2);
  int32_t ints[] = {m, n, k, k, 1, n, 1, n, 1};     /* M N K, then strides of A, B, C */
  char sig[512] = "*fp32:16, *fp32:16, *fp32:16, "; /* aligned_alloc(64) */
  for (int i = 0; i < 9; i++) add_int(sig, sizeof sig, ints[i]);
  size_t len = strlen(sig);
  snprintf(sig + len, sizeof sig - len, "%d, %d, %d, %d", BM, BN, BK, GROUP_M);
  char how[96];
  tilec_jit_kernel *kern = example_jit(file, "matmul_kernel", sig, how, sizeof how);
  if (!kern) return 1;
  /* Pack the runtime arguments: the ones the signature fixed to 1 are not passed. */
  void *args[12] = {&a, &b, &c};
  size_t nargs = 3;
  for (int i = 0; i < 9; i++)
    if (ints[i] != 1) args[nargs++] = &ints[i];
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (example_check(tilec_jit_kernel_launch(kern, grid_of(m, n), 1, 1, args, nargs, NULL), "matmul (jit): launch"))
    return 1;
  double s = seconds_since(&t0);
  double err = matmul_error(a, b, c, m, n, k);
  int ok = err < 1e-5;
  printf("matmul (jit): %dx%dx%d max_rel_err=%.3g %.1f GFLOP/s %s [%s]\n", m, n, k, err, 2.0 * m * n * k / s / 1e9,
         ok ? "OK" : "MISMATCH", how);
  tilec_jit_kernel_release(kern);
  free(a);
  free(b);
  free(c);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  const char *file = argc > 1 ? argv[1] : "examples/matmul/matmul.py";
  return run(file, 1024, 1024, 1024) | run(file, 257, 129, 100);
}
