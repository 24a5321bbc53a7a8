/* frontend/control.c — runtime control flow: `if` on a runtime condition becomes
 * scf.if, `for` over range/tl.range becomes scf.for and `while` scf.while. Variables
 * assigned inside and defined before become region results / loop-carried values; their
 * type must not change (a constexpr number adopts the type the body gives it).
 * In: statements and the current scope. Out: scf ops with yields, rebound names. */
#include "frontend/cg.h"
#include "frontend/diag.h"
#include "frontend/parser.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 64
#define MAXL 128
#define RETURNED "@returned"
#define RETVAL "@retval"

typedef struct names {
  const char *v[MAXN];
  int n;
  bool overflow;
  tc_cg *defined_in; /* where set: only names bound there (a loop's carried candidates) */
} names;

static void add_name(names *ns, const char *s) {
  for (int i = 0; i < ns->n; i++)
    if (!strcmp(ns->v[i], s)) return;
  if (ns->defined_in && !cg_lookup(ns->defined_in, s)) return; /* a name of the body's own */
  if (ns->n == MAXN) {
    ns->overflow = true;
    return;
  }
  ns->v[ns->n++] = s;
}

static void target_names(names *ns, const tc_expr *t) {
  if (t->kind == TC_EXPR_NAME) add_name(ns, t->u.name);
  else if (t->kind == TC_EXPR_TUPLE || t->kind == TC_EXPR_LIST)
    for (int i = 0; i < t->u.seq.nitems; i++) target_names(ns, t->u.seq.items[i]);
}

static void assigned_in(names *ns, const tc_block *b) {
  for (int i = 0; i < b->nstmts; i++) {
    const tc_stmt *s = b->stmts[i];
    switch (s->kind) {
      case TC_STMT_ASSIGN:
        for (int k = 0; k < s->u.assign.ntargets; k++) target_names(ns, s->u.assign.targets[k]);
        break;
      case TC_STMT_AUGASSIGN: target_names(ns, s->u.augassign.target); break;
      case TC_STMT_ANNASSIGN: target_names(ns, s->u.annassign.target); break;
      case TC_STMT_IF:
        assigned_in(ns, &s->u.if_.body);
        assigned_in(ns, &s->u.if_.orelse);
        break;
      case TC_STMT_FOR:
        target_names(ns, s->u.for_.target);
        assigned_in(ns, &s->u.for_.body);
        break;
      case TC_STMT_WHILE: assigned_in(ns, &s->u.while_.body); break;
      default: break;
    }
  }
}

typedef struct snapshot {
  tc_binding *vars;
  int n;
} snapshot;

static snapshot snap(tc_cg *cg) {
  tc_scope *s = &cg_frame(cg)->scope;
  snapshot r = {malloc(sizeof(tc_binding) * (size_t)(s->nvars + 1)), s->nvars};
  memcpy(r.vars, s->vars, sizeof(tc_binding) * (size_t)s->nvars);
  return r;
}

static void restore(tc_cg *cg, const snapshot *sn) {
  tc_scope *s = &cg_frame(cg)->scope;
  if (s->cap < sn->n) {
    void *vars = realloc(s->vars, sizeof(tc_binding) * (size_t)(sn->n + 16));
    if (!vars) {
      cg_error(cg, (tc_loc){0, 0}, TILEC_ERROR_INTERNAL, "out of memory");
      return;
    }
    s->vars = vars;
    s->cap = sn->n + 16;
  }
  memcpy(s->vars, sn->vars, sizeof(tc_binding) * (size_t)sn->n);
  s->nvars = sn->n;
}

static const tc_val *snap_get(const snapshot *sn, const char *name) {
  for (int i = sn->n - 1; i >= 0; i--)
    if (!strcmp(sn->vars[i].name, name)) return &sn->vars[i].val;
  return NULL;
}

static bool same_val(const tc_val *a, const tc_val *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case TV_TENSOR: return mlirValueEqual(a->v, b->v);
    case TV_INT:
    case TV_BOOL: return a->i == b->i;
    case TV_FLOAT: return a->f == b->f || (a->f != a->f && b->f != b->f);
    case TV_STR: return a->slen == b->slen && !memcmp(a->s, b->s, a->slen);
    case TV_DTYPE: return tv_dtype_eq(a, b);
    case TV_NONE: return true;
    default: return a->fn == b->fn && a->name == b->name && a->items == b->items;
  }
}

static bool same_type(const tc_val *a, const tc_val *b) {
  if (!tc_ty_eq(a->ty, b->ty) || a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->shape[i] != b->shape[i]) return false;
  return true;
}

static MlirType val_type(tc_cg *cg, const tc_val *v) { return cg_tensor_type(cg, v->ty, v->rank, v->shape); }

static void describe(const tc_val *v, char *buf, size_t n) { tv_describe(v, buf, n); }

/* ---- if ------------------------------------------------------------------------------ */

static bool is_struct(const tc_val *v);
static int count_leaves(const tc_val *v);
static void flatten(const tc_val *v, tc_val *out, int *n);
static tc_val rebuild(tc_cg *cg, const tc_val *templ, const tc_val *leaves, int *pos);

