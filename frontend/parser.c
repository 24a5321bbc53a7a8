/* frontend/parser.c — recursive-descent parser for @triton.jit functions.
 * In: the token array of a whole Python file. Out: tc_func trees in the module's arena;
 * every other top-level statement is skipped by tokens, so host code only has to lex. */
#include "frontend/parser.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/arena.h"
#include "frontend/lexer.h"

/* Python's own parser gives up near this depth; it also bounds our C stack use. */
enum { TC_MAX_DEPTH = 200 };
/* Longest path from an expression's root to a leaf: a flat chain `a + b + c + ...` is
 * parsed by a loop but becomes a tree as deep as it is long, which the code generator and
 * the constant folder walk recursively. CPython 3.11 refuses `1 + 1 + ...` somewhere
 * between 1,000 and 5,000 terms ("maximum recursion depth exceeded during compilation"). */
enum { TC_MAX_TREE = 1000 };

typedef struct tc_parser {
  tc_module *m;
  tc_arena *a;
  const tc_token *toks;
  size_t ntoks, pos;
  jmp_buf *jb; /* errors unwind here: the arena owns every partial node, so nothing leaks */
  tilec_status *err;
  int depth;
  int tree; /* depth of the expression tree on the current path (nesting + chain links) */
} tc_parser;

/* A growable array in the arena; abandoned copies are reclaimed with the arena. */
typedef struct tc_vec {
  char *data;
  int n, cap;
  size_t elem;
} tc_vec;

static tc_loc tc_tok_loc(const tc_token *t) { return (tc_loc){t->line, t->col}; }

__attribute__((noreturn)) static void tc_throw(tc_parser *p) { longjmp(*p->jb, 1); }

__attribute__((noreturn, format(printf, 3, 4))) static void tc_fail(tc_parser *p, tc_loc loc, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  p->err = tc_error_at(p->m, loc, TILEC_ERROR_SYNTAX, "%s", msg);
  tc_throw(p);
}

__attribute__((noreturn)) static void tc_oom(tc_parser *p) {
  p->err = tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory while parsing");
  tc_throw(p);
}

static void *tc_new(tc_parser *p, size_t size) {
  void *x = tc_arena_alloc(p->a, size);
  if (!x) tc_oom(p);
  return x;
}

static void tc_vec_init(tc_vec *v, size_t elem) {
  memset(v, 0, sizeof *v);
  v->elem = elem;
}

/* Returns a zeroed slot for one more element. */
static void *tc_vec_push(tc_parser *p, tc_vec *v) {
  if (v->n == v->cap) {
    if (v->cap > INT_MAX / 2) tc_oom(p);
    int cap = v->cap ? v->cap * 2 : 4;
    char *d = tc_new(p, (size_t)cap * v->elem);
    if (v->n) memcpy(d, v->data, (size_t)v->n * v->elem);
    v->data = d;
    v->cap = cap;
  }
  return v->data + (size_t)v->n++ * v->elem;
}

static void tc_vec_push_ptr(tc_parser *p, tc_vec *v, void *x) {
  void **slot = tc_vec_push(p, v);
  *slot = x;
}

/* ---- tokens ---------------------------------------------------------------------- */

static const tc_token *tc_cur(const tc_parser *p) { return &p->toks[p->pos]; }

static const tc_token *tc_peek(const tc_parser *p, size_t k) {
  size_t i = p->pos + k;
  return &p->toks[i < p->ntoks ? i : p->ntoks - 1];
}

static const tc_token *tc_advance(tc_parser *p) {
  const tc_token *t = tc_cur(p);
  if (t->kind != TC_TOK_ENDMARKER) p->pos++;
  return t;
}

static int tc_tok_eq(const tc_token *t, tc_tok_kind kind, const char *text) {
  size_t n = strlen(text);
  return t->kind == kind && t->len == n && memcmp(t->start, text, n) == 0;
}

static int tc_is_op(const tc_token *t, const char *op) { return tc_tok_eq(t, TC_TOK_OP, op); }
static int tc_is_kw(const tc_token *t, const char *kw) { return tc_tok_eq(t, TC_TOK_NAME, kw); }

static int tc_accept_op(tc_parser *p, const char *op) {
  if (!tc_is_op(tc_cur(p), op)) return 0;
  tc_advance(p);
  return 1;
}

static const tc_token *tc_expect_op(tc_parser *p, const char *op, const char *msg) {
  if (!tc_is_op(tc_cur(p), op)) tc_fail(p, tc_tok_loc(tc_cur(p)), "%s", msg);
  return tc_advance(p);
}

static int tc_is_identifier(const tc_token *t) { return t->kind == TC_TOK_NAME && !tc_is_keyword(t->start, t->len); }

__attribute__((noreturn)) static void tc_fail_unexpected(tc_parser *p, const tc_token *t) {
  tc_loc loc = tc_tok_loc(t);
  switch (t->kind) {
    case TC_TOK_NEWLINE: tc_fail(p, loc, "unexpected end of line");
    case TC_TOK_INDENT: tc_fail(p, loc, "unexpected indent");
    case TC_TOK_DEDENT: tc_fail(p, loc, "unexpected unindent");
    case TC_TOK_ENDMARKER: tc_fail(p, loc, "unexpected end of file");
    default: break;
  }
  if (t->len <= 40 && !memchr(t->start, '\n', t->len) && !memchr(t->start, '\r', t->len))
    tc_fail(p, loc, "unexpected token '%.*s'", (int)t->len, t->start);
  tc_fail(p, loc, "unexpected %s",
          t->kind == TC_TOK_STRING   ? "string literal"
          : t->kind == TC_TOK_NUMBER ? "number"
                                     : "name");
}

static const char *tc_tok_str(tc_parser *p, const tc_token *t) {
  char *s = tc_arena_strndup(p->a, t->start, t->len);
  if (!s) tc_oom(p);
  return s;
}

static void tc_grow(tc_parser *p, tc_loc loc) {
  if (++p->tree > TC_MAX_TREE) tc_fail(p, loc, "expression too complex (more than %d operations deep)", TC_MAX_TREE);
}

static void tc_enter(tc_parser *p) {
  if (++p->depth > TC_MAX_DEPTH) tc_fail(p, tc_tok_loc(tc_cur(p)), "expression nested too deeply");
  tc_grow(p, tc_tok_loc(tc_cur(p)));
}

static void tc_leave(tc_parser *p) {
  p->depth--;
  p->tree--;
}

static tc_expr *tc_expr_new(tc_parser *p, tc_expr_kind kind, tc_loc loc) {
  tc_expr *e = tc_new(p, sizeof *e);
  e->kind = kind;
  e->loc = loc;
  return e;
}

static tc_stmt *tc_stmt_new(tc_parser *p, tc_stmt_kind kind, tc_loc loc) {
  tc_stmt *s = tc_new(p, sizeof *s);
  s->kind = kind;
  s->loc = loc;
  return s;
}

/* Whether t can begin an expression: decides if a trailing comma ends a tuple. */
static int tc_starts_expr(const tc_token *t) {
  static const char *const kws[] = {"not", "lambda", "True", "False", "None", "await", "yield"};
  switch (t->kind) {
    case TC_TOK_NUMBER:
    case TC_TOK_STRING: return 1;
    case TC_TOK_NAME:
      if (!tc_is_keyword(t->start, t->len)) return 1;
      for (size_t k = 0; k < sizeof kws / sizeof kws[0]; k++)
        if (tc_is_kw(t, kws[k])) return 1;
      return 0;
    case TC_TOK_OP: {
      static const char *const ops[] = {"(", "[", "{", "-", "+", "~", "*", "..."};
      for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (tc_is_op(t, ops[k])) return 1;
      return 0;
    }
    default: return 0;
  }
}

/* ---- expressions ----------------------------------------------------------------- */

static tc_expr *tc_parse_test(tc_parser *p);
static tc_expr *tc_parse_factor(tc_parser *p);
static tc_expr *tc_parse_binary(tc_parser *p, int level);

static const char *const tc_unsupported_suffix = "is not supported in @triton.jit functions";

static tc_expr *tc_parse_number(tc_parser *p, const tc_token *t) {
  const char *s = t->start;
  size_t n = t->len;
  int base = 10;
  if (n >= 2 && s[0] == '0' && strchr("xXoObB", s[1])) {
    base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
  } else if (memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n)) {
    char *buf = tc_new(p, n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
      if (s[i] != '_') buf[o++] = s[i];
    buf[o] = 0;
    tc_expr *e = tc_expr_new(p, TC_EXPR_FLOAT, tc_tok_loc(t));
    e->u.float_value = strtod(buf, NULL); /* overflow gives inf, as in Python */
    return e;
  }
  uint64_t v = 0;
  for (size_t i = base == 10 ? 0 : 2; i < n; i++) {
    int c = (unsigned char)s[i];
    if (c == '_') continue;
    unsigned d = c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
    if (v > (UINT64_MAX - d) / (unsigned)base)
      tc_fail(p, tc_tok_loc(t), "integer literal too large (Triton's integers stop at 2**64 - 1)");
    v = v * (unsigned)base + d;
  }
  tc_expr *e = tc_expr_new(p, TC_EXPR_INT, tc_tok_loc(t));
  e->u.int_value = (int64_t)v;
  e->int_u64 = v > (uint64_t)INT64_MAX; /* typed uint64, as Triton types such literals */
  return e;
}

typedef struct tc_piece {
  const char *data;
  size_t len;
} tc_piece;

/* A STRING expression of text decoded as a string literal of the given rawness would be
 * (escapes resolved unless raw); loc is where the text starts. */
static tc_expr *tc_fstring_literal(tc_parser *p, const char *text, size_t len, int raw, tc_loc loc) {
  char *src = tc_new(p, len + 8);
  int k = snprintf(src, len + 8, "%s\"\"\"", raw ? "r" : "");
  memcpy(src + k, text, len);
  memcpy(src + k + len, "\"\"\"", 4);
  tc_token t = {TC_TOK_STRING, src, (size_t)k + len + 3, loc.line, loc.col};
  tc_lex_error le;
  tc_expr *e = tc_expr_new(p, TC_EXPR_STRING, loc);
  char *data;
  if (tc_string_decode(p->a, &t, &data, &e->u.str.len, &le)) tc_fail(p, loc, "%s", le.msg);
  e->u.str.data = data;
  return e;
}

/* The expression of an f-string field, text[0, len) starting at loc: lexed in parentheses
 * (it may span lines or start with spaces) and parsed by this parser. */
static tc_expr *tc_fstring_field(tc_parser *p, const char *text, size_t len, tc_loc loc) {
  char *src = tc_new(p, len + 3);
  src[0] = '(';
  memcpy(src + 1, text, len);
  src[len + 1] = ')';
  tc_token *raw;
  size_t n;
  tc_lex_error le;
  if (tc_lex(src, len + 2, &raw, &n, &le))
    tc_fail(p, (tc_loc){loc.line + le.line - 1, le.line == 1 ? loc.col + le.col - 2 : le.col}, "f-string: %s", le.msg);
  tc_token *toks = tc_arena_alloc(p->a, n * sizeof *toks);
  if (toks) memcpy(toks, raw, n * sizeof *toks);
  tc_tokens_free(raw); /* before parsing: an error unwinds past this function */
  if (!toks) tc_fail(p, loc, "out of memory");
  for (size_t i = 0; i < n; i++) { /* to positions in the file */
    if (toks[i].line == 1) toks[i].col += loc.col - 2;
    toks[i].line += loc.line - 1;
  }
  const tc_token *saved = p->toks;
  size_t saved_n = p->ntoks, saved_pos = p->pos;
  jmp_buf *outer = p->jb;
  jmp_buf jb;
  p->jb = &jb;
  if (setjmp(jb)) { /* the module's tokens back before the error goes on unwinding */
    p->jb = outer;
    p->toks = saved;
    p->ntoks = saved_n;
    p->pos = saved_pos;
    if (p->err && strncmp(tilec_status_message(p->err), "f-string", 8)) tilec_status_annotate(p->err, "f-string");
    tc_throw(p);
  }
  p->toks = toks;
  p->ntoks = n;
  p->pos = 0;
  tc_expr *e = tc_parse_test(p);
  if (tc_cur(p)->kind != TC_TOK_NEWLINE) tc_fail(p, tc_tok_loc(tc_cur(p)), "expecting '}'");
  p->jb = outer;
  p->toks = saved;
  p->ntoks = saved_n;
  p->pos = saved_pos;
  return e;
}

