/* tests/unit/test_module_context.c — the module context of the C API (tilec_kernel_spec's
 * globals, source modules, source kind and first line), driven as the Python package drives
 * it: every global kind, @jit helpers from another module compiled with that module's globals,
 * errors located in the helper's file and line, Triton's rule for plain globals, and the JIT
 * cache key following every part of the context. In: kernels as strings. Out: a Check suite. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tilec/runtime.h"
#include "tilec/tilec.h"

/* Function sources as the Python package passes them: dedented, no decorators. */
static const char main_source[] = "def kern(out_ptr):\n"
                                  "    tl.store(out_ptr + 0, SCALE)\n"
                                  "    tl.store(out_ptr + 1, N * 1.0)\n"
                                  "    tl.store(out_ptr + 2, SHAPE[0] * 10 + SHAPE[1] + len(SHAPE) * 100 + 0.0)\n"
                                  "    tl.store(out_ptr + 3, DT.primitive_bitwidth + DT.is_fp16() * 1000 + 0.0)\n"
                                  "    x = tl.full([2], 9.0, ACC)\n"
                                  "    tl.store(out_ptr + 4 + tl.arange(0, 2), ld.sqrt(x))\n"
                                  "    tl.store(out_ptr + 6, tl.sum(m.exp(x - 9.0), axis=0))\n"
                                  "    tl.store(out_ptr + 7, tl.sum(rs(x), axis=0))\n"
                                  "    tl.store(out_ptr + 8, tl.sum(helper(x), axis=0))\n"
                                  "    tl.store(out_ptr + 9, tl.sum(h.twice(x), axis=0))\n"
                                  "    if DT == triton.language.float16:\n"
                                  "        tl.store(out_ptr + 10, tl.sum(x.to(DT).to(tl.float32), axis=0))\n";

static const char helper_source[] = "def scale_it(x):\n"
                                    "    return x * SCALE\n"
                                    "\n"
                                    "def twice(x):\n"
                                    "    return x + x\n"
                                    "\n"
                                    "def bad(x):\n"
                                    "    return x + UNDEFINED_NAME\n";

#define NOUT 11

static tilec_global helper_globals[] = {
    {.name = "tl", .kind = TILEC_GLOBAL_MODULE, .value = "triton.language"},
    {.name = "SCALE", .kind = TILEC_GLOBAL_CONSTEXPR, .value = "10"},
};

static tilec_source_module helper_module(void) {
  tilec_source_module m = {.filename = "helpers.py",
                           .source = helper_source,
                           .source_len = sizeof helper_source - 1,
                           .source_kind = TILEC_SOURCE_FUNCTIONS,
                           .first_line = 40,
                           .globals = helper_globals,
                           .num_globals = 2};
  return m;
}

static tilec_global main_globals[] = {
    {.name = "tl", .kind = TILEC_GLOBAL_MODULE, .value = "triton.language"},
    {.name = "triton", .kind = TILEC_GLOBAL_MODULE, .value = "triton"},
    {.name = "SCALE", .kind = TILEC_GLOBAL_CONSTEXPR, .value = "2.5"},
    {.name = "N", .kind = TILEC_GLOBAL_CONSTEXPR, .value = "7"},
    {.name = "SHAPE", .kind = TILEC_GLOBAL_CONSTEXPR, .value = "(2, 3)"},
    {.name = "DT", .kind = TILEC_GLOBAL_CONSTEXPR, .value = "tl.float16"},
    {.name = "ACC", .kind = TILEC_GLOBAL_OBJECT, .value = "triton.language.float32"},
    {.name = "ld", .kind = TILEC_GLOBAL_MODULE, .value = "triton.language.extra.cuda.libdevice"},
    {.name = "m", .kind = TILEC_GLOBAL_MODULE, .value = "triton.language.math"},
    {.name = "rs", .kind = TILEC_GLOBAL_OBJECT, .value = "triton.language.extra.libdevice.rsqrt"},
    {.name = "helper", .kind = TILEC_GLOBAL_FUNCTION, .value = "scale_it", .module = 0},
    {.name = "h", .kind = TILEC_GLOBAL_SOURCE_MODULE, .module = 0},
};

