/* driver/language.c — the kernel language's function names for the public API
 * (tilec_language_functions): the front end's builtin registry (frontend/builtins.h, one
 * table per family) and the public functions of its prelude (frontend/prelude.py).
 * In: those tables. Out: one sorted table of names, with family and refusal, built once. */
#include "tilec/tilec.h"

#include "frontend/builtins.h"
#include "frontend/parser.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FUNCTIONS 1024 /* registry rows (at most 512, builtins.c) and prelude functions */

static tilec_language_function table[MAX_FUNCTIONS];
static size_t ntable;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static const struct {
  const char *group;
  const cg_builtin *rows;
} families[] = {
    {"core", cg_builtins_core},     {"math", cg_builtins_math},   {"tile", cg_builtins_tile},
    {"atomic", cg_builtins_atomic}, {"block", cg_builtins_block}, {"descriptor", cg_builtins_descriptor},
    {"debug", cg_builtins_debug},   {"api", cg_builtins_api},
};

static int entry_cmp(const void *x, const void *y) {
  return strcmp(((const tilec_language_function *)x)->name, ((const tilec_language_function *)y)->name);
}

static tilec_language_function *find(const char *name) {
  for (size_t i = 0; i < ntable; i++)
    if (!strcmp(table[i].name, name)) return &table[i];
  return NULL;
}

static void build_table(void) {
  /* The prelude first: tl.NAME finds a prelude function before a registry row (the rows of
   * rand ... softmax only refuse x.NAME(...)), so its entry is the one a call compiles. */
  extern const char tilec_embedded_prelude[];
  tc_module *prelude = NULL;
  tilec_status *st =
      tc_parse_module("<tilec prelude>", tilec_embedded_prelude, strlen(tilec_embedded_prelude), &prelude);
  if (st) {
    tilec_status_destroy(st); /* a broken prelude fails every compile; the unit tests see it */
  } else {
    for (int i = 0; i < prelude->nfuncs && ntable < MAX_FUNCTIONS; i++) {
      const char *name = prelude->funcs[i]->name;
      if (name[0] == '_' || find(name)) continue; /* private helpers, redefinitions */
      char *copy = strdup(name);
      if (!copy) break;
      table[ntable++] = (tilec_language_function){.name = copy, .group = "prelude", .refusal = NULL};
    }
    tc_module_destroy(prelude);
  }
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
    for (const cg_builtin *b = families[f].rows; b->name && ntable < MAX_FUNCTIONS; b++) {
      if (find(b->name)) continue;
      if (strchr(b->name, '.')) continue; /* "libdevice.exp": a libdevice name's own row, not tl's */
      const char *refusal = NULL;
      if (!b->fn) refusal = b->data ? b->data : "not supported yet";
      table[ntable++] = (tilec_language_function){.name = b->name, .group = families[f].group, .refusal = refusal};
    }
  qsort(table, ntable, sizeof table[0], entry_cmp);
}

const tilec_language_function *tilec_language_functions(size_t *count) {
  pthread_once(&table_once, build_table);
  if (count) *count = ntable;
  return table;
}
