/* tests/unit/test_dispatch.c — AOT libraries with several specializations of one kernel:
 * the generated KERNEL_launch must run the most specialized variant whose hints hold.
 * In: a strided scale kernel built with :16 / :1 variants. Out: a Check suite. */
#include <check.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilec/runtime.h"
#include "tilec/tilec.h"

static const char source[] = "import triton\n"
                             "import triton.language as tl\n"
                             "\n"
                             "@triton.jit\n"
                             "def scale_kernel(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):\n"
                             "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                             "    mask = offs < n\n"
                             "    x = tl.load(x_ptr + offs * stride, mask=mask)\n"
                             "    tl.store(out_ptr + offs, x * 2.0, mask=mask)\n"
                             "\n"
                             "@triton.jit\n"
                             "def other_kernel(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):\n"
                             "    tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(x_ptr + tl.arange(0, BLOCK)))\n";

#define SIG_ANY "*fp32, *fp32, i32, i32, 64"
#define SIG_DIV "*fp32:16, *fp32:16, i32:16, i32, 64"
#define SIG_ONE "*fp32:16, *fp32:16, i32:16, i32:1, 64"

typedef int (*launch_fn)(uint32_t, uint32_t, uint32_t, float *, float *, int32_t, int32_t);
typedef const char *(*variant_fn)(float *, float *, int32_t, int32_t);

static char dir[PATH_MAX];

static tilec_kernel_spec spec_of(const char *kernel, const char *sig) {
  tilec_kernel_spec s = {.source = source,
                         .source_len = sizeof source - 1,
                         .filename = "scale.py",
                         .kernel = kernel,
                         .signature = sig,
                         .defines = NULL,
                         .num_defines = 0};
  return s;
}

static tilec_status *build(const char *const *sigs, size_t n, const char *so, const char *h) {
  tilec_compiler *c = NULL;
  tilec_status *st = tilec_compiler_create(NULL, &c);
  ck_assert_ptr_null(st);
  tilec_kernel_spec specs[8];
  for (size_t i = 0; i < n; i++) specs[i] = spec_of("scale_kernel", sigs[i]);
  st = tilec_compiler_build_library_multi(c, specs, n, so, h);
  tilec_compiler_destroy(c);
  return st;
}

static void paths(const char *name, char *so, char *h) {
  const char *base = getenv("TMPDIR");
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "%s/tilec_test_dispatch_XXXXXX", base && *base ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
  }
  snprintf(so, PATH_MAX, "%s/%s.so", dir, name);
  if (h) snprintf(h, PATH_MAX, "%s/%s.h", dir, name);
}

static void cleanup(void) {
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "test_dispatch: could not remove %s\n", dir);
  dir[0] = 0; /* the next test (CK_FORK=no runs them in one process) makes a new one */
}

/* The first n - 1 bytes of a generated file (a header), NUL-terminated. */
static void read_text(const char *path, char *text, size_t n) {
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  size_t len = fread(text, 1, n - 1, f);
  text[len] = 0;
  fclose(f);
}

/* Runs the launch on x (stride apart) and checks out against a C loop. */
static void run_and_check(launch_fn launch, float *x, float *out, int32_t n, int32_t stride) {
  for (int32_t i = 0; i < n; i++) out[i] = -1.0f;
  ck_assert_int_eq(launch((uint32_t)((n + 63) / 64), 1, 1, x, out, n, stride), 0);
  for (int32_t i = 0; i < n; i++)
    ck_assert_msg(out[i] == x[(int64_t)i * stride] * 2.0f, "n=%d stride=%d element %d: %g", n, stride, i,
                  (double)out[i]);
}

