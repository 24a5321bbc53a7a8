/* bench/common.h — shared by every C benchmark driver: a monotonic clock, the measurement
 * protocol (warm-up, batching of short calls, adaptive repetitions, median and min), JSON
 * result lines on stdout, aligned buffers, deterministic inputs and reference checks. */
#ifndef TILEC_BENCH_COMMON_H
#define TILEC_BENCH_COMMON_H

/* clock_gettime under -std=c17; effective because every driver includes this file first. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Thread count the driver reports: the first of the given environment variables that is
 * set (the caller's peer-specific one), else 1. bench.sh always sets them. */
static inline int bench_threads_from_env(const char *var) {
  const char *v = getenv(var);
  int t = v ? atoi(v) : 0;
  return t > 0 ? t : 1;
}

/* BENCH_TIME_SCALE shrinks or grows every time budget (scripts/bench.sh --quick uses 0.2). */
static inline double bench_scale(void) {
  const char *v = getenv("BENCH_TIME_SCALE");
  double s = v ? atof(v) : 1.0;
  return s > 0 ? s : 1.0;
}

typedef struct bench_result {
  double median_s; /* per call */
  double min_s;    /* per call */
  int reps;        /* timed samples */
  int batch;       /* calls per sample (> 1 only for calls far below a millisecond) */
} bench_result;

static int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The protocol, chosen so the whole suite fits in ~10 minutes on 2 cores:
 * - untimed warm-up calls (page faults, lazy code generation, thread-pool start-up): two,
 *   or one when a call takes over half a second (it then also serves as the estimate);
 * - calls shorter than 2 ms are timed in batches of >= 2 ms, so the clock's resolution and
 *   the timing overhead stay below 0.1 % (the launch-overhead rows rely on this);
 * - the number of samples fills `budget_s`, at least 10 and at most 200; a call so slow
 *   that 10 samples would take over 25 s gets 3 samples instead (reported as `reps`).
 * `fn` returns non-zero on failure, which aborts the measurement (reps = 0). */
typedef int (*bench_fn)(void *ctx);

static inline bench_result bench_measure(bench_fn fn, void *ctx, double budget_s) {
  bench_result r = {0, 0, 0, 1};
  budget_s *= bench_scale();
  double t0 = bench_now();
  if (fn(ctx)) return r;
  double t = bench_now() - t0;
  if (t < 0.5) {
    t0 = bench_now();
    if (fn(ctx)) return r;
    t = bench_now() - t0;
  }
  if (t < 1e-9) t = 1e-9;
  int batch = 1;
  if (t < 2e-3) {
    double b = ceil(2e-3 / t);
    batch = b > 1e6 ? 1000000 : (int)b;
  }
  double sample = t * batch;
  int reps = (int)(budget_s / sample);
  if (reps < 10) reps = 10;
  if (reps > 200) reps = 200;
  if (sample * 10 > 25.0 * bench_scale()) reps = 3;
  double *s = malloc((size_t)reps * sizeof *s);
  if (!s) return r;
  for (int i = 0; i < reps; i++) {
    double a = bench_now();
    for (int j = 0; j < batch; j++)
      if (fn(ctx)) {
        free(s);
        return r;
      }
    s[i] = (bench_now() - a) / batch;
  }
  qsort(s, (size_t)reps, sizeof *s, bench_cmp_double);
  r.median_s = reps % 2 ? s[reps / 2] : 0.5 * (s[reps / 2 - 1] + s[reps / 2]);
  r.min_s = s[0];
  r.reps = reps;
  r.batch = batch;
  free(s);
  return r;
}

/* Writes `s` as a JSON string body (quotes and control characters escaped). */
static inline void bench_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* One result line: {"bench":…, "size":…, "impl":…, "threads":…, "status":…, …}.
 * status is "ok", "mismatch" (the output was wrong; the time is still shown) or "error". */
static inline void bench_emit(const char *bench, const char *size, const char *impl, int threads, const bench_result *r,
                              const char *status, const char *note) {
  printf("{\"bench\":");
  bench_json_str(stdout, bench);
  printf(",\"size\":");
  bench_json_str(stdout, size);
  printf(",\"impl\":");
  bench_json_str(stdout, impl);
  printf(",\"threads\":%d,\"status\":", threads);
  bench_json_str(stdout, status);
  if (r && r->reps > 0)
    printf(",\"median_s\":%.9g,\"min_s\":%.9g,\"reps\":%d,\"batch\":%d", r->median_s, r->min_s, r->reps, r->batch);
  if (note && *note) {
    printf(",\"note\":");
    bench_json_str(stdout, note);
  }
  printf("}\n");
  fflush(stdout);
}

