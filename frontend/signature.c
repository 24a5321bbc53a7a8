/* frontend/signature.c — maps signature entries and defines onto kernel parameters.
 * In: "*fp32:16, *fp32, i32, 1024"-style entries, positional, plus NAME=VALUE defines.
 * Out: tc_kernel_info (kind, dtype, pointer depth, divisibility, constexpr text). */
#include "frontend/signature.h"

#include "frontend/diag.h"
#include "frontend/parser.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `NAME`, `tl.NAME` / `triton.language.NAME`, or the string "tl.NAME". */
static bool annotation_is(const tc_expr *a, const char *name) {
  if (!a) return false;
  if (a->kind == TC_EXPR_NAME) return !strcmp(a->u.name, name);
  if (a->kind == TC_EXPR_ATTRIBUTE) return !strcmp(a->u.attr.name, name);
  size_t n = strlen(name);
  if (a->kind == TC_EXPR_STRING)
    return a->u.str.len == n + 3 && !memcmp(a->u.str.data, "tl.", 3) && !memcmp(a->u.str.data + 3, name, n);
  return false;
}

bool tc_param_is_constexpr_annotation(const tc_expr *a) { return annotation_is(a, "constexpr"); }

bool tc_param_is_const_annotation(const tc_expr *a) { return annotation_is(a, "const"); }

static void trim(const char **s, size_t *n) {
  while (*n && isspace((unsigned char)**s)) (*s)++, (*n)--;
  while (*n && isspace((unsigned char)(*s)[*n - 1])) (*n)--;
}

tc_val tc_parse_constexpr_text(const char *text, size_t len) {
  trim(&text, &len);
  char buf[256];
  if (len < sizeof buf) {
    memcpy(buf, text, len);
    buf[len] = 0;
    if (!strcmp(buf, "True")) return tv_bool(true);
    if (!strcmp(buf, "False")) return tv_bool(false);
    if (!strcmp(buf, "None")) return tv_none();
    if (len) {
      char *end;
      errno = 0;
      /* Base 10 unless 0x/0o/0b: "010" is ten, as tilec run reads it. */
      int base = (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) ? 16 : 10;
      long long v = strtoll(buf, &end, base);
      if (*end == 0 && errno == 0) return tv_int(v);
      errno = 0;
      double d = strtod(buf, &end);
      if (*end == 0 && errno == 0 && (strpbrk(buf, ".eEn") != NULL)) return tv_float(d);
    }
  }
  if (len >= 2 && (text[0] == '\'' || text[0] == '"') && text[len - 1] == text[0]) return tv_str(text + 1, len - 2);
  return tv_str(text, len);
}

/* A signature entry for a runtime parameter: "*fp32:16", "i32", "i32:16", "i64:1". */
typedef struct entry {
  const char *text;
  size_t len;
  bool given;
} entry;

static tilec_status *bad_entry(const char *what, int index, const char *param, const char *text, size_t len) {
  return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "%s in signature entry %d ('%.*s') for parameter '%s'", what,
                             index + 1, (int)len, text, param);
}

static void value_text(const tc_val *v, char *buf, size_t n) {
  if (!tc_value_to_text(v, buf, n)) snprintf(buf, n, "?");
}

/* The end of the signature entry starting at p: the next comma outside brackets and quotes. */
static const char *entry_end(const char *p) {
  int depth = 0;
  char quote = 0;
  for (; *p; p++) {
    if (quote) {
      if (*p == '\\' && p[1]) p++;
      else if (*p == quote) quote = 0;
    } else if (*p == '\'' || *p == '"') quote = *p;
    else if (*p == '(' || *p == '[') depth++;
    else if ((*p == ')' || *p == ']') && depth) depth--;
    else if (*p == ',' && !depth) return p;
  }
  return NULL;
}

/* "tensordesc<fp16[64, 64]>" (Triton's spelling; spaces optional): element type and block
 * shape into p. Returns an error text, or NULL. */
