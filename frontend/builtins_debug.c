/* frontend/builtins_debug.c — tl.device_print / print and tl.device_assert / assert on
 * runtime values: arguments broadcast to one shape, emitted as tile.print / tile.assert
 * (the runtime prefixes each line with the program id and the element index); and the
 * compile-time ones, tl.static_print / tl.static_assert (registry rows at the end).
 * In: evaluated arguments. Out: tile debug ops; constexpr asserts are checked here. */
#include "frontend/builtins.h"
#include "frontend/signature.h"

#include <mlir-c/BuiltinAttributes.h>
#include <stdio.h>
#include <string.h>

static MlirAttribute str(tc_cg *cg, const char *s, size_t n) {
  return mlirStringAttrGet(cg->ctx, mlirStringRefCreate(s, n));
}

/* Triton's prefix (semantic.device_print): with values, it ends in ": " (a last character
 * that is not a space becomes one, then the one before the end becomes ':'); a prefix of
 * more than two characters starts with a space. Lines read "... idx (3) x: 7". */
static MlirAttribute printed_prefix(tc_cg *cg, const char *prefix, size_t plen, bool values) {
  char *p = tc_arena_alloc(cg->arena, plen + 4);
  if (!p) return str(cg, prefix, plen);
  size_t n = plen;
  memcpy(p + 1, prefix, plen);
  if (values && (n == 0 || p[n] != ' ')) p[1 + n++] = ' ';
  if (values && !(n >= 2 && p[n - 1] == ':' && p[n] == ' ')) {
    p[n] = ':';
    p[1 + n++] = ' ';
  }
  if (n > 2 && p[1] != ' ') {
    p[0] = ' ';
    return str(cg, p, n + 1);
  }
  return str(cg, p + 1, n);
}

tc_val cg_device_print(tc_cg *cg, const char *prefix, size_t plen, const tc_val *args, int nargs, bool hex,
                       tc_loc loc) {
  tc_val ts[16];
  int n = 0, rank = 0;
  int64_t shape[TC_MAX_RANK];
  if (nargs > 8) return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "device_print with more than 8 values");
  for (int i = 0; i < nargs; i++) {
    if (args[i].kind == TV_TENSOR || tv_is_number(&args[i])) {
      ts[n] = cg_to_tensor(cg, &args[i], loc);
      if (cg->err) return ts[n];
      if (n == 0) {
        rank = ts[0].rank;
        memcpy(shape, ts[0].shape, sizeof shape);
      } else if (!cg_broadcast_shapes(
                     cg, &ts[n],
                     &(tc_val){.kind = TV_TENSOR, .rank = rank, .shape = {shape[0], shape[1], shape[2], shape[3]}},
                     &rank, shape, loc)) {
        return (tc_val){0};
      }
      n++;
    } else {
      return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "device_print cannot print a %s", tv_kind_name(&args[i]));
    }
  }
  MlirValue vs[16];
  bool is_unsigned[16];
  for (int i = 0; i < n; i++) {
    vs[i] = cg_broadcast_to(cg, ts[i], rank, shape, loc).v;
    is_unsigned[i] = tc_ty_is_int(ts[i].ty) && !tc_ty_is_signed(ts[i].ty);
  }
  if (cg->err) return (tc_val){0};
  cg_set_loc(cg, loc);
  tile_build_print(&cg->b, printed_prefix(cg, prefix, plen, n > 0), hex, n, vs, is_unsigned);
  return tv_none();
}

tc_val cg_device_assert(tc_cg *cg, tc_val cond, const char *msg, size_t mlen, const tc_val *mask, tc_loc loc) {
  bool t;
  if (cond.kind != TV_TENSOR && cg_truthy_constexpr(cg, &cond, loc, &t)) {
    if (t) return tv_none();
    /* a constant False fails where it runs, as in Triton (with debug; nothing without, and
     * nothing in a branch that never runs): `tl.device_assert(False, "unreachable")` */
    tc_val f = tv_bool(false);
    cond = cg_to_tensor(cg, &f, loc);
    if (cg->err) return cond;
  }
  tc_val c = cg_to_bool(cg, cond, loc);
  if (mask && !cg_is_none(mask)) {
    tc_val m = cg_to_bool(cg, *mask, loc);
    c = cg_logical(cg, false, c, cg_unary(cg, TC_UOP_NOT, m, loc), loc);
  }
  if (cg->err) return c;
  cg_set_loc(cg, loc);
  tile_build_assert(&cg->b, c.v, str(cg, msg, mlen));
  cg->uses_assert = true;
  return tv_none();
}

/* ---- the registry rows ---------------------------------------------------------------- */

