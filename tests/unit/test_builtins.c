/* tests/unit/test_builtins.c — unit tests of the builtin registry (frontend/builtins.h): the
 * family tables merge into one sorted table without duplicates or lost rows, every row is
 * well formed, lookups find every row, and the README lists each refused name.
 * In: the registry tables and README.md. Out: a Check suite run by main(). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/builtins.h"

static const cg_builtin *const families[] = {cg_builtins_core,   cg_builtins_math,  cg_builtins_tile,
                                             cg_builtins_atomic, cg_builtins_block, cg_builtins_descriptor,
                                             cg_builtins_debug,  cg_builtins_api};

static int nparams(const cg_builtin *b) {
  int n = 0;
  while (b->sig.params && b->sig.params[n]) n++;
  return n;
}

static void check_row(const cg_builtin *b) {
  ck_assert_msg(b->sig.fn != NULL, "%s: no name for messages", b->name);
  if (b->sig.params)
    ck_assert_msg(b->min_args >= 1 && b->min_args <= nparams(b), "%s: min_args %d of %d parameters", b->name,
                  b->min_args, nparams(b));
  else ck_assert_msg(b->min_args == 0, "%s: min_args without parameter names", b->name);
  if (!b->fn) ck_assert_msg(!b->sig.params, "%s: a refused row binds no arguments", b->name);
}

START_TEST(test_merged_table) {
  size_t n, rows = 0;
  const cg_builtin *const *all = cg_builtin_all(&n);
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
    for (const cg_builtin *b = families[f]; b->name; b++) {
      rows++;
      check_row(b);
      ck_assert_ptr_eq(cg_builtin_find(b->name), b);
    }
  ck_assert_uint_eq(n, rows); /* nothing dropped by the table's capacity */
  for (size_t i = 1; i < n; i++)
    ck_assert_msg(strcmp(all[i - 1]->name, all[i]->name) < 0, "'%s' is in two rows (or out of order)", all[i]->name);
}
END_TEST

START_TEST(test_lookup) {
  ck_assert_ptr_nonnull(cg_builtin_find("load"));
  ck_assert_ptr_nonnull(cg_builtin_find("abs"));     /* tl.abs */
  ck_assert_ptr_nonnull(cg_builtin_find("to"));      /* x.to(...) */
  ck_assert_ptr_nonnull(cg_builtin_find("softmax")); /* prelude; x.softmax() is refused */
  ck_assert_ptr_null(cg_builtin_find("tensor"));     /* a class, not a function */
  ck_assert_ptr_null(cg_builtin_find("lgamma"));
  ck_assert_ptr_null(cg_builtin_find("static_assert_")); /* no Triton has it */
  ck_assert_ptr_null(cg_builtin_find(""));
  ck_assert_ptr_null(cg_builtin_find("zzz"));
  const cg_builtin *dot = cg_builtin_find("dot");
  ck_assert_str_eq(dot->sig.fn, "tl.dot");
  ck_assert_str_eq(dot->sig.params[0], "input");
  ck_assert_int_eq(dot->min_args, 2);
  for (const cg_builtin *b = cg_builtins_py; b->name; b++) {
    check_row(b);
    ck_assert_ptr_eq(cg_py_builtin_find(b->name), b);
  }
  ck_assert_ptr_nonnull(cg_py_builtin_find("isinstance"));
  ck_assert_ptr_nonnull(cg_py_builtin_find("str"));
  ck_assert_ptr_null(cg_py_builtin_find("repr"));
  ck_assert_ptr_null(cg_py_builtin_find("load"));
}
END_TEST

/* The README's tl.* table names every function the registry refuses with a message. */
START_TEST(test_readme_lists_refusals) {
  const char *dir = getenv("TILEC_TEST_DATA");
  char path[4096];
  snprintf(path, sizeof path, "%s/../README.md", dir ? dir : "tests");
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot read %s", path);
  char line[8192], refused[8192] = "";
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "| refused, with a located error |", 33)) snprintf(refused, sizeof refused, "%s", line);
  fclose(f);
  ck_assert_msg(refused[0], "README.md has no 'refused, with a located error' row");
  size_t n;
  const cg_builtin *const *all = cg_builtin_all(&n);
  int count = 0;
  for (size_t i = 0; i < n; i++) {
    if (all[i]->fn || !all[i]->data) continue;
    char quoted[128];
    snprintf(quoted, sizeof quoted, "`%s`", all[i]->name);
    ck_assert_msg(strstr(refused, quoted) != NULL, "README.md does not list the refused tl.%s", all[i]->name);
    count++;
  }
  ck_assert_int_gt(count, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("builtins");
  TCase *tc = tcase_create("registry");
  tcase_add_test(tc, test_merged_table);
  tcase_add_test(tc, test_lookup);
  tcase_add_test(tc, test_readme_lists_refusals);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
