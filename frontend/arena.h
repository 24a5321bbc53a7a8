/* frontend/arena.h — a bump allocator that owns every AST node and string of a module.
 * In: allocation requests. Out: zeroed, max-aligned memory that lives until the whole
 * arena is destroyed at once (no per-node frees, so error paths cannot leak). */
#ifndef TILEC_FRONTEND_ARENA_H
#define TILEC_FRONTEND_ARENA_H

#include <stddef.h>

typedef struct tc_arena tc_arena;

/* NULL when out of memory. */
tc_arena *tc_arena_create(void);
/* Zeroed memory aligned for any type; NULL when out of memory. size 0 is allowed. */
void *tc_arena_alloc(tc_arena *arena, size_t size);
/* Copies n bytes of s and appends a NUL; NULL when out of memory. */
char *tc_arena_strndup(tc_arena *arena, const char *s, size_t n);
/* Frees everything the arena handed out. NULL is ignored. */
void tc_arena_destroy(tc_arena *arena);

#endif
