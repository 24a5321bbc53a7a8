/* frontend/codegen.c — walks the AST of a specialized kernel and emits tile IR:
 * constexpr evaluation (Python semantics), scopes, inlined @triton.jit calls, statements.
 * In: a parsed module + specialization. Out: a func.func in the tile dialect. */
#include "frontend/cg.h"

#include "frontend/module_context.h"
#include "frontend/parser.h"
#include "frontend/signature.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ------------------------------------------------------------------------ */

tc_val tv_none(void) { return (tc_val){.kind = TV_NONE}; }
tc_val tv_int(int64_t i) { return (tc_val){.kind = TV_INT, .i = i}; }
tc_val tv_float(double f) { return (tc_val){.kind = TV_FLOAT, .f = f}; }
tc_val tv_bool(bool b) { return (tc_val){.kind = TV_BOOL, .i = b ? 1 : 0}; }
tc_val tv_str(const char *s, size_t n) { return (tc_val){.kind = TV_STR, .s = s, .slen = n}; }
tc_val tv_dtype(tc_ty t) {
  t.is_const = false; /* a dtype names a type; constness belongs to a value (a tl.const parameter) */
  return (tc_val){.kind = TV_DTYPE, .ty = t};
}

tc_val tv_tensor(MlirValue v, tc_ty ty, int rank, const int64_t *shape) {
  tc_val r = {.kind = TV_TENSOR, .v = v, .ty = ty, .rank = rank};
  for (int i = 0; i < rank; i++) r.shape[i] = shape[i];
  return r;
}

bool tv_is_constexpr(const tc_val *v) {
  return v->kind == TV_NONE || v->kind == TV_INT || v->kind == TV_FLOAT || v->kind == TV_BOOL || v->kind == TV_STR ||
         v->kind == TV_DTYPE;
}

bool cg_is_compile_time(const tc_val *v) {
  if (v->kind == TV_TUPLE) {
    for (int i = 0; i < v->nitems; i++)
      if (!cg_is_compile_time(&v->items[i])) return false;
    return true;
  }
  return tv_is_constexpr(v);
}

tc_val cg_constexpr_type_of(tc_cg *cg, const tc_val *v) {
  tc_val *self = cg_alloc(cg, sizeof *self);
  *self = *v;
  return (tc_val){.kind = TV_CONSTEXPR_OF, .self = self};
}

bool tv_is_number(const tc_val *v) { return v->kind == TV_INT || v->kind == TV_FLOAT || v->kind == TV_BOOL; }

const char *tv_kind_name(const tc_val *v) {
  switch (v->kind) {
    case TV_NONE: return "None";
    case TV_INT: return "int";
    case TV_FLOAT: return "float";
    case TV_BOOL: return "bool";
    case TV_STR: return "str";
    case TV_DTYPE: return "dtype";
    case TV_TUPLE: return "tuple";
    case TV_TENSOR: return v->rank ? "tensor" : "scalar";
    case TV_JITFN: return "function";
    case TV_MODULE: return "module";
    case TV_BUILTIN: return "builtin function";
    case TV_METHOD: return "method";
    case TV_CONSTEXPR_TYPE: return "tl.constexpr";
    case TV_SLICE: return "slice";
    case TV_BLOCKPTR: return "block pointer";
    case TV_TDESC: return "tensor descriptor";
    case TV_TUPLE_CLASS: return "NamedTuple class";
    case TV_CONSTEXPR_OF: return "constexpr_type";
    default: return "invalid value";
  }
}

void tv_describe(const tc_val *v, char *buf, size_t n) {
  if (v->kind == TV_TENSOR) {
    char t[16];
    tc_ty_name(v->ty, t, sizeof t);
    if (!v->rank) {
      snprintf(buf, n, "%s scalar", t);
      return;
    }
    int k = snprintf(buf, n, "%s[", t);
    for (int i = 0; i < v->rank && k > 0 && (size_t)k < n; i++)
      k += snprintf(buf + k, n - (size_t)k, "%s%lld", i ? ", " : "", (long long)v->shape[i]);
    if (k > 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, "]");
    return;
  }
  snprintf(buf, n, "%s", tv_kind_name(v));
}

/* ---- errors and helpers ------------------------------------------------------------ */

/* The module a frame's caller runs in (the frame's call_loc is there). */
static const tc_module *caller_module(const tc_cg *cg, int j) {
  return cg->frames[j - 1]->mod ? cg->frames[j - 1]->mod : cg->mod;
}

/* The status's frames: the function holding loc (frame `at`, in module m), then each
 * caller at its call site, up to the kernel; prelude frames are not the user's calls (a
 * combine function the prelude calls has the prelude's call site; its caller names the
 * kernel's). */
static void push_frames(tc_cg *cg, tilec_status *st, int at, const tc_module *m, tc_loc loc) {
  for (int j = at; j >= 0; j--) {
    const tc_frame *f = cg->frames[j];
    const tc_module *fm = f->mod ? f->mod : cg->mod;
    /* A constexpr function is Python that Triton calls like a tl.* function: its error is
     * the call's (TILEC_ORIGIN_BUILTIN), located at the call site. */
    if (f->pyfn && !tilec_status_frame_count(st)) tilec_status_set_origin(st, TILEC_ORIGIN_BUILTIN);
    if (f->fn && f->mod != cg->prelude && fm == m && !f->pyfn)
      tilec_status_push_frame(st, f->fn->name, fm->filename, f->fn->loc.line + fm->line_offset,
                              loc.line + m->line_offset, loc.col);
    if (j >= 1) {
      m = caller_module(cg, j);
      loc = f->call_loc;
    }
  }
}

/* Inside a tl.* function written in the kernel language (the prelude): the frame of its
 * outermost call, the one the user wrote (its call_loc is in the caller's module); else 0. */
static int outermost_prelude_frame(tc_cg *cg) {
  if (!cg->prelude || !cg->depth || cg_current_module(cg) != cg->prelude) return 0;
  int i = cg->depth - 1;
  while (i > 0 && cg->frames[i - 1]->mod == cg->prelude) i--;
  return i;
}

tc_val cg_error(tc_cg *cg, tc_loc loc, tilec_status_code code, const char *fmt, ...) {
  if (cg->err) return (tc_val){.kind = TV_INVALID};
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const tc_module *m = cg_current_module(cg);
  tilec_status_origin origin = cg->builtin_depth ? TILEC_ORIGIN_BUILTIN : TILEC_ORIGIN_LANGUAGE;
  /* An error inside a tl.* function written in the kernel language (the prelude) is
   * the caller's: locate it at the outermost prelude call. */
  int i = outermost_prelude_frame(cg);
  if (i > 0) {
    const tc_module *um = caller_module(cg, i);
    const char *fname = cg->frames[i]->fn->name;
    if (!strncmp(fname, "_tensor_", 8)) /* a tensor method the prelude writes (x.item()) */
      cg->err = tc_error_at(um, cg->frames[i]->call_loc, code, "in tensor.%s(): %s", fname + 8, msg);
    else cg->err = tc_error_at(um, cg->frames[i]->call_loc, code, "in tl.%s: %s", fname, msg);
    tilec_status_set_origin(cg->err, TILEC_ORIGIN_BUILTIN);
    push_frames(cg, cg->err, i - 1, um, cg->frames[i]->call_loc);
    return (tc_val){.kind = TV_INVALID};
  }
  /* inside @jit helpers: the calls that led here, innermost first (" (in f(), called at
   * k.py:12, in g(), called at k.py:30)"): a helper fails for one caller's arguments */
  char chain[512] = "";
  size_t k = 0;
  for (int j = cg->depth - 1; j >= 1 && k + 96 < sizeof chain; j--) {
    const tc_frame *f = cg->frames[j];
    const tc_module *cm = caller_module(cg, j);
    if (!f->fn || f->mod == cg->prelude || cm == cg->prelude) continue;
    const char *file = cm->filename ? cm->filename : "<string>", *slash = strrchr(file, '/');
    k += (size_t)snprintf(chain + k, sizeof chain - k, "%s %s(), called at %s:%d", k ? ", in" : " (in", f->fn->name,
                          slash ? slash + 1 : file, f->call_loc.line + cm->line_offset);
  }
  if (k) snprintf(chain + k, sizeof chain - k, ")");
  cg->err = tc_error_at(m, loc, code, "%s%s", msg, chain);
  tilec_status_set_origin(cg->err, origin);
  if (k) tilec_status_set_reason(cg->err, msg);
  if (m && cg->depth) push_frames(cg, cg->err, cg->depth - 1, m, loc); /* after the origin: it may change it */
  return (tc_val){.kind = TV_INVALID};
}

void cg_warn(tc_cg *cg, tc_loc loc, const char *fmt, ...) {
  if (!cg->info) return;
  const tc_module *m = cg_current_module(cg);
  int i = outermost_prelude_frame(cg); /* a tl.* function's: at the user's call */
  if (i > 0) {
    m = caller_module(cg, i);
    loc = cg->frames[i]->call_loc;
  }
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char *w = cg->info->warnings;
  size_t n = strlen(w);
  snprintf(w + n, sizeof cg->info->warnings - n, "%s:%d:%d: warning: %s\n", m && m->filename ? m->filename : "<string>",
           loc.line + (m ? m->line_offset : 0), loc.col, msg);
}

