/* runtime/emu.c — the CTA emulator behind `--target nvptx-emu`: one program's 32 * num_warps
 * threads run on the CPU as real threads that share a barrier and the program's shared
 * memory, so the GPU lowering — how it deals work to threads, its barriers and its
 * shared-memory protocol — is executed and checked without a GPU. Kernels compiled for
 * nvptx-emu call tilec_rt_emu_cta once per program (from the launcher's thread); the
 * lowering's thread id, barrier and shared-memory base are the other three calls, made from
 * the CTA's threads. The threads are a pool kept per calling (launcher) thread and reused by
 * every program it runs. In: a program body and its thread count. Out: the body run once
 * per thread; an error (thread creation failed) unwinds the program like a failed assert. */
#include "runtime/debug.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A thread's cp.async copies in flight: each lands in shared memory at the first
 * cp.async.wait_group that waits for its group, not before (the latest moment the hardware
 * may complete it: a read of the stage without that wait, or a barrier before it, sees the
 * old bytes here as it may on a GPU). The source is read at the issue. */
typedef struct emu_copy {
  void *dst;
  uint32_t group; /* the commit count when it was issued: its group */
  uint8_t bytes[16];
} emu_copy;
typedef struct emu_copies {
  emu_copy *v;
  uint32_t n, cap;
  uint32_t committed; /* groups committed so far */
} emu_copies;

typedef struct emu_cta {
  pthread_barrier_t *barrier;
  void *shared;
  int32_t *exchange;  /* EXCHANGE words per thread: the shuffles' and the MMAs' registers */
  emu_copies *copies; /* per thread */
  uint32_t nthreads;
  void (*body)(void *ctx);
  void *ctx;
} emu_cta;

#define EXCHANGE 6

static _Thread_local emu_cta *tls_cta;
static _Thread_local int32_t tls_tid;

static void run_body(emu_cta *cta, int32_t tid) {
  emu_cta *outer = tls_cta;
  int32_t outer_tid = tls_tid;
  tls_cta = cta;
  tls_tid = tid;
  cta->body(cta->ctx);
  tls_cta = outer;
  tls_tid = outer_tid;
}

int32_t tilec_rt_emu_thread_id(void) { return tls_tid; }

void tilec_rt_emu_barrier(void) {
  if (tls_cta) pthread_barrier_wait(tls_cta->barrier);
}

void *tilec_rt_emu_shared(void) { return tls_cta ? tls_cta->shared : NULL; }

void tilec_rt_emu_cp_async(void *dst, const void *src, int32_t src_size) {
  emu_cta *c = tls_cta;
  if (!c) return;
  emu_copies *q = &c->copies[tls_tid];
  if (q->n == q->cap) {
    uint32_t cap = q->cap ? 2 * q->cap : 64;
    emu_copy *v = realloc(q->v, cap * sizeof *v);
    if (!v) {
      tilec_rt_emu_fail("nvptx-emu: out of memory for cp.async's copies in flight");
      return;
    }
    q->v = v, q->cap = cap;
  }
  emu_copy *e = &q->v[q->n++];
  e->dst = dst;
  e->group = q->committed;
  memset(e->bytes, 0, sizeof e->bytes);                                           /* zero fill past src_size */
  if (src_size > 0) memcpy(e->bytes, src, src_size < 16 ? (size_t)src_size : 16); /* nothing read at 0 */
}

void tilec_rt_emu_cp_async_commit(void) {
  if (tls_cta) tls_cta->copies[tls_tid].committed++;
}

void tilec_rt_emu_cp_async_wait(int32_t pending) {
  emu_cta *c = tls_cta;
  if (!c) return;
  emu_copies *q = &c->copies[tls_tid];
  /* every committed group but the newest `pending` ones lands, in issue order */
  uint32_t limit = (uint32_t)pending >= q->committed ? 0 : q->committed - (uint32_t)pending, kept = 0;
  for (uint32_t i = 0; i < q->n; i++) {
    if (q->v[i].group < limit) memcpy(q->v[i].dst, q->v[i].bytes, sizeof q->v[i].bytes);
    else q->v[kept++] = q->v[i];
  }
  q->n = kept;
}

/* shfl.sync over the warp: lane i gets lane i + delta's value (up: i - delta; xor: i ^
 * delta), its own where that is outside the warp. Called by every thread of the CTA at once
 * (the lowering emits shuffles in uniform code), so two CTA barriers stand in for the warp's
 * lockstep. */
