/* frontend/module_context.h — the names a kernel resolves outside its own body, as Triton
 * resolves them through the function's Python module globals. In: the spec's globals and
 * source modules (what the Python package passes) and each source's module-level statements
 * (what `tilec compile FILE` has). Out: values for free names, or located errors saying why. */
#ifndef TILEC_FRONTEND_MODULE_CONTEXT_H
#define TILEC_FRONTEND_MODULE_CONTEXT_H

#include "frontend/cg.h"

typedef struct tc_mctx tc_mctx;

/* Unit 0 is `main` (not owned: the caller destroys it after the context); units 1..n are
 * spec->modules[0..n-1], parsed when first used; sibling .py files imported by module-level
 * statements get further units. Allocates in `arena`. */
tc_mctx *tc_mctx_create(tc_arena *arena, const tilec_kernel_spec *spec, const tc_module *main);
void tc_mctx_destroy(tc_mctx *m);

/* The unit whose parsed module holds fn, or -1 (the prelude). */
int tc_mctx_unit_of(const tc_mctx *m, const tc_func *fn);
const tc_module *tc_mctx_unit_module(const tc_mctx *m, int unit);

/* A free name of the current frame's unit (API globals, then the module's own statements,
 * then its functions, then builtins and the default tl/triton/libdevice names). True when
 * *out was set or an error recorded; false when the name is unknown. */
bool cg_context_name(tc_cg *cg, const char *name, tc_loc loc, tc_val *out);
/* Attributes of the modules this file introduces: source units (`h.fn` after
 * `import helpers as h`) and Python modules tilec does not compile (`math.pi`). */
bool cg_is_context_module(const tc_val *m);
tc_val cg_context_module_attr(tc_cg *cg, const tc_val *m, const char *attr, tc_loc loc);
/* Calls of the Python math functions that cg_context_module_attr hands out ("pymath.*"). */
tc_val cg_context_call(tc_cg *cg, const char *name, tc_callargs *a, tc_loc loc);

/* module_files.c: Python files around a source. */
char *tc_read_text_file(const char *path, size_t *len); /* malloc'ed, NUL-terminated; NULL if unreadable */
/* dir/name.py or the package dir/name/__init__.py (name: n bytes, may contain '/'; dir "" or
 * ending in '/') into path; false when neither is a regular file. */
bool tc_module_file_in_dir(const char *dir, const char *name, size_t n, char *path, size_t cap);
/* Drops the last directory of dir ("a/b/" -> "a/", "" -> "../"); false past the root. */
bool tc_dir_up(char *dir, size_t cap);
/* The file of module `first` (n bytes) that `file` imports with `level` leading dots. */
bool tc_import_file(const char *file, const char *first, size_t n, int level, char *path, size_t cap);

#endif