static inline void *bench_alloc(size_t bytes) {
  /* 64-byte alignment: full cache lines and aligned 512-bit vectors for every peer alike. */
  size_t rounded = (bytes + 63) / 64 * 64;
  void *p = aligned_alloc(64, rounded ? rounded : 64);
  if (!p) {
    fprintf(stderr, "bench: out of memory (%zu bytes)\n", bytes);
    exit(2);
  }
  return p;
}

/* Deterministic values in [lo, hi): every driver sees the same inputs. */
static inline void bench_fill(float *x, size_t n, uint32_t seed, float lo, float hi) {
  uint32_t s = seed * 2654435761u + 1u;
  for (size_t i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    x[i] = lo + (hi - lo) * (float)(s >> 8) * (1.0f / 16777216.0f);
  }
}

/* ---- reference results (double accumulation) and comparisons ------------------------- */

/* Largest |got - want| / (atol + rtol * |want|); <= 1 passes. */
static inline double bench_err(float got, double want, double atol, double rtol) {
  double e = fabs((double)got - want) / (atol + rtol * fabs(want));
  return isnan(e) ? INFINITY : e;
}

static inline double bench_check_vadd(const float *x, const float *y, const float *out, size_t n) {
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    double e = bench_err(out[i], (double)x[i] + (double)y[i], 1e-6, 1e-6);
    if (e > worst) worst = e;
  }
  return worst;
}

/* Checks every 7th row (the rows are independent; the full check would dominate run time). */
static inline double bench_check_softmax(const float *in, const float *out, int rows, int cols) {
  double worst = 0;
  for (int r = 0; r < rows; r += 7) {
    const float *x = in + (size_t)r * cols;
    double m = -INFINITY, sum = 0;
    for (int c = 0; c < cols; c++) m = x[c] > m ? x[c] : m;
    for (int c = 0; c < cols; c++) sum += exp((double)x[c] - m);
    for (int c = 0; c < cols; c++) {
      double e = bench_err(out[(size_t)r * cols + c], exp((double)x[c] - m) / sum, 1e-7, 1e-4);
      if (e > worst) worst = e;
    }
  }
  return worst;
}

static inline double bench_check_layernorm(const float *x, const float *w, const float *b, const float *y, int rows,
                                           int cols, float eps) {
  double worst = 0;
  for (int r = 0; r < rows; r += 7) {
    const float *xr = x + (size_t)r * cols;
    double mean = 0, var = 0;
    for (int c = 0; c < cols; c++) mean += xr[c];
    mean /= cols;
    for (int c = 0; c < cols; c++) var += (xr[c] - mean) * (xr[c] - mean);
    var /= cols;
    double rstd = 1.0 / sqrt(var + eps);
    for (int c = 0; c < cols; c++) {
      double want = ((double)xr[c] - mean) * rstd * w[c] + b[c];
      double e = bench_err(y[(size_t)r * cols + c], want, 1e-4, 1e-4);
      if (e > worst) worst = e;
    }
  }
  return worst;
}

/* Checks 512 pseudo-random entries of C = A @ B (n x n, row-major): a full reference
 * product at n = 4096 would take minutes. Tolerance grows with n (fp32 sums of n terms). */
static inline double bench_check_matmul(const float *a, const float *b, const float *c, int n) {
  double worst = 0;
  uint32_t s = 12345u;
  for (int t = 0; t < 512; t++) {
    s = s * 1664525u + 1013904223u;
    int i = (int)((s >> 8) % (uint32_t)n);
    s = s * 1664525u + 1013904223u;
    int j = (int)((s >> 8) % (uint32_t)n);
    double want = 0, mag = 0;
    for (int k = 0; k < n; k++) {
      want += (double)a[(size_t)i * n + k] * b[(size_t)k * n + j];
      mag += fabs((double)a[(size_t)i * n + k] * b[(size_t)k * n + j]);
    }
    double e = fabs((double)c[(size_t)i * n + j] - want) / (1e-5 * mag + 1e-6);
    if (isnan(e)) e = INFINITY;
    if (e > worst) worst = e;
  }
  return worst;
}

/* "ok" when err <= 1, else a "mismatch" note naming the error. */
static inline const char *bench_status(double err, char *note, size_t note_len) {
  if (err <= 1.0) {
    note[0] = 0;
    return "ok";
  }
  snprintf(note, note_len, "output check failed: error %.3g x tolerance", err);
  return "mismatch";
}

#endif