START_TEST(test_picks_most_specialized) {
  char so[PATH_MAX], h[PATH_MAX];
  paths("scale", so, h);
  /* Given least specialized first: the order of the table must not matter. */
  const char *sigs[] = {SIG_ANY, SIG_ONE, SIG_DIV};
  tilec_status *st = build(sigs, 3, so, h);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");

  tilec_library *lib = NULL;
  ck_assert_ptr_null(tilec_library_load(so, &lib));
  ck_assert_uint_eq(tilec_library_kernel_count(lib), 3);
  ck_assert_str_eq(tilec_library_kernel_at(lib, 0)->name, "scale_kernel__dddc");
  ck_assert_str_eq(tilec_library_kernel_at(lib, 1)->name, "scale_kernel__ddda");
  ck_assert_str_eq(tilec_library_kernel_at(lib, 2)->name, "scale_kernel__aaaa");
  ck_assert_str_eq(tilec_library_kernel_at(lib, 0)->signature, "*fp32:16, *fp32:16, i32:16, 1, 64");
  ck_assert_uint_eq(tilec_library_kernel_at(lib, 0)->num_args, 3); /* stride is not passed on */
  ck_assert_uint_eq(tilec_library_kernel_at(lib, 2)->num_args, 4);
  tilec_library_unload(lib);

  char text[4096];
  read_text(h, text, sizeof text);
  ck_assert_ptr_nonnull(strstr(text, "int scale_kernel_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, "
                                     "float *x_ptr, float *out_ptr, int32_t n, int32_t stride);"));
  ck_assert_ptr_nonnull(strstr(
      text, "const char *scale_kernel_launch_variant(float *x_ptr, float *out_ptr, int32_t n, int32_t stride);"));

  void *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  ck_assert_ptr_nonnull(handle);
  launch_fn launch = (launch_fn)dlsym(handle, "scale_kernel_launch");
  variant_fn variant = (variant_fn)dlsym(handle, "scale_kernel_launch_variant");
  ck_assert_ptr_nonnull(launch);
  ck_assert_ptr_nonnull(variant);

  enum { N = 2048 };
  float *x = aligned_alloc(64, sizeof(float) * 2 * (N + 16)), *out = aligned_alloc(64, sizeof(float) * (N + 16));
  for (int i = 0; i < 2 * (N + 16); i++) x[i] = (float)i - 100.0f;
  static const struct {
    int x_offset, out_offset;
    int32_t n, stride;
    const char *want;
  } cases[] = {
      {0, 0, 1024, 1, "scale_kernel__dddc"}, /* everything aligned, unit stride */
      {0, 0, 1024, 2, "scale_kernel__ddda"}, /* stride 2: not the :1 variant */
      {0, 0, 0, 1, "scale_kernel__dddc"},    /* 0 is a multiple of 16 */
      {0, 0, 1000, 1, "scale_kernel__aaaa"}, /* n not a multiple of 16 */
      {1, 0, 1024, 1, "scale_kernel__aaaa"}, /* x misaligned by one float */
      {0, 4, 1024, 1, "scale_kernel__dddc"}, /* out + 16 bytes: still aligned to 16 */
      {0, 3, 1024, 3, "scale_kernel__aaaa"},
      {0, 0, 16, -1, "scale_kernel__ddda"}, /* negative stride, x offset keeps it in bounds */
      {0, 0, 7, 1, "scale_kernel__aaaa"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    float *px = x + cases[i].x_offset, *po = out + cases[i].out_offset;
    if (cases[i].stride < 0) px = x + 64; /* x[i * -1] stays inside the buffer */
    ck_assert_str_eq(variant(px, po, cases[i].n, cases[i].stride), cases[i].want);
    run_and_check(launch, px, po, cases[i].n, cases[i].stride);
  }
  free(x);
  free(out);
  dlclose(handle);
  cleanup();
}
END_TEST

START_TEST(test_no_variant_fits) {
  char so[PATH_MAX];
  paths("strict", so, NULL);
  const char *sigs[] = {SIG_DIV, SIG_ONE};
  tilec_status *st = build(sigs, 2, so, NULL);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  void *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  ck_assert_ptr_nonnull(handle);
  launch_fn launch = (launch_fn)dlsym(handle, "scale_kernel_launch");
  variant_fn variant = (variant_fn)dlsym(handle, "scale_kernel_launch_variant");
  float *x = aligned_alloc(64, 64 * sizeof(float)), out[64];
  ck_assert_ptr_null(variant(x + 1, x, 16, 1));
  ck_assert_int_eq(launch(1, 1, 1, x + 1, x, 16, 1), TILEC_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(tilec_last_error(), "kernel 'scale_kernel': no specialization accepts these arguments "
                                       "(*fp32:16, *fp32:16, i32:16, 1, 64; *fp32:16, *fp32:16, i32:16, i32, 64)");
  /* A good launch clears the message. */
  for (int i = 0; i < 16; i++) x[i] = (float)i;
  ck_assert_int_eq(launch(1, 1, 1, x, out, 16, 1), 0);
  ck_assert_str_eq(tilec_last_error(), "");
  ck_assert(out[5] == 10.0f);
  /* The typed launch function refuses a grid beyond Triton's limits (i32 program ids). */
  ck_assert_int_eq(launch(3000000000u, 1, 1, x, out, 16, 1), TILEC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tilec_last_error(), "exceeds Triton's limits of 2147483647 programs on axis 0"));
  free(x);
  dlclose(handle);
  cleanup();
}
END_TEST

static void expect_error(const char *const *sigs, size_t n, const char *msg) {
  char so[PATH_MAX];
  paths("bad", so, NULL);
  tilec_status *st = build(sigs, n, so, NULL);
  ck_assert_msg(st != NULL, "expected: %s", msg);
  ck_assert_str_eq(tilec_status_message(st), msg);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_INVALID_ARGUMENT);
  tilec_status_destroy(st);
  ck_assert_int_ne(access(so, F_OK), 0); /* nothing half-built left behind */
  cleanup();
}

