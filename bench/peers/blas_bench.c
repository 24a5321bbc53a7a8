/* bench/peers/blas_bench.c — the OpenBLAS peer: cblas_sgemm C = A @ B, fp32, row-major, for
 * each N on the command line. Prints which kernel OpenBLAS picked (openblas_get_corename).
 * Threads: OPENBLAS_NUM_THREADS, also passed to openblas_set_num_threads. */
#include "../common.h"

#include <cblas.h>

/* Declared by OpenBLAS's cblas.h; repeated so a netlib cblas.h fails to link, not to build. */
char *openblas_get_corename(void);
char *openblas_get_config(void);
void openblas_set_num_threads(int num_threads);

typedef struct ctx {
  const float *a, *b;
  float *c;
  int n;
} ctx;

static int sgemm(void *p) {
  ctx *c = p;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, c->n, c->n, c->n, 1.0f, c->a, c->n, c->b, c->n, 0.0f, c->c,
              c->n);
  return 0;
}

int main(int argc, char **argv) {
  int threads = bench_threads_from_env("OPENBLAS_NUM_THREADS");
  openblas_set_num_threads(threads);
  char note[256];
  /* The machine's environment may force a core type; bench.sh unsets it, and this shows
   * whether that worked (expect the native kernel, e.g. Cooperlake/SkylakeX on Zen 5). */
  snprintf(note, sizeof note, "corename=%s; config=%s; OPENBLAS_CORETYPE=%s", openblas_get_corename(),
           openblas_get_config(), getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "(unset)");
  for (int i = 1; i < argc; i++) {
    int n = atoi(argv[i]);
    size_t e = (size_t)n * n;
    ctx c = {bench_alloc(e * 4), bench_alloc(e * 4), bench_alloc(e * 4), n};
    bench_fill((float *)c.a, e, 7, -1, 1);
    bench_fill((float *)c.b, e, 8, -1, 1);
    bench_result r = bench_measure(sgemm, &c, 2.0);
    char st_note[160];
    const char *st = bench_status(bench_check_matmul(c.a, c.b, c.c, n), st_note, sizeof st_note);
    char size[32];
    snprintf(size, sizeof size, "%d", n);
    bench_emit("matmul", size, "openblas", threads, &r, st, st_note[0] ? st_note : note);
    free((void *)c.a);
    free((void *)c.b);
    free(c.c);
  }
  return 0;
}