static tilec_compiler *compiler(bool debug) {
  tilec_compile_options o;
  tilec_compile_options_init(&o);
  o.cache_dir = ""; /* memory only */
  o.debug_info = debug;
  tilec_compiler *c = NULL;
  tilec_status *st = tilec_compiler_create(&o, &c);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  return c;
}

static tilec_kernel_spec main_spec(const tilec_global *globals, size_t n, const tilec_source_module *mods, size_t nm) {
  tilec_kernel_spec s = {.source = main_source,
                         .source_len = sizeof main_source - 1,
                         .filename = "kern.py",
                         .kernel = "kern",
                         .signature = "*fp32",
                         .source_kind = TILEC_SOURCE_FUNCTIONS,
                         .first_line = 100,
                         .globals = globals,
                         .num_globals = n,
                         .modules = mods,
                         .num_modules = nm};
  return s;
}

static void run(tilec_jit_kernel *k, float *out) {
  for (int i = 0; i < NOUT; i++) out[i] = -1.0f;
  void *args[] = {&out};
  tilec_status *st = tilec_jit_kernel_launch(k, 1, 1, 1, args, 1, NULL);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
}

static tilec_jit_kernel *jit(tilec_compiler *c, const tilec_kernel_spec *spec) {
  tilec_jit_kernel *k = NULL;
  tilec_status *st = tilec_jit_compile(c, spec, &k, NULL);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_format(st) : "");
  return k;
}

/* Compiles to tile IR and expects an error at file:line:col containing `msg`. */
static void expect_error(tilec_compiler *c, const tilec_kernel_spec *spec, const char *file, int line, int col,
                         const char *msg) {
  char *text = NULL;
  tilec_status *st = tilec_compiler_emit(c, spec, TILEC_STAGE_TILE, &text);
  ck_assert_msg(st != NULL, "expected an error containing '%s'", msg);
  const char *f = tilec_status_file(st);
  ck_assert_msg(f && !strcmp(f, file), "file %s, expected %s: %s", f ? f : "(none)", file, tilec_status_format(st));
  ck_assert_msg(tilec_status_line(st) == line && (col == 0 || tilec_status_column(st) == col),
                "at %d:%d, expected %d:%d: %s", tilec_status_line(st), tilec_status_column(st), line, col,
                tilec_status_format(st));
  ck_assert_msg(strstr(tilec_status_message(st), msg), "message '%s' lacks '%s'", tilec_status_message(st), msg);
  tilec_status_destroy(st);
  free(text);
}

START_TEST(test_every_kind) {
  tilec_compiler *c = compiler(false);
  tilec_source_module mods[1] = {helper_module()};
  tilec_kernel_spec spec = main_spec(main_globals, sizeof main_globals / sizeof main_globals[0], mods, 1);
  tilec_jit_kernel *k = jit(c, &spec);
  float out[NOUT];
  run(k, out);
  ck_assert_float_eq(out[0], 2.5f);
  ck_assert_float_eq(out[1], 7.0f);
  ck_assert_float_eq(out[2], 223.0f);  /* (2, 3): 2 * 10 + 3 + len 2 * 100 */
  ck_assert_float_eq(out[3], 1016.0f); /* tl.float16: 16 bits, is_fp16() */
  ck_assert_float_eq(out[4], 3.0f);    /* cuda libdevice sqrt(9) */
  ck_assert_float_eq(out[5], 3.0f);
  ck_assert_float_eq(out[6], 2.0f); /* math.exp(0) twice */
  ck_assert_msg(fabsf(out[7] - 2.0f / 3.0f) < 1e-6f, "%g", (double)out[7]);
  ck_assert_float_eq(out[8], 180.0f); /* the helper's own SCALE (10), not the kernel's (2.5) */
  ck_assert_float_eq(out[9], 36.0f);  /* h.twice through a source-module global */
  ck_assert_float_eq(out[10], 18.0f); /* DT == triton.language.float16 folded true */
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
}
END_TEST

