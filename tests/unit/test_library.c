/* tests/unit/test_library.c — loading kernel libraries, built on the fly with `cc -shared`.
 * In: a fake kernel library source compiled with -D variants (good, wrong ABI, broken
 * tables), a .so without tilec symbols, a garbage file. Out: a Check suite; also dtype names. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/expect.h"
#include "tilec/runtime.h"

/* Three kernels; -D switches break one thing at a time. */
static const char fake_library_source[] =
    "#include \"tilec/abi.h\"\n"
    "#ifndef LIB_ABI\n#define LIB_ABI TILEC_ABI_VERSION\n#endif\n"
    "#ifndef DESC_ABI\n#define DESC_ABI TILEC_ABI_VERSION\n#endif\n"
    "#ifndef DESC_SIZE\n#define DESC_SIZE sizeof(tilec_kernel_desc)\n#endif\n"
    "#ifndef NPARAMS\n#define NPARAMS 3\n#endif\n"
    "#ifndef NARGS\n#define NARGS 2\n#endif\n"
    "#ifndef N_KIND\n#define N_KIND TILEC_PARAM_SCALAR\n#endif\n"
    "static int add_one(void *const *args, const uint32_t pid[3], const uint32_t grid[3],\n"
    "                   void *ctx) {\n"
    "  (void)ctx;\n"
    "  float *out = *(float *const *)args[0];\n"
    "  int32_t n = *(const int32_t *)args[1];\n"
    "  int64_t i = (int64_t)pid[0] + (int64_t)grid[0] * pid[1];\n"
    "  if (i < n) out[i] += 1.0f;\n"
    "  return 0;\n"
    "}\n"
    "static int scale(void *const *args, const uint32_t pid[3], const uint32_t grid[3],\n"
    "                 void *ctx) {\n"
    "  (void)ctx; (void)grid;\n"
    "  float *x = *(float *const *)args[0];\n"
    "  x[pid[0]] *= *(const float *)args[1];\n"
    "  return 0;\n"
    "}\n"
    "static int fail_odd(void *const *args, const uint32_t pid[3], const uint32_t grid[3],\n"
    "                    void *ctx) {\n"
    "  (void)args; (void)grid; (void)ctx;\n"
    "  return (int)(pid[0] & 1);\n"
    "}\n"
    "static const tilec_param_desc add_params[] = {\n"
    "  {\"out\", TILEC_PARAM_POINTER, TILEC_DTYPE_F32, 1, 16, 0},\n"
    "  {\"n\", N_KIND, TILEC_DTYPE_I32, 0, 1, 0},\n"
    "  {\"BLOCK\", TILEC_PARAM_CONSTEXPR, TILEC_DTYPE_I32, 0, 1, \"4\"}};\n"
    "static const tilec_param_desc scale_params[] = {\n"
    "  {\"x\", TILEC_PARAM_POINTER, TILEC_DTYPE_F32, 1, 1, 0},\n"
    "  {\"s\", TILEC_PARAM_SCALAR, TILEC_DTYPE_F32, 0, 1, 0}};\n"
    "#ifdef NO_PROGRAM\n#define ADD_PROGRAM 0\n#else\n#define ADD_PROGRAM add_one\n#endif\n"
    "static const tilec_kernel_desc add_desc = {TILEC_ABI_VERSION, DESC_SIZE, \"add_one\",\n"
    "  \"*fp32:16, i32, 4\", \"x86_64-unknown-linux-gnu\", \"k.py\", \"0.1.0\", NPARAMS, NARGS,\n"
    "  add_params, ADD_PROGRAM};\n"
    "static const tilec_kernel_desc scale_desc = {DESC_ABI, sizeof(tilec_kernel_desc),\n"
    "  \"scale\", \"*fp32, fp32\", \"x86_64-unknown-linux-gnu\", \"k.py\", \"0.1.0\", 2, 2,\n"
    "  scale_params, scale};\n"
    "#ifdef DUP\n#define THIRD_NAME \"add_one\"\n#else\n#define THIRD_NAME \"fail_odd\"\n#endif\n"
    "static const tilec_kernel_desc fail_desc = {TILEC_ABI_VERSION,\n"
    "  sizeof(tilec_kernel_desc), THIRD_NAME, \"\", \"x86_64-unknown-linux-gnu\", \"k.py\",\n"
    "  \"0.1.0\", 0, 0, 0, fail_odd};\n"
    "const uint32_t tilec_library_abi_version = LIB_ABI;\n"
    "#if defined(EMPTY_TABLE)\n"
    "const tilec_kernel_desc *const tilec_kernels[] = {0};\n"
    "#elif !defined(NO_TABLE)\n"
    "const tilec_kernel_desc *const tilec_kernels[] = {&add_desc, &scale_desc, &fail_desc, 0};\n"
    "#endif\n"
    "/* keeps every descriptor referenced whatever the variant */\n"
    "const tilec_kernel_desc *const fake_all[] = {&add_desc, &scale_desc, &fail_desc};\n";

