/* launcher/launcher.c — runs a kernel's grid of programs: validates the launch, then runs
 * one program inline or a range of them on an OpenMP team (launcher/team.c).
 * In: a kernel descriptor, a 3-D grid, argument pointers, options. Out: a status (NULL = ok). */
#include "launcher/team.h"
#include "runtime/debug.h"
#include "tilec/runtime.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_FAILURE UINT64_MAX

/* Dynamic chunks: small enough to balance uneven programs, large enough that the shared
 * counter is not touched for every program. */
#define DYNAMIC_CHUNKS_PER_THREAD 16u
#define DYNAMIC_MAX_CHUNK 1024u

typedef struct launch {
  tilec_program_fn program;
  void *const *args;
  uint32_t grid[3];
  uint64_t plane; /* grid[0] * grid[1], fits: both are 32-bit */
  /* Lowest failing program seen so far; also the stop flag every thread polls. */
  _Atomic uint64_t first_failure;
  /* What that program reported (a failed device_assert), guarded by the mutex. */
  pthread_mutex_t failure_lock;
  uint64_t message_of;
  tilec_rt_error message;
  tilec_program_ctx pctx; /* shared, read-only during the launch */
  void *ctx;
  tilec_rt_checks checks; /* what --check races kernels log (runtime/races.c) */
} launch;

/* Per-thread position in the grid, so consecutive programs cost an increment, not two
 * divisions. `next` is the flattened id the pid currently holds. */
typedef struct cursor {
  uint64_t next;
  uint32_t pid[3];
} cursor;

static inline void pid_of(const launch *l, uint64_t p, uint32_t pid[3]) {
  uint64_t z = p / l->plane;
  uint64_t rest = p - z * l->plane;
  uint64_t y = rest / l->grid[0];
  pid[0] = (uint32_t)(rest - y * l->grid[0]);
  pid[1] = (uint32_t)y;
  pid[2] = (uint32_t)z;
}

static inline void pid_step(const launch *l, uint32_t pid[3]) {
  if (++pid[0] != l->grid[0]) return;
  pid[0] = 0;
  if (++pid[1] != l->grid[1]) return;
  pid[1] = 0;
  pid[2]++; /* past the last program this leaves z == grid z, which is never run */
}

static void note_failure(launch *l, uint64_t p) {
  tilec_rt_error err;
  tilec_rt_take_error(&err);
  pthread_mutex_lock(&l->failure_lock);
  if (p < l->message_of) {
    l->message_of = p;
    l->message = err;
  }
  pthread_mutex_unlock(&l->failure_lock);
  uint64_t seen = atomic_load_explicit(&l->first_failure, memory_order_relaxed);
  while (p < seen && !atomic_compare_exchange_weak_explicit(&l->first_failure, &seen, p, memory_order_relaxed,
                                                            memory_order_relaxed)) {}
}

static inline void run_program(launch *l, cursor *c, uint64_t p) {
  if (p != c->next) pid_of(l, p, c->pid);
  if (l->program(l->args, c->pid, l->grid, l->ctx) != 0) note_failure(l, p);
  tilec_rt_flush_output();
  pid_step(l, c->pid);
  c->next = p + 1;
}

/* The programs [first, end) of a launch, for a team. */
typedef struct team_work {
  launch *l;
  uint64_t first, end;
  uint64_t chunk;        /* dynamic: programs per grab */
  _Atomic uint64_t next; /* dynamic: the first program not yet taken */
} team_work;

static bool stopped(const launch *l) {
  return atomic_load_explicit(&l->first_failure, memory_order_relaxed) != NO_FAILURE;
}

