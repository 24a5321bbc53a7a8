/* frontend/module_context.c — the module context of kernels: the names a kernel resolves
 * outside its own body. Triton resolves them through the function's Python globals and allows
 * constexpr objects, dtypes, modules, triton.language objects and @jit functions; any other
 * global is refused ("Cannot access global variable ...") except in parameter defaults or with
 * TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1. In: tilec_global entries (the Python package) and the
 * module-level statements of each source (imports, `X = tl.constexpr(...)`, `DT = tl.float16`,
 * try/except ImportError, if, sibling .py files). Out: values, or located errors saying why. */
#include "frontend/module_context.h"

#include "frontend/diag.h"
#include "frontend/parser.h"
#include "frontend/signature.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- data -------------------------------------------------------------------------- */

typedef enum dkind {
  D_VALUE, /* a value Triton lets kernels read: constexpr object, dtype, module, tl object, jit fn */
  D_PLAIN, /* a plain Python value (3, 0.5, "s", (2, 3)): only in parameter defaults */
  D_OPAQUE /* bound by code tilec does not evaluate: `why` says what */
} dkind;

typedef struct dbind {
  const char *name;
  dkind kind;
  tc_val val;
  const char *why;
  tc_loc loc;
} dbind;

typedef struct dset dset;
struct dset {
  dbind *b;
  int n, cap;
  const dset *parent; /* enclosing block while a try/if branch is evaluated */
  bool unknown;       /* something in the block was not understood (try/except picks another) */
  bool oom;           /* a binding was lost for want of memory (reported by derive) */
};

typedef struct tc_unit {
  const char *filename;
  const char *source; /* NULL: read filename when first used */
  size_t len;
  bool functions_only;
  int first_line;
  const tilec_global *globals;
  size_t nglobals;
  const tc_module *mod;
  bool owns_mod, loaded;
  tilec_status *load_err;
  char *text; /* file contents read here */
  dset derived;
  int derive_state; /* 0 not yet, 1 running (a cycle through imports), 2 done */
} tc_unit;

struct tc_mctx {
  tc_arena *arena;
  tc_unit *units;
  int nunits, cap;
  size_t nmods; /* units 1..nmods are spec->modules */
  bool allow_plain;
};

static const char plain_error[] =
    "Cannot access global variable %s from within @jit'ed function. Triton kernels can only access global "
    "variables that are instanstiated as constexpr (`x = triton.language.constexpr(42)`). Note that this is "
    "different from annotating a variable as constexpr (`x: triton.language.constexpr = 42`), which is not "
    "supported.  Alternatively, set the envvar TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1, but we do not promise to "
    "support this forever.";

static char *astrdup(tc_mctx *m, const char *s) { return tc_arena_strndup(m->arena, s, strlen(s)); }

/* Returns the new unit's index, or -1 without memory. */
static int add_unit(tc_mctx *m, tc_unit u) {
  if (m->nunits == m->cap) {
    int cap = m->cap ? 2 * m->cap : 8;
    tc_unit *nu = realloc(m->units, sizeof *m->units * (size_t)cap);
    if (!nu) return -1;
    m->units = nu;
    m->cap = cap;
  }
  m->units[m->nunits] = u;
  return m->nunits++;
}

tc_mctx *tc_mctx_create(tc_arena *arena, const tilec_kernel_spec *spec, const tc_module *main) {
  tc_mctx *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->arena = arena;
  const char *allow = getenv("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS");
  m->allow_plain = allow && *allow && strcmp(allow, "0") && strcmp(allow, "false") && strcmp(allow, "False");
  tc_unit u0 = {.filename = main->filename,
                .source = main->source,
                .len = main->source_len,
                .functions_only = main->functions_only,
                .globals = spec->globals,
                .nglobals = spec->num_globals,
                .mod = main,
                .loaded = true};
  bool ok = add_unit(m, u0) >= 0;
  m->nmods = spec->modules ? spec->num_modules : 0;
  for (size_t i = 0; i < m->nmods; i++) {
    const tilec_source_module *sm = &spec->modules[i];
    char name[64];
    snprintf(name, sizeof name, "<module %zu>", i);
    tc_unit u = {.filename = astrdup(m, sm->filename ? sm->filename : name),
                 .source = sm->source,
                 .len = sm->source ? (sm->source_len ? sm->source_len : strlen(sm->source)) : 0,
                 .functions_only = sm->source_kind == TILEC_SOURCE_FUNCTIONS,
                 .first_line = sm->first_line,
                 .globals = sm->globals,
                 .nglobals = sm->globals ? sm->num_globals : 0};
    ok = ok && add_unit(m, u) >= 0;
  }
  if (!ok) {
    tc_mctx_destroy(m);
    return NULL;
  }
  return m;
}

void tc_mctx_destroy(tc_mctx *m) {
  if (!m) return;
  for (int i = 0; i < m->nunits; i++) {
    tc_unit *u = &m->units[i];
    if (u->owns_mod) tc_module_destroy((tc_module *)u->mod);
    tilec_status_destroy(u->load_err);
    free(u->text);
    free(u->derived.b);
  }
  free(m->units);
  free(m);
}

int tc_mctx_unit_of(const tc_mctx *m, const tc_func *fn) {
  for (int i = 0; m && i < m->nunits; i++) {
    const tc_module *mod = m->units[i].mod;
    for (int k = 0; mod && k < mod->nfuncs; k++)
      if (mod->funcs[k] == fn) return i;
  }
  return -1;
}

const tc_module *tc_mctx_unit_module(const tc_mctx *m, int unit) {
  return m && unit >= 0 && unit < m->nunits ? m->units[unit].mod : NULL;
}

/* Parses a unit when first used; false (with the reason recorded at loc) when it cannot. */
static bool load_unit(tc_cg *cg, int idx, tc_loc loc) {
  tc_unit *u = &cg->mctx->units[idx];
  if (!u->loaded) {
    u->loaded = true;
    const char *src = u->source;
    size_t len = u->len;
    if (!src) {
      u->text = tc_read_text_file(u->filename, &len);
      src = u->text;
      if (!src) {
        u->load_err = tilec_status_create(TILEC_ERROR_NOT_FOUND, "cannot read module source '%s'", u->filename);
        src = NULL;
      }
    }
    if (src) {
      tc_parse_options po = {.functions_only = u->functions_only, .first_line = u->first_line};
      tc_module *mod = NULL;
      u->load_err = tc_parse_module_opts(u->filename, src, len, &po, &mod);
      u->mod = mod;
      u->owns_mod = true;
    }
  }
  if (u->load_err || !u->mod) {
    /* the first use reports it (and ends the compilation) */
    if (!cg->err && u->load_err) {
      cg->err = u->load_err;
      u->load_err = NULL;
    } else if (!cg->err) {
      cg_error(cg, loc, TILEC_ERROR_NOT_FOUND, "module source '%s' is not usable", u->filename);
    }
    return false;
  }
  return true;
}