void cg_set_loc(tc_cg *cg, tc_loc loc) {
  const tc_module *m = cg_current_module(cg);
  /* prelude code keeps its caller's location: it is part of the tl.* call there */
  if (m == cg->prelude && cg->depth) return;
  cg->b.loc = mlirLocationFileLineColGet(cg->ctx, mlirStringRefCreateFromCString(m ? m->filename : cg->filename),
                                         (unsigned)(loc.line + (m ? m->line_offset : 0)), (unsigned)loc.col);
}

void *cg_alloc(tc_cg *cg, size_t n) { return tc_arena_alloc(cg->arena, n); }

tc_frame *cg_frame(tc_cg *cg) { return cg->frames[cg->depth - 1]; }

const tc_module *cg_current_module(tc_cg *cg) {
  return cg->depth && cg->frames[cg->depth - 1]->mod ? cg->frames[cg->depth - 1]->mod : cg->mod;
}

tc_val *cg_lookup(tc_cg *cg, const char *name) {
  tc_scope *s = &cg_frame(cg)->scope;
  for (int i = s->nvars - 1; i >= 0; i--)
    if (!strcmp(s->vars[i].name, name)) return &s->vars[i].val;
  return NULL;
}

void cg_bind(tc_cg *cg, const char *name, tc_val v) {
  tc_val *slot = cg_lookup(cg, name);
  if (slot) {
    *slot = v;
    return;
  }
  tc_scope *s = &cg_frame(cg)->scope;
  if (s->nvars == s->cap) {
    int cap = s->cap ? 2 * s->cap : 32;
    void *vars = realloc(s->vars, sizeof *s->vars * (size_t)cap);
    if (!vars) {
      cg_error(cg, (tc_loc){0, 0}, TILEC_ERROR_INTERNAL, "out of memory");
      return;
    }
    s->vars = vars;
    s->cap = cap;
  }
  s->vars[s->nvars].name = name;
  s->vars[s->nvars].val = v;
  s->nvars++;
}

bool cg_truthy_constexpr(tc_cg *cg, const tc_val *v, tc_loc loc, bool *out) {
  switch (v->kind) {
    case TV_NONE: *out = false; return true;
    case TV_INT:
    case TV_BOOL: *out = v->i != 0; return true;
    case TV_FLOAT: *out = v->f != 0.0; return true;
    case TV_STR: *out = v->slen != 0; return true;
    case TV_TUPLE: *out = v->nitems != 0; return true;
    case TV_DTYPE:
    case TV_JITFN:
    case TV_MODULE:
    case TV_BUILTIN: *out = true; return true;
    default: break;
  }
  (void)cg;
  (void)loc;
  return false;
}

/* ---- expressions ------------------------------------------------------------------- */

static tc_val eval_name(tc_cg *cg, const tc_expr *e) {
  tc_val *v = cg_lookup(cg, e->u.name);
  if (v) return *v;
  tc_val c;
  if (cg_frame(cg)->unit >= 0) {
    if (cg_context_name(cg, e->u.name, e->loc, &c)) return cg->err ? (tc_val){.kind = TV_INVALID} : c;
    return cg_error(cg, e->loc, TILEC_ERROR_SEMANTIC, "name '%s' is not defined", e->u.name);
  }
  const tc_func *fn = tc_module_find(cg_current_module(cg), e->u.name);
  if (fn) return (tc_val){.kind = TV_JITFN, .fn = fn};
  tc_val g;
  if (cg_global_name(cg, e->u.name, &g)) return g;
  return cg_error(cg, e->loc, TILEC_ERROR_SEMANTIC, "name '%s' is not defined", e->u.name);
}

tc_val cg_assigned_value(tc_cg *cg, tc_val v) {
  if (cg->depth && cg_frame(cg)->pyfn) return v; /* Python's values, not Triton's tensors */
  if (tv_is_number(&v)) {
    v.weak = true;
    return v;
  }
  if (v.kind != TV_TUPLE) return v;
  tc_val r = v;
  r.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(v.nitems + 1));
  for (int i = 0; i < v.nitems; i++) r.items[i] = cg_assigned_value(cg, v.items[i]);
  return r;
}

/* A binary operator: Python's arithmetic between constexprs, Triton's between tensors. A
 * number Triton holds as a tensor (weak: assigned to a name) computes as one, so
 * `a = 7` then `a // -2` is C's -3 and int32 arithmetic wraps. */
tc_val cg_binop(tc_cg *cg, tc_binop op, tc_val a, tc_val b, tc_loc loc) {
  cg_set_loc(cg, loc);
  if (tv_is_constexpr(&a) && tv_is_constexpr(&b)) {
    bool weak = (tv_is_number(&a) && a.weak) || (tv_is_number(&b) && b.weak);
    if (!weak || !tv_is_number(&a) || !tv_is_number(&b) || op == TC_OP_POW)
      return cg_constexpr_binary(cg, op, &a, &b, loc);
    if (a.weak) a = cg_to_tensor(cg, &a, loc);
    if (b.weak) b = cg_to_tensor(cg, &b, loc);
    if (cg->err) return a;
  }
  return cg_binary(cg, op, a, b, loc);
}

tc_val cg_value_attr(tc_cg *cg, tc_val base, const char *a, tc_loc loc) {
  /* methods and attributes of a number held as a tensor (`acc = 0` ... `acc.to(tl.int64)`) */
  if (tv_is_number(&base) && base.weak) base = cg_to_tensor(cg, &base, loc);
  if (cg->err) return base;
  /* Triton holds compile-time values (constexpr parameters, literals, constexpr globals) as
   * tl.constexpr objects, whose .value is the value itself (`dtype_ = dtype.value`) */
  if (!strcmp(a, "value") && (tv_is_constexpr(&base) || base.kind == TV_TUPLE)) return base;
  if (!strcmp(a, "type") && cg_is_compile_time(&base) && base.kind != TV_DTYPE) /* Triton: constexpr_type(value) */
    return cg_constexpr_type_of(cg, &base);
  switch (base.kind) {
    case TV_MODULE: return cg_module_attr(cg, &base, a, loc);
    case TV_BLOCKPTR:
      /* Triton <= 3.5 (and triton-cpu): a block pointer is a tensor of type
     * pointer_type(block_type(element, block_shape)); its dtype is that same pointer type */
      if (!strcmp(a, "type") || !strcmp(a, "dtype")) {
        tc_ty e = base.ty;
        e.ptr_depth--;
        e.is_const = false;
        tc_val t = tv_block_type(e, base.rank, base.shape);
        t.ptr_block = true;
        return t;
      }
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "a block pointer has no attribute '%s' (it has .type and .dtype)",
                      a);
    case TV_TENSOR: return cg_tensor_attr(cg, &base, a, loc);
    case TV_DTYPE: return cg_dtype_attr(cg, &base, a, loc);
    case TV_TDESC: return cg_tdesc_attr(cg, &base, a, loc);
    case TV_TUPLE:
      if (base.s) { /* a NamedTuple: its fields, "f0,f1,..." */
        size_t an = strlen(a);
        const char *f = base.s, *end = base.s + base.slen;
        for (int i = 0; f < end && i < base.nitems; i++) {
          const char *c = memchr(f, ',', (size_t)(end - f));
          size_t fn = c ? (size_t)(c - f) : (size_t)(end - f);
          if (fn == an && !memcmp(f, a, an)) return base.items[i];
          f += fn + 1;
        }
        return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "the NamedTuple (fields %.*s) has no attribute '%s'",
                        (int)base.slen, base.s, a);
      }
      break;
    default: break;
  }
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'%s' has no attribute '%s'", tv_kind_name(&base), a);
}

static tc_val eval_attribute(tc_cg *cg, const tc_expr *e) {
  tc_val base = cg_expr(cg, e->u.attr.value);
  if (cg->err) return base;
  return cg_value_attr(cg, base, e->u.attr.name, e->loc);
}

/* cls(...) for a NamedTuple class: positional and keyword arguments bound to its fields in
 * order (defaults fill the rest), Python's errors otherwise; a tuple with cls's fields. */
static tc_val make_named_tuple(tc_cg *cg, const tc_val *cls, const tc_callargs *a, tc_loc loc) {
  int nf = cls->nitems;
  const char *names[64];
  size_t lens[64];
  const char *p = cls->s, *end = cls->s + cls->slen;
  for (int i = 0; i < nf && i < 64; i++) {
    const char *c = memchr(p, ',', (size_t)(end - p));
    names[i] = p;
    lens[i] = (size_t)((c ? c : end) - p);
    p = c ? c + 1 : end;
  }
  if (nf > 64) return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "%s has more than 64 fields", cls->name);
  if (a->nargs > nf)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s.__new__() takes %d positional arguments but %d were given",
                    cls->name, nf + 1, a->nargs + 1);
  tc_val *items = cg_alloc(cg, sizeof(tc_val) * (size_t)(nf + 1));
  for (int i = 0; i < nf; i++) items[i] = i < a->nargs ? a->args[i] : (tc_val){.kind = TV_INVALID};
  for (int k = 0; k < a->nkw; k++) {
    int f = -1;
    for (int i = 0; i < nf && f < 0; i++)
      if (strlen(a->kwnames[k]) == lens[i] && !memcmp(a->kwnames[k], names[i], lens[i])) f = i;
    if (f < 0)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s.__new__() got an unexpected keyword argument '%s'", cls->name,
                      a->kwnames[k]);
    if (items[f].kind != TV_INVALID)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s.__new__() got multiple values for argument '%s'", cls->name,
                      a->kwnames[k]);
    items[f] = a->kwargs[k];
  }
  for (int i = 0; i < nf; i++) {
    if (items[i].kind != TV_INVALID) continue;
    if (cls->items[i].kind == TV_INVALID)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s.__new__() missing required argument '%.*s'", cls->name,
                      (int)lens[i], names[i]);
    items[i] = cls->items[i];
  }
  return (tc_val){.kind = TV_TUPLE, .items = items, .nitems = nf, .s = cls->s, .slen = cls->slen};
}

