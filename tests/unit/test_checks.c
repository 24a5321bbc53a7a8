/* tests/unit/test_checks.c — the debug checks' one switch and one resolution: the names
 * (`all`, lists, bad names), the environment (TILEC_CHECK and the older TILEC_CHECK_*), what a
 * compiler resolves them to, and that the code and the JIT cache entry depend on the resolved
 * classes only (asked as flags or as a list: one kernel). In: a copy kernel. Out: a Check suite. */
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilec/runtime.h"
#include "tilec/tilec.h"

static const char copy_source[] = "import triton\n"
                                  "import triton.language as tl\n"
                                  "\n"
                                  "@triton.jit\n"
                                  "def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                                  "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                                  "    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)\n";

static tilec_kernel_spec copy_spec(void) {
  tilec_kernel_spec s = {.source = copy_source,
                         .source_len = sizeof copy_source - 1,
                         .filename = "copy.py",
                         .kernel = "copy_kernel",
                         .signature = "*fp32, *fp32, i32, 64"};
  return s;
}

static void clear_env(void) {
  unsetenv("TILEC_CHECK");
  unsetenv("TILEC_CHECK_BOUNDS");
  unsetenv("TILEC_CHECK_NAN");
  unsetenv("TILEC_CHECK_RACES");
}

static uint32_t parsed(const char *text) {
  uint32_t bits = 12345;
  tilec_status *st = tilec_checks_parse(text, &bits);
  ck_assert_msg(st == NULL, "%s: %s", text, st ? tilec_status_message(st) : "");
  return bits;
}

static void parse_fails(const char *text, const char *msg) {
  uint32_t bits = 12345;
  tilec_status *st = tilec_checks_parse(text, &bits);
  ck_assert_msg(st != NULL, "'%s' parsed", text);
  ck_assert_str_eq(tilec_status_message(st), msg);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_INVALID_ARGUMENT);
  tilec_status_destroy(st);
}

START_TEST(test_parse) {
  ck_assert_uint_eq(parsed("all"), TILEC_CHECKS_ALL);
  ck_assert_uint_eq(parsed("1"), TILEC_CHECKS_ALL);
  ck_assert_uint_eq(parsed(""), 0);
  ck_assert_uint_eq(parsed(NULL), 0);
  ck_assert_uint_eq(parsed("none"), 0);
  ck_assert_uint_eq(parsed("0"), 0);
  ck_assert_uint_eq(parsed("bounds"), TILEC_CHECKS_BOUNDS);
  ck_assert_uint_eq(parsed("nan,races"), TILEC_CHECKS_NAN | TILEC_CHECKS_RACES);
  ck_assert_uint_eq(parsed("races,bounds,races"), TILEC_CHECKS_BOUNDS | TILEC_CHECKS_RACES);
  ck_assert_uint_eq(parsed("nan,all"), TILEC_CHECKS_ALL);
  parse_fails("bound", "unknown check 'bound' in 'bound' (expected all, none, or a comma-separated list of bounds, "
                       "nan, races and init)");
  parse_fails("bounds,,nan", "unknown check '' in 'bounds,,nan' (expected all, none, or a comma-separated list of "
                             "bounds, nan, races and init)");
  parse_fails("nan,Races", "unknown check 'Races' in 'nan,Races' (expected all, none, or a comma-separated list of "
                           "bounds, nan, races and init)");
  tilec_status *st = tilec_checks_parse("all", NULL);
  ck_assert_ptr_nonnull(st);
  ck_assert_str_eq(tilec_status_message(st), "tilec_checks_parse: out is NULL");
  tilec_status_destroy(st);
}
END_TEST