/* ---- guarded evaluation: errors become reasons -------------------------------------- */

/* Takes the error a resolution recorded, as the reason a name is unusable. */
static const char *take_error(tc_cg *cg) {
  if (!cg->err) return NULL;
  const char *why = astrdup(cg->mctx, tilec_status_message(cg->err));
  tilec_status_destroy(cg->err);
  cg->err = NULL;
  return why;
}

static tc_val module_val(const char *name, int unit) { return (tc_val){.kind = TV_MODULE, .name = name, .i = unit}; }

/* A Python module tilec knows nothing of (Python's math is known: its constants and functions). */
static bool is_foreign(const tc_val *v) {
  return v->kind == TV_MODULE && !strncmp(v->name, "py:", 3) && strcmp(v->name, "py:math");
}

bool cg_is_context_module(const tc_val *m) {
  return m->kind == TV_MODULE && (!strncmp(m->name, "py:", 3) || !strncmp(m->name, "unit:", 5));
}

/* Resolves a dotted path under `triton` (a module or an object in one), or a Python module
 * tilec does not compile ("torch", "math": usable only for the few attributes it knows).
 * Errors are recorded at loc. */
static bool resolve_path(tc_cg *cg, const char *path, tc_loc loc, tc_val *out) {
  const char *dot = strchr(path, '.');
  size_t n = dot ? (size_t)(dot - path) : strlen(path);
  if (n != 6 || memcmp(path, "triton", 6)) {
    size_t len = strlen(path) + 4;
    char *s = cg_alloc(cg, len);
    snprintf(s, len, "py:%s", path);
    *out = module_val(s, 0);
    return true;
  }
  tc_val cur = module_val("triton", 0);
  while (dot) {
    const char *c = dot + 1;
    dot = strchr(c, '.');
    size_t cn = dot ? (size_t)(dot - c) : strlen(c);
    char comp[128];
    snprintf(comp, sizeof comp, "%.*s", (int)cn, c);
    if (cur.kind != TV_MODULE) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'%s': '%s' is not a module", path, comp);
      return false;
    }
    /* the host-side helpers of `triton` are plain functions at module level */
    if (!strcmp(cur.name, "triton") && (!strcmp(comp, "cdiv") || !strcmp(comp, "next_power_of_2"))) {
      cur = (tc_val){.kind = TV_BUILTIN, .name = !strcmp(comp, "cdiv") ? "tl.cdiv" : "pymath.next_power_of_2"};
      continue;
    }
    cur = cg_module_attr(cg, &cur, comp, loc);
    if (cg->err) return false;
  }
  *out = cur;
  return true;
}

/* ---- values of API globals ----------------------------------------------------------- */

static bool unit_lookup(tc_cg *cg, int ui, const char *name, tc_loc loc, bool attr, tc_val *out, dkind *kind);

static bool plain_value(tc_cg *cg, const char *name, const tc_val *v, bool attr, tc_loc loc, tc_val *out) {
  if (!attr && !cg->in_default && !cg->mctx->allow_plain) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, plain_error, name);
    return true;
  }
  if (!v || v->kind == TV_INVALID) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "global '%s' has no value tilec can use at compile time", name);
    return true;
  }
  *out = *v;
  return true;
}

/* A NamedTuple class from its fields text "f0, f1=DEFAULT, ..." (tilec.h). */
static bool namedtuple_class(tc_cg *cg, const tilec_global *g, tc_loc loc, tc_val *out) {
  tc_mctx *m = cg->mctx;
  const char *text = g->value ? g->value : "";
  enum { MAX_FIELDS = 64 };
  const char *items[MAX_FIELDS];
  size_t lens[MAX_FIELDS];
  bool trailing;
  int n = *text ? tc_split_items(text, strlen(text), items, lens, MAX_FIELDS, &trailing) : 0;
  if (n < 0) {
    cg_error(cg, loc, TILEC_ERROR_INVALID_ARGUMENT, "NamedTuple global '%s': bad field list '%s'", g->name, text);
    return true;
  }
  tc_val *defaults = tc_arena_alloc(m->arena, sizeof(tc_val) * (size_t)(n + 1));
  char *fields = tc_arena_alloc(m->arena, strlen(text) + 1);
  if (!defaults || !fields) {
    cg_error(cg, loc, TILEC_ERROR_INTERNAL, "out of memory");
    return true;
  }
  size_t fl = 0;
  for (int i = 0; i < n; i++) {
    const char *s = items[i], *eq = memchr(s, '=', lens[i]);
    size_t id = eq ? (size_t)(eq - s) : lens[i];
    while (id && isspace((unsigned char)s[id - 1])) id--;
    bool ident = id > 0 && !isdigit((unsigned char)*s);
    for (size_t c = 0; c < id && ident; c++) ident = isalnum((unsigned char)s[c]) || s[c] == '_';
    if (!ident) n = -1;
    if (n < 0) break;
    fl += (size_t)sprintf(fields + fl, "%s%.*s", i ? "," : "", (int)id, s);
    size_t dl = eq ? lens[i] - (size_t)(eq + 1 - s) : 0;
    defaults[i] =
        eq ? tc_value_from_text(m->arena, tc_arena_strndup(m->arena, eq + 1, dl), dl) : (tc_val){.kind = TV_INVALID};
  }
  if (n < 0) {
    cg_error(cg, loc, TILEC_ERROR_INVALID_ARGUMENT, "NamedTuple global '%s': bad field list '%s'", g->name, text);
    return true;
  }
  *out = (tc_val){.kind = TV_TUPLE_CLASS, .name = g->name, .s = fields, .slen = fl, .items = defaults, .nitems = n};
  return true;
}