static int32_t shfl(int32_t v, int32_t delta, bool xor) {
  emu_cta *c = tls_cta;
  if (!c) return v;
  c->exchange[EXCHANGE * tls_tid] = v;
  pthread_barrier_wait(c->barrier);
  int64_t lane = tls_tid % 32, src_lane = xor ? (lane ^ (delta & 31)) : lane + delta;
  int64_t src = (int64_t)tls_tid - lane + src_lane;
  int32_t r = src_lane >= 0 && src_lane < 32 && src < (int64_t)c->nthreads ? c->exchange[EXCHANGE * src] : v;
  pthread_barrier_wait(c->barrier);
  return r;
}

int32_t tilec_rt_emu_shfl_down(int32_t v, int32_t delta) { return shfl(v, delta, false); }
int32_t tilec_rt_emu_shfl_up(int32_t v, int32_t delta) { return shfl(v, -delta, false); }
int32_t tilec_rt_emu_shfl_xor(int32_t v, int32_t mask) { return shfl(v, mask, true); }

static float half_to_float(uint32_t h) {
  uint32_t sign = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
  float f;
  if (e == 0) f = ldexpf((float)m, -24);
  else if (e == 31) f = m ? NAN : INFINITY;
  else f = ldexpf((float)(m | 1024), (int)e - 25);
  return sign ? -f : f;
}