static const char *parse_tensordesc(const char *t, size_t n, tc_kernel_param *p) {
  const char *lt = memchr(t, '<', n), *lb = memchr(t, '[', n), *rb = memchr(t, ']', n);
  if (!lt || !lb || !rb || lb < lt || rb < lb || t[n - 1] != '>')
    return "a tensor descriptor is spelled tensordesc<DTYPE[B0, B1, ...]>";
  const char *d = lt + 1;
  size_t dn = (size_t)(lb - d);
  while (dn && isspace((unsigned char)*d)) d++, dn--;
  while (dn && isspace((unsigned char)d[dn - 1])) dn--;
  tc_ty ty;
  if (!tc_ty_parse(d, dn, &ty) || ty.ptr_depth) return "unknown element type in the tensor descriptor";
  for (const char *q = rb + 1; q < t + n - 1; q++)
    if (!isspace((unsigned char)*q)) return "tensor descriptor layouts (Gluon) are not supported";
  p->kind = TILEC_PARAM_TENSORDESC;
  p->dtype = ty.dt;
  p->pointer_depth = 0;
  p->desc_rank = 0;
  const char *q = lb + 1;
  while (q < rb && isspace((unsigned char)*q)) q++;
  while (q < rb) {
    char *end;
    long long b = strtoll(q, &end, 10);
    if (end == q) return "the block shape must list integers";
    if (p->desc_rank == 4) return "tensor descriptors of rank > 4 are not supported";
    if (b < 1 || (b & (b - 1))) return "block dimensions must be powers of two";
    p->desc_block[p->desc_rank++] = b;
    q = end;
    while (q < rb && (isspace((unsigned char)*q) || *q == ',')) q++;
  }
  if (!p->desc_rank) return "the block shape is empty";
  int64_t numel = 1;
  for (int i = 0; i < p->desc_rank; i++) numel *= p->desc_block[i];
  if (numel > (1 << 20)) return "the block has more than 1048576 elements";
  char tn[16];
  tc_ty_name(ty, tn, sizeof tn);
  size_t k = (size_t)snprintf(p->value, sizeof p->value, "tensordesc<%s[", tn);
  for (int i = 0; i < p->desc_rank; i++)
    k += (size_t)snprintf(p->value + k, sizeof p->value - k, "%s%lld", i ? ", " : "", (long long)p->desc_block[i]);
  snprintf(p->value + k, sizeof p->value - k, "]>");
  return NULL;
}

/* A signature entry of a runtime parameter (or of one element of a runtime tuple): a type
 * with an optional hint ("*fp32:16", "i32", "i32:16"; "i32:1" is the value 1), a tensor
 * descriptor, or a value (specialized away: *p is then a constexpr with *val). Returns an
 * error text (*unknown set when the text is neither a type nor a value), or NULL. */
static const char *runtime_entry(const char *t, size_t n, tc_kernel_param *p, tc_val *val, tc_arena *arena,
                                 bool quoted_str) {
  trim(&t, &n);
  const char *colon = memchr(t, ':', n);
  size_t tn = colon ? (size_t)(colon - t) : n;
  tc_ty ty;
  if (n > 10 && !memcmp(t, "tensordesc", 10)) return parse_tensordesc(t, n, p);
  if (tc_ty_parse(t, tn, &ty)) {
    p->kind = ty.ptr_depth ? TILEC_PARAM_POINTER : TILEC_PARAM_SCALAR;
    p->dtype = ty.dt;
    p->pointer_depth = ty.ptr_depth;
    if (colon) {
      char *end;
      long h = strtol(colon + 1, &end, 10);
      if (end != t + n || h < 1) return "bad hint";
      if (h == 1 && !ty.ptr_depth && tc_ty_is_int(ty)) {
        /* ":1" specializes an integer to the value 1, as Triton does. */
        p->kind = TILEC_PARAM_CONSTEXPR;
        *val = tv_int(1);
        snprintf(p->value, sizeof p->value, "1");
      } else if (h != 1 && h != 16) {
        return "unsupported hint (use :16 or :1)";
      } else {
        p->divisibility = (int)h;
      }
    }
    if (p->kind != TILEC_PARAM_CONSTEXPR && tc_ty_is_fp8(ty)) return "fp8 scalars are not supported";
    return NULL;
  }
  tc_val v = tc_value_from_text(arena, t, n);
  /* a string is a value only quoted inside a tuple (a tl.constexpr("s") element) */
  if (v.kind == TV_STR && !(quoted_str && n >= 2 && (t[0] == '\'' || t[0] == '"'))) return "unknown type";
  p->kind = TILEC_PARAM_CONSTEXPR;
  *val = v;
  value_text(&v, p->value, sizeof p->value);
  return NULL;
}

