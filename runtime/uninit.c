/* runtime/uninit.c — `--check init`: memory the host marked "not yet written"
 * (tilec_debug_mark_uninitialized: `tilec run`'s empty: arrays, tilec.debug.uninitialized in
 * Python) with one bit per byte saying whether a store has written it since. Stores of
 * init-checked kernels set bits, their loads read them (runtime/races.c calls these for the
 * arguments whose memory lies in a marked range). The marks outlive launches: what one
 * launch stores, the next may load.
 * In: ranges from the host, accesses from kernel code. Out: which byte of a load was never
 * written. */
#include "runtime/uninit.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct tc_uninit {
  uintptr_t lo, hi;
  _Atomic uint64_t *bits; /* bit i: byte lo + i was written */
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static tc_uninit **ranges;
static size_t nranges, capranges;

tilec_status *tilec_debug_mark_uninitialized(const void *base, size_t bytes) {
  uintptr_t lo = (uintptr_t)base, hi = lo + bytes;
  if (!base || !bytes || hi < lo)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_debug_mark_uninitialized: %s",
                               !base ? "base is NULL" : "no bytes to mark");
  size_t words = (bytes + 63) / 64;
  _Atomic uint64_t *bits = calloc(words, sizeof *bits);
  if (!bits) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory for the marks of %zu bytes", bytes);
  tilec_status *st = NULL;
  pthread_mutex_lock(&reg_lock);
  size_t same = nranges;
  for (size_t i = 0; i < nranges && !st; i++) {
    if (ranges[i]->lo == lo && ranges[i]->hi == hi) same = i;
    else if (ranges[i]->lo < hi && lo < ranges[i]->hi)
      st = tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "tilec_debug_mark_uninitialized: bytes [%p, %p) overlap [%p, %p), marked before "
                               "(forget that range first)",
                               base, (void *)hi, (void *)ranges[i]->lo, (void *)ranges[i]->hi);
  }
  if (!st && same < nranges) { /* marked again: nothing written yet */
    _Atomic uint64_t *old = ranges[same]->bits;
    ranges[same]->bits = bits;
    bits = old;
  } else if (!st) {
    tc_uninit *r = malloc(sizeof *r);
    if (nranges == capranges) {
      size_t cap = capranges ? capranges * 2 : 8;
      tc_uninit **p = realloc(ranges, cap * sizeof *p);
      if (p) {
        ranges = p;
        capranges = cap;
      }
    }
    if (!r || nranges == capranges) {
      free(r);
      st = tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory for the marks of %zu bytes", bytes);
    } else {
      *r = (tc_uninit){lo, hi, bits};
      ranges[nranges++] = r;
      bits = NULL;
    }
  }
  pthread_mutex_unlock(&reg_lock);
  free(bits);
  return st;
}

int tilec_debug_forget(const void *base) {
  int found = 0;
  pthread_mutex_lock(&reg_lock);
  for (size_t i = 0; i < nranges; i++)
    if (ranges[i]->lo == (uintptr_t)base) {
      free(ranges[i]->bits);
      free(ranges[i]);
      ranges[i--] = ranges[--nranges];
      found = 1;
    }
  pthread_mutex_unlock(&reg_lock);
  return found;
}

tc_uninit *tc_uninit_find(uintptr_t addr) {
  tc_uninit *r = NULL;
  pthread_mutex_lock(&reg_lock);
  for (size_t i = 0; i < nranges && !r; i++)
    if (ranges[i]->lo <= addr && addr < ranges[i]->hi) r = ranges[i];
  pthread_mutex_unlock(&reg_lock);
  return r;
}

void tc_uninit_store(tc_uninit *r, uintptr_t lo, uintptr_t hi) {
  if (lo < r->lo) lo = r->lo;
  if (hi > r->hi) hi = r->hi;
  for (uintptr_t a = lo; a < hi;) {
    size_t i = a - r->lo, w = i / 64, b = i % 64;
    size_t n = 64 - b < hi - a ? 64 - b : hi - a;
    uint64_t m = (n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1)) << b;
    atomic_fetch_or_explicit(&r->bits[w], m, memory_order_relaxed);
    a += n;
  }
}

bool tc_uninit_load(tc_uninit *r, uintptr_t lo, uintptr_t hi, uintptr_t *unwritten) {
  if (lo < r->lo) lo = r->lo;
  if (hi > r->hi) hi = r->hi;
  for (uintptr_t a = lo; a < hi;) {
    size_t i = a - r->lo, w = i / 64, b = i % 64;
    size_t n = 64 - b < hi - a ? 64 - b : hi - a;
    uint64_t m = (n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1)) << b;
    uint64_t missing = ~atomic_load_explicit(&r->bits[w], memory_order_relaxed) & m;
    if (missing) {
      *unwritten = r->lo + w * 64 + (uintptr_t)__builtin_ctzll(missing);
      return false;
    }
    a += n;
  }
  return true;
}