static float bf16_to_float(uint32_t h) {
  uint32_t bits = h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* The MMAs' exchange: this lane's A (a0..a3) and B (b0, b1) registers published, the CTA met;
 * the warp's registers, 6 a lane at EXCHANGE apart from its lane 0. The caller meets the CTA
 * again once it has read them. */
static const int32_t *warp_fragments(emu_cta *c, int32_t a0, int32_t a1, int32_t a2, int32_t a3, int32_t b0,
                                     int32_t b1) {
  int32_t *mine = c->exchange + EXCHANGE * tls_tid;
  mine[0] = a0, mine[1] = a1, mine[2] = a2, mine[3] = a3, mine[4] = b0, mine[5] = b1;
  pthread_barrier_wait(c->barrier);
  return c->exchange + EXCHANGE * (tls_tid - tls_tid % 32);
}

/* mma.sync.m16n8k16.row.col.f32 of the warp: each lane gives its A (a0..a3) and B (b0, b1)
 * registers of f16x2 or bf16x2 and its four C values; d gets its four D values. The layout
 * is PTX's: lane = 4 * g + q holds A[g][2q..], A[g+8][2q..], A[g][2q+8..], A[g+8][2q+8..],
 * B[2q..][g], B[2q+8..][g], C[g][2q..2q+1], C[g+8][2q..2q+1]. */
void tilec_rt_emu_mma_m16n8k16(int32_t bf16, int32_t a0, int32_t a1, int32_t a2, int32_t a3, int32_t b0, int32_t b1,
                               float c0, float c1, float c2, float c3, float *d) {
  emu_cta *c = tls_cta;
  if (!c) return;
  const int32_t *warp = warp_fragments(c, a0, a1, a2, a3, b0, b1);
  float (*cvt)(uint32_t) = bf16 ? bf16_to_float : half_to_float;
  int lane = tls_tid % 32, g = lane / 4, q = lane % 4;
  float cin[4] = {c0, c1, c2, c3};
  for (int i = 0; i < 4; i++) {
    int row = g + 8 * (i / 2), col = 2 * q + i % 2;
    float sum = 0;
    for (int k = 0; k < 16; k++) {
      uint32_t ar = (uint32_t)warp[EXCHANGE * ((row % 8) * 4 + (k % 8) / 2) + (row >= 8) + 2 * (k >= 8)];
      uint32_t br = (uint32_t)warp[EXCHANGE * (col * 4 + (k % 8) / 2) + 4 + (k >= 8)];
      sum += cvt((ar >> (16 * (k % 2))) & 0xffff) * cvt((br >> (16 * (k % 2))) & 0xffff);
    }
    d[i] = cin[i] + sum;
  }
  pthread_barrier_wait(c->barrier);
}

/* The byte offset of element (i, k) of a wgmma operand (i its row of A or column of B, k
 * along K) behind descriptor d, from the buffer its start address counts from (here: 16-byte
 * units from the buffer tilec passes, 1024-byte aligned on the GPU, so that the swizzle's
 * address bits are the same). PTX ISA "Shared Memory Matrix Layout": K-major (A, or B with
 * imm-trans-b 0) rows of i; MN-major (B with imm-trans-b 1) rows of k. Swizzled (mode 1, 2,
 * 3: 128-, 64-, 32-byte atoms): K-major at start + (i / 8) SBO + (i % 8) A + 2 k, MN-major at
 * start + (2 i / A) LBO + (k / 8) SBO + (k % 8) A + 2 i % A, then bits 4.. XOR bits 7.. (as
 * many as the atom has chunks); no swizzle (0): 8 x 16-byte core matrices, K-major at (i / 8)
 * SBO + (k / 8) LBO + (i % 8) 16 + 2 (k % 8), MN-major at (i / 8) SBO + (k / 8) LBO + (k % 8)
 * 16 + 2 (i % 8). */
static uint64_t wgmma_offset(uint64_t d, bool mn_major, int i, int k) {
  uint64_t start = (d & 0x3fff) << 4, lbo = ((d >> 16) & 0x3fff) << 4, sbo = ((d >> 32) & 0x3fff) << 4;
  unsigned mode = (unsigned)(d >> 62);
  if (!mode)
    return mn_major ? start + (uint64_t)(i / 8) * sbo + (uint64_t)(k / 8) * lbo + (uint64_t)(k % 8) * 16 + 2u * (i % 8)
                    : start + (uint64_t)(i / 8) * sbo + (uint64_t)(k / 8) * lbo + (uint64_t)(i % 8) * 16 + 2u * (k % 8);
  uint64_t aw = mode == 1 ? 128 : mode == 2 ? 64 : 32;
  uint64_t o = mn_major ? start + (2u * (uint64_t)i / aw) * lbo + (uint64_t)(k / 8) * sbo + (uint64_t)(k % 8) * aw +
                              (2u * (uint64_t)i) % aw
                        : start + (uint64_t)(i / 8) * sbo + (uint64_t)(i % 8) * aw + 2u * (uint64_t)k;
  return o ^ (((o >> 7) & (aw / 16 - 1)) << 4);
}

/* wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16} of the thread's warpgroup (warp
 * w = (tid / 32) % 4 of it). B in shared memory through its matrix descriptor (N-major when
 * mode has TILEC_EMU_WGMMA_TRANS_B, else K-major: wgmma_offset); A the same way (K-major), or,
 * with TILEC_EMU_WGMMA_A_REGS, from the warp's registers: each lane's four f16x2/bf16x2 words
 * after its accumulator (acc[n / 2 .. n / 2 + 3], int32 bits), mma.sync's A fragment of the
 * warp's 16 rows (PTX's "register fragment layout for matrix A" of wgmma m64k16). acc[4j + e]
 * is D[16 w + g + 8 (e / 2)][8 j + 2 q + e % 2], += the 16 products summed in f32 from 0 (=
 * with TILEC_EMU_WGMMA_ZERO: scale-d 0). With A in registers every thread of the CTA calls it
 * at once (the warp's registers are exchanged, like an mma.sync's). */
void tilec_rt_emu_wgmma_m64nNk16(int32_t mode, int32_t n, const void *a, int64_t desc_a, const void *b, int64_t desc_b,
                                 float *acc) {
  float (*cvt)(uint32_t) = mode & TILEC_EMU_WGMMA_BF16 ? bf16_to_float : half_to_float;
  bool trans_b = mode & TILEC_EMU_WGMMA_TRANS_B, regs = mode & TILEC_EMU_WGMMA_A_REGS;
  int w = (tls_tid / 32) % 4, lane = tls_tid % 32, g = lane / 4, q = lane % 4;
  const int32_t *warp = NULL;
  emu_cta *c = tls_cta;
  if (regs) {
    if (!c) return;
    int32_t ar[4];
    memcpy(ar, acc + n / 2, sizeof ar);
    warp = warp_fragments(c, ar[0], ar[1], ar[2], ar[3], 0, 0);
  }
  float out[128];
  for (int j = 0; j < n / 8; j++)
    for (int e = 0; e < 4; e++) {
      int r = 16 * w + g + 8 * (e / 2), col = 8 * j + 2 * q + e % 2;
      float sum = 0;
      for (int k = 0; k < 16; k++) {
        uint16_t x, y;
        if (regs) { /* row g + 8 (e / 2) of the warp's 16: lane 4 g + (k % 8) / 2, word e / 2 + 2 (k >= 8) */
          uint32_t word = (uint32_t)warp[EXCHANGE * (g * 4 + (k % 8) / 2) + e / 2 + 2 * (k >= 8)];
          x = (uint16_t)(word >> (16 * (k % 2)));
        } else memcpy(&x, (const uint8_t *)a + wgmma_offset((uint64_t)desc_a, false, r, k), 2);
        memcpy(&y, (const uint8_t *)b + wgmma_offset((uint64_t)desc_b, trans_b, col, k), 2);
        sum += cvt(x) * cvt(y);
      }
      out[4 * j + e] = mode & TILEC_EMU_WGMMA_ZERO ? sum : acc[4 * j + e] + sum;
    }
  memcpy(acc, out, sizeof(float) * (size_t)(n / 2));
  if (regs) pthread_barrier_wait(c->barrier);
}

/* mma.sync.m16n8k8.row.col.f32.tf32.tf32.f32 of the warp: each lane gives its A (a0..a3) and
 * B (b0, b1) tf32 values (f32 bits; the low 13 bits are ignored, as the tensor cores do) and
 * its four C values; d gets its four D values. Lane = 4 * g + q holds A[g][q], A[g+8][q],
 * A[g][q+4], A[g+8][q+4], B[q][g], B[q+4][g], C[g][2q..2q+1], C[g+8][2q..2q+1]. Products of
 * two tf32 values are exact in f32; they are summed in f32, then added to C. */
void tilec_rt_emu_mma_m16n8k8_tf32(int32_t a0, int32_t a1, int32_t a2, int32_t a3, int32_t b0, int32_t b1, float c0,
                                   float c1, float c2, float c3, float *d) {
  emu_cta *c = tls_cta;
  if (!c) return;
  const int32_t *warp = warp_fragments(c, a0, a1, a2, a3, b0, b1);
  int lane = tls_tid % 32, g = lane / 4, q = lane % 4;
  float cin[4] = {c0, c1, c2, c3};
  for (int i = 0; i < 4; i++) {
    int row = g + 8 * (i / 2), col = 2 * q + i % 2;
    float sum = 0;
    for (int k = 0; k < 8; k++) {
      uint32_t ar = (uint32_t)warp[EXCHANGE * ((row % 8) * 4 + k % 4) + (row >= 8) + 2 * (k >= 4)] & 0xffffe000u;
      uint32_t br = (uint32_t)warp[EXCHANGE * (col * 4 + k % 4) + 4 + (k >= 4)] & 0xffffe000u;
      float x, y;
      memcpy(&x, &ar, sizeof x);
      memcpy(&y, &br, sizeof y);
      sum += x * y;
    }
    d[i] = cin[i] + sum;
  }
  pthread_barrier_wait(c->barrier);
}

/* mma.sync.m16n8k32.row.col.s32.s8.s8.s32 (no .satfinite) of the warp: each lane gives its A
 * (a0..a3) and B (b0, b1) registers of four s8 each (the first in the low byte) and its four
 * C values; d gets its four D values. Lane = 4 * g + q holds A[g][4q..4q+3], A[g+8][4q..],
 * A[g][4q+16..], A[g+8][4q+16..], B[4q..4q+3][g], B[4q+16..][g], C[g][2q..2q+1],
 * C[g+8][2q..2q+1]. The sum wraps modulo 2^32, as the tensor cores' without .satfinite. */
void tilec_rt_emu_mma_m16n8k32_s8(int32_t a0, int32_t a1, int32_t a2, int32_t a3, int32_t b0, int32_t b1, int32_t c0,
                                  int32_t c1, int32_t c2, int32_t c3, int32_t *d) {
  emu_cta *c = tls_cta;
  if (!c) return;
  const int32_t *warp = warp_fragments(c, a0, a1, a2, a3, b0, b1);
  int lane = tls_tid % 32, g = lane / 4, q = lane % 4;
  int32_t cin[4] = {c0, c1, c2, c3};
  for (int i = 0; i < 4; i++) {
    int row = g + 8 * (i / 2), col = 2 * q + i % 2;
    uint32_t sum = (uint32_t)cin[i];
    for (int k = 0; k < 32; k++) {
      /* A[row][k]: lane 4 (row % 8) + (k % 16) / 4, register (row >= 8) + 2 (k >= 16), byte k % 4 */
      uint32_t ar = (uint32_t)warp[EXCHANGE * ((row % 8) * 4 + (k % 16) / 4) + (row >= 8) + 2 * (k >= 16)];
      uint32_t br = (uint32_t)warp[EXCHANGE * (col * 4 + (k % 16) / 4) + 4 + (k >= 16)];
      int32_t x = (int8_t)(uint8_t)(ar >> (8 * (k % 4))), y = (int8_t)(uint8_t)(br >> (8 * (k % 4)));
      sum += (uint32_t)(x * y);
    }
    d[i] = (int32_t)sum;
  }
  pthread_barrier_wait(c->barrier);
}

/* ldmatrix.sync.aligned.m8n8.x4(.trans).shared.b16 of the warp: lane 8m + r gives the
 * address of row r of matrix m (8 consecutive 16-bit elements); lane 4g + q gets, of each
 * matrix m, elements [g][2q], [g][2q+1] (trans: [2q][g], [2q+1][g]) in out[m], the first
 * in the low half. Called by every thread of the CTA at once, like the MMA. */
void tilec_rt_emu_ldmatrix_x4(int32_t trans, const void *row, int32_t *out) {
  emu_cta *c = tls_cta;
  if (!c) return;
  memcpy(c->exchange + EXCHANGE * tls_tid, &row, sizeof row);
  pthread_barrier_wait(c->barrier);
  const int32_t *warp = c->exchange + EXCHANGE * (tls_tid - tls_tid % 32);
  int lane = tls_tid % 32, g = lane / 4, q = lane % 4;
  for (int m = 0; m < 4; m++) {
    uint32_t e[2];
    for (int h = 0; h < 2; h++) {
      const uint16_t *r;
      int src = trans ? 8 * m + 2 * q + h : 8 * m + g;
      memcpy(&r, warp + EXCHANGE * src, sizeof r);
      e[h] = trans ? r[g] : r[2 * q + h];
    }
    out[m] = (int32_t)(e[0] | e[1] << 16);
  }
  pthread_barrier_wait(c->barrier);
}

/* ---- the pool: n - 1 workers beside the calling thread (thread 0) ------------------------ */

typedef struct emu_pool emu_pool;
typedef struct emu_worker {
  emu_pool *pool;
  int32_t tid;
} emu_worker;

struct emu_pool {
  uint32_t n, started; /* threads in a CTA (caller included); workers running */
  pthread_t *ids;
  emu_worker *workers;
  pthread_mutex_t lock;
  pthread_cond_t start, done;
  uint64_t generation; /* one per CTA */
  uint32_t finished;   /* workers done with this generation */
  bool quit;
  emu_cta *cta;
  pthread_barrier_t barrier;
};

static _Thread_local emu_pool *tls_pool;
static pthread_key_t pool_key;
static pthread_once_t pool_key_once = PTHREAD_ONCE_INIT;

static void *worker_main(void *p) {
  emu_worker *w = p;
  emu_pool *pool = w->pool;
  uint64_t seen = 0;
  pthread_mutex_lock(&pool->lock);
  for (;;) {
    while (pool->generation == seen && !pool->quit) pthread_cond_wait(&pool->start, &pool->lock);
    if (pool->quit) break;
    seen = pool->generation;
    emu_cta *cta = pool->cta;
    pthread_mutex_unlock(&pool->lock);
    run_body(cta, w->tid);
    pthread_mutex_lock(&pool->lock);
    if (++pool->finished == pool->n - 1) pthread_cond_signal(&pool->done);
  }
  pthread_mutex_unlock(&pool->lock);
  return NULL;
}

static void pool_destroy(void *p) {
  emu_pool *pool = p;
  if (!pool) return;
  pthread_mutex_lock(&pool->lock);
  pool->quit = true;
  pthread_cond_broadcast(&pool->start);
  pthread_mutex_unlock(&pool->lock);
  for (uint32_t i = 0; i < pool->started; i++) pthread_join(pool->ids[i], NULL);
  pthread_barrier_destroy(&pool->barrier);
  pthread_cond_destroy(&pool->start);
  pthread_cond_destroy(&pool->done);
  pthread_mutex_destroy(&pool->lock);
  free(pool->ids);
  free(pool->workers);
  free(pool);
}

static void make_key(void) { pthread_key_create(&pool_key, pool_destroy); }

/* The calling thread's pool of n threads (made or remade on first use); NULL if the threads
 * cannot all be created (none is left running then). */
static emu_pool *pool_for(uint32_t n) {
  if (tls_pool && tls_pool->n == n) return tls_pool;
  pthread_once(&pool_key_once, make_key);
  if (tls_pool) {
    pool_destroy(tls_pool);
    tls_pool = NULL;
    pthread_setspecific(pool_key, NULL);
  }
  emu_pool *pool = calloc(1, sizeof *pool);
  if (!pool) return NULL;
  pool->n = n;
  pool->ids = calloc(n, sizeof *pool->ids);
  pool->workers = calloc(n, sizeof *pool->workers);
  if (!pool->ids || !pool->workers || pthread_barrier_init(&pool->barrier, NULL, n)) {
    free(pool->ids);
    free(pool->workers);
    free(pool);
    return NULL;
  }
  pthread_mutex_init(&pool->lock, NULL);
  pthread_cond_init(&pool->start, NULL);
  pthread_cond_init(&pool->done, NULL);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 8u << 20);
  for (uint32_t i = 1; i < n; i++) {
    pool->workers[i - 1] = (emu_worker){pool, (int32_t)i};
    if (pthread_create(&pool->ids[i - 1], &attr, worker_main, &pool->workers[i - 1])) break;
    pool->started++;
  }
  pthread_attr_destroy(&attr);
  if (pool->started < n - 1) { /* workers wait for a generation that never comes: stop them */
    pool_destroy(pool);
    return NULL;
  }
  tls_pool = pool;
  pthread_setspecific(pool_key, pool);
  return pool;
}