/* The end of the item starting at p inside a tuple entry that ends at `end`. */
static const char *item_end(const char *p, const char *end) {
  int depth = 0;
  char quote = 0;
  for (; p < end; p++) {
    if (quote) {
      if (*p == '\\' && p + 1 < end) p++;
      else if (*p == quote) quote = 0;
    } else if (*p == '\'' || *p == '"') quote = *p;
    else if (*p == '(' || *p == '[' || *p == '<') depth++;
    else if ((*p == ')' || *p == ']' || *p == '>') && depth) depth--;
    else if (*p == ',' && !depth) return p;
  }
  return end;
}

/* Where a runtime tuple's elements go: the kernel parameters made so far (info->params[0,
 * *k)) and the kernel's own parameters (for the names). */
typedef struct tuple_ctx {
  tc_kernel_info *info;
  int *k;
  const tc_func *fn;
  tc_default_eval eval; /* "@NAME" elements: the global NAME (NULL: none may appear) */
  void *eval_ctx;
  tc_arena *arena;
  tilec_status *err; /* why an "@NAME" element failed (returned instead of the entry's text) */
} tuple_ctx;

/* "@NAME" (len > 1): the value of global NAME of fn's module context (a @jit function, a
 * language builtin: values with no text of their own). */
static tilec_status *global_entry(const tc_func *fn, const char *t, size_t n, tc_arena *arena, tc_default_eval eval,
                                  void *eval_ctx, tc_val *out) {
  if (!eval)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "'%.*s' names a global of the kernel's module, which this compilation does not have",
                               (int)n, t);
  char *name = tc_arena_alloc(arena, n);
  if (!name) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  memcpy(name, t + 1, n - 1);
  name[n - 1] = 0;
  tc_expr ref = {.kind = TC_EXPR_NAME, .loc = fn->loc, .u.name = name};
  return eval(eval_ctx, fn, &ref, out);
}

/* A runtime tuple argument, "(ENTRY, ...)" (Triton flattens a tuple argument into its
 * elements): each element a runtime entry, a value, or a tuple again; "(NAME=ENTRY, ...)"
 * gives a NamedTuple's fields. Every runtime element becomes a parameter of the compiled
 * kernel named PARAM_I[_J...] (C identifiers, for the header), in order; in *out it is a
 * TV_INVALID item whose .i is that parameter's index (tc_tuple_param_leaf), the values are
 * constexpr items. Returns an error text, or NULL. */
