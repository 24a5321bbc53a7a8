/* tests/unit/test_tensordesc.c — tensor descriptor kernel arguments through the C API: the
 * tilec_tensor_descriptor ABI (a strided view of a larger buffer, padding), the parameter
 * descriptor, the launch checks on bad descriptors, and the generated header's declaration.
 * In: kernels with tensordesc<...> signatures as strings. Out: a Check suite. */
#include <check.h>
#include <math.h>
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
                             "def scale_kernel(src, dst, alpha):\n"
                             "    BM: tl.constexpr = src.block_shape[0]\n"
                             "    BN: tl.constexpr = src.block_shape[1]\n"
                             "    pm = tl.program_id(0) * BM\n"
                             "    pn = tl.program_id(1) * BN\n"
                             "    dst.store([pm, pn], src.load([pm, pn]) * alpha)\n"
                             "\n"
                             "@triton.jit\n"
                             "def edge_kernel(src, out_ptr):\n"
                             "    x = src.load([src.shape[0] - 2, src.shape[1] - 4])\n"
                             "    r = tl.arange(0, 4)[:, None]\n"
                             "    c = tl.arange(0, 8)[None, :]\n"
                             "    tl.store(out_ptr + r * 8 + c, x)\n";

#define SCALE_SIG "tensordesc<fp32[4, 8]>, tensordesc<fp32[4,8]>, fp32"

static tilec_compiler *compiler(void) {
  tilec_compile_options o;
  tilec_compile_options_init(&o);
  o.cache_dir = "";
  tilec_compiler *c = NULL;
  tilec_status *st = tilec_compiler_create(&o, &c);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  return c;
}

static tilec_jit_kernel *jit(tilec_compiler *c, const char *kernel, const char *sig) {
  tilec_kernel_spec spec = {.source = source, .filename = "desc.py", .kernel = kernel, .signature = sig};
  tilec_jit_kernel *k = NULL;
  tilec_status *st = tilec_jit_compile(c, &spec, &k, NULL);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  return k;
}

/* A 10 x 21 view starting at (1, 3) of a 12 x 32 buffer, scaled into a 10 x 21 view of
 * another: elements outside the views stay untouched. */
START_TEST(test_strided_views) {
  tilec_compiler *c = compiler();
  tilec_jit_kernel *k = jit(c, "scale_kernel", SCALE_SIG);
  const tilec_kernel_desc *d = tilec_jit_kernel_desc(k);
  ck_assert_uint_eq(d->num_args, 3);
  ck_assert_uint_eq(d->params[0].kind, TILEC_PARAM_TENSORDESC);
  ck_assert_uint_eq(d->params[0].dtype, TILEC_DTYPE_F32);
  ck_assert_str_eq(d->params[1].value, "tensordesc<fp32[4, 8]>");
  static float in[12][32], out[12][32];
  for (int i = 0; i < 12; i++)
    for (int j = 0; j < 32; j++) in[i][j] = (float)(i * 100 + j), out[i][j] = -1.0f;
  tilec_tensor_descriptor src = {.base = &in[1][3], .shape = {10, 21}, .strides = {32, 1}};
  tilec_tensor_descriptor dst = {.base = &out[1][3], .shape = {10, 21}, .strides = {32, 1}};
  float alpha = 0.5f;
  void *args[] = {&src, &dst, &alpha};
  tilec_status *st = tilec_jit_kernel_launch(k, 3, 3, 1, args, 3, NULL);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  for (int i = 0; i < 12; i++)
    for (int j = 0; j < 32; j++) {
      bool inside = i >= 1 && i < 11 && j >= 3 && j < 24;
      float want = inside ? in[i][j] * 0.5f : -1.0f;
      ck_assert_msg(out[i][j] == want, "out[%d][%d] = %g, want %g", i, j, out[i][j], want);
    }
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
}
END_TEST

START_TEST(test_padding) {
  tilec_compiler *c = compiler();
  tilec_jit_kernel *k = jit(c, "edge_kernel", "tensordesc<fp32[4, 8]>, *fp32");
  float in[6][10], out[32];
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 10; j++) in[i][j] = (float)(i * 10 + j);
  for (int pad = 0; pad < 2; pad++) {
    tilec_tensor_descriptor src = {.base = in, .shape = {6, 10}, .strides = {10, 1}, .padding = pad};
    void *outp = out;
    void *args[] = {&src, &outp};
    tilec_status *st = tilec_jit_kernel_launch(k, 1, 1, 1, args, 2, NULL);
    ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
    for (int r = 0; r < 4; r++)
      for (int col = 0; col < 8; col++) {
        int i = 4 + r, j = 6 + col;
        float got = out[r * 8 + col];
        if (i < 6 && j < 10) ck_assert(got == in[i][j]);
        else if (pad) ck_assert_msg(isnan(got), "(%d, %d) = %g, want NaN", i, j, got);
        else ck_assert_msg(got == 0.0f, "(%d, %d) = %g, want 0", i, j, got);
      }
  }
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
}
END_TEST