/* One contiguous run of programs per thread, sizes differing by at most one. */
static void run_static(void *ctx, uint32_t tid, uint32_t nthreads) {
  team_work *w = ctx;
  uint64_t n = w->end - w->first, q = n / nthreads, r = n % nthreads;
  uint64_t lo = w->first + tid * q + (tid < r ? tid : r), hi = lo + q + (tid < r);
  cursor c = {.next = NO_FAILURE};
  tilec_rt_checks_attach(&w->l->checks);
  for (uint64_t p = lo; p < hi && !stopped(w->l); p++) run_program(w->l, &c, p);
  tilec_rt_checks_detach();
}

/* Threads take `chunk` programs at a time as they finish. */
static void run_dynamic(void *ctx, uint32_t tid, uint32_t nthreads) {
  (void)tid, (void)nthreads;
  team_work *w = ctx;
  cursor c = {.next = NO_FAILURE};
  tilec_rt_checks_attach(&w->l->checks);
  for (;;) {
    uint64_t lo = atomic_fetch_add_explicit(&w->next, w->chunk, memory_order_relaxed);
    if (lo >= w->end || stopped(w->l)) break;
    uint64_t hi = w->end - lo < w->chunk ? w->end : lo + w->chunk;
    for (uint64_t p = lo; p < hi && !stopped(w->l); p++) run_program(w->l, &c, p);
  }
  tilec_rt_checks_detach();
}

/* The launch's status: its lowest failing program's report, else a race its checks found. */
static tilec_status *launch_failed(const tilec_kernel_desc *k, launch *l) {
  tilec_rt_error race;
  bool raced = tilec_rt_checks_end(&l->checks, &race);
  uint64_t p = atomic_load_explicit(&l->first_failure, memory_order_relaxed);
  if (p == NO_FAILURE && raced) {
    if (race.file[0])
      return tilec_status_create_at(TILEC_ERROR_RUNTIME, race.file, race.line, race.col, NULL, "%s", race.message);
    return tilec_status_create(TILEC_ERROR_RUNTIME, "kernel '%s': %s", k->name, race.message);
  }
  if (p == NO_FAILURE) return NULL;
  uint32_t pid[3];
  pid_of(l, p, pid);
  /* A checked failure points at the kernel source like a compile error does. */
  if (l->message_of == p && l->message.message[0] && l->message.file[0])
    return tilec_status_create_at(TILEC_ERROR_RUNTIME, l->message.file, l->message.line, l->message.col, NULL, "%s",
                                  l->message.message);
  if (l->message_of == p && l->message.message[0])
    return tilec_status_create(TILEC_ERROR_RUNTIME, "kernel '%s': %s", k->name, l->message.message);
  return tilec_status_create(TILEC_ERROR_RUNTIME, "kernel '%s' failed in program (%u, %u, %u)", k->name,
                             (unsigned)pid[0], (unsigned)pid[1], (unsigned)pid[2]);
}

/* Strict decimal in [1, TILEC_MAX_THREADS]: a typo must not silently mean "default". */
static int parse_thread_count(const char *s, uint32_t *out) {
  uint32_t v = 0;
  if (!*s) return 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return 0;
    v = v * 10 + (uint32_t)(*s - '0');
    if (v > TILEC_MAX_THREADS) return 0;
  }
  if (v == 0) return 0;
  *out = v;
  return 1;
}

static tilec_status *team_size(const tilec_kernel_desc *k, const tilec_launch_options *opts, uint64_t programs,
                               uint32_t *out) {
  uint32_t want = opts ? opts->num_threads : 0;
  if (want == 0) {
    const char *env = getenv("TILEC_NUM_THREADS");
    if (env && *env) {
      if (!parse_thread_count(env, &want))
        return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                   "kernel '%s': TILEC_NUM_THREADS='%s' is not an integer "
                                   "between 1 and %u",
                                   k->name, env, TILEC_MAX_THREADS);
    } else {
      int n = tc_team_default_threads();
      want = n > 0 ? (uint32_t)n : 1;
    }
  }
  *out = (uint64_t)want > programs ? (uint32_t)programs : want;
  return NULL;
}

