/* frontend/lexer.c — turns Python source bytes into tokens, CPython-style.
 * In: a length-delimited source buffer. Out: NAME/NUMBER/STRING/OP tokens plus the
 * NEWLINE/INDENT/DEDENT/ENDMARKER structure tokens, or the first lexical error. */
#include "frontend/lexer.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CPython's own limits, so files it accepts are accepted here and nothing recurses
 * without bound on hostile input. */
enum { TC_MAX_INDENT = 100, TC_MAX_PARENS = 200, TC_MAX_FSTRING_NEST = 32 };

typedef struct tc_lexer {
  const char *src;
  size_t len, pos;
  int line;
  size_t line_start;
  tc_token *toks;
  size_t ntoks, cap;
  int indent[TC_MAX_INDENT + 1]; /* columns with tabs to multiples of 8 */
  int alt[TC_MAX_INDENT + 1];    /* the same with tabs as 1, to catch tab/space mixes */
  int nindent;
  struct {
    char c;
    int line, col;
  } paren[TC_MAX_PARENS];
  int nparen;
  int line_has_tokens;
  tc_lex_error *err;
} tc_lexer;

static int tc_at(const tc_lexer *lx, size_t i) { return i < lx->len ? (unsigned char)lx->src[i] : -1; }

static int tc_col_of(const tc_lexer *lx, size_t pos) {
  size_t d = pos - lx->line_start;
  return d >= (size_t)INT_MAX ? INT_MAX : (int)d + 1;
}

static int tc_is_nl(int c) { return c == '\n' || c == '\r'; }
static int tc_is_digit(int c) { return c >= '0' && c <= '9'; }
static int tc_is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int tc_is_ascii_id(int c) { return tc_is_alpha(c) || tc_is_digit(c) || c == '_'; }
static int tc_is_id_char(int c) { return tc_is_ascii_id(c) || c >= 0x80; }

__attribute__((format(printf, 4, 5))) static int tc_lex_fail(tc_lexer *lx, int line, int col, const char *fmt, ...) {
  lx->err->line = line;
  lx->err->col = col;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lx->err->msg, sizeof lx->err->msg, fmt, ap);
  va_end(ap);
  return -1;
}

static int tc_fail_here(tc_lexer *lx, size_t pos, const char *msg) {
  return tc_lex_fail(lx, lx->line, tc_col_of(lx, pos), "%s", msg);
}

static int tc_emit(tc_lexer *lx, tc_tok_kind kind, size_t start, size_t len, int line, int col) {
  if (lx->ntoks == lx->cap) {
    size_t cap = lx->cap ? lx->cap * 2 : 256;
    tc_token *t = realloc(lx->toks, cap * sizeof *t);
    if (!t) return tc_lex_fail(lx, line, col, "out of memory while tokenizing");
    lx->toks = t;
    lx->cap = cap;
  }
  tc_token *t = &lx->toks[lx->ntoks++];
  t->kind = kind;
  t->start = lx->src + start;
  t->len = len;
  t->line = line;
  t->col = col;
  if (kind != TC_TOK_NEWLINE && kind != TC_TOK_INDENT && kind != TC_TOK_DEDENT) lx->line_has_tokens = 1;
  return 0;
}

/* Consumes the newline at lx->pos ("\r\n" counts once, a lone "\r" too). */
static void tc_take_newline(tc_lexer *lx) {
  if (tc_at(lx, lx->pos) == '\r' && tc_at(lx, lx->pos + 1) == '\n') lx->pos += 2;
  else lx->pos += 1;
  lx->line++;
  lx->line_start = lx->pos;
}

