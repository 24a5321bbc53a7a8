/* frontend/values.c — compile-time values written as text (signature entries, -D, defines,
 * constexpr globals): "3", "-2", "0x10", "1e-06", "True", "None", "'relu'" or a bare word
 * (a string), a dtype "tl.float16" / "triton.language.float16" / "tl.pointer_type(tl.int32)",
 * a tuple "(2, 3)" / "(4,)" / "()" or list "[2, 3]" of those. In: text. Out: tc_val (tuple
 * items in an arena) and back to text in the same syntax; equality of compile-time values. */
#include "frontend/signature.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static void trim(const char **s, size_t *n) {
  while (*n && isspace((unsigned char)**s)) (*s)++, (*n)--;
  while (*n && isspace((unsigned char)(*s)[*n - 1])) (*n)--;
}

static bool starts(const char *s, size_t n, const char *prefix, size_t *k) {
  size_t m = strlen(prefix);
  if (n < m || memcmp(s, prefix, m)) return false;
  *k = m;
  return true;
}

/* "tl.X", "triton.language.X" (X a dtype name as triton.language spells it) or
 * "tl.pointer_type(<dtype>)". */
static bool parse_dtype(const char *s, size_t n, tc_ty *out) {
  size_t k;
  out->is_const = false;
  if (!starts(s, n, "tl.", &k) && !starts(s, n, "triton.language.", &k)) return false;
  const char *name = s + k;
  size_t len = n - k;
  size_t pk;
  if (starts(name, len, "pointer_type(", &pk) && name[len - 1] == ')') {
    const char *in = name + pk;
    size_t inlen = len - pk - 1;
    trim(&in, &inlen);
    if (!parse_dtype(in, inlen, out)) return false;
    out->ptr_depth++;
    return true;
  }
  tc_ty t;
  if (!tc_ty_parse(name, len, &t) || t.ptr_depth) return false;
  /* only the names triton.language has (float16, not fp16 or half) */
  char canon[64];
  tc_ty_tl_name(t, canon, sizeof canon);
  if (strlen(canon) != len + 3 || memcmp(canon + 3, name, len)) return false;
  *out = t;
  return true;
}

/* Splits s[0, n) at commas outside brackets and quotes; returns the number of items
 * (up to max) or -1 when brackets or quotes do not balance. */
int tc_split_items(const char *s, size_t n, const char **items, size_t *lens, int max, bool *trailing_comma) {
  int count = 0, depth = 0;
  char quote = 0;
  size_t start = 0;
  *trailing_comma = false;
  for (size_t i = 0; i <= n; i++) {
    char c = i < n ? s[i] : ',';
    if (quote) {
      if (c == '\\' && i + 1 < n) i++;
      else if (c == quote) quote = 0;
      continue;
    }
    if (i < n && (c == '\'' || c == '"')) quote = c;
    else if (c == '(' || c == '[') depth++;
    else if (c == ')' || c == ']') {
      if (--depth < 0) return -1;
    } else if (c == ',' && depth == 0) {
      const char *it = s + start;
      size_t len = i - start;
      trim(&it, &len);
      if (i == n && len == 0 && count > 0) {
        *trailing_comma = true;
        break;
      }
      if (count == max) return -1;
      items[count] = it;
      lens[count] = len;
      count++;
      start = i + 1;
    }
  }
  if (quote || depth) return -1;
  return count;
}

tc_val tc_value_from_text(tc_arena *arena, const char *text, size_t len) {
  const char *s = text;
  size_t n = len;
  trim(&s, &n);
  tc_ty ty;
  if (parse_dtype(s, n, &ty)) return tv_dtype(ty);
  if (n >= 2 && ((s[0] == '(' && s[n - 1] == ')') || (s[0] == '[' && s[n - 1] == ']')) && arena) {
    enum { MAX_ITEMS = 64 };
    const char *items[MAX_ITEMS];
    size_t lens[MAX_ITEMS];
    bool trailing;
    const char *in = s + 1;
    size_t inlen = n - 2;
    trim(&in, &inlen);
    int k = inlen ? tc_split_items(in, inlen, items, lens, MAX_ITEMS, &trailing) : 0;
    bool ok = k >= 0;
    for (int i = 0; ok && i < k; i++) ok = lens[i] > 0;
    if (ok) {
      /* "(x)" is x parenthesized; a list is always a sequence */
      if (s[0] == '(' && k == 1 && !trailing) return tc_value_from_text(arena, items[0], lens[0]);
      tc_val r = {.kind = TV_TUPLE, .nitems = k};
      r.items = tc_arena_alloc(arena, sizeof(tc_val) * (size_t)(k + 1));
      if (r.items) {
        for (int i = 0; i < k; i++) r.items[i] = tc_value_from_text(arena, items[i], lens[i]);
        return r;
      }
    }
  }
  return tc_parse_constexpr_text(s, n);
}