/* Name of the i-th runtime argument, for messages; constexprs take no slot in args. */
static const char *arg_name(const tilec_kernel_desc *k, uint32_t i) {
  if (!k->params) return "?";
  for (uint32_t j = 0; j < k->num_params; j++) {
    if (k->params[j].kind == TILEC_PARAM_CONSTEXPR) continue;
    if (i-- == 0) return k->params[j].name ? k->params[j].name : "?";
  }
  return "?";
}

/* The descriptor itself; nothing else in it is read before this passes. */
static tilec_status *check_descriptor(const tilec_kernel_desc *k) {
  if (!k) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_kernel_launch: kernel is NULL");
  /* Nothing past the first two fields can be trusted until these match. */
  if (k->abi_version != TILEC_ABI_VERSION || k->struct_size != sizeof(tilec_kernel_desc))
    return tilec_status_create(TILEC_ERROR_ABI,
                               "kernel descriptor was built for tilec ABI %u (%u bytes), this "
                               "runtime is %u (%zu bytes)",
                               (unsigned)k->abi_version, (unsigned)k->struct_size, (unsigned)TILEC_ABI_VERSION,
                               sizeof(tilec_kernel_desc));
  if (!k->name) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_kernel_launch: kernel has no name");
  return NULL;
}

static tilec_status *check_kernel(const tilec_kernel_desc *k, void *const *args, const tilec_launch_options *opts) {
  tilec_status *st = check_descriptor(k);
  if (st) return st;
  const char *name = k->name;
  if (!k->program)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "kernel '%s' has no CPU program (built for %s: launch it with tilec_jit_kernel_launch "
                               "or its library's %s_launch)",
                               name, k->target ? k->target : "another target", name);
  if (k->num_args > 0) {
    if (!args)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel '%s' takes %u argument%s but args is NULL", name,
                                 (unsigned)k->num_args, k->num_args == 1 ? "" : "s");
    for (uint32_t i = 0; i < k->num_args; i++)
      if (!args[i])
        return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel '%s': argument %u ('%s') is NULL", name,
                                   (unsigned)i, arg_name(k, i));
  }
  if (opts) {
    if (opts->schedule != TILEC_SCHEDULE_STATIC && opts->schedule != TILEC_SCHEDULE_DYNAMIC)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                 "kernel '%s': unknown schedule %u (expected 0 = static or "
                                 "1 = dynamic)",
                                 name, (unsigned)opts->schedule);
    if (opts->num_threads > TILEC_MAX_THREADS)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel '%s': num_threads %u exceeds the limit of %u",
                                 name, (unsigned)opts->num_threads, TILEC_MAX_THREADS);
  }
  return NULL;
}

void tilec_launch_options_init(tilec_launch_options *opts) {
  if (!opts) return;
  opts->num_threads = 0;
  opts->schedule = TILEC_SCHEDULE_STATIC;
  opts->first_program = 0;
  opts->program_count = UINT64_MAX;
  opts->buffer_extents = NULL;
}