START_TEST(test_helper_error_located) {
  tilec_compiler *c = compiler(false);
  tilec_source_module mods[1] = {helper_module()};
  tilec_global g[] = {
      {.name = "tl", .kind = TILEC_GLOBAL_MODULE, .value = "triton.language"},
      {.name = "helper", .kind = TILEC_GLOBAL_FUNCTION, .value = "bad", .module = 0},
  };
  static const char src[] = "def kern(out_ptr):\n    tl.store(out_ptr, helper(1.0))\n";
  tilec_kernel_spec spec = {.source = src,
                            .filename = "kern.py",
                            .kernel = "kern",
                            .signature = "*fp32",
                            .source_kind = TILEC_SOURCE_FUNCTIONS,
                            .first_line = 7,
                            .globals = g,
                            .num_globals = 2,
                            .modules = mods,
                            .num_modules = 1};
  /* helper source line 8 is file line 47 (first_line 40) */
  expect_error(c, &spec, "helpers.py", 47, 16, "name 'UNDEFINED_NAME' is not defined");
  /* the kernel's own errors honour its first_line */
  g[1].value = "no_such_function";
  expect_error(c, &spec, "kern.py", 8, 23, "names function 'no_such_function' of helpers.py");
  g[1].module = 3;
  expect_error(c, &spec, "kern.py", 8, 23, "refers to module 3, but the spec has 1 modules");
  tilec_compiler_destroy(c);
}
END_TEST

START_TEST(test_debug_lines_in_helper_file) {
  tilec_compiler *c = compiler(true);
  tilec_source_module mods[1] = {helper_module()};
  static const char src[] = "def kern(x_ptr, out_ptr):\n"
                            "    offs = tl.arange(0, 16)\n"
                            "    tl.store(out_ptr + offs, helper(tl.load(x_ptr + offs)))\n";
  tilec_kernel_spec spec = main_spec(main_globals, sizeof main_globals / sizeof main_globals[0], mods, 1);
  spec.source = src;
  spec.source_len = 0;
  spec.signature = "*fp32, *fp32";
  char *text = NULL;
  tilec_status *st;
  st = tilec_compiler_emit(c, &spec, TILEC_STAGE_LLVM, &text);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_format(st) : "");
  ck_assert_msg(strstr(text, "filename: \"helpers.py\""), "no DIFile for helpers.py");
  ck_assert_msg(strstr(text, "!DILocation(line: 41, column: 12, scope: "), "no DILocation on line 41");
  ck_assert_msg(strstr(text, "!DILexicalBlockFile("), "no lexical block for the helper's file");
  ck_assert_msg(strstr(text, "!DILocation(line: 102, column: 5"), "no DILocation on kern.py line 102");
  free(text);
  tilec_compiler_destroy(c);
}
END_TEST