/* One byte further in an f-string's body, keeping its line and column. */
static void fstr_step(const char *b, size_t *i, int *line, int *col) {
  if (b[*i] == '\n') {
    (*line)++;
    *col = 1;
  } else {
    (*col)++;
  }
  (*i)++;
}

/* The items of one f-string token: its literal runs ({{ and }} read as braces) and its
 * fields {expr[!conv][:spec]}. Triton formats each field with "{}" (or its conversion) and
 * ignores the spec, and so does this. */
static void tc_fstring_items(tc_parser *p, const tc_token *t, const tc_string_info *info, tc_vec *items,
                             tc_vec *convs) {
  const char *b = t->start + info->body_offset;
  size_t n = info->body_len, i = 0;
  int line = t->line, col = t->col + (int)info->body_offset; /* of b[i] */
  char *lit = tc_new(p, n + 1);
  size_t nlit = 0;
  tc_loc lit_loc = {line, col};
#define FSTR_STEP() fstr_step(b, &i, &line, &col)
  while (i < n) {
    char c = b[i];
    if ((c == '{' || c == '}') && i + 1 < n && b[i + 1] == c) {
      if (!nlit) lit_loc = (tc_loc){line, col};
      lit[nlit++] = c;
      FSTR_STEP();
      FSTR_STEP();
      continue;
    }
    if (c == '}') tc_fail(p, (tc_loc){line, col}, "f-string: single '}' is not allowed");
    if (c != '{') {
      if (!nlit) lit_loc = (tc_loc){line, col};
      if (c == '\\' && !info->is_raw && i + 1 < n) { /* an escape's two bytes */
        lit[nlit++] = b[i];
        FSTR_STEP();
      }
      lit[nlit++] = b[i];
      FSTR_STEP();
      continue;
    }
    if (nlit) {
      *(tc_expr **)tc_vec_push(p, items) = tc_fstring_literal(p, lit, nlit, info->is_raw, lit_loc);
      *(char *)tc_vec_push(p, convs) = 0;
      lit = tc_new(p, n + 1);
      nlit = 0;
    }
    FSTR_STEP(); /* '{' */
    tc_loc at = {line, col};
    size_t start = i;
    int depth = 0;
    char quote = 0;
    for (; i < n; FSTR_STEP()) {
      char d = b[i];
      if (quote) {
        if (d == quote) quote = 0;
        continue;
      }
      if (d == '\'' || d == '"') quote = d;
      else if (d == '(' || d == '[' || d == '{') depth++;
      else if ((d == ')' || d == ']' || d == '}') && depth) depth--;
      else if (!depth && (d == '}' || d == ':' || (d == '!' && !(i + 1 < n && b[i + 1] == '=')))) break;
    }
    if (i >= n) tc_fail(p, at, "f-string: expecting '}'");
    size_t end = i;
    while (end > start && (b[end - 1] == ' ' || b[end - 1] == '\t')) end--;
    /* {x=}: the text "x=" (as written, spaces kept), then x's repr (Python's, and Triton's) */
    bool self_doc = end > start + 1 && b[end - 1] == '=' && !strchr("=!<>", b[end - 2]);
    if (self_doc) {
      *(tc_expr **)tc_vec_push(p, items) = tc_fstring_literal(p, b + start, i - start, info->is_raw, at);
      *(char *)tc_vec_push(p, convs) = 0;
      end--;
    }
    if (end == start) tc_fail(p, at, "f-string: empty expression not allowed");
    tc_expr *e = tc_fstring_field(p, b + start, end - start, at);
    char conv = self_doc && b[i] != ':' ? 'r' : 's';
    if (b[i] == '!') {
      FSTR_STEP();
      if (i >= n || !strchr("sra", b[i])) tc_fail(p, (tc_loc){line, col}, "f-string: invalid conversion character");
      conv = b[i];
      FSTR_STEP();
    }
    if (i < n && b[i] == ':') { /* the spec, braces nested in it included: Triton ignores it */
      for (depth = 0; i < n && !(b[i] == '}' && !depth); FSTR_STEP()) depth += b[i] == '{' ? 1 : b[i] == '}' ? -1 : 0;
    }
    if (i >= n || b[i] != '}') tc_fail(p, at, "f-string: expecting '}'");
    FSTR_STEP();
    *(tc_expr **)tc_vec_push(p, items) = e;
    *(char *)tc_vec_push(p, convs) = conv;
  }
#undef FSTR_STEP
  if (nlit) {
    *(tc_expr **)tc_vec_push(p, items) = tc_fstring_literal(p, lit, nlit, info->is_raw, lit_loc);
    *(char *)tc_vec_push(p, convs) = 0;
  }
}

static tc_expr *tc_parse_strings(tc_parser *p) {
  const tc_token *first = tc_cur(p);
  for (size_t k = p->pos; k < p->ntoks && p->toks[k].kind == TC_TOK_STRING; k++) {
    tc_string_info info;
    tc_string_info_of(&p->toks[k], &info);
    if (!info.is_fstring) continue;
    /* an f-string among the literals: the whole run is one f-string */
    tc_vec items, convs;
    tc_vec_init(&items, sizeof(tc_expr *));
    tc_vec_init(&convs, sizeof(char));
    while (tc_cur(p)->kind == TC_TOK_STRING) {
      const tc_token *t = tc_advance(p);
      tc_string_info_of(t, &info);
      if (info.is_bytes) tc_fail(p, tc_tok_loc(t), "cannot mix bytes and nonbytes literals");
      if (info.is_fstring) {
        tc_fstring_items(p, t, &info, &items, &convs);
        continue;
      }
      tc_lex_error le;
      tc_expr *s = tc_expr_new(p, TC_EXPR_STRING, tc_tok_loc(t));
      char *data;
      if (tc_string_decode(p->a, t, &data, &s->u.str.len, &le)) tc_fail(p, (tc_loc){le.line, le.col}, "%s", le.msg);
      s->u.str.data = data;
      *(tc_expr **)tc_vec_push(p, &items) = s;
      *(char *)tc_vec_push(p, &convs) = 0;
    }
    tc_expr *e = tc_expr_new(p, TC_EXPR_FSTRING, tc_tok_loc(first));
    e->u.fstr.items = (tc_expr **)(void *)items.data;
    e->u.fstr.convs = convs.data;
    e->u.fstr.nitems = items.n;
    return e;
  }
  tc_vec parts;
  tc_vec_init(&parts, sizeof(tc_piece));
  size_t total = 0;
  int bytes = -1;
  while (tc_cur(p)->kind == TC_TOK_STRING) {
    const tc_token *t = tc_advance(p);
    tc_string_info info;
    tc_string_info_of(t, &info);
    if (bytes >= 0 && bytes != info.is_bytes) tc_fail(p, tc_tok_loc(t), "cannot mix bytes and nonbytes literals");
    bytes = info.is_bytes;
    tc_lex_error le;
    char *data;
    size_t len;
    if (tc_string_decode(p->a, t, &data, &len, &le)) tc_fail(p, (tc_loc){le.line, le.col}, "%s", le.msg);
    tc_piece *slot = tc_vec_push(p, &parts);
    slot->data = data;
    slot->len = len;
    total += len;
  }
  tc_expr *e = tc_expr_new(p, TC_EXPR_STRING, tc_tok_loc(first));
  if (parts.n == 1) {
    const tc_piece *only = (const tc_piece *)(void *)parts.data;
    e->u.str.data = only->data;
    e->u.str.len = only->len;
    return e;
  }
  char *out = tc_new(p, total + 1);
  size_t o = 0;
  for (int i = 0; i < parts.n; i++) {
    const tc_piece *part = (const tc_piece *)(void *)parts.data + i;
    memcpy(out + o, part->data, part->len);
    o += part->len;
  }
  e->u.str.data = out;
  e->u.str.len = total;
  return e;
}

static tc_expr *tc_parse_star_or_test(tc_parser *p) {
  const tc_token *t = tc_cur(p);
  if (tc_is_op(t, "*")) {
    tc_advance(p);
    tc_expr *e = tc_expr_new(p, TC_EXPR_STARRED, tc_tok_loc(t));
    e->u.starred.value = tc_parse_binary(p, 0);
    return e;
  }
  return tc_parse_test(p);
}

static int tc_at_comprehension(const tc_parser *p) {
  return tc_is_kw(tc_cur(p), "for") || tc_is_kw(tc_cur(p), "async");
}

static tc_expr *tc_finish_seq(tc_parser *p, tc_expr *e, tc_vec *items) {
  e->u.seq.items = (tc_expr **)(void *)items->data;
  e->u.seq.nitems = items->n;
  (void)p;
  return e;
}

static tc_expr *tc_parse_paren(tc_parser *p) {
  const tc_token *open = tc_advance(p);
  tc_loc loc = tc_tok_loc(open);
  tc_vec items;
  tc_vec_init(&items, sizeof(tc_expr *));
  if (tc_accept_op(p, ")")) return tc_finish_seq(p, tc_expr_new(p, TC_EXPR_TUPLE, loc), &items);
  if (tc_is_kw(tc_cur(p), "yield")) tc_fail(p, tc_tok_loc(tc_cur(p)), "yield expression %s", tc_unsupported_suffix);
  tc_expr *first = tc_parse_star_or_test(p);
  if (tc_at_comprehension(p)) tc_fail(p, loc, "generator expression %s", tc_unsupported_suffix);
  if (tc_accept_op(p, ")")) {
    if (first->kind == TC_EXPR_STARRED) tc_fail(p, first->loc, "cannot use starred expression here");
    return first;
  }
  if (!tc_is_op(tc_cur(p), ",")) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected ',' or ')'");
  tc_vec_push_ptr(p, &items, first);
  while (tc_accept_op(p, ",")) {
    if (tc_is_op(tc_cur(p), ")")) break;
    tc_vec_push_ptr(p, &items, tc_parse_star_or_test(p));
  }
  tc_expect_op(p, ")", "expected ',' or ')'");
  return tc_finish_seq(p, tc_expr_new(p, TC_EXPR_TUPLE, loc), &items);
}

static tc_expr *tc_parse_list_of(tc_parser *p, int targets);
static tc_expr *tc_parse_boolop(tc_parser *p, tc_boolop op);
static void tc_check_target(tc_parser *p, const tc_expr *e, int top);

/* [elt for target in iter if cond ...]: Triton compiles one generator over a tuple. */
static tc_expr *tc_parse_listcomp(tc_parser *p, tc_expr *elt, tc_loc loc) {
  if (tc_is_kw(tc_cur(p), "async")) tc_fail(p, tc_tok_loc(tc_cur(p)), "async comprehension %s", tc_unsupported_suffix);
  tc_advance(p); /* for */
  tc_expr *e = tc_expr_new(p, TC_EXPR_LISTCOMP, loc);
  e->u.comp.elt = elt;
  e->u.comp.target = tc_parse_list_of(p, 1);
  tc_check_target(p, e->u.comp.target, 1);
  if (!tc_is_kw(tc_cur(p), "in")) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected 'in' after 'for' target");
  tc_advance(p);
  e->u.comp.iter = tc_parse_boolop(p, TC_BOOL_OR);
  tc_vec conds;
  tc_vec_init(&conds, sizeof(tc_expr *));
  while (tc_is_kw(tc_cur(p), "if")) {
    tc_advance(p);
    tc_vec_push_ptr(p, &conds, tc_parse_boolop(p, TC_BOOL_OR));
  }
  e->u.comp.conds = (tc_expr **)(void *)conds.data;
  e->u.comp.nconds = conds.n;
  if (tc_at_comprehension(p))
    tc_fail(p, tc_tok_loc(tc_cur(p)), "nested comprehensions are not supported (Triton compiles one 'for')");
  tc_expect_op(p, "]", "expected ']' after the comprehension");
  return e;
}