static tc_val eval_call(tc_cg *cg, const tc_expr *e) {
  tc_val callee = cg_expr(cg, e->u.call.func);
  if (cg->err) return callee;
  int n = e->u.call.nargs, nk = e->u.call.nkwargs;
  tc_callargs a;
  memset(&a, 0, sizeof a);
  a.args = cg_alloc(cg, sizeof(tc_val) * (size_t)(n + 1));
  a.kwargs = cg_alloc(cg, sizeof(tc_val) * (size_t)(nk + 1));
  a.kwnames = cg_alloc(cg, sizeof(char *) * (size_t)(nk + 1));
  int cap = n + 1;
  for (int i = 0; i < n; i++) {
    const tc_expr *x = e->u.call.args[i];
    if (x->kind == TC_EXPR_STARRED) { /* f(a, *t, b): t's items in its place */
      tc_val t = cg_expr(cg, x->u.starred.value);
      if (cg->err) return t;
      if (t.kind != TV_TUPLE) return cg_error(cg, x->loc, TILEC_ERROR_SEMANTIC, "only tuples can be unpacked with *");
      cap += t.nitems;
      tc_val *grown = cg_alloc(cg, sizeof(tc_val) * (size_t)cap);
      memcpy(grown, a.args, sizeof(tc_val) * (size_t)a.nargs);
      a.args = grown;
      for (int j = 0; j < t.nitems; j++) a.args[a.nargs++] = t.items[j];
      continue;
    }
    a.args[a.nargs++] = cg_expr(cg, x);
    if (cg->err) return a.args[a.nargs - 1];
  }
  for (int i = 0; i < nk; i++) {
    if (!e->u.call.kwargs[i].name)
      return cg_error(cg, e->u.call.kwargs[i].loc, TILEC_ERROR_UNSUPPORTED, "**kwargs in calls is not supported");
    a.kwnames[a.nkw] = e->u.call.kwargs[i].name;
    a.kwargs[a.nkw++] = cg_expr(cg, e->u.call.kwargs[i].value);
    if (cg->err) return a.kwargs[a.nkw - 1];
  }
  cg_set_loc(cg, e->loc);
  switch (callee.kind) {
    case TV_BUILTIN: return cg_call_builtin(cg, callee.name, &a, e->loc);
    case TV_METHOD: {
      if (callee.fn) { /* a tensor method the prelude writes (x.softmax()): the function with self first */
        tc_val *args = cg_alloc(cg, sizeof(tc_val) * (size_t)(a.nargs + 2));
        args[0] = *callee.self;
        for (int i = 0; i < a.nargs; i++) args[i + 1] = a.args[i];
        return cg_call_jit(cg, callee.fn, args, a.nargs + 1, a.kwnames, a.kwargs, a.nkw, e->loc);
      }
      tc_callargs m = a;
      m.args = cg_alloc(cg, sizeof(tc_val) * (size_t)(a.nargs + 1));
      m.args[0] = *callee.self;
      for (int i = 0; i < a.nargs; i++) m.args[i + 1] = a.args[i];
      m.nargs = a.nargs + 1;
      return cg_call_builtin(cg, callee.name, &m, e->loc);
    }
    case TV_JITFN: return cg_call_jit(cg, callee.fn, a.args, a.nargs, a.kwnames, a.kwargs, a.nkw, e->loc);
    case TV_TUPLE_CLASS: return make_named_tuple(cg, &callee, &a, e->loc);
    case TV_DTYPE:
      return cg_error(cg, e->loc, TILEC_ERROR_SEMANTIC, "dtypes are not callable: use x.to(dtype) to convert");
    case TV_CONSTEXPR_TYPE: /* tl.constexpr(v): v as a compile-time value */
      if (a.nargs != 1 || a.nkw || !(tv_is_constexpr(&a.args[0]) || a.args[0].kind == TV_TUPLE))
        return cg_error(cg, e->loc, TILEC_ERROR_SEMANTIC, "tl.constexpr() takes one compile-time value");
      return a.args[0];
    default: break;
  }
  return cg_error(cg, e->loc, TILEC_ERROR_SEMANTIC, "'%s' is not callable", tv_kind_name(&callee));
}

/* A slice's bound or step that is absent or None (`x[None:]` is `x[:]`). */
static bool slice_part_none(tc_cg *cg, const tc_expr *part) {
  if (!part) return true;
  tc_val v = cg_expr(cg, part);
  return !cg->err && v.kind == TV_NONE;
}

static tc_val eval_subscript(tc_cg *cg, const tc_expr *e) {
  tc_val base = cg_expr(cg, e->u.subscript.value);
  if (cg->err) return base;
  int n = e->u.subscript.nitems;
  if (base.kind == TV_TUPLE) {
    if (n != 1) return cg_error(cg, e->loc, TILEC_ERROR_SEMANTIC, "tuple index must be a single integer");
    if (e->u.subscript.items[0]->kind == TC_EXPR_SLICE) return cg_tuple_slice(cg, &base, e->u.subscript.items[0]);
    tc_val idx = cg_expr(cg, e->u.subscript.items[0]);
    if (cg->err) return idx;
    if (idx.kind != TV_INT)
      return cg_error(cg, e->loc, TILEC_ERROR_SEMANTIC, "tuple indices must be constexpr integers");
    int64_t i = idx.i < 0 ? idx.i + base.nitems : idx.i;
    if (i < 0 || i >= base.nitems) return cg_error(cg, e->loc, TILEC_ERROR_SEMANTIC, "tuple index out of range");
    return base.items[i];
  }
  if (base.kind != TV_TENSOR)
    return cg_error(cg, e->loc, TILEC_ERROR_SEMANTIC, "'%s' is not subscriptable", tv_kind_name(&base));
  /* Only `None` (new axis) and `:` (keep axis, its bounds and step absent or None) are valid
   * tensor indices in Triton. */
  int rank = 0, src = 0;
  int64_t shape[TC_MAX_RANK];
  for (int i = 0; i < n; i++) {
    const tc_expr *it = e->u.subscript.items[i];
    if (it->kind == TC_EXPR_NONE) {
      if (rank == TC_MAX_RANK)
        return cg_error(cg, it->loc, TILEC_ERROR_UNSUPPORTED, "tiles of rank > %d are not supported", TC_MAX_RANK);
      shape[rank++] = 1;
    } else if (it->kind == TC_EXPR_SLICE && slice_part_none(cg, it->u.slice.lower) &&
               slice_part_none(cg, it->u.slice.upper) && slice_part_none(cg, it->u.slice.step)) {
      if (src >= base.rank)
        return cg_error(cg, it->loc, TILEC_ERROR_SEMANTIC, "too many indices for a tile of rank %d", base.rank);
      shape[rank++] = base.shape[src++];
    } else {
      return cg_error(cg, it->loc, TILEC_ERROR_UNSUPPORTED, "unsupported tensor index: only None and ':' are allowed");
    }
  }
  while (src < base.rank && rank < TC_MAX_RANK) shape[rank++] = base.shape[src++];
  if (src < base.rank)
    return cg_error(cg, e->loc, TILEC_ERROR_UNSUPPORTED, "tiles of rank > %d are not supported", TC_MAX_RANK);
  if (rank == base.rank) return base;
  cg_set_loc(cg, e->loc);
  MlirType t = cg_tensor_type(cg, base.ty, rank, shape);
  MlirValue v = base.v;
  if (base.rank == 0) v = tile_build_splat(&cg->b, v, t);
  else v = tile_build_reshape(&cg->b, v, t);
  return tv_tensor(v, base.ty, rank, shape);
}

/* One comparison `a op b`. */
static tc_val compare_one(tc_cg *cg, tc_cmpop op, tc_val a, tc_val b, tc_loc loc) {
  if (op == TC_CMP_IS || op == TC_CMP_IS_NOT) {
    bool same;
    if (a.kind == TV_NONE || b.kind == TV_NONE) same = a.kind == b.kind;
    else if (a.kind == TV_DTYPE && b.kind == TV_DTYPE) same = tv_dtype_eq(&a, &b);
    else if (tv_is_constexpr(&a) && tv_is_constexpr(&b)) {
      tc_val r = cg_constexpr_compare(cg, TC_CMP_EQ, &a, &b, loc);
      same = r.kind == TV_BOOL && r.i;
    } else return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "'is' is only supported between compile-time values");
    return tv_bool(op == TC_CMP_IS ? same : !same);
  }
  if (op == TC_CMP_IN || op == TC_CMP_NOT_IN) {
    if (b.kind != TV_TUPLE || !tv_is_constexpr(&a))
      return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "'in' is only supported for constexpr values in tuples");
    bool found = false;
    for (int i = 0; i < b.nitems && !found; i++) {
      if (!tv_is_constexpr(&b.items[i])) continue;
      tc_val r = cg_constexpr_compare(cg, TC_CMP_EQ, &a, &b.items[i], loc);
      found = r.kind == TV_BOOL && r.i;
    }
    return tv_bool(op == TC_CMP_IN ? found : !found);
  }
  tc_val tr;
  if (cg_tuple_compare(cg, op, &a, &b, loc, &tr)) return tr;
  if (tv_is_constexpr(&a) && tv_is_constexpr(&b)) return cg_constexpr_compare(cg, op, &a, &b, loc);
  if ((a.kind == TV_CONSTEXPR_OF || b.kind == TV_CONSTEXPR_OF) && (op == TC_CMP_EQ || op == TC_CMP_NE))
    return tv_bool((a.kind == b.kind && tv_equal(&a, &b)) == (op == TC_CMP_EQ)); /* types: equal values */
  cg_set_loc(cg, loc);
  return cg_compare(cg, op, a, b, loc);
}