static bool api_value(tc_cg *cg, const tilec_global *g, tc_loc loc, bool attr, tc_val *out) {
  tc_mctx *m = cg->mctx;
  const char *name = g->name;
  switch (g->kind) {
    case TILEC_GLOBAL_CONSTEXPR:
      if (!g->value) {
        cg_error(cg, loc, TILEC_ERROR_INVALID_ARGUMENT, "constexpr global '%s' has no value", name);
        return true;
      }
      *out = tc_value_from_text(m->arena, astrdup(m, g->value), strlen(g->value));
      return true;
    case TILEC_GLOBAL_MODULE:
    case TILEC_GLOBAL_OBJECT:
      if (!g->value || !*g->value) {
        cg_error(cg, loc, TILEC_ERROR_INVALID_ARGUMENT, "global '%s' names no module or object", name);
        return true;
      }
      if (!resolve_path(cg, g->value, loc, out) && cg->err)
        cg->err = tilec_status_annotate(cg->err, "'%s' (%s)", name, g->value);
      return true;
    case TILEC_GLOBAL_FUNCTION:
    case TILEC_GLOBAL_SOURCE_MODULE: {
      if (g->module >= m->nmods) {
        cg_error(cg, loc, TILEC_ERROR_INVALID_ARGUMENT,
                 "global '%s' refers to module %zu, but the spec has %zu modules", name, g->module, m->nmods);
        return true;
      }
      int target = (int)g->module + 1;
      if (!load_unit(cg, target, loc)) return true;
      if (g->kind == TILEC_GLOBAL_SOURCE_MODULE) {
        size_t n = strlen(m->units[target].filename) + 6;
        char *s = cg_alloc(cg, n);
        snprintf(s, n, "unit:%s", m->units[target].filename);
        *out = module_val(s, target);
        return true;
      }
      const char *fname = g->value && *g->value ? g->value : name;
      const tc_func *fn = tc_module_find(m->units[target].mod, fname);
      if (!fn && unit_lookup(cg, target, fname, loc, true, out, NULL)) return true; /* why it is not a function */
      if (!fn) {
        cg_error(cg, loc, TILEC_ERROR_NOT_FOUND,
                 "global '%s' names function '%s' of %s, which has no %sfunction of that name", name, fname,
                 m->units[target].filename, m->units[target].functions_only ? "" : "@jit ");
        return true;
      }
      *out = (tc_val){.kind = TV_JITFN, .fn = fn};
      return true;
    }
    case TILEC_GLOBAL_NAMEDTUPLE: return namedtuple_class(cg, g, loc, out);
    case TILEC_GLOBAL_PLAIN: {
      tc_val v = {.kind = TV_INVALID};
      if (g->value) v = tc_value_from_text(m->arena, astrdup(m, g->value), strlen(g->value));
      return plain_value(cg, name, &v, attr, loc, out);
    }
  }
  cg_error(cg, loc, TILEC_ERROR_INVALID_ARGUMENT, "global '%s' has an unknown kind %d", name, (int)g->kind);
  return true;
}

/* ---- the module's own statements ------------------------------------------------------- */

static const dbind *dset_find(const dset *s, const char *name) {
  for (; s; s = s->parent)
    for (int i = s->n - 1; i >= 0; i--)
      if (!strcmp(s->b[i].name, name)) return &s->b[i];
  return NULL;
}

static void dset_put(dset *s, dbind b) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->b[i].name, b.name)) {
      s->b[i] = b;
      return;
    }
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    dbind *nb = realloc(s->b, sizeof *s->b * (size_t)cap);
    if (!nb) {
      s->oom = true;
      return;
    }
    s->b = nb;
    s->cap = cap;
  }
  s->b[s->n++] = b;
}

static void dset_merge(dset *into, const dset *from) {
  into->oom |= from->oom;
  for (int i = 0; i < from->n; i++) dset_put(into, from->b[i]);
  if (from->unknown) into->unknown = true;
}

typedef struct deriv {
  tc_cg *cg;
  int unit;
  tc_loc loc; /* where the statement being evaluated is */
} deriv;

/* "<what> at line N<rest>" as a reason that lives as long as the context */
static const char *why_at(deriv *d, const char *what, int line, const char *rest) {
  char buf[600];
  snprintf(buf, sizeof buf, "%s at line %d%s", what, line, rest);
  return astrdup(d->cg->mctx, buf);
}

static int file_line(deriv *d, tc_loc loc) {
  const tc_module *mod = d->cg->mctx->units[d->unit].mod;
  return loc.line + (mod ? mod->line_offset : 0);
}

static bool eval_mod(deriv *d, const dset *s, const tc_expr *e, tc_val *out, bool *wrapped, const char **why);

static bool eval_args(deriv *d, const dset *s, const tc_expr *e, tc_val *args, int max, int *n, const char **why) {
  if (e->u.call.nargs > max || e->u.call.nkwargs) {
    *why = "a call with these arguments";
    return false;
  }
  for (int i = 0; i < e->u.call.nargs; i++) {
    bool w;
    if (!eval_mod(d, s, e->u.call.args[i], &args[i], &w, why)) return false;
  }
  *n = e->u.call.nargs;
  return true;
}

static double num(const tc_val *v) { return v->kind == TV_FLOAT ? v->f : (double)v->i; }

/* Python's math functions (and triton.next_power_of_2) on compile-time numbers. */
static bool pymath_call(const char *fn, const tc_val *args, int n, tc_val *out, const char **why) {
  static const struct {
    const char *name;
    double (*f)(double);
  } unary[] = {
      {"sqrt", sqrt}, {"exp", exp},     {"log2", log2},   {"log10", log10}, {"fabs", fabs},
      {"sin", sin},   {"cos", cos},     {"tan", tan},     {"atan", atan},   {"tanh", tanh},
      {"erf", erf},   {"log1p", log1p}, {"expm1", expm1},
  };
  for (int i = 0; i < n; i++)
    if (!tv_is_number(&args[i])) {
      *why = "Python math functions take numbers";
      return false;
    }
  if (!strcmp(fn, "next_power_of_2") && n == 1 && args[0].kind != TV_FLOAT) {
    /* Triton's bit trick: n - 1 with every lower bit set, plus one (0 for n <= 0) */
    int64_t v = args[0].i, p = v > 0 ? 1 : 0;
    while (v > 0 && p < v && p < ((int64_t)1 << 62)) p <<= 1;
    *out = tv_int(p);
    return true;
  }
  if (!strcmp(fn, "log") && (n == 1 || n == 2)) {
    *out = tv_float(n == 1 ? log(num(&args[0])) : log(num(&args[0])) / log(num(&args[1])));
    return true;
  }
  if ((!strcmp(fn, "floor") || !strcmp(fn, "ceil") || !strcmp(fn, "trunc")) && n == 1) {
    double x = num(&args[0]);
    *out = tv_int((int64_t)(fn[0] == 'f' ? floor(x) : fn[0] == 'c' ? ceil(x) : trunc(x)));
    return true;
  }
  if (!strcmp(fn, "pow") && n == 2) {
    *out = tv_float(pow(num(&args[0]), num(&args[1])));
    return true;
  }
  for (size_t i = 0; i < sizeof unary / sizeof unary[0]; i++)
    if (!strcmp(unary[i].name, fn) && n == 1) {
      *out = tv_float(unary[i].f(num(&args[0])));
      return true;
    }
  *why = "this Python math function is not evaluated by tilec";
  return false;
}