/* One value leaving a branch: a tensor (or number) leaf of a name's value. */
typedef struct if_leaf {
  tc_val t, e; /* per branch, made tensors of one type */
  int result;  /* index among the scf.if results, -1 when both branches agree */
} if_leaf;

/* Makes the two branch values of one leaf agree in type (numbers become tensors in the
 * branch that has the number). False with an error when they cannot. */
static bool unify_leaf(tc_cg *cg, const tc_stmt *s, const char *name, tc_val *x, tc_val *y, tc_builder ends[2]) {
  for (int k = 0; k < 2; k++) {
    tc_val *v = k ? y : x, *o = k ? x : y;
    if (v->kind == TV_TENSOR) continue;
    if (!tv_is_number(v)) {
      cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED,
               "'%s' is a %s in one branch of a runtime 'if' and differs in the other", name, tv_kind_name(v));
      return false;
    }
    tc_builder save = cg->b;
    cg->b = ends[k];
    /* A returned number must have the other path's type as it is (Triton's return types:
     * `return 1` is int32); other numbers adopt the tensor's type. */
    bool ret = !strcmp(name, RETVAL);
    *v = o->kind == TV_TENSOR && !ret ? cg_cast(cg, *v, o->ty, false, s->loc) : cg_to_tensor(cg, v, s->loc);
    if (o->kind == TV_TENSOR && o->rank && !ret) *v = cg_broadcast_to(cg, *v, o->rank, o->shape, s->loc);
    ends[k] = cg->b;
    cg->b = save;
  }
  if (cg->err) return false;
  if (!same_type(x, y)) {
    char a[64], b[64];
    describe(x, a, sizeof a);
    describe(y, b, sizeof b);
    if (!strcmp(name, RETVAL)) /* at the later return, as Triton (whose first return sets the type) */
      cg_error(cg, cg_frame(cg)->ret_loc.line ? cg_frame(cg)->ret_loc : s->loc, TILEC_ERROR_SEMANTIC,
               "Inconsistent return types: %s and %s (the paths of the 'if' at line %d return different types)", a, b,
               s->loc.line + cg_current_module(cg)->line_offset);
    else if (!strncmp(name, "@ifexp", 6))
      cg_error(cg, s->loc, TILEC_ERROR_SEMANTIC,
               "Ternary expression with dynamic condition has inconsistent types %s and %s", a, b);
    else
      cg_error(cg, s->loc, TILEC_ERROR_SEMANTIC, "Mismatched type for %s between then block (%s) and else block (%s)",
               name, a, b);
    return false;
  }
  return true;
}

/* A value of v's structure and types for a path where it is never read (the function has
 * returned there): zeros for tensors (null pointers), the same constants otherwise. */
static tc_val placeholder_like(tc_cg *cg, const tc_val *v, tc_loc loc) {
  if (v->kind == TV_TENSOR) {
    if (!tc_ty_is_ptr(v->ty)) return cg_constant(cg, v->ty, 0, 0, v->rank, v->shape);
    tc_val z = cg_constant(cg, tc_ty_make(TILEC_DTYPE_I64), 0, 0, v->rank, v->shape);
    return cg_cast(cg, z, v->ty, false, loc);
  }
  if (!is_struct(v)) return *v;
  tc_val r = *v;
  r.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(v->nitems + 1));
  for (int i = 0; i < v->nitems; i++) r.items[i] = placeholder_like(cg, &v->items[i], loc);
  return r;
}

/* Do a and b differ in a type a merge cannot unify (tensors of other types or shapes,
 * other structures)? Numbers against tensors unify (the number becomes a tensor). */
static bool types_differ(const tc_val *a, const tc_val *b) {
  if (a->kind == TV_TENSOR && b->kind == TV_TENSOR) return !same_type(a, b);
  if (is_struct(a) || is_struct(b)) {
    if (a->kind != b->kind || a->nitems != b->nitems) return true;
    for (int i = 0; i < a->nitems; i++)
      if (types_differ(&a->items[i], &b->items[i])) return true;
    return false;
  }
  bool an = a->kind == TV_TENSOR || tv_is_number(a), bn = b->kind == TV_TENSOR || tv_is_number(b);
  return an != bn;
}

/* Builds a placeholder like v at the end of branch k. */
static tc_val placeholder_in(tc_cg *cg, tc_builder *end, const tc_val *v, tc_loc loc) {
  tc_builder save = cg->b;
  cg->b = *end;
  tc_val r = placeholder_like(cg, v, loc);
  *end = cg->b;
  cg->b = save;
  return r;
}

/* wrapper: the 'if' runs the rest of a block after an early return (empty else): inside
 * it nothing has returned yet, and names it defines stay visible after it (the other
 * path has returned and never reads them). */
static void merge_if(tc_cg *cg, const tc_stmt *s, tc_val c, bool wrapper, snapshot *before, snapshot after[2],
                     tc_builder ends[2], MlirBlock blocks[2]);