START_TEST(test_environment) {
  clear_env();
  uint32_t bits = 99;
  ck_assert_ptr_null(tilec_checks_from_env(&bits));
  ck_assert_uint_eq(bits, 0);
  setenv("TILEC_CHECK", "races", 1);
  setenv("TILEC_CHECK_NAN", "1", 1);
  setenv("TILEC_CHECK_BOUNDS", "0", 1); /* "0" is off, as before */
  ck_assert_ptr_null(tilec_checks_from_env(&bits));
  ck_assert_uint_eq(bits, TILEC_CHECKS_RACES | TILEC_CHECKS_NAN);
  tilec_compile_options o;
  tilec_compile_options_init(&o);
  ck_assert_uint_eq(o.checks, TILEC_CHECKS_RACES | TILEC_CHECKS_NAN);
  setenv("TILEC_CHECK", "all", 1);
  tilec_compile_options_init(&o);
  ck_assert_uint_eq(o.checks, TILEC_CHECKS_ALL);

  /* A malformed TILEC_CHECK: the compiler refuses to start, saying why. */
  setenv("TILEC_CHECK", "bounds,everything", 1);
  tilec_status *st = tilec_checks_from_env(&bits);
  ck_assert_ptr_nonnull(st);
  ck_assert_str_eq(tilec_status_message(st),
                   "TILEC_CHECK: unknown check 'everything' in 'bounds,everything' "
                   "(expected all, none, or a comma-separated list of bounds, nan, races and init)");
  tilec_status_destroy(st);
  tilec_compile_options_init(&o);
  o.cache_dir = "";
  tilec_compiler *c = NULL;
  st = tilec_compiler_create(&o, &c);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_null(c);
  ck_assert_str_eq(tilec_status_message(st),
                   "TILEC_CHECK: unknown check 'everything' in 'bounds,everything' "
                   "(expected all, none, or a comma-separated list of bounds, nan, races and init)");
  tilec_status_destroy(st);
  clear_env();
}
END_TEST

static tilec_compiler *compiler(const char *cache, uint32_t checks, bool bounds, bool nan, bool races) {
  tilec_compile_options o;
  tilec_compile_options_init(&o);
  o.cache_dir = cache;
  o.checks = checks;
  o.check_bounds = bounds;
  o.check_nan = nan;
  o.check_races = races;
  tilec_compiler *c = NULL;
  tilec_status *st = tilec_compiler_create(&o, &c);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  return c;
}

static char *vector_ir(tilec_compiler *c) {
  tilec_kernel_spec spec = copy_spec();
  char *text = NULL;
  tilec_status *st = tilec_compiler_emit(c, &spec, TILEC_STAGE_VECTOR, &text);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  return text;
}

/* The resolution, read back from the compiler and from the code it emits. */
START_TEST(test_resolution) {
  clear_env();
  ck_assert_uint_eq(tilec_compiler_checks(NULL), 0);
  tilec_compiler *none = compiler("", 0, false, false, false);
  tilec_compiler *flags = compiler("", 0, true, true, true);
  tilec_compiler *list = compiler("", TILEC_CHECKS_BOUNDS | TILEC_CHECKS_NAN | TILEC_CHECKS_RACES, false, false, false);
  tilec_compiler *all = compiler("", TILEC_CHECKS_ALL, false, false, false);
  tilec_compiler *mixed = compiler("", TILEC_CHECKS_NAN, false, false, true);
  tilec_compiler *nan = compiler("", TILEC_CHECKS_NAN, false, false, false);
  ck_assert_uint_eq(tilec_compiler_checks(none), 0);
  ck_assert_uint_eq(tilec_compiler_checks(flags), TILEC_CHECKS_BOUNDS | TILEC_CHECKS_NAN | TILEC_CHECKS_RACES);
  ck_assert_uint_eq(tilec_compiler_checks(list), TILEC_CHECKS_BOUNDS | TILEC_CHECKS_NAN | TILEC_CHECKS_RACES);
  ck_assert_uint_eq(tilec_compiler_checks(all), 0xfu);
  /* classes are what was asked: races no longer bring bounds checks along */
  ck_assert_uint_eq(tilec_compiler_checks(mixed), TILEC_CHECKS_NAN | TILEC_CHECKS_RACES);
  ck_assert_uint_eq(tilec_compiler_checks(nan), TILEC_CHECKS_NAN);
  /* bits outside the classes are not classes */
  tilec_compiler *junk = compiler("", 0xff00u, false, false, false);
  ck_assert_uint_eq(tilec_compiler_checks(junk), 0);

  char *t_none = vector_ir(none), *t_flags = vector_ir(flags), *t_list = vector_ir(list), *t_mixed = vector_ir(mixed),
       *t_nan = vector_ir(nan), *t_junk = vector_ir(junk), *t_all = vector_ir(all);
  ck_assert_ptr_null(strstr(t_none, "tilec_rt_"));
  ck_assert_str_eq(t_none, t_junk);
  ck_assert_str_eq(t_flags, t_list);
  ck_assert_ptr_nonnull(strstr(t_list, "tilec_rt_bounds_fail"));
  ck_assert_ptr_nonnull(strstr(t_list, "tilec_rt_access_program"));
  ck_assert_ptr_nonnull(strstr(t_mixed, "tilec_rt_access_program"));
  ck_assert_ptr_nonnull(strstr(t_mixed, "tilec_rt_nan_fail"));
  ck_assert_ptr_null(strstr(t_mixed, "tilec_rt_bounds_fail"));
  ck_assert_ptr_nonnull(strstr(t_nan, "tilec_rt_nan_fail"));
  ck_assert_ptr_null(strstr(t_nan, "tilec_rt_bounds_fail"));
  ck_assert_ptr_nonnull(strstr(t_all, "tilec_rt_access_program"));
  ck_assert_str_ne(t_all, t_list); /* init: loads through stored arguments ask the runtime's flag */
  free(t_all);
  tilec_compiler_destroy(all);
  free(t_none);
  free(t_flags);
  free(t_list);
  free(t_mixed);
  free(t_nan);
  free(t_junk);
  tilec_compiler_destroy(none);
  tilec_compiler_destroy(flags);
  tilec_compiler_destroy(list);
  tilec_compiler_destroy(mixed);
  tilec_compiler_destroy(nan);
  tilec_compiler_destroy(junk);
}
END_TEST