/* Length of the UTF-8 sequence at i (its code point in *cp), 0 if malformed. */
static int tc_utf8_decode(const tc_lexer *lx, size_t i, unsigned *cp) {
  int c0 = tc_at(lx, i);
  int n;
  unsigned lo = 0x80, hi = 0xBF;
  if (c0 < 0) return 0;
  if (c0 < 0x80) {
    *cp = (unsigned)c0;
    return 1;
  }
  if (c0 >= 0xC2 && c0 <= 0xDF) {
    n = 2;
    *cp = (unsigned)c0 & 0x1F;
  } else if (c0 >= 0xE0 && c0 <= 0xEF) {
    n = 3;
    *cp = (unsigned)c0 & 0x0F;
    if (c0 == 0xE0) lo = 0xA0; /* overlong */
    if (c0 == 0xED) hi = 0x9F; /* surrogates */
  } else if (c0 >= 0xF0 && c0 <= 0xF4) {
    n = 4;
    *cp = (unsigned)c0 & 0x07;
    if (c0 == 0xF0) lo = 0x90;
    if (c0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (int k = 1; k < n; k++) {
    int c = tc_at(lx, i + (size_t)k);
    if (c < 0 || (unsigned)c < (k == 1 ? lo : 0x80) || (unsigned)c > (k == 1 ? hi : 0xBF)) return 0;
    *cp = (*cp << 6) | ((unsigned)c & 0x3F);
  }
  return n;
}

/* Without a Unicode database, identifiers accept any non-ASCII letter-ish code point;
 * these ranges are the spaces, controls and punctuation people paste by accident. */
static int tc_cp_nonprintable(unsigned cp) {
  return (cp >= 0x80 && cp <= 0xA0) || cp == 0xAD || (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) ||
         (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 || cp == 0xFEFF;
}

static int tc_cp_symbol(unsigned cp) {
  return (cp >= 0xA1 && cp <= 0xBF && cp != 0xAA && cp != 0xB5 && cp != 0xBA) || cp == 0xD7 || cp == 0xF7 ||
         (cp >= 0x2010 && cp <= 0x2027) || (cp >= 0x2030 && cp <= 0x205E) || (cp >= 0x2190 && cp <= 0x2BFF) ||
         (cp >= 0x3001 && cp <= 0x3003) || (cp >= 0xFF01 && cp <= 0xFF0F);
}

/* Validates the non-ASCII character at i as part of an identifier; *n gets its length. */
static int tc_lex_utf8_id(tc_lexer *lx, size_t i, int *n) {
  unsigned cp = 0;
  *n = tc_utf8_decode(lx, i, &cp);
  if (*n == 0) return tc_lex_fail(lx, lx->line, tc_col_of(lx, i), "invalid UTF-8 byte 0x%02x", tc_at(lx, i));
  if (tc_cp_nonprintable(cp))
    return tc_lex_fail(lx, lx->line, tc_col_of(lx, i), "invalid non-printable character U+%04X", cp);
  if (tc_cp_symbol(cp))
    return tc_lex_fail(lx, lx->line, tc_col_of(lx, i), "invalid character '%.*s' (U+%04X)", *n, lx->src + i, cp);
  return 0;
}

/* r, u, b, f, br, rb, fr, rf in any case. */
static int tc_string_prefix(const char *s, size_t n, int *raw, int *bytes, int *fstr) {
  int r = 0, b = 0, f = 0, u = 0;
  if (n > 2) return 0;
  for (size_t i = 0; i < n; i++) {
    switch (s[i]) {
      case 'r':
      case 'R': r++; break;
      case 'b':
      case 'B': b++; break;
      case 'f':
      case 'F': f++; break;
      case 'u':
      case 'U': u++; break;
      default: return 0;
    }
  }
  if (r > 1 || b > 1 || f > 1 || u > 1 || (u && n > 1) || (b && f)) return 0;
  if (raw) *raw = r;
  if (bytes) *bytes = b;
  if (fstr) *fstr = f;
  return 1;
}

/* Scans a string body from the opening quote at *ip. f-strings are kept whole, but their
 * replacement fields may hold nested quotes (Python 3.12), so fields are tracked. */
static int tc_lex_string_body(tc_lexer *lx, size_t *ip, int is_f, int nest, int tline, int tcol) {
  size_t i = *ip;
  int q = tc_at(lx, i);
  int triple = tc_at(lx, i + 1) == q && tc_at(lx, i + 2) == q;
  const char *unterminated = triple ? "unterminated triple-quoted string literal" : "unterminated string literal";
  i += triple ? 3 : 1;
  int depth = 0;
  for (;;) {
    int c = tc_at(lx, i);
    if (c < 0) return tc_lex_fail(lx, tline, tcol, "%s", unterminated);
    if (c == '\\') { /* protects the next character, even in raw strings */
      int n = tc_at(lx, i + 1);
      i++;
      if (n < 0) continue;
      if (tc_is_nl(n)) {
        lx->pos = i;
        tc_take_newline(lx);
        i = lx->pos;
      } else {
        i++;
      }
      continue;
    }
    if (tc_is_nl(c)) {
      if (!triple && depth == 0) return tc_lex_fail(lx, tline, tcol, "%s", unterminated);
      lx->pos = i;
      tc_take_newline(lx);
      i = lx->pos;
      continue;
    }
    if (is_f) {
      if (c == '{') {
        if (depth == 0 && tc_at(lx, i + 1) == '{') {
          i += 2;
        } else {
          depth++;
          i++;
        }
        continue;
      }
      if (c == '}') {
        if (depth > 0) depth--;
        else if (tc_at(lx, i + 1) == '}') i++;
        i++;
        continue;
      }
      if (depth > 0 && (c == '\'' || c == '"')) {
        if (nest >= TC_MAX_FSTRING_NEST)
          return tc_lex_fail(lx, lx->line, tc_col_of(lx, i), "f-string nested too deeply");
        size_t k = i;
        while (k > *ip && i - k < 3 && tc_is_ascii_id(tc_at(lx, k - 1))) k--;
        int f = 0;
        if (k < i && !(k > *ip && tc_is_ascii_id(tc_at(lx, k - 1))))
          tc_string_prefix(lx->src + k, i - k, NULL, NULL, &f);
        if (tc_lex_string_body(lx, &i, f, nest + 1, lx->line, tc_col_of(lx, i))) return -1;
        continue;
      }
    }
    if (c == q) {
      if (!triple) {
        i++;
        break;
      }
      if (tc_at(lx, i + 1) == q && tc_at(lx, i + 2) == q) {
        i += 3;
        break;
      }
    }
    i++;
  }
  *ip = i;
  return 0;
}

static int tc_lex_string(tc_lexer *lx, size_t start, size_t quote, int fstr) {
  int line = lx->line, col = tc_col_of(lx, start);
  size_t i = quote;
  if (tc_lex_string_body(lx, &i, fstr, 0, line, col)) return -1;
  lx->pos = i;
  return tc_emit(lx, TC_TOK_STRING, start, i - start, line, col);
}

static int tc_is_base_digit(int c, int base) {
  if (base == 16) return tc_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  if (base == 8) return c >= '0' && c <= '7';
  if (base == 2) return c == '0' || c == '1';
  return tc_is_digit(c);
}

/* Python lets a keyword follow a number directly (`1if x else 2`); any other letter glued
 * to a number is an error. */
static int tc_keyword_follows(const tc_lexer *lx, size_t i) {
  static const char *const kws[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
  size_t j = i;
  while (tc_is_ascii_id(tc_at(lx, j))) j++;
  if (tc_at(lx, j) >= 0x80) return 0;
  for (size_t k = 0; k < sizeof kws / sizeof kws[0]; k++)
    if (strlen(kws[k]) == j - i && memcmp(lx->src + i, kws[k], j - i) == 0) return 1;
  return 0;
}

/* Digits of `base` with single '_' separators between them; returns -1 on a bad '_'. */
static int tc_lex_digits(tc_lexer *lx, size_t *ip, int base, int *count, int *nonzero) {
  size_t i = *ip;
  for (;;) {
    int c = tc_at(lx, i);
    if (c == '_') {
      if (*count == 0 && base == 10) break;
      if (!tc_is_base_digit(tc_at(lx, i + 1), base)) {
        *ip = i;
        return -1;
      }
      i++;
      continue;
    }
    if (!tc_is_base_digit(c, base)) break;
    if (c != '0' && nonzero) *nonzero = 1;
    (*count)++;
    i++;
  }
  *ip = i;
  return 0;
}

static int tc_lex_number(tc_lexer *lx) {
  size_t s = lx->pos, i = s;
  int line = lx->line, col = tc_col_of(lx, s);
  int c1 = tc_at(lx, i + 1);
  if (tc_at(lx, i) == '0' && c1 >= 0 && strchr("xXoObB", c1)) {
    int base = (c1 == 'x' || c1 == 'X') ? 16 : (c1 == 'o' || c1 == 'O') ? 8 : 2;
    const char *what = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
    int count = 0;
    i += 2;
    if (tc_at(lx, i) == '_') i++; /* 0x_ff is legal */
    if (tc_lex_digits(lx, &i, base, &count, NULL) || count == 0)
      return tc_lex_fail(lx, line, col, "invalid %s literal", what);
    int c = tc_at(lx, i);
    if (tc_is_digit(c)) return tc_lex_fail(lx, line, tc_col_of(lx, i), "invalid digit '%c' in %s literal", c, what);
    if (tc_is_id_char(c) && !tc_keyword_follows(lx, i)) return tc_lex_fail(lx, line, col, "invalid %s literal", what);
  } else {
    int count = 0, nonzero = 0, is_float = 0;
    if (tc_lex_digits(lx, &i, 10, &count, &nonzero)) return tc_lex_fail(lx, line, col, "invalid decimal literal");
    if (tc_at(lx, i) == '.') {
      is_float = 1;
      i++;
      int frac = 0;
      if (tc_at(lx, i) == '_' || tc_lex_digits(lx, &i, 10, &frac, NULL))
        return tc_lex_fail(lx, line, col, "invalid decimal literal");
    }
    int e = tc_at(lx, i);
    if (e == 'e' || e == 'E') {
      size_t j = i + 1;
      if (tc_at(lx, j) == '+' || tc_at(lx, j) == '-') j++;
      if (tc_is_digit(tc_at(lx, j))) {
        int ec = 0;
        is_float = 1;
        i = j;
        if (tc_lex_digits(lx, &i, 10, &ec, NULL)) return tc_lex_fail(lx, line, col, "invalid decimal literal");
      }
    }
    int c = tc_at(lx, i);
    if (c == 'j' || c == 'J') return tc_lex_fail(lx, line, col, "imaginary literals are not supported");
    if (!is_float && tc_at(lx, s) == '0' && nonzero)
      return tc_lex_fail(lx, line, col,
                         "leading zeros in decimal integer literals are not permitted; "
                         "use an 0o prefix for octal integers");
    if (tc_is_id_char(c) && !tc_keyword_follows(lx, i)) return tc_lex_fail(lx, line, col, "invalid decimal literal");
  }
  lx->pos = i;
  return tc_emit(lx, TC_TOK_NUMBER, s, i - s, line, col);
}

static int tc_lex_name_or_string(tc_lexer *lx) {
  size_t s = lx->pos, i = s;
  for (;;) {
    int c = tc_at(lx, i);
    if (tc_is_ascii_id(c)) {
      i++;
    } else if (c >= 0x80) {
      int n;
      if (tc_lex_utf8_id(lx, i, &n)) return -1;
      i += (size_t)n;
    } else {
      break;
    }
  }
  int q = tc_at(lx, i), fstr = 0;
  if ((q == '\'' || q == '"') && tc_string_prefix(lx->src + s, i - s, NULL, NULL, &fstr))
    return tc_lex_string(lx, s, i, fstr);
  int col = tc_col_of(lx, s);
  lx->pos = i;
  return tc_emit(lx, TC_TOK_NAME, s, i - s, lx->line, col);
}

static int tc_lex_op(tc_lexer *lx) {
  static const char *const ops3[] = {"**=", "//=", ">>=", "<<=", "..."};
  static const char *const ops2[] = {
      "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", ":=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="};
  static const char ops1[] = "+-*/%@&|^~<>()[]{},:;.=";
  size_t s = lx->pos, n = 0;
  const char *p = lx->src + s;
  size_t avail = lx->len - s;
  for (size_t k = 0; !n && avail >= 3 && k < sizeof ops3 / sizeof ops3[0]; k++)
    if (memcmp(p, ops3[k], 3) == 0) n = 3;
  for (size_t k = 0; !n && avail >= 2 && k < sizeof ops2 / sizeof ops2[0]; k++)
    if (memcmp(p, ops2[k], 2) == 0) n = 2;
  int c = (unsigned char)*p;
  if (!n && c && strchr(ops1, c)) n = 1;
  int line = lx->line, col = tc_col_of(lx, s);
  if (!n) {
    if (c == 0) return tc_lex_fail(lx, line, col, "source code cannot contain null bytes");
    if (c < 0x20 || c == 0x7f) return tc_lex_fail(lx, line, col, "invalid non-printable character U+%04X", (unsigned)c);
    return tc_lex_fail(lx, line, col, "invalid character '%c'", c);
  }
  if (n == 1 && (c == '(' || c == '[' || c == '{')) {
    if (lx->nparen == TC_MAX_PARENS) return tc_lex_fail(lx, line, col, "too many nested parentheses");
    lx->paren[lx->nparen].c = (char)c;
    lx->paren[lx->nparen].line = line;
    lx->paren[lx->nparen].col = col;
    lx->nparen++;
  } else if (n == 1 && (c == ')' || c == ']' || c == '}')) {
    if (lx->nparen == 0) return tc_lex_fail(lx, line, col, "unmatched '%c'", c);
    char open = lx->paren[lx->nparen - 1].c;
    char want = open == '(' ? ')' : open == '[' ? ']' : '}';
    if (c != want) {
      if (lx->paren[lx->nparen - 1].line != line)
        return tc_lex_fail(lx, line, col, "closing parenthesis '%c' does not match opening parenthesis '%c' on line %d",
                           c, open, lx->paren[lx->nparen - 1].line);
      return tc_lex_fail(lx, line, col, "closing parenthesis '%c' does not match opening parenthesis '%c'", c, open);
    }
    lx->nparen--;
  }
  lx->pos = s + n;
  return tc_emit(lx, TC_TOK_OP, s, n, line, col);
}

/* At the start of a logical line: measures indentation and emits INDENT/DEDENT.
 * Blank and comment-only lines leave the indentation stack alone. */
static int tc_lex_indent(tc_lexer *lx) {
  int col = 0, alt = 0;
  size_t i = lx->pos;
  for (;; i++) {
    int c = tc_at(lx, i);
    if (c == ' ') {
      col++;
      alt++;
    } else if (c == '\t') {
      col = (col / 8 + 1) * 8;
      alt++;
    } else if (c == '\f') {
      col = alt = 0;
    } else {
      break;
    }
    if (col > 100000) return tc_fail_here(lx, i, "indentation too deep");
  }
  lx->pos = i;
  int c = tc_at(lx, i);
  if (c < 0 || c == '#' || tc_is_nl(c)) return 0;
  int line = lx->line, tcol = tc_col_of(lx, i);
  int top = lx->indent[lx->nindent], atop = lx->alt[lx->nindent];
  const char *mixed = "inconsistent use of tabs and spaces in indentation";
  if (col == top) {
    if (alt != atop) return tc_lex_fail(lx, line, tcol, "%s", mixed);
  } else if (col > top) {
    if (lx->nindent == TC_MAX_INDENT) return tc_lex_fail(lx, line, tcol, "too many levels of indentation");
    if (alt <= atop) return tc_lex_fail(lx, line, tcol, "%s", mixed);
    lx->nindent++;
    lx->indent[lx->nindent] = col;
    lx->alt[lx->nindent] = alt;
    if (tc_emit(lx, TC_TOK_INDENT, i, 0, line, tcol)) return -1;
  } else {
    while (lx->nindent > 0 && col < lx->indent[lx->nindent]) {
      lx->nindent--;
      if (tc_emit(lx, TC_TOK_DEDENT, i, 0, line, tcol)) return -1;
    }
    if (col != lx->indent[lx->nindent])
      return tc_lex_fail(lx, line, tcol, "unindent does not match any outer indentation level");
    if (alt != lx->alt[lx->nindent]) return tc_lex_fail(lx, line, tcol, "%s", mixed);
  }
  return 0;
}

static int tc_lex_run(tc_lexer *lx) {
  int at_line_start = 1;
  /* A UTF-8 byte order mark is not part of the program. */
  if (lx->len >= 3 && memcmp(lx->src, "\xEF\xBB\xBF", 3) == 0) lx->pos = 3;
  for (;;) {
    if (at_line_start && lx->nparen == 0) {
      if (tc_lex_indent(lx)) return -1;
    }
    at_line_start = 0;
    int c = tc_at(lx, lx->pos);
    if (c < 0) break;
    if (c == ' ' || c == '\t' || c == '\f') {
      lx->pos++;
    } else if (c == '#') {
      while (tc_at(lx, lx->pos) >= 0 && !tc_is_nl(tc_at(lx, lx->pos))) lx->pos++;
    } else if (tc_is_nl(c)) {
      if (lx->nparen == 0 && lx->line_has_tokens) {
        int line = lx->line, col = tc_col_of(lx, lx->pos);
        if (tc_emit(lx, TC_TOK_NEWLINE, lx->pos, 1, line, col)) return -1;
        lx->line_has_tokens = 0;
      }
      tc_take_newline(lx);
      at_line_start = lx->nparen == 0;
    } else if (c == '\\') {
      int n = tc_at(lx, lx->pos + 1);
      if (n < 0) return tc_fail_here(lx, lx->pos, "unexpected end of file after line continuation character");
      if (!tc_is_nl(n)) return tc_fail_here(lx, lx->pos, "unexpected character after line continuation character");
      lx->pos++;
      tc_take_newline(lx);
      if (tc_at(lx, lx->pos) < 0)
        return tc_lex_fail(lx, lx->line, 1, "unexpected end of file after line continuation character");
    } else if (tc_is_digit(c) || (c == '.' && tc_is_digit(tc_at(lx, lx->pos + 1)))) {
      if (tc_lex_number(lx)) return -1;
    } else if (tc_is_alpha(c) || c == '_' || c >= 0x80) {
      if (tc_lex_name_or_string(lx)) return -1;
    } else if (c == '\'' || c == '"') {
      if (tc_lex_string(lx, lx->pos, lx->pos, 0)) return -1;
    } else {
      if (tc_lex_op(lx)) return -1;
    }
  }
  int line = lx->line, col = tc_col_of(lx, lx->pos);
  if (lx->nparen > 0) {
    int k = lx->nparen - 1;
    return tc_lex_fail(lx, lx->paren[k].line, lx->paren[k].col, "'%c' was never closed", lx->paren[k].c);
  }
  if (lx->line_has_tokens && tc_emit(lx, TC_TOK_NEWLINE, lx->pos, 0, line, col)) return -1;
  for (; lx->nindent > 0; lx->nindent--)
    if (tc_emit(lx, TC_TOK_DEDENT, lx->pos, 0, line, col)) return -1;
  return tc_emit(lx, TC_TOK_ENDMARKER, lx->pos, 0, line, col);
}

int tc_lex(const char *src, size_t len, tc_token **toks, size_t *ntoks, tc_lex_error *err) {
  tc_lex_error dummy;
  tc_lexer lx;
  memset(&lx, 0, sizeof lx);
  lx.src = src ? src : "";
  lx.len = src ? len : 0;
  lx.line = 1;
  lx.err = err ? err : &dummy;
  int rc = tc_lex_run(&lx);
  if (rc) {
    free(lx.toks);
    if (toks) *toks = NULL;
    if (ntoks) *ntoks = 0;
    return -1;
  }
  if (toks) *toks = lx.toks;
  else free(lx.toks);
  if (ntoks) *ntoks = lx.ntoks;
  return 0;
}

void tc_tokens_free(tc_token *toks) { free(toks); }

void tc_string_info_of(const tc_token *tok, tc_string_info *info) {
  memset(info, 0, sizeof *info);
  size_t p = 0;
  while (p < tok->len && tok->start[p] != '\'' && tok->start[p] != '"') p++;
  tc_string_prefix(tok->start, p, &info->is_raw, &info->is_bytes, &info->is_fstring);
  if (p >= tok->len) {
    info->body_offset = tok->len;
    return;
  }
  char q = tok->start[p];
  size_t ql = (tok->len - p >= 6 && tok->start[p + 1] == q && tok->start[p + 2] == q) ? 3 : 1;
  info->body_offset = p + ql;
  info->body_len = tok->len >= p + 2 * ql ? tok->len - p - 2 * ql : 0;
}

static int tc_hex_val(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static size_t tc_utf8_encode(char *out, unsigned cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

int tc_string_decode(tc_arena *arena, const tc_token *tok, char **data, size_t *len, tc_lex_error *err) {
  tc_string_info info;
  tc_string_info_of(tok, &info);
  const char *b = tok->start + info.body_offset;
  size_t n = info.body_len;
  /* Every escape is at least as long as its encoding, so n bytes always suffice. */
  char *out = tc_arena_alloc(arena, n + 1);
  size_t o = 0;
  if (!out) {
    err->line = tok->line;
    err->col = tok->col;
    snprintf(err->msg, sizeof err->msg, "out of memory");
    return -1;
  }
  int escapes = !info.is_raw && !info.is_fstring;
  for (size_t i = 0; i < n;) {
    char c = b[i];
    if (c == '\r') { /* source newlines read as \n whatever the file uses */
      out[o++] = '\n';
      i += (i + 1 < n && b[i + 1] == '\n') ? 2 : 1;
      continue;
    }
    if (c != '\\' || !escapes || i + 1 >= n) {
      out[o++] = c;
      i++;
      continue;
    }
    char e = b[i + 1];
    i += 2;
    switch (e) {
      case '\n': break;
      case '\r':
        if (i < n && b[i] == '\n') i++;
        break;
      case '\\':
      case '\'':
      case '"': out[o++] = e; break;
      case 'a': out[o++] = '\a'; break;
      case 'b': out[o++] = '\b'; break;
      case 'f': out[o++] = '\f'; break;
      case 'n': out[o++] = '\n'; break;
      case 'r': out[o++] = '\r'; break;
      case 't': out[o++] = '\t'; break;
      case 'v': out[o++] = '\v'; break;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        unsigned v = (unsigned)(e - '0');
        for (int k = 0; k < 2 && i < n && b[i] >= '0' && b[i] <= '7'; k++) v = v * 8 + (unsigned)(b[i++] - '0');
        if (info.is_bytes) out[o++] = (char)(v & 0xFF);
        else o += tc_utf8_encode(out + o, v);
        break;
      }
      case 'x':
      case 'u':
      case 'U': {
        int need = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        if (e != 'x' && info.is_bytes) {
          out[o++] = '\\';
          out[o++] = e;
          break;
        }
        unsigned v = 0;
        for (int k = 0; k < need; k++) {
          int h = i + (size_t)k < n ? tc_hex_val((unsigned char)b[i + (size_t)k]) : -1;
          if (h < 0) {
            err->line = tok->line;
            err->col = tok->col;
            snprintf(err->msg, sizeof err->msg, "truncated \\%s escape",
                     e == 'x'   ? "xXX"
                     : e == 'u' ? "uXXXX"
                                : "UXXXXXXXX");
            return -1;
          }
          v = v * 16 + (unsigned)h;
        }
        i += (size_t)need;
        if (v > 0x10FFFF) {
          err->line = tok->line;
          err->col = tok->col;
          snprintf(err->msg, sizeof err->msg, "illegal Unicode character in string literal");
          return -1;
        }
        if (info.is_bytes) out[o++] = (char)v;
        else o += tc_utf8_encode(out + o, v);
        break;
      }
      default: /* unknown escapes (and \N{...}, which needs a name table) stay as written */
        out[o++] = '\\';
        out[o++] = e;
        break;
    }
  }
  out[o] = 0;
  *data = out;
  *len = o;
  return 0;
}

int tc_is_keyword(const char *s, size_t len) {
  static const char *const kws[] = {"False",  "None",   "True",    "and",      "as",       "assert", "async",
                                    "await",  "break",  "class",   "continue", "def",      "del",    "elif",
                                    "else",   "except", "finally", "for",      "from",     "global", "if",
                                    "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
                                    "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};
  for (size_t k = 0; k < sizeof kws / sizeof kws[0]; k++)
    if (strlen(kws[k]) == len && memcmp(s, kws[k], len) == 0) return 1;
  return 0;
}
