/* runtime/races.c — `--check races`: the accesses of each program of a launch are logged as
 * address intervals, and after the launch one sweep over the sorted intervals finds two
 * programs touching one element, at least one of them storing, not both holding a lock.
 *
 * Why intervals and not per-element shadow words: a kernel touches its elements in runs
 * (a row, a tile's rows), and the run is what kernel code can extend for the cost of a
 * compare and a store per chunk (the cursor, in a per-thread block this file hands out);
 * only when a run ends does the runtime append it to the thread's log, without any lock.
 * A shadow word per element costs an atomic per element, many times the kernel's own work
 * on a memory-bound kernel. The logs hold every access of the launch, so the verdict does
 * not depend on the threads' timing: the same kernel reports the same race (the one at the
 * lowest address, between the earliest programs in launch order) at any thread count.
 * Loads are logged only from buffers that some program may store to: the kernel stores
 * through the argument (compile time), or the argument's memory overlaps another argument's
 * (decided here once per launch from the buffers' extents; unknown extents count as
 * overlapping).
 * `--check init` rides on the same calls: for an argument whose memory lies in a range the
 * host marked uninitialized (runtime/uninit.c), kernel code sends every chunk to the runtime
 * (the runs are not extended in kernel code), which marks what stores write and checks
 * that loads read only written bytes; the earliest program that did not is reported.
 * In: calls from kernel code and the launcher. Out: the race, as a failure of the launch. */
#include "runtime/debug.h"

#include "runtime/uninit.h"
#include "tilec/runtime.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REC_WRITE = 1, REC_LOCKED = 2 };

/* One run of accesses: bytes [lo, hi) of one program at one site. */
typedef struct access_rec {
  uintptr_t lo, hi;
  uint64_t program; /* flattened id: x + gx * (y + gy * z) */
  uint32_t site;
  uint32_t flags; /* REC_* */
} access_rec;

struct tc_access_log {
  struct tc_access_log *next;
  access_rec *recs;
  size_t n, cap;
};

/* What kernel code passes on the slow path, the same every time for a site. */
struct tc_access_site {
  _Atomic int known;
  const char *file;
  int32_t line, col, arg, write, size;
};

static _Thread_local tilec_rt_checks *tls_checks;   /* the launch this thread works for */
static _Thread_local struct tc_access_log *tls_log; /* its log in that launch, once it has one */
static _Thread_local uint64_t tls_program;
static _Thread_local bool tls_in_program;
/* The block kernel code reads: per-argument flags, then a (lo, hi) cursor per site. */
static _Thread_local uint64_t *tls_block;
static _Thread_local size_t tls_block_cap;
static _Thread_local int32_t tls_nargs, tls_nsites;
/* The addresses this program locked with a successful atomic_cas (a stack; past its room
 * the lock is counted, and any atomic_xchg releases one of those). */
#define MAX_LOCKS 16
static _Thread_local uint64_t tls_lock_addr[MAX_LOCKS];
static _Thread_local int tls_locks_held;

/* Logs of finished launches, reused: a launch of small programs should not pay malloc. */
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tc_access_log *spare_logs;

void tilec_rt_checks_begin(tilec_rt_checks *k, const tilec_kernel_desc *kernel, void *const *args,
                           const int64_t *extents, const uint32_t grid[3]) {
  memset(k, 0, sizeof *k);
  k->kernel = kernel;
  k->args = args;
  k->extents = extents;
  memcpy(k->grid, grid, sizeof k->grid);
  k->init_program = UINT64_MAX;
  pthread_mutex_init(&k->lock, NULL);
}

void tilec_rt_checks_attach(tilec_rt_checks *k) {
  tls_checks = k;
  tls_log = NULL;
  tls_in_program = false;
}