static const char *tuple_entry(tuple_ctx *c, const char *t, size_t n, const char *name, tc_val *out) {
  trim(&t, &n);
  if (n < 2 || t[0] != '(' || t[n - 1] != ')') return "a tuple entry is written (ENTRY, ...)";
  const char *p = t + 1, *end = t + n - 1;
  int cap = 4, count = 0;
  tc_val *items = tc_arena_alloc(c->arena, sizeof(tc_val) * (size_t)cap);
  char fields[512] = "";
  size_t fl = 0;
  int named = -1;
  while (p < end) {
    const char *e = item_end(p, end);
    const char *it = p;
    size_t in = (size_t)(e - p);
    trim(&it, &in);
    p = e < end ? e + 1 : end;
    if (!in) {
      if (p >= end && count) break; /* a trailing comma: (x,) */
      return "empty tuple element";
    }
    /* NAME=ENTRY: a field of a NamedTuple */
    size_t id = 0;
    while (id < in && (isalnum((unsigned char)it[id]) || it[id] == '_')) id++;
    bool has_name =
        id > 0 && id < in && it[id] == '=' && (id + 1 >= in || it[id + 1] != '=') && !isdigit((unsigned char)it[0]);
    if (named >= 0 && has_name != (named == 1)) return "either every element of a tuple entry has a field name or none";
    named = has_name;
    if (has_name) {
      if (fl + id + 2 >= sizeof fields) return "too many NamedTuple fields";
      fl += (size_t)snprintf(fields + fl, sizeof fields - fl, "%s%.*s", count ? "," : "", (int)id, it);
      it += id + 1;
      in -= id + 1;
      trim(&it, &in);
    }
    if (count == cap) {
      tc_val *grown = tc_arena_alloc(c->arena, sizeof(tc_val) * (size_t)(cap * 2));
      memcpy(grown, items, sizeof(tc_val) * (size_t)cap);
      items = grown;
      cap *= 2;
    }
    char sub[300];
    snprintf(sub, sizeof sub, "%s_%d", name, count);
    tc_val *v = &items[count++];
    if (in >= 2 && it[0] == '(' && it[in - 1] == ')') {
      const char *why = tuple_entry(c, it, in, sub, v);
      if (why) return why;
      continue;
    }
    if (in > 1 && it[0] == '@') {
      tilec_status *st = global_entry(c->fn, it, in, c->arena, c->eval, c->eval_ctx, v);
      if (!st) continue;
      c->err = st;
      return "an element '@NAME' names no global of the kernel's module";
    }
    if (*c->k >= TC_MAX_PARAMS) return "more than 128 kernel parameters once tuples are flattened";
    tc_kernel_param *kp = &c->info->params[*c->k];
    memset(kp, 0, sizeof *kp);
    kp->divisibility = 1;
    tc_val val = tv_none();
    const char *why = runtime_entry(it, in, kp, &val, c->arena, true);
    if (why) return why;
    if (kp->kind == TILEC_PARAM_CONSTEXPR) {
      *v = val;
      continue;
    }
    if (strlen(sub) >= sizeof kp->name) return "a tuple element's parameter name is too long";
    for (int i = 0; i < c->fn->nparams; i++)
      if (!strcmp(c->fn->params[i].name, sub))
        return "a tuple element's parameter name (PARAM_INDEX) is taken by another parameter";
    for (int j = 0; j < *c->k; j++)
      if (!strcmp(c->info->params[j].name, sub))
        return "a tuple element's parameter name (PARAM_INDEX) is taken by another parameter";
    snprintf(kp->name, sizeof kp->name, "%s", sub);
    *v = (tc_val){.kind = TV_INVALID, .i = (*c->k)++};
  }
  *out = (tc_val){.kind = TV_TUPLE, .items = items, .nitems = count};
  if (named == 1) {
    out->s = tc_arena_strndup(c->arena, fields, fl);
    out->slen = fl;
  }
  return NULL;
}

bool tc_tuple_param_leaf(const tc_val *v) {
  if (v->kind != TV_TUPLE) return false;
  for (int i = 0; i < v->nitems; i++)
    if (v->items[i].kind == TV_INVALID || tc_tuple_param_leaf(&v->items[i])) return true;
  return false;
}

