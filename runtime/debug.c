/* runtime/debug.c — the kernel-facing debug runtime: per-thread print buffers flushed
 * atomically per program, and assert failures that unwind via longjmp.
 * In: calls from kernel code and the launcher. Out: stdout text and error messages. */
#include "runtime/debug.h"

#include "tilec/abi.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local jmp_buf *tls_jmp;
static _Thread_local const tilec_kernel_desc *tls_kernel;
static _Thread_local char *tls_out;
static _Thread_local size_t tls_len, tls_cap;
static _Thread_local tilec_rt_error tls_error;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* The trampoline registers its jmp_buf when a program starts: per-program state resets. */
void tilec_rt_set_jmp(jmp_buf *jb) { tls_jmp = jb; }

static void out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (tls_len + (size_t)n + 1 > tls_cap) {
    size_t cap = tls_cap ? tls_cap * 2 : 4096;
    while (cap < tls_len + (size_t)n + 1) cap *= 2;
    char *p = realloc(tls_out, cap);
    if (!p) return;
    tls_out = p;
    tls_cap = cap;
  }
  if ((size_t)n < sizeof small) {
    memcpy(tls_out + tls_len, small, (size_t)n + 1);
  } else {
    va_start(ap, fmt);
    vsnprintf(tls_out + tls_len, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  tls_len += (size_t)n;
}

#define TILE_INDEX_TEXT 400 /* 16 indices of up to 22 characters and their commas */

static void index_text(char *buf, size_t n, int32_t rank, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  int64_t four[4] = {i0, i1, i2, i3};
  const int64_t *idx = rank > 4 ? (const int64_t *)(intptr_t)i0 : four; /* debug.h: above rank 4, i0 points */
  size_t k = 0;
  buf[0] = 0;
  for (int32_t d = 0; d < rank && k + 24 < n; d++)
    k += (size_t)snprintf(buf + k, n - k, "%s%" PRId64, d ? ", " : "", idx[d]);
}

void tilec_rt_print_begin(uint32_t px, uint32_t py, uint32_t pz, int32_t rank, int64_t i0, int64_t i1, int64_t i2,
                          int64_t i3, const char *prefix) {
  if (rank > 0) {
    char idx[TILE_INDEX_TEXT];
    index_text(idx, sizeof idx, rank, i0, i1, i2, i3);
    out_printf("pid (%u, %u, %u) idx (%s) %s", px, py, pz, idx, prefix ? prefix : "");
  } else {
    out_printf("pid (%u, %u, %u) %s", px, py, pz, prefix ? prefix : "");
  }
}

void tilec_rt_print_i64(int64_t v, int32_t is_unsigned, int32_t hex, int32_t bits) {
  /* hex shows the value's own width (an i32 -1 is 0xffffffff) */
  if (hex)
    out_printf(" 0x%0*" PRIx64, (bits + 3) / 4,
               (uint64_t)(bits >= 64 ? (uint64_t)v : (uint64_t)v & (((uint64_t)1 << bits) - 1)));
  else if (is_unsigned) out_printf(" %" PRIu64, (uint64_t)v);
  else out_printf(" %" PRId64, v);
}

void tilec_rt_print_f64(double v, int32_t hex) {
  if (hex) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    out_printf(" 0x%016" PRIx64, bits);
  } else {
    out_printf(" %.9g", v);
  }
}

void tilec_rt_print_end(void) { out_printf("\n"); }

/* ---- Triton's format (tilec_rt_print_head and the values after it) -------------------- */

void tilec_rt_print_head(uint32_t px, uint32_t py, uint32_t pz, int32_t rank, int64_t i0, int64_t i1, int64_t i2,
                         int64_t i3, int64_t widths, const char *prefix, int32_t operand) {
  out_printf("pid (%u, %u, %u)", px, py, pz);
  if (rank >= 0) {
    int64_t four[4] = {i0, i1, i2, i3};
    const int64_t *idx = rank > 4 ? (const int64_t *)(intptr_t)i0 : four; /* debug.h: above rank 4, i0 points */
    out_printf(" idx (");
    for (int32_t d = 0; d < rank && d < 16; d++)
      out_printf("%s%*" PRId64, d ? ", " : "", (int)((uint64_t)widths >> (4 * d) & 15), idx[d]);
    out_printf(")");
  }
  out_printf("%s", prefix ? prefix : "");
  if (operand >= 0) out_printf("(operand %d) ", operand);
}

void tilec_rt_print_int(int64_t v, int32_t is_unsigned, int32_t hex, int32_t bits) {
  uint64_t u = bits >= 64 ? (uint64_t)v : (uint64_t)v & (((uint64_t)1 << bits) - 1);
  if (hex) out_printf("0x%0*" PRIx64, (bits + 3) / 4, u); /* the value's own width: an i32 -1 is 0xffffffff */
  else if (is_unsigned) out_printf("%" PRIu64, u);
  else out_printf("%" PRId64, v);
}