static struct tc_access_log *new_log(tilec_rt_checks *k) {
  pthread_mutex_lock(&spare_lock);
  struct tc_access_log *g = spare_logs;
  if (g) spare_logs = g->next;
  pthread_mutex_unlock(&spare_lock);
  if (!g) g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->n = 0;
  pthread_mutex_lock(&k->lock);
  g->next = k->logs;
  k->logs = g;
  pthread_mutex_unlock(&k->lock);
  return g;
}

static void append(uintptr_t lo, uintptr_t hi, uint32_t site, uint32_t flags) {
  tilec_rt_checks *k = tls_checks;
  if (!k || lo >= hi || !(k->classes & TILEC_CHECKS_RACES)) return;
  if (!tls_log && !(tls_log = new_log(k))) {
    atomic_store_explicit(&k->lost, 1, memory_order_relaxed);
    return;
  }
  struct tc_access_log *g = tls_log;
  if (g->n == g->cap) {
    size_t cap = g->cap ? g->cap * 2 : 1024;
    access_rec *r = realloc(g->recs, cap * sizeof *r);
    if (!r) {
      atomic_store_explicit(&k->lost, 1, memory_order_relaxed);
      return;
    }
    g->recs = r;
    g->cap = cap;
  }
  g->recs[g->n++] = (access_rec){lo, hi, tls_program, site, flags};
}

/* Ends every open run of the running program (its lock state is the current one: a lock
 * taken or released closes them first). */
static void close_cursors(void) {
  if (!tls_in_program || !tls_checks || !tls_checks->sites) return;
  uint64_t *cur = tls_block + tls_nargs;
  for (int32_t s = 0; s < tls_nsites; s++) {
    uint64_t lo = cur[2 * s], hi = cur[2 * s + 1];
    if (hi > lo) {
      uint32_t flags = (tls_checks->sites[s].write ? REC_WRITE : 0) | (tls_locks_held > 0 ? REC_LOCKED : 0);
      append((uintptr_t)lo, (uintptr_t)hi, (uint32_t)s, flags);
    }
    cur[2 * s] = cur[2 * s + 1] = 0;
  }
}

void tilec_rt_checks_detach(void) {
  close_cursors();
  tls_in_program = false;
  tls_checks = NULL;
  tls_log = NULL;
}

static size_t elem_size(const tilec_param_desc *p) {
  if (p->pointer_depth > 1) return sizeof(void *);
  size_t s = tilec_dtype_size((tilec_dtype)p->dtype);
  return s ? s : 1;
}

/* The runtime parameter of index `arg` (constexprs are not arguments). */
static const tilec_param_desc *arg_param(const tilec_kernel_desc *kd, int32_t arg) {
  if (!kd || !kd->params || arg < 0) return NULL;
  int32_t a = 0;
  for (uint32_t j = 0; j < kd->num_params; j++) {
    if (kd->params[j].kind == TILEC_PARAM_CONSTEXPR) continue;
    if (a++ == arg) return &kd->params[j];
  }
  return NULL;
}

/* Loads through argument i are logged when its buffer may be another argument's: either
 * extent unknown, or the byte ranges overlap (an in-place kernel given one array twice).
 * Its accesses are init-checked when its memory lies in a marked range. */