/* `a < b < c` is `(a < b) and (b < c)` with b evaluated once, as Triton 3.9 has it: a
 * compile-time false comparison ends the chain (later operands are not evaluated), true
 * ones drop out, the runtime ones are combined with logical and. */
static tc_val eval_compare(tc_cg *cg, const tc_expr *e) {
  tc_val lhs = cg_expr(cg, e->u.compare.operands[0]);
  if (cg->err) return lhs;
  tc_val acc = {0}, last = {0};
  bool have = false;
  for (int i = 0; i < e->u.compare.nops; i++) {
    tc_val rhs = cg_expr(cg, e->u.compare.operands[i + 1]);
    if (cg->err) return rhs;
    tc_val r = compare_one(cg, e->u.compare.ops[i], lhs, rhs, e->loc);
    if (cg->err) return r;
    last = r;
    bool t;
    if (r.kind != TV_TENSOR && cg_truthy_constexpr(cg, &r, e->loc, &t)) {
      if (!t) return r;
    } else {
      acc = have ? cg_logical(cg, true, acc, r, e->loc) : r;
      have = true;
    }
    lhs = rhs;
  }
  return have ? acc : last;
}

static tc_val eval_boolop(tc_cg *cg, const tc_expr *e) {
  bool is_and = e->u.boolop.op == TC_BOOL_AND;
  tc_val a = cg_expr(cg, e->u.boolop.lhs);
  if (cg->err) return a;
  bool t;
  if (a.kind != TV_TENSOR && cg_truthy_constexpr(cg, &a, e->loc, &t)) {
    /* Python short-circuit on compile-time values. */
    if (is_and ? !t : t) return a;
    return cg_expr(cg, e->u.boolop.rhs);
  }
  tc_val b = cg_expr(cg, e->u.boolop.rhs);
  if (cg->err) return b;
  if ((a.kind == TV_TENSOR && a.rank) || (b.kind == TV_TENSOR && b.rank))
    cg_warn(cg, e->loc,
            "Logical operators 'and' and 'or' are deprecated for non-scalar tensors; please use '&' or '|' instead");
  cg_set_loc(cg, e->loc);
  return cg_logical(cg, is_and, a, b, e->loc);
}

static tc_val eval_ifexp(tc_cg *cg, const tc_expr *e) {
  tc_val c = cg_expr(cg, e->u.ifexp.test);
  if (cg->err) return c;
  bool t;
  if (c.kind != TV_TENSOR && cg_truthy_constexpr(cg, &c, e->loc, &t))
    return cg_expr(cg, t ? e->u.ifexp.body : e->u.ifexp.orelse);
  if (c.kind == TV_TENSOR && c.rank == 0) {
    /* Only the taken branch runs, as in Triton (an scf.if): lowered as
     * `if c: @ifexp = body` / `else: @ifexp = orelse`, so loads, atomics and stores of the
     * other branch never happen and void branches (`tl.store(..) if c else tl.store(..)`)
     * are statements. The name is unique per expression (nested conditionals). */
    char *name = cg_alloc(cg, 40);
    snprintf(name, 40, "@ifexp%p", (const void *)e);
    tc_expr *target = cg_alloc(cg, sizeof *target);
    *target = (tc_expr){.kind = TC_EXPR_NAME, .loc = e->loc, .u.name = name};
    tc_expr **targets = cg_alloc(cg, sizeof *targets);
    targets[0] = target;
    tc_stmt *arms = cg_alloc(cg, 2 * sizeof *arms);
    tc_stmt **ptrs = cg_alloc(cg, 2 * sizeof *ptrs);
    for (int i = 0; i < 2; i++) {
      arms[i] = (tc_stmt){.kind = TC_STMT_ASSIGN, .loc = e->loc};
      arms[i].u.assign.targets = targets;
      arms[i].u.assign.ntargets = 1;
      arms[i].u.assign.value = i == 0 ? e->u.ifexp.body : e->u.ifexp.orelse;
      ptrs[i] = &arms[i];
    }
    tc_stmt syn = {.kind = TC_STMT_IF, .loc = e->loc};
    syn.u.if_.test = e->u.ifexp.test;
    syn.u.if_.body = (tc_block){ptrs, 1};
    syn.u.if_.orelse = (tc_block){ptrs + 1, 1};
    cg_runtime_if(cg, &syn, c);
    if (cg->err) return tv_none();
    tc_val *v = cg_lookup(cg, name);
    return v ? *v : tv_none();
  }
  return cg_error(cg, e->loc, TILEC_ERROR_SEMANTIC, "a conditional expression needs a scalar condition, got %s",
                  tv_kind_name(&c));
}

/* A comprehension's iterable: range / tl.range / tl.static_range with compile-time bounds is
 * the tuple of its integers (newer Triton's `[tl.load(p + i) for i in range(N)]`), anything
 * else its value. */
static tc_val comp_iterable(tc_cg *cg, const tc_expr *iter) {
  if (iter->kind != TC_EXPR_CALL) return cg_expr(cg, iter);
  tc_val fn = cg_expr(cg, iter->u.call.func);
  if (cg->err) return fn;
  if (fn.kind != TV_BUILTIN ||
      (strcmp(fn.name, "py.range") && strcmp(fn.name, "tl.range") && strcmp(fn.name, "tl.static_range")))
    return cg_expr(cg, iter);
  int n = iter->u.call.nargs;
  if (n < 1 || n > 3) return cg_error(cg, iter->loc, TILEC_ERROR_SEMANTIC, "range expects 1 to 3 arguments, got %d", n);
  int64_t b[3] = {0, 0, 1};
  for (int i = 0; i < n; i++) {
    tc_val v = cg_expr(cg, iter->u.call.args[i]);
    if (cg->err) return v;
    if (v.kind != TV_INT && v.kind != TV_BOOL)
      return cg_error(cg, iter->loc, TILEC_ERROR_SEMANTIC,
                      "a comprehension over range() needs compile-time integer bounds (it is unrolled), got %s",
                      tv_kind_name(&v));
    b[n == 1 ? 1 : i] = v.i;
  }
  for (int i = 0; i < iter->u.call.nkwargs; i++) {
    const char *kw = iter->u.call.kwargs[i].name;
    if (!kw || strcmp(kw, "step") || !strcmp(fn.name, "py.range")) continue;
    tc_val st = cg_expr(cg, iter->u.call.kwargs[i].value);
    if (cg->err) return st;
    if (st.kind != TV_INT)
      return cg_error(cg, iter->loc, TILEC_ERROR_SEMANTIC, "range step must be a constexpr integer");
    if (n == 1) b[0] = 0;
    b[2] = st.i;
  }
  if (b[2] == 0) return cg_error(cg, iter->loc, TILEC_ERROR_SEMANTIC, "range step must not be zero");
  int64_t trips = b[2] > 0 ? (b[1] - b[0] + b[2] - 1) / b[2] : (b[0] - b[1] - b[2] - 1) / (-b[2]);
  if (trips < 0) trips = 0;
  if (trips > 4096)
    return cg_error(cg, iter->loc, TILEC_ERROR_UNSUPPORTED,
                    "a comprehension over range() with more than 4096 items would unroll into too much code");
  tc_val t = {.kind = TV_TUPLE};
  t.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(trips + 1));
  for (int64_t i = b[0]; b[2] > 0 ? i < b[1] : i > b[1]; i += b[2]) t.items[t.nitems++] = tv_int(i);
  return t;
}

/* [elt for target in iter if cond ...] over a tuple (or a compile-time range), as Triton
 * compiles it: one element per item whose (compile-time) conditions hold, a tuple. The
 * target is the comprehension's own (Python 3): the names it binds are restored afterwards. */
static tc_val eval_listcomp(tc_cg *cg, const tc_expr *e) {
  tc_val it = comp_iterable(cg, e->u.comp.iter);
  if (cg->err) return it;
  if (it.kind != TV_TUPLE)
    return cg_error(cg, e->u.comp.iter->loc, TILEC_ERROR_UNSUPPORTED,
                    "only comprehensions over tuples are supported (Triton's rule; also range() with compile-time "
                    "bounds), got %s",
                    tv_kind_name(&it));
  tc_scope *sc = &cg_frame(cg)->scope;
  int saved_n = sc->nvars;
  tc_binding *saved = cg_alloc(cg, sizeof(tc_binding) * (size_t)(saved_n + 1));
  if (saved_n) memcpy(saved, sc->vars, sizeof(tc_binding) * (size_t)saved_n);
  tc_val r = {.kind = TV_TUPLE};
  r.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(it.nitems + 1));
  for (int i = 0; i < it.nitems && !cg->err; i++) {
    cg_assign_target(cg, e->u.comp.target, it.items[i]);
    bool keep = true;
    for (int c = 0; c < e->u.comp.nconds && keep && !cg->err; c++) {
      tc_val cv = cg_expr(cg, e->u.comp.conds[c]);
      if (!cg->err && !cg_truthy_constexpr(cg, &cv, e->u.comp.conds[c]->loc, &keep) && !cg->err)
        cg_error(cg, e->u.comp.conds[c]->loc, TILEC_ERROR_SEMANTIC,
                 "a comprehension's 'if' needs a compile-time condition");
    }
    if (keep && !cg->err) r.items[r.nitems++] = cg_expr(cg, e->u.comp.elt);
  }
  sc = &cg_frame(cg)->scope; /* bindings may have grown the array */
  if (saved_n) memcpy(sc->vars, saved, sizeof(tc_binding) * (size_t)saved_n);
  sc->nvars = saved_n;
  if (cg->err) return (tc_val){0};
  return r;
}

