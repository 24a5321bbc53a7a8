/* frontend/builtins_py.c — the Python builtins a kernel may call, as Triton allows them:
 * range (only as a for loop's iterable), min/max, len, int/float/bool, abs, print,
 * isinstance, getattr/hasattr with compile-time names. In: call arguments (registry rows
 * below). Out: folded constants, or the tl.* operation they stand for on tensors. */
#include "frontend/builtins.h"
#include "frontend/signature.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tc_val py_minmax(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  bool is_max = !strcmp(b->name, "max");
  const char *fn = is_max ? "max" : "min";
  tc_val *xs = a->args;
  int n = a->nargs;
  if (n == 1 && xs[0].kind == TV_TUPLE) {
    n = xs[0].nitems;
    xs = xs[0].items;
  }
  if (n < 1) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s() expects at least one argument", fn);
  tc_val r = xs[0];
  for (int i = 1; i < n && !cg->err; i++) {
    if (tv_is_number(&r) && tv_is_number(&xs[i])) {
      tc_val c = cg_constexpr_compare(cg, TC_CMP_LT, &r, &xs[i], loc);
      if ((c.i != 0) == is_max) r = xs[i];
    } else {
      r = cg_minmax(cg, is_max, r, xs[i], false, loc);
    }
  }
  if (!cg->err && r.kind == TV_TENSOR && r.rank)
    cg_warn(cg, loc, "builtin %s on non-scalar tensor values is deprecated, use tl.%s instead", fn,
            is_max ? "maximum" : "minimum");
  return r;
}

static tc_val py_float(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  tc_val x = cg_positional(cg, a, "float", 1, loc);
  if (cg->err) return x;
  if (tv_is_number(&x)) return tv_float(x.kind == TV_FLOAT ? x.f : (double)x.i);
  if (x.kind == TV_STR) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.*s", (int)x.slen, x.s);
    if (!strcmp(buf, "inf") || !strcmp(buf, "+inf") || !strcmp(buf, "infinity")) return tv_float(INFINITY);
    if (!strcmp(buf, "-inf") || !strcmp(buf, "-infinity")) return tv_float(-INFINITY);
    if (!strcmp(buf, "nan")) return tv_float(NAN);
    char *end;
    double d = strtod(buf, &end);
    if (*end == 0 && end != buf) return tv_float(d);
  }
  if (x.kind == TV_TENSOR) return cg_cast(cg, x, tc_ty_make(TILEC_DTYPE_F32), false, loc);
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "float() cannot convert %s", tv_kind_name(&x));
}

static tc_val py_int(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  tc_val x = cg_positional(cg, a, "int", 1, loc);
  if (cg->err) return x;
  if (x.kind == TV_FLOAT && (isnan(x.f) || isinf(x.f)))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "cannot convert float %s to integer",
                    isnan(x.f) ? "NaN" : "infinity");
  if (x.kind == TV_FLOAT && (x.f >= 0x1p63 || x.f < -0x1p63))
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "int(%g) does not fit in 64 bits", x.f);
  if (tv_is_number(&x)) return tv_int(x.kind == TV_FLOAT ? (int64_t)x.f : x.i);
  if (x.kind == TV_TENSOR) return cg_cast(cg, x, tc_ty_make(TILEC_DTYPE_I32), false, loc);
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "int() cannot convert %s", tv_kind_name(&x));
}

static tc_val py_bool(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  tc_val x = cg_positional(cg, a, "bool", 1, loc);
  bool t;
  if (!cg->err && cg_truthy_constexpr(cg, &x, loc, &t)) return tv_bool(t);
  if (x.kind == TV_TENSOR) return cg_to_bool(cg, x, loc);
  return cg->err ? x : cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "bool() cannot convert %s", tv_kind_name(&x));
}

static tc_val py_len(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  tc_val x = cg_positional(cg, a, "len", 1, loc);
  if (cg->err) return x;
  if (x.kind == TV_TUPLE) return tv_int(x.nitems);
  if (x.kind == TV_STR) return tv_int((int64_t)x.slen);
  if (x.kind == TV_TENSOR && x.rank) return tv_int(x.shape[0]);
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "len() of %s", tv_kind_name(&x));
}

