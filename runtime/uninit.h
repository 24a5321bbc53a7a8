/* runtime/uninit.h — `--check init`'s marks (runtime/uninit.c), for the access log
 * (runtime/races.c): which marked range an argument's memory lies in, and what its stores
 * write and its loads read. In: addresses. Out: the first byte of a load never written. */
#ifndef TILEC_RUNTIME_UNINIT_H
#define TILEC_RUNTIME_UNINIT_H

#include "tilec/runtime.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct tc_uninit tc_uninit;

/* The marked range holding addr, or NULL. Ranges live until tilec_debug_forget. */
tc_uninit *tc_uninit_find(uintptr_t addr);
/* Bytes [lo, hi) (clipped to the range) are written. */
void tc_uninit_store(tc_uninit *r, uintptr_t lo, uintptr_t hi);
/* Whether every byte of [lo, hi) (clipped) was written; else *unwritten is the first not. */
bool tc_uninit_load(tc_uninit *r, uintptr_t lo, uintptr_t hi, uintptr_t *unwritten);

#endif