tilec_status *tc_specialize(const tc_module *mod, const tc_func *fn, const tilec_kernel_spec *spec,
                            tc_kernel_info *info, tc_val *vals, tc_arena *arena, tc_default_eval eval, void *eval_ctx) {
  int cuda_capability = info->cuda_capability; /* an input: the target's */
  memset(info, 0, sizeof *info);
  info->cuda_capability = cuda_capability;
  /* Names are kept in fixed buffers (the library's descriptor, the header): a longer one
   * would be cut and then match nothing, so it is refused where it is written. */
  if (strlen(fn->name) >= sizeof info->name)
    return tc_error_at(mod, fn->loc, TILEC_ERROR_UNSUPPORTED, "kernel name longer than %zu characters",
                       sizeof info->name - 1);
  snprintf(info->name, sizeof info->name, "%s", fn->name);
  if (fn->nparams > TC_MAX_PARAMS)
    return tilec_status_create(TILEC_ERROR_UNSUPPORTED, "kernel '%s' has more than %d parameters", fn->name,
                               TC_MAX_PARAMS);
  info->nparams = fn->nparams;
  entry entries[TC_MAX_PARAMS];
  memset(entries, 0, sizeof entries);
  int nentries = 0;
  if (spec->signature) {
    const char *s = spec->signature;
    const char *p = s;
    bool blank = true;
    for (const char *q = s; *q; q++)
      if (!isspace((unsigned char)*q)) blank = false;
    while (!blank) {
      const char *comma = entry_end(p);
      size_t n = comma ? (size_t)(comma - p) : strlen(p);
      const char *t = p;
      trim(&t, &n);
      if (nentries >= fn->nparams) {
        int total = nentries + 1;
        for (const char *q = comma; q; q = entry_end(q + 1)) total++;
        return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                   "signature has %d entries but kernel '%s' has %d parameters", total, fn->name,
                                   fn->nparams);
      }
      if (n == 0) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "signature entry %d is empty", nentries + 1);
      entries[nentries].text = t;
      entries[nentries].len = n;
      entries[nentries].given = true;
      nentries++;
      if (!comma) break;
      p = comma + 1;
    }
  }
  for (size_t d = 0; d < spec->num_defines; d++) {
    int j = -1;
    for (int i = 0; i < fn->nparams; i++)
      if (!strcmp(fn->params[i].name, spec->defines[d].name)) j = i;
    if (j < 0) {
      char names[512] = "";
      size_t k = 0;
      for (int i = 0; i < fn->nparams && k + 2 < sizeof names; i++)
        k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", i ? ", " : "", fn->params[i].name);
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel '%s' has no parameter '%s' (parameters: %s)",
                                 fn->name, spec->defines[d].name, names);
    }
    entries[j].text = spec->defines[d].value;
    entries[j].len = strlen(spec->defines[d].value);
    entries[j].given = true;
  }
  char sig[2048] = "";
  size_t sk = 0;
  int k = 0; /* info->params[k]: a runtime tuple takes one per runtime element */
  for (int i = 0; i < fn->nparams; i++) {
    const tc_param *fp = &fn->params[i];
    if (k >= TC_MAX_PARAMS)
      return tilec_status_create(TILEC_ERROR_UNSUPPORTED,
                                 "kernel '%s' has more than %d parameters once tuples are flattened", fn->name,
                                 TC_MAX_PARAMS);
    tc_kernel_param *p = &info->params[k];
    int k0 = k++;
    if (strlen(fp->name) >= sizeof p->name)
      return tc_error_at(mod, fp->loc, TILEC_ERROR_UNSUPPORTED, "parameter name longer than %zu characters",
                         sizeof p->name - 1);
    snprintf(p->name, sizeof p->name, "%s", fp->name);
    p->divisibility = 1;
    if (fp->is_star)
      return tc_error_at(mod, fp->loc, TILEC_ERROR_UNSUPPORTED, "*args/**kwargs kernel parameters are not supported");
    bool is_ce = tc_param_is_constexpr_annotation(fp->annotation);
    entry *e = &entries[i];
    if (!e->given) {
      if (!fp->default_value) {
        if (is_ce)
          return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                     "no value for constexpr parameter '%s' of kernel '%s' (give it in the signature "
                                     "or with -D %s=VALUE)",
                                     fp->name, fn->name, fp->name);
        if (spec->signature)
          return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                     "signature has %d entries but kernel '%s' has %d parameters", nentries, fn->name,
                                     fn->nparams);
        return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "no type or value for parameter '%s' of kernel '%s'",
                                   fp->name, fn->name);
      }
      /* Defaults are compile-time constants. */
      const tc_expr *d = fp->default_value;
      tc_val v;
      switch (d->kind) {
        case TC_EXPR_INT: v = tv_int(d->u.int_value); break;
        case TC_EXPR_FLOAT: v = tv_float(d->u.float_value); break;
        case TC_EXPR_BOOL: v = tv_bool(d->u.int_value != 0); break;
        case TC_EXPR_NONE: v = tv_none(); break;
        case TC_EXPR_STRING: v = tv_str(d->u.str.data, d->u.str.len); break;
        case TC_EXPR_UNARY:
          if (d->u.unary.op == TC_UOP_NEG && d->u.unary.operand->kind == TC_EXPR_INT) {
            v = tv_int(-d->u.unary.operand->u.int_value);
            break;
          }
          if (d->u.unary.op == TC_UOP_NEG && d->u.unary.operand->kind == TC_EXPR_FLOAT) {
            v = tv_float(-d->u.unary.operand->u.float_value);
            break;
          }
          /* fall through */
        default:
          if (!eval)
            return tc_error_at(mod, d->loc, TILEC_ERROR_UNSUPPORTED,
                               "default value of parameter '%s' must be a literal", fp->name);
          tilec_status *st = eval(eval_ctx, fn, d, &v);
          if (st) return st;
      }
      p->kind = TILEC_PARAM_CONSTEXPR;
      vals[i] = v;
      value_text(&v, p->value, sizeof p->value);
    } else if (e->len > 1 && e->text[0] == '@') {
      /* "@NAME": a value with no text of its own (a @jit function, a language builtin), the
       * global NAME of the kernel's module context (the drop-in adds one per such argument) */
      tilec_status *st = global_entry(fn, e->text, e->len, arena, eval, eval_ctx, &vals[i]);
      if (st) return st;
      p->kind = TILEC_PARAM_CONSTEXPR;
      snprintf(p->value, sizeof p->value, "%.*s", (int)e->len, e->text);
    } else if (is_ce) {
      p->kind = TILEC_PARAM_CONSTEXPR;
      vals[i] = tc_value_from_text(arena, e->text, e->len);
      value_text(&vals[i], p->value, sizeof p->value);
    } else {
      /* Runtime parameter: a type with optional :hint, a value (specialized away), or a
       * tuple of those (its runtime elements flattened into parameters of their own). */
      const char *t = e->text;
      size_t n = e->len;
      trim(&t, &n);
      tc_val tv;
      tuple_ctx tc = {info, &k, fn, eval, eval_ctx, arena, NULL};
      bool tuple = n >= 2 && t[0] == '(' && t[n - 1] == ')';
      k = k0;
      if (tuple) {
        const char *why = tuple_entry(&tc, t, n, fp->name, &tv);
        if (why) return tc.err ? tc.err : bad_entry(why, i, fp->name, e->text, e->len);
      }
      if (k > k0) { /* runtime elements: they are the kernel's parameters, this one is not */
        vals[i] = tv;
        for (int j = k0; j < k; j++) {
          const tc_kernel_param *q = &info->params[j];
          char ent[300];
          tc_ty qt = {q->dtype, q->pointer_depth, false};
          char qn[16];
          tc_ty_name(qt, qn, sizeof qn);
          if (q->kind == TILEC_PARAM_TENSORDESC) snprintf(ent, sizeof ent, "%s", q->value);
          else if (q->divisibility > 1) snprintf(ent, sizeof ent, "%s:%d", qn, q->divisibility);
          else snprintf(ent, sizeof ent, "%s", qn);
          sk += (size_t)snprintf(sig + sk, sk < sizeof sig ? sizeof sig - sk : 0, "%s%s", sk ? ", " : "", ent);
          if (sk >= sizeof sig) sk = sizeof sig - 1;
        }
        continue;
      }
      k = k0 + 1;
      memset(p, 0, sizeof *p);
      snprintf(p->name, sizeof p->name, "%s", fp->name);
      p->divisibility = 1;
      if (tuple) { /* every element a value: one constexpr tuple (a NamedTuple's fields kept) */
        p->kind = TILEC_PARAM_CONSTEXPR;
        vals[i] = tv;
        value_text(&tv, p->value, sizeof p->value);
        goto entry_done;
      }
      const char *why = runtime_entry(t, n, p, &vals[i], arena, false);
      if (why && !strcmp(why, "unknown type")) {
        const char *colon = memchr(t, ':', n);
        char what[160];
        snprintf(what, sizeof what, "unknown type '%.*s'", (int)(colon ? (size_t)(colon - t) : n), t);
        return bad_entry(what, i, fp->name, e->text, e->len);
      }
      if (why) return bad_entry(why, i, fp->name, e->text, e->len);
    }
  entry_done:;
    char ent[300];
    if (p->kind == TILEC_PARAM_CONSTEXPR || p->kind == TILEC_PARAM_TENSORDESC)
      snprintf(ent, sizeof ent, "%s", p->value);
    else {
      tc_ty ty = {p->dtype, p->pointer_depth, false};
      char tn[16];
      tc_ty_name(ty, tn, sizeof tn);
      if (p->divisibility > 1) snprintf(ent, sizeof ent, "%s:%d", tn, p->divisibility);
      else snprintf(ent, sizeof ent, "%s", tn);
    }
    sk += (size_t)snprintf(sig + sk, sk < sizeof sig ? sizeof sig - sk : 0, "%s%s", sk ? ", " : "", ent);
    if (sk >= sizeof sig) sk = sizeof sig - 1;
  }
  info->nparams = k;
  snprintf(info->signature, sizeof info->signature, "%s", sig);
  return NULL;
}