static tilec_status *launch_grid(const tilec_kernel_desc *kernel, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z,
                                 void *const *args, const tilec_launch_options *opts) {
  tilec_status *st = check_kernel(kernel, args, opts);
  if (st) return st;

  if (grid_x > TILEC_MAX_GRID_X || grid_y > TILEC_MAX_GRID_YZ || grid_z > TILEC_MAX_GRID_YZ)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "kernel '%s': grid (%u, %u, %u) exceeds Triton's limits of %u programs on "
                               "axis 0 and %u on axes 1 and 2 (program ids are 32-bit)",
                               kernel->name, (unsigned)grid_x, (unsigned)grid_y, (unsigned)grid_z, TILEC_MAX_GRID_X,
                               TILEC_MAX_GRID_YZ);
  uint64_t plane = (uint64_t)grid_x * grid_y, total;
  if (__builtin_mul_overflow(plane, (uint64_t)grid_z, &total))
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "kernel '%s': grid (%u, %u, %u) has more than 2^64 - 1 programs", kernel->name,
                               (unsigned)grid_x, (unsigned)grid_y, (unsigned)grid_z);
  uint64_t first = opts ? opts->first_program : 0;
  uint64_t count = opts ? opts->program_count : UINT64_MAX;
  if (first > total)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "kernel '%s': first program %llu is outside the grid (%u, %u, %u) "
                               "of %llu programs",
                               kernel->name, (unsigned long long)first, (unsigned)grid_x, (unsigned)grid_y,
                               (unsigned)grid_z, (unsigned long long)total);
  if (count == UINT64_MAX) count = total - first;
  if (count > total - first)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "kernel '%s': programs [%llu, %llu + %llu) exceed the grid "
                               "(%u, %u, %u) of %llu programs",
                               kernel->name, (unsigned long long)first, (unsigned long long)first,
                               (unsigned long long)count, (unsigned)grid_x, (unsigned)grid_y, (unsigned)grid_z,
                               (unsigned long long)total);
  if (count == 0) return NULL;

  launch l = {.program = kernel->program,
              .args = args,
              .grid = {grid_x, grid_y, grid_z},
              .plane = plane,
              .first_failure = NO_FAILURE,
              .failure_lock = PTHREAD_MUTEX_INITIALIZER,
              .message_of = NO_FAILURE};
  if (opts && opts->buffer_extents) {
    l.pctx.extents = opts->buffer_extents;
    l.ctx = &l.pctx;
  }
  const uint64_t end = first + count;
  uint32_t threads = 1;
  if (count > 1) {
    st = team_size(kernel, opts, count, &threads);
    if (st) return st;
  }
  tilec_rt_checks_begin(&l.checks, kernel, args, l.pctx.extents, l.grid);

  if (count == 1) {
    uint32_t pid[3];
    pid_of(&l, first, pid);
    tilec_rt_checks_attach(&l.checks);
    if (l.program(args, pid, l.grid, l.ctx) != 0) note_failure(&l, first);
    tilec_rt_checks_detach();
    tilec_rt_flush_output();
    return launch_failed(kernel, &l);
  }

  if (threads <= 1) {
    /* A one-thread team only adds fork/join cost: stay on the caller's thread. */
    cursor c = {.next = NO_FAILURE};
    tilec_rt_checks_attach(&l.checks);
    for (uint64_t p = first; p < end && !stopped(&l); p++) run_program(&l, &c, p);
    tilec_rt_checks_detach();
    return launch_failed(kernel, &l);
  }

  team_work w = {.l = &l, .first = first, .end = end, .next = first};
  if (opts && opts->schedule == TILEC_SCHEDULE_DYNAMIC) {
    uint64_t chunk = count / ((uint64_t)threads * DYNAMIC_CHUNKS_PER_THREAD);
    if (chunk < 1) chunk = 1;
    if (chunk > DYNAMIC_MAX_CHUNK) chunk = DYNAMIC_MAX_CHUNK;
    w.chunk = chunk;
    tc_team_run(threads, run_dynamic, &w);
  } else {
    tc_team_run(threads, run_static, &w);
  }
  return launch_failed(kernel, &l);
}

tilec_status *tilec_kernel_launch(const tilec_kernel_desc *kernel, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z,
                                  void *const *args, const tilec_launch_options *opts) {
  return launch_grid(kernel, grid_x, grid_y, grid_z, args, opts);
}

