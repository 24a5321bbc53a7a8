/* frontend/args.c — argument binding for builtin calls: positional or keyword, checked
 * against the builtin's parameter names, with typed accessors for constexprs.
 * In: evaluated call arguments. Out: values by parameter name, or precise errors. */
#include "frontend/builtins.h"

#include <string.h>

/* ---- argument access --------------------------------------------------------------- */

tc_val cg_positional(tc_cg *cg, tc_callargs *a, const char *fn, int n, tc_loc loc) {
  if (a->nargs != n || a->nkw) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s() takes %d positional argument%s", fn, n, n == 1 ? "" : "s");
    return (tc_val){0};
  }
  return a->args[0];
}

bool cg_check_args(tc_cg *cg, tc_callargs *a, const cg_sig *s, int min_args, tc_loc loc) {
  int np = 0;
  while (s->params[np]) np++;
  if (a->nargs > np) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s() takes at most %d arguments (%d given)", s->fn, np, a->nargs);
    return false;
  }
  for (int k = 0; k < a->nkw; k++) {
    int j = -1;
    for (int i = 0; i < np; i++)
      if (!strcmp(s->params[i], a->kwnames[k])) j = i;
    if (j < 0) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s() got an unexpected keyword argument '%s'", s->fn, a->kwnames[k]);
      return false;
    }
    if (j < a->nargs) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s() got multiple values for argument '%s'", s->fn, a->kwnames[k]);
      return false;
    }
  }
  for (int i = 0; i < min_args; i++) {
    bool have = i < a->nargs;
    for (int k = 0; k < a->nkw && !have; k++) have = !strcmp(a->kwnames[k], s->params[i]);
    if (!have) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s() missing required argument '%s'", s->fn, s->params[i]);
      return false;
    }
  }
  return true;
}

tc_val *cg_arg(tc_callargs *a, const cg_sig *s, const char *name) {
  int i = 0;
  for (; s->params[i]; i++)
    if (!strcmp(s->params[i], name)) break;
  if (!s->params[i]) return NULL;
  if (i < a->nargs) return &a->args[i];
  for (int k = 0; k < a->nkw; k++)
    if (!strcmp(a->kwnames[k], name)) return &a->kwargs[k];
  return NULL;
}

bool cg_is_none(const tc_val *v) { return !v || v->kind == TV_NONE; }

bool cg_const_int(tc_cg *cg, const tc_val *v, const char *what, tc_loc loc, int64_t *out) {
  if (v && (v->kind == TV_INT || v->kind == TV_BOOL)) {
    *out = v->i;
    return true;
  }
  cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s must be a constexpr integer, got %s", what,
           v ? tv_kind_name(v) : "nothing");
  return false;
}

bool cg_get_dtype(tc_cg *cg, const tc_val *v, const char *what, tc_loc loc, tc_ty *out) {
  if (v && v->kind == TV_DTYPE && !v->rank && !v->ptr_block) {
    *out = v->ty;
    return true;
  }
  if (v && v->kind == TV_DTYPE) {
    char name[256];
    tv_dtype_name(v, name, sizeof name);
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
             "%s must be a scalar dtype (e.g. tl.float32), got the %s %s: its scalar type is %s", what,
             v->ptr_block ? "block pointer type" : "block type", name,
             v->ptr_block ? ".element_ty.element_ty" : ".element_ty");
    return false;
  }
  cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s must be a dtype (e.g. tl.float32), got %s", what,
           v ? tv_kind_name(v) : "nothing");
  return false;
}

/* Triton's rule for every block shape (validate_block_shape): each element a power of 2. */
static bool shape_element_ok(tc_cg *cg, int i, int64_t d, tc_loc loc) {
  if (d > 0 && !(d & (d - 1))) return true;
  cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "Shape element %d must be a power of 2", i);
  return false;
}

bool cg_get_shape(tc_cg *cg, const tc_val *v, tc_loc loc, int *rank, int64_t *shape) {
  if (v && (v->kind == TV_INT)) {
    if (v->i <= 0) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "shape must be a tuple or list of positive constexpr integers");
      return false;
    }
    if (!shape_element_ok(cg, 0, v->i, loc)) return false;
    *rank = 1;
    shape[0] = v->i;
    return true;
  }
  if (!v || v->kind != TV_TUPLE) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "shape must be a tuple or list of constexpr integers");
    return false;
  }
  if (v->nitems > TC_MAX_RANK) { /* Triton has no limit; tilec's fixed arrays stop at TC_MAX_RANK */
    cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "tiles of rank > %d are not supported (this shape has %d dimensions)",
             TC_MAX_RANK, v->nitems);
    return false;
  }
  int64_t numel = 1;
  for (int i = 0; i < v->nitems; i++) {
    if (v->items[i].kind != TV_INT || v->items[i].i <= 0) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "shape must be a tuple or list of positive constexpr integers");
      return false;
    }
    if (!shape_element_ok(cg, i, v->items[i].i, loc)) return false;
    shape[i] = v->items[i].i;
    numel *= shape[i];
  }
  if (numel > TC_MAX_NUMEL) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "a tile has at most %d elements, this one %lld", TC_MAX_NUMEL,
             (long long)numel);
    return false;
  }
  *rank = v->nitems;
  return true;
}
