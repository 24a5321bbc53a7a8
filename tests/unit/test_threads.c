/* tests/unit/test_threads.c — compilers on different threads are independent: four threads
 * each create a compiler and JIT-compile (memory cache only) a kernel with a reduction
 * (a combine function) and a device_assert (a string global), then run it against a C
 * loop; the names the compilers generate must not depend on what other threads compiled.
 * Run it under ThreadSanitizer to check for shared state (see the issue 13 report).
 * In: kernel source as a string. Out: a Check suite. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilec/runtime.h"
#include "tilec/tilec.h"

static const char source[] = "import triton\n"
                             "import triton.language as tl\n"
                             "\n"
                             "@triton.jit\n"
                             "def row_max_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                             "    row = tl.program_id(0)\n"
                             "    offs = tl.arange(0, BLOCK)\n"
                             "    x = tl.load(x_ptr + row * n + offs, mask=offs < n, other=-float('inf'))\n"
                             "    tl.device_assert(n <= BLOCK, \"row longer than the block\")\n"
                             "    m = tl.max(x, axis=0)\n"
                             "    s = tl.sum(tl.where(offs < n, x - m, 0.0), axis=0)\n"
                             "    tl.store(out_ptr + row, m + s * 0.0)\n";

#define THREADS 4
#define ROWS 8

typedef struct job {
  int block, n;
  char error[512];
  char *ir;
} job;

static void *compile_and_run(void *arg) {
  job *j = arg;
  tilec_compile_options o;
  tilec_compile_options_init(&o);
  o.cache_dir = ""; /* memory only: every thread really compiles */
  tilec_compiler *c = NULL;
  tilec_status *st = tilec_compiler_create(&o, &c);
  char sig[64];
  snprintf(sig, sizeof sig, "*fp32, *fp32, i32, %d", j->block);
  tilec_kernel_spec spec = {.source = source,
                            .source_len = sizeof source - 1,
                            .filename = "rowmax.py",
                            .kernel = "row_max_kernel",
                            .signature = sig};
  for (int rep = 0; !st && rep < 2; rep++) {
    tilec_jit_kernel *k = NULL;
    st = tilec_jit_compile(c, &spec, &k, NULL);
    float x[ROWS * 64], out[ROWS];
    for (int i = 0; i < ROWS * j->n; i++) x[i] = (float)((i * 37 + j->block) % 101) - 50.0f;
    int32_t n = j->n;
    float *px = x, *po = out;
    void *args[] = {&px, &po, &n};
    if (!st) st = tilec_jit_kernel_launch(k, ROWS, 1, 1, args, 3, NULL);
    for (int r = 0; !st && r < ROWS; r++) {
      float want = x[r * n];
      for (int i = 1; i < n; i++) want = x[r * n + i] > want ? x[r * n + i] : want;
      if (out[r] != want)
        snprintf(j->error, sizeof j->error, "block %d row %d: %g, want %g", j->block, r, (double)out[r], (double)want);
    }
    tilec_jit_kernel_release(k);
  }
  if (!st && !j->ir) st = tilec_compiler_emit(c, &spec, TILEC_STAGE_TILE, &j->ir);
  if (st) snprintf(j->error, sizeof j->error, "block %d: %s", j->block, tilec_status_message(st));
  tilec_status_destroy(st);
  tilec_compiler_destroy(c);
  return NULL;
}

START_TEST(test_four_compilers_at_once) {
  job jobs[THREADS];
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    jobs[i] = (job){.block = 16 << (i % 3), .n = 9 + 3 * i, .error = "", .ir = NULL};
    if (jobs[i].n > jobs[i].block) jobs[i].n = jobs[i].block;
    ck_assert_int_eq(pthread_create(&t[i], NULL, compile_and_run, &jobs[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  for (int i = 0; i < THREADS; i++) ck_assert_msg(!jobs[i].error[0], "%s", jobs[i].error);
  /* Generated names are numbered per compile: the first combine function of every compile
   * is __tilec_combine_0, whatever ran before on other threads. */
  for (int i = 0; i < THREADS; i++) {
    ck_assert_ptr_nonnull(strstr(jobs[i].ir, "@__tilec_combine_0"));
    free(jobs[i].ir);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("threads");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_four_compilers_at_once);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