/* Did the ops after `last` in blk (or all of them) store, print or assert? */
static MlirWalkResult effect_walk(MlirOperation op, void *user) {
  MlirStringRef nm = mlirIdentifierStr(mlirOperationGetName(op));
  char name[96];
  snprintf(name, sizeof name, "%.*s", (int)nm.length, nm.data);
  if (strstr(name, "store") || strstr(name, "atomic") || strstr(name, "print") || strstr(name, "assert")) {
    *(bool *)user = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

static bool effects_after(MlirBlock blk, MlirOperation last) {
  bool found = false;
  MlirOperation op = mlirOperationIsNull(last) ? mlirBlockGetFirstOperation(blk) : mlirOperationGetNextInBlock(last);
  for (; !mlirOperationIsNull(op) && !found; op = mlirOperationGetNextInBlock(op))
    mlirOperationWalk(op, effect_walk, &found, MlirWalkPreOrder);
  return found;
}

/* An 'if' on the elements of tl.map_elementwise's operands (c a tile): both branches run, one
 * after the other, and each name they leave differently takes each element's value from the
 * branch its condition chose (tl.where) — early returns too ("@returned" becomes a tile, so
 * what follows runs under `if not @returned`, the same way, and "@retval" holds each
 * element's first returned value). A branch may not store, print or assert: both run. */
static void select_if(tc_cg *cg, const tc_stmt *s, tc_val c, bool wrapper) {
  tc_loc loc = s->u.if_.test ? s->u.if_.test->loc : s->loc;
  c = cg_to_bool(cg, c, loc);
  if (cg->err) return;
  MlirBlock blk = cg->b.block;
  MlirOperation last = {NULL}; /* the block's last op: what the branches add comes after it */
  for (MlirOperation op = mlirBlockGetFirstOperation(blk); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    last = op;
  snapshot before = snap(cg);
  snapshot after[2];
  const tc_block *bodies[2] = {&s->u.if_.body, &s->u.if_.orelse};
  tc_frame *fr = cg_frame(cg);
  for (int k = 0; k < 2; k++) {
    if (wrapper && k == 0) cg_bind(cg, RETURNED, tv_bool(false));
    fr->rt_if_depth++;
    cg_block(cg, bodies[k]);
    fr->rt_if_depth--;
    fr->returned = false; /* a return in the branch is in "@returned" */
    after[k] = snap(cg);
    restore(cg, &before);
  }
  if (!cg->err && cg->b.before.ptr == NULL && effects_after(blk, last))
    cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
             "tl.map_elementwise: a branch on the mapped elements stores, prints or asserts (tilec runs both branches "
             "and selects each element's values; only values may differ between them)");
  for (int k = 0; k < 2 && !cg->err; k++)
    for (int i = 0; i < after[k].n && !cg->err; i++) {
      const char *nm = after[k].vars[i].name;
      if (k == 1 && snap_get(&after[0], nm)) continue; /* merged with branch 0's */
      const tc_val *v0 = snap_get(&after[0], nm), *v1 = snap_get(&after[1], nm), *b = snap_get(&before, nm);
      tc_val f = tv_bool(false);
      bool ret = !strcmp(nm, RETURNED);
      if (!v0) v0 = ret ? &f : b ? b : v1; /* a name one branch did not touch or define */
      if (!v1) v1 = ret ? &f : b ? b : v0;
      if (!strcmp(nm, RETVAL) && v0->kind == TV_NONE) v0 = v1; /* no element returned there yet */
      if (!strcmp(nm, RETVAL) && v1->kind == TV_NONE) v1 = v0;
      if (same_val(v0, v1)) {
        cg_bind(cg, nm, *v0);
        continue;
      }
      if (!(v0->kind == TV_TENSOR || tv_is_number(v0)) || !(v1->kind == TV_TENSOR || tv_is_number(v1))) {
        char d0[64], d1[64];
        describe(v0, d0, sizeof d0);
        describe(v1, d1, sizeof d1);
        cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
                 "tl.map_elementwise: '%s' is %s in one branch and %s in the other of a condition on the mapped "
                 "elements; only numbers and tensors can be selected per element",
                 nm[0] == '@' ? "the return value" : nm, d0, d1);
        break;
      }
      tc_val w[3] = {c, *v0, *v1};
      tc_callargs ca = {.args = w, .nargs = 3};
      tc_val m = cg_call_builtin(cg, "tl.where", &ca, loc);
      if (!cg->err) cg_bind(cg, nm, m);
    }
  free(before.vars);
  free(after[0].vars);
  free(after[1].vars);
}

static void runtime_if(tc_cg *cg, const tc_stmt *s, tc_val c, bool wrapper) {
  if (cg->map_depth && c.kind == TV_TENSOR && c.rank > 0) {
    select_if(cg, s, c, wrapper);
    return;
  }
  int64_t numel = 1;
  for (int i = 0; c.kind == TV_TENSOR && i < c.rank; i++) numel *= c.shape[i];
  const tc_func *item = cg->prelude ? tc_module_find(cg->prelude, "_tensor_item") : NULL;
  if (c.kind == TV_TENSOR && c.rank && numel == 1 && item) { /* a tile of one element: its value (Triton's unsplat) */
    if (!wrapper && s->u.if_.test) {
      /* Triton names the condition as written: the text from it to the line's last ':' */
      size_t len = 0;
      const char *text = tc_module_line(cg_current_module(cg), s->u.if_.test->loc.line, &len);
      int from = s->u.if_.test->loc.col - 1, to = (int)len;
      while (to > from && text && text[to - 1] != ':') to--;
      while (to > from && text && (text[to - 1] == ':' || text[to - 1] == ' ')) to--;
      cg_warn(cg, s->u.if_.test->loc,
              "If conditional called with multidimensional Tensor instead of scalar; please use \"if (%.*s).item()\" "
              "instead",
              text && to > from ? to - from : 0, text ? text + from : "");
    }
    c = cg_call_jit(cg, item, &c, 1, NULL, NULL, 0, s->loc);
    if (cg->err) return;
  }
  if (c.kind != TV_TENSOR || c.rank != 0) {
    char d[64];
    describe(&c, d, sizeof d);
    cg_error(
        cg, s->u.if_.test ? s->u.if_.test->loc : s->loc, TILEC_ERROR_SEMANTIC,
        "Boolean value of Tensor with more than one value is ambiguous: an 'if' condition must be a scalar, got %s", d);
    return;
  }
  c = cg_to_bool(cg, c, s->loc);
  if (cg->err) return;
  tc_builder outer = cg->b;
  snapshot before = snap(cg);
  snapshot after[2];
  tc_builder ends[2];
  MlirBlock blocks[2];
  const tc_block *bodies[2] = {&s->u.if_.body, &s->u.if_.orelse};
  tc_frame *fr = cg_frame(cg);
  for (int k = 0; k < 2; k++) {
    blocks[k] = mlirBlockCreate(0, NULL, NULL);
    tcb_set_end(&cg->b, blocks[k]);
    if (wrapper && k == 0) cg_bind(cg, RETURNED, tv_bool(false));
    fr->rt_if_depth++;
    cg_block(cg, bodies[k]);
    fr->rt_if_depth--;
    fr->returned = false; /* a return in the branch is in "@returned" */
    ends[k] = cg->b;
    after[k] = snap(cg);
    restore(cg, &before);
  }
  cg->b = outer;
  merge_if(cg, s, c, wrapper, &before, after, ends, blocks);
}

/* The values leaving both branches of a runtime if become the scf.if's results. Not
 * inlined: its arrays of leaves are large, and runtime_if recurses (an elif chain is
 * an if nested in the else branch), so they must not sit in every level's frame. */
static __attribute__((noinline)) void merge_if(tc_cg *cg, const tc_stmt *s, tc_val c, bool wrapper, snapshot *before_p,
                                               snapshot after[2], tc_builder ends[2], MlirBlock blocks[2]) {
  snapshot before = *before_p;
  /* Names visible after the if: changed in a branch and defined before, or defined in
   * both. Structured values (tuples, block pointers) leave leaf by leaf. */
  names cand = {0};
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < after[k].n; i++) { /* what a branch left as it was is not a candidate */
      const char *nm = after[k].vars[i].name;
      const tc_val *b0 = snap_get(&before, nm), *a = snap_get(&after[k], nm);
      if (!b0 || !a || !same_val(b0, a)) add_name(&cand, nm);
    }
  const char *rnames[MAXN];
  tc_val templ[MAXN];
  int first[MAXN], nl[MAXN];
  if_leaf leaves[MAXL];
  int nnames = 0, nleaves = 0, nres = 0;
  for (int i = 0; i < cand.n && !cg->err; i++) {
    const tc_val *b0 = snap_get(&before, cand.v[i]);
    const tc_val *t = snap_get(&after[0], cand.v[i]), *e = snap_get(&after[1], cand.v[i]);
    tc_val tph, eph;
    if (wrapper && t && (!e || (cand.v[i][0] != '@' && types_differ(t, e)))) {
      /* the returned path never reads it: the rest of the block may define it, or give it
       * another type (`OUT = OUT + offs` after `if pid >= n: return`), as Triton's early
       * return (a branch out of the function, no merge) allows; not "@retval", which the
       * returned path holds */
      eph = placeholder_in(cg, &ends[1], t, s->loc);
      e = &eph;
    }
    if (t && e && !strcmp(cand.v[i], RETVAL) && (t->kind == TV_NONE) != (e->kind == TV_NONE)) {
      /* a path that has not returned carries a placeholder of the returned value's type */
      if (t->kind == TV_NONE) {
        tph = placeholder_in(cg, &ends[0], e, s->loc);
        t = &tph;
      } else {
        eph = placeholder_in(cg, &ends[1], t, s->loc);
        e = &eph;
      }
    }
    if (!t || !e) continue; /* defined in one branch only: not visible after */
    if (same_val(t, e)) {
      if (!b0 || !same_val(b0, t)) cg_bind(cg, cand.v[i], *t);
      continue;
    }
    tc_val ft[MAXL], fe[MAXL];
    int n = 0, m = 0;
    if (is_struct(t) || is_struct(e)) {
      if (t->kind != e->kind || count_leaves(t) != count_leaves(e)) {
        cg_error(cg, s->loc, TILEC_ERROR_SEMANTIC,
                 "'%s' has a different structure in the two branches of a runtime 'if'", cand.v[i]);
        break;
      }
      if (nleaves + count_leaves(t) > MAXL) {
        cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED, "too many values leave one 'if'");
        break;
      }
      flatten(t, ft, &n);
      flatten(e, fe, &m);
    } else {
      ft[0] = *t;
      fe[0] = *e;
      n = 1;
    }
    rnames[nnames] = cand.v[i];
    templ[nnames] = *t;
    first[nnames] = nleaves;
    nl[nnames] = n;
    for (int j = 0; j < n && !cg->err; j++) {
      if_leaf *l = &leaves[nleaves++];
      l->t = ft[j];
      l->e = fe[j];
      l->result = -1;
      if (same_val(&l->t, &l->e)) continue;
      if (!unify_leaf(cg, s, cand.v[i], &l->t, &l->e, ends)) break;
      l->result = nres++;
    }
    nnames++;
  }
  if (cand.overflow && !cg->err)
    cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED, "too many variables assigned in one 'if'");
  if (cg->err) {
    free(before.vars);
    free(after[0].vars);
    free(after[1].vars);
    mlirBlockDestroy(blocks[0]);
    mlirBlockDestroy(blocks[1]);
    return;
  }
  MlirType types[MAXL];
  MlirValue ys[MAXL];
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < nleaves; i++)
      if (leaves[i].result >= 0) ys[leaves[i].result] = (k ? leaves[i].e : leaves[i].t).v;
    tcb_op(&ends[k], "scf.yield", 0, NULL, nres, ys, 0, NULL);
  }
  for (int i = 0; i < nleaves; i++)
    if (leaves[i].result >= 0) types[leaves[i].result] = val_type(cg, &leaves[i].t);
  MlirRegion regions[2] = {mlirRegionCreate(), mlirRegionCreate()};
  mlirRegionAppendOwnedBlock(regions[0], blocks[0]);
  mlirRegionAppendOwnedBlock(regions[1], blocks[1]);
  cg_set_loc(cg, s->loc);
  MlirOperation op = tcb_op_regions(&cg->b, "scf.if", nres, types, 1, &c.v, 0, NULL, 2, regions);
  for (int i = 0; i < nnames; i++) {
    tc_val vals[MAXL];
    for (int j = 0; j < nl[i]; j++) {
      if_leaf *l = &leaves[first[i] + j];
      vals[j] = l->t;
      if (l->result >= 0) vals[j].v = mlirOperationGetResult(op, l->result);
    }
    int pos = 0;
    cg_bind(cg, rnames[i], nl[i] == 1 && !is_struct(&templ[i]) ? vals[0] : rebuild(cg, &templ[i], vals, &pos));
  }
  free(before.vars);
  free(after[0].vars);
  free(after[1].vars);
}