static bool eval_call_mod(deriv *d, const dset *s, const tc_expr *e, tc_val *out, bool *wrapped, const char **why) {
  tc_cg *cg = d->cg;
  bool w;
  tc_val f;
  if (!eval_mod(d, s, e->u.call.func, &f, &w, why)) return false;
  tc_val args[8];
  int n;
  if (!eval_args(d, s, e, args, 8, &n, why)) return false;
  if (f.kind == TV_CONSTEXPR_TYPE) {
    if (n != 1) {
      *why = "tl.constexpr() takes one value";
      return false;
    }
    *out = args[0];
    *wrapped = true;
    return true;
  }
  if (f.kind == TV_BUILTIN && !strncmp(f.name, "pymath.", 7)) return pymath_call(f.name + 7, args, n, out, why);
  if (f.kind == TV_BUILTIN &&
      (!strcmp(f.name, "tl.cdiv") || !strcmp(f.name, "tl.pointer_type") || !strncmp(f.name, "py.", 3))) {
    const char *nm = f.name + 3; /* after "tl." or "py." */
    if (!strcmp(nm, "print") || !strcmp(nm, "range") || !strcmp(nm, "getattr") || !strcmp(nm, "hasattr") ||
        !strcmp(nm, "isinstance")) {
      *why = "this Python builtin is not evaluated by tilec at module level";
      return false;
    }
    /* the kernel-side builtins fold compile-time values without emitting anything */
    tc_callargs ca = {.args = args, .nargs = n};
    *out = cg_call_builtin(cg, f.name, &ca, e->loc);
    if (cg->err) {
      *why = take_error(cg);
      return false;
    }
    if (!tv_is_constexpr(out) && out->kind != TV_TUPLE) {
      *why = "not a compile-time value";
      return false;
    }
    return true;
  }
  *why = "a call tilec does not evaluate at module level";
  return false;
}

/* A module-level expression, evaluated as Python would (compile-time values only). */
static bool eval_mod(deriv *d, const dset *s, const tc_expr *e, tc_val *out, bool *wrapped, const char **why) {
  tc_cg *cg = d->cg;
  *wrapped = false;
  switch (e->kind) {
    case TC_EXPR_INT:
      *out = tv_int(e->u.int_value);
      out->u64 = e->int_u64;
      return true;
    case TC_EXPR_FLOAT: *out = tv_float(e->u.float_value); return true;
    case TC_EXPR_STRING: *out = tv_str(e->u.str.data, e->u.str.len); return true;
    case TC_EXPR_BOOL: *out = tv_bool(e->u.int_value != 0); return true;
    case TC_EXPR_NONE: *out = tv_none(); return true;
    case TC_EXPR_NAME: {
      const dbind *b = dset_find(s, e->u.name);
      if (b) {
        if (b->kind == D_OPAQUE) {
          *why = b->why;
          return false;
        }
        *out = b->val;
        return true;
      }
      tc_unit *u = &cg->mctx->units[d->unit];
      for (size_t i = u->nglobals; i-- > 0;)
        if (u->globals[i].name && !strcmp(u->globals[i].name, e->u.name)) {
          api_value(cg, &u->globals[i], e->loc, true, out);
          if (cg->err) {
            *why = take_error(cg);
            return false;
          }
          return true;
        }
      if (cg_global_name(cg, e->u.name, out)) return true;
      char what[200];
      snprintf(what, sizeof what, "name '%s' is not defined at module level", e->u.name);
      *why = why_at(d, what, file_line(d, e->loc), "");
      return false;
    }
    case TC_EXPR_ATTRIBUTE: {
      tc_val base;
      bool w;
      if (!eval_mod(d, s, e->u.attr.value, &base, &w, why)) return false;
      if (base.kind == TV_MODULE && !strcmp(base.name, "triton") &&
          (!strcmp(e->u.attr.name, "cdiv") || !strcmp(e->u.attr.name, "next_power_of_2"))) {
        *out = (tc_val){.kind = TV_BUILTIN, .name = e->u.attr.name[0] == 'c' ? "tl.cdiv" : "pymath.next_power_of_2"};
        return true;
      }
      if (base.kind == TV_MODULE) *out = cg_module_attr(cg, &base, e->u.attr.name, e->loc);
      else if (base.kind == TV_DTYPE) *out = cg_dtype_attr(cg, &base, e->u.attr.name, e->loc);
      else {
        *why = "an attribute of a value tilec does not evaluate";
        return false;
      }
      if (cg->err) {
        *why = take_error(cg);
        return false;
      }
      return true;
    }
    case TC_EXPR_TUPLE:
    case TC_EXPR_LIST: {
      tc_val r = {.kind = TV_TUPLE, .nitems = e->u.seq.nitems};
      r.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(r.nitems + 1));
      for (int i = 0; i < r.nitems; i++) {
        bool w;
        if (!eval_mod(d, s, e->u.seq.items[i], &r.items[i], &w, why)) return false;
      }
      *out = r;
      return true;
    }
    case TC_EXPR_UNARY:
    case TC_EXPR_BINOP:
    case TC_EXPR_COMPARE: {
      tc_val a, b = {0};
      bool w;
      const tc_expr *l = e->kind == TC_EXPR_UNARY   ? e->u.unary.operand
                         : e->kind == TC_EXPR_BINOP ? e->u.binop.lhs
                                                    : e->u.compare.operands[0];
      if (!eval_mod(d, s, l, &a, &w, why)) return false;
      if (e->kind == TC_EXPR_COMPARE && e->u.compare.nops != 1) {
        *why = "a chained comparison";
        return false;
      }
      if (e->kind != TC_EXPR_UNARY &&
          !eval_mod(d, s, e->kind == TC_EXPR_BINOP ? e->u.binop.rhs : e->u.compare.operands[1], &b, &w, why))
        return false;
      if (!tv_is_constexpr(&a) || (e->kind != TC_EXPR_UNARY && !tv_is_constexpr(&b))) {
        if (e->kind == TC_EXPR_COMPARE && (e->u.compare.ops[0] == TC_CMP_EQ || e->u.compare.ops[0] == TC_CMP_NE ||
                                           e->u.compare.ops[0] == TC_CMP_IS || e->u.compare.ops[0] == TC_CMP_IS_NOT)) {
          bool eq = tv_equal(&a, &b);
          *out = tv_bool((e->u.compare.ops[0] == TC_CMP_EQ || e->u.compare.ops[0] == TC_CMP_IS) ? eq : !eq);
          return true;
        }
        *why = "an operation on values tilec does not evaluate";
        return false;
      }
      if (e->kind == TC_EXPR_UNARY) *out = cg_unary(cg, e->u.unary.op, a, e->loc);
      else if (e->kind == TC_EXPR_BINOP) *out = cg_constexpr_binary(cg, e->u.binop.op, &a, &b, e->loc);
      else if (e->u.compare.ops[0] == TC_CMP_IS || e->u.compare.ops[0] == TC_CMP_IS_NOT)
        *out = tv_bool((e->u.compare.ops[0] == TC_CMP_IS) == tv_equal(&a, &b));
      else *out = cg_constexpr_compare(cg, e->u.compare.ops[0], &a, &b, e->loc);
      if (cg->err) {
        *why = take_error(cg);
        return false;
      }
      return true;
    }
    case TC_EXPR_BOOLOP:
    case TC_EXPR_IFEXP: {
      tc_val c;
      bool w, t;
      if (!eval_mod(d, s, e->kind == TC_EXPR_BOOLOP ? e->u.boolop.lhs : e->u.ifexp.test, &c, &w, why)) return false;
      if (!cg_truthy_constexpr(cg, &c, e->loc, &t)) {
        *why = "a condition tilec does not evaluate";
        return false;
      }
      if (e->kind == TC_EXPR_IFEXP) return eval_mod(d, s, t ? e->u.ifexp.body : e->u.ifexp.orelse, out, wrapped, why);
      if ((e->u.boolop.op == TC_BOOL_AND) != t) {
        *out = c;
        return true;
      }
      return eval_mod(d, s, e->u.boolop.rhs, out, wrapped, why);
    }
    case TC_EXPR_CALL: return eval_call_mod(d, s, e, out, wrapped, why);
    default: *why = "an expression tilec does not evaluate at module level"; return false;
  }
}