static tc_expr *tc_parse_list(tc_parser *p) {
  const tc_token *open = tc_advance(p);
  tc_loc loc = tc_tok_loc(open);
  tc_vec items;
  tc_vec_init(&items, sizeof(tc_expr *));
  if (!tc_is_op(tc_cur(p), "]")) {
    tc_vec_push_ptr(p, &items, tc_parse_star_or_test(p));
    if (tc_at_comprehension(p)) return tc_parse_listcomp(p, ((tc_expr **)items.data)[0], loc);
    while (tc_accept_op(p, ",")) {
      if (tc_is_op(tc_cur(p), "]")) break;
      tc_vec_push_ptr(p, &items, tc_parse_star_or_test(p));
    }
  }
  tc_expect_op(p, "]", "expected ',' or ']'");
  return tc_finish_seq(p, tc_expr_new(p, TC_EXPR_LIST, loc), &items);
}

/* Dict and set displays are legal Python but not Triton: parse just far enough to name
 * the construct in the error. */
__attribute__((noreturn)) static void tc_parse_brace(tc_parser *p) {
  const tc_token *open = tc_advance(p);
  tc_loc loc = tc_tok_loc(open);
  const char *what = "dict literal";
  if (tc_is_op(tc_cur(p), "}") || tc_is_op(tc_cur(p), "**")) tc_fail(p, loc, "%s %s", what, tc_unsupported_suffix);
  tc_parse_star_or_test(p);
  if (tc_accept_op(p, ":")) {
    tc_parse_test(p);
    what = tc_at_comprehension(p) ? "dict comprehension" : "dict literal";
  } else {
    what = tc_at_comprehension(p) ? "set comprehension" : "set literal";
  }
  tc_fail(p, loc, "%s %s", what, tc_unsupported_suffix);
}

static tc_expr *tc_parse_atom(tc_parser *p) {
  const tc_token *t = tc_cur(p);
  tc_loc loc = tc_tok_loc(t);
  switch (t->kind) {
    case TC_TOK_NUMBER: tc_advance(p); return tc_parse_number(p, t);
    case TC_TOK_STRING: return tc_parse_strings(p);
    case TC_TOK_NAME: {
      if (tc_is_kw(t, "True") || tc_is_kw(t, "False")) {
        tc_advance(p);
        tc_expr *e = tc_expr_new(p, TC_EXPR_BOOL, loc);
        e->u.int_value = tc_is_kw(t, "True");
        return e;
      }
      if (tc_is_kw(t, "None")) {
        tc_advance(p);
        return tc_expr_new(p, TC_EXPR_NONE, loc);
      }
      if (tc_is_kw(t, "yield")) tc_fail(p, loc, "yield expression %s", tc_unsupported_suffix);
      if (!tc_is_identifier(t)) tc_fail_unexpected(p, t);
      tc_advance(p);
      tc_expr *e = tc_expr_new(p, TC_EXPR_NAME, loc);
      e->u.name = tc_tok_str(p, t);
      return e;
    }
    case TC_TOK_OP:
      if (tc_is_op(t, "(")) return tc_parse_paren(p);
      if (tc_is_op(t, "[")) return tc_parse_list(p);
      if (tc_is_op(t, "{")) tc_parse_brace(p);
      if (tc_is_op(t, "...")) {
        tc_advance(p);
        return tc_expr_new(p, TC_EXPR_ELLIPSIS, loc);
      }
      break;
    default: break;
  }
  tc_fail_unexpected(p, t);
}

static tc_expr *tc_parse_call(tc_parser *p, tc_expr *func, tc_loc start) {
  tc_advance(p); /* ( */
  tc_vec args, kws;
  tc_vec_init(&args, sizeof(tc_expr *));
  tc_vec_init(&kws, sizeof(tc_keyword));
  int saw_kw = 0, saw_kw_unpack = 0;
  while (!tc_is_op(tc_cur(p), ")")) {
    const tc_token *t = tc_cur(p);
    tc_loc loc = tc_tok_loc(t);
    if (tc_is_op(t, "*")) {
      tc_advance(p);
      if (saw_kw_unpack) tc_fail(p, loc, "iterable argument unpacking follows keyword argument unpacking");
      tc_expr *e = tc_expr_new(p, TC_EXPR_STARRED, loc);
      e->u.starred.value = tc_parse_test(p);
      tc_vec_push_ptr(p, &args, e);
    } else if (tc_is_op(t, "**")) {
      tc_advance(p);
      tc_keyword *k = tc_vec_push(p, &kws);
      k->loc = loc;
      k->value = tc_parse_test(p);
      saw_kw_unpack = 1;
    } else if (t->kind == TC_TOK_NAME && tc_is_op(tc_peek(p, 1), "=")) {
      if (!tc_is_identifier(t)) tc_fail_unexpected(p, t);
      tc_advance(p);
      tc_advance(p);
      const char *name = tc_tok_str(p, t);
      tc_keyword *prev = (tc_keyword *)(void *)kws.data;
      for (int i = 0; i < kws.n; i++)
        if (prev[i].name && strcmp(prev[i].name, name) == 0) tc_fail(p, loc, "keyword argument repeated: %s", name);
      tc_keyword *k = tc_vec_push(p, &kws);
      k->name = name;
      k->loc = loc;
      k->value = tc_parse_test(p);
      saw_kw = 1;
    } else {
      tc_expr *e = tc_parse_test(p);
      if (tc_at_comprehension(p)) tc_fail(p, e->loc, "generator expression %s", tc_unsupported_suffix);
      if (saw_kw_unpack) tc_fail(p, e->loc, "positional argument follows keyword argument unpacking");
      if (saw_kw) tc_fail(p, e->loc, "positional argument follows keyword argument");
      tc_vec_push_ptr(p, &args, e);
    }
    if (tc_accept_op(p, ",")) continue;
    if (!tc_is_op(tc_cur(p), ")")) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected ',' or ')' after function argument");
  }
  tc_advance(p); /* ) */
  tc_expr *e = tc_expr_new(p, TC_EXPR_CALL, start);
  e->u.call.func = func;
  e->u.call.args = (tc_expr **)(void *)args.data;
  e->u.call.nargs = args.n;
  e->u.call.kwargs = (tc_keyword *)(void *)kws.data;
  e->u.call.nkwargs = kws.n;
  return e;
}

static int tc_ends_slice_part(const tc_token *t) { return tc_is_op(t, ":") || tc_is_op(t, ",") || tc_is_op(t, "]"); }

static tc_expr *tc_parse_subscript_item(tc_parser *p) {
  const tc_token *t = tc_cur(p);
  if (tc_is_op(t, "*")) return tc_parse_star_or_test(p);
  tc_expr *lower = NULL;
  if (!tc_is_op(t, ":")) lower = tc_parse_test(p);
  if (!tc_is_op(tc_cur(p), ":")) return lower;
  tc_expr *e = tc_expr_new(p, TC_EXPR_SLICE, tc_tok_loc(t));
  tc_advance(p); /* : */
  e->u.slice.lower = lower;
  if (!tc_ends_slice_part(tc_cur(p))) e->u.slice.upper = tc_parse_test(p);
  if (tc_accept_op(p, ":") && !tc_ends_slice_part(tc_cur(p))) e->u.slice.step = tc_parse_test(p);
  return e;
}

static tc_expr *tc_parse_subscript(tc_parser *p, tc_expr *value, tc_loc start) {
  tc_advance(p); /* [ */
  tc_vec items;
  tc_vec_init(&items, sizeof(tc_expr *));
  if (tc_is_op(tc_cur(p), "]")) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected an index or slice");
  for (;;) {
    tc_vec_push_ptr(p, &items, tc_parse_subscript_item(p));
    if (tc_accept_op(p, ",")) {
      if (tc_is_op(tc_cur(p), "]")) break;
      continue;
    }
    if (tc_is_op(tc_cur(p), "]")) break;
    tc_fail(p, tc_tok_loc(tc_cur(p)), "expected ',' or ']'");
  }
  tc_advance(p); /* ] */
  tc_expr *e = tc_expr_new(p, TC_EXPR_SUBSCRIPT, start);
  e->u.subscript.value = value;
  e->u.subscript.items = (tc_expr **)(void *)items.data;
  e->u.subscript.nitems = items.n;
  return e;
}

static tc_expr *tc_parse_primary(tc_parser *p) {
  const tc_token *t = tc_cur(p);
  if (tc_is_kw(t, "await")) tc_fail(p, tc_tok_loc(t), "'await' %s", tc_unsupported_suffix);
  tc_loc start = tc_tok_loc(t); /* '(' of `(a).b`, as Python's ast has it */
  tc_expr *e = tc_parse_atom(p);
  int links = 0; /* each call, subscript and attribute wraps e one level deeper */
  for (;;) {
    const tc_token *c = tc_cur(p);
    if (tc_is_op(c, "(") || tc_is_op(c, "[") || tc_is_op(c, ".")) tc_grow(p, tc_tok_loc(c)), links++;
    if (tc_is_op(c, "(")) {
      e = tc_parse_call(p, e, start);
    } else if (tc_is_op(c, "[")) {
      e = tc_parse_subscript(p, e, start);
    } else if (tc_is_op(c, ".")) {
      tc_advance(p);
      const tc_token *n = tc_cur(p);
      if (!tc_is_identifier(n)) tc_fail(p, tc_tok_loc(n), "expected attribute name after '.'");
      tc_advance(p);
      tc_expr *a = tc_expr_new(p, TC_EXPR_ATTRIBUTE, start);
      a->u.attr.value = e;
      a->u.attr.name = tc_tok_str(p, n);
      e = a;
    } else {
      p->tree -= links;
      return e;
    }
  }
}

static tc_expr *tc_parse_power(tc_parser *p) {
  tc_loc start = tc_tok_loc(tc_cur(p));
  tc_expr *base = tc_parse_primary(p);
  if (!tc_accept_op(p, "**")) return base;
  tc_expr *e = tc_expr_new(p, TC_EXPR_BINOP, start);
  e->u.binop.op = TC_OP_POW;
  e->u.binop.lhs = base;
  tc_enter(p);                         /* right-assoc: `2 ** 2 ** ...` recurses here */
  e->u.binop.rhs = tc_parse_factor(p); /* and `2 ** -1` is legal */
  tc_leave(p);
  return e;
}

static tc_expr *tc_parse_factor(tc_parser *p) {
  const tc_token *t = tc_cur(p);
  tc_unop op;
  if (tc_is_op(t, "-")) op = TC_UOP_NEG;
  else if (tc_is_op(t, "+")) op = TC_UOP_POS;
  else if (tc_is_op(t, "~")) op = TC_UOP_INVERT;
  else return tc_parse_power(p);
  tc_advance(p);
  tc_enter(p);
  tc_expr *e = tc_expr_new(p, TC_EXPR_UNARY, tc_tok_loc(t));
  e->u.unary.op = op;
  e->u.unary.operand = tc_parse_factor(p);
  tc_leave(p);
  return e;
}

/* Binary levels from loosest to tightest: | ^ & (<< >>) (+ -) (* / // % @). */
static const struct {
  int level;
  const char *tok;
  tc_binop op;
} tc_binops[] = {
    {0, "|", TC_OP_BITOR},   {1, "^", TC_OP_BITXOR},    {2, "&", TC_OP_BITAND}, {3, "<<", TC_OP_LSHIFT},
    {3, ">>", TC_OP_RSHIFT}, {4, "+", TC_OP_ADD},       {4, "-", TC_OP_SUB},    {5, "*", TC_OP_MUL},
    {5, "/", TC_OP_TRUEDIV}, {5, "//", TC_OP_FLOORDIV}, {5, "%", TC_OP_MOD},    {5, "@", TC_OP_MATMUL},
};

