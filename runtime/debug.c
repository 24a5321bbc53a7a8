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

static _Thread_local int tls_nonfinite_input;
static _Thread_local int tls_locks_held; /* --check-races: atomic_cas locks this program holds */

/* The trampoline registers its jmp_buf when a program starts: per-program state resets. */
void tilec_rt_set_jmp(jmp_buf *jb) {
  tls_jmp = jb;
  if (jb) {
    tls_nonfinite_input = 0;
    tls_locks_held = 0;
  }
}

void tilec_rt_nonfinite_input(void) { tls_nonfinite_input = 1; }

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

static void index_text(char *buf, size_t n, int32_t rank, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  int64_t idx[4] = {i0, i1, i2, i3};
  size_t k = 0;
  buf[0] = 0;
  for (int32_t d = 0; d < rank && d < 4 && k + 24 < n; d++)
    k += (size_t)snprintf(buf + k, n - k, "%s%" PRId64, d ? ", " : "", idx[d]);
}

void tilec_rt_print_begin(uint32_t px, uint32_t py, uint32_t pz, int32_t rank, int64_t i0, int64_t i1, int64_t i2,
                          int64_t i3, const char *prefix) {
  if (rank > 0) {
    char idx[96];
    index_text(idx, sizeof idx, rank, i0, i1, i2, i3);
    out_printf("pid (%u, %u, %u) idx (%s) %s", px, py, pz, idx, prefix ? prefix : "");
  } else {
    out_printf("pid (%u, %u, %u) %s", px, py, pz, prefix ? prefix : "");
  }
}

void tilec_rt_print_i64(int64_t v, int32_t is_unsigned, int32_t hex, int32_t bits) {
  /* hex shows the value's own width (an i32 -1 is 0xffffffff) */
  if (hex) out_printf(" 0x%0*" PRIx64, (bits + 3) / 4, (uint64_t)(bits >= 64 ? (uint64_t)v : (uint64_t)v & (((uint64_t)1 << bits) - 1)));
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
  char idx[96];
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
  char idx[96];
  index_text(idx, sizeof idx, rank, i0, i1, i2, i3);
  record(file, line, col);
  snprintf(tls_error.message, sizeof tls_error.message,
           "%s '%s' at element %" PRId64 " is out of bounds (buffer has %" PRId64 " elements) in program (%u, %u, %u)%s%s%s",
           what[kind >= 0 && kind <= 2 ? kind : 0], arg_name(arg), elem, extent, px, py, pz,
           rank > 0 ? ", tile index [" : "", idx, rank > 0 ? "]" : "");
  if (tls_jmp) longjmp(*tls_jmp, 1);
}

void tilec_rt_nan_fail(int32_t arg, const char *file, int32_t line, int32_t col, uint32_t px, uint32_t py, uint32_t pz,
                       int32_t rank, int64_t i0, int64_t i1, int64_t i2, int64_t i3, double v) {
  if (tls_nonfinite_input) return; /* produced from non-finite inputs: not this store's fault */
  char idx[96];
  index_text(idx, sizeof idx, rank, i0, i1, i2, i3);
  record(file, line, col);
  snprintf(tls_error.message, sizeof tls_error.message,
           "store to '%s' writes %s produced from finite inputs in program (%u, %u, %u)%s%s%s",
           arg >= 0 ? arg_name(arg) : "?", isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf", px, py, pz,
           rank > 0 ? ", tile index [" : "", idx, rank > 0 ? "]" : "");
  if (tls_jmp) longjmp(*tls_jmp, 1);
}

/* ---- --check-races ------------------------------------------------------------------
 * Shadow memory: one 64-bit entry per element of each stored-to argument, for one launch:
 * bits 63..24 the writer's flat program id + 1, bits 23..1 its store site, bit 0 set when
 * the store was made while holding a lock. All of it sits behind one mutex: this is a
 * debugging mode, and the serialization keeps reports deterministic in what they compare. */

#define RACE_MAX_ARGS 64
#define RACE_SITE_BITS 23

typedef struct race_site {
  const char *file;
  int32_t line, col;
} race_site;

static pthread_mutex_t race_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *race_shadow[RACE_MAX_ARGS];
static int64_t race_extent[RACE_MAX_ARGS];
static race_site *race_sites;
static uint32_t race_nsites, race_capsites;
/* Set once a --check-races kernel stored anything: unchecked launches skip the lock. */
static _Atomic int race_used;

void tilec_rt_race_begin(void) { tilec_rt_race_end(); }