/* The JIT cache is keyed by the resolved classes: a kernel compiled with the old flags is
 * the kernel of the same classes asked as a list. */
START_TEST(test_cache_key) {
  clear_env();
  char root[PATH_MAX];
  const char *base = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/tilec_test_checks_XXXXXX", base && *base ? base : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(root));
  tilec_kernel_spec spec = copy_spec();
  tilec_jit_kernel *k1 = NULL, *k2 = NULL, *k3 = NULL;
  tilec_compiler *a = compiler(root, TILEC_CHECKS_NAN, true, false, true);
  ck_assert_ptr_null(tilec_jit_compile(a, &spec, &k1, NULL));
  ck_assert_int_eq(tilec_jit_kernel_origin(k1), TILEC_JIT_COMPILED);
  tilec_compiler *b = compiler(root, TILEC_CHECKS_BOUNDS | TILEC_CHECKS_NAN | TILEC_CHECKS_RACES, false, false, false);
  ck_assert_ptr_null(tilec_jit_compile(b, &spec, &k2, NULL));
  ck_assert_int_eq(tilec_jit_kernel_origin(k2), TILEC_JIT_DISK_CACHE);
  tilec_compiler *d = compiler(root, TILEC_CHECKS_NAN, false, false, false);
  ck_assert_ptr_null(tilec_jit_compile(d, &spec, &k3, NULL));
  ck_assert_int_eq(tilec_jit_kernel_origin(k3), TILEC_JIT_COMPILED);
  tilec_jit_kernel_release(k1);
  tilec_jit_kernel_release(k2);
  tilec_jit_kernel_release(k3);
  tilec_compiler_destroy(a);
  tilec_compiler_destroy(b);
  tilec_compiler_destroy(d);
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Libraries of several specializations refuse every class (their dispatcher passes no
 * extents and unwinds no failed program). */
START_TEST(test_multi_library_refuses) {
  clear_env();
  tilec_compiler *c = compiler("", TILEC_CHECKS_NAN, false, false, false);
  tilec_kernel_spec specs[2] = {copy_spec(), copy_spec()};
  specs[1].signature = "*fp32, *fp32, i32, 128";
  tilec_status *st = tilec_compiler_build_library_multi(c, specs, 2, "/nonexistent/x.so", NULL);
  ck_assert_ptr_nonnull(st);
  ck_assert_str_eq(tilec_status_message(st),
                   "debug checks (nan) are not supported yet in libraries with several specializations");
  tilec_status_destroy(st);
  tilec_compiler_destroy(c);
}
END_TEST

/* ---- --check races through the C API ----------------------------------------------- */

static const char shift_source[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def shift_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)\n"
    "\n"
    "@triton.jit\n"
    "def same_kernel(dst_ptr, BLOCK: tl.constexpr):\n"
    "    tl.store(dst_ptr + tl.arange(0, BLOCK), tl.program_id(0).to(tl.float32))\n";

static tilec_jit_kernel *race_kernel(const char *kernel, const char *signature) {
  tilec_compiler *c = compiler("", TILEC_CHECKS_RACES, false, false, false);
  tilec_kernel_spec s = {.source = shift_source,
                         .source_len = sizeof shift_source - 1,
                         .filename = "shift.py",
                         .kernel = kernel,
                         .signature = signature};
  tilec_jit_kernel *k = NULL;
  tilec_status *st = tilec_jit_compile(c, &s, &k, NULL);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  tilec_compiler_destroy(c);
  return k;
}

static void launch_expect(tilec_jit_kernel *k, uint32_t grid, void **args, size_t nargs, const int64_t *extents,
                          const char *msg) {
  tilec_launch_options o;
  tilec_launch_options_init(&o);
  o.buffer_extents = extents;
  o.num_threads = 2;
  tilec_status *st = tilec_jit_kernel_launch(k, grid, 1, 1, args, nargs, &o);
  if (!msg) {
    ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
    return;
  }
  ck_assert_msg(st != NULL, "expected: %s", msg);
  ck_assert_str_eq(tilec_status_message(st), msg);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_RUNTIME);
  ck_assert_str_eq(tilec_status_file(st), "shift.py");
  tilec_status_destroy(st);
}