START_TEST(test_incompatible_variants) {
  const char *type[] = {SIG_ANY, "*fp32, *fp16, i32, i32, 64"};
  expect_error(type, 2,
               "parameter 'out_ptr' of kernel 'scale_kernel' has different types in specialization 1 (\"*fp32, "
               "*fp32, i32, i32, 64\") and 2 (\"*fp32, *fp16, i32, i32, 64\")");
  const char *fixed[] = {SIG_ANY, "*fp32, *fp32, i32, 2, 64"};
  expect_error(fixed, 2,
               "specialization 2 of kernel 'scale_kernel' (\"*fp32, *fp32, i32, 2, 64\") fixes parameter 'stride' "
               "to 2, but specialization 1 (\"*fp32, *fp32, i32, i32, 64\") takes it at run time; specializations "
               "may differ only in :16 hints and integers fixed to 1");
  /* A constexpr is not an argument: a library of BLOCK=64 and BLOCK=128 would run one of them
   * whatever grid the caller computed for the other (half the output never written). */
  const char *blocks[] = {SIG_ANY, "*fp32:16, *fp32, i32, i32, 128"};
  expect_error(blocks, 2,
               "specializations 1 (\"*fp32, *fp32, i32, i32, 64\") and 2 (\"*fp32:16, *fp32, i32, i32, 128\") of "
               "kernel 'scale_kernel' fix constexpr 'BLOCK' to different values (64 and 128); specializations may "
               "differ only in :16 hints and integers fixed to 1 (build one library per value)");
  const char *same[] = {SIG_ANY, "*fp32, *fp32, i32, i32, 64"};
  expect_error(same, 2,
               "specializations 1 (\"*fp32, *fp32, i32, i32, 64\") and 2 (\"*fp32, *fp32, i32, i32, 64\") of "
               "kernel 'scale_kernel' have the same hints; the dispatcher could never pick the second");
}
END_TEST

START_TEST(test_different_kernels) {
  char so[PATH_MAX];
  paths("two", so, NULL);
  tilec_compiler *c = NULL;
  ck_assert_ptr_null(tilec_compiler_create(NULL, &c));
  tilec_kernel_spec specs[] = {spec_of("scale_kernel", SIG_ANY), spec_of("other_kernel", SIG_DIV)};
  tilec_status *st = tilec_compiler_build_library_multi(c, specs, 2, so, NULL);
  ck_assert_ptr_nonnull(st);
  ck_assert_str_eq(tilec_status_message(st),
                   "specializations of one library must be of one kernel: 'scale_kernel' and 'other_kernel'");
  tilec_status_destroy(st);
  st = tilec_compiler_build_library_multi(c, specs, 0, so, NULL);
  ck_assert_str_eq(tilec_status_message(st), "no kernel specializations to build");
  tilec_status_destroy(st);
  /* A front-end error names the specialization it came from. */
  specs[1] = spec_of("scale_kernel", "*fp32, *fp32, i32");
  st = tilec_compiler_build_library_multi(c, specs, 2, so, NULL);
  ck_assert_str_eq(tilec_status_message(st),
                   "specialization 2 (\"*fp32, *fp32, i32\"): signature has 3 entries but kernel 'scale_kernel' has 5 "
                   "parameters");
  tilec_status_destroy(st);
  tilec_compiler_destroy(c);
  cleanup();
}
END_TEST