static void compute_arg_flags(tilec_rt_checks *k, int32_t nargs) {
  k->arg_flags = calloc((size_t)(nargs ? nargs : 1), sizeof *k->arg_flags);
  k->uninit = calloc((size_t)(nargs ? nargs : 1), sizeof *k->uninit);
  if (!k->arg_flags || !k->uninit) return;
  k->nargs = nargs;
  for (int32_t i = 0; i < nargs; i++) {
    const tilec_param_desc *pi = arg_param(k->kernel, i);
    if (!pi || pi->kind != TILEC_PARAM_POINTER) continue;
    if (k->classes & TILEC_CHECKS_INIT) {
      k->uninit[i] = tc_uninit_find((uintptr_t)*(void *const *)k->args[i]);
      if (k->uninit[i]) k->arg_flags[i] |= TILEC_RT_LOG_INIT;
    }
    if (!(k->classes & TILEC_CHECKS_RACES)) continue;
    if (!k->extents || k->extents[i] < 0) {
      k->arg_flags[i] |= TILEC_RT_LOG_LOADS;
      continue;
    }
    uintptr_t lo = (uintptr_t)*(void *const *)k->args[i], hi = lo + (uintptr_t)k->extents[i] * elem_size(pi);
    for (int32_t j = 0; j < nargs && !(k->arg_flags[i] & TILEC_RT_LOG_LOADS); j++) {
      const tilec_param_desc *pj = arg_param(k->kernel, j);
      if (j == i || !pj || pj->kind != TILEC_PARAM_POINTER) continue;
      if (!k->extents || k->extents[j] < 0) {
        k->arg_flags[i] |= TILEC_RT_LOG_LOADS;
        continue;
      }
      uintptr_t lo2 = (uintptr_t)*(void *const *)k->args[j], hi2 = lo2 + (uintptr_t)k->extents[j] * elem_size(pj);
      if (lo < hi2 && lo2 < hi) k->arg_flags[i] |= TILEC_RT_LOG_LOADS;
    }
  }
}

/* Where kernel code writes its cursors when no block could be allocated (the launch then
 * fails for want of memory): never read, shared by every thread. A kernel has far fewer
 * access sites than fit. */
#define SPARE_WORDS (1 << 16)
static uint64_t spare_block[SPARE_WORDS];

/* A thread's block is freed when the thread ends (team threads of other runtimes, host
 * threads that launched): a pthread key's destructor, made once. */
static pthread_key_t block_key;
static pthread_once_t block_once = PTHREAD_ONCE_INIT;
static bool block_key_made;

static void make_block_key(void) { block_key_made = pthread_key_create(&block_key, free) == 0; }