/* The CTA's shared memory: zeroed here (a GPU leaves it undefined; the lowering never reads
 * what it did not write), 64-byte aligned as the kernel's __tilec_shared declares, which its
 * aligned vector accesses rely on. */
static void *alloc_shared(uint64_t bytes) {
  size_t n = ((size_t)(bytes ? bytes : 1) + 63) & ~(size_t)63;
  void *p = aligned_alloc(64, n);
  if (p) memset(p, 0, n);
  return p;
}

void tilec_rt_emu_cta(uint32_t nthreads, uint64_t shared_bytes, void (*body)(void *ctx), void *ctx) {
  if (nthreads == 0) nthreads = 1;
  emu_cta cta = {.body = body,
                 .ctx = ctx,
                 .nthreads = nthreads,
                 .shared = alloc_shared(shared_bytes),
                 .exchange = calloc((size_t)nthreads * EXCHANGE, sizeof(int32_t)),
                 .copies = calloc(nthreads, sizeof(emu_copies))};
  bool allocated = cta.shared && cta.exchange && cta.copies;
  emu_pool *pool = allocated ? pool_for(nthreads) : NULL;
  if (!pool) {
    free(cta.shared);
    free(cta.exchange);
    free(cta.copies);
    char msg[160];
    snprintf(msg, sizeof msg, "nvptx-emu: a program of %u threads %s", nthreads,
             allocated ? "cannot create its threads" : "cannot allocate its shared memory");
    tilec_rt_emu_fail(msg);
    return;
  }
  cta.barrier = &pool->barrier;
  pthread_mutex_lock(&pool->lock);
  pool->cta = &cta;
  pool->finished = 0;
  pool->generation++;
  pthread_cond_broadcast(&pool->start);
  pthread_mutex_unlock(&pool->lock);
  jmp_buf *unwind = tilec_rt_emu_hold_jmp();
  run_body(&cta, 0); /* thread 0 is the caller: its prints and asserts are the program's */
  pthread_mutex_lock(&pool->lock);
  while (pool->finished < nthreads - 1) pthread_cond_wait(&pool->done, &pool->lock);
  pthread_mutex_unlock(&pool->lock);
  free(cta.shared);
  free(cta.exchange);
  for (uint32_t i = 0; i < nthreads; i++) free(cta.copies[i].v); /* copies never waited for: dropped */
  free(cta.copies);
  tilec_rt_emu_release_jmp(unwind); /* a failed assert of thread 0 unwinds the program now */
}
