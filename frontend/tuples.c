/* frontend/tuples.c — compile-time tuples as Triton's tl.tuple behaves: shapes and tuple
 * constexprs compare with each other and with lists (== / != by value, <, <= ... in
 * Python's lexicographic order), concatenate with +, repeat with * int, slice with
 * t[a:b:c]. In: tuple values (x.shape, (1, 2), [4, 8], tuple constexprs). Out: constexpr
 * results or a located error. */
#include "frontend/cg.h"

#include <string.h>

static bool all_constexpr(const tc_val *t) {
  for (int i = 0; i < t->nitems; i++) {
    const tc_val *x = &t->items[i];
    if (x->kind == TV_TUPLE ? !all_constexpr(x) : !tv_is_constexpr(x)) return false;
  }
  return true;
}

/* -1, 0, 1 like Python's tuple ordering; *ok false when an element pair has no order. */
static int compare_items(tc_cg *cg, const tc_val *a, const tc_val *b, bool ordered, tc_loc loc, bool *ok) {
  int n = a->nitems < b->nitems ? a->nitems : b->nitems;
  for (int i = 0; i < n && *ok; i++) {
    const tc_val *x = &a->items[i], *y = &b->items[i];
    if (x->kind == TV_TUPLE && y->kind == TV_TUPLE) {
      int c = compare_items(cg, x, y, ordered, loc, ok);
      if (c) return c;
      continue;
    }
    if (x->kind == TV_TUPLE || y->kind == TV_TUPLE) {
      if (ordered) *ok = false;
      return 1; /* a tuple never equals a scalar */
    }
    tc_val eq = cg_constexpr_compare(cg, TC_CMP_EQ, x, y, loc);
    if (cg->err) return (*ok = false), 0;
    if (eq.i) continue;
    if (!ordered) return 1;
    tc_val lt = cg_constexpr_compare(cg, TC_CMP_LT, x, y, loc);
    if (cg->err) return (*ok = false), 0;
    return lt.i ? -1 : 1;
  }
  return a->nitems < b->nitems ? -1 : a->nitems > b->nitems;
}

bool cg_tuple_compare(tc_cg *cg, tc_cmpop op, const tc_val *a, const tc_val *b, tc_loc loc, tc_val *out) {
  if (a->kind != TV_TUPLE && b->kind != TV_TUPLE) return false;
  bool eq_op = op == TC_CMP_EQ || op == TC_CMP_NE;
  if (a->kind != TV_TUPLE || b->kind != TV_TUPLE) {
    if (!eq_op) {
      *out = cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "cannot order a tuple and a %s",
                      tv_kind_name(a->kind == TV_TUPLE ? b : a));
      return true;
    }
    *out = tv_bool(op == TC_CMP_NE); /* (4, 8) == 4 is False in Python */
    return true;
  }
  if (!all_constexpr(a) || !all_constexpr(b)) {
    *out = cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                    "tuples holding tensors cannot be compared at compile time; compare their elements");
    return true;
  }
  bool ok = true;
  int c = compare_items(cg, a, b, !eq_op, loc, &ok);
  if (cg->err) {
    *out = (tc_val){0};
    return true;
  }
  if (!ok) {
    *out = cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "cannot order these tuples: an element is a tuple on one side only");
    return true;
  }
  switch (op) {
    case TC_CMP_EQ: *out = tv_bool(c == 0); break;
    case TC_CMP_NE: *out = tv_bool(c != 0); break;
    case TC_CMP_LT: *out = tv_bool(c < 0); break;
    case TC_CMP_LE: *out = tv_bool(c <= 0); break;
    case TC_CMP_GT: *out = tv_bool(c > 0); break;
    case TC_CMP_GE: *out = tv_bool(c >= 0); break;
    default: return false;
  }
  return true;
}

static tc_val make_tuple(tc_cg *cg, int n) {
  tc_val r = {.kind = TV_TUPLE, .nitems = n};
  r.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(n + 1));
  return r;
}