/* Parameters named like C/C++ keywords or the launcher's own names (fla's `do`, a gradient):
 * the generated C names them with a trailing '_', in one- and many-specialization libraries
 * and their headers, and they launch. */
static const char keyword_source[] = "import triton\n"
                                     "import triton.language as tl\n"
                                     "\n"
                                     "@triton.jit\n"
                                     "def kw_kernel(do, int, args, grid_x, do_, BLOCK: tl.constexpr):\n"
                                     "    offs = tl.arange(0, BLOCK)\n"
                                     "    m = offs < args\n"
                                     "    v = tl.load(do + offs, mask=m) * grid_x + tl.load(do_ + offs, mask=m)\n"
                                     "    tl.store(int + offs, v, mask=m)\n";

typedef int (*kw_launch_fn)(uint32_t, uint32_t, uint32_t, float *, float *, int32_t, float, float *);

START_TEST(test_keyword_parameter_names) {
  static const char *const sigs[] = {"*fp32:16, *fp32:16, i32:16, fp32, *fp32:16, 64",
                                     "*fp32, *fp32, i32, fp32, *fp32, 64"};
  for (size_t n = 1; n <= 2; n++) {
    char so[PATH_MAX], h[PATH_MAX];
    paths(n == 1 ? "kw1" : "kw2", so, h);
    tilec_compiler *c = NULL;
    ck_assert_ptr_null(tilec_compiler_create(NULL, &c));
    tilec_kernel_spec specs[2];
    for (size_t i = 0; i < n; i++)
      specs[i] = (tilec_kernel_spec){.source = keyword_source,
                                     .source_len = sizeof keyword_source - 1,
                                     .filename = "kw.py",
                                     .kernel = "kw_kernel",
                                     .signature = sigs[i]};
    tilec_status *st = tilec_compiler_build_library_multi(c, specs, n, so, h);
    tilec_compiler_destroy(c);
    ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
    char text[4096];
    read_text(h, text, sizeof text);
    ck_assert_msg(strstr(text, "int kw_kernel_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, float *do_, "
                               "float *int_, int32_t args_, float grid_x_, float *do__);"),
                  "%s", text);
    void *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    ck_assert_ptr_nonnull(handle);
    kw_launch_fn launch = (kw_launch_fn)dlsym(handle, "kw_kernel_launch");
    ck_assert_ptr_nonnull(launch);
    float *x = aligned_alloc(64, sizeof(float) * 64), *y = aligned_alloc(64, sizeof(float) * 64),
          *out = aligned_alloc(64, sizeof(float) * 64);
    for (int i = 0; i < 64; i++) {
      x[i] = (float)i;
      y[i] = 0.5f * (float)i;
      out[i] = -1.0f;
    }
    ck_assert_int_eq(launch(1, 1, 1, x, out, n == 1 ? 48 : 40, 3.0f, y), 0);
    for (int i = 0; i < 64; i++) ck_assert_float_eq(out[i], i < (n == 1 ? 48 : 40) ? 3.5f * (float)i : -1.0f);
    free(x);
    free(y);
    free(out);
    dlclose(handle);
  }
  cleanup();
}
END_TEST

static Suite *dispatch_suite(void) {
  Suite *s = suite_create("dispatch");
  TCase *tc = tcase_create("dispatch");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_picks_most_specialized);
  tcase_add_test(tc, test_no_variant_fits);
  tcase_add_test(tc, test_incompatible_variants);
  tcase_add_test(tc, test_different_kernels);
  tcase_add_test(tc, test_keyword_parameter_names);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(dispatch_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