bool tc_value_str(const tc_val *v, char conv, char *buf, size_t n) {
  if (!n) return false;
  if (v->kind == TV_DTYPE && !v->rank && !v->ptr_block) { /* str(tl.float32) is its name: "fp32" */
    tc_ty_triton_name(v->ty, buf, n);
    return true;
  }
  if (v->kind == TV_STR && conv != 's') {
    snprintf(buf, n, "'%.*s'", (int)v->slen, v->s);
    return true;
  }
  if (!tv_is_constexpr(v)) return false;
  return tc_value_to_text(v, buf, n);
}

bool tc_value_to_text(const tc_val *v, char *buf, size_t n) {
  if (!n) return false;
  buf[0] = 0;
  switch (v->kind) {
    case TV_INT:
      if (v->u64) snprintf(buf, n, "%llu", (unsigned long long)v->i);
      else snprintf(buf, n, "%lld", (long long)v->i);
      return true;
    case TV_FLOAT: {
      /* the shortest text that reads back as the same double, like Python's repr */
      for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v->f);
        double back;
        if (sscanf(buf, "%lf", &back) == 1 && back == v->f) break;
      }
      if (!strpbrk(buf, ".eEni")) snprintf(buf + strlen(buf), n - strlen(buf), ".0");
      return true;
    }
    case TV_BOOL: snprintf(buf, n, "%s", v->i ? "True" : "False"); return true;
    case TV_NONE: snprintf(buf, n, "None"); return true;
    case TV_STR: snprintf(buf, n, "%.*s", (int)v->slen, v->s); return true;
    case TV_DTYPE:
      if (v->rank || v->ptr_block) return false; /* block types have no spelling as a constexpr */
      tc_ty_tl_name(v->ty, buf, n);
      return true;
    case TV_TUPLE: {
      size_t k = (size_t)snprintf(buf, n, "(");
      for (int i = 0; i < v->nitems; i++) {
        if (k >= n) return false;
        if (i) k += (size_t)snprintf(buf + k, n - k, ", ");
        if (k >= n || !tc_value_to_text(&v->items[i], buf + k, n - k)) return false;
        if (v->items[i].kind == TV_STR) {
          /* quoted inside a tuple so that it reads back as one item */
          char tmp[256];
          snprintf(tmp, sizeof tmp, "'%s'", buf + k);
          snprintf(buf + k, n - k, "%s", tmp);
        }
        k += strlen(buf + k);
      }
      if (k < n) k += (size_t)snprintf(buf + k, n - k, v->nitems == 1 ? ",)" : ")");
      return k < n;
    }
    default: return false;
  }
}

bool tv_equal(const tc_val *a, const tc_val *b) {
  if (a->kind != b->kind) {
    /* Python: True == 1, 1 == 1.0 */
    if (tv_is_number(a) && tv_is_number(b)) {
      double x = a->kind == TV_FLOAT ? a->f : (double)a->i, y = b->kind == TV_FLOAT ? b->f : (double)b->i;
      return x == y;
    }
    return false;
  }
  switch (a->kind) {
    case TV_NONE:
    case TV_CONSTEXPR_TYPE:
    case TV_SLICE: return true;
    case TV_INT:
    case TV_BOOL: return a->i == b->i && a->u64 == b->u64;
    case TV_FLOAT: return a->f == b->f;
    case TV_STR: return a->slen == b->slen && !memcmp(a->s, b->s, a->slen);
    case TV_DTYPE: return tv_dtype_eq(a, b);
    case TV_TUPLE:
      if (a->nitems != b->nitems) return false;
      for (int i = 0; i < a->nitems; i++)
        if (!tv_equal(&a->items[i], &b->items[i])) return false;
      return true;
    case TV_JITFN: return a->fn == b->fn;
    case TV_TUPLE_CLASS: return a->s == b->s && !strcmp(a->name, b->name);
    case TV_CONSTEXPR_OF: return tv_equal(a->self, b->self);
    case TV_MODULE:
    case TV_BUILTIN: return !strcmp(a->name, b->name) && a->i == b->i;
    default: return false;
  }
}