bool cg_tuple_binary(tc_cg *cg, tc_binop op, const tc_val *a, const tc_val *b, tc_loc loc, tc_val *out) {
  if (a->kind != TV_TUPLE && b->kind != TV_TUPLE) return false;
  if (op == TC_OP_ADD) {
    if (a->kind != TV_TUPLE || b->kind != TV_TUPLE) {
      *out = cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "can only concatenate a tuple with a tuple, not a %s",
                      tv_kind_name(a->kind == TV_TUPLE ? b : a));
      return true;
    }
    *out = make_tuple(cg, a->nitems + b->nitems);
    memcpy(out->items, a->items, sizeof(tc_val) * (size_t)a->nitems);
    memcpy(out->items + a->nitems, b->items, sizeof(tc_val) * (size_t)b->nitems);
    return true;
  }
  if (op == TC_OP_MUL) {
    const tc_val *t = a->kind == TV_TUPLE ? a : b, *k = a->kind == TV_TUPLE ? b : a;
    if (k->kind != TV_INT) {
      *out = cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "a tuple can only be repeated by a constexpr int, not a %s",
                      tv_kind_name(k));
      return true;
    }
    int64_t reps = k->i < 0 ? 0 : k->i;
    if (reps * t->nitems > 4096) {
      *out = cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "a tuple of more than 4096 items");
      return true;
    }
    *out = make_tuple(cg, (int)(reps * t->nitems));
    for (int64_t r = 0; r < reps; r++) memcpy(out->items + r * t->nitems, t->items, sizeof(tc_val) * (size_t)t->nitems);
    return true;
  }
  *out = cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "unsupported operand types for a tuple (only + and * are defined)");
  return true;
}

static bool slice_bound(tc_cg *cg, const tc_expr *e, int64_t dflt, int64_t *out) {
  *out = dflt;
  if (!e) return true;
  tc_val v = cg_expr(cg, e);
  if (cg->err) return false;
  if (v.kind == TV_NONE) return true;
  if (v.kind != TV_INT && v.kind != TV_BOOL) {
    cg_error(cg, e->loc, TILEC_ERROR_SEMANTIC, "tuple slice bounds must be constexpr integers");
    return false;
  }
  *out = v.i;
  return true;
}

tc_val cg_tuple_slice(tc_cg *cg, const tc_val *t, const tc_expr *s) {
  int64_t step;
  if (!slice_bound(cg, s->u.slice.step, 1, &step)) return (tc_val){0};
  if (step == 0) return cg_error(cg, s->loc, TILEC_ERROR_SEMANTIC, "slice step cannot be zero");
  int64_t n = t->nitems, lo, hi;
  if (!slice_bound(cg, s->u.slice.lower, step > 0 ? 0 : n - 1, &lo) ||
      !slice_bound(cg, s->u.slice.upper, step > 0 ? n : -n - 1, &hi))
    return (tc_val){0};
  /* Python's clamping of slice bounds */
  if (lo < 0) lo += n;
  if (hi < 0) hi += n;
  if (step > 0) {
    lo = lo < 0 ? 0 : lo > n ? n : lo;
    hi = hi < 0 ? 0 : hi > n ? n : hi;
  } else {
    lo = lo < -1 ? -1 : lo > n - 1 ? n - 1 : lo;
    hi = hi < -1 ? -1 : hi > n - 1 ? n - 1 : hi;
  }
  tc_val r = make_tuple(cg, (int)n);
  r.nitems = 0;
  for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) r.items[r.nitems++] = t->items[i];
  return r;
}

void cg_for_tuple(tc_cg *cg, const tc_stmt *s, const tc_val *t) {
  if (s->u.for_.orelse.nstmts) {
    cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED, "'for ... else' is not supported");
    return;
  }
  for (int i = 0; i < t->nitems; i++) {
    cg_assign_target(cg, s->u.for_.target, t->items[i]);
    if (cg_frame(cg)->pyfn) { /* Python's loop in a compile-time function: break/continue work */
      if (cg->err || !cg_pyfn_trip(cg, &s->u.for_.body)) return;
      continue;
    }
    cg_unrolled_body(cg, &s->u.for_.body, i + 1 == t->nitems, s->loc);
    if (cg->err || cg_frame(cg)->returned) return;
  }
}