static const char plain_library_source[] = "int not_a_kernel(int x) { return x + 1; }\n";

static const struct {
  const char *name;
  const char *flags;
} variants[] = {
    {"good", ""},
    {"wrongabi", "-DLIB_ABI=999"},
    {"descabi", "-DDESC_ABI=2"},
    {"descsize", "-DDESC_SIZE=8"},
    {"dup", "-DDUP"},
    {"noprog", "-DNO_PROGRAM"},
    {"notable", "-DNO_TABLE"},
    {"emptytable", "-DEMPTY_TABLE"},
    {"bigcount", "-DNPARAMS=100000"},
    {"pastend", "-DNPARAMS=1000"},
    {"nargs", "-DNARGS=1"},
    {"badkind", "-DN_KIND=7"},
};

static char tmp_dir[PATH_MAX];

static void lib_path(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s.so", tmp_dir, name); }

/* The source tree's include/: TILEC_TEST_INCLUDE, else beside TILEC_TEST_DATA (tests/, as
 * ctest sets it), else from where this file was compiled. */
static void include_dir(char *buf, size_t cap) {
  const char *env = getenv("TILEC_TEST_INCLUDE");
  if (env && *env) {
    snprintf(buf, cap, "%s", env);
    return;
  }
  const char *data = getenv("TILEC_TEST_DATA");
  if (data && *data) {
    snprintf(buf, cap, "%s/../include", data);
    return;
  }
  const char *file = __FILE__;
  const char *tail = strstr(file, "tests/unit/test_library.c");
  int root_len = tail ? (int)(tail - file) : 0;
  if (root_len == 0) snprintf(buf, cap, "./include");
  else snprintf(buf, cap, "%.*sinclude", root_len, file);
}

static int write_file(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  int ok = fwrite(text, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

static int build_libraries(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmp_dir, sizeof tmp_dir, "%s/tilec_test_library_XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(tmp_dir)) {
    perror("mkdtemp");
    return 0;
  }
  char inc[PATH_MAX], src[PATH_MAX + 16], out[PATH_MAX + 32], cmd[4 * PATH_MAX];
  include_dir(inc, sizeof inc);
  char abi_h[PATH_MAX + 32];
  snprintf(abi_h, sizeof abi_h, "%s/tilec/abi.h", inc);
  if (access(abi_h, R_OK) != 0) {
    fprintf(stderr, "test_library: cannot find %s; set TILEC_TEST_INCLUDE\n", abi_h);
    return 0;
  }
  snprintf(src, sizeof src, "%s/fake.c", tmp_dir);
  if (!write_file(src, fake_library_source, sizeof fake_library_source - 1)) return 0;
  for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
    lib_path(out, sizeof out, variants[i].name);
    snprintf(cmd, sizeof cmd, "cc -std=c17 -shared -fPIC %s -I'%s' '%s' -o '%s'", variants[i].flags, inc, src, out);
    if (system(cmd) != 0) {
      fprintf(stderr, "test_library: failed: %s\n", cmd);
      return 0;
    }
  }
  snprintf(src, sizeof src, "%s/plain.c", tmp_dir);
  lib_path(out, sizeof out, "plain");
  snprintf(cmd, sizeof cmd, "cc -shared -fPIC '%s' -o '%s'", src, out);
  if (!write_file(src, plain_library_source, sizeof plain_library_source - 1) || system(cmd) != 0) return 0;
  /* Longer than an ELF header, so the loader reads it and rejects the contents. */
  static const char garbage[] = "this is not an ELF shared object, just text\n"
                                "this is not an ELF shared object, just text\n"
                                "this is not an ELF shared object, just text\n";
  lib_path(out, sizeof out, "x");
  return write_file(out, garbage, sizeof garbage - 1);
}

static void remove_libraries(void) {
  char path[PATH_MAX + 32];
  for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
    lib_path(path, sizeof path, variants[i].name);
    unlink(path);
  }
  const char *others[] = {"plain.so", "x.so", "fake.c", "plain.c"};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", tmp_dir, others[i]);
    unlink(path);
  }
  rmdir(tmp_dir);
}