/* abs() of a number folds; of a tensor it is tl.abs */
static tc_val py_abs(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  tc_val x = cg_positional(cg, a, "abs", 1, loc);
  if (cg->err) return x;
  if (x.kind == TV_INT) return tv_int(x.i < 0 ? -x.i : x.i);
  if (x.kind == TV_FLOAT) return tv_float(fabs(x.f));
  return cg_math_abs(cg, b, a, loc);
}

/* getattr(obj, "name"[, default]) with a compile-time name, as Triton evaluates it
 * (getattr(tl, FUNC) for a constexpr string FUNC) */
static tc_val py_getattr(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *name = b->name;
  bool has = !strcmp(name, "hasattr");
  if (a->nkw || a->nargs < 2 || a->nargs > (has ? 2 : 3))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s() takes %s", name, has ? "2 arguments" : "2 or 3 arguments");
  if (a->args[1].kind != TV_STR)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s(): attribute name must be a compile-time string, got %s", name,
                    tv_kind_name(&a->args[1]));
  char attr[128];
  if (a->args[1].slen >= sizeof attr)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s(): attribute name too long", name);
  memcpy(attr, a->args[1].s, a->args[1].slen);
  attr[a->args[1].slen] = 0;
  tc_val r = cg_value_attr(cg, a->args[0], attr, loc);
  if (cg->err && (has || a->nargs == 3)) {
    tilec_status_destroy(cg->err);
    cg->err = NULL;
    return has ? tv_bool(false) : a->args[2];
  }
  return has && !cg->err ? tv_bool(true) : r;
}

static tc_val py_range(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b, (void)a;
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "range() can only be used as the iterable of a 'for' loop");
}

/* print(...) is device_print, with an optional leading string as the prefix */
static tc_val py_print(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  const char *prefix = "";
  size_t plen = 0;
  int first = 0;
  if (a->nargs && a->args[0].kind == TV_STR) {
    prefix = a->args[0].s;
    plen = a->args[0].slen;
    first = 1;
  }
  return cg_device_print(cg, prefix, plen, a->args + first, a->nargs - first, false, loc);
}

/* str(x) of a compile-time value (Python's, dtypes by Triton's names: str(tl.float32) is "fp32") */
static tc_val py_str(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  if (!a->nargs && !a->nkw) return tv_str("", 0);
  tc_val x = cg_positional(cg, a, "str", 1, loc);
  if (cg->err) return x;
  char buf[1024];
  if (!tc_value_str(&x, 's', buf, sizeof buf))
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
                    "str() of a %s is not supported in kernels (only of compile-time "
                    "values)",
                    tv_kind_name(&x));
  size_t n = strlen(buf);
  char *s = cg_alloc(cg, n + 1);
  memcpy(s, buf, n + 1);
  return tv_str(s, n);
}

const cg_builtin cg_builtins_py[] = {
    {"abs", py_abs, {"abs", NULL}, 0, NULL},
    {"bool", py_bool, {"bool", NULL}, 0, NULL},
    {"float", py_float, {"float", NULL}, 0, NULL},
    {"getattr", py_getattr, {"getattr", NULL}, 0, NULL},
    {"hasattr", py_getattr, {"hasattr", NULL}, 0, NULL},
    {"int", py_int, {"int", NULL}, 0, NULL},
    {"isinstance", cg_api_isinstance, {"isinstance", NULL}, 0, NULL},
    {"len", py_len, {"len", NULL}, 0, NULL},
    {"max", py_minmax, {"max", NULL}, 0, NULL},
    {"min", py_minmax, {"min", NULL}, 0, NULL},
    {"print", py_print, {"print", NULL}, 0, NULL},
    {"range", py_range, {"range", NULL}, 0, NULL},
    {"str", py_str, {"str", NULL}, 0, NULL},
    {NULL, NULL, {NULL, NULL}, 0, NULL},
};

const cg_builtin *cg_py_builtin_find(const char *name) {
  for (const cg_builtin *b = cg_builtins_py; b->name; b++) /* a dozen rows: a scan is enough */
    if (!strcmp(b->name, name)) return b;
  return NULL;
}