static tc_val eval_seq(tc_cg *cg, const tc_expr *e) {
  tc_val r = {.kind = TV_TUPLE};
  r.nitems = e->u.seq.nitems;
  r.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(r.nitems + 1));
  for (int i = 0; i < r.nitems; i++) {
    r.items[i] = cg_expr(cg, e->u.seq.items[i]);
    if (cg->err) return r.items[i];
  }
  return r;
}

/* f"...{x}...": a string made at compile time, as Triton's JoinedStr; each field must be a
 * compile-time value, formatted with Python's str (repr for !r, !a); format specs are
 * ignored, as Triton ignores them. */
static tc_val eval_fstring(tc_cg *cg, const tc_expr *e) {
  size_t cap = 256, len = 0;
  char *out = cg_alloc(cg, cap);
  for (int i = 0; i < e->u.fstr.nitems; i++) {
    const tc_expr *item = e->u.fstr.items[i];
    char buf[1024];
    const char *text = buf;
    size_t n;
    if (!e->u.fstr.convs[i]) {
      text = item->u.str.data;
      n = item->u.str.len;
    } else {
      tc_val v = cg_expr(cg, item);
      if (cg->err) return v;
      if (!tc_value_str(&v, e->u.fstr.convs[i], buf, sizeof buf))
        return cg_error(cg, item->loc, TILEC_ERROR_SEMANTIC,
                        "Cannot evaluate f-string containing non-constexpr conversion values, found conversion of "
                        "type %s",
                        tv_kind_name(&v));
      n = strlen(buf);
    }
    if (len + n + 1 > cap) {
      while (len + n + 1 > cap) cap *= 2;
      char *grown = cg_alloc(cg, cap);
      memcpy(grown, out, len);
      out = grown;
    }
    memcpy(out + len, text, n);
    len += n;
  }
  out[len] = 0;
  return tv_str(out, len);
}

tc_val cg_expr(tc_cg *cg, const tc_expr *e) {
  if (cg->err) return (tc_val){.kind = TV_INVALID};
  switch (e->kind) {
    case TC_EXPR_NAME: return eval_name(cg, e);
    case TC_EXPR_INT: {
      tc_val r = tv_int(e->u.int_value);
      r.u64 = e->int_u64;
      return r;
    }
    case TC_EXPR_FLOAT: return tv_float(e->u.float_value);
    case TC_EXPR_STRING: return tv_str(e->u.str.data, e->u.str.len);
    case TC_EXPR_BOOL: return tv_bool(e->u.int_value != 0);
    case TC_EXPR_NONE: return tv_none();
    case TC_EXPR_ATTRIBUTE: return eval_attribute(cg, e);
    case TC_EXPR_CALL: return eval_call(cg, e);
    case TC_EXPR_SUBSCRIPT: return eval_subscript(cg, e);
    case TC_EXPR_SLICE: return (tc_val){.kind = TV_SLICE};
    case TC_EXPR_BINOP: {
      tc_val a = cg_expr(cg, e->u.binop.lhs);
      if (cg->err) return a;
      tc_val b = cg_expr(cg, e->u.binop.rhs);
      if (cg->err) return b;
      tc_val tr;
      if (cg_tuple_binary(cg, e->u.binop.op, &a, &b, e->loc, &tr)) return tr;
      return cg_binop(cg, e->u.binop.op, a, b, e->loc);
    }
    case TC_EXPR_UNARY: {
      tc_val a = cg_expr(cg, e->u.unary.operand);
      if (cg->err) return a;
      cg_set_loc(cg, e->loc);
      return cg_unary(cg, e->u.unary.op, a, e->loc);
    }
    case TC_EXPR_BOOLOP: return eval_boolop(cg, e);
    case TC_EXPR_COMPARE: return eval_compare(cg, e);
    case TC_EXPR_IFEXP: return eval_ifexp(cg, e);
    case TC_EXPR_TUPLE:
    case TC_EXPR_LIST: return eval_seq(cg, e);
    case TC_EXPR_ELLIPSIS: return cg_error(cg, e->loc, TILEC_ERROR_UNSUPPORTED, "'...' is not supported in kernels");
    case TC_EXPR_STARRED:
      return cg_error(cg, e->loc, TILEC_ERROR_UNSUPPORTED, "starred expressions are not supported here");
    case TC_EXPR_LAMBDA:
      return cg_error(cg, e->loc, TILEC_ERROR_UNSUPPORTED, "lambda is not supported in @triton.jit functions");
    case TC_EXPR_LISTCOMP: return eval_listcomp(cg, e);
    case TC_EXPR_FSTRING: return eval_fstring(cg, e);
  }
  return cg_error(cg, e->loc, TILEC_ERROR_INTERNAL, "unknown expression kind");
}

/* ---- statements ------------------------------------------------------------------- */

/* `raise E(msg)` in a compile-time Python function (a constexpr function that refuses its
 * arguments): the compile stops with str(E(msg)), the message Triton's error carries. */
static void stmt_raise(tc_cg *cg, const tc_stmt *s) {
  const tc_expr *e = s->u.other.raised;
  const char *cls = e->kind == TC_EXPR_CALL && e->u.call.func->kind == TC_EXPR_NAME ? e->u.call.func->u.name
                    : e->kind == TC_EXPR_NAME                                       ? e->u.name
                                                                                    : "an exception";
  char text[1024] = "";
  if (e->kind == TC_EXPR_CALL && e->u.call.nargs >= 1) {
    tc_val m = cg_expr(cg, e->u.call.args[0]);
    if (cg->err) return;
    if (!tc_value_str(&m, 's', text, sizeof text)) snprintf(text, sizeof text, "(a %s)", tv_kind_name(&m));
  }
  if (text[0]) cg_error(cg, s->loc, TILEC_ERROR_SEMANTIC, "%s", text);
  else cg_error(cg, s->loc, TILEC_ERROR_SEMANTIC, "%s raised", cls);
}

void cg_assign_target(tc_cg *cg, const tc_expr *target, tc_val v) {
  if (cg->err) return;
  if (target->kind == TC_EXPR_NAME) {
    cg_bind(cg, target->u.name, v);
    return;
  }
  if (target->kind == TC_EXPR_TUPLE || target->kind == TC_EXPR_LIST) {
    if (v.kind != TV_TUPLE) { /* Triton's (and Python's) messages */
      cg_error(cg, target->loc, TILEC_ERROR_SEMANTIC, "cannot unpack non-iterable value (a %s into %d names)",
               tv_kind_name(&v), target->u.seq.nitems);
      return;
    }
    if (v.nitems > target->u.seq.nitems) {
      cg_error(cg, target->loc, TILEC_ERROR_SEMANTIC, "too many values to unpack (expected %d)", target->u.seq.nitems);
      return;
    }
    if (v.nitems < target->u.seq.nitems) {
      cg_error(cg, target->loc, TILEC_ERROR_SEMANTIC, "not enough values to unpack (expected %d, got %d)",
               target->u.seq.nitems, v.nitems);
      return;
    }
    for (int i = 0; i < v.nitems; i++) cg_assign_target(cg, target->u.seq.items[i], v.items[i]);
    return;
  }
  if (target->kind == TC_EXPR_SUBSCRIPT) {
    cg_error(cg, target->loc, TILEC_ERROR_UNSUPPORTED,
             "assignment to a tensor element is not supported (tiles are immutable)");
    return;
  }
  cg_error(cg, target->loc, TILEC_ERROR_UNSUPPORTED, "assignment to this target is not supported");
}

/* The truth of a condition in a compile-time Python function: a compile-time value. */
static bool pyfn_truth(tc_cg *cg, const tc_expr *test, const char *what, bool *t) {
  tc_val c = cg_expr(cg, test);
  if (cg->err) return false;
  if (c.kind != TV_TENSOR && cg_truthy_constexpr(cg, &c, test->loc, t)) return true;
  char d[64];
  tv_describe(&c, d, sizeof d);
  cg_error(cg, test->loc, TILEC_ERROR_SEMANTIC,
           "'%s' in constexpr function '%s' needs a compile-time condition, got %s (a constexpr function runs in "
           "Python when the kernel is compiled)",
           what, cg_frame(cg)->fn->name, d);
  return false;
}

static void stmt_if(tc_cg *cg, const tc_stmt *s) {
  bool t;
  if (cg_frame(cg)->pyfn) {
    if (pyfn_truth(cg, s->u.if_.test, "if", &t)) cg_block(cg, t ? &s->u.if_.body : &s->u.if_.orelse);
    return;
  }
  tc_val c = cg_expr(cg, s->u.if_.test);
  if (cg->err) return;
  if (c.kind != TV_TENSOR && cg_truthy_constexpr(cg, &c, s->loc, &t)) {
    cg_block(cg, t ? &s->u.if_.body : &s->u.if_.orelse);
    return;
  }
  cg_runtime_if(cg, s, c);
}

