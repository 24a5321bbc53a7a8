/* launcher/team.c — the OpenMP team a launch runs on: libomp's (the runtime's own OpenMP),
 * or, in a process that has already loaded GNU libgomp, libgomp's.
 *
 * PyTorch's CPU ops run on libgomp (the wheel carries libgomp.so.1). An OpenMP runtime
 * keeps its idle threads spinning after a parallel region (libomp for KMP_BLOCKTIME, 200 ms
 * by default; libgomp for GOMP_SPINCOUNT), so with two runtimes in one process each one's
 * spinning threads take the cores the other's next region needs. Measured on 2 cores,
 * 2 threads each: torch.add and a tilec vector add of 2^22 fp32 cost 1.7 and 1.7 ms alone,
 * 5.2 ms alternating. So once libgomp is in the process (found by its soname, never loaded
 * here), launches use its team through its GNU entry point (GOMP_parallel) and its own
 * omp_get_thread_num/omp_get_num_threads: the programs run on the threads torch's ops run
 * on. Elsewhere the team is libomp's, as before. Kernels see no difference: a program
 * runs on some thread, any thread.
 * In: a team size and a body. Out: the body run on each thread of the team. */
#include "launcher/team.h"

#include <dlfcn.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

typedef struct gomp_api {
  void (*parallel)(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
  int (*thread_num)(void);
  int (*num_threads)(void);
  int (*max_threads)(void);
} gomp_api;

static gomp_api gomp;              /* valid once gomp_found is 1 */
static _Atomic int gomp_found;     /* libgomp stays loaded once seen: never reset */
static _Atomic int64_t next_probe; /* monotonic ns before which "not loaded" is not re-checked */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;

/* Not loaded yet is re-checked every 100 ms (torch may be imported after the first launch);
 * a probe is a dlopen with RTLD_NOLOAD, about a microsecond. */
#define PROBE_INTERVAL_NS 100000000

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static const gomp_api *loaded_gomp(void) {
  if (atomic_load_explicit(&gomp_found, memory_order_acquire)) return &gomp;
  int64_t now = now_ns();
  if (now < atomic_load_explicit(&next_probe, memory_order_relaxed)) return NULL;
  atomic_store_explicit(&next_probe, now + PROBE_INTERVAL_NS, memory_order_relaxed);
  void *h = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h) return NULL;
  if (dlsym(h, "__kmpc_fork_call")) {
    /* LLVM ships libgomp.so.1 as an alias of libomp: that is the runtime used anyway */
    dlclose(h);
    return NULL;
  }
  gomp_api g;
  *(void **)&g.parallel = dlsym(h, "GOMP_parallel");
  *(void **)&g.thread_num = dlsym(h, "omp_get_thread_num");
  *(void **)&g.num_threads = dlsym(h, "omp_get_num_threads");
  *(void **)&g.max_threads = dlsym(h, "omp_get_max_threads");
  if (!g.parallel || !g.thread_num || !g.num_threads || !g.max_threads) {
    dlclose(h);
    return NULL;
  }
  /* The handle is kept (its reference keeps the library loaded while gomp is in use). */
  pthread_mutex_lock(&probe_lock);
  if (!atomic_load_explicit(&gomp_found, memory_order_relaxed)) {
    gomp = g;
    atomic_store_explicit(&gomp_found, 1, memory_order_release);
  } else {
    dlclose(h);
  }
  pthread_mutex_unlock(&probe_lock);
  return &gomp;
}

typedef struct team_call {
  tc_team_body body;
  void *ctx;
  const gomp_api *g;
} team_call;

static void gomp_entry(void *p) {
  team_call *c = p;
  c->body(c->ctx, (uint32_t)c->g->thread_num(), (uint32_t)c->g->num_threads());
}

void tc_team_run(uint32_t threads, tc_team_body body, void *ctx) {
  const gomp_api *g = loaded_gomp();
  if (g) {
    team_call c = {body, ctx, g};
    g->parallel(gomp_entry, &c, threads, 0);
    return;
  }
#pragma omp parallel num_threads((int)threads) default(none) shared(body, ctx)
  body(ctx, (uint32_t)omp_get_thread_num(), (uint32_t)omp_get_num_threads());
}

int tc_team_default_threads(void) {
  const gomp_api *g = loaded_gomp();
  return g ? g->max_threads() : omp_get_max_threads();
}