void cg_runtime_if(tc_cg *cg, const tc_stmt *s, tc_val c) { runtime_if(cg, s, c, false); }

/* ---- early returns --------------------------------------------------------------------- */

tc_val cg_returned_state(tc_cg *cg) {
  tc_val *r = cg_lookup(cg, RETURNED);
  return r ? *r : tv_none();
}

bool cg_maybe_returned_since(tc_cg *cg, const tc_val *before) {
  tc_val now = cg_returned_state(cg);
  return now.kind == TV_TENSOR && !same_val(&now, before);
}

void cg_rest_unless_returned(tc_cg *cg, const tc_block *blk, int from) {
  tc_val r = cg_returned_state(cg);
  tc_val go = cg_unary(cg, TC_UOP_NOT, r, blk->stmts[from]->loc);
  if (cg->err) return;
  tc_stmt syn = {0};
  syn.kind = TC_STMT_IF;
  syn.loc = blk->stmts[from]->loc;
  syn.u.if_.body.stmts = blk->stmts + from;
  syn.u.if_.body.nstmts = blk->nstmts - from;
  runtime_if(cg, &syn, go, true);
}

bool cg_runtime_result(tc_cg *cg, tc_val *out) {
  tc_val r = cg_returned_state(cg);
  if (r.kind != TV_TENSOR && !(r.kind == TV_BOOL && r.i)) return false;
  tc_val *v = cg_lookup(cg, RETVAL);
  *out = v ? *v : tv_none();
  return true;
}