#define PYFN_MAX_TRIPS (1 << 20)

/* One trip of a compile-time loop's body; false when the loop ends (break, return, error). */
bool cg_pyfn_trip(tc_cg *cg, const tc_block *body) {
  tc_frame *f = cg_frame(cg);
  f->pyfn_loops++;
  cg_block(cg, body);
  f->pyfn_loops--;
  int ctl = f->loop_ctl;
  f->loop_ctl = 0;
  return !cg->err && !f->returned && ctl != 1;
}

/* `while` in a compile-time Python function: the test and the body run until the test is false. */
static void pyfn_while(tc_cg *cg, const tc_stmt *s) {
  if (s->u.while_.orelse.nstmts) {
    cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED, "'while ... else' is not supported");
    return;
  }
  for (long trips = 0;; trips++) {
    bool t;
    if (!pyfn_truth(cg, s->u.while_.test, "while", &t) || !t) return;
    if (trips == PYFN_MAX_TRIPS) {
      cg_error(cg, s->loc, TILEC_ERROR_SEMANTIC,
               "a 'while' loop in constexpr function '%s' ran %d times without ending", cg_frame(cg)->fn->name,
               PYFN_MAX_TRIPS);
      return;
    }
    if (!cg_pyfn_trip(cg, &s->u.while_.body)) return;
  }
}

static bool is_static_range(const tc_val *v) { return v->kind == TV_BUILTIN && !strcmp(v->name, "tl.static_range"); }

static void stmt_for(tc_cg *cg, const tc_stmt *s) {
  const tc_expr *it = s->u.for_.iter;
  if (it->kind != TC_EXPR_CALL) {
    /* a compile-time tuple (x.shape, a tuple constexpr, (a, b)) unrolls, as in Triton */
    tc_val t = cg_expr(cg, it);
    if (cg->err) return;
    if (t.kind == TV_TUPLE) {
      cg_for_tuple(cg, s, &t);
      return;
    }
    cg_error(cg, it->loc, TILEC_ERROR_UNSUPPORTED,
             "'for' loops must iterate over range, tl.range, tl.static_range or a tuple");
    return;
  }
  tc_val fn = cg_expr(cg, it->u.call.func);
  if (cg->err) return;
  bool is_range = fn.kind == TV_BUILTIN && (!strcmp(fn.name, "py.range") || !strcmp(fn.name, "tl.range"));
  if (!is_static_range(&fn) && !is_range) {
    cg_error(cg, it->loc, TILEC_ERROR_UNSUPPORTED, "'for' loops must iterate over range, tl.range or tl.static_range");
    return;
  }
  int64_t b[3] = {0, 0, 1};
  int n = it->u.call.nargs;
  if (n < 1 || n > 3) {
    cg_error(cg, it->loc, TILEC_ERROR_SEMANTIC, "range expects 1 to 3 arguments, got %d", n);
    return;
  }
  bool all_const = true;
  tc_val vals[3];
  for (int i = 0; i < n; i++) {
    vals[i] = cg_expr(cg, it->u.call.args[i]);
    if (cg->err) return;
  }
  /* tl.range(..., step=S) / tl.static_range(..., step=S); tl.range(..., num_stages=N) sets the
   * loop's depth of the GPU's tl.dot operand pipeline (TILE_LOOP_STAGES_ATTR); its other
   * keywords (loop_unroll_factor, flatten, warp_specialize, ...) are scheduling hints */
  int stages = 0;
  for (int i = 0; i < it->u.call.nkwargs; i++) {
    const char *kw = it->u.call.kwargs[i].name;
    if (kw && !strcmp(kw, "num_stages") && !strcmp(fn.name, "tl.range")) {
      tc_val ns = cg_expr(cg, it->u.call.kwargs[i].value);
      if (cg->err) return;
      if (ns.kind == TV_NONE) continue;
      if (ns.kind != TV_INT) {
        cg_error(cg, it->loc, TILEC_ERROR_SEMANTIC, "tl.range num_stages must be a constexpr integer");
        return;
      }
      stages = ns.i < 1 ? 1 : ns.i > 8 ? 8 : (int)ns.i; /* a hint, as in Triton: the pipeline's depth stops at 8 */
      continue;
    }
    if (!kw || strcmp(kw, "step") || !strcmp(fn.name, "py.range")) continue;
    tc_val st = cg_expr(cg, it->u.call.kwargs[i].value);
    if (cg->err) return;
    if (n == 1) {
      vals[1] = vals[0];
      vals[0] = tv_int(0);
    }
    vals[2] = st;
    n = 3;
  }
  for (int i = 0; i < n; i++)
    if (vals[i].kind != TV_INT && vals[i].kind != TV_BOOL) all_const = false;
  if (!all_const && cg_frame(cg)->pyfn) {
    cg_error(cg, it->loc, TILEC_ERROR_SEMANTIC, "range() in constexpr function '%s' needs compile-time integer bounds",
             cg_frame(cg)->fn->name);
    return;
  }
  if (!all_const) {
    if (is_static_range(&fn)) {
      cg_error(cg, it->loc, TILEC_ERROR_SEMANTIC, "tl.static_range bounds must be constexpr");
      return;
    }
    cg->loop_stages = stages;
    cg_runtime_for(cg, s, vals, n);
    return;
  }
  bool pyfn = cg_frame(cg)->pyfn;
  if (!is_static_range(&fn) && !pyfn) {
    /* range/tl.range stay loops (as in Triton); only tl.static_range unrolls. */
    cg->loop_stages = stages;
    cg_runtime_for(cg, s, vals, n);
    return;
  }
  if (n == 1) b[1] = vals[0].i;
  else {
    b[0] = vals[0].i;
    b[1] = vals[1].i;
    if (n == 3) b[2] = vals[2].i;
  }
  if (b[2] == 0) {
    cg_error(cg, it->loc, TILEC_ERROR_SEMANTIC, "range step must not be zero");
    return;
  }
  int64_t trips = b[2] > 0 ? (b[1] - b[0] + b[2] - 1) / b[2] : (b[0] - b[1] - b[2] - 1) / (-b[2]);
  if (pyfn) { /* Python's loop, at compile time: nothing is emitted per trip */
    if (trips > PYFN_MAX_TRIPS) {
      cg_error(cg, s->loc, TILEC_ERROR_SEMANTIC, "a 'for' loop in constexpr function '%s' would run %lld times",
               cg_frame(cg)->fn->name, (long long)trips);
      return;
    }
    if (s->u.for_.orelse.nstmts) {
      cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED, "'for ... else' is not supported");
      return;
    }
    for (int64_t i = b[0]; b[2] > 0 ? i < b[1] : i > b[1]; i += b[2]) {
      cg_assign_target(cg, s->u.for_.target, tv_int(i));
      if (cg->err || !cg_pyfn_trip(cg, &s->u.for_.body)) return;
    }
    return;
  }
  if (trips > 4096) {
    cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED,
             "tl.static_range with more than 4096 iterations would unroll into too much code; use range()");
    return;
  }
  if (s->u.for_.orelse.nstmts) {
    cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED, "'for ... else' is not supported");
    return;
  }
  for (int64_t i = b[0]; b[2] > 0 ? i < b[1] : i > b[1]; i += b[2]) {
    cg_assign_target(cg, s->u.for_.target, tv_int(i));
    cg_unrolled_body(cg, &s->u.for_.body, b[2] > 0 ? i + b[2] >= b[1] : i + b[2] <= b[1], s->loc);
    if (cg->err || cg_frame(cg)->returned) return;
  }
}

/* `assert cond, msg` is tl.device_assert(cond, msg), as in Triton: a constant condition too
 * (a False fails where it runs, with debug; compile-time checks are tl.static_assert). */
static void stmt_assert(tc_cg *cg, const tc_stmt *s) {
  tc_val c = cg_expr(cg, s->u.assert_.test);
  if (cg->err) return;
  const char *msg = "";
  size_t mlen = 0;
  if (s->u.assert_.msg) {
    tc_val m = cg_expr(cg, s->u.assert_.msg);
    if (cg->err) return;
    if (m.kind == TV_STR) {
      msg = m.s;
      mlen = m.slen;
    }
  }
  cg_device_assert(cg, c, msg, mlen, NULL, s->loc);
}

