/* driver/compiler.h — the tilec_compiler object, shared by the compiler API
 * (compile.c) and the JIT (jit.c). In: options given to tilec_compiler_create.
 * Out: the resolved target, the MLIR context and the JIT's per-compiler memory cache. */
#ifndef TILEC_DRIVER_COMPILER_H
#define TILEC_DRIVER_COMPILER_H

#include "target/target.h"
#include "tilec/tilec.h"
#include <mlir-c/IR.h>

typedef struct tc_jit_cache tc_jit_cache;

struct tilec_compiler {
  tilec_compile_options opts; /* string fields point at the copies below */
  uint32_t checks;            /* TILEC_CHECKS_* instrumented: tc_checks_resolve(&opts), once */
  char target_name[32];
  char *cache_dir_option; /* copy of opts.cache_dir, or NULL */
  tc_target target;
  MlirContext ctx;     /* created on first compile (compile.c: context) */
  tc_jit_cache *jit;   /* created on first tilec_jit_compile */
  char notes[4096];    /* tl.static_print output of the last front-end run */
  char warnings[4096]; /* its warnings, one "file:line:col: warning: text" line each */
};

/* Resolves the disk cache directory (options, then the environment, read now). */
tilec_status *tc_jit_cache_create(const tilec_compiler *c, tc_jit_cache **out);
/* Releases the memory cache's references (kernels the caller still holds stay loaded). */
void tc_jit_cache_destroy(tc_jit_cache *cache);

#endif
