/* bench/peers/c_bench.c — the "C loop a user would write" peer: vector add, softmax (SLEEF
 * vector exp of the widest width -march=native allows), layer norm, and an empty OpenMP
 * parallel-for; built with -O3 -march=native -fopenmp. Threads: OMP_NUM_THREADS. */
#include "../common.h"

#include <omp.h>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#include <sleef.h>

static int threads;

static void report(const char *bench, const char *size, bench_fn fn, void *ctx, double budget, double err,
                   const char *extra) {
  bench_result r = bench_measure(fn, ctx, budget);
  char note[200] = "";
  const char *st = err < 0 ? "ok" : bench_status(err, note, sizeof note);
  if (extra && !note[0]) snprintf(note, sizeof note, "%s", extra);
  bench_emit(bench, size, "c", threads, &r, st, note);
}

/* ---- vector add ---------------------------------------------------------------------- */
typedef struct vctx {
  const float *x, *y;
  float *out;
  size_t n;
} vctx;
static int vadd(void *p) {
  vctx *c = p;
  const float *restrict x = c->x, *restrict y = c->y;
  float *restrict out = c->out;
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < c->n; i++) out[i] = x[i] + y[i];
  return 0;
}

/* ---- softmax --------------------------------------------------------------------------- */
/* Vector width and SLEEF entry point follow the ISA -march=native enables, like tilec's
 * SLEEF glue: AVX-512 -> Sleef_expf16_u10, AVX2 -> Sleef_expf8_u10, else scalar. */
#if defined(__AVX512F__)
#define VW 16
#define SLEEF_EXP_NAME "Sleef_expf16_u10 (AVX-512)"
typedef __m512 vf;
#define VLOAD _mm512_loadu_ps
#define VSTORE _mm512_storeu_ps
#define VSET1 _mm512_set1_ps
#define VSUB _mm512_sub_ps
#define VADD _mm512_add_ps
#define VMUL _mm512_mul_ps
#define VMAX _mm512_max_ps
#define VEXP Sleef_expf16_u10
#define VHMAX _mm512_reduce_max_ps
#define VHSUM _mm512_reduce_add_ps
#elif defined(__AVX2__)
#define VW 8
#define SLEEF_EXP_NAME "Sleef_expf8_u10 (AVX2)"
typedef __m256 vf;
#define VLOAD _mm256_loadu_ps
#define VSTORE _mm256_storeu_ps
#define VSET1 _mm256_set1_ps
#define VSUB _mm256_sub_ps
#define VADD _mm256_add_ps
#define VMUL _mm256_mul_ps
#define VMAX _mm256_max_ps
#define VEXP Sleef_expf8_u10
static float VHMAX(vf v) {
  float t[8], m = -INFINITY;
  _mm256_storeu_ps(t, v);
  for (int i = 0; i < 8; i++) m = t[i] > m ? t[i] : m;
  return m;
}
static float VHSUM(vf v) {
  float t[8], s = 0;
  _mm256_storeu_ps(t, v);
  for (int i = 0; i < 8; i++) s += t[i];
  return s;
}
#else
#define VW 1
#define SLEEF_EXP_NAME "Sleef_expf_u10 (scalar)"
#endif

typedef struct sctx {
  const float *in;
  float *out;
  int rows, cols;
} sctx;

static void softmax_row(const float *restrict x, float *restrict y, int n) {
  int c = 0;
  float m = -INFINITY, sum = 0;
#if VW > 1
  /* Vertical max/sum in one register each, one horizontal reduction per row. */
  vf vm = VSET1(-INFINITY);
  for (; c + VW <= n; c += VW) vm = VMAX(vm, VLOAD(x + c));
  m = VHMAX(vm);
#endif
  for (; c < n; c++) m = x[c] > m ? x[c] : m;
  c = 0;
#if VW > 1
  vf vmax = VSET1(m), vs = VSET1(0);
  for (; c + VW <= n; c += VW) {
    vf e = VEXP(VSUB(VLOAD(x + c), vmax));
    VSTORE(y + c, e);
    vs = VADD(vs, e);
  }
  sum = VHSUM(vs);
#endif
  for (; c < n; c++) {
    y[c] = Sleef_expf_u10(x[c] - m);
    sum += y[c];
  }
  float inv = 1.0f / sum;
  c = 0;
#if VW > 1
  vf vinv = VSET1(inv);
  for (; c + VW <= n; c += VW) VSTORE(y + c, VMUL(VLOAD(y + c), vinv));
#endif
  for (; c < n; c++) y[c] *= inv;
}

static int softmax(void *p) {
  sctx *s = p;
#pragma omp parallel for schedule(static)
  for (int r = 0; r < s->rows; r++) softmax_row(s->in + (size_t)r * s->cols, s->out + (size_t)r * s->cols, s->cols);
  return 0;
}