/* What Triton lets a kernel read directly: constexpr objects (wrapped), None, dtypes,
 * modules, triton.language objects and @jit functions. */
static dkind classify(const tc_val *v, bool wrapped) {
  if (wrapped) return D_VALUE;
  switch (v->kind) {
    case TV_NONE:
    case TV_DTYPE:
    case TV_MODULE:
    case TV_BUILTIN:
    case TV_JITFN:
    case TV_CONSTEXPR_TYPE:
    case TV_TUPLE_CLASS: return D_VALUE;
    default: return D_PLAIN;
  }
}

static void bind_opaque(dset *s, const char *name, const char *why, tc_loc loc) {
  dset_put(s, (dbind){.name = name, .kind = D_OPAQUE, .why = why, .loc = loc});
}

static bool apply_block(deriv *d, dset *s, const tc_block *b);

static int unit_for_file(tc_cg *cg, const char *path) {
  tc_mctx *m = cg->mctx;
  for (int i = 0; i < m->nunits; i++)
    if (!strcmp(m->units[i].filename, path)) return i;
  struct stat st;
  if (stat(path, &st) || !S_ISREG(st.st_mode)) return -1;
  tc_unit u = {.filename = astrdup(m, path)};
  return add_unit(m, u);
}

static int source_module_unit(deriv *d, const char *first, size_t n, int level) {
  char path[1200];
  const char *file = d->cg->mctx->units[d->unit].filename;
  if (n == 0 && level > 0 && file[0] != '<') {
    /* `from . import x`: the package this file is in (level - 1 directories up) */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (slash) slash[1] = 0;
    else dir[0] = 0;
    for (int i = 1; i < level; i++)
      if (!tc_dir_up(dir, sizeof dir)) return -1;
    snprintf(path, sizeof path, "%s__init__.py", dir);
    return unit_for_file(d->cg, path);
  }
  if (!tc_import_file(file, first, n, level, path, sizeof path)) return -1;
  return unit_for_file(d->cg, path);
}

/* A package's attribute that its __init__.py does not bind may be its submodule file. */
static int package_submodule(tc_cg *cg, int pkg, const char *name) {
  const char *f = cg->mctx->units[pkg].filename;
  size_t len = strlen(f);
  if (len < 11 || strcmp(f + len - 11, "__init__.py") || len > 1000) return -1;
  char dir[1024], path[1200];
  snprintf(dir, sizeof dir, "%.*s", (int)(len - 11), f);
  return tc_module_file_in_dir(dir, name, strlen(name), path, sizeof path) ? unit_for_file(cg, path) : -1;
}

static tc_val unit_module_val(tc_cg *cg, int u) {
  const char *f = cg->mctx->units[u].filename;
  size_t n = strlen(f) + 6;
  char *s = cg_alloc(cg, n);
  snprintf(s, n, "unit:%s", f);
  return module_val(s, u);
}

/* The value an import path names; false with why. A Python module tilec does not know is a
 * value (usable for nothing), but makes the statement "not understood". */
static bool import_value(deriv *d, const char *path, int level, tc_loc loc, tc_val *out, bool *known,
                         const char **why) {
  tc_cg *cg = d->cg;
  *known = true;
  const char *dot = strchr(path, '.');
  size_t n = dot ? (size_t)(dot - path) : strlen(path);
  bool triton = level == 0 && n == 6 && !memcmp(path, "triton", 6);
  if (level > 0 && source_module_unit(d, path, n, level) < 0) {
    *known = false;
    *why = "no such module next to the file";
    return false;
  }
  if (!triton) {
    int u = source_module_unit(d, path, n, level);
    if (u >= 0) {
      tc_val cur = unit_module_val(cg, u);
      while (dot) {
        const char *c = dot + 1;
        dot = strchr(c, '.');
        size_t cn = dot ? (size_t)(dot - c) : strlen(c);
        char *comp = cg_alloc(cg, cn + 1);
        memcpy(comp, c, cn);
        if (!cg_is_context_module(&cur) || is_foreign(&cur)) {
          *known = false;
          *why = "an import through a value that is not a module";
          return false;
        }
        cur = cg_context_module_attr(cg, &cur, comp, loc);
        if (cg->err) {
          *why = take_error(cg);
          *known = false;
          return false;
        }
      }
      *out = cur;
      return true;
    }
    *known = false;
  }
  if (!resolve_path(cg, path, loc, out)) {
    *why = take_error(cg);
    /* Host-side Triton (triton.tools, triton.runtime, ...) exists wherever Triton does: the
     * import succeeds, only kernels cannot use it. Under triton.language, what tilec does not
     * know is taken as missing, so a try/except picks the fallback it knows. */
    *known = triton && strncmp(path, "triton.language", 15) != 0;
    return false;
  }
  if (is_foreign(out)) *known = false;
  return true;
}

