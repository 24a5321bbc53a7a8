/* tests/unit/test_language.c — tilec_language_functions, the kernel language's table as the
 * public API gives it (the Python package builds tilec.language from it): sorted, unique,
 * groups from the registry's families and the prelude, refusals on the rows that have one,
 * the prelude's function ahead of a refusing row of the same name, and every name known to
 * the compiler (tl.NAME() never reports an unknown function); and what a compile error tells
 * of where it sits in the language: its @jit call frames, its bare reason and its origin
 * (tilec_status_frame_at and friends). In: the table, inline kernels. Out: a Check suite. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilec/tilec.h"

static const tilec_language_function *find(const tilec_language_function *t, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(t[i].name, name)) return &t[i];
  return NULL;
}

START_TEST(test_table_shape) {
  size_t n = 0;
  const tilec_language_function *t = tilec_language_functions(&n);
  ck_assert_uint_gt(n, 150);
  ck_assert_ptr_eq(tilec_language_functions(NULL), t); /* one table for the process */
  static const char *const groups[] = {"core",       "math",  "tile", "atomic", "block",
                                       "descriptor", "debug", "api",  "prelude"};
  for (size_t i = 0; i < n; i++) {
    ck_assert_msg(t[i].name[0] != '_', "%s: the prelude's private helpers are not the language", t[i].name);
    if (i) ck_assert_msg(strcmp(t[i - 1].name, t[i].name) < 0, "%s then %s", t[i - 1].name, t[i].name);
    bool known = false;
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) known |= !strcmp(t[i].group, groups[g]);
    ck_assert_msg(known, "%s: group %s", t[i].name, t[i].group);
  }
}
END_TEST

START_TEST(test_rows) {
  size_t n;
  const tilec_language_function *t = tilec_language_functions(&n);
  const tilec_language_function *f = find(t, n, "load");
  ck_assert(f && !strcmp(f->group, "core") && !f->refusal);
  f = find(t, n, "tanh");
  ck_assert(f && !strcmp(f->group, "math") && !f->refusal);
  f = find(t, n, "sum");
  ck_assert(f && !strcmp(f->group, "tile"));
  f = find(t, n, "softmax"); /* the prelude's, not the core row that refuses x.softmax() */
  ck_assert(f && !strcmp(f->group, "prelude") && !f->refusal);
  f = find(t, n, "inline_asm_elementwise");
  ck_assert(f && f->refusal && strstr(f->refusal, "not supported on CPU"));
  ck_assert_ptr_null(find(t, n, "tensor")); /* a class, not a function */
}
END_TEST

START_TEST(test_every_name_is_known_to_the_compiler) {
  size_t n;
  const tilec_language_function *t = tilec_language_functions(&n);
  tilec_compiler *c;
  ck_assert_ptr_null(tilec_compiler_create(NULL, &c));
  for (size_t i = 0; i < n; i++) {
    char src[512];
    snprintf(src, sizeof src, "import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(x):\n    tl.%s()\n",
             t[i].name);
    tilec_kernel_spec spec = {
        .source = src, .source_len = strlen(src), .filename = "k.py", .kernel = "k", .signature = "*fp32"};
    char *text = NULL;
    tilec_status *st = tilec_compiler_emit(c, &spec, TILEC_STAGE_TILE, &text);
    free(text);
    if (st) {
      ck_assert_msg(!strstr(tilec_status_message(st), "unknown function"), "tl.%s(): %s", t[i].name,
                    tilec_status_message(st));
      tilec_status_destroy(st);
    }
  }
  tilec_compiler_destroy(c);
}
END_TEST

/* The status of compiling `kernel` k from src to tile IR (NULL when it compiles). */
static tilec_status *compile_k(tilec_compiler *c, const char *src, const char *sig) {
  tilec_kernel_spec spec = {
      .source = src, .source_len = strlen(src), .filename = "k.py", .kernel = "k", .signature = sig};
  char *text = NULL;
  tilec_status *st = tilec_compiler_emit(c, &spec, TILEC_STAGE_TILE, &text);
  free(text);
  return st;
}

static void check_frame(const tilec_status *st, int i, const char *function, int def_line, int line, int col) {
  const tilec_status_frame *f = tilec_status_frame_at(st, i);
  ck_assert_ptr_nonnull(f);
  ck_assert_str_eq(f->function, function);
  ck_assert_str_eq(f->file, "k.py");
  ck_assert_int_eq(f->def_line, def_line);
  ck_assert_int_eq(f->line, line);
  ck_assert_int_eq(f->col, col);
}

/* A compile error carries the @jit calls that led to it (innermost first, with each
 * function's def line), the message without them, and what raised it. */
START_TEST(test_error_frames_and_origin) {
  tilec_compiler *c;
  ck_assert_ptr_null(tilec_compiler_create(NULL, &c));
  const char *nested = "import triton\nimport triton.language as tl\n\n"
                       "@triton.jit\ndef inner(x):\n    return tl.reshape(x, (3,))\n\n"
                       "@triton.jit\ndef k(x):\n    v = tl.load(x + tl.arange(0, 4))\n    inner(v)\n";
  tilec_status *st = compile_k(c, nested, "*fp32");
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tilec_status_frame_count(st), 2);
  check_frame(st, 0, "inner", 5, 6, 12);
  check_frame(st, 1, "k", 9, 11, 5);
  ck_assert_ptr_null(tilec_status_frame_at(st, 2));
  ck_assert_int_eq(tilec_status_origin_of(st), TILEC_ORIGIN_BUILTIN);
  ck_assert_str_eq(tilec_status_reason(st), "Shape element 0 must be a power of 2");
  ck_assert_str_eq(tilec_status_message(st), "Shape element 0 must be a power of 2 (in inner(), called at k.py:11)");
  tilec_status_destroy(st);

  const char *names = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(x):\n    y = zz + 1\n";
  st = compile_k(c, names, "*fp32");
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tilec_status_frame_count(st), 1);
  check_frame(st, 0, "k", 5, 6, 9);
  ck_assert_int_eq(tilec_status_origin_of(st), TILEC_ORIGIN_LANGUAGE);
  ck_assert_str_eq(tilec_status_reason(st), tilec_status_message(st));
  tilec_status_destroy(st);

  const char *sa = "import triton\nimport triton.language as tl\n\n"
                   "@triton.jit\ndef k(x, N: tl.constexpr):\n    tl.static_assert(N < 4, \"N too large\")\n";
  st = compile_k(c, sa, "*fp32, 8");
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tilec_status_origin_of(st), TILEC_ORIGIN_STATIC_ASSERT);
  ck_assert_str_eq(tilec_status_reason(st), "static assertion failed: N too large");
  tilec_status_destroy(st);
  tilec_compiler_destroy(c);
}
END_TEST

static Suite *language_suite(void) {
  Suite *s = suite_create("language");
  TCase *tc = tcase_create("language");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_table_shape);
  tcase_add_test(tc, test_rows);
  tcase_add_test(tc, test_every_name_is_known_to_the_compiler);
  tcase_add_test(tc, test_error_frames_and_origin);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(language_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