static tc_expr *tc_parse_binary(tc_parser *p, int level) {
  tc_loc start = tc_tok_loc(tc_cur(p));
  tc_expr *lhs = level == 5 ? tc_parse_factor(p) : tc_parse_binary(p, level + 1);
  int links = 0;
  for (;;) {
    const tc_token *t = tc_cur(p);
    size_t k = 0, n = sizeof tc_binops / sizeof tc_binops[0];
    while (k < n && !(tc_binops[k].level == level && tc_is_op(t, tc_binops[k].tok))) k++;
    if (k == n) {
      p->tree -= links;
      return lhs;
    }
    tc_grow(p, tc_tok_loc(t));
    links++;
    tc_advance(p);
    tc_expr *e = tc_expr_new(p, TC_EXPR_BINOP, start);
    e->u.binop.op = tc_binops[k].op;
    e->u.binop.lhs = lhs;
    e->u.binop.rhs = level == 5 ? tc_parse_factor(p) : tc_parse_binary(p, level + 1);
    lhs = e;
  }
}

/* Recognizes a comparison operator at the cursor and consumes it. */
static int tc_accept_cmp(tc_parser *p, tc_cmpop *op) {
  static const struct {
    const char *tok;
    tc_cmpop op;
  } ops[] = {{"<", TC_CMP_LT},  {"<=", TC_CMP_LE}, {">", TC_CMP_GT},
             {">=", TC_CMP_GE}, {"==", TC_CMP_EQ}, {"!=", TC_CMP_NE}};
  const tc_token *t = tc_cur(p);
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    if (tc_is_op(t, ops[k].tok)) {
      *op = ops[k].op;
      tc_advance(p);
      return 1;
    }
  }
  if (tc_is_kw(t, "in")) {
    *op = TC_CMP_IN;
    tc_advance(p);
    return 1;
  }
  if (tc_is_kw(t, "not") && tc_is_kw(tc_peek(p, 1), "in")) {
    *op = TC_CMP_NOT_IN;
    tc_advance(p);
    tc_advance(p);
    return 1;
  }
  if (tc_is_kw(t, "is")) {
    tc_advance(p);
    *op = TC_CMP_IS;
    if (tc_is_kw(tc_cur(p), "not")) {
      tc_advance(p);
      *op = TC_CMP_IS_NOT;
    }
    return 1;
  }
  return 0;
}

static tc_expr *tc_parse_comparison(tc_parser *p) {
  tc_loc start = tc_tok_loc(tc_cur(p));
  tc_expr *first = tc_parse_binary(p, 0);
  tc_cmpop op;
  if (!tc_accept_cmp(p, &op)) return first;
  tc_vec operands, ops;
  tc_vec_init(&operands, sizeof(tc_expr *));
  tc_vec_init(&ops, sizeof(tc_cmpop));
  tc_vec_push_ptr(p, &operands, first);
  do {
    *(tc_cmpop *)tc_vec_push(p, &ops) = op;
    tc_vec_push_ptr(p, &operands, tc_parse_binary(p, 0));
  } while (tc_accept_cmp(p, &op));
  tc_expr *e = tc_expr_new(p, TC_EXPR_COMPARE, start);
  e->u.compare.operands = (tc_expr **)(void *)operands.data;
  e->u.compare.ops = (tc_cmpop *)(void *)ops.data;
  e->u.compare.nops = ops.n;
  return e;
}

static tc_expr *tc_parse_not(tc_parser *p) {
  const tc_token *t = tc_cur(p);
  if (!tc_is_kw(t, "not")) return tc_parse_comparison(p);
  tc_advance(p);
  tc_enter(p);
  tc_expr *e = tc_expr_new(p, TC_EXPR_UNARY, tc_tok_loc(t));
  e->u.unary.op = TC_UOP_NOT;
  e->u.unary.operand = tc_parse_not(p);
  tc_leave(p);
  return e;
}

static tc_expr *tc_parse_boolop(tc_parser *p, tc_boolop op) {
  const char *kw = op == TC_BOOL_OR ? "or" : "and";
  tc_loc start = tc_tok_loc(tc_cur(p));
  tc_expr *lhs = op == TC_BOOL_OR ? tc_parse_boolop(p, TC_BOOL_AND) : tc_parse_not(p);
  int links = 0;
  while (tc_is_kw(tc_cur(p), kw)) {
    tc_grow(p, tc_tok_loc(tc_cur(p)));
    links++;
    tc_advance(p);
    tc_expr *e = tc_expr_new(p, TC_EXPR_BOOLOP, start);
    e->u.boolop.op = op;
    e->u.boolop.lhs = lhs;
    e->u.boolop.rhs = op == TC_BOOL_OR ? tc_parse_boolop(p, TC_BOOL_AND) : tc_parse_not(p);
    lhs = e;
  }
  p->tree -= links;
  return lhs;
}

/* Lambdas only need to parse: their parameters are skipped, the body is kept so the
 * code generator can point at it. */
static tc_expr *tc_parse_lambda(tc_parser *p) {
  const tc_token *t = tc_advance(p);
  int nest = 0;
  for (;;) {
    const tc_token *c = tc_cur(p);
    if (c->kind != TC_TOK_NAME && c->kind != TC_TOK_OP && c->kind != TC_TOK_NUMBER && c->kind != TC_TOK_STRING)
      tc_fail(p, tc_tok_loc(c), "expected ':' in lambda expression");
    if (tc_is_op(c, "(") || tc_is_op(c, "[") || tc_is_op(c, "{")) {
      nest++;
    } else if (tc_is_op(c, ")") || tc_is_op(c, "]") || tc_is_op(c, "}")) {
      if (nest == 0) tc_fail(p, tc_tok_loc(c), "expected ':' in lambda expression");
      nest--;
    } else if (nest == 0 && tc_is_op(c, ":")) {
      break;
    }
    tc_advance(p);
  }
  tc_advance(p); /* : */
  tc_expr *e = tc_expr_new(p, TC_EXPR_LAMBDA, tc_tok_loc(t));
  e->u.lambda.body = tc_parse_test(p);
  return e;
}

static tc_expr *tc_parse_test(tc_parser *p) {
  tc_enter(p);
  tc_loc start = tc_tok_loc(tc_cur(p));
  tc_expr *e;
  if (tc_is_kw(tc_cur(p), "lambda")) {
    e = tc_parse_lambda(p);
  } else {
    e = tc_parse_boolop(p, TC_BOOL_OR);
    if (tc_is_kw(tc_cur(p), "if")) {
      tc_advance(p);
      tc_expr *ife = tc_expr_new(p, TC_EXPR_IFEXP, start);
      ife->u.ifexp.body = e;
      ife->u.ifexp.test = tc_parse_boolop(p, TC_BOOL_OR);
      if (!tc_is_kw(tc_cur(p), "else")) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected 'else' after 'if' expression");
      tc_advance(p);
      ife->u.ifexp.orelse = tc_parse_test(p);
      e = ife;
    }
  }
  if (tc_is_op(tc_cur(p), ":="))
    tc_fail(p, tc_tok_loc(tc_cur(p)), "assignment expression (':=') %s", tc_unsupported_suffix);
  tc_leave(p);
  return e;
}

/* A comma list of `item`s; more than one (or a trailing comma) makes a bare tuple. */
static tc_expr *tc_parse_list_of(tc_parser *p, int targets) {
  tc_loc start = tc_tok_loc(tc_cur(p));
  tc_expr *first;
  if (targets && !tc_is_op(tc_cur(p), "*")) first = tc_parse_binary(p, 0);
  else first = tc_parse_star_or_test(p);
  if (!tc_is_op(tc_cur(p), ",")) return first;
  tc_vec items;
  tc_vec_init(&items, sizeof(tc_expr *));
  tc_vec_push_ptr(p, &items, first);
  while (tc_accept_op(p, ",")) {
    if (!tc_starts_expr(tc_cur(p))) break;
    if (targets && !tc_is_op(tc_cur(p), "*")) tc_vec_push_ptr(p, &items, tc_parse_binary(p, 0));
    else tc_vec_push_ptr(p, &items, tc_parse_star_or_test(p));
  }
  return tc_finish_seq(p, tc_expr_new(p, TC_EXPR_TUPLE, start), &items);
}

static tc_expr *tc_parse_testlist(tc_parser *p) { return tc_parse_list_of(p, 0); }

/* ---- statements ------------------------------------------------------------------ */

static void tc_parse_statement(tc_parser *p, tc_vec *out);
static tc_func *tc_parse_def(tc_parser *p, tc_vec *decorators);

static const char *tc_describe(const tc_expr *e) {
  switch (e->kind) {
    case TC_EXPR_CALL: return "function call";
    case TC_EXPR_INT:
    case TC_EXPR_FLOAT:
    case TC_EXPR_STRING: return "literal";
    case TC_EXPR_FSTRING: return "f-string expression";
    case TC_EXPR_ELLIPSIS: return "ellipsis";
    case TC_EXPR_BOOL: return e->u.int_value ? "True" : "False";
    case TC_EXPR_NONE: return "None";
    case TC_EXPR_COMPARE: return "comparison";
    case TC_EXPR_IFEXP: return "conditional expression";
    case TC_EXPR_LISTCOMP: return "list comprehension";
    case TC_EXPR_LAMBDA: return "lambda";
    case TC_EXPR_TUPLE: return "tuple";
    case TC_EXPR_LIST: return "list";
    case TC_EXPR_STARRED: return "starred";
    case TC_EXPR_NAME: return "name";
    case TC_EXPR_ATTRIBUTE: return "attribute";
    case TC_EXPR_SUBSCRIPT: return "subscript";
    default: return "expression";
  }
}

static void tc_check_target(tc_parser *p, const tc_expr *e, int top) {
  switch (e->kind) {
    case TC_EXPR_NAME:
    case TC_EXPR_ATTRIBUTE:
    case TC_EXPR_SUBSCRIPT: return;
    case TC_EXPR_TUPLE:
    case TC_EXPR_LIST:
      for (int i = 0; i < e->u.seq.nitems; i++) tc_check_target(p, e->u.seq.items[i], 0);
      return;
    case TC_EXPR_STARRED:
      if (top) tc_fail(p, e->loc, "starred assignment target must be in a list or tuple");
      tc_check_target(p, e->u.starred.value, 0);
      return;
    default: tc_fail(p, e->loc, "cannot assign to %s", tc_describe(e));
  }
}

static int tc_at_stmt_end(const tc_parser *p) {
  const tc_token *t = tc_cur(p);
  return t->kind == TC_TOK_NEWLINE || t->kind == TC_TOK_ENDMARKER || tc_is_op(t, ";");
}

static const struct {
  const char *tok;
  tc_binop op;
} tc_augops[] = {
    {"+=", TC_OP_ADD},   {"-=", TC_OP_SUB},    {"*=", TC_OP_MUL},     {"/=", TC_OP_TRUEDIV}, {"//=", TC_OP_FLOORDIV},
    {"%=", TC_OP_MOD},   {"**=", TC_OP_POW},   {"<<=", TC_OP_LSHIFT}, {">>=", TC_OP_RSHIFT}, {"&=", TC_OP_BITAND},
    {"|=", TC_OP_BITOR}, {"^=", TC_OP_BITXOR}, {"@=", TC_OP_MATMUL},
};