/* Loading `name` fails with exactly `fmt` (one %s: the library's path). */
static void expect_load_error(const char *name, tilec_status_code code, const char *fmt) {
  char path[PATH_MAX + 32], msg[2 * PATH_MAX + 256];
  lib_path(path, sizeof path, name);
  snprintf(msg, sizeof msg, fmt, path);
  tilec_library *lib = (tilec_library *)&lib; /* must be reset to NULL */
  expect_status(tilec_library_load(path, &lib), code, msg);
  ck_assert_ptr_null(lib);
}

static tilec_library *load(const char *name) {
  char path[PATH_MAX + 32];
  lib_path(path, sizeof path, name);
  tilec_library *lib = NULL;
  tilec_status *st = tilec_library_load(path, &lib);
  ck_assert_msg(st == NULL, "%s", tilec_status_message(st));
  ck_assert_ptr_nonnull(lib);
  return lib;
}

START_TEST(test_load_and_list) {
  tilec_library *lib = load("good");
  char path[PATH_MAX + 32];
  lib_path(path, sizeof path, "good");
  ck_assert_str_eq(tilec_library_path(lib), path);
  ck_assert_uint_eq(tilec_library_kernel_count(lib), 3);
  static const char *names[] = {"add_one", "scale", "fail_odd"};
  for (size_t i = 0; i < 3; i++) ck_assert_str_eq(tilec_library_kernel_at(lib, i)->name, names[i]);
  ck_assert_ptr_null(tilec_library_kernel_at(lib, 3));
  const tilec_kernel_desc *k = tilec_library_kernel_at(lib, 0);
  ck_assert_uint_eq(k->num_params, 3);
  ck_assert_uint_eq(k->num_args, 2);
  ck_assert_str_eq(k->params[2].value, "4");
  ck_assert_str_eq(k->signature, "*fp32:16, i32, 4");
  tilec_library_unload(lib);
}
END_TEST

START_TEST(test_find_kernel) {
  tilec_library *lib = load("good");
  const tilec_kernel_desc *k = NULL;
  ck_assert_ptr_null(tilec_library_find_kernel(lib, "scale", &k));
  ck_assert_ptr_eq(k, tilec_library_kernel_at(lib, 1));
  char msg[PATH_MAX + 128];
  snprintf(msg, sizeof msg, "no kernel 'add' in '%s'; it has: add_one, scale, fail_odd", tilec_library_path(lib));
  expect_status(tilec_library_find_kernel(lib, "add", &k), TILEC_ERROR_NOT_FOUND, msg);
  ck_assert_ptr_null(k);
  expect_status(tilec_library_find_kernel(lib, NULL, &k), TILEC_ERROR_INVALID_ARGUMENT,
                "tilec_library_find_kernel: name is NULL");
  expect_status(tilec_library_find_kernel(NULL, "scale", &k), TILEC_ERROR_INVALID_ARGUMENT,
                "tilec_library_find_kernel: library is NULL");
  expect_status(tilec_library_find_kernel(lib, "scale", NULL), TILEC_ERROR_INVALID_ARGUMENT,
                "tilec_library_find_kernel: out is NULL");
  tilec_library_unload(lib);
}
END_TEST

