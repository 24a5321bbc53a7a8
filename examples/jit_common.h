/* examples/jit_common.h — the few lines every JIT example shares: compile a kernel file
 * with the JIT API (printing a warning if the cache was unusable) and report how long
 * it took and whether it came from the cache. Header-only so each example is one file. */
#ifndef EXAMPLES_JIT_COMMON_H
#define EXAMPLES_JIT_COMMON_H

#include <stdio.h>
#include <tilec/tilec.h>
#include <time.h>

/* Prints and destroys a failure; returns non-zero when there was one. */
static int example_check(tilec_status *st, const char *what) {
  if (!st) return 0;
  fprintf(stderr, "%s: %s\n", what, tilec_status_format(st));
  tilec_status_destroy(st);
  return 1;
}

/* Compiles kernel `name` of `file` for `signature`; `how` gets e.g. "compiled in 95.1 ms". */
static tilec_jit_kernel *example_jit(const char *file, const char *name, const char *signature, char *how,
                                     size_t how_len) {
  tilec_compiler *c = NULL;
  if (example_check(tilec_compiler_create(NULL, &c), name)) return NULL;
  tilec_kernel_spec spec = {.filename = file, .kernel = name, .signature = signature}; /* no source: read file */
  tilec_jit_kernel *k = NULL;
  tilec_status *warning = NULL;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  tilec_status *st = tilec_jit_compile(c, &spec, &k, &warning);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  tilec_compiler_destroy(c); /* the kernel stays loaded until released */
  if (warning) {
    fprintf(stderr, "%s: warning: %s\n", name, tilec_status_message(warning));
    tilec_status_destroy(warning);
  }
  if (example_check(st, name)) return NULL;
  double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
  const char *origin = tilec_jit_kernel_origin(k) == TILEC_JIT_DISK_CACHE ? "loaded from the disk cache" : "compiled";
  snprintf(how, how_len, "%s in %.1f ms", origin, ms);
  return k;
}

#endif