void tc_param_c_type(const tc_kernel_param *p, char *buf, size_t n) {
  if (p->kind == TILEC_PARAM_TENSORDESC) {
    snprintf(buf, n, "tilec_tensor_descriptor");
    return;
  }
  const char *base;
  switch (p->dtype) {
    case TILEC_DTYPE_I1: base = p->pointer_depth ? "int8_t" : "bool"; break;
    case TILEC_DTYPE_I8: base = "int8_t"; break;
    case TILEC_DTYPE_I16: base = "int16_t"; break;
    case TILEC_DTYPE_I32: base = "int32_t"; break;
    case TILEC_DTYPE_I64: base = "int64_t"; break;
    case TILEC_DTYPE_U8:
    case TILEC_DTYPE_FP8E5:
    case TILEC_DTYPE_FP8E4NV:
    case TILEC_DTYPE_FP8E4B15:
    case TILEC_DTYPE_FP8E4B8:
    case TILEC_DTYPE_FP8E5B16: base = "uint8_t"; break;
    case TILEC_DTYPE_U16:
    case TILEC_DTYPE_F16:
    case TILEC_DTYPE_BF16: base = "uint16_t"; break;
    case TILEC_DTYPE_U32: base = "uint32_t"; break;
    case TILEC_DTYPE_U64: base = "uint64_t"; break;
    case TILEC_DTYPE_F32: base = "float"; break;
    case TILEC_DTYPE_F64: base = "double"; break;
    default: base = "void"; break;
  }
  char stars[8] = "";
  int d = p->kind == TILEC_PARAM_POINTER ? p->pointer_depth : 0;
  for (int i = 0; i < d && i < 7; i++) stars[i] = '*';
  snprintf(buf, n, d ? "%s %s" : "%s%s", base, stars);
}