START_TEST(test_launch_loaded_kernels) {
  tilec_library *lib = load("good");
  const tilec_kernel_desc *add, *scale, *fail;
  ck_assert_ptr_null(tilec_library_find_kernel(lib, "add_one", &add));
  ck_assert_ptr_null(tilec_library_find_kernel(lib, "scale", &scale));
  ck_assert_ptr_null(tilec_library_find_kernel(lib, "fail_odd", &fail));

  float out[32], want[32];
  for (int i = 0; i < 32; i++) out[i] = want[i] = (float)i;
  float *out_ptr = out;
  int32_t n = 20;
  void *add_args[] = {&out_ptr, &n};
  ck_assert_ptr_null(tilec_kernel_launch(add, 7, 3, 1, add_args, NULL));
  for (int i = 0; i < n; i++) want[i] += 1.0f; /* 21 programs, the mask keeps 20 */
  float s = 0.5f;
  void *scale_args[] = {&out_ptr, &s};
  ck_assert_int_eq(tilec_kernel_launch_simple(scale, 32, 1, 1, scale_args), 0);
  for (int i = 0; i < 32; i++) want[i] *= 0.5f;
  ck_assert_mem_eq(out, want, sizeof out);

  tilec_launch_options o;
  tilec_launch_options_init(&o);
  o.num_threads = 1; /* program 1 is then the first to fail */
  expect_status(tilec_kernel_launch(fail, 8, 1, 1, NULL, &o), TILEC_ERROR_RUNTIME,
                "kernel 'fail_odd' failed in program (1, 0, 0)");
  tilec_library_unload(lib);
}
END_TEST

START_TEST(test_load_twice) {
  tilec_library *a = load("good"), *b = load("good");
  tilec_library_unload(a);
  const tilec_kernel_desc *k;
  ck_assert_ptr_null(tilec_library_find_kernel(b, "scale", &k));
  float x[4] = {1, 2, 3, 4}, s = 2.0f, *xp = x;
  void *args[] = {&xp, &s};
  ck_assert_ptr_null(tilec_kernel_launch(k, 4, 1, 1, args, NULL));
  ck_assert(x[0] == 2 && x[1] == 4 && x[2] == 6 && x[3] == 8);
  tilec_library_unload(b);
}
END_TEST

START_TEST(test_wrong_abi) {
  expect_load_error("wrongabi", TILEC_ERROR_ABI, "kernel library '%s' was built for tilec ABI 999, this runtime is 1");
}
END_TEST

START_TEST(test_broken_descriptors) {
  expect_load_error("descabi", TILEC_ERROR_ABI, "kernel #1 in '%s' was built for tilec ABI 2, this runtime is 1");
  char fmt[160];
  snprintf(fmt, sizeof fmt,
           "kernel #0 in '%%s' has a 8-byte descriptor, this runtime expects %zu bytes for "
           "tilec ABI 1",
           sizeof(tilec_kernel_desc));
  expect_load_error("descsize", TILEC_ERROR_ABI, fmt);
  expect_load_error("dup", TILEC_ERROR_INVALID_ARGUMENT,
                    "kernel library '%s' defines kernel 'add_one' twice (#0 and #2)");
  expect_load_error("noprog", TILEC_ERROR_INVALID_ARGUMENT, "kernel 'add_one' in '%s' has no program function");
  expect_load_error("notable", TILEC_ERROR_NOT_FOUND, "kernel library '%s' does not export 'tilec_kernels'");
  /* A parameter count beyond the table was read out of bounds at launch. */
  expect_load_error("bigcount", TILEC_ERROR_INVALID_ARGUMENT,
                    "kernel 'add_one' in '%s' has an inconsistent parameter table (100000 parameters, 2 runtime "
                    "arguments, params present)");
  expect_load_error("pastend", TILEC_ERROR_INVALID_ARGUMENT,
                    "kernel 'add_one' in '%s': its parameter table of 1000 entries lies outside the library");
  expect_load_error("nargs", TILEC_ERROR_INVALID_ARGUMENT,
                    "kernel 'add_one' in '%s' declares 1 runtime arguments but its parameter table has 2");
  expect_load_error("badkind", TILEC_ERROR_INVALID_ARGUMENT,
                    "kernel 'add_one' in '%s': parameter 1 has an unknown kind");
}
END_TEST

