/* bench/run.c — the tilec side of the benchmarks: built once per compiled kernel (-DBENCH_x
 * plus -include of the header `tilec compile --header` wrote), it calls the typed launcher
 * and prints JSON result lines. Threads: TILEC_NUM_THREADS (set by scripts/bench.sh). */
#include "common.h"

#include <stdint.h>
#include <tilec/runtime.h>

static int threads;

/* Programs needed to cover a elements in blocks of b (a macro: not every variant uses it). */
#define CDIV(a, b) ((uint32_t)(((uint64_t)(a) + (b) - 1) / (b)))

/* Runs a measurement and prints the line; a failed launch is reported, not fatal. */
static void measure(const char *bench, const char *size, bench_fn fn, void *ctx, double budget,
                    double (*check)(void *)) {
  bench_result r = bench_measure(fn, ctx, budget);
  if (r.reps == 0) {
    bench_emit(bench, size, "tilec", threads, NULL, "error", tilec_last_error());
    return;
  }
  char note[160] = "";
  const char *st = check ? bench_status(check(ctx), note, sizeof note) : "ok";
  bench_emit(bench, size, "tilec", threads, &r, st, note);
}

#if defined(BENCH_VADD)
typedef struct ctx {
  float *x, *y, *out;
  int32_t n;
} ctx;
static int run(void *p) {
  ctx *c = p;
  return vadd_kernel_launch(CDIV(c->n, BENCH_BLOCK), 1, 1, c->x, c->y, c->out, c->n);
}
static double check(void *p) {
  ctx *c = p;
  return bench_check_vadd(c->x, c->y, c->out, (size_t)c->n);
}
static void bench_main(int argc, char **argv) {
  int32_t n = argc > 1 ? atoi(argv[1]) : 1 << 24;
  ctx c = {bench_alloc(n * 4ull), bench_alloc(n * 4ull), bench_alloc(n * 4ull), n};
  bench_fill(c.x, (size_t)n, 1, -1, 1);
  bench_fill(c.y, (size_t)n, 2, -1, 1);
  memset(c.out, 0, n * 4ull);
  char size[32];
  snprintf(size, sizeof size, "%d", n);
  measure("vector_add", size, run, &c, 1.0, check);
}

#elif defined(BENCH_SOFTMAX)
typedef struct ctx {
  float *in, *out;
  int32_t rows, cols;
} ctx;
static int run(void *p) {
  ctx *c = p;
  return softmax_kernel_launch((uint32_t)c->rows, 1, 1, c->out, c->in, c->cols, c->cols, c->rows, c->cols);
}
static double check(void *p) {
  ctx *c = p;
  return bench_check_softmax(c->in, c->out, c->rows, c->cols);
}
static void bench_main(int argc, char **argv) {
  int32_t rows = argc > 2 ? atoi(argv[1]) : 4096, cols = argc > 2 ? atoi(argv[2]) : 1024;
  size_t n = (size_t)rows * cols;
  ctx c = {bench_alloc(n * 4), bench_alloc(n * 4), rows, cols};
  bench_fill(c.in, n, 3, -8, 8);
  memset(c.out, 0, n * 4);
  char size[32];
  snprintf(size, sizeof size, "%dx%d", rows, cols);
  measure("softmax", size, run, &c, 1.0, check);
}

#elif defined(BENCH_LAYERNORM)
typedef struct ctx {
  float *x, *y, *w, *b, *mean, *rstd;
  int32_t rows, cols;
} ctx;
static const float eps = 1e-5f;
static int run(void *p) {
  ctx *c = p;
  return layernorm_fwd_kernel_launch((uint32_t)c->rows, 1, 1, c->x, c->y, c->w, c->b, c->mean, c->rstd, c->cols,
                                     c->cols, eps);
}
static double check(void *p) {
  ctx *c = p;
  return bench_check_layernorm(c->x, c->w, c->b, c->y, c->rows, c->cols, eps);
}
static void bench_main(int argc, char **argv) {
  int32_t rows = argc > 2 ? atoi(argv[1]) : 1024, cols = argc > 2 ? atoi(argv[2]) : 8192;
  size_t n = (size_t)rows * cols;
  ctx c = {bench_alloc(n * 4),
           bench_alloc(n * 4),
           bench_alloc(cols * 4ull),
           bench_alloc(cols * 4ull),
           bench_alloc(rows * 4ull),
           bench_alloc(rows * 4ull),
           rows,
           cols};
  bench_fill(c.x, n, 4, -2, 3);
  bench_fill(c.w, (size_t)cols, 5, 0.5f, 1.5f);
  bench_fill(c.b, (size_t)cols, 6, -0.5f, 0.5f);
  char size[32];
  snprintf(size, sizeof size, "%dx%d", rows, cols);
  measure("layernorm", size, run, &c, 1.0, check);
}

#elif defined(BENCH_MATMUL)
/* The signature specializes stride_ak, stride_bn and stride_cn to 1 (":1", as Triton's JIT
 * does for unit strides), so they are not launch parameters. */
typedef struct ctx {
  float *a, *b, *c;
  int32_t n;
} ctx;
static int run(void *p) {
  ctx *c = p;
  uint32_t tiles = CDIV(c->n, BENCH_BM) * CDIV(c->n, BENCH_BN);
  return matmul_kernel_launch(tiles, 1, 1, c->a, c->b, c->c, c->n, c->n, c->n, c->n, c->n, c->n);
}
static double check(void *p) {
  ctx *c = p;
  return bench_check_matmul(c->a, c->b, c->c, c->n);
}
static void bench_main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    int32_t n = atoi(argv[i]);
    size_t e = (size_t)n * n;
    ctx c = {bench_alloc(e * 4), bench_alloc(e * 4), bench_alloc(e * 4), n};
    bench_fill(c.a, e, 7, -1, 1);
    bench_fill(c.b, e, 8, -1, 1);
    memset(c.c, 0, e * 4);
    char size[32];
    snprintf(size, sizeof size, "%d", n);
    measure("matmul", size, run, &c, 2.0, check);
    free(c.a);
    free(c.b);
    free(c.c);
  }
}

#elif defined(BENCH_EMPTY)
typedef struct ctx {
  float *x;
  uint32_t grid;
} ctx;
static int run(void *p) {
  ctx *c = p;
  return empty_kernel_launch(c->grid, 1, 1, c->x);
}
static void bench_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  ctx c = {bench_alloc(64), 1};
  measure("launch", "grid 1", run, &c, 1.0, NULL);
  c.grid = 1024;
  measure("launch", "grid 1024", run, &c, 1.0, NULL);
}

#else
#error "define one of BENCH_VADD, BENCH_SOFTMAX, BENCH_LAYERNORM, BENCH_MATMUL, BENCH_EMPTY"
#endif

int main(int argc, char **argv) {
  threads = bench_threads_from_env("TILEC_NUM_THREADS");
  bench_main(argc, argv);
  return 0;
}
