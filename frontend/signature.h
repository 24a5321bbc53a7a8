/* frontend/signature.h — specialization of a kernel for Triton's AOT signature format
 * ("*fp32:16, *fp32, i32, 1024") and NAME=VALUE defines. In: the kernel's parameters and
 * the spec. Out: per-parameter kind/dtype/hints and the constexpr values. */
#ifndef TILEC_FRONTEND_SIGNATURE_H
#define TILEC_FRONTEND_SIGNATURE_H

#include "frontend/cg.h"

/* Evaluates a parameter default that is not a literal (`BLOCK: tl.constexpr = DEFAULT`)
 * in fn's module context. */
typedef tilec_status *(*tc_default_eval)(void *ctx, const tc_func *fn, const tc_expr *e, tc_val *out);

/* Fills info (every parameter) and vals[i] for constexpr parameters (tuple items in arena;
 * eval may be NULL: then defaults must be literals). */
tilec_status *tc_specialize(const tc_module *mod, const tc_func *fn, const tilec_kernel_spec *spec,
                            tc_kernel_info *info, tc_val *vals, tc_arena *arena, tc_default_eval eval, void *eval_ctx);
/* Parses a constexpr value written as text (int, float, True/False/None, quoted or bare
 * string). Strings point into `text` (not copied). */
tc_val tc_parse_constexpr_text(const char *text, size_t len);
bool tc_param_is_constexpr_annotation(const tc_expr *annotation);
/* Whether v, the value tc_specialize gave a parameter, is a runtime tuple: it holds TV_INVALID
 * items whose .i is the kernel parameter (info->params index) each element arrives in. */
bool tc_tuple_param_leaf(const tc_val *v);
/* `tl.const` / `const`: a pointer parameter to constant data. */
bool tc_param_is_const_annotation(const tc_expr *annotation);

/* values.c: a compile-time value in signature/define syntax ("3", "1e-06", "True", "None",
 * "'s'" or a bare word, "tl.float16", "(2, 3)", "[2, 3]"); never fails (anything else is a
 * string). Tuple items live in `arena` (NULL: tuples stay strings). */
tc_val tc_value_from_text(tc_arena *arena, const char *text, size_t len);
/* Splits s[0, n) at commas outside brackets and quotes, items trimmed; returns the number
 * of items (up to max) or -1 when brackets or quotes do not balance. */
int tc_split_items(const char *s, size_t n, const char **items, size_t *lens, int max, bool *trailing_comma);
/* The same syntax back (false when v is not a compile-time value or buf is too small). */
bool tc_value_to_text(const tc_val *v, char *buf, size_t n);
/* Python's str(v) (conv 's') or repr(v) ('r', 'a') of a compile-time value as Triton formats
 * it in an f-string or str(): dtypes by name ("fp32"), strings bare or quoted; false when v
 * is not a compile-time value or buf is too small. */
bool tc_value_str(const tc_val *v, char conv, char *buf, size_t n);
/* Python equality of compile-time values (dtypes, modules, functions by identity). */
bool tv_equal(const tc_val *a, const tc_val *b);

#endif