START_TEST(test_plain_globals) {
  tilec_compiler *c = compiler(false);
  tilec_global g[] = {
      {.name = "tl", .kind = TILEC_GLOBAL_MODULE, .value = "triton.language"},
      {.name = "G", .kind = TILEC_GLOBAL_PLAIN, .value = "5"},
      {.name = "OPAQUE", .kind = TILEC_GLOBAL_PLAIN, .value = NULL},
  };
  static const char use[] = "def kern(out_ptr):\n    tl.store(out_ptr, G + 0.0)\n";
  static const char deflt[] = "def kern(out_ptr, N: tl.constexpr = G):\n    tl.store(out_ptr, N + 0.5)\n";
  static const char none[] = "def kern(out_ptr):\n    tl.store(out_ptr, OPAQUE)\n";
  tilec_kernel_spec spec = {.source = use,
                            .filename = "p.py",
                            .kernel = "kern",
                            .signature = "*fp32",
                            .source_kind = TILEC_SOURCE_FUNCTIONS,
                            .globals = g,
                            .num_globals = 3};
  expect_error(c, &spec, "p.py", 2, 23, "Cannot access global variable G from within @jit'ed function.");
  /* a parameter default may read it, as Python evaluated it when the def ran */
  spec.source = deflt;
  tilec_jit_kernel *k = jit(c, &spec);
  float out[NOUT];
  run(k, out);
  ck_assert_float_eq(out[0], 5.5f);
  tilec_jit_kernel_release(k);
  /* TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1 allows it everywhere (and is part of the key) */
  setenv("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS", "1", 1);
  spec.source = use;
  k = jit(c, &spec);
  run(k, out);
  ck_assert_float_eq(out[0], 5.0f);
  tilec_jit_kernel_release(k);
  spec.source = none;
  expect_error(c, &spec, "p.py", 2, 23, "global 'OPAQUE' has no value tilec can use");
  unsetenv("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS");
  spec.source = use;
  expect_error(c, &spec, "p.py", 2, 23, "Cannot access global variable G");
  tilec_compiler_destroy(c);
}
END_TEST

/* A NamedTuple class global (TILEC_GLOBAL_NAMEDTUPLE): built in the kernel by position, by
 * keyword and from a default; its fields read by name; Python's errors for bad calls. */
START_TEST(test_namedtuple_class_global) {
  tilec_compiler *c = compiler(false);
  tilec_global g[] = {
      {.name = "tl", .kind = TILEC_GLOBAL_MODULE, .value = "triton.language"},
      {.name = "Pair", .kind = TILEC_GLOBAL_NAMEDTUPLE, .value = "lo, hi=(2, 3), scale=0.5"},
  };
  static const char use[] = "def kern(out_ptr):\n"
                            "    a = Pair(1.0, scale=4.0)\n"
                            "    b = Pair(hi=7, lo=a.scale)\n"
                            "    tl.store(out_ptr, a.lo + a.hi[1] * 10 + a.scale * 100)\n"
                            "    tl.store(out_ptr + 1, b.lo + b.hi * 10 + b.scale * 100 + b[0] * 1000)\n";
  tilec_kernel_spec spec = {.source = use,
                            .filename = "p.py",
                            .kernel = "kern",
                            .signature = "*fp32",
                            .source_kind = TILEC_SOURCE_FUNCTIONS,
                            .globals = g,
                            .num_globals = 2};
  tilec_jit_kernel *k = jit(c, &spec);
  float out[NOUT];
  run(k, out);
  ck_assert_float_eq(out[0], 1.0f + 30.0f + 400.0f);
  ck_assert_float_eq(out[1], 4.0f + 70.0f + 50.0f + 4000.0f);
  tilec_jit_kernel_release(k);
  static const char missing[] = "def kern(out_ptr):\n    tl.store(out_ptr, Pair(hi=1).lo)\n";
  spec.source = missing;
  expect_error(c, &spec, "p.py", 2, 0, "Pair.__new__() missing required argument 'lo'");
  static const char extra[] = "def kern(out_ptr):\n    tl.store(out_ptr, Pair(1, 2, 3, 4).lo)\n";
  spec.source = extra;
  expect_error(c, &spec, "p.py", 2, 0, "Pair.__new__() takes 4 positional arguments but 5 were given");
  static const char kw[] = "def kern(out_ptr):\n    tl.store(out_ptr, Pair(1, lo=2).lo)\n";
  spec.source = kw;
  expect_error(c, &spec, "p.py", 2, 0, "Pair.__new__() got multiple values for argument 'lo'");
  static const char unknown[] = "def kern(out_ptr):\n    tl.store(out_ptr, Pair(1, mid=2).lo)\n";
  spec.source = unknown;
  expect_error(c, &spec, "p.py", 2, 0, "Pair.__new__() got an unexpected keyword argument 'mid'");
  tilec_compiler_destroy(c);
}
END_TEST

