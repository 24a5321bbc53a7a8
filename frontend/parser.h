/* frontend/parser.h — parses a Python kernel file into the AST of frontend/ast.h.
 * In: a file name and its source text. Out: a tc_module holding every @triton.jit
 * function (host code is only tokenized), or a TILEC_ERROR_SYNTAX status. */
#ifndef TILEC_FRONTEND_PARSER_H
#define TILEC_FRONTEND_PARSER_H

#include <stddef.h>

#include "frontend/ast.h"
#include "frontend/diag.h"
#include "tilec/status.h"

/* Parses a whole Python file. Copies `source` (which may contain NUL bytes; len counts
 * them) and `filename` (NULL means "<string>"). On success returns NULL and *out owns
 * everything; on failure returns a status and sets *out = NULL.
 *
 * Node locations follow Python's ast: an expression's loc is its first token (a binop
 * starts at its left operand, `(a + b) * c` at the '(', a call at its callee), a
 * statement's loc is its first token, a function's loc is its `def` keyword.
 * Decorators that are not `...jit` are host code: when they use syntax the AST cannot
 * hold (comprehensions, dict displays), only their dotted callee name is recorded.
 * tc_param.is_star is 1 for `*args` and for a bare `*` (name "*"), 2 for `**kwargs`. */
tilec_status *tc_parse_module(const char *filename, const char *source, size_t len, tc_module **out);
void tc_module_destroy(tc_module *m);

/* How to read a source: a whole file (default), or function definitions only (every
 * top-level def is a kernel function, as a caller holding the function objects passes
 * them); first_line: the file line the source's first line is (0 or 1: no offset). */
typedef struct tc_parse_options {
  int functions_only;
  int first_line;
} tc_parse_options;
tilec_status *tc_parse_module_opts(const char *filename, const char *source, size_t len, const tc_parse_options *opts,
                                   tc_module **out);

/* The @triton.jit function named `name` (the last one if redefined), or NULL. */
const tc_func *tc_module_find(const tc_module *m, const char *name);

#endif
