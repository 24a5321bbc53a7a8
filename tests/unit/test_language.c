/* tests/unit/test_language.c — tilec_language_functions, the kernel language's table as the
 * public API gives it (the Python package builds tilec.language from it): sorted, unique,
 * groups from the registry's families and the prelude, refusals on the rows that have one,
 * the prelude's function ahead of a refusing row of the same name, and every name known to
 * the compiler (tl.NAME() never reports an unknown function). In: the table. Out: a Check suite. */
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

static Suite *language_suite(void) {
  Suite *s = suite_create("language");
  TCase *tc = tcase_create("language");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_table_shape);
  tcase_add_test(tc, test_rows);
  tcase_add_test(tc, test_every_name_is_known_to_the_compiler);
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
