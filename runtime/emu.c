/* runtime/emu.c — the CTA emulator behind `--target nvptx-emu`: one program's 32 * num_warps
 * threads run on the CPU as real threads that share a barrier and the program's shared
 * memory, so the GPU lowering — how it deals work to threads, its barriers and its
 * shared-memory protocol — is executed and checked without a GPU. Kernels compiled for
 * nvptx-emu call tilec_rt_emu_cta once per program (from the launcher's thread); the
 * lowering's thread id, barrier and shared-memory base are the other three calls, made from
 * the CTA's threads. In: a program body and its thread count. Out: the body run once per
 * thread; an error (thread creation failed) unwinds the program like a failed assert. */
#include "runtime/debug.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct emu_cta {
  pthread_barrier_t barrier;
  void *shared;
  void (*body)(void *ctx);
  void *ctx;
  /* the start gate: threads wait until all exist (go = 1), or leave at once (go = -1) */
  pthread_mutex_t gate;
  pthread_cond_t opened;
  int go;
} emu_cta;

static _Thread_local emu_cta *tls_cta;
static _Thread_local int32_t tls_tid;

typedef struct emu_thread {
  emu_cta *cta;
  int32_t tid;
} emu_thread;

static void run_body(emu_thread *t) {
  emu_cta *outer = tls_cta;
  int32_t outer_tid = tls_tid;
  tls_cta = t->cta;
  tls_tid = t->tid;
  t->cta->body(t->cta->ctx);
  tls_cta = outer;
  tls_tid = outer_tid;
}

static void *run_thread(void *p) {
  emu_thread *t = p;
  pthread_mutex_lock(&t->cta->gate);
  while (!t->cta->go) pthread_cond_wait(&t->cta->opened, &t->cta->gate);
  int go = t->cta->go;
  pthread_mutex_unlock(&t->cta->gate);
  if (go > 0) run_body(t);
  return NULL;
}

int32_t tilec_rt_emu_thread_id(void) { return tls_tid; }

void tilec_rt_emu_barrier(void) {
  if (tls_cta) pthread_barrier_wait(&tls_cta->barrier);
}

void *tilec_rt_emu_shared(void) { return tls_cta ? tls_cta->shared : NULL; }

static void open_gate(emu_cta *cta, int go) {
  pthread_mutex_lock(&cta->gate);
  cta->go = go;
  pthread_cond_broadcast(&cta->opened);
  pthread_mutex_unlock(&cta->gate);
}

void tilec_rt_emu_cta(uint32_t nthreads, uint64_t shared_bytes, void (*body)(void *ctx), void *ctx) {
  if (nthreads == 0) nthreads = 1;
  emu_cta cta = {.body = body, .ctx = ctx};
  pthread_mutex_init(&cta.gate, NULL);
  pthread_cond_init(&cta.opened, NULL);
  emu_thread *threads = calloc(nthreads, sizeof *threads);
  pthread_t *ids = calloc(nthreads, sizeof *ids);
  /* shared memory starts zeroed here; a GPU leaves it undefined (the lowering never reads
   * what it did not write) */
  cta.shared = calloc(1, shared_bytes ? shared_bytes : 1);
  const char *fail = !threads || !ids || !cta.shared ? "out of memory" : NULL;
  bool barrier = !fail && !pthread_barrier_init(&cta.barrier, NULL, nthreads);
  if (!fail && !barrier) fail = "cannot create its barrier";
  uint32_t started = 1;
  if (!fail) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 8u << 20);
    for (; started < nthreads; started++) {
      threads[started] = (emu_thread){&cta, (int32_t)started};
      if (pthread_create(&ids[started], &attr, run_thread, &threads[started])) break;
    }
    pthread_attr_destroy(&attr);
    if (started < nthreads) fail = "cannot create its threads";
  }
  /* Every thread exists before any body runs: a body waiting at a barrier for a thread that
   * could not be created would never return. */
  open_gate(&cta, fail ? -1 : 1);
  jmp_buf *unwind = tilec_rt_emu_hold_jmp();
  if (!fail) {
    threads[0] = (emu_thread){&cta, 0};
    run_body(&threads[0]); /* thread 0 is the caller: its prints and asserts are the program's */
  }
  for (uint32_t i = 1; i < started; i++) pthread_join(ids[i], NULL);
  if (barrier) pthread_barrier_destroy(&cta.barrier);
  pthread_cond_destroy(&cta.opened);
  pthread_mutex_destroy(&cta.gate);
  free(cta.shared);
  free(threads);
  free(ids);
  if (fail) {
    char msg[160];
    snprintf(msg, sizeof msg, "nvptx-emu: a program of %u threads %s", nthreads, fail);
    tilec_rt_emu_release_jmp(unwind); /* nothing recorded yet: only restores */
    tilec_rt_emu_fail(msg);
  }
  tilec_rt_emu_release_jmp(unwind); /* a failed assert of thread 0 unwinds the program now */
}