/* ---- layer norm ------------------------------------------------------------------------ */
typedef struct lctx {
  const float *x, *w, *b;
  float *y, *mean, *rstd;
  int rows, cols;
  float eps;
} lctx;

static int layernorm(void *p) {
  lctx *l = p;
  const int n = l->cols;
#pragma omp parallel for schedule(static)
  for (int r = 0; r < l->rows; r++) {
    const float *restrict x = l->x + (size_t)r * n;
    float *restrict y = l->y + (size_t)r * n;
    const float *restrict w = l->w, *restrict b = l->b;
    /* `omp simd reduction` lets the compiler reorder the fp sums into vector lanes without
     * -ffast-math, the same freedom tilec's tl.sum has. */
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int c = 0; c < n; c++) sum += x[c];
    float mean = sum / (float)n, sq = 0;
#pragma omp simd reduction(+ : sq)
    for (int c = 0; c < n; c++) sq += (x[c] - mean) * (x[c] - mean);
    float rstd = 1.0f / sqrtf(sq / (float)n + l->eps);
    l->mean[r] = mean;
    l->rstd[r] = rstd;
#pragma omp simd
    for (int c = 0; c < n; c++) y[c] = (x[c] - mean) * rstd * w[c] + b[c];
  }
  return 0;
}

/* ---- empty parallel-for: OpenMP's own fork/join floor for a grid of 1024 -------------- */
__attribute__((noinline)) static void empty_program(float *x, int pid) {
  __asm__ volatile("" ::"r"(x), "r"(pid) : "memory"); /* keep the call */
}
typedef struct ectx {
  float *x;
  int grid;
} ectx;
static int empty_grid(void *p) {
  ectx *e = p;
  if (e->grid == 1) {
    empty_program(e->x, 0);
    return 0;
  }
#pragma omp parallel for schedule(static)
  for (int i = 0; i < e->grid; i++) empty_program(e->x, i);
  return 0;
}

int main(int argc, char **argv) {
  threads = bench_threads_from_env("OMP_NUM_THREADS");
  omp_set_num_threads(threads);
  const char *what = argc > 1 ? argv[1] : "";
  char size[32];
  if (!strcmp(what, "vector_add")) {
    size_t n = argc > 2 ? (size_t)atol(argv[2]) : (size_t)1 << 24;
    vctx c = {bench_alloc(n * 4), bench_alloc(n * 4), bench_alloc(n * 4), n};
    bench_fill((float *)c.x, n, 1, -1, 1);
    bench_fill((float *)c.y, n, 2, -1, 1);
    vadd(&c);
    snprintf(size, sizeof size, "%zu", n);
    report("vector_add", size, vadd, &c, 1.0, bench_check_vadd(c.x, c.y, c.out, n), NULL);
  } else if (!strcmp(what, "softmax")) {
    int rows = atoi(argv[2]), cols = atoi(argv[3]);
    size_t n = (size_t)rows * cols;
    sctx s = {bench_alloc(n * 4), bench_alloc(n * 4), rows, cols};
    bench_fill((float *)s.in, n, 3, -8, 8);
    softmax(&s);
    snprintf(size, sizeof size, "%dx%d", rows, cols);
    report("softmax", size, softmax, &s, 1.0, bench_check_softmax(s.in, s.out, rows, cols), "exp: " SLEEF_EXP_NAME);
  } else if (!strcmp(what, "layernorm")) {
    int rows = atoi(argv[2]), cols = atoi(argv[3]);
    size_t n = (size_t)rows * cols;
    lctx l = {bench_alloc(n * 4),
              bench_alloc(cols * 4ull),
              bench_alloc(cols * 4ull),
              bench_alloc(n * 4),
              bench_alloc(rows * 4ull),
              bench_alloc(rows * 4ull),
              rows,
              cols,
              1e-5f};
    bench_fill((float *)l.x, n, 4, -2, 3);
    bench_fill((float *)l.w, (size_t)cols, 5, 0.5f, 1.5f);
    bench_fill((float *)l.b, (size_t)cols, 6, -0.5f, 0.5f);
    layernorm(&l);
    snprintf(size, sizeof size, "%dx%d", rows, cols);
    report("layernorm", size, layernorm, &l, 1.0, bench_check_layernorm(l.x, l.w, l.b, l.y, rows, cols, l.eps), NULL);
  } else if (!strcmp(what, "launch")) {
    ectx e = {bench_alloc(64), 1};
    report("launch", "grid 1", empty_grid, &e, 1.0, -1, "direct call of an empty function");
    e.grid = 1024;
    report("launch", "grid 1024", empty_grid, &e, 1.0, -1, "omp parallel for over 1024 empty calls");
  } else {
    fprintf(stderr, "usage: c_bench vector_add N | softmax ROWS COLS | layernorm ROWS COLS | launch\n");
    return 2;
  }
  return 0;
}