/* ---- loops ----------------------------------------------------------------------------- */

/* A structured value (tuple, block pointer, descriptor) crosses a loop as its tensor
 * leaves; everything else in it must stay the same. */
static bool is_struct(const tc_val *v) { return v->kind == TV_TUPLE || v->kind == TV_BLOCKPTR || v->kind == TV_TDESC; }

static int count_leaves(const tc_val *v) {
  if (v->kind == TV_TENSOR || tv_is_number(v)) return 1;
  if (!is_struct(v)) return 0;
  int n = 0;
  for (int i = 0; i < v->nitems; i++) n += count_leaves(&v->items[i]);
  return n;
}

static void flatten(const tc_val *v, tc_val *out, int *n) {
  if (v->kind == TV_TENSOR || tv_is_number(v)) {
    out[(*n)++] = *v;
    return;
  }
  if (!is_struct(v)) return;
  for (int i = 0; i < v->nitems; i++) flatten(&v->items[i], out, n);
}

static tc_val rebuild(tc_cg *cg, const tc_val *templ, const tc_val *leaves, int *pos) {
  if (templ->kind == TV_TENSOR || tv_is_number(templ)) return leaves[(*pos)++];
  if (!is_struct(templ)) return *templ;
  tc_val r = *templ;
  r.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(templ->nitems + 1));
  for (int i = 0; i < templ->nitems; i++) r.items[i] = rebuild(cg, &templ->items[i], leaves, pos);
  return r;
}