/* "a, b, c": the runtime parameter names, for argument-count messages. */
static void arg_names(const tilec_kernel_desc *k, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  for (uint32_t i = 0; i < k->num_args && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", arg_name(k, i));
}

/* A tensor descriptor argument: present, with a base, positive sizes and a contiguous last
 * dimension (the rank is the block's, from the parameter's "tensordesc<T[B0, ...]>"). */
static tilec_status *check_tensordesc_arg(const tilec_kernel_desc *kernel, const tilec_param_desc *p, uint32_t a,
                                          const void *arg) {
  const char *name = p->name ? p->name : "?";
  const tilec_tensor_descriptor *d = arg;
  if (!d || !d->base)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel '%s': tensor descriptor argument %u ('%s') %s",
                               kernel->name, (unsigned)a, name, d ? "has a NULL base" : "is NULL");
  int rank = 1;
  const char *lb = p->value ? strchr(p->value, '[') : NULL;
  for (const char *q = lb; q && *q && *q != ']'; q++) rank += *q == ',';
  if (rank > TILEC_TENSOR_DESC_MAX_RANK) rank = TILEC_TENSOR_DESC_MAX_RANK;
  for (int i = 0; i < rank; i++)
    if (d->shape[i] <= 0)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                 "kernel '%s': tensor descriptor '%s' has shape[%d] = %lld (must be positive)",
                                 kernel->name, name, i, (long long)d->shape[i]);
  if (d->strides[rank - 1] != 1)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "kernel '%s': tensor descriptor '%s' has strides[%d] = %lld; the last dimension must "
                               "be contiguous (stride 1)",
                               kernel->name, name, rank - 1, (long long)d->strides[rank - 1]);
  if (d->padding != 0 && d->padding != 1)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "kernel '%s': tensor descriptor '%s' has padding %lld (0: zero, 1: nan)", kernel->name,
                               name, (long long)d->padding);
  return NULL;
}

tilec_status *tilec_kernel_launch_checked(const tilec_kernel_desc *kernel, uint32_t grid_x, uint32_t grid_y,
                                          uint32_t grid_z, void *const *args, size_t num_args,
                                          const tilec_launch_options *opts) {
  tilec_status *st = check_descriptor(kernel);
  if (st) return st;
  /* Before anything reads args[i]: a short array must not be read past its end. */
  if (num_args != kernel->num_args) {
    char names[512];
    arg_names(kernel, names, sizeof names);
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel '%s' takes %u argument%s (%s), got %zu",
                               kernel->name, (unsigned)kernel->num_args, kernel->num_args == 1 ? "" : "s", names,
                               num_args);
  }
  st = check_kernel(kernel, args, opts);
  if (st) return st;
  if (kernel->params) {
    uint32_t a = 0;
    for (uint32_t j = 0; j < kernel->num_params && a < kernel->num_args; j++) {
      const tilec_param_desc *p = &kernel->params[j];
      if (p->kind == TILEC_PARAM_CONSTEXPR) continue;
      if (p->kind == TILEC_PARAM_POINTER && *(void *const *)args[a] == NULL)
        return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel '%s': pointer argument %u ('%s') is NULL",
                                   kernel->name, (unsigned)a, p->name ? p->name : "?");
      if (p->kind == TILEC_PARAM_TENSORDESC) {
        st = check_tensordesc_arg(kernel, p, a, args[a]);
        if (st) return st;
      }
      a++;
    }
  }
  return tilec_kernel_launch(kernel, grid_x, grid_y, grid_z, args, opts);
}

/* Fixed-size so a thread that exits leaves nothing to free; launch messages are short. */
static _Thread_local char last_error[1024];

int tilec_kernel_launch_simple(const tilec_kernel_desc *kernel, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z,
                               void *const *args) {
  tilec_status *st = tilec_kernel_launch(kernel, grid_x, grid_y, grid_z, args, NULL);
  if (!st) {
    last_error[0] = 0;
    return 0;
  }
  snprintf(last_error, sizeof last_error, "%s", tilec_status_message(st));
  int code = (int)tilec_status_code_of(st);
  tilec_status_destroy(st);
  return code;
}

const char *tilec_last_error(void) { return last_error; }

int tilec_rt_launch_refused(int code, const char *msg) {
  snprintf(last_error, sizeof last_error, "%s", msg ? msg : "");
  return code;
}