static void cg_stmt(tc_cg *cg, const tc_stmt *s) {
  cg_set_loc(cg, s->loc);
  switch (s->kind) {
    case TC_STMT_EXPR:
      if (s->u.expr.value->kind == TC_EXPR_STRING) return; /* docstring */
      cg_expr(cg, s->u.expr.value);
      return;
    case TC_STMT_ASSIGN: {
      tc_val v = cg_assigned_value(cg, cg_expr(cg, s->u.assign.value));
      for (int i = 0; i < s->u.assign.ntargets && !cg->err; i++) cg_assign_target(cg, s->u.assign.targets[i], v);
      return;
    }
    case TC_STMT_AUGASSIGN: {
      const tc_expr *t = s->u.augassign.target;
      if (t->kind != TC_EXPR_NAME) {
        cg_error(cg, t->loc, TILEC_ERROR_UNSUPPORTED, "augmented assignment is only supported on names");
        return;
      }
      tc_val a = cg_expr(cg, t);
      if (cg->err) return;
      tc_val b = cg_expr(cg, s->u.augassign.value);
      if (cg->err) return;
      tc_val r;
      if (!cg_tuple_binary(cg, s->u.augassign.op, &a, &b, s->loc, &r))
        r = cg_binop(cg, s->u.augassign.op, a, b, s->loc);
      if (!cg->err) cg_bind(cg, t->u.name, cg_assigned_value(cg, r));
      return;
    }
    case TC_STMT_ANNASSIGN: {
      if (!s->u.annassign.value) return;
      tc_val v = cg_expr(cg, s->u.annassign.value);
      if (!cg->err) cg_assign_target(cg, s->u.annassign.target, v);
      return;
    }
    case TC_STMT_RETURN: {
      tc_frame *f = cg_frame(cg);
      if (f->loop_depth) {
        cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED,
                 "Cannot have `return` statements inside `while` or `for` statements in triton");
        return;
      }
      tc_val v = s->u.ret.value ? cg_expr(cg, s->u.ret.value) : tv_none();
      if (cg->err) return;
      f->returned = true;   /* the rest of this block (up to a runtime 'if') is dead */
      if (f->rt_if_depth) { /* under a runtime condition: see control.c */
        cg_bind(cg, "@returned", tv_bool(true));
        cg_bind(cg, "@retval", v);
        f->ret_loc = s->loc;
        return;
      }
      f->ret = v;
      f->has_ret = true;
      return;
    }
    case TC_STMT_IF: stmt_if(cg, s); return;
    case TC_STMT_FOR: stmt_for(cg, s); return;
    case TC_STMT_WHILE:
      if (cg_frame(cg)->pyfn) pyfn_while(cg, s);
      else cg_while(cg, s);
      return;
    case TC_STMT_PASS: return;
    case TC_STMT_BREAK:
    case TC_STMT_CONTINUE:
      if (cg_frame(cg)->pyfn && cg_frame(cg)->pyfn_loops) {
        cg_frame(cg)->loop_ctl = s->kind == TC_STMT_BREAK ? 1 : 2;
        return;
      }
      cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED, "'%s' is not supported in kernels",
               s->kind == TC_STMT_BREAK ? "break" : "continue");
      return;
    case TC_STMT_ASSERT: stmt_assert(cg, s); return;
    case TC_STMT_DEF:
      cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED,
               "nested function definitions are not supported in @triton.jit functions");
      return;
    case TC_STMT_OTHER:
      if (cg_frame(cg)->pyfn && s->u.other.raised) {
        stmt_raise(cg, s);
        return;
      }
      cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED, "%s is not supported in @triton.jit functions", s->u.other.what);
      return;
    case TC_STMT_IMPORT:
    case TC_STMT_TRY:
    case TC_STMT_CLASS: /* module level only */
      cg_error(cg, s->loc, TILEC_ERROR_UNSUPPORTED, "%s is not supported in @triton.jit functions",
               s->kind == TC_STMT_IMPORT ? "import statement"
               : s->kind == TC_STMT_TRY  ? "try statement"
                                         : "class definition");
      return;
  }
}

void cg_block(tc_cg *cg, const tc_block *blk) {
  for (int i = 0; i < blk->nstmts; i++) {
    if (cg->err || cg_frame(cg)->returned || cg_frame(cg)->loop_ctl) return;
    tc_val before = cg_returned_state(cg);
    cg_stmt(cg, blk->stmts[i]);
    if (cg->err || cg_frame(cg)->returned) return;
    tc_val now = cg_returned_state(cg);
    if (now.kind == TV_BOOL && now.i && !(before.kind == TV_BOOL && before.i)) {
      cg_frame(cg)->returned = true; /* every path of the statement returned */
      return;
    }
    if (i + 1 < blk->nstmts && cg_maybe_returned_since(cg, &before)) {
      /* a runtime 'if' may have returned: the rest runs only where it did not */
      cg_rest_unless_returned(cg, blk, i + 1);
      return;
    }
  }
}

/* A static loop (tl.static_range, a tuple) unrolls: a return under a runtime condition in
 * one iteration would have to guard the later ones, which is not done. */
void cg_unrolled_body(tc_cg *cg, const tc_block *body, bool last, tc_loc loc) {
  tc_val before = cg_returned_state(cg);
  cg_frame(cg)->unroll_depth++;
  cg_block(cg, body);
  cg_frame(cg)->unroll_depth--;
  if (!cg->err && !last && !cg_frame(cg)->returned && cg_maybe_returned_since(cg, &before))
    cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
             "a 'return' under a runtime condition inside an unrolled loop (tl.static_range or a tuple) is not "
             "supported; use a runtime loop with a mask, or move the return out of the loop");
}

/* ---- calls ------------------------------------------------------------------------------ */

static bool push_frame(tc_cg *cg, const tc_func *fn, tc_loc loc) {
  for (int i = 0; i < cg->depth && !fn->is_pyfn; i++) /* Python functions may recurse */
    if (cg->frames[i]->fn == fn) {
      cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "recursive call to '%s' is not supported (jit functions are inlined)",
               fn->name);
      return false;
    }
  if (cg->depth == 64) {
    cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "jit functions nested too deeply");
    return false;
  }
  tc_frame *f = calloc(1, sizeof *f);
  if (!f) {
    cg_error(cg, loc, TILEC_ERROR_INTERNAL, "out of memory");
    return false;
  }
  f->fn = fn;
  f->call_loc = loc;
  f->pyfn = fn->is_pyfn;
  f->unit = tc_mctx_unit_of(cg->mctx, fn);
  f->mod = f->unit >= 0 ? tc_mctx_unit_module(cg->mctx, f->unit) : cg->prelude;
  cg->frames[cg->depth++] = f;
  /* nothing has returned yet (see the early returns in control.c) */
  cg_bind(cg, "@returned", tv_bool(false));
  cg_bind(cg, "@retval", tv_none());
  return true;
}

static void pop_frame(tc_cg *cg) {
  tc_frame *f = cg->frames[--cg->depth];
  free(f->scope.vars);
  free(f);
}

tc_val cg_call_jit(tc_cg *cg, const tc_func *fn, const tc_val *args, int nargs, const char *const *kwnames,
                   const tc_val *kwargs, int nkw, tc_loc loc) {
  if (nargs > fn->nparams)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'%s' takes %d arguments but %d were given", fn->name, fn->nparams,
                    nargs);
  tc_val *bound = calloc((size_t)fn->nparams + 1, sizeof *bound);
  if (!bound) return cg_error(cg, loc, TILEC_ERROR_INTERNAL, "out of memory");
  for (int i = 0; i < nargs; i++) bound[i] = args[i];
  for (int k = 0; k < nkw; k++) {
    int j = -1;
    for (int i = 0; i < fn->nparams; i++)
      if (!strcmp(fn->params[i].name, kwnames[k])) j = i;
    if (j < 0) {
      free(bound);
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'%s' got an unexpected keyword argument '%s'", fn->name,
                      kwnames[k]);
    }
    if (bound[j].kind != TV_INVALID) {
      free(bound);
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'%s' got multiple values for argument '%s'", fn->name,
                      kwnames[k]);
    }
    bound[j] = kwargs[k];
  }
  if (!push_frame(cg, fn, loc)) {
    free(bound);
    return (tc_val){.kind = TV_INVALID};
  }
  for (int i = 0; i < fn->nparams && !cg->err; i++) {
    if (fn->params[i].is_star) {
      cg_error(cg, fn->params[i].loc, TILEC_ERROR_UNSUPPORTED, "*args parameters are not supported");
      break;
    }
    if (bound[i].kind == TV_INVALID) {
      if (!fn->params[i].default_value) {
        cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'%s' missing required argument '%s'", fn->name, fn->params[i].name);
        break;
      }
      /* Defaults are evaluated in the callee's (empty) scope: they are constants, and may
       * read plain module globals (Python evaluated them when the def ran). */
      bool was = cg->in_default;
      cg->in_default = true;
      bound[i] = cg_expr(cg, fn->params[i].default_value);
      cg->in_default = was;
    }
    cg_bind(cg, fn->params[i].name, bound[i]);
  }
  free(bound);
  /* a @jit function a builtin calls (a combine_fn) has the language's errors, not the builtin's */
  int builtin_depth = cg->builtin_depth;
  cg->builtin_depth = 0;
  if (!cg->err) cg_block(cg, &fn->body);
  cg->builtin_depth = builtin_depth;
  tc_frame *f = cg_frame(cg);
  tc_val r = f->has_ret ? f->ret : tv_none();
  if (!cg->err) cg_runtime_result(cg, &r);
  pop_frame(cg);
  return r;
}

/* ---- entry point ----------------------------------------------------------------------- */

static MlirAttribute arg_attrs(tc_cg *cg, const tc_kernel_info *info) {
  MlirAttribute dicts[TC_MAX_PARAMS];
  int n = 0;
  for (int i = 0; i < info->nparams; i++) {
    const tc_kernel_param *p = &info->params[i];
    if (p->kind == TILEC_PARAM_CONSTEXPR) continue;
    if (p->divisibility > 1) {
      MlirNamedAttribute na =
          tcb_named(cg->ctx, "tile.divisibility", mlirIntegerAttrGet(mlirIntegerTypeGet(cg->ctx, 32), p->divisibility));
      dicts[n++] = mlirDictionaryAttrGet(cg->ctx, 1, &na);
    } else if (p->kind == TILEC_PARAM_TENSORDESC) {
      /* the lowering passes it by value on GPUs (conversion/lower.c, lower_func) */
      MlirNamedAttribute na = tcb_named(cg->ctx, "tile.tensordesc", mlirUnitAttrGet(cg->ctx));
      dicts[n++] = mlirDictionaryAttrGet(cg->ctx, 1, &na);
    } else {
      dicts[n++] = mlirDictionaryAttrGet(cg->ctx, 0, NULL);
    }
  }
  return mlirArrayAttrGet(cg->ctx, n, dicts);
}