static bool apply_import(deriv *d, dset *s, const tc_stmt *st) {
  tc_cg *cg = d->cg;
  bool all = true;
  for (int i = 0; i < st->u.import.nnames; i++) {
    const tc_import_name *in = &st->u.import.names[i];
    const char *from = st->u.import.from;
    if (!strcmp(in->name, "*")) {
      all = false;
      continue;
    }
    char *path;
    const char *bound;
    if (from) {
      size_t n = strlen(from) + strlen(in->name) + 2;
      path = cg_alloc(cg, n);
      snprintf(path, n, *from ? "%s.%s" : "%s%s", from, in->name);
      bound = in->asname ? in->asname : in->name;
    } else if (in->asname) {
      path = (char *)in->name;
      bound = in->asname;
    } else {
      /* `import a.b.c` binds a */
      const char *dot = strchr(in->name, '.');
      size_t n = dot ? (size_t)(dot - in->name) : strlen(in->name);
      path = cg_alloc(cg, n + 1);
      memcpy(path, in->name, n);
      bound = path;
    }
    tc_val v;
    bool known;
    const char *why = NULL;
    bool ok;
    if (from && (*from || st->u.import.level)) {
      /* from M import x: x is an attribute of module M (a submodule or an object in it) */
      ok = import_value(d, from, st->u.import.level, in->loc, &v, &known, &why);
      if (ok && v.kind != TV_MODULE) {
        why = "it is imported from a value that is not a module";
        ok = known = false;
      } else if (ok && !strncmp(v.name, "unit:", 5)) {
        /* from a source module: the binding keeps what it is there (a constexpr stays one) */
        int ui = (int)v.i;
        dkind k;
        if (unit_lookup(cg, ui, in->name, in->loc, true, &v, &k)) {
          if (!cg->err) {
            dset_put(s, (dbind){.name = bound, .kind = k, .val = v, .loc = in->loc});
            continue;
          }
          why = take_error(cg);
          ok = known = false;
        } else {
          int sub = package_submodule(cg, ui, in->name);
          if (sub >= 0) v = unit_module_val(cg, sub);
          else {
            why = "the module has no such name";
            ok = known = false;
          }
        }
      } else if (ok) {
        v = cg_module_attr(cg, &v, in->name, in->loc);
        if (cg->err) {
          why = take_error(cg);
          ok = known = false;
        }
      }
    } else {
      ok = import_value(d, path, from ? st->u.import.level : 0, in->loc, &v, &known, &why);
    }
    if (ok) /* `from math import pi` is a plain float to Triton */
      dset_put(s, (dbind){.name = bound, .kind = classify(&v, false), .val = v, .loc = in->loc});
    else {
      char buf[600];
      snprintf(buf, sizeof buf, "the import at line %d: %s", file_line(d, in->loc), why ? why : "unknown");
      bind_opaque(s, bound, astrdup(cg->mctx, buf), in->loc);
    }
    if (!known) all = false;
  }
  return all;
}

static bool assign_name(deriv *d, dset *s, const tc_expr *target, const tc_expr *value, tc_loc loc) {
  tc_val v;
  bool wrapped;
  const char *why = NULL;
  if (target->kind == TC_EXPR_TUPLE || target->kind == TC_EXPR_LIST) {
    if ((value->kind == TC_EXPR_TUPLE || value->kind == TC_EXPR_LIST) && value->u.seq.nitems == target->u.seq.nitems) {
      bool ok = true;
      for (int i = 0; i < target->u.seq.nitems; i++)
        ok &= assign_name(d, s, target->u.seq.items[i], value->u.seq.items[i], loc);
      return ok;
    }
    for (int i = 0; i < target->u.seq.nitems; i++)
      if (target->u.seq.items[i]->kind == TC_EXPR_NAME)
        bind_opaque(s, target->u.seq.items[i]->u.name,
                    why_at(d, "the unpacking assignment", file_line(d, loc), " is not evaluated by tilec"), loc);
    return false;
  }
  if (target->kind != TC_EXPR_NAME) return true; /* obj.attr = ..., x[i] = ...: host code */
  if (eval_mod(d, s, value, &v, &wrapped, &why)) {
    dset_put(s, (dbind){.name = target->u.name, .kind = classify(&v, wrapped), .val = v, .loc = loc});
    return true;
  }
  char buf[600];
  snprintf(buf, sizeof buf, "its assignment at line %d is not evaluated by tilec (%s)", file_line(d, loc),
           why ? why : "unknown");
  bind_opaque(s, target->u.name, astrdup(d->cg->mctx, buf), loc);
  return false;
}

static const dbind *own(const dset *s, const char *name) {
  for (int i = s->n - 1; i >= 0; i--)
    if (!strcmp(s->b[i].name, name)) return &s->b[i];
  return NULL;
}

/* Functions and modules: what version checks choose between (`triton_tanh = libdevice.tanh`
 * on new Triton, `tl.math.tanh` on old; a builtin or a @jit fallback). */
static bool callable_value(const dbind *b) {
  return b->kind == D_VALUE && (b->val.kind == TV_BUILTIN || b->val.kind == TV_JITFN || b->val.kind == TV_MODULE);
}

/* After an `if` tilec cannot decide: a name keeps a value when both branches (or a branch
 * and the value before the `if`) agree on it, or when both bind it to a function or module
 * (then the first branch's: such checks choose between equivalent APIs, newest first);
 * differing constants are unusable (the kernel would depend on a host condition). */
