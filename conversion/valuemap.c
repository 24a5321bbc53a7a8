/* conversion/valuemap.c — identity hash map used by the analyses and the lowering.
 * In: opaque pointers (MlirValue.ptr, MlirOperation.ptr). Out: payload slots. */
#include "conversion/valuemap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void tc_valmap_init(tc_valmap *m, size_t elem_size) {
  memset(m, 0, sizeof *m);
  m->elem_size = elem_size;
}

void tc_valmap_free(tc_valmap *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

void tc_valmap_clear(tc_valmap *m) {
  if (m->keys) memset(m->keys, 0, m->nslots * sizeof *m->keys);
  m->count = 0;
}

static size_t hash(const void *k) {
  uint64_t x = (uint64_t)(uintptr_t)k;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x;
}

void *tc_valmap_get(const tc_valmap *m, const void *key) {
  if (!m->nslots) return NULL;
  size_t mask = m->nslots - 1;
  for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
    if (m->keys[i] == key) return (char *)m->vals + i * m->elem_size;
    if (!m->keys[i]) return NULL;
  }
}

static bool grow(tc_valmap *m) {
  size_t n = m->nslots ? m->nslots * 2 : 64;
  const void **keys = calloc(n, sizeof *keys);
  char *vals = calloc(n, m->elem_size);
  if (!keys || !vals) {
    free(keys);
    free(vals);
    return false;
  }
  for (size_t i = 0; i < m->nslots; i++) {
    if (!m->keys[i]) continue;
    size_t j = hash(m->keys[i]) & (n - 1);
    while (keys[j]) j = (j + 1) & (n - 1);
    keys[j] = m->keys[i];
    memcpy(vals + j * m->elem_size, (char *)m->vals + i * m->elem_size, m->elem_size);
  }
  free(m->keys);
  free(m->vals);
  m->keys = keys;
  m->vals = vals;
  m->nslots = n;
  return true;
}

void *tc_valmap_put(tc_valmap *m, const void *key) {
  void *v = tc_valmap_get(m, key);
  if (v) return v;
  if ((m->count + 1) * 2 > m->nslots && !grow(m)) return NULL;
  size_t mask = m->nslots - 1, i = hash(key) & mask;
  while (m->keys[i]) i = (i + 1) & mask;
  m->keys[i] = key;
  m->count++;
  v = (char *)m->vals + i * m->elem_size;
  memset(v, 0, m->elem_size);
  return v;
}