typedef struct carried {
  const char *name;
  tc_val templ; /* structure before the loop */
  int first, n; /* its leaves in the flat list */
} carried;

typedef struct leaf {
  tc_val init; /* a tensor */
  bool from_number;
} leaf;

/* Names the body assigns that exist before the loop with tensor/number leaves. */
static int collect_carried(tc_cg *cg, const tc_block *body, const tc_expr *skip_target, carried *out, leaf *leaves,
                           int *nleaves, tc_loc loc) {
  names ns = {.defined_in = cg}; /* the body's own temporaries are not carried: not counted */
  assigned_in(&ns, body);
  names tgt = {0};
  if (skip_target) target_names(&tgt, skip_target);
  int n = 0;
  *nleaves = 0;
  for (int i = 0; i < ns.n; i++) {
    bool is_tgt = false;
    for (int k = 0; k < tgt.n; k++) is_tgt |= !strcmp(tgt.v[k], ns.v[i]);
    if (is_tgt) continue;
    tc_val *v = cg_lookup(cg, ns.v[i]);
    if (!v) continue;
    int c = count_leaves(v);
    if (!c) continue;
    if (*nleaves + c > MAXL) {
      cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "too many values carried by one loop");
      return 0;
    }
    tc_val flat[MAXL];
    int k = 0;
    flatten(v, flat, &k);
    out[n].name = ns.v[i];
    out[n].templ = *v;
    out[n].first = *nleaves;
    out[n].n = c;
    for (int j = 0; j < c; j++) {
      leaf *l = &leaves[(*nleaves)++];
      l->from_number = flat[j].kind != TV_TENSOR;
      l->init = l->from_number ? cg_to_tensor(cg, &flat[j], loc) : flat[j];
    }
    n++;
  }
  if (ns.overflow) cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "too many variables assigned in one loop");
  return n;
}

static void bind_leaves(tc_cg *cg, carried *cs, int n, const leaf *leaves, MlirValue (*get)(void *, int), void *ctx) {
  for (int i = 0; i < n; i++) {
    tc_val vals[MAXL];
    for (int j = 0; j < cs[i].n; j++) {
      vals[j] = leaves[cs[i].first + j].init;
      vals[j].v = get(ctx, cs[i].first + j);
    }
    int pos = 0;
    cg_bind(cg, cs[i].name, rebuild(cg, &cs[i].templ, vals, &pos));
  }
}

static MlirValue block_arg(void *ctx, int i) { return mlirBlockGetArgument(*(MlirBlock *)ctx, i + 1); }
static MlirValue block_arg0(void *ctx, int i) { return mlirBlockGetArgument(*(MlirBlock *)ctx, i); }
static MlirValue op_result(void *ctx, int i) { return mlirOperationGetResult(*(MlirOperation *)ctx, i); }

/* Yields of the body: converts numbers, checks types. Returns -1 on error, 1 when a
 * number-initialized leaf needs another attempt with a different type. */
static int body_yields(tc_cg *cg, carried *cs, int n, leaf *leaves, MlirValue *ys, tc_loc loc) {
  int retry = 0;
  for (int i = 0; i < n; i++) {
    tc_val *v = cg_lookup(cg, cs[i].name);
    if (!v) {
      cg_error(cg, loc, TILEC_ERROR_INTERNAL, "loop-carried '%s' vanished", cs[i].name);
      return -1;
    }
    if (count_leaves(v) != cs[i].n || (is_struct(v) != is_struct(&cs[i].templ))) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "loop-carried variable '%s' changes structure inside the loop",
               cs[i].name);
      return -1;
    }
    tc_val flat[MAXL];
    int k = 0;
    flatten(v, flat, &k);
    for (int j = 0; j < cs[i].n; j++) {
      leaf *l = &leaves[cs[i].first + j];
      tc_val y = flat[j];
      if (y.kind != TV_TENSOR) {
        y = cg_cast(cg, y, l->init.ty, false, loc);
        if (l->init.rank) y = cg_broadcast_to(cg, y, l->init.rank, l->init.shape, loc);
      }
      if (cg->err) return -1;
      if (!same_type(&y, &l->init)) {
        /* Triton fixes a loop-carried constexpr's type from its initial value too. */
        char a[64], b[64];
        describe(&l->init, a, sizeof a);
        describe(&y, b, sizeof b);
        cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                 "loop-carried variable '%s' has type %s before the loop but %s at the end of its body", cs[i].name, a,
                 b);
        return -1;
      }
      ys[cs[i].first + j] = y.v;
    }
  }
  return retry;
}

