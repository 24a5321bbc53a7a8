/* frontend/arena.c — bump allocation over a list of calloc'd chunks.
 * In: sizes. Out: zeroed memory; chunks come from calloc and are never reused, so
 * nothing needs clearing on allocation. */
#include "frontend/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { TC_ARENA_ALIGN = alignof(max_align_t), TC_ARENA_CHUNK = 64 * 1024 };

typedef struct tc_arena_chunk {
  struct tc_arena_chunk *next;
  size_t cap, used;
} tc_arena_chunk;

struct tc_arena {
  tc_arena_chunk *head;
};

static size_t tc_round_up(size_t n) { return (n + TC_ARENA_ALIGN - 1) & ~(size_t)(TC_ARENA_ALIGN - 1); }

static unsigned char *tc_chunk_data(tc_arena_chunk *c) { return (unsigned char *)c + tc_round_up(sizeof *c); }

static tc_arena_chunk *tc_chunk_new(size_t cap) {
  size_t hdr = tc_round_up(sizeof(tc_arena_chunk));
  if (cap > SIZE_MAX - hdr) return NULL;
  tc_arena_chunk *c = calloc(1, hdr + cap);
  if (c) c->cap = cap;
  return c;
}

tc_arena *tc_arena_create(void) { return calloc(1, sizeof(tc_arena)); }

void *tc_arena_alloc(tc_arena *a, size_t size) {
  if (!a) return NULL;
  if (size == 0) size = 1; /* distinct non-NULL pointers even for empty arrays */
  if (size > SIZE_MAX - 2 * TC_ARENA_ALIGN) return NULL;
  size = tc_round_up(size);
  tc_arena_chunk *h = a->head;
  if (h && h->cap - h->used >= size) {
    void *p = tc_chunk_data(h) + h->used;
    h->used += size;
    return p;
  }
  /* Big requests get a chunk of their own, linked behind the head so the head's
   * free space stays usable for the small nodes that dominate. */
  if (size > TC_ARENA_CHUNK / 4) {
    tc_arena_chunk *c = tc_chunk_new(size);
    if (!c) return NULL;
    c->used = size;
    if (h) {
      c->next = h->next;
      h->next = c;
    } else {
      a->head = c;
    }
    return tc_chunk_data(c);
  }
  tc_arena_chunk *c = tc_chunk_new(TC_ARENA_CHUNK);
  if (!c) return NULL;
  c->next = h;
  a->head = c;
  c->used = size;
  return tc_chunk_data(c);
}

char *tc_arena_strndup(tc_arena *a, const char *s, size_t n) {
  if (n == SIZE_MAX) return NULL;
  char *d = tc_arena_alloc(a, n + 1);
  if (d && n) memcpy(d, s, n);
  return d;
}

void tc_arena_destroy(tc_arena *a) {
  if (!a) return;
  tc_arena_chunk *c = a->head;
  while (c) {
    tc_arena_chunk *next = c->next;
    free(c);
    c = next;
  }
  free(a);
}