START_TEST(test_cache_key_follows_context) {
  tilec_compiler *c = compiler(false);
  size_t n = sizeof main_globals / sizeof main_globals[0];
  tilec_global g[sizeof main_globals / sizeof main_globals[0]];
  memcpy(g, main_globals, sizeof g);
  tilec_source_module mods[1] = {helper_module()};
  tilec_global hg[2];
  memcpy(hg, helper_globals, sizeof hg);
  mods[0].globals = hg;
  tilec_kernel_spec spec = main_spec(g, n, mods, 1);
  float out[NOUT];
  tilec_jit_kernel *k1 = jit(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k1), TILEC_JIT_COMPILED);
  tilec_jit_kernel *k2 = jit(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k2), TILEC_JIT_MEMORY_CACHE);
  /* a global of the kernel's module */
  g[2].value = "3.5";
  tilec_jit_kernel *k3 = jit(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k3), TILEC_JIT_COMPILED);
  run(k3, out);
  ck_assert_float_eq(out[0], 3.5f);
  /* a global of the helper's module */
  hg[1].value = "100";
  tilec_jit_kernel *k4 = jit(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k4), TILEC_JIT_COMPILED);
  run(k4, out);
  ck_assert_float_eq(out[8], 1800.0f);
  /* the helper's first line (debug info and diagnostics depend on it) */
  mods[0].first_line = 1;
  tilec_jit_kernel *k5 = jit(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k5), TILEC_JIT_COMPILED);
  /* the kind of a global */
  g[3].kind = TILEC_GLOBAL_PLAIN;
  char *text = NULL;
  tilec_status *st = tilec_compiler_emit(c, &spec, TILEC_STAGE_TILE, &text);
  ck_assert_ptr_nonnull(st);
  tilec_status_destroy(st);
  tilec_jit_kernel *k6 = NULL;
  st = tilec_jit_compile(c, &spec, &k6, NULL);
  ck_assert_ptr_nonnull(st);
  tilec_status_destroy(st);
  tilec_jit_kernel_release(k1);
  tilec_jit_kernel_release(k2);
  tilec_jit_kernel_release(k3);
  tilec_jit_kernel_release(k4);
  tilec_jit_kernel_release(k5);
  tilec_compiler_destroy(c);
}
END_TEST

START_TEST(test_bad_globals) {
  tilec_compiler *c = compiler(false);
  tilec_global g[] = {
      {.name = "tl", .kind = TILEC_GLOBAL_MODULE, .value = "triton.language"},
      {.name = "X", .kind = TILEC_GLOBAL_OBJECT, .value = "triton.language.extra.libdevice.not_a_function"},
      {.name = "np", .kind = TILEC_GLOBAL_MODULE, .value = "numpy"},
      {.name = "K", .kind = (tilec_global_kind)42, .value = "1"},
  };
  static const char use_x[] = "def kern(out_ptr):\n    tl.store(out_ptr, X(1.0))\n";
  static const char use_np[] = "def kern(out_ptr):\n    tl.store(out_ptr, np.float32(1.0))\n";
  static const char use_k[] = "def kern(out_ptr):\n    tl.store(out_ptr, K)\n";
  tilec_kernel_spec spec = {.source = use_x,
                            .filename = "b.py",
                            .kernel = "kern",
                            .signature = "*fp32",
                            .source_kind = TILEC_SOURCE_FUNCTIONS,
                            .globals = g,
                            .num_globals = 4};
  expect_error(c, &spec, "b.py", 2, 23, "libdevice function 'not_a_function' is not supported");
  spec.source = use_np;
  expect_error(c, &spec, "b.py", 2, 23, "module 'numpy' cannot be used in a kernel (");
  spec.source = use_k;
  expect_error(c, &spec, "b.py", 2, 23, "unknown kind 42");
  /* FUNCTIONS: the kernel is any def; FILE (the default) needs @triton.jit */
  spec.source_kind = TILEC_SOURCE_FILE;
  char *text = NULL;
  tilec_status *st = tilec_compiler_emit(c, &spec, TILEC_STAGE_TILE, &text);
  ck_assert_ptr_nonnull(st);
  ck_assert_msg(strstr(tilec_status_message(st), "no @triton.jit function named 'kern'"), "%s",
                tilec_status_message(st));
  tilec_status_destroy(st);
  tilec_compiler_destroy(c);
}
END_TEST

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