START_TEST(test_empty_table) {
  tilec_library *lib = load("emptytable");
  ck_assert_uint_eq(tilec_library_kernel_count(lib), 0);
  ck_assert_ptr_null(tilec_library_kernel_at(lib, 0));
  const tilec_kernel_desc *k;
  char msg[PATH_MAX + 128];
  snprintf(msg, sizeof msg, "no kernel 'add_one' in '%s'; it has: (no kernels)", tilec_library_path(lib));
  expect_status(tilec_library_find_kernel(lib, "add_one", &k), TILEC_ERROR_NOT_FOUND, msg);
  tilec_library_unload(lib);
}
END_TEST

START_TEST(test_not_a_tilec_library) {
  expect_load_error("plain", TILEC_ERROR_NOT_FOUND,
                    "'%s' is not a tilec kernel library: it does not export "
                    "'tilec_library_abi_version'");
}
END_TEST

START_TEST(test_missing_file) {
  char path[PATH_MAX + 32];
  lib_path(path, sizeof path, "missing");
  tilec_library *lib = NULL;
  tilec_status *st = tilec_library_load(path, &lib);
  ck_assert_ptr_null(lib);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_NOT_FOUND);
  char prefix[PATH_MAX + 64];
  snprintf(prefix, sizeof prefix, "kernel library '%s' not found: ", path);
  const char *msg = tilec_status_message(st);
  ck_assert_msg(strncmp(msg, prefix, strlen(prefix)) == 0, "got: %s", msg);
  /* The loader's own words follow. */
  ck_assert_ptr_nonnull(strstr(msg + strlen(prefix), "No such file or directory"));
  tilec_status_destroy(st);

  st = tilec_library_load("/nonexistent-tilec-dir/k.so", &lib);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(tilec_status_message(st), "kernel library '/nonexistent-tilec-dir/k.so' not found: "));
  tilec_status_destroy(st);
}
END_TEST

START_TEST(test_garbage_file) {
  char path[PATH_MAX + 32];
  lib_path(path, sizeof path, "x");
  tilec_library *lib = NULL;
  tilec_status *st = tilec_library_load(path, &lib);
  ck_assert_ptr_null(lib);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_IO);
  char prefix[PATH_MAX + 64];
  snprintf(prefix, sizeof prefix, "cannot load kernel library '%s': ", path);
  const char *msg = tilec_status_message(st);
  ck_assert_msg(strncmp(msg, prefix, strlen(prefix)) == 0, "got: %s", msg);
  ck_assert_msg(strlen(msg) > strlen(prefix), "no loader message in: %s", msg);
  tilec_status_destroy(st);
  /* A directory is not a library either. */
  st = tilec_library_load(tmp_dir, &lib);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_IO);
  tilec_status_destroy(st);
}
END_TEST

START_TEST(test_bare_name_is_a_file_here) {
  char cwd[PATH_MAX];
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
  ck_assert_int_eq(chdir(tmp_dir), 0);
  tilec_library *lib = NULL;
  tilec_status *st = tilec_library_load("good.so", &lib);
  ck_assert_int_eq(chdir(cwd), 0);
  ck_assert_msg(st == NULL, "%s", tilec_status_message(st));
  ck_assert_str_eq(tilec_library_path(lib), "good.so");
  ck_assert_uint_eq(tilec_library_kernel_count(lib), 3);
  tilec_library_unload(lib);
}
END_TEST

START_TEST(test_bad_arguments) {
  tilec_library *lib = NULL;
  expect_status(tilec_library_load(NULL, &lib), TILEC_ERROR_INVALID_ARGUMENT,
                "tilec_library_load: the library path is NULL");
  expect_status(tilec_library_load("", &lib), TILEC_ERROR_INVALID_ARGUMENT,
                "tilec_library_load: the library path is empty");
  expect_status(tilec_library_load("x.so", NULL), TILEC_ERROR_INVALID_ARGUMENT, "tilec_library_load: out is NULL");
  tilec_library_unload(NULL);
  ck_assert_uint_eq(tilec_library_kernel_count(NULL), 0);
  ck_assert_ptr_null(tilec_library_kernel_at(NULL, 0));
}
END_TEST