/* A parameter default that is not a literal, or a global an "@NAME" argument names, in fn's
 * module context (tc_specialize). */
static tilec_status *eval_default(void *ctx, const tc_func *fn, const tc_expr *e, tc_val *out) {
  tc_cg *cg = ctx;
  /* nothing should be emitted, but whatever is goes into a block that is thrown away */
  MlirBlock scratch = mlirBlockCreate(0, NULL, NULL);
  tcb_set_end(&cg->b, scratch);
  if (push_frame(cg, fn, e->loc)) {
    cg->in_default = true;
    *out = cg_expr(cg, e);
    cg->in_default = false;
    if (!cg->err && !tv_is_constexpr(out) && out->kind != TV_TUPLE && out->kind != TV_JITFN && out->kind != TV_BUILTIN)
      cg_error(cg, e->loc, TILEC_ERROR_SEMANTIC, "a parameter default must be a compile-time value, got %s",
               tv_kind_name(out));
    pop_frame(cg);
  }
  mlirBlockDestroy(scratch);
  tilec_status *st = cg->err;
  cg->err = NULL;
  return st;
}

/* A runtime parameter's value: the next block argument (a tensor descriptor's slots read). */
static tc_val bind_param(tc_cg *cg, const tc_kernel_param *p, MlirBlock body, int *a, const tc_expr *annotation,
                         tc_loc loc) {
  if (p->kind == TILEC_PARAM_TENSORDESC) {
    tc_val slots = tv_tensor(mlirBlockGetArgument(body, (*a)++), (tc_ty){TILEC_DTYPE_I64, 1, false}, 0, NULL);
    return cg_tdesc_from_arg(cg, slots, tc_ty_make(p->dtype), p->desc_rank, p->desc_block, loc);
  }
  tc_ty t = {p->dtype, p->pointer_depth, p->pointer_depth > 0 && tc_param_is_const_annotation(annotation)};
  return tv_tensor(mlirBlockGetArgument(body, (*a)++), t, 0, NULL);
}

/* A runtime tuple parameter (tc_specialize): its elements in order, each runtime one the next
 * kernel parameter; a NamedTuple keeps its field names. */
static tc_val bind_tuple(tc_cg *cg, const tc_kernel_info *info, MlirBlock body, const tc_val *t, int *a, int *k,
                         tc_loc loc) {
  if (t->kind == TV_INVALID) return bind_param(cg, &info->params[(*k)++], body, a, NULL, loc);
  if (t->kind != TV_TUPLE) return *t;
  tc_val r = *t;
  r.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(t->nitems + 1));
  for (int i = 0; i < t->nitems; i++) r.items[i] = bind_tuple(cg, info, body, &t->items[i], a, k, loc);
  return r;
}

tilec_status *tc_frontend_compile(MlirContext ctx, const tilec_kernel_spec *spec, MlirModule *out,
                                  tc_kernel_info *info) {
  tc_module *mod = NULL;
  const char *filename = spec->filename ? spec->filename : "<string>";
  size_t len = spec->source_len ? spec->source_len : strlen(spec->source);
  bool functions_only = spec->source_kind == TILEC_SOURCE_FUNCTIONS;
  tc_parse_options po = {.functions_only = functions_only, .first_line = spec->first_line};
  tilec_status *st = tc_parse_module_opts(filename, spec->source, len, &po, &mod);
  if (st) return st;
  const tc_func *fn = tc_module_find(mod, spec->kernel);
  if (!fn) {
    char names[512] = "";
    size_t k = 0;
    for (int i = 0; i < mod->nfuncs && k + 2 < sizeof names; i++)
      k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", i ? ", " : "", mod->funcs[i]->name);
    const char *what = functions_only ? "function" : "@triton.jit function";
    st = tilec_status_create(TILEC_ERROR_NOT_FOUND, "%s: no %s named '%s'%s%s%s%s", filename, what, spec->kernel,
                             mod->nfuncs      ? " (found: "
                             : functions_only ? " (the source has no "
                                              : " (the file has no ",
                             mod->nfuncs ? "" : what, mod->nfuncs ? names : "s", ")");
    tc_module_destroy(mod);
    return st;
  }
  extern const char tilec_embedded_prelude[];
  tc_module *prelude = NULL;
  st = tc_parse_module("<tilec prelude>", tilec_embedded_prelude, strlen(tilec_embedded_prelude), &prelude);
  if (st) {
    tc_module_destroy(mod);
    return tilec_status_annotate(st, "internal error in the tilec prelude");
  }
  tc_cg cg;
  memset(&cg, 0, sizeof cg);
  cg.ctx = ctx;
  cg.mod = mod;
  cg.prelude = prelude;
  cg.info = info;
  cg.filename = filename;
  cg.arena = tc_arena_create();
  cg.mctx = tc_mctx_create(cg.arena, spec, mod);
  tcb_init(&cg.b, ctx);
  cg_set_loc(&cg, fn->loc);
  tc_val *param_vals = calloc(TC_MAX_PARAMS, sizeof *param_vals);
  st = param_vals && cg.mctx ? NULL : tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  if (!st) st = tc_specialize(mod, fn, spec, info, param_vals, cg.arena, eval_default, &cg);
  if (st) {
    free(param_vals);
    tc_mctx_destroy(cg.mctx);
    tc_arena_destroy(cg.arena);
    tc_module_destroy(prelude);
    tc_module_destroy(mod);
    return st;
  }
  cg_set_loc(&cg, fn->loc);

  /* The kernel function: runtime parameters only, in order. */
  MlirType types[TC_MAX_PARAMS];
  MlirLocation locs[TC_MAX_PARAMS];
  int nargs = 0;
  for (int i = 0; i < info->nparams; i++) {
    const tc_kernel_param *p = &info->params[i];
    if (p->kind == TILEC_PARAM_CONSTEXPR) continue;
    tc_ty t = {p->dtype, p->pointer_depth, false};
    /* a tensor descriptor arrives as a pointer to its tilec_tensor_descriptor (i64 slots) */
    if (p->kind == TILEC_PARAM_TENSORDESC) t = (tc_ty){TILEC_DTYPE_I64, 1, false};
    types[nargs] = tc_ty_mlir(ctx, t);
    locs[nargs] = cg.b.loc;
    nargs++;
  }
  MlirModule m = mlirModuleCreateEmpty(cg.b.loc);
  MlirBlock body = mlirBlockCreate(nargs, types, locs);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  MlirType ftype = mlirFunctionTypeGet(ctx, nargs, types, 0, NULL);
  MlirNamedAttribute fattrs[3] = {
      tcb_named(ctx, "sym_name", mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(fn->name))),
      tcb_named(ctx, "function_type", mlirTypeAttrGet(ftype)), tcb_named(ctx, "arg_attrs", arg_attrs(&cg, info))};
  tcb_set_end(&cg.b, mlirModuleGetBody(m));
  cg.func = tcb_op_regions(&cg.b, "func.func", 0, NULL, 0, NULL, 3, fattrs, 1, &region);
  tcb_set_end(&cg.b, body);

  push_frame(&cg, fn, fn->loc);
  int a = 0, k = 0; /* the next block argument and kernel parameter */
  for (int i = 0; i < fn->nparams; i++) {
    if (tc_tuple_param_leaf(&param_vals[i])) { /* a runtime tuple: its elements are parameters */
      cg_bind(&cg, fn->params[i].name, bind_tuple(&cg, info, body, &param_vals[i], &a, &k, fn->loc));
      continue;
    }
    const tc_kernel_param *p = &info->params[k++];
    if (p->kind == TILEC_PARAM_CONSTEXPR) cg_bind(&cg, fn->params[i].name, param_vals[i]);
    else cg_bind(&cg, fn->params[i].name, bind_param(&cg, p, body, &a, fn->params[i].annotation, fn->loc));
  }
  cg_block(&cg, &fn->body);
  tc_val kret = cg_frame(&cg)->has_ret ? cg_frame(&cg)->ret : tv_none();
  if (!cg.err) cg_runtime_result(&cg, &kret);
  if (!cg.err && kret.kind != TV_NONE) cg_error(&cg, fn->loc, TILEC_ERROR_SEMANTIC, "a kernel cannot return a value");
  pop_frame(&cg);
  cg_set_loc(&cg, fn->loc);
  tcb_op(&cg.b, "func.return", 0, NULL, 0, NULL, 0, NULL);
  st = cg.err;
  info->uses_assert = cg.uses_assert;
  if (!st) {
    st = tile_verify(mlirModuleGetOperation(m));
    if (st) st = tilec_status_annotate(st, "the front end produced invalid tile IR for '%s'", fn->name);
  }
  tc_mctx_destroy(cg.mctx);
  tc_arena_destroy(cg.arena);
  free(param_vals);
  tc_module_destroy(prelude);
  tc_module_destroy(mod);
  if (st) {
    mlirModuleDestroy(m);
    return st;
  }
  *out = m;
  return NULL;
}