/* `tilec compile FILE`'s context: module-level statements, a sibling file's helper with its
 * own constexpr, and the sibling's contents in the JIT key. */
START_TEST(test_file_context_and_sibling_in_key) {
  char dir[] = "/tmp/tilec_test_mctx_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char kpath[256], hpath[256];
  snprintf(kpath, sizeof kpath, "%s/kern.py", dir);
  snprintf(hpath, sizeof hpath, "%s/helpers2.py", dir);
  write_file(kpath, "import triton\n"
                    "import triton.language as tl\n"
                    "from helpers2 import bump\n"
                    "try:\n"
                    "    from triton.language.extra.libdevice import sqrt as root\n"
                    "except ImportError:\n"
                    "    from triton.language.math import sqrt as root\n"
                    "BASE = tl.constexpr(100.0)\n"
                    "\n"
                    "@triton.jit\n"
                    "def kern(out_ptr):\n"
                    "    tl.store(out_ptr, bump(root(tl.full([1], 16.0, tl.float32))).sum() + BASE)\n");
  write_file(hpath, "import triton\nimport triton.language as tl\nSTEP = tl.constexpr(1.0)\n"
                    "@triton.jit\ndef bump(x):\n    return x + STEP\n");
  tilec_compiler *c = compiler(false);
  tilec_kernel_spec spec = {.filename = kpath, .kernel = "kern", .signature = "*fp32"};
  float out[NOUT];
  tilec_jit_kernel *k1 = jit(c, &spec);
  run(k1, out);
  ck_assert_float_eq(out[0], 105.0f);
  tilec_jit_kernel *k2 = jit(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k2), TILEC_JIT_MEMORY_CACHE);
  write_file(hpath, "import triton\nimport triton.language as tl\nSTEP = tl.constexpr(2.0)\n"
                    "@triton.jit\ndef bump(x):\n    return x + STEP\n");
  tilec_jit_kernel *k3 = jit(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k3), TILEC_JIT_COMPILED);
  run(k3, out);
  ck_assert_float_eq(out[0], 106.0f);
  tilec_jit_kernel_release(k1);
  tilec_jit_kernel_release(k2);
  tilec_jit_kernel_release(k3);
  tilec_compiler_destroy(c);
  remove(kpath);
  remove(hpath);
  rmdir(dir);
}
END_TEST

/* A kernel inside a package importing another package of the repository by its absolute
 * name (found from a directory above the kernel's); that file is part of the JIT key. */
START_TEST(test_package_import_in_key) {
  char dir[] = "/tmp/tilec_test_mpkg_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char p[6][300];
  snprintf(p[0], sizeof p[0], "%s/pkg", dir);
  snprintf(p[1], sizeof p[1], "%s/pkg/__init__.py", dir);
  snprintf(p[2], sizeof p[2], "%s/pkg/util.py", dir);
  snprintf(p[3], sizeof p[3], "%s/kernels", dir);
  snprintf(p[4], sizeof p[4], "%s/kernels/sub", dir);
  snprintf(p[5], sizeof p[5], "%s/kernels/sub/k.py", dir);
  ck_assert_int_eq(mkdir(p[0], 0700), 0);
  ck_assert_int_eq(mkdir(p[3], 0700), 0);
  ck_assert_int_eq(mkdir(p[4], 0700), 0);
  write_file(p[1], "");
  write_file(p[2], "import triton\nimport triton.language as tl\nK = tl.constexpr(5.0)\n"
                   "@triton.jit\ndef f(x):\n    return x * K\n");
  write_file(p[5], "import triton\nimport triton.language as tl\nfrom pkg.util import f\n"
                   "@triton.jit\ndef kern(out_ptr):\n    tl.store(out_ptr, f(tl.full([1], 2.0, tl.float32)).sum())\n");
  tilec_compiler *c = compiler(false);
  tilec_kernel_spec spec = {.filename = p[5], .kernel = "kern", .signature = "*fp32"};
  float out[NOUT];
  tilec_jit_kernel *k1 = jit(c, &spec);
  run(k1, out);
  ck_assert_float_eq(out[0], 10.0f);
  write_file(p[2], "import triton\nimport triton.language as tl\nK = tl.constexpr(6.0)\n"
                   "@triton.jit\ndef f(x):\n    return x * K\n");
  tilec_jit_kernel *k2 = jit(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k2), TILEC_JIT_COMPILED);
  run(k2, out);
  ck_assert_float_eq(out[0], 12.0f);
  tilec_jit_kernel_release(k1);
  tilec_jit_kernel_release(k2);
  tilec_compiler_destroy(c);
  remove(p[5]);
  remove(p[2]);
  remove(p[1]);
  rmdir(p[4]);
  rmdir(p[3]);
  rmdir(p[0]);
  rmdir(dir);
}
END_TEST