/* Re-makes number-initialized leaves with the type the body settled on. */
static void retype_numbers(tc_cg *cg, carried *cs, int n, leaf *leaves, const snapshot *before, tc_loc loc) {
  for (int i = 0; i < n; i++) {
    const tc_val *orig = snap_get(before, cs[i].name);
    tc_val flat[MAXL];
    int k = 0;
    flatten(orig, flat, &k);
    for (int j = 0; j < cs[i].n; j++) {
      leaf *l = &leaves[cs[i].first + j];
      if (l->from_number) l->init = cg_cast(cg, flat[j], l->init.ty, false, loc);
    }
  }
}

static tc_ty loop_index_type(const tc_val *b, int n) {
  tc_ty t = tc_ty_make(TILEC_DTYPE_I32);
  for (int i = 0; i < n; i++) {
    if (b[i].kind == TV_TENSOR && tc_ty_bits(b[i].ty) == 64) t = tc_ty_make(TILEC_DTYPE_I64);
    if (b[i].kind == TV_INT && (b[i].i < INT32_MIN || b[i].i > INT32_MAX)) t = tc_ty_make(TILEC_DTYPE_I64);
  }
  return t;
}

void cg_runtime_for(tc_cg *cg, const tc_stmt *s, const tc_val *bounds, int nb) {
  tc_loc loc = s->loc;
  int stages = cg->loop_stages; /* this loop's (loops in its body are built before it) */
  cg->loop_stages = 0;
  if (s->u.for_.orelse.nstmts) {
    cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "'for ... else' is not supported");
    return;
  }
  tc_val lbv = nb == 1 ? tv_int(0) : bounds[0], ubv = nb == 1 ? bounds[0] : bounds[1],
         stv = nb == 3 ? bounds[2] : tv_int(1);
  for (int i = 0; i < nb; i++)
    if (!(bounds[i].kind == TV_INT || bounds[i].kind == TV_BOOL ||
          (bounds[i].kind == TV_TENSOR && bounds[i].rank == 0 && tc_ty_is_int(bounds[i].ty)))) {
      cg_error(cg, s->u.for_.iter->loc, TILEC_ERROR_SEMANTIC, "range() bounds must be integer scalars");
      return;
    }
  if (stv.kind == TV_INT && stv.i == 0) {
    cg_error(cg, s->u.for_.iter->loc, TILEC_ERROR_SEMANTIC, "range() step must not be zero");
    return;
  }
  tc_val all[3] = {lbv, ubv, stv};
  tc_ty it = loop_index_type(all, 3);
  cg_set_loc(cg, loc);
  /* A negative constexpr step counts k = 0.. trips and recomputes i = lb + k * step. */
  bool reverse = stv.kind == TV_INT && stv.i < 0;
  tc_val lb = cg_cast(cg, lbv, it, false, loc), ub = cg_cast(cg, ubv, it, false, loc),
         st = cg_cast(cg, stv, it, false, loc);
  tc_val orig_lb = lb, orig_st = st;
  if (reverse) {
    tc_val span = cg_binary(cg, TC_OP_SUB, lb, ub, loc);
    tc_val neg = tv_int(-stv.i);
    tc_val trips = cg_binary(cg, TC_OP_FLOORDIV, cg_binary(cg, TC_OP_ADD, span, tv_int(-stv.i - 1), loc), neg, loc);
    trips = cg_minmax(cg, true, trips, tv_int(0), false, loc);
    lb = cg_cast(cg, tv_int(0), it, false, loc);
    ub = trips;
    st = cg_cast(cg, tv_int(1), it, false, loc);
  }
  if (cg->err) return;
  carried cs[MAXN];
  leaf leaves[MAXL];
  int nl = 0;
  int n = collect_carried(cg, &s->u.for_.body, s->u.for_.target, cs, leaves, &nl, loc);
  if (cg->err) return;
  tc_builder outer = cg->b;
  snapshot before = snap(cg);
  for (int attempt = 0; attempt < 2; attempt++) {
    MlirType types[MAXL + 1];
    MlirLocation locs[MAXL + 1];
    types[0] = tc_ty_mlir(cg->ctx, it);
    locs[0] = cg->b.loc;
    for (int i = 0; i < nl; i++) {
      types[i + 1] = val_type(cg, &leaves[i].init);
      locs[i + 1] = cg->b.loc;
    }
    MlirBlock body = mlirBlockCreate(nl + 1, types, locs);
    tcb_set_end(&cg->b, body);
    tc_val iv = tv_tensor(mlirBlockGetArgument(body, 0), it, 0, NULL);
    if (reverse) iv = cg_binary(cg, TC_OP_ADD, orig_lb, cg_binary(cg, TC_OP_MUL, iv, orig_st, loc), loc);
    cg_assign_target(cg, s->u.for_.target, iv);
    bind_leaves(cg, cs, n, leaves, block_arg, &body);
    cg_frame(cg)->loop_depth++;
    cg_block(cg, &s->u.for_.body);
    cg_frame(cg)->loop_depth--;
    MlirValue ys[MAXL];
    int r = cg->err ? -1 : body_yields(cg, cs, n, leaves, ys, loc);
    restore(cg, &before);
    if (r == 1 && attempt == 0) {
      mlirBlockDestroy(body);
      cg->b = outer;
      retype_numbers(cg, cs, n, leaves, &before, loc);
      outer = cg->b;
      continue;
    }
    if (r != 0) {
      if (r == 1) cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "a loop-carried variable changes type inside the loop");
      mlirBlockDestroy(body);
      cg->b = outer;
      break;
    }
    tcb_op(&cg->b, "scf.yield", 0, NULL, nl, ys, 0, NULL);
    cg->b = outer;
    MlirRegion region = mlirRegionCreate();
    mlirRegionAppendOwnedBlock(region, body);
    MlirValue ops[3 + MAXL] = {lb.v, ub.v, st.v};
    for (int i = 0; i < nl; i++) ops[3 + i] = leaves[i].init.v;
    cg_set_loc(cg, loc);
    MlirOperation op = tcb_op_regions(&cg->b, "scf.for", nl, types + 1, 3 + nl, ops, 0, NULL, 1, &region);
    if (stages)
      mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString(TILE_LOOP_STAGES_ATTR),
                                      mlirIntegerAttrGet(mlirIntegerTypeGet(cg->ctx, 32), stages));
    bind_leaves(cg, cs, n, leaves, op_result, &op);
    break;
  }
  free(before.vars);
}