static tc_stmt *tc_parse_expr_stmt(tc_parser *p) {
  tc_loc loc = tc_tok_loc(tc_cur(p));
  tc_expr *first = tc_parse_testlist(p);
  const tc_token *t = tc_cur(p);
  if (tc_is_op(t, ":")) {
    if (first->kind == TC_EXPR_TUPLE || first->kind == TC_EXPR_LIST)
      tc_fail(p, first->loc, "only single target (not %s) can be annotated", tc_describe(first));
    if (first->kind != TC_EXPR_NAME && first->kind != TC_EXPR_ATTRIBUTE && first->kind != TC_EXPR_SUBSCRIPT)
      tc_fail(p, first->loc, "illegal target for annotation");
    tc_advance(p);
    tc_stmt *s = tc_stmt_new(p, TC_STMT_ANNASSIGN, loc);
    s->u.annassign.target = first;
    s->u.annassign.annotation = tc_parse_test(p);
    if (tc_accept_op(p, "=")) s->u.annassign.value = tc_parse_testlist(p);
    return s;
  }
  for (size_t k = 0; k < sizeof tc_augops / sizeof tc_augops[0]; k++) {
    if (!tc_is_op(t, tc_augops[k].tok)) continue;
    if (first->kind != TC_EXPR_NAME && first->kind != TC_EXPR_ATTRIBUTE && first->kind != TC_EXPR_SUBSCRIPT)
      tc_fail(p, first->loc, "'%s' is an illegal expression for augmented assignment", tc_describe(first));
    tc_advance(p);
    tc_stmt *s = tc_stmt_new(p, TC_STMT_AUGASSIGN, loc);
    s->u.augassign.target = first;
    s->u.augassign.op = tc_augops[k].op;
    s->u.augassign.value = tc_parse_testlist(p);
    return s;
  }
  if (tc_is_op(t, "=")) {
    tc_vec targets;
    tc_vec_init(&targets, sizeof(tc_expr *));
    tc_expr *value = first;
    while (tc_accept_op(p, "=")) {
      tc_check_target(p, value, 1);
      tc_vec_push_ptr(p, &targets, value);
      value = tc_parse_testlist(p);
    }
    tc_stmt *s = tc_stmt_new(p, TC_STMT_ASSIGN, loc);
    s->u.assign.targets = (tc_expr **)(void *)targets.data;
    s->u.assign.ntargets = targets.n;
    s->u.assign.value = value;
    return s;
  }
  if (first->kind == TC_EXPR_STARRED) tc_fail(p, first->loc, "cannot use starred expression here");
  tc_stmt *s = tc_stmt_new(p, TC_STMT_EXPR, loc);
  s->u.expr.value = first;
  return s;
}

static tc_stmt *tc_other(tc_parser *p, tc_loc loc, const char *what) {
  tc_stmt *s = tc_stmt_new(p, TC_STMT_OTHER, loc);
  s->u.other.what = what;
  return s;
}

static tc_stmt *tc_parse_small_stmt(tc_parser *p) {
  static const struct {
    const char *kw, *what;
  } others[] = {
      {"import", "import statement"},     {"from", "import statement"}, {"global", "global statement"},
      {"nonlocal", "nonlocal statement"}, {"del", "del statement"},     {"raise", "raise statement"},
      {"yield", "yield expression"},
  };
  const tc_token *t = tc_cur(p);
  tc_loc loc = tc_tok_loc(t);
  if (t->kind == TC_TOK_NAME) {
    if (tc_is_kw(t, "pass") || tc_is_kw(t, "break") || tc_is_kw(t, "continue")) {
      tc_advance(p);
      return tc_stmt_new(p,
                         tc_is_kw(t, "pass")    ? TC_STMT_PASS
                         : tc_is_kw(t, "break") ? TC_STMT_BREAK
                                                : TC_STMT_CONTINUE,
                         loc);
    }
    if (tc_is_kw(t, "return")) {
      tc_advance(p);
      tc_stmt *s = tc_stmt_new(p, TC_STMT_RETURN, loc);
      if (!tc_at_stmt_end(p)) s->u.ret.value = tc_parse_testlist(p);
      return s;
    }
    if (tc_is_kw(t, "assert")) {
      tc_advance(p);
      tc_stmt *s = tc_stmt_new(p, TC_STMT_ASSERT, loc);
      s->u.assert_.test = tc_parse_test(p);
      if (tc_accept_op(p, ",")) s->u.assert_.msg = tc_parse_test(p);
      return s;
    }
    if (tc_is_kw(t, "type") && tc_is_identifier(tc_peek(p, 1))) {
      /* soft keyword: `type X = ...` puts a name after a name, never valid otherwise */
      while (!tc_at_stmt_end(p)) tc_advance(p);
      return tc_other(p, loc, "type alias statement");
    }
    if (tc_is_kw(t, "raise")) { /* a compile-time Python function's error: what it raises is kept */
      tc_advance(p);
      tc_stmt *s = tc_other(p, loc, "raise statement");
      if (!tc_at_stmt_end(p) && !tc_is_kw(tc_cur(p), "from")) s->u.other.raised = tc_parse_test(p);
      while (!tc_at_stmt_end(p)) tc_advance(p); /* `from cause` */
      return s;
    }
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
      if (!tc_is_kw(t, others[k].kw)) continue;
      /* Not Triton: keep only the kind and location; the tokens need no meaning. */
      while (!tc_at_stmt_end(p)) tc_advance(p);
      return tc_other(p, loc, others[k].what);
    }
  }
  return tc_parse_expr_stmt(p);
}

static void tc_parse_simple_stmts(tc_parser *p, tc_vec *out) {
  for (;;) {
    tc_vec_push_ptr(p, out, tc_parse_small_stmt(p));
    if (tc_accept_op(p, ";")) {
      if (tc_cur(p)->kind == TC_TOK_NEWLINE) {
        tc_advance(p);
        return;
      }
      continue;
    }
    const tc_token *t = tc_cur(p);
    if (t->kind == TC_TOK_NEWLINE) {
      tc_advance(p);
      return;
    }
    if (t->kind == TC_TOK_ENDMARKER) return;
    tc_fail_unexpected(p, t);
  }
}

static void tc_finish_block(tc_block *b, tc_vec *v) {
  b->stmts = (tc_stmt **)(void *)v->data;
  b->nstmts = v->n;
}

/* The body after a ':' — an indented block or simple statements on the same line. */
static void tc_parse_suite(tc_parser *p, tc_block *out, const char *what, int line) {
  tc_vec stmts;
  tc_vec_init(&stmts, sizeof(tc_stmt *));
  if (tc_cur(p)->kind != TC_TOK_NEWLINE) {
    tc_parse_simple_stmts(p, &stmts);
    tc_finish_block(out, &stmts);
    return;
  }
  tc_advance(p);
  if (tc_cur(p)->kind != TC_TOK_INDENT)
    tc_fail(p, tc_tok_loc(tc_cur(p)), "expected an indented block after %s on line %d", what, line);
  tc_advance(p);
  while (tc_cur(p)->kind != TC_TOK_DEDENT && tc_cur(p)->kind != TC_TOK_ENDMARKER) tc_parse_statement(p, &stmts);
  tc_advance(p); /* DEDENT */
  tc_finish_block(out, &stmts);
}

static void tc_parse_else(tc_parser *p, tc_block *orelse) {
  if (!tc_is_kw(tc_cur(p), "else")) return;
  const tc_token *t = tc_advance(p);
  tc_expect_op(p, ":", "expected ':' after 'else'");
  tc_parse_suite(p, orelse, "'else' statement", t->line);
}

static tc_stmt *tc_parse_if(tc_parser *p) {
  const tc_token *t = tc_advance(p);
  tc_stmt *head = tc_stmt_new(p, TC_STMT_IF, tc_tok_loc(t));
  tc_stmt *s = head;
  int branches = 0;
  /* elif chains are built iteratively so a long chain cannot exhaust the stack */
  for (;;) {
    int is_elif = tc_is_kw(t, "elif");
    s->u.if_.test = tc_parse_test(p);
    tc_expect_op(p, ":", is_elif ? "expected ':' after 'elif' condition" : "expected ':' after 'if' condition");
    tc_parse_suite(p, &s->u.if_.body, is_elif ? "'elif' statement" : "'if' statement", t->line);
    if (!tc_is_kw(tc_cur(p), "elif")) break;
    /* Each elif is an if in the previous one's else: the code generator nests them. */
    if (++branches >= TC_MAX_TREE)
      tc_fail(p, tc_tok_loc(tc_cur(p)), "'elif' chain too long (more than %d branches)", TC_MAX_TREE);
    t = tc_advance(p);
    tc_stmt *next = tc_stmt_new(p, TC_STMT_IF, tc_tok_loc(t));
    tc_stmt **one = tc_new(p, sizeof *one);
    one[0] = next;
    s->u.if_.orelse.stmts = one;
    s->u.if_.orelse.nstmts = 1;
    s = next;
  }
  tc_parse_else(p, &s->u.if_.orelse);
  return head;
}

static tc_stmt *tc_parse_for(tc_parser *p) {
  const tc_token *t = tc_advance(p);
  tc_stmt *s = tc_stmt_new(p, TC_STMT_FOR, tc_tok_loc(t));
  s->u.for_.target = tc_parse_list_of(p, 1);
  tc_check_target(p, s->u.for_.target, 1);
  if (!tc_is_kw(tc_cur(p), "in")) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected 'in' after 'for' target");
  tc_advance(p);
  s->u.for_.iter = tc_parse_testlist(p);
  tc_expect_op(p, ":", "expected ':' after 'for' iterable");
  tc_parse_suite(p, &s->u.for_.body, "'for' statement", t->line);
  tc_parse_else(p, &s->u.for_.orelse);
  return s;
}

static tc_stmt *tc_parse_while(tc_parser *p) {
  const tc_token *t = tc_advance(p);
  tc_stmt *s = tc_stmt_new(p, TC_STMT_WHILE, tc_tok_loc(t));
  s->u.while_.test = tc_parse_test(p);
  tc_expect_op(p, ":", "expected ':' after 'while' condition");
  tc_parse_suite(p, &s->u.while_.body, "'while' statement", t->line);
  tc_parse_else(p, &s->u.while_.orelse);
  return s;
}

/* Skips an INDENT ... matching DEDENT run at the cursor. */
static void tc_skip_block(tc_parser *p) {
  int depth = 0;
  do {
    const tc_token *t = tc_advance(p);
    if (t->kind == TC_TOK_INDENT) depth++;
    else if (t->kind == TC_TOK_DEDENT) depth--;
    else if (t->kind == TC_TOK_ENDMARKER) return;
  } while (depth > 0);
}

/* Skips the rest of the logical line and, if it opens one, the indented block. */
static void tc_skip_logical(tc_parser *p) {
  while (tc_cur(p)->kind != TC_TOK_NEWLINE && tc_cur(p)->kind != TC_TOK_ENDMARKER) tc_advance(p);
  tc_advance(p);
  if (tc_cur(p)->kind == TC_TOK_INDENT) tc_skip_block(p);
}

static tc_stmt *tc_skip_compound(tc_parser *p, tc_loc loc, const char *what) {
  int is_try = tc_is_kw(tc_cur(p), "try");
  tc_skip_logical(p);
  while (is_try && (tc_is_kw(tc_cur(p), "except") || tc_is_kw(tc_cur(p), "else") || tc_is_kw(tc_cur(p), "finally")))
    tc_skip_logical(p);
  return tc_other(p, loc, what);
}