/* Signature entries and defines carry dtype and tuple values (commas inside brackets). */
START_TEST(test_dtype_and_tuple_entries) {
  static const char src[] = "import triton\nimport triton.language as tl\n@triton.jit\n"
                            "def kern(out_ptr, S: tl.constexpr, DT: tl.constexpr, n):\n"
                            "    tl.store(out_ptr, (S[0] * 10 + S[1] + DT.primitive_bitwidth * 100 + n).to(DT))\n";
  tilec_compiler *c = compiler(false);
  tilec_kernel_spec spec = {
      .source = src, .filename = "t.py", .kernel = "kern", .signature = "*i32, (2, 3), tl.int32, i32"};
  float dummy[NOUT];
  (void)dummy;
  tilec_jit_kernel *k = jit(c, &spec);
  const tilec_kernel_desc *d = tilec_jit_kernel_desc(k);
  ck_assert_int_eq(d->num_params, 4);
  ck_assert_str_eq(d->params[1].value, "(2, 3)");
  ck_assert_str_eq(d->params[2].value, "tl.int32");
  int32_t out = 0, n = 1;
  int32_t *po = &out;
  void *args[] = {&po, &n};
  tilec_status *st = tilec_jit_kernel_launch(k, 1, 1, 1, args, 2, NULL);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  ck_assert_int_eq(out, 3224);
  tilec_jit_kernel_release(k);
  tilec_define defs[] = {{"S", "[4, 5]"}, {"DT", "triton.language.int16"}};
  tilec_kernel_spec by_define = {.source = src,
                                 .filename = "t.py",
                                 .kernel = "kern",
                                 .signature = "*i16, 0, 0, i32",
                                 .defines = defs,
                                 .num_defines = 2};
  k = jit(c, &by_define);
  ck_assert_str_eq(tilec_jit_kernel_desc(k)->params[1].value, "(4, 5)");
  int16_t o16 = 0;
  int16_t *p16 = &o16;
  void *args16[] = {&p16, &n};
  st = tilec_jit_kernel_launch(k, 1, 1, 1, args16, 2, NULL);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  ck_assert_int_eq(o16, 1646);
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
}
END_TEST

static Suite *module_context_suite(void) {
  Suite *s = suite_create("module_context");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_every_kind);
  tcase_add_test(tc, test_helper_error_located);
  tcase_add_test(tc, test_debug_lines_in_helper_file);
  tcase_add_test(tc, test_plain_globals);
  tcase_add_test(tc, test_namedtuple_class_global);
  tcase_add_test(tc, test_cache_key_follows_context);
  tcase_add_test(tc, test_bad_globals);
  tcase_add_test(tc, test_file_context_and_sibling_in_key);
  tcase_add_test(tc, test_dtype_and_tuple_entries);
  tcase_add_test(tc, test_package_import_in_key);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(module_context_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