void tilec_rt_race_end(void) {
  if (!atomic_load_explicit(&race_used, memory_order_relaxed)) return;
  pthread_mutex_lock(&race_lock);
  atomic_store_explicit(&race_used, 0, memory_order_relaxed);
  for (int i = 0; i < RACE_MAX_ARGS; i++) {
    free(race_shadow[i]);
    race_shadow[i] = NULL;
    race_extent[i] = 0;
  }
  free(race_sites);
  race_sites = NULL;
  race_nsites = race_capsites = 0;
  pthread_mutex_unlock(&race_lock);
}

void tilec_rt_race_cas(int32_t success) {
  if (success) tls_locks_held++;
}

void tilec_rt_race_release(void) {
  if (tls_locks_held > 0) tls_locks_held--;
}

/* Index of (file, line, col) in the site table, added if new; 0 when the table is full. */
static uint32_t race_site_of(const char *file, int32_t line, int32_t col) {
  for (uint32_t i = 0; i < race_nsites; i++)
    if (race_sites[i].file == file && race_sites[i].line == line && race_sites[i].col == col) return i + 1;
  if (race_nsites + 1 >= (1u << RACE_SITE_BITS)) return 0;
  if (race_nsites == race_capsites) {
    uint32_t cap = race_capsites ? race_capsites * 2 : 16;
    race_site *p = realloc(race_sites, cap * sizeof *p);
    if (!p) return 0;
    race_sites = p;
    race_capsites = cap;
  }
  race_sites[race_nsites] = (race_site){file, line, col};
  return ++race_nsites;
}

static void site_text(char *buf, size_t n, uint32_t site) {
  if (site == 0 || site > race_nsites || !race_sites[site - 1].file) {
    snprintf(buf, n, "an unknown store");
    return;
  }
  const race_site *s = &race_sites[site - 1];
  snprintf(buf, n, "%s:%d:%d", s->file, s->line, s->col);
}

void tilec_rt_race_store(int32_t arg, int64_t extent, const int64_t *elems, const int8_t *active, int32_t count,
                         const char *file, int32_t line, int32_t col, uint32_t px, uint32_t py, uint32_t pz,
                         uint32_t gx, uint32_t gy) {
  if (arg < 0 || arg >= RACE_MAX_ARGS || extent <= 0) return; /* no extents: nothing to check against */
  uint64_t me = ((uint64_t)pz * gy + py) * gx + px + 1;
  uint64_t critical = tls_locks_held > 0;
  uint64_t other = 0, other_entry = 0;
  int64_t where = -1;
  pthread_mutex_lock(&race_lock);
  atomic_store_explicit(&race_used, 1, memory_order_relaxed);
  if (race_extent[arg] != extent) {
    free(race_shadow[arg]);
    race_shadow[arg] = calloc((size_t)extent, sizeof(uint64_t));
    race_extent[arg] = race_shadow[arg] ? extent : 0;
  }
  uint64_t *shadow = race_shadow[arg];
  uint64_t site = race_site_of(file, line, col);
  uint64_t entry = me << (RACE_SITE_BITS + 1) | site << 1 | critical;
  for (int32_t i = 0; shadow && i < count; i++) {
    if (!active[i] || elems[i] < 0 || elems[i] >= extent) continue; /* bounds checks report the latter */
    uint64_t old = shadow[elems[i]];
    uint64_t prev = old >> (RACE_SITE_BITS + 1);
    if (prev && prev != me && !((old & 1) && critical)) {
      other = prev;
      other_entry = old;
      where = elems[i];
      break;
    }
    shadow[elems[i]] = entry;
  }
  char mine[600], theirs[600];
  if (where >= 0) {
    site_text(theirs, sizeof theirs, (uint32_t)(other_entry >> 1) & ((1u << RACE_SITE_BITS) - 1));
    snprintf(mine, sizeof mine, "%s:%d:%d", file ? file : "?", line, col);
  }
  pthread_mutex_unlock(&race_lock);
  if (where < 0) return;
  uint64_t o = other - 1;
  uint64_t ox = o % gx, oy = (o / gx) % gy, oz = o / ((uint64_t)gx * gy);
  record(file, line, col);
  /* Two source locations of up to 600 bytes may not fit: a message cut at the buffer's end
   * still names the race (gcc 12 warns about the possible truncation). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
  snprintf(tls_error.message, sizeof tls_error.message,
           "write-write race on '%s' element %" PRId64 ": program (%u, %u, %u) stores it at %s after program "
           "(%" PRIu64 ", %" PRIu64 ", %" PRIu64 ") stored it at %s, with no atomic or lock ordering the two",
           arg_name(arg), where, px, py, pz, mine, ox, oy, oz, theirs);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  if (tls_jmp) longjmp(*tls_jmp, 1);
}