static void tc_parse_statement(tc_parser *p, tc_vec *out) {
  static const struct {
    const char *kw, *what;
  } compound[] = {
      {"with", "with statement"},
      {"try", "try statement"},
      {"class", "class definition"},
      {"async", "async statement"},
  };
  const tc_token *t = tc_cur(p);
  tc_loc loc = tc_tok_loc(t);
  if (t->kind == TC_TOK_INDENT) tc_fail(p, loc, "unexpected indent");
  if (t->kind == TC_TOK_NAME) {
    if (tc_is_kw(t, "if")) {
      tc_vec_push_ptr(p, out, tc_parse_if(p));
      return;
    }
    if (tc_is_kw(t, "for")) {
      tc_vec_push_ptr(p, out, tc_parse_for(p));
      return;
    }
    if (tc_is_kw(t, "while")) {
      tc_vec_push_ptr(p, out, tc_parse_while(p));
      return;
    }
    if (tc_is_kw(t, "def")) {
      tc_stmt *s = tc_stmt_new(p, TC_STMT_DEF, loc);
      s->u.def.func = tc_parse_def(p, NULL);
      tc_vec_push_ptr(p, out, s);
      return;
    }
    for (size_t k = 0; k < sizeof compound / sizeof compound[0]; k++) {
      if (tc_is_kw(t, compound[k].kw)) {
        tc_vec_push_ptr(p, out, tc_skip_compound(p, loc, compound[k].what));
        return;
      }
    }
    /* Soft keyword: `match x:` ends its line with ':' (no expression statement does),
     * which is how it differs from a call of a function named `match`. */
    if (tc_is_kw(t, "match")) {
      size_t i = p->pos;
      while (i + 1 < p->ntoks && p->toks[i + 1].kind != TC_TOK_NEWLINE && p->toks[i + 1].kind != TC_TOK_ENDMARKER) i++;
      if (i > p->pos && tc_is_op(&p->toks[i], ":")) {
        tc_vec_push_ptr(p, out, tc_skip_compound(p, loc, "match statement"));
        return;
      }
    }
  }
  if (tc_is_op(t, "@")) {
    tc_vec decos;
    tc_vec_init(&decos, sizeof(tc_expr *));
    while (tc_accept_op(p, "@")) {
      tc_vec_push_ptr(p, &decos, tc_parse_test(p));
      if (tc_cur(p)->kind != TC_TOK_NEWLINE) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected end of line after decorator");
      tc_advance(p);
    }
    const tc_token *d = tc_cur(p);
    if (tc_is_kw(d, "def")) {
      tc_stmt *s = tc_stmt_new(p, TC_STMT_DEF, tc_tok_loc(d));
      s->u.def.func = tc_parse_def(p, &decos);
      tc_vec_push_ptr(p, out, s);
      return;
    }
    if (tc_is_kw(d, "class") || tc_is_kw(d, "async")) {
      tc_vec_push_ptr(
          p, out, tc_skip_compound(p, tc_tok_loc(d), tc_is_kw(d, "class") ? "class definition" : "async statement"));
      return;
    }
    tc_fail(p, tc_tok_loc(d), "expected 'def' or 'class' after decorator");
  }
  tc_parse_simple_stmts(p, out);
}

/* ---- functions ------------------------------------------------------------------- */

static const char *tc_param_name(tc_parser *p) {
  const tc_token *t = tc_cur(p);
  if (!tc_is_identifier(t)) tc_fail(p, tc_tok_loc(t), "expected parameter name");
  tc_advance(p);
  return tc_tok_str(p, t);
}

static void tc_parse_params(tc_parser *p, tc_func *f) {
  tc_vec params;
  tc_vec_init(&params, sizeof(tc_param));
  int seen_default = 0, seen_star = 0;
  while (!tc_is_op(tc_cur(p), ")")) {
    const tc_token *t = tc_cur(p);
    tc_loc loc = tc_tok_loc(t);
    if (tc_is_op(t, "/")) {
      tc_advance(p); /* positional-only marker: no effect on a kernel signature */
    } else {
      tc_param prm;
      memset(&prm, 0, sizeof prm);
      prm.loc = loc;
      if (tc_accept_op(p, "**")) {
        prm.is_star = 2;
        prm.name = tc_param_name(p);
      } else if (tc_accept_op(p, "*")) {
        prm.is_star = 1;
        seen_star = 1;
        prm.name = tc_is_op(tc_cur(p), ",") || tc_is_op(tc_cur(p), ")") ? "*" : tc_param_name(p);
      } else {
        prm.name = tc_param_name(p);
      }
      if (tc_accept_op(p, ":")) prm.annotation = tc_parse_test(p);
      if (tc_is_op(tc_cur(p), "=")) {
        if (prm.is_star)
          tc_fail(p, tc_tok_loc(tc_cur(p)), "var-positional or var-keyword parameter cannot have a default value");
        tc_advance(p);
        prm.default_value = tc_parse_test(p);
        seen_default = 1;
      } else if (!prm.is_star && seen_default && !seen_star) {
        tc_fail(p, loc, "parameter without a default follows parameter with a default");
      }
      const tc_param *prev = (const tc_param *)(const void *)params.data;
      for (int i = 0; i < params.n; i++)
        if (strcmp(prev[i].name, prm.name) == 0 && strcmp(prm.name, "*") != 0)
          tc_fail(p, loc, "duplicate argument '%s' in function definition", prm.name);
      *(tc_param *)tc_vec_push(p, &params) = prm;
    }
    if (tc_accept_op(p, ",")) continue;
    if (!tc_is_op(tc_cur(p), ")")) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected ',' or ')' in parameter list");
  }
  tc_advance(p); /* ) */
  f->params = (tc_param *)(void *)params.data;
  f->nparams = params.n;
}

/* The callee's last dotted component is `jit`: @jit, @triton.jit, @triton.jit(...). */
static int tc_decorator_is_jit(const tc_expr *e) {
  if (e->kind == TC_EXPR_CALL) e = e->u.call.func;
  if (e->kind == TC_EXPR_NAME) return strcmp(e->u.name, "jit") == 0;
  if (e->kind == TC_EXPR_ATTRIBUTE) return strcmp(e->u.attr.name, "jit") == 0;
  return 0;
}

/* The decorator is `constexpr_function` or `constexpr` (dotted: @triton.constexpr_function,
 * @tl.constexpr): a compile-time Python function. */
static int tc_decorator_is_pyfn(const tc_expr *e) {
  const char *n = e->kind == TC_EXPR_NAME ? e->u.name : e->kind == TC_EXPR_ATTRIBUTE ? e->u.attr.name : NULL;
  return n && (!strcmp(n, "constexpr_function") || !strcmp(n, "constexpr"));
}

static tc_func *tc_parse_def(tc_parser *p, tc_vec *decorators) {
  const tc_token *t = tc_advance(p); /* def */
  tc_func *f = tc_new(p, sizeof *f);
  f->loc = tc_tok_loc(t);
  if (decorators) {
    f->decorators = (tc_expr **)(void *)decorators->data;
    f->ndecorators = decorators->n;
    for (int i = 0; i < f->ndecorators; i++) {
      if (tc_decorator_is_jit(f->decorators[i])) f->is_jit = 1;
      else if (tc_decorator_is_pyfn(f->decorators[i])) f->is_pyfn = 1;
    }
  }
  const tc_token *n = tc_cur(p);
  if (!tc_is_identifier(n)) tc_fail(p, tc_tok_loc(n), "expected function name after 'def'");
  tc_advance(p);
  f->name = tc_tok_str(p, n);
  tc_expect_op(p, "(", "expected '(' after function name");
  tc_parse_params(p, f);
  if (tc_accept_op(p, "->")) f->returns = tc_parse_test(p);
  tc_expect_op(p, ":", "expected ':' after function signature");
  tc_parse_suite(p, &f->body, "function definition", t->line);
  return f;
}

/* ---- top level ------------------------------------------------------------------- */

/* Whether the tokens at i spell NAME(.NAME)* ending in `jit`: decides jit-ness before
 * anything is parsed, so host functions are never parsed at all. */
static int tc_tokens_are_jit(const tc_parser *p, size_t i) {
  if (i >= p->ntoks || !tc_is_identifier(&p->toks[i])) return 0;
  while (i + 2 < p->ntoks && tc_is_op(&p->toks[i + 1], ".") && tc_is_identifier(&p->toks[i + 2])) i += 2;
  return tc_tok_eq(&p->toks[i], TC_TOK_NAME, "jit");
}

/* Whether the tokens at i spell NAME(.NAME)* ending in `constexpr_function` or `constexpr`
 * and then the end of the line: a compile-time Python function's decorator. */
static int tc_tokens_are_pyfn(const tc_parser *p, size_t i) {
  if (i >= p->ntoks || !tc_is_identifier(&p->toks[i])) return 0;
  while (i + 2 < p->ntoks && tc_is_op(&p->toks[i + 1], ".") && tc_is_identifier(&p->toks[i + 2])) i += 2;
  return (tc_tok_eq(&p->toks[i], TC_TOK_NAME, "constexpr_function") ||
          tc_tok_eq(&p->toks[i], TC_TOK_NAME, "constexpr")) &&
         i + 1 < p->ntoks && p->toks[i + 1].kind == TC_TOK_NEWLINE;
}

/* NAME(.NAME)* at token i as an expression, or NULL. */
static tc_expr *tc_dotted_at(tc_parser *p, size_t i) {
  if (i >= p->ntoks || !tc_is_identifier(&p->toks[i])) return NULL;
  tc_expr *e = tc_expr_new(p, TC_EXPR_NAME, tc_tok_loc(&p->toks[i]));
  e->u.name = tc_tok_str(p, &p->toks[i]);
  while (i + 2 < p->ntoks && tc_is_op(&p->toks[i + 1], ".") && tc_is_identifier(&p->toks[i + 2])) {
    i += 2;
    tc_expr *a = tc_expr_new(p, TC_EXPR_ATTRIBUTE, e->loc);
    a->u.attr.value = e;
    a->u.attr.name = tc_tok_str(p, &p->toks[i]);
    e = a;
  }
  return e;
}

static void tc_skip_to_newline(tc_parser *p) {
  while (tc_cur(p)->kind != TC_TOK_NEWLINE && tc_cur(p)->kind != TC_TOK_ENDMARKER) tc_advance(p);
  tc_advance(p);
}

/* Parses one decorator expression under its own error handler `jb`; returns NULL if it
 * failed (p->err set). Kept apart from its caller so no local lives across setjmp. */
static tc_expr *tc_try_decorator(tc_parser *p, jmp_buf *jb) {
  if (setjmp(*jb)) return NULL;
  p->jb = jb;
  tc_expr *e = tc_parse_test(p);
  if (tc_cur(p)->kind != TC_TOK_NEWLINE) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected end of line after decorator");
  return e;
}

/* A decorator that is not jit is host code, which may use anything Python allows: try
 * the full parse, and if it fails keep only its dotted callee. */
static tc_expr *tc_parse_host_decorator(tc_parser *p) {
  size_t start = p->pos;
  int depth = p->depth, tree = p->tree;
  jmp_buf *outer = p->jb;
  jmp_buf jb;
  tc_expr *e = tc_try_decorator(p, &jb);
  p->jb = outer;
  if (e) {
    tc_advance(p); /* NEWLINE */
    return e;
  }
  if (tilec_status_code_of(p->err) != TILEC_ERROR_SYNTAX) tc_throw(p);
  tilec_status_destroy(p->err);
  p->err = NULL;
  p->depth = depth;
  p->tree = tree;
  p->pos = start;
  e = tc_dotted_at(p, start);
  tc_skip_to_newline(p);
  return e;
}

static tc_func *tc_parse_top_func(tc_parser *p) {
  tc_vec decos;
  tc_vec_init(&decos, sizeof(tc_expr *));
  while (tc_accept_op(p, "@")) {
    tc_expr *e;
    if (tc_tokens_are_jit(p, p->pos)) {
      e = tc_parse_test(p);
      if (tc_cur(p)->kind != TC_TOK_NEWLINE) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected end of line after decorator");
      tc_advance(p);
    } else {
      e = tc_parse_host_decorator(p);
    }
    if (e) tc_vec_push_ptr(p, &decos, e);
  }
  return tc_parse_def(p, &decos);
}

/* ---- module level: the statements the module context comes from ------------------ */

/* Names bound by host code in tokens [start, end) that the parser skips: `NAME(, NAME)* =`
 * at the start of a logical line, def/class names, import targets and for-loop targets.
 * Bodies of def and class are not scanned (their names are local to them). */