static tc_val device_print(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  if (a->nargs < 1 || a->args[0].kind != TV_STR)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.device_print(prefix, *args): prefix must be a string");
  bool hex = false;
  for (int k = 0; k < a->nkw; k++) {
    if (!strcmp(a->kwnames[k], "hex")) hex = a->kwargs[k].kind == TV_BOOL && a->kwargs[k].i;
    else
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.device_print() got an unexpected keyword argument '%s'",
                      a->kwnames[k]);
  }
  return cg_device_print(cg, a->args[0].s, a->args[0].slen, a->args + 1, a->nargs - 1, hex, loc);
}

static tc_val device_assert(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  tc_val *m = cg_arg(a, &b->sig, "msg");
  const char *msg = m && m->kind == TV_STR ? m->s : "";
  size_t mlen = m && m->kind == TV_STR ? m->slen : 0;
  return cg_device_assert(cg, *cg_arg(a, &b->sig, "cond"), msg, mlen, cg_arg(a, &b->sig, "mask"), loc);
}

/* What Python's print shows for a compile-time value, as Triton's static_print (which calls
 * print on the values): numbers, bools, None and tuples as Python writes them, a string as
 * itself, a dtype by Triton's name ("fp16"), a tensor as its type ("int32[8, 16]", a
 * scalar "int32[]"). */
static void static_text(const tc_val *v, char *buf, size_t n, bool top) {
  char name[64];
  if (v->kind == TV_TENSOR) {
    tc_ty_triton_name(v->ty, name, sizeof name);
    size_t k = (size_t)snprintf(buf, n, "%s[", name);
    for (int i = 0; i < v->rank && k < n; i++)
      k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)v->shape[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
  } else if (v->kind == TV_DTYPE && (v->rank || v->ptr_block)) {
    tv_dtype_name(v, buf, n);
  } else if (v->kind == TV_DTYPE) {
    tc_ty_triton_name(v->ty, buf, n);
  } else if (v->kind == TV_STR && !top) {
    snprintf(buf, n, "'%.*s'", (int)v->slen, v->s);
  } else if (v->kind == TV_TUPLE) {
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int i = 0; i < v->nitems && k < n; i++) {
      if (i) k += (size_t)snprintf(buf + k, n - k, ", ");
      if (k < n) static_text(&v->items[i], buf + k, n - k, false);
      k += strlen(buf + k);
    }
    if (k < n) snprintf(buf + k, n - k, v->nitems == 1 ? ",)" : ")");
  } else if (!tc_value_to_text(v, buf, n)) {
    tv_describe(v, buf, n);
  }
}

/* Compile-time output: kept as notes that the tool and the drop-in print (the library never
 * does), one line per call, the values separated by spaces. */
static tc_val static_print(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b, (void)loc;
  char line[512] = "";
  size_t k = 0;
  for (int i = 0; i < a->nargs && k + 2 < sizeof line; i++) {
    char item[256];
    static_text(&a->args[i], item, sizeof item, true);
    k += (size_t)snprintf(line + k, sizeof line - k, "%s%s", i ? " " : "", item);
  }
  if (cg->info) {
    size_t n = strlen(cg->info->notes);
    snprintf(cg->info->notes + n, sizeof cg->info->notes - n, "%s\n", line);
  }
  return tv_none();
}

static tc_val compile_time_assert(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  if (a->nargs < 1 || a->nargs > 2) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.static_assert(cond, msg='')");
  bool t;
  if (!cg_truthy_constexpr(cg, &a->args[0], loc, &t))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.static_assert needs a constexpr condition");
  if (!t) {
    bool first = !cg->err; /* the first error stands */
    if (a->nargs == 2 && a->args[1].kind == TV_STR)
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "static assertion failed: %.*s", (int)a->args[1].slen, a->args[1].s);
    else cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "static assertion failed");
    if (first) tilec_status_set_origin(cg->err, TILEC_ORIGIN_STATIC_ASSERT);
    return (tc_val){.kind = TV_INVALID};
  }
  return tv_none();
}

/* tl.debug_barrier: programs share nothing a barrier would order on a CPU */
static tc_val debug_barrier(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)cg, (void)b, (void)a, (void)loc;
  return tv_none();
}

static const char *const p_assert[] = {"cond", "msg", "mask", NULL};

const cg_builtin cg_builtins_debug[] = {
    {"device_print", device_print, {"tl.device_print", NULL}, 0, NULL},
    {"device_assert", device_assert, {"tl.device_assert", p_assert}, 1, NULL},
    {"static_print", static_print, {"tl.static_print", NULL}, 0, NULL},
    {"static_assert", compile_time_assert, {"tl.static_assert", NULL}, 0, NULL},
    {"debug_barrier", debug_barrier, {"tl.debug_barrier", NULL}, 0, NULL},
    {NULL, NULL, {NULL, NULL}, 0, NULL},
};