/* Loads through an argument the kernel never stores through are checked when its memory
 * overlaps another argument's: the runtime decides per launch from the extents, and an
 * unknown extent counts as overlapping. */
START_TEST(test_race_between_arguments) {
  clear_env();
  tilec_jit_kernel *k = race_kernel("shift_kernel", "*fp32, *fp32, i32, 16");
  float buf[65], other[64];
  for (int i = 0; i < 65; i++) buf[i] = (float)i;
  int32_t n = 64;
  float *src = buf + 1, *dst = buf;
  void *args[] = {&src, &dst, &n};
  const char *race = "read-write race on 'dst_ptr' element 16: program (1, 0, 0) stores it at shift.py:7:5 after "
                     "program (0, 0, 0) loaded it at shift.py:7:30, with no atomic or lock ordering the two";
  int64_t ext[3] = {64, 64, -1};
  launch_expect(k, 4, args, 3, ext, race);
  launch_expect(k, 4, args, 3, NULL, race); /* sizes unknown: the loads are checked */
  int64_t unknown_src[3] = {-1, 64, -1};
  launch_expect(k, 4, args, 3, unknown_src, race);
  src = buf;
  launch_expect(k, 4, args, 3, ext, NULL); /* in place, each element one program's */
  src = buf;
  dst = other;
  launch_expect(k, 4, args, 3, ext, NULL);
  launch_expect(k, 4, args, 3, NULL, NULL);
  tilec_jit_kernel_release(k);
}
END_TEST

typedef struct race_loop {
  tilec_jit_kernel *k;
  bool racy;
  int failures;
} race_loop;

static void *race_thread(void *p) {
  race_loop *r = p;
  float a[64], b[64];
  int32_t n = 64;
  for (int it = 0; it < 40; it++) {
    float *dst = a, *src = b;
    void *args1[] = {&dst};
    void *args3[] = {&src, &dst, &n};
    tilec_launch_options o;
    tilec_launch_options_init(&o);
    o.num_threads = 2;
    tilec_status *st = r->racy ? tilec_jit_kernel_launch(r->k, 4, 1, 1, args1, 1, &o)
                               : tilec_jit_kernel_launch(r->k, 4, 1, 1, args3, 3, &o);
    bool want = r->racy;
    if ((st != NULL) != want || (st && strcmp(tilec_status_message(st),
                                              "write-write race on 'dst_ptr' element 0: program (1, 0, 0) stores "
                                              "it at shift.py:11:5 after program (0, 0, 0) stored it at shift.py:11:5, "
                                              "with no atomic or lock ordering the two")))
      r->failures++;
    tilec_status_destroy(st);
  }
  return NULL;
}

/* Each launch has its own log: a racy and a race-free launch at the same time from two
 * host threads each get their own verdict, every time. */
START_TEST(test_race_concurrent_launches) {
  clear_env();
  race_loop racy = {race_kernel("same_kernel", "*fp32, 16"), true, 0};
  race_loop fine = {race_kernel("shift_kernel", "*fp32, *fp32, i32, 16"), false, 0};
  pthread_t t1, t2;
  ck_assert_int_eq(pthread_create(&t1, NULL, race_thread, &racy), 0);
  ck_assert_int_eq(pthread_create(&t2, NULL, race_thread, &fine), 0);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  ck_assert_int_eq(racy.failures, 0);
  ck_assert_int_eq(fine.failures, 0);
  tilec_jit_kernel_release(racy.k);
  tilec_jit_kernel_release(fine.k);
}
END_TEST

/* ---- --check init through the C API ----------------------------------------------- */

