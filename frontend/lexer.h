/* frontend/lexer.h — the Python tokenizer of the front end.
 * In: a whole source text (any bytes; length-delimited, NULs allowed but rejected).
 * Out: a token array ending in NEWLINE, DEDENTs and ENDMARKER, or an error with line:col. */
#ifndef TILEC_FRONTEND_LEXER_H
#define TILEC_FRONTEND_LEXER_H

#include <stddef.h>

#include "frontend/arena.h"

typedef enum tc_tok_kind {
  TC_TOK_NAME,
  TC_TOK_NUMBER,
  TC_TOK_STRING, /* the whole literal, prefix and quotes included */
  TC_TOK_OP,
  TC_TOK_NEWLINE,
  TC_TOK_INDENT,
  TC_TOK_DEDENT,
  TC_TOK_ENDMARKER
} tc_tok_kind;

typedef struct tc_token {
  tc_tok_kind kind;
  const char *start; /* points into the lexed source */
  size_t len;        /* 0 for INDENT/DEDENT/ENDMARKER and a NEWLINE synthesized at EOF */
  int line, col;     /* 1-based; col counts bytes */
} tc_token;

typedef struct tc_lex_error {
  int line, col;
  char msg[200];
} tc_lex_error;

/* Tokenizes src[0, len). On success returns 0 and a malloc'd array (*ntoks >= 1, the last
 * token is ENDMARKER) that the caller frees with tc_tokens_free. Tokens point into src,
 * which must outlive them. On failure returns -1, fills *err and sets *toks = NULL. */
int tc_lex(const char *src, size_t len, tc_token **toks, size_t *ntoks, tc_lex_error *err);
void tc_tokens_free(tc_token *toks);

/* What a STRING token's prefix says. */
typedef struct tc_string_info {
  int is_raw, is_bytes, is_fstring;
  size_t body_offset, body_len; /* the text between the quotes, relative to tok->start */
} tc_string_info;
void tc_string_info_of(const tc_token *tok, tc_string_info *info);

/* Decodes a STRING token (escapes resolved unless raw) into arena memory, NUL-terminated.
 * Returns 0, or -1 with *err set (bad \x, \u, \U escapes; out of memory). f-strings
 * are returned undecoded. */
int tc_string_decode(tc_arena *arena, const tc_token *tok, char **data, size_t *len, tc_lex_error *err);

/* Python's reserved words (not soft keywords like `match`). */
int tc_is_keyword(const char *s, size_t len);

#endif