static void tc_scan_binds(tc_parser *p, size_t start, size_t end, tc_vec *out) {
  int line_start = 1, skip_depth = -1, depth = 0;
  for (size_t i = start; i < end; i++) {
    const tc_token *t = &p->toks[i];
    if (t->kind == TC_TOK_NEWLINE) {
      line_start = 1;
      continue;
    }
    if (t->kind == TC_TOK_INDENT) {
      depth++;
      continue;
    }
    if (t->kind == TC_TOK_DEDENT) {
      if (--depth <= skip_depth) skip_depth = -1;
      continue;
    }
    if (!line_start) continue;
    line_start = 0;
    if (skip_depth >= 0) continue;
    if (tc_is_op(t, "@")) {
      line_start = 1; /* a decorator line: the def follows */
      while (i + 1 < end && p->toks[i + 1].kind != TC_TOK_NEWLINE) i++;
      continue;
    }
    if (tc_is_kw(t, "async") && i + 1 < end) t = &p->toks[++i];
    if ((tc_is_kw(t, "def") || tc_is_kw(t, "class")) && i + 1 < end && tc_is_identifier(&p->toks[i + 1])) {
      tc_vec_push_ptr(p, out, (void *)tc_tok_str(p, &p->toks[i + 1]));
      skip_depth = depth;
      continue;
    }
    if (tc_is_kw(t, "import") || tc_is_kw(t, "from")) {
      size_t j = i;
      if (tc_is_kw(t, "from"))
        while (j < end && !tc_is_kw(&p->toks[j], "import") && p->toks[j].kind != TC_TOK_NEWLINE) j++;
      /* import a.b, c as d: the bound name is the asname, else the first component (plain
       * import) or the name (from-import) */
      int plain = tc_is_kw(t, "import");
      for (j++; j < end && p->toks[j].kind != TC_TOK_NEWLINE && !tc_is_op(&p->toks[j], ";"); j++) {
        if (!tc_is_identifier(&p->toks[j])) continue;
        const tc_token *name = &p->toks[j];
        while (j + 2 < end && tc_is_op(&p->toks[j + 1], ".")) j += 2;
        if (j + 2 < end && tc_is_kw(&p->toks[j + 1], "as") && tc_is_identifier(&p->toks[j + 2])) {
          name = &p->toks[j + 2];
          j += 2;
        } else if (!plain) {
          name = &p->toks[j];
        }
        tc_vec_push_ptr(p, out, (void *)tc_tok_str(p, name));
      }
      i = j - 1;
      continue;
    }
    size_t j = i;
    if (tc_is_kw(t, "for")) j++;
    size_t first = j;
    while (j < end && tc_is_identifier(&p->toks[j]) && j + 1 < end && tc_is_op(&p->toks[j + 1], ",")) j += 2;
    if (j < end && tc_is_identifier(&p->toks[j]) && j + 1 < end &&
        (tc_is_op(&p->toks[j + 1], "=") || tc_is_op(&p->toks[j + 1], ":") || tc_is_kw(&p->toks[j + 1], "in"))) {
      for (size_t k = first; k <= j; k += 2) tc_vec_push_ptr(p, out, (void *)tc_tok_str(p, &p->toks[k]));
    }
  }
}

static tc_stmt *tc_opaque(tc_parser *p, tc_loc loc, const char *what, size_t start, size_t end) {
  tc_vec binds;
  tc_vec_init(&binds, sizeof(char *));
  tc_scan_binds(p, start, end, &binds);
  tc_stmt *s = tc_other(p, loc, what);
  s->u.other.binds = (const char **)(void *)binds.data;
  s->u.other.nbinds = binds.n;
  return s;
}

static const char *tc_parse_dotted(tc_parser *p) {
  const tc_token *t = tc_cur(p);
  if (!tc_is_identifier(t)) tc_fail(p, tc_tok_loc(t), "expected a module name");
  size_t len = t->len;
  const char *start = t->start;
  tc_advance(p);
  while (tc_is_op(tc_cur(p), ".") && tc_is_identifier(tc_peek(p, 1))) {
    tc_advance(p);
    const tc_token *n = tc_advance(p);
    len = (size_t)(n->start + n->len - start);
  }
  /* the lexer allows spaces around '.', so rebuild the name from its parts */
  char *s = tc_new(p, len + 1);
  size_t k = 0;
  for (size_t i = 0; i < len; i++)
    if (start[i] != ' ' && start[i] != '\t' && start[i] != '\\' && start[i] != '\n' && start[i] != '\r')
      s[k++] = start[i];
  s[k] = 0;
  return s;
}

static void tc_parse_import_name(tc_parser *p, tc_vec *names, int dotted) {
  tc_import_name *n = tc_vec_push(p, names);
  n->loc = tc_tok_loc(tc_cur(p));
  if (dotted) n->name = tc_parse_dotted(p);
  else {
    if (!tc_is_identifier(tc_cur(p))) tc_fail(p, n->loc, "expected a name to import");
    n->name = tc_tok_str(p, tc_advance(p));
  }
  if (tc_is_kw(tc_cur(p), "as")) {
    tc_advance(p);
    if (!tc_is_identifier(tc_cur(p))) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected a name after 'as'");
    n->asname = tc_tok_str(p, tc_advance(p));
  }
}

/* import a.b [as c], ... | from [.]*a.b import (c [as d], ...) | from x import * */
static tc_stmt *tc_parse_import(tc_parser *p) {
  const tc_token *t = tc_advance(p);
  tc_stmt *s = tc_stmt_new(p, TC_STMT_IMPORT, tc_tok_loc(t));
  tc_vec names;
  tc_vec_init(&names, sizeof(tc_import_name));
  if (tc_is_kw(t, "import")) {
    do tc_parse_import_name(p, &names, 1);
    while (tc_accept_op(p, ","));
  } else {
    while (tc_is_op(tc_cur(p), ".") || tc_is_op(tc_cur(p), "...")) s->u.import.level += (int)tc_advance(p)->len;
    s->u.import.from = tc_is_kw(tc_cur(p), "import") ? "" : tc_parse_dotted(p);
    if (!tc_is_kw(tc_cur(p), "import")) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected 'import'");
    tc_advance(p);
    if (tc_is_op(tc_cur(p), "*")) {
      tc_import_name *n = tc_vec_push(p, &names);
      n->loc = tc_tok_loc(tc_advance(p));
      n->name = "*";
    } else {
      int paren = tc_accept_op(p, "(");
      do {
        if (paren && tc_is_op(tc_cur(p), ")")) break;
        tc_parse_import_name(p, &names, 0);
      } while (tc_accept_op(p, ","));
      if (paren) tc_expect_op(p, ")", "expected ')'");
    }
  }
  s->u.import.names = (tc_import_name *)(void *)names.data;
  s->u.import.nnames = names.n;
  return s;
}

static void tc_parse_module_simple(tc_parser *p, tc_vec *out) {
  for (;;) {
    const tc_token *t = tc_cur(p);
    tc_vec_push_ptr(p, out, tc_is_kw(t, "import") || tc_is_kw(t, "from") ? tc_parse_import(p) : tc_parse_small_stmt(p));
    if (tc_accept_op(p, ";") && tc_cur(p)->kind != TC_TOK_NEWLINE) continue;
    if (tc_cur(p)->kind == TC_TOK_NEWLINE) {
      tc_advance(p);
      return;
    }
    if (tc_cur(p)->kind == TC_TOK_ENDMARKER) return;
    tc_fail_unexpected(p, tc_cur(p));
  }
}

static void tc_parse_module_stmt(tc_parser *p, tc_vec *out, int top);

static void tc_parse_module_suite(tc_parser *p, tc_block *b) {
  tc_vec stmts;
  tc_vec_init(&stmts, sizeof(tc_stmt *));
  if (tc_cur(p)->kind != TC_TOK_NEWLINE) {
    tc_parse_module_simple(p, &stmts);
  } else {
    tc_advance(p);
    if (tc_cur(p)->kind != TC_TOK_INDENT) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected an indented block");
    tc_advance(p);
    while (tc_cur(p)->kind != TC_TOK_DEDENT && tc_cur(p)->kind != TC_TOK_ENDMARKER) tc_parse_module_stmt(p, &stmts, 0);
    tc_advance(p);
  }
  tc_finish_block(b, &stmts);
}

static tc_stmt *tc_parse_module_try(tc_parser *p) {
  tc_stmt *s = tc_stmt_new(p, TC_STMT_TRY, tc_tok_loc(tc_advance(p)));
  tc_expect_op(p, ":", "expected ':' after 'try'");
  tc_parse_module_suite(p, &s->u.try_.body);
  tc_vec hs;
  tc_vec_init(&hs, sizeof(tc_handler));
  while (tc_is_kw(tc_cur(p), "except")) {
    tc_handler *h = tc_vec_push(p, &hs);
    h->loc = tc_tok_loc(tc_advance(p));
    if (!tc_is_op(tc_cur(p), ":")) {
      h->type = tc_parse_test(p);
      if (tc_is_kw(tc_cur(p), "as")) {
        tc_advance(p);
        tc_advance(p);
      }
    }
    tc_expect_op(p, ":", "expected ':' after 'except'");
    tc_parse_module_suite(p, &h->body);
  }
  s->u.try_.handlers = (tc_handler *)(void *)hs.data;
  s->u.try_.nhandlers = hs.n;
  if (tc_is_kw(tc_cur(p), "else")) {
    tc_advance(p);
    tc_expect_op(p, ":", "expected ':'");
    tc_parse_module_suite(p, &s->u.try_.orelse);
  }
  if (tc_is_kw(tc_cur(p), "finally")) {
    tc_advance(p);
    tc_expect_op(p, ":", "expected ':'");
    tc_parse_module_suite(p, &s->u.try_.final);
  }
  return s;
}

static tc_stmt *tc_parse_module_if(tc_parser *p) {
  const tc_token *t = tc_advance(p);
  tc_stmt *s = tc_stmt_new(p, TC_STMT_IF, tc_tok_loc(t));
  s->u.if_.test = tc_parse_test(p);
  tc_expect_op(p, ":", "expected ':' after 'if' condition");
  tc_parse_module_suite(p, &s->u.if_.body);
  if (tc_is_kw(tc_cur(p), "elif")) {
    tc_stmt **one = tc_new(p, sizeof *one);
    one[0] = tc_parse_module_if(p);
    s->u.if_.orelse.stmts = one;
    s->u.if_.orelse.nstmts = 1;
  } else if (tc_is_kw(tc_cur(p), "else")) {
    tc_advance(p);
    tc_expect_op(p, ":", "expected ':' after 'else'");
    tc_parse_module_suite(p, &s->u.if_.orelse);
  }
  return s;
}

/* class NAME[(bases)]: with a body of annotated fields (`x: T [= default]`), docstrings and
 * `pass`: what a NamedTuple class is. Anything else in the body is a syntax error here, and
 * the caller keeps the class as host code. */
static tc_stmt *tc_parse_module_class(tc_parser *p) {
  tc_stmt *s = tc_stmt_new(p, TC_STMT_CLASS, tc_tok_loc(tc_advance(p)));
  const tc_token *name = tc_cur(p);
  if (!tc_is_identifier(name)) tc_fail(p, tc_tok_loc(name), "expected a class name");
  s->u.class_.name = tc_tok_str(p, tc_advance(p));
  tc_vec bases, fields;
  tc_vec_init(&bases, sizeof(tc_expr *));
  tc_vec_init(&fields, sizeof(tc_stmt *));
  if (tc_accept_op(p, "(")) {
    while (!tc_is_op(tc_cur(p), ")")) {
      tc_vec_push_ptr(p, &bases, tc_parse_test(p));
      if (!tc_accept_op(p, ",")) break;
    }
    tc_expect_op(p, ")", "expected ')' after the base classes");
  }
  tc_expect_op(p, ":", "expected ':' after the class name");
  if (tc_cur(p)->kind != TC_TOK_NEWLINE) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected a class body block");
  tc_advance(p);
  if (tc_cur(p)->kind != TC_TOK_INDENT) tc_fail(p, tc_tok_loc(tc_cur(p)), "expected an indented block");
  tc_advance(p);
  while (tc_cur(p)->kind != TC_TOK_DEDENT && tc_cur(p)->kind != TC_TOK_ENDMARKER) {
    if (tc_cur(p)->kind == TC_TOK_NEWLINE) {
      tc_advance(p);
      continue;
    }
    const tc_token *t = tc_cur(p);
    tc_stmt *f = tc_parse_small_stmt(p);
    int field = f->kind == TC_STMT_ANNASSIGN && f->u.annassign.target->kind == TC_EXPR_NAME;
    int doc = f->kind == TC_STMT_EXPR && f->u.expr.value->kind == TC_EXPR_STRING;
    if (!field && !doc && f->kind != TC_STMT_PASS) tc_fail(p, tc_tok_loc(t), "a class body other than fields");
    if (tc_cur(p)->kind != TC_TOK_NEWLINE) tc_fail_unexpected(p, tc_cur(p));
    tc_advance(p);
    tc_vec_push_ptr(p, &fields, f);
  }
  tc_advance(p); /* DEDENT */
  s->u.class_.bases = (tc_expr **)(void *)bases.data;
  s->u.class_.nbases = bases.n;
  tc_finish_block(&s->u.class_.body, &fields);
  return s;
}