void tilec_rt_print_float(double v) { out_printf("%f", v); }

void tilec_rt_print_ptr(int64_t address) { out_printf("0x%" PRIx64, (uint64_t)address); }

void tilec_rt_flush_output(void) {
  if (!tls_len) return;
  pthread_mutex_lock(&out_lock);
  fwrite(tls_out, 1, tls_len, stdout);
  fflush(stdout);
  pthread_mutex_unlock(&out_lock);
  tls_len = 0;
}

static void record(const char *file, int32_t line, int32_t col) {
  snprintf(tls_error.file, sizeof tls_error.file, "%s", file ? file : "");
  tls_error.line = line;
  tls_error.col = col;
}

void tilec_rt_assert_fail(const char *msg, const char *file, int32_t line, int32_t col, uint32_t px, uint32_t py,
                          uint32_t pz, int32_t rank, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  char idx[TILE_INDEX_TEXT];
  index_text(idx, sizeof idx, rank, i0, i1, i2, i3);
  record(file, line, col);
  snprintf(tls_error.message, sizeof tls_error.message, "device assertion failed in program (%u, %u, %u)%s%s%s: %s", px,
           py, pz, rank > 0 ? ", tile index [" : "", idx, rank > 0 ? "]" : "", msg && *msg ? msg : "(no message)");
  if (tls_jmp) longjmp(*tls_jmp, 1);
}

jmp_buf *tilec_rt_emu_hold_jmp(void) {
  jmp_buf *jb = tls_jmp;
  tls_jmp = NULL;
  return jb;
}

void tilec_rt_emu_release_jmp(jmp_buf *jb) {
  tls_jmp = jb;
  if (tls_error.message[0] && tls_jmp) longjmp(*tls_jmp, 1);
}

void tilec_rt_emu_fail(const char *msg) {
  record("", 0, 0);
  snprintf(tls_error.message, sizeof tls_error.message, "%s", msg);
  if (tls_jmp) longjmp(*tls_jmp, 1);
  fprintf(stderr, "tilec: %s\n", msg); /* no trampoline to unwind to (cannot happen: emu kernels have one) */
  abort();
}

void tilec_rt_take_error(tilec_rt_error *out) {
  *out = tls_error;
  memset(&tls_error, 0, sizeof tls_error);
}

void tilec_rt_set_kernel(const void *kernel_desc) { tls_kernel = kernel_desc; }

/* Name of runtime argument `arg` (constexpr parameters are not arguments). */
static const char *arg_name(int32_t arg) {
  const tilec_kernel_desc *k = tls_kernel;
  if (!k || !k->params) return "?";
  int32_t a = 0;
  for (uint32_t j = 0; j < k->num_params; j++) {
    if (k->params[j].kind == TILEC_PARAM_CONSTEXPR) continue;
    if (a++ == arg) return k->params[j].name ? k->params[j].name : "?";
  }
  return "?";
}

void tilec_rt_bounds_fail(int32_t kind, int32_t arg, const char *file, int32_t line, int32_t col, uint32_t px,
                          uint32_t py, uint32_t pz, int32_t rank, int64_t i0, int64_t i1, int64_t i2, int64_t i3,
                          int64_t elem, int64_t extent) {
  static const char *const what[] = {"load from", "store to", "atomic on"};
  char idx[TILE_INDEX_TEXT];
  index_text(idx, sizeof idx, rank, i0, i1, i2, i3);
  record(file, line, col);
  snprintf(tls_error.message, sizeof tls_error.message,
           "%s '%s' at element %" PRId64 " is out of bounds (buffer has %" PRId64
           " elements) in program (%u, %u, %u)%s%s%s",
           what[kind >= 0 && kind <= 2 ? kind : 0], arg_name(arg), elem, extent, px, py, pz,
           rank > 0 ? ", tile index [" : "", idx, rank > 0 ? "]" : "");
  if (tls_jmp) longjmp(*tls_jmp, 1);
}

void tilec_rt_nan_fail(int32_t arg, const char *file, int32_t line, int32_t col, uint32_t px, uint32_t py, uint32_t pz,
                       int32_t rank, int64_t i0, int64_t i1, int64_t i2, int64_t i3, double v) {
  char idx[TILE_INDEX_TEXT];
  index_text(idx, sizeof idx, rank, i0, i1, i2, i3);
  record(file, line, col);
  snprintf(tls_error.message, sizeof tls_error.message,
           "store to '%s' writes %s produced from finite inputs in program (%u, %u, %u)%s%s%s",
           arg >= 0 ? arg_name(arg) : "?",
           isnan(v) ? "NaN"
           : v > 0  ? "+Inf"
                    : "-Inf",
           px, py, pz, rank > 0 ? ", tile index [" : "", idx, rank > 0 ? "]" : "");
  if (tls_jmp) longjmp(*tls_jmp, 1);
}