static const char init_source[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def fill(out_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(out_ptr + offs, offs.to(tl.float32), mask=offs < n)\n"
    "\n"
    "@triton.jit\n"
    "def copy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)\n";

static tilec_jit_kernel *init_kernel(const char *kernel) {
  tilec_compiler *c = compiler("", TILEC_CHECKS_INIT, false, false, false);
  tilec_kernel_spec s = {.source = init_source,
                         .source_len = sizeof init_source - 1,
                         .filename = "init.py",
                         .kernel = kernel,
                         .signature = "*fp32, i32, 16"};
  if (!strcmp(kernel, "copy")) s.signature = "*fp32, *fp32, i32, 16";
  tilec_jit_kernel *k = NULL;
  tilec_status *st = tilec_jit_compile(c, &s, &k, NULL);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  tilec_compiler_destroy(c);
  return k;
}

static void init_launch(tilec_jit_kernel *k, void **args, size_t nargs, int32_t *n, int32_t count, const char *msg) {
  *n = count;
  tilec_launch_options o;
  tilec_launch_options_init(&o);
  o.num_threads = 2;
  tilec_status *st = tilec_jit_kernel_launch(k, 4, 1, 1, args, nargs, &o);
  if (!msg) {
    ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
    return;
  }
  ck_assert_msg(st != NULL, "expected: %s", msg);
  ck_assert_str_eq(tilec_status_message(st), msg);
  ck_assert_int_eq(tilec_status_line(st), 12);
  tilec_status_destroy(st);
}

/* Marks outlive launches: what one launch stores, the next may load; marking again clears
 * them, forgetting drops them. */
START_TEST(test_init_marks) {
  clear_env();
  tilec_jit_kernel *fill = init_kernel("fill"), *copy = init_kernel("copy");
  float *buf = aligned_alloc(64, 64 * sizeof(float)), dst[64];
  int32_t n = 64;
  void *fill_args[] = {&buf, &n}, *copy_args[] = {&buf, &(float *){dst}, &n};
  ck_assert_ptr_null(tilec_debug_mark_uninitialized(buf, 64 * sizeof(float)));
  init_launch(fill, fill_args, 2, &n, 40, NULL); /* elements 0..39 written */
  init_launch(copy, copy_args, 3, &n, 40, NULL);
  init_launch(copy, copy_args, 3, &n, 64,
              "load from 'src_ptr' at element 40 reads memory nothing has stored to since it was marked "
              "uninitialized, in program (2, 0, 0)");
  init_launch(fill, fill_args, 2, &n, 64, NULL);
  init_launch(copy, copy_args, 3, &n, 64, NULL);
  for (int i = 0; i < 64; i++) ck_assert(dst[i] == (float)i);
  ck_assert_ptr_null(tilec_debug_mark_uninitialized(buf, 64 * sizeof(float))); /* again: nothing written */
  init_launch(copy, copy_args, 3, &n, 64,
              "load from 'src_ptr' at element 0 reads memory nothing has stored to since it was marked "
              "uninitialized, in program (0, 0, 0)");
  ck_assert_int_eq(tilec_debug_forget(buf), 1);
  ck_assert_int_eq(tilec_debug_forget(buf), 0);
  init_launch(copy, copy_args, 3, &n, 64, NULL);

  /* the marks' own errors */
  tilec_status *st = tilec_debug_mark_uninitialized(NULL, 4);
  ck_assert_str_eq(tilec_status_message(st), "tilec_debug_mark_uninitialized: base is NULL");
  tilec_status_destroy(st);
  st = tilec_debug_mark_uninitialized(buf, 0);
  ck_assert_str_eq(tilec_status_message(st), "tilec_debug_mark_uninitialized: no bytes to mark");
  tilec_status_destroy(st);
  ck_assert_ptr_null(tilec_debug_mark_uninitialized(buf + 16, 16 * sizeof(float)));
  st = tilec_debug_mark_uninitialized(buf, 20 * sizeof(float));
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tilec_status_message(st), "overlap"));
  tilec_status_destroy(st);
  ck_assert_int_eq(tilec_debug_forget(buf + 16), 1);
  free(buf);
  tilec_jit_kernel_release(fill);
  tilec_jit_kernel_release(copy);
}
END_TEST

static Suite *checks_suite(void) {
  Suite *s = suite_create("checks");
  TCase *tc = tcase_create("checks");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_parse);
  tcase_add_test(tc, test_environment);
  tcase_add_test(tc, test_resolution);
  tcase_add_test(tc, test_cache_key);
  tcase_add_test(tc, test_multi_library_refuses);
  tcase_add_test(tc, test_race_between_arguments);
  tcase_add_test(tc, test_race_concurrent_launches);
  tcase_add_test(tc, test_init_marks);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(checks_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