typedef struct tc_guarded {
  tc_parser *p;
  tc_vec *out;
  int top, what;
} tc_guarded;

/* Runs one module-level parse under its own error handler; false (state restored) if the
 * code is host Python this parser does not handle. No local lives across the setjmp. */
static int tc_guarded_parse(tc_guarded *g, jmp_buf *jb) {
  if (setjmp(*jb)) return 0;
  g->p->jb = jb;
  switch (g->what) {
    case 0: tc_parse_module_simple(g->p, g->out); break;
    case 1: tc_vec_push_ptr(g->p, g->out, tc_parse_module_try(g->p)); break;
    case 3: {
      tc_func *f = tc_parse_top_func(g->p);
      tc_stmt *s = tc_stmt_new(g->p, TC_STMT_DEF, f->loc);
      s->u.def.func = f;
      tc_vec_push_ptr(g->p, g->out, s);
      break;
    }
    case 4: tc_vec_push_ptr(g->p, g->out, tc_parse_module_class(g->p)); break;
    default: tc_vec_push_ptr(g->p, g->out, tc_parse_module_if(g->p)); break;
  }
  return 1;
}

/* A compile-time Python function (@triton.constexpr_function, @tl.constexpr): parsed as a
 * function when its body is in the language's Python subset; otherwise an opaque statement
 * whose names say why, so that only a kernel calling it fails (at the call). */
static void tc_module_pyfn(tc_parser *p, tc_vec *out) {
  size_t start = p->pos;
  int depth = p->depth, n = out->n;
  jmp_buf *outer = p->jb;
  jmp_buf jb;
  tc_guarded g = {p, out, 0, 3};
  int ok = tc_guarded_parse(&g, &jb);
  p->jb = outer;
  if (ok) return;
  if (tilec_status_code_of(p->err) != TILEC_ERROR_SYNTAX) tc_throw(p);
  char what[320];
  snprintf(what, sizeof what, "constexpr function definition: %s", tilec_status_message(p->err));
  char *jit_suffix = strstr(what, " in @triton.jit functions");
  if (jit_suffix) *jit_suffix = '\0'; /* the message names the construct; this is no jit function */
  tilec_status_destroy(p->err);
  p->err = NULL;
  p->depth = depth;
  p->pos = start;
  out->n = n;
  while (tc_accept_op(p, "@")) tc_skip_to_newline(p);
  tc_loc loc = tc_tok_loc(tc_cur(p)); /* the def */
  tc_skip_logical(p);
  size_t len = strlen(what) + 1;
  char *w = tc_new(p, len);
  memcpy(w, what, len);
  tc_vec_push_ptr(p, out, tc_opaque(p, loc, w, start, p->pos));
}

static void tc_module_guarded(tc_parser *p, tc_vec *out, int what, const char *opaque_what) {
  size_t start = p->pos;
  int depth = p->depth, n = out->n;
  jmp_buf *outer = p->jb;
  jmp_buf jb;
  tc_guarded g = {p, out, 0, what};
  int ok = tc_guarded_parse(&g, &jb);
  p->jb = outer;
  if (ok) return;
  if (tilec_status_code_of(p->err) != TILEC_ERROR_SYNTAX) tc_throw(p);
  tilec_status_destroy(p->err);
  p->err = NULL;
  p->depth = depth;
  p->pos = start;
  out->n = n;
  tc_loc loc = tc_tok_loc(tc_cur(p));
  if (what == 0) tc_skip_logical(p);
  else tc_skip_compound(p, loc, opaque_what);
  tc_vec_push_ptr(p, out, tc_opaque(p, loc, opaque_what, start, p->pos));
}

/* One module-level statement (top: at column 0, where a def may be a kernel function). */
static void tc_parse_module_stmt(tc_parser *p, tc_vec *out, int top) {
  const tc_token *t = tc_cur(p);
  tc_loc loc = tc_tok_loc(t);
  if (t->kind == TC_TOK_NEWLINE || t->kind == TC_TOK_DEDENT) {
    tc_advance(p);
    return;
  }
  if (t->kind == TC_TOK_INDENT) {
    /* Host code need not even be valid Python past tokenization; skip the block. */
    tc_skip_block(p);
    return;
  }
  int def = tc_is_kw(t, "def");
  if (tc_is_op(t, "@") || def) {
    size_t start = p->pos;
    /* a @jit def anywhere at module level (also in an if/try: version-dependent helpers);
     * a bare def only at the top of a function-only source */
    int jit = def && top && p->m->functions_only, pyfn = 0;
    while (tc_accept_op(p, "@")) {
      if (tc_tokens_are_jit(p, p->pos)) jit = 1;
      else if (tc_tokens_are_pyfn(p, p->pos)) pyfn = 1;
      tc_skip_to_newline(p);
    }
    if (pyfn && !jit && tc_is_kw(tc_cur(p), "def")) {
      p->pos = start;
      tc_module_pyfn(p, out);
      return;
    }
    if (jit && tc_is_kw(tc_cur(p), "def")) {
      p->pos = start;
      tc_func *f = tc_is_op(t, "@") ? tc_parse_top_func(p) : tc_parse_def(p, NULL);
      if (!f->is_jit) f->is_jit = 1;
      tc_stmt *s = tc_stmt_new(p, TC_STMT_DEF, f->loc);
      s->u.def.func = f;
      tc_vec_push_ptr(p, out, s);
      return;
    }
    p->pos = start;
    while (tc_accept_op(p, "@")) tc_skip_to_newline(p);
    size_t body = p->pos;
    const char *what = tc_is_kw(tc_cur(p), "def") || tc_is_kw(tc_cur(p), "async") ? "function definition"
                       : tc_is_kw(tc_cur(p), "class")                             ? "class definition"
                                                                                  : "host code";
    tc_skip_logical(p);
    tc_vec_push_ptr(p, out, tc_opaque(p, loc, what, body, p->pos));
    return;
  }
  if (tc_is_kw(t, "try")) {
    tc_module_guarded(p, out, 1, "try statement");
    return;
  }
  if (tc_is_kw(t, "if")) {
    tc_module_guarded(p, out, 2, "if statement");
    return;
  }
  if (tc_is_kw(t, "class")) {
    tc_module_guarded(p, out, 4, "class definition");
    return;
  }
  static const char *const compound[] = {"for", "while", "with", "async", "match"};
  for (size_t k = 0; k < sizeof compound / sizeof compound[0]; k++)
    if (tc_is_kw(t, compound[k]) && (k != 4 || tc_is_identifier(tc_peek(p, 1)))) {
      size_t start = p->pos;
      tc_skip_compound(p, loc, "host code");
      tc_vec_push_ptr(p, out, tc_opaque(p, loc, "host code", start, p->pos));
      return;
    }
  tc_module_guarded(p, out, 0, "host code");
}

/* The @jit functions of module-level statements, in source order (if/try blocks included). */
static void tc_collect_funcs(tc_parser *p, const tc_block *b, tc_vec *funcs) {
  for (int i = 0; i < b->nstmts; i++) {
    const tc_stmt *s = b->stmts[i];
    if (s->kind == TC_STMT_DEF) tc_vec_push_ptr(p, funcs, s->u.def.func);
    else if (s->kind == TC_STMT_IF) {
      tc_collect_funcs(p, &s->u.if_.body, funcs);
      tc_collect_funcs(p, &s->u.if_.orelse, funcs);
    } else if (s->kind == TC_STMT_TRY) {
      tc_collect_funcs(p, &s->u.try_.body, funcs);
      for (int h = 0; h < s->u.try_.nhandlers; h++) tc_collect_funcs(p, &s->u.try_.handlers[h].body, funcs);
      tc_collect_funcs(p, &s->u.try_.orelse, funcs);
      tc_collect_funcs(p, &s->u.try_.final, funcs);
    }
  }
}

static void tc_parse_toplevel(tc_parser *p) {
  tc_vec stmts;
  tc_vec_init(&stmts, sizeof(tc_stmt *));
  while (tc_cur(p)->kind != TC_TOK_ENDMARKER) tc_parse_module_stmt(p, &stmts, 1);
  tc_finish_block(&p->m->toplevel, &stmts);
  tc_vec funcs;
  tc_vec_init(&funcs, sizeof(tc_func *));
  tc_collect_funcs(p, &p->m->toplevel, &funcs);
  p->m->funcs = (tc_func **)(void *)funcs.data;
  p->m->nfuncs = funcs.n;
}

static void tc_run_parser(tc_parser *p) {
  jmp_buf jb;
  p->jb = &jb;
  if (setjmp(jb) == 0) tc_parse_toplevel(p);
  p->jb = NULL;
}

tilec_status *tc_parse_module(const char *filename, const char *source, size_t len, tc_module **out) {
  return tc_parse_module_opts(filename, source, len, NULL, out);
}

tilec_status *tc_parse_module_opts(const char *filename, const char *source, size_t len, const tc_parse_options *opts,
                                   tc_module **out) {
  if (!out) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tc_parse_module: out is NULL");
  *out = NULL;
  if (!source && len) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tc_parse_module: source is NULL");
  if (len == SIZE_MAX) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tc_parse_module: source too large");
  tc_arena *a = tc_arena_create();
  tc_module *m = a ? tc_arena_alloc(a, sizeof *m) : NULL;
  char *src = m ? tc_arena_alloc(a, len + 1) : NULL;
  const char *fname = filename ? filename : "<string>";
  char *fcopy = src ? tc_arena_strndup(a, fname, strlen(fname)) : NULL;
  if (!fcopy) {
    tc_arena_destroy(a);
    return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory while parsing");
  }
  if (len) memcpy(src, source, len);
  m->filename = fcopy;
  m->source = src;
  m->source_len = len;
  m->arena = a;
  if (opts) {
    m->functions_only = opts->functions_only;
    m->line_offset = opts->first_line > 1 ? opts->first_line - 1 : 0;
  }

  tc_token *toks;
  size_t ntoks;
  tc_lex_error le;
  if (tc_lex(src, len, &toks, &ntoks, &le)) {
    int oom = strncmp(le.msg, "out of memory", 13) == 0;
    tilec_status *st =
        tc_error_at(m, (tc_loc){le.line, le.col}, oom ? TILEC_ERROR_INTERNAL : TILEC_ERROR_SYNTAX, "%s", le.msg);
    tc_module_destroy(m);
    return st;
  }
  tc_parser p;
  memset(&p, 0, sizeof p);
  p.m = m;
  p.a = a;
  p.toks = toks;
  p.ntoks = ntoks;
  tc_run_parser(&p);
  tc_tokens_free(toks);
  if (p.err) {
    tc_module_destroy(m);
    return p.err;
  }
  *out = m;
  return NULL;
}

void tc_module_destroy(tc_module *m) {
  if (m) tc_arena_destroy(m->arena); /* m itself lives in the arena */
}

const tc_func *tc_module_find(const tc_module *m, const char *name) {
  if (!m || !name) return NULL;
  for (int i = m->nfuncs - 1; i >= 0; i--)
    if (strcmp(m->funcs[i]->name, name) == 0) return m->funcs[i];
  return NULL;
}
