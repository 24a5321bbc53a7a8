/* conversion/valuemap.h — an open-addressing map from MLIR values (by identity) to a
 * small payload. In: keys the conversion meets while walking. Out: constant-time lookup. */
#ifndef TILEC_CONVERSION_VALUEMAP_H
#define TILEC_CONVERSION_VALUEMAP_H

#include <mlir-c/IR.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct tc_valmap {
  const void **keys;
  void *vals; /* nslots * elem_size bytes */
  size_t elem_size, nslots, count;
} tc_valmap;

void tc_valmap_init(tc_valmap *m, size_t elem_size);
void tc_valmap_free(tc_valmap *m);
void tc_valmap_clear(tc_valmap *m);
/* Pointer to the payload for key, or NULL. */
void *tc_valmap_get(const tc_valmap *m, const void *key);
/* Pointer to the payload for key, inserted zeroed when absent. NULL on OOM. */
void *tc_valmap_put(tc_valmap *m, const void *key);

#endif