static void merge_branches(deriv *d, dset *s, const dset *a, const dset *b, tc_loc loc) {
  const dset *sides[2] = {a, b};
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < sides[k]->n; i++) {
      const char *name = sides[k]->b[i].name;
      if (k == 1 && own(a, name)) continue; /* done with a's names */
      const dbind *x = own(a, name), *y = own(b, name);
      if (!x) x = dset_find(s, name);
      if (!y) y = dset_find(s, name);
      if (x && y && x->kind != D_OPAQUE && x->kind == y->kind && tv_equal(&x->val, &y->val)) dset_put(s, *x);
      else if (x && y && own(a, name) && callable_value(x) && callable_value(y))
        dset_put(s, *own(a, name)); /* a version check between equivalent APIs: the first branch's */
      else
        bind_opaque(s, name,
                    why_at(d, "it is bound differently by the branches of the `if`", file_line(d, loc),
                           ", whose condition tilec cannot evaluate"),
                    sides[k]->b[i].loc);
    }
  if (a->unknown || b->unknown) s->unknown = true;
}

static const char *class_why(deriv *d, tc_loc loc) {
  return why_at(d, "it is a class defined", file_line(d, loc),
                " (of the classes a kernel's file defines, tilec evaluates NamedTuple classes of fields only)");
}

static bool is_namedtuple_base(const tc_expr *e) {
  return (e->kind == TC_EXPR_NAME && !strcmp(e->u.name, "NamedTuple")) ||
         (e->kind == TC_EXPR_ATTRIBUTE && !strcmp(e->u.attr.name, "NamedTuple"));
}

/* class NAME(NamedTuple): with annotated fields -- the value a TILEC_GLOBAL_NAMEDTUPLE
 * global gives (namedtuple_class): fields "f0,f1" and their defaults. A class of other
 * bases, or a default tilec cannot evaluate, binds NAME to a reason. */
static bool apply_class(deriv *d, dset *s, const tc_stmt *st) {
  const char *name = st->u.class_.name;
  bool named = st->u.class_.nbases == 1 && is_namedtuple_base(st->u.class_.bases[0]);
  if (!named) {
    bind_opaque(s, name, class_why(d, st->loc), st->loc);
    return false;
  }
  const tc_block *b = &st->u.class_.body;
  tc_val *defaults = tc_arena_alloc(d->cg->mctx->arena, sizeof(tc_val) * (size_t)(b->nstmts + 1));
  size_t cap = 1, fl = 0;
  for (int i = 0; i < b->nstmts; i++)
    if (b->stmts[i]->kind == TC_STMT_ANNASSIGN) cap += strlen(b->stmts[i]->u.annassign.target->u.name) + 1;
  char *fields = tc_arena_alloc(d->cg->mctx->arena, cap);
  if (!defaults || !fields) {
    s->oom = true;
    return false;
  }
  int n = 0;
  bool seen_default = false;
  for (int i = 0; i < b->nstmts; i++) {
    const tc_stmt *f = b->stmts[i];
    if (f->kind != TC_STMT_ANNASSIGN) continue;
    const char *field = f->u.annassign.target->u.name;
    const char *why = NULL;
    if (f->u.annassign.value) {
      bool wrapped;
      if (!eval_mod(d, s, f->u.annassign.value, &defaults[n], &wrapped, &why)) {
        char rest[500];
        snprintf(rest, sizeof rest, " is not evaluated by tilec (%s)", why ? why : "unknown");
        bind_opaque(s, name, why_at(d, "the default of its field at line", file_line(d, f->loc), rest), st->loc);
        return false;
      }
      seen_default = true;
    } else if (seen_default) {
      char buf[300];
      snprintf(buf, sizeof buf,
               "its field '%s' at line %d has no default but follows one that has (Python's TypeError)", field,
               file_line(d, f->loc));
      bind_opaque(s, name, astrdup(d->cg->mctx, buf), st->loc);
      return false;
    } else {
      defaults[n] = (tc_val){.kind = TV_INVALID};
    }
    fl += (size_t)sprintf(fields + fl, "%s%s", n ? "," : "", field);
    n++;
  }
  fields[fl] = '\0';
  tc_val v = {.kind = TV_TUPLE_CLASS, .name = name, .s = fields, .slen = fl, .items = defaults, .nitems = n};
  dset_put(s, (dbind){.name = name, .kind = D_VALUE, .val = v, .loc = st->loc});
  return true;
}

static bool apply_stmt(deriv *d, dset *s, const tc_stmt *st) {
  tc_cg *cg = d->cg;
  switch (st->kind) {
    case TC_STMT_IMPORT: return apply_import(d, s, st);
    case TC_STMT_CLASS: return apply_class(d, s, st);
    case TC_STMT_ASSIGN: {
      bool ok = true;
      for (int i = 0; i < st->u.assign.ntargets; i++)
        ok = assign_name(d, s, st->u.assign.targets[i], st->u.assign.value, st->loc) && ok;
      return ok;
    }
    case TC_STMT_ANNASSIGN:
      if (!st->u.annassign.value) return true;
      return assign_name(d, s, st->u.annassign.target, st->u.annassign.value, st->loc);
    case TC_STMT_AUGASSIGN: {
      if (st->u.augassign.target->kind != TC_EXPR_NAME) return true;
      tc_expr bin = {.kind = TC_EXPR_BINOP, .loc = st->loc};
      bin.u.binop.op = st->u.augassign.op;
      bin.u.binop.lhs = st->u.augassign.target;
      bin.u.binop.rhs = st->u.augassign.value;
      return assign_name(d, s, st->u.augassign.target, &bin, st->loc);
    }
    case TC_STMT_DEF: {
      tc_func *fn = st->u.def.func;
      dset_put(s, (dbind){.name = fn->name, .kind = D_VALUE, .val = {.kind = TV_JITFN, .fn = fn}, .loc = st->loc});
      return true;
    }
    case TC_STMT_OTHER: {
      bool def = !strcmp(st->u.other.what, "function definition");
      static const char pyfn[] = "constexpr function definition: ";
      char rest[400];
      if (!strncmp(st->u.other.what, pyfn, sizeof pyfn - 1))
        snprintf(rest, sizeof rest, ", whose body uses Python tilec does not evaluate at compile time (%s)",
                 st->u.other.what + sizeof pyfn - 1);
      const char *why =
          !strcmp(st->u.other.what, "class definition") ? class_why(d, st->loc)
          : def ? why_at(d, "it is a Python function defined", file_line(d, st->loc),
                         ", not a @triton.jit function (kernels can only call @jit functions)")
          : !strncmp(st->u.other.what, pyfn, sizeof pyfn - 1)
              ? why_at(d, "it is a constexpr function defined", file_line(d, st->loc), rest)
              : why_at(d, "it is bound by host code", file_line(d, st->loc), " that tilec does not evaluate");
      for (int i = 0; i < st->u.other.nbinds; i++) bind_opaque(s, st->u.other.binds[i], why, st->loc);
      return st->u.other.nbinds == 0;
    }
    case TC_STMT_TRY: {
      /* try: <imports> except ImportError: <other imports>: the first block tilec understands */
      dset body = {.parent = s};
      bool ok = apply_block(d, &body, &st->u.try_.body);
      if (ok) {
        dset_merge(s, &body);
        ok = apply_block(d, s, &st->u.try_.orelse);
      } else {
        bool done = false;
        for (int h = 0; h < st->u.try_.nhandlers && !done; h++) {
          dset hs = {.parent = s};
          if (apply_block(d, &hs, &st->u.try_.handlers[h].body)) {
            dset_merge(s, &hs);
            done = true;
          }
          free(hs.b);
        }
        if (!done) dset_merge(s, &body);
        ok = done;
      }
      free(body.b);
      return apply_block(d, s, &st->u.try_.final) && ok;
    }
    case TC_STMT_IF: {
      tc_val c;
      bool w, t;
      const char *why;
      if (eval_mod(d, s, st->u.if_.test, &c, &w, &why) && cg_truthy_constexpr(cg, &c, st->loc, &t))
        return apply_block(d, s, t ? &st->u.if_.body : &st->u.if_.orelse);
      dset a = {.parent = s}, b = {.parent = s};
      bool ok = apply_block(d, &a, &st->u.if_.body);
      ok = apply_block(d, &b, &st->u.if_.orelse) && ok;
      merge_branches(d, s, &a, &b, st->loc);
      s->oom |= a.oom || b.oom;
      free(a.b);
      free(b.b);
      return ok;
    }
    default: return true; /* expressions, pass, ... */
  }
}