void cg_while(tc_cg *cg, const tc_stmt *s) {
  tc_loc loc = s->loc;
  if (s->u.while_.orelse.nstmts) {
    cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "'while ... else' is not supported");
    return;
  }
  carried cs[MAXN];
  leaf leaves[MAXL];
  int nl = 0;
  int n = collect_carried(cg, &s->u.while_.body, NULL, cs, leaves, &nl, loc);
  if (cg->err) return;
  tc_builder outer = cg->b;
  snapshot before = snap(cg);
  for (int attempt = 0; attempt < 2; attempt++) {
    MlirType types[MAXL];
    MlirLocation locs[MAXL];
    for (int i = 0; i < nl; i++) {
      types[i] = val_type(cg, &leaves[i].init);
      locs[i] = cg->b.loc;
    }
    MlirBlock bb = mlirBlockCreate(nl, types, locs), ab = mlirBlockCreate(nl, types, locs);
    /* before: evaluate the condition with the carried values */
    tcb_set_end(&cg->b, bb);
    bind_leaves(cg, cs, n, leaves, block_arg0, &bb);
    tc_val c = cg_expr(cg, s->u.while_.test);
    if (!cg->err && (c.kind != TV_TENSOR || c.rank != 0)) {
      bool t;
      if (c.kind != TV_TENSOR && cg_truthy_constexpr(cg, &c, loc, &t))
        cg_error(cg, s->u.while_.test->loc, TILEC_ERROR_UNSUPPORTED,
                 "'while' needs a runtime condition (a constexpr condition would loop forever or never)");
      else cg_error(cg, s->u.while_.test->loc, TILEC_ERROR_SEMANTIC, "a 'while' condition must be a scalar");
    }
    if (!cg->err) c = cg_to_bool(cg, c, loc);
    if (!cg->err) {
      MlirValue cops[MAXL + 1] = {c.v};
      for (int i = 0; i < nl; i++) cops[1 + i] = mlirBlockGetArgument(bb, i);
      tcb_op(&cg->b, "scf.condition", 0, NULL, nl + 1, cops, 0, NULL);
    }
    restore(cg, &before);
    /* after: the body */
    tcb_set_end(&cg->b, ab);
    if (!cg->err) bind_leaves(cg, cs, n, leaves, block_arg0, &ab);
    cg_frame(cg)->loop_depth++;
    if (!cg->err) cg_block(cg, &s->u.while_.body);
    cg_frame(cg)->loop_depth--;
    MlirValue ys[MAXL];
    int r = cg->err ? -1 : body_yields(cg, cs, n, leaves, ys, loc);
    restore(cg, &before);
    if (r == 1 && attempt == 0) {
      mlirBlockDestroy(bb);
      mlirBlockDestroy(ab);
      cg->b = outer;
      retype_numbers(cg, cs, n, leaves, &before, loc);
      outer = cg->b;
      continue;
    }
    if (r != 0) {
      mlirBlockDestroy(bb);
      mlirBlockDestroy(ab);
      cg->b = outer;
      break;
    }
    tcb_op(&cg->b, "scf.yield", 0, NULL, nl, ys, 0, NULL);
    cg->b = outer;
    MlirRegion regions[2] = {mlirRegionCreate(), mlirRegionCreate()};
    mlirRegionAppendOwnedBlock(regions[0], bb);
    mlirRegionAppendOwnedBlock(regions[1], ab);
    MlirValue inits[MAXL];
    for (int i = 0; i < nl; i++) inits[i] = leaves[i].init.v;
    cg_set_loc(cg, loc);
    MlirOperation op = tcb_op_regions(&cg->b, "scf.while", nl, types, nl, inits, 0, NULL, 2, regions);
    bind_leaves(cg, cs, n, leaves, op_result, &op);
    break;
  }
  free(before.vars);
}
