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

tilec_status *tc_specialize(const tc_module *mod, const tc_func *fn, const tilec_kernel_spec *spec,
                            tc_kernel_info *info, tc_val *vals, tc_arena *arena, tc_default_eval eval,
                            void *eval_ctx) {
  memset(info, 0, sizeof *info);
  /* Names are kept in fixed buffers (the library's descriptor, the header): a longer one
   * would be cut and then match nothing, so it is refused where it is written. */
  if (strlen(fn->name) >= sizeof info->name)
    return tc_error_at(mod, fn->loc, TILEC_ERROR_UNSUPPORTED, "kernel name longer than %zu characters",
                       sizeof info->name - 1);
  snprintf(info->name, sizeof info->name, "%s", fn->name);
  if (fn->nparams > TC_MAX_PARAMS)
    return tilec_status_create(TILEC_ERROR_UNSUPPORTED, "kernel '%s' has more than %d parameters", fn->name, TC_MAX_PARAMS);
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
      if (n == 0)
        return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "signature entry %d is empty", nentries + 1);
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
  for (int i = 0; i < fn->nparams; i++) {
    const tc_param *fp = &fn->params[i];
    tc_kernel_param *p = &info->params[i];
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
        if (d->u.unary.op == TC_UOP_NEG && d->u.unary.operand->kind == TC_EXPR_INT) { v = tv_int(-d->u.unary.operand->u.int_value); break; }
        if (d->u.unary.op == TC_UOP_NEG && d->u.unary.operand->kind == TC_EXPR_FLOAT) { v = tv_float(-d->u.unary.operand->u.float_value); break; }
        /* fall through */
      default:
        if (!eval)
          return tc_error_at(mod, d->loc, TILEC_ERROR_UNSUPPORTED, "default value of parameter '%s' must be a literal",
                             fp->name);
        tilec_status *st = eval(eval_ctx, fn, d, &v);
        if (st) return st;
      }
      p->kind = TILEC_PARAM_CONSTEXPR;
      vals[i] = v;
      value_text(&v, p->value, sizeof p->value);
    } else if (is_ce) {
      p->kind = TILEC_PARAM_CONSTEXPR;
      vals[i] = tc_value_from_text(arena, e->text, e->len);
      value_text(&vals[i], p->value, sizeof p->value);
    } else {
      /* Runtime parameter: a type with optional :hint, or a value (specialized away). */
      const char *t = e->text;
      size_t n = e->len;
      trim(&t, &n);
      const char *colon = memchr(t, ':', n);
      size_t tn = colon ? (size_t)(colon - t) : n;
      tc_ty ty;
      if (n > 10 && !memcmp(t, "tensordesc", 10)) {
        const char *why = parse_tensordesc(t, n, p);
        if (why) return bad_entry(why, i, fp->name, e->text, e->len);
      } else if (tc_ty_parse(t, tn, &ty)) {
        p->kind = ty.ptr_depth ? TILEC_PARAM_POINTER : TILEC_PARAM_SCALAR;
        p->dtype = ty.dt;
        p->pointer_depth = ty.ptr_depth;
        if (colon) {
          char *end;
          long h = strtol(colon + 1, &end, 10);
          if (end != t + n || h < 1) return bad_entry("bad hint", i, fp->name, e->text, e->len);
          if (h == 1 && !ty.ptr_depth && tc_ty_is_int(ty)) {
            /* ":1" specializes an integer to the value 1, as Triton does. */
            p->kind = TILEC_PARAM_CONSTEXPR;
            vals[i] = tv_int(1);
            snprintf(p->value, sizeof p->value, "1");
          } else if (h != 1 && h != 16) {
            return bad_entry("unsupported hint (use :16 or :1)", i, fp->name, e->text, e->len);
          } else {
            p->divisibility = (int)h;
          }
        }
        if (p->kind != TILEC_PARAM_CONSTEXPR && tc_ty_is_fp8(ty))
          return bad_entry("fp8 scalars are not supported", i, fp->name, e->text, e->len);
      } else {
        tc_val v = tc_value_from_text(arena, t, n);
        if (v.kind == TV_STR) {
          char what[160];
          snprintf(what, sizeof what, "unknown type '%.*s'", (int)tn, t);
          return bad_entry(what, i, fp->name, e->text, e->len);
        }
        p->kind = TILEC_PARAM_CONSTEXPR;
        vals[i] = v;
        value_text(&v, p->value, sizeof p->value);
      }
    }
    char ent[300];
    if (p->kind == TILEC_PARAM_CONSTEXPR || p->kind == TILEC_PARAM_TENSORDESC) snprintf(ent, sizeof ent, "%s", p->value);
    else {
      tc_ty ty = {p->dtype, p->pointer_depth, false};
      char tn[16];
      tc_ty_name(ty, tn, sizeof tn);
      if (p->divisibility > 1) snprintf(ent, sizeof ent, "%s:%d", tn, p->divisibility);
      else snprintf(ent, sizeof ent, "%s", tn);
    }
    sk += (size_t)snprintf(sig + sk, sk < sizeof sig ? sizeof sig - sk : 0, "%s%s", i ? ", " : "", ent);
    if (sk >= sizeof sig) sk = sizeof sig - 1;
  }
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
  case TILEC_DTYPE_U8: case TILEC_DTYPE_FP8E5: case TILEC_DTYPE_FP8E4NV: case TILEC_DTYPE_FP8E4B15:
  case TILEC_DTYPE_FP8E4B8: case TILEC_DTYPE_FP8E5B16: base = "uint8_t"; break;
  case TILEC_DTYPE_U16: case TILEC_DTYPE_F16: case TILEC_DTYPE_BF16: base = "uint16_t"; break;
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