START_TEST(test_dtype_names) {
  static const struct {
    tilec_dtype t;
    const char *name;
    size_t size;
  } table[] = {
      {TILEC_DTYPE_I1, "i1", 1},           {TILEC_DTYPE_I8, "i8", 1},
      {TILEC_DTYPE_I16, "i16", 2},         {TILEC_DTYPE_I32, "i32", 4},
      {TILEC_DTYPE_I64, "i64", 8},         {TILEC_DTYPE_U8, "u8", 1},
      {TILEC_DTYPE_U16, "u16", 2},         {TILEC_DTYPE_U32, "u32", 4},
      {TILEC_DTYPE_U64, "u64", 8},         {TILEC_DTYPE_F16, "fp16", 2},
      {TILEC_DTYPE_BF16, "bf16", 2},       {TILEC_DTYPE_F32, "fp32", 4},
      {TILEC_DTYPE_F64, "fp64", 8},        {TILEC_DTYPE_FP8E5, "fp8e5", 1},
      {TILEC_DTYPE_FP8E4NV, "fp8e4nv", 1}, {TILEC_DTYPE_FP8E4B15, "fp8e4b15", 1},
      {TILEC_DTYPE_FP8E4B8, "fp8e4b8", 1}, {TILEC_DTYPE_FP8E5B16, "fp8e5b16", 1},
  };
  ck_assert_uint_eq(sizeof table / sizeof table[0], TILEC_DTYPE_COUNT - 1);
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    ck_assert_str_eq(tilec_dtype_name(table[i].t), table[i].name);
    ck_assert_uint_eq(tilec_dtype_size(table[i].t), table[i].size);
    ck_assert_int_eq(tilec_dtype_from_name(table[i].name), table[i].t);
  }
  ck_assert_str_eq(tilec_dtype_name(TILEC_DTYPE_INVALID), "invalid");
  ck_assert_str_eq(tilec_dtype_name((tilec_dtype)99), "invalid");
  ck_assert_uint_eq(tilec_dtype_size(TILEC_DTYPE_INVALID), 0);
  ck_assert_uint_eq(tilec_dtype_size(TILEC_DTYPE_COUNT), 0);
  static const char *not_names[] = {"f32", "float32", "FP32", "fp32 ", "", "invalid", "i"};
  for (size_t i = 0; i < sizeof not_names / sizeof not_names[0]; i++)
    ck_assert_int_eq(tilec_dtype_from_name(not_names[i]), TILEC_DTYPE_INVALID);
  ck_assert_int_eq(tilec_dtype_from_name(NULL), TILEC_DTYPE_INVALID);
}
END_TEST

static Suite *library_suite(void) {
  Suite *s = suite_create("library");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_load_and_list);
  tcase_add_test(tc, test_find_kernel);
  tcase_add_test(tc, test_launch_loaded_kernels);
  tcase_add_test(tc, test_load_twice);
  tcase_add_test(tc, test_wrong_abi);
  tcase_add_test(tc, test_broken_descriptors);
  tcase_add_test(tc, test_empty_table);
  tcase_add_test(tc, test_not_a_tilec_library);
  tcase_add_test(tc, test_missing_file);
  tcase_add_test(tc, test_garbage_file);
  tcase_add_test(tc, test_bare_name_is_a_file_here);
  tcase_add_test(tc, test_bad_arguments);
  tcase_add_test(tc, test_dtype_names);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* Built once, before the (possibly forked) tests run. */
  if (!build_libraries()) {
    if (tmp_dir[0]) remove_libraries();
    fprintf(stderr, "test_library: could not build the fake kernel libraries\n");
    return EXIT_FAILURE;
  }
  SRunner *sr = srunner_create(library_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  remove_libraries();
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
