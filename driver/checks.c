/* driver/checks.c — the debug checks a compiler instruments: the names users write (`--check
 * all`, TILEC_CHECK=bounds,races, the older TILEC_CHECK_* variables) and the one resolution of
 * what was asked into what the lowering emits, which everything else reads.
 * In: option texts, the environment, tilec_compile_options. Out: TILEC_CHECKS_* bits. */
#include "driver/checks.h"

#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  uint32_t bit;
} check_names[] = {
    {"bounds", TILEC_CHECKS_BOUNDS},
    {"nan", TILEC_CHECKS_NAN},
    {"races", TILEC_CHECKS_RACES},
    {"init", TILEC_CHECKS_INIT},
};

tilec_status *tilec_checks_parse(const char *text, uint32_t *out) {
  if (!out) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_checks_parse: out is NULL");
  *out = 0;
  if (!text || !*text || !strcmp(text, "none") || !strcmp(text, "0")) return NULL;
  if (!strcmp(text, "all") || !strcmp(text, "1")) {
    *out = TILEC_CHECKS_ALL;
    return NULL;
  }
  uint32_t bits = 0;
  for (const char *p = text;;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    uint32_t bit = 0;
    for (size_t i = 0; i < sizeof check_names / sizeof check_names[0]; i++)
      if (strlen(check_names[i].name) == len && !strncmp(p, check_names[i].name, len)) bit = check_names[i].bit;
    if (len == 3 && !strncmp(p, "all", 3)) bit = TILEC_CHECKS_ALL;
    if (!bit)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                 "unknown check '%.*s' in '%s' (expected all, none, or a comma-separated list of "
                                 "bounds, nan, races and init)",
                                 (int)len, p, text);
    bits |= bit;
    if (!end) break;
    p = end + 1;
  }
  *out = bits;
  return NULL;
}

static bool env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

tilec_status *tilec_checks_from_env(uint32_t *out) {
  if (!out) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_checks_from_env: out is NULL");
  uint32_t bits = 0;
  tilec_status *st = tilec_checks_parse(getenv("TILEC_CHECK"), &bits);
  if (st) return tilec_status_annotate(st, "TILEC_CHECK");
  if (env_on("TILEC_CHECK_BOUNDS")) bits |= TILEC_CHECKS_BOUNDS;
  if (env_on("TILEC_CHECK_NAN")) bits |= TILEC_CHECKS_NAN;
  if (env_on("TILEC_CHECK_RACES")) bits |= TILEC_CHECKS_RACES;
  *out = bits;
  return NULL;
}

const char *tc_checks_name(uint32_t bits) {
  static const char *const names[16] = {"none",
                                        "bounds",
                                        "nan",
                                        "bounds,nan",
                                        "races",
                                        "bounds,races",
                                        "nan,races",
                                        "bounds,nan,races",
                                        "init",
                                        "bounds,init",
                                        "nan,init",
                                        "bounds,nan,init",
                                        "races,init",
                                        "bounds,races,init",
                                        "nan,races,init",
                                        "bounds,nan,races,init"};
  return names[bits & TILEC_CHECKS_ALL];
}

uint32_t tc_checks_resolve(const tilec_compile_options *o) {
  uint32_t c = o->checks & TILEC_CHECKS_ALL;
  if (o->check_bounds) c |= TILEC_CHECKS_BOUNDS;
  if (o->check_nan) c |= TILEC_CHECKS_NAN;
  if (o->check_races) c |= TILEC_CHECKS_RACES;
  /* No class needs another: race checks log addresses (runtime/races.c) and need no
   * extents in the kernel, unlike the shadow memory they once had. */
  return c;
}