uint64_t *tilec_rt_access_program(int32_t nargs, int32_t nsites, int32_t classes, uint32_t px, uint32_t py,
                                  uint32_t pz) {
  close_cursors(); /* the thread's previous program */
  tilec_rt_checks *k = tls_checks;
  size_t need = (size_t)(nargs > 0 ? nargs : 0) + 2 * (size_t)(nsites > 0 ? nsites : 0);
  if (need > tls_block_cap) {
    /* whole cache lines of its own: kernel code stores a cursor per chunk, and a neighbour's
     * block on the same line would make the threads' stores fight over it */
    size_t bytes = (need * sizeof(uint64_t) + 63) / 64 * 64;
    uint64_t *b = aligned_alloc(64, bytes);
    if (b) free(tls_block);
    pthread_once(&block_once, make_block_key);
    if (block_key_made) pthread_setspecific(block_key, b);
    if (!b) { /* nothing can be logged: the launch says so, kernel code writes in the spare */
      if (k) atomic_store_explicit(&k->lost, 1, memory_order_relaxed);
      tls_in_program = false;
      return spare_block;
    }
    tls_block = b;
    tls_block_cap = need;
  }
  memset(tls_block, 0, need * sizeof *tls_block);
  tls_nargs = nargs;
  tls_nsites = nsites;
  tls_locks_held = 0;
  if (!k) { /* not in a launch (cannot happen through the launcher): log nothing */
    tls_in_program = false;
    return tls_block;
  }
  if (!atomic_load_explicit(&k->ready, memory_order_acquire)) {
    pthread_mutex_lock(&k->lock);
    if (!k->ready) {
      k->classes = (uint32_t)classes & (TILEC_CHECKS_RACES | TILEC_CHECKS_INIT);
      compute_arg_flags(k, nargs);
      k->sites = calloc((size_t)(nsites > 0 ? nsites : 1), sizeof *k->sites);
      k->nsites = nsites;
      if (!k->arg_flags || !k->uninit || !k->sites) atomic_store_explicit(&k->lost, 1, memory_order_relaxed);
      atomic_store_explicit(&k->ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&k->lock);
  }
  if (!k->arg_flags || !k->uninit || !k->sites) {
    tls_in_program = false;
    return tls_block;
  }
  for (int32_t i = 0; i < nargs && i < (int32_t)k->nargs; i++) tls_block[i] = k->arg_flags[i];
  tls_program = px + (uint64_t)k->grid[0] * (py + (uint64_t)k->grid[1] * pz);
  tls_in_program = true;
  return tls_block;
}

static void note_site(int32_t site, const char *file, int32_t line, int32_t col, int32_t arg, int32_t write,
                      int32_t size) {
  struct tc_access_site *s = &tls_checks->sites[site];
  if (atomic_load_explicit(&s->known, memory_order_acquire)) return;
  pthread_mutex_lock(&tls_checks->lock);
  if (!s->known) {
    s->file = file;
    s->line = line;
    s->col = col;
    s->arg = arg;
    s->write = write;
    s->size = size > 0 ? size : 1;
    atomic_store_explicit(&s->known, 1, memory_order_release);
  }
  pthread_mutex_unlock(&tls_checks->lock);
}

/* Starts a new run at [addr, addr + bytes) for the site, ending the one it had. */
static void open_run(int32_t site, uint64_t addr, uint64_t bytes) {
  uint64_t *cur = tls_block + tls_nargs + 2 * site;
  if (cur[1] > cur[0]) {
    uint32_t flags = (tls_checks->sites[site].write ? REC_WRITE : 0) | (tls_locks_held > 0 ? REC_LOCKED : 0);
    append((uintptr_t)cur[0], (uintptr_t)cur[1], (uint32_t)site, flags);
  }
  cur[0] = addr;
  cur[1] = addr + bytes;
}

static bool site_ok(int32_t site) {
  return tls_in_program && tls_checks && site >= 0 && site < tls_nsites && site < (int32_t)tls_checks->nsites;
}

/* --check init: the access of [lo, hi) through a site whose argument lies in a marked
 * range. A store marks the bytes written; a load of a byte never written is noted (the
 * earliest program in launch order is reported). */
static void init_access(int32_t site, uintptr_t lo, uintptr_t hi) {
  tilec_rt_checks *k = tls_checks;
  const struct tc_access_site *s = &k->sites[site];
  tc_uninit *r = s->arg >= 0 && (uint32_t)s->arg < k->nargs ? k->uninit[s->arg] : NULL;
  if (!r) return;
  if (s->write) {
    tc_uninit_store(r, lo, hi);
    return;
  }
  uintptr_t at;
  if (tc_uninit_load(r, lo, hi, &at) || tls_program >= k->init_program) return;
  pthread_mutex_lock(&k->lock);
  if (tls_program < k->init_program) {
    k->init_program = tls_program;
    k->init_site = (uint32_t)site;
    k->init_addr = at;
  }
  pthread_mutex_unlock(&k->lock);
}

static bool init_site(int32_t site) {
  const struct tc_access_site *s = &tls_checks->sites[site];
  return (tls_checks->classes & TILEC_CHECKS_INIT) && s->arg >= 0 && (uint32_t)s->arg < tls_checks->nargs &&
         tls_checks->uninit[s->arg];
}

/* An init-checked site logs each access as it comes: its cursor stays closed (hi 0), so
 * kernel code never extends a run behind the runtime's back. */
static void init_run(int32_t site, uint64_t addr, uint64_t bytes) {
  uint64_t *cur = tls_block + tls_nargs + 2 * site;
  init_access(site, (uintptr_t)addr, (uintptr_t)(addr + bytes));
  uint32_t flags = (tls_checks->sites[site].write ? REC_WRITE : 0) | (tls_locks_held > 0 ? REC_LOCKED : 0);
  append((uintptr_t)addr, (uintptr_t)(addr + bytes), (uint32_t)site, flags);
  cur[0] = cur[1] = 0;
}

void tilec_rt_access_open(int32_t site, int64_t addr, int64_t bytes, int32_t arg, int32_t write, int32_t size,
                          const char *file, int32_t line, int32_t col) {
  if (!site_ok(site) || bytes <= 0) return;
  note_site(site, file, line, col, arg, write, size);
  if (init_site(site)) init_run(site, (uint64_t)addr, (uint64_t)bytes);
  else open_run(site, (uint64_t)addr, (uint64_t)bytes);
}

void tilec_rt_access_lanes(int32_t site, const int64_t *addrs, const int8_t *active, int32_t count, int32_t arg,
                           int32_t write, int32_t size, const char *file, int32_t line, int32_t col) {
  if (!site_ok(site) || size <= 0) return;
  note_site(site, file, line, col, arg, write, size);
  bool init = init_site(site);
  uint64_t *cur = tls_block + tls_nargs + 2 * site;
  for (int32_t i = 0; i < count; i++) {
    if (!active[i]) continue;
    uint64_t a = (uint64_t)addrs[i];
    if (init) init_run(site, a, (uint64_t)size);
    else if (a == cur[1] && cur[1] > cur[0]) cur[1] += (uint64_t)size; /* the run goes on */
    else if (!(a >= cur[0] && a + (uint64_t)size <= cur[1])) open_run(site, a, (uint64_t)size);
  }
}

void tilec_rt_race_cas(int32_t success, int64_t addr) {
  if (!success) return;
  close_cursors(); /* runs end where the lock state changes */
  if (tls_locks_held < MAX_LOCKS) tls_lock_addr[tls_locks_held] = (uint64_t)addr;
  tls_locks_held++;
}

/* An atomic_xchg releases a lock only at an address a CAS locked (one on a flag beside
 * the lock, `seen[g]` in the layer norm backward tutorial, is not a release). */
void tilec_rt_race_release(int64_t addr) {
  int n = tls_locks_held < MAX_LOCKS ? tls_locks_held : MAX_LOCKS, at = -1;
  for (int i = n - 1; i >= 0 && at < 0; i--)
    if (tls_lock_addr[i] == (uint64_t)addr) at = i;
  if (at < 0 && tls_locks_held <= MAX_LOCKS) return;
  close_cursors();
  if (at >= 0) memmove(&tls_lock_addr[at], &tls_lock_addr[at + 1], (size_t)(n - at - 1) * sizeof tls_lock_addr[0]);
  tls_locks_held--;
}

/* ---- after the launch ---------------------------------------------------------------- */

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

/* The rest of a total order, so that equal keys never leave the choice to qsort. */
static int rest(const access_rec *x, const access_rec *y) {
  int c = CMP(y->flags & REC_WRITE, x->flags & REC_WRITE); /* stores first */
  if (!c) c = CMP(x->site, y->site);
  if (!c) c = CMP(x->lo, y->lo);
  if (!c) c = CMP(x->hi, y->hi);
  return c ? c : CMP(x->flags, y->flags);
}

static int by_address(const void *a, const void *b) {
  const access_rec *x = a, *y = b;
  int c = CMP(x->lo, y->lo);
  if (!c) c = CMP(x->program, y->program);
  return c ? c : rest(x, y);
}

static int by_program(const void *a, const void *b) {
  const access_rec *x = a, *y = b;
  int c = CMP(x->program, y->program);
  return c ? c : rest(x, y);
}

static bool conflict(const access_rec *a, const access_rec *b) {
  return a->program != b->program && ((a->flags | b->flags) & REC_WRITE) &&
         !((a->flags & REC_LOCKED) && (b->flags & REC_LOCKED));
}

/* The two runs with the largest ends among those seen, from two different programs. */
typedef struct top2 {
  const access_rec *first, *second; /* second: the largest end among programs != first's */
} top2;

static void top2_add(top2 *t, const access_rec *r) {
  if (!t->first) {
    t->first = r;
  } else if (r->program == t->first->program) {
    if (r->hi > t->first->hi) t->first = r;
  } else if (r->hi > t->first->hi) {
    t->second = t->first;
    t->first = r;
  } else if (!t->second || r->hi > t->second->hi) {
    t->second = r;
  }
}

/* Does a run of another program than `p` end past x? */
static bool top2_covers(const top2 *t, uint64_t p, uintptr_t x) {
  const access_rec *r = t->first && t->first->program != p ? t->first : t->second;
  return r && r->hi > x;
}

static void pid_text(const tilec_rt_checks *k, uint64_t p, char *buf, size_t n) {
  uint64_t gx = k->grid[0] ? k->grid[0] : 1, gy = k->grid[1] ? k->grid[1] : 1;
  snprintf(buf, n, "(%" PRIu64 ", %" PRIu64 ", %" PRIu64 ")", p % gx, (p / gx) % gy, p / (gx * gy));
}

static const char *arg_name_of(const tilec_rt_checks *k, int32_t arg) {
  const tilec_param_desc *p = arg_param(k->kernel, arg);
  return p && p->name ? p->name : "?";
}

/* The race reported at address x: among the runs covering x, the earliest program in
 * launch order (B) that meets an earlier one (A), a store-store pair before a load-store
 * one, then the earliest A. */
static void report(tilec_rt_checks *k, access_rec *all, size_t n, uintptr_t x, tilec_rt_error *err) {
  size_t m = 0;
  for (size_t i = 0; i < n && all[i].lo <= x; i++)
    if (all[i].hi > x) all[m++] = all[i]; /* the array is not needed past this point */
  qsort(all, m, sizeof *all, by_program);
  const access_rec *a = NULL, *b = NULL;
  for (size_t gs = 0, ge; gs < m && !a; gs = ge) { /* the runs of one program: [gs, ge) */
    for (ge = gs; ge < m && all[ge].program == all[gs].program; ge++) {}
    for (size_t j = gs; j < ge; j++)
      for (size_t i = 0; i < gs; i++) {
        if (!conflict(&all[i], &all[j])) continue;
        bool ww = (all[i].flags & all[j].flags & REC_WRITE) != 0;
        bool best_ww = a && (a->flags & b->flags & REC_WRITE);
        if (!a || (ww && !best_ww) || (ww == best_ww && all[i].program < a->program)) {
          a = &all[i];
          b = &all[j];
        }
      }
  }
  if (!a) return; /* cannot happen: the sweep saw a conflict at x */
  const struct tc_access_site *sa = &k->sites[a->site], *sb = &k->sites[b->site];
  char pa[96], pb[96], la[600], lb[600];
  pid_text(k, a->program, pa, sizeof pa);
  pid_text(k, b->program, pb, sizeof pb);
  snprintf(la, sizeof la, "%s:%d:%d", sa->file ? sa->file : "?", sa->line, sa->col);
  snprintf(lb, sizeof lb, "%s:%d:%d", sb->file ? sb->file : "?", sb->line, sb->col);
  const tilec_param_desc *param = arg_param(k->kernel, sb->arg);
  int64_t elem = -1;
  if (param && param->kind == TILEC_PARAM_POINTER)
    elem = (int64_t)(x - (uintptr_t)*(void *const *)k->args[sb->arg]) / (int64_t)(sb->size > 0 ? sb->size : 1);
  bool bw = (b->flags & REC_WRITE) != 0, aw = (a->flags & REC_WRITE) != 0;
  memset(err, 0, sizeof *err);
  snprintf(err->file, sizeof err->file, "%s", sb->file ? sb->file : "");
  err->line = sb->line;
  err->col = sb->col;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
  snprintf(err->message, sizeof err->message,
           "%s race on '%s' element %" PRId64 ": program %s %s it at %s after program %s %s it at %s, with no "
           "atomic or lock ordering the two",
           bw && aw ? "write-write" : "read-write", arg_name_of(k, sb->arg), elem, pb, bw ? "stores" : "loads", lb, pa,
           aw ? "stored" : "loaded", la);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
}

/* Finds the race at the lowest address: runs sorted by start, four groups (store/load,
 * locked or not) each keeping its two largest ends from distinct programs. */
static bool find_race(tilec_rt_checks *k, access_rec *all, size_t n, tilec_rt_error *err) {
  qsort(all, n, sizeof *all, by_address);
  top2 seen[4] = {{0}};
  for (size_t i = 0; i < n; i++) {
    const access_rec *r = &all[i];
    bool w = r->flags & REC_WRITE, locked = r->flags & REC_LOCKED;
    for (int g = 0; g < 4; g++) {
      bool gw = g & 1, glocked = g & 2;
      if (!(w || gw) || (locked && glocked)) continue;
      if (top2_covers(&seen[g], r->program, r->lo)) {
        report(k, all, n, r->lo, err);
        return true;
      }
    }
    top2_add(&seen[(w ? 1 : 0) | (locked ? 2 : 0)], r);
  }
  return false;
}

int tilec_rt_checks_end(tilec_rt_checks *k, tilec_rt_error *err) {
  int found = 0;
  size_t n = 0;
  bool any_write = false;
  for (struct tc_access_log *g = k->logs; g; g = g->next) {
    n += g->n;
    for (size_t i = 0; i < g->n && !any_write; i++) any_write = g->recs[i].flags & REC_WRITE;
  }
  if (atomic_load_explicit(&k->lost, memory_order_relaxed)) {
    memset(err, 0, sizeof *err);
    snprintf(err->message, sizeof err->message, "race check: out of memory for the access log");
    found = 1;
  } else if (n && any_write) {
    access_rec *all = malloc(n * sizeof *all);
    if (!all) {
      memset(err, 0, sizeof *err);
      snprintf(err->message, sizeof err->message, "race check: out of memory for the access log");
      found = 1;
    } else {
      size_t m = 0;
      for (struct tc_access_log *g = k->logs; g; g = g->next) {
        memcpy(all + m, g->recs, g->n * sizeof *all);
        m += g->n;
      }
      found = find_race(k, all, n, err);
      free(all);
    }
  }
  if (!found && k->init_program != UINT64_MAX) {
    const struct tc_access_site *s = &k->sites[k->init_site];
    const tilec_param_desc *param = arg_param(k->kernel, s->arg);
    int64_t elem = -1;
    if (param && param->kind == TILEC_PARAM_POINTER)
      elem =
          (int64_t)(k->init_addr - (uintptr_t)*(void *const *)k->args[s->arg]) / (int64_t)(s->size > 0 ? s->size : 1);
    char pid[96];
    pid_text(k, k->init_program, pid, sizeof pid);
    memset(err, 0, sizeof *err);
    snprintf(err->file, sizeof err->file, "%s", s->file ? s->file : "");
    err->line = s->line;
    err->col = s->col;
    snprintf(err->message, sizeof err->message,
             "load from '%s' at element %" PRId64 " reads memory nothing has stored to since it was marked "
             "uninitialized, in program %s",
             arg_name_of(k, s->arg), elem, pid);
    found = 1;
  }
  while (k->logs) {
    struct tc_access_log *g = k->logs;
    k->logs = g->next;
    if (g->cap > ((size_t)1 << 20)) { /* a huge log is not kept for the next launch */
      free(g->recs);
      g->recs = NULL;
      g->cap = 0;
    }
    pthread_mutex_lock(&spare_lock);
    g->next = spare_logs;
    spare_logs = g;
    pthread_mutex_unlock(&spare_lock);
  }
  free(k->arg_flags);
  free(k->uninit);
  free(k->sites);
  k->uninit = NULL;
  k->arg_flags = NULL;
  k->sites = NULL;
  pthread_mutex_destroy(&k->lock);
  return found;
}
