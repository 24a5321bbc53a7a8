/* frontend/builtins.h — the builtin registry: one row per function a kernel may call by name
 * (tl.NAME, also spelled tl.math.NAME / libdevice.NAME and called as a tensor method
 * x.NAME(...); Python's builtins in a table of their own), each family's rows in its file.
 * In: a name. Out: its row — Triton's parameter names and the handler, or why it is refused. */
#ifndef TILEC_FRONTEND_BUILTINS_H
#define TILEC_FRONTEND_BUILTINS_H

#include "frontend/cg.h"

typedef struct cg_builtin cg_builtin;

/* Emits a call of b. When b->sig.params is set the arguments are bound already (checked by
 * cg_check_args with b->min_args) and cg_arg(a, &b->sig, "name") reads them; a tensor
 * method's object is the first positional argument. */
typedef tc_val (*cg_builtin_fn)(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc);

struct cg_builtin {
  const char *name; /* without the module: "load" */
  cg_builtin_fn fn; /* NULL: tilec knows the name but refuses a call (see data) */
  cg_sig sig;       /* sig.fn: the name argument errors show ("tl.load"); sig.params: Triton's
                       parameter names, NULL when fn checks its arguments itself */
  int min_args;     /* parameters a call must give (the first min_args of sig.params) */
  const char *data; /* fn's operand where rows share a handler (the math.* op); for a refused
                       row its message (NULL: "tl.NAME is not supported yet") */
};

/* The family tables, each ended by a row whose name is NULL: builtins.c (core: program ids,
 * arange, load/store, casts, constants, hints, and the names refused until they are lowered),
 * builtins_math.c (elementwise math), builtins_tile.c (shapes, reductions, scans, dot, sort),
 * builtins_atomic.c, builtins_block.c (block pointers), descriptors.c, builtins_debug.c
 * (static/device print and assert), builtins_api.c (the rest of Triton's __all__) and
 * builtins_py.c (Python's builtins: cg_py_builtin_find). */
extern const cg_builtin cg_builtins_core[], cg_builtins_math[], cg_builtins_tile[], cg_builtins_atomic[],
    cg_builtins_block[], cg_builtins_descriptor[], cg_builtins_debug[], cg_builtins_api[], cg_builtins_py[];

/* The tl.* row called `name` (no "tl." prefix); NULL when tilec does not know it. */
const cg_builtin *cg_builtin_find(const char *name);
/* Python's builtin `name` (range, min, len, ...); NULL when kernels cannot call it. */
const cg_builtin *cg_py_builtin_find(const char *name);
/* Every tl.* row sorted by name, *n of them (one lookup table built on first use). */
const cg_builtin *const *cg_builtin_all(size_t *n);
/* Calls b: binds the arguments, then runs the handler, or reports the refusal. */
tc_val cg_builtin_call(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc);
/* "tl.NAME is not supported yet": refused rows, and argument forms a handler does not take. */
tc_val cg_builtin_not_yet(tc_cg *cg, const cg_builtin *b, tc_loc loc);

/* Exactly n positional arguments and no keywords ("fn() takes n positional arguments"
 * otherwise); returns the first. */
tc_val cg_positional(tc_cg *cg, tc_callargs *a, const char *fn, int n, tc_loc loc);
/* isinstance(x, classes) against the tl classes (builtins_api.c), for builtins_py.c. */
tc_val cg_api_isinstance(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc);
/* tl.abs (builtins_math.c): Python's abs() of a tensor calls it. */
tc_val cg_math_abs(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc);

#endif