static bool apply_block(deriv *d, dset *s, const tc_block *b) {
  bool ok = true;
  for (int i = 0; i < b->nstmts; i++) ok &= apply_stmt(d, s, b->stmts[i]);
  if (!ok) s->unknown = true;
  return ok;
}

static void derive(tc_cg *cg, int ui) {
  tc_unit *u = &cg->mctx->units[ui];
  if (u->derive_state || !u->mod || cg->err) return;
  u->derive_state = 1;
  deriv d = {.cg = cg, .unit = ui};
  dset s = {0};
  apply_block(&d, &s, &u->mod->toplevel);
  u = &cg->mctx->units[ui]; /* imports may have added units */
  if (s.oom && !cg->err) cg->err = tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  u->derived = s;
  u->derive_state = 2;
}

/* ---- lookups ------------------------------------------------------------------------ */

/* kind (may be NULL): D_VALUE or D_PLAIN, what the binding is to Triton (for `from m import x`). */
static bool unit_lookup(tc_cg *cg, int ui, const char *name, tc_loc loc, bool attr, tc_val *out, dkind *kind) {
  dkind k_;
  if (!kind) kind = &k_;
  *kind = D_VALUE;
  tc_mctx *m = cg->mctx;
  if (!load_unit(cg, ui, loc)) return true;
  tc_unit *u = &m->units[ui];
  for (size_t i = u->nglobals; i-- > 0;)
    if (u->globals[i].name && !strcmp(u->globals[i].name, name)) {
      if (u->globals[i].kind == TILEC_GLOBAL_PLAIN) *kind = D_PLAIN;
      return api_value(cg, &u->globals[i], loc, attr, out);
    }
  if (u->derive_state == 1) {
    /* an import cycle: the module is still being evaluated, as in Python */
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "cannot import name '%s' from partially initialized module %s", name,
             u->filename);
    return true;
  }
  derive(cg, ui);
  if (cg->err) return true;
  u = &m->units[ui];
  const dbind *b = dset_find(&u->derived, name);
  if (b) {
    switch (b->kind) {
      case D_VALUE: *out = b->val; return true;
      case D_PLAIN: *kind = D_PLAIN; return plain_value(cg, name, &b->val, attr, loc, out);
      case D_OPAQUE:
        if (!attr && cg_global_name(cg, name, out)) return true; /* host code never shadows tl, range, ... */
        cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "'%s' cannot be used in a kernel: %s", name, b->why);
        return true;
    }
  }
  const tc_func *fn = tc_module_find(u->mod, name);
  if (fn) {
    *out = (tc_val){.kind = TV_JITFN, .fn = fn};
    return true;
  }
  return false;
}

bool cg_context_name(tc_cg *cg, const char *name, tc_loc loc, tc_val *out) {
  int ui = cg->depth ? cg_frame(cg)->unit : 0;
  if (ui < 0 || !cg->mctx) return false;
  if (unit_lookup(cg, ui, name, loc, false, out, NULL)) return true;
  return cg_global_name(cg, name, out);
}

tc_val cg_context_module_attr(tc_cg *cg, const tc_val *m, const char *attr, tc_loc loc) {
  if (!strncmp(m->name, "unit:", 5)) {
    tc_val out;
    if (unit_lookup(cg, (int)m->i, attr, loc, true, &out, NULL)) return cg->err ? (tc_val){.kind = TV_INVALID} : out;
    int sub = package_submodule(cg, (int)m->i, attr);
    if (sub >= 0) return unit_module_val(cg, sub);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "module '%s' has no attribute '%s'", m->name + 5, attr);
  }
  const char *py = m->name + 3;
  if (!strcmp(py, "math")) {
    static const struct {
      const char *name;
      double v;
    } consts[] = {
        {"pi", 3.14159265358979323846},
        {"e", 2.71828182845904523536},
        {"tau", 6.28318530717958647692},
        {"inf", INFINITY},
        {"nan", NAN},
    };
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++)
      if (!strcmp(attr, consts[i].name)) return tv_float(consts[i].v);
    size_t n = strlen(attr) + 8;
    char *s = cg_alloc(cg, n);
    snprintf(s, n, "pymath.%s", attr);
    return (tc_val){.kind = TV_BUILTIN, .name = s};
  }
  return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
                  "module '%s' cannot be used in a kernel (tilec knows triton's modules, Python's math and the .py "
                  "files next to the kernel)",
                  py);
}

tc_val cg_context_call(tc_cg *cg, const char *name, tc_callargs *a, tc_loc loc) {
  if (a->nkw) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "math.%s() takes no keyword arguments", name);
  tc_val out;
  const char *why = NULL;
  if (a->nargs <= 8 && pymath_call(name, a->args, a->nargs, &out, &why)) return out;
  return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "math.%s(): %s (compile-time numbers only)", name,
                  why ? why : "too many arguments");
}