static void launch_fails(tilec_jit_kernel *k, tilec_tensor_descriptor *src, tilec_tensor_descriptor *dst,
                         const char *msg) {
  float alpha = 1.0f;
  void *args[] = {src, dst, &alpha};
  tilec_status *st = tilec_jit_kernel_launch(k, 1, 1, 1, args, 3, NULL);
  ck_assert_msg(st != NULL, "expected: %s", msg);
  ck_assert_str_eq(tilec_status_message(st), msg);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_INVALID_ARGUMENT);
  tilec_status_destroy(st);
}

START_TEST(test_bad_descriptors) {
  tilec_compiler *c = compiler();
  tilec_jit_kernel *k = jit(c, "scale_kernel", SCALE_SIG);
  float buf[64] = {0};
  tilec_tensor_descriptor ok = {.base = buf, .shape = {8, 8}, .strides = {8, 1}};
  tilec_tensor_descriptor bad = ok;
  bad.strides[1] = 2;
  launch_fails(k, &ok, &bad,
               "kernel 'scale_kernel': tensor descriptor 'dst' has strides[1] = 2; the last dimension must be "
               "contiguous (stride 1)");
  bad = ok;
  bad.base = NULL;
  launch_fails(k, &bad, &ok, "kernel 'scale_kernel': tensor descriptor argument 0 ('src') has a NULL base");
  launch_fails(k, NULL, &ok, "kernel 'scale_kernel': argument 0 ('src') is NULL");
  bad = ok;
  bad.shape[0] = 0;
  launch_fails(k, &bad, &ok, "kernel 'scale_kernel': tensor descriptor 'src' has shape[0] = 0 (must be positive)");
  bad = ok;
  bad.padding = 3;
  launch_fails(k, &ok, &bad, "kernel 'scale_kernel': tensor descriptor 'dst' has padding 3 (0: zero, 1: nan)");
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
}
END_TEST

START_TEST(test_bad_signatures) {
  tilec_compiler *c = compiler();
  static const struct {
    const char *sig, *msg;
  } cases[] = {
      {"tensordesc<fp32[4, 6]>, tensordesc<fp32[4, 8]>, fp32",
       "block dimensions must be powers of two in signature entry 1 ('tensordesc<fp32[4, 6]>') for parameter 'src'"},
      {"tensordesc<fp33[4, 8]>, tensordesc<fp32[4, 8]>, fp32",
       "unknown element type in the tensor descriptor in signature entry 1 ('tensordesc<fp33[4, 8]>') for parameter "
       "'src'"},
      {"tensordesc<fp32[1, 1, 1, 1, 1]>, tensordesc<fp32[4, 8]>, fp32",
       "tensor descriptors of rank > 4 are not supported in signature entry 1 ('tensordesc<fp32[1, 1, 1, 1, 1]>') for "
       "parameter 'src'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tilec_kernel_spec spec = {
        .source = source, .filename = "desc.py", .kernel = "scale_kernel", .signature = cases[i].sig};
    tilec_jit_kernel *k = NULL;
    tilec_status *st = tilec_jit_compile(c, &spec, &k, NULL);
    ck_assert_ptr_nonnull(st);
    ck_assert_str_eq(tilec_status_message(st), cases[i].msg);
    tilec_status_destroy(st);
  }
  tilec_compiler_destroy(c);
}
END_TEST

/* The AOT header declares the struct (self-contained) and takes descriptors by value. */
START_TEST(test_header) {
  tilec_compiler *c = compiler();
  char dir[] = "/tmp/tilec_test_desc_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char so[64], h[64];
  snprintf(so, sizeof so, "%s/k.so", dir);
  snprintf(h, sizeof h, "%s/k.h", dir);
  tilec_kernel_spec spec = {.source = source, .filename = "desc.py", .kernel = "scale_kernel", .signature = SCALE_SIG};
  tilec_status *st = tilec_compiler_build_library(c, &spec, so, h);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  FILE *f = fopen(h, "r");
  ck_assert_ptr_nonnull(f);
  char text[4096];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = 0;
  fclose(f);
  ck_assert_ptr_nonnull(strstr(text, "#ifndef TILEC_TENSOR_DESCRIPTOR_DEFINED"));
  ck_assert_ptr_nonnull(strstr(text, "  int64_t strides[4];\n"));
  ck_assert_ptr_nonnull(strstr(text, "int scale_kernel_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, "
                                     "tilec_tensor_descriptor src, tilec_tensor_descriptor dst, float alpha);"));
  unlink(so);
  unlink(h);
  rmdir(dir);
  tilec_compiler_destroy(c);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tensordesc");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_strided_views);
  tcase_add_test(tc, test_padding);
  tcase_add_test(tc, test_bad_descriptors);
  tcase_add_test(tc, test_bad_signatures);
  tcase_add_test(tc, test_header);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
