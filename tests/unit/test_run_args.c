/* tests/unit/test_run_args.c — `tilec run`'s argument handling, without compiling a kernel.
 * In: value texts, grids, argv vectors, hand-made parameter lists and .npy files. Out: a Check
 * suite over classification, parsing, binding, scalar conversion and every usage error. */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/run.h"

#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

/* tools/tilec.c is not linked into this test (tests/CMakeLists.txt links tools/run.c and
 * tools/npy.c): the run code only needs this hook of it. */
void tilec_cli_add_line_text(tilec_status *st);
void tilec_cli_add_line_text(tilec_status *st) { (void)st; }

static char tmp_dir[PATH_MAX];

static void tmp_path(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", tmp_dir, name); }

/* ---- value classification ------------------------------------------------------------- */

static void expect_int(const char *text, tilec_dtype dtype, int64_t value) {
  run_value v;
  ck_assert_msg(run_classify(text, &v), "%s", text);
  ck_assert_msg(v.kind == RUN_VALUE_INT, "%s: kind %d", text, v.kind);
  ck_assert_msg(v.dtype == dtype, "%s: dtype %s", text, tilec_dtype_name(v.dtype));
  ck_assert_msg(v.i == value, "%s: value %" PRId64, text, v.i);
}

static void expect_kind(const char *text, run_value_kind kind) {
  run_value v;
  ck_assert_msg(run_classify(text, &v), "%s", text);
  ck_assert_msg(v.kind == kind, "%s: kind %d, want %d", text, v.kind, kind);
}

START_TEST(test_classify_ints) {
  expect_int("0", TILEC_DTYPE_I32, 0);
  expect_int("1024", TILEC_DTYPE_I32, 1024);
  expect_int("+7", TILEC_DTYPE_I32, 7);
  expect_int("-1", TILEC_DTYPE_I32, -1);
  expect_int("010", TILEC_DTYPE_I32, 10); /* decimal, not octal */
  expect_int("2147483647", TILEC_DTYPE_I32, INT32_MAX);
  expect_int("-2147483648", TILEC_DTYPE_I32, INT32_MIN);
  expect_int("2147483648", TILEC_DTYPE_I64, 2147483648LL);
  expect_int("-2147483649", TILEC_DTYPE_I64, -2147483649LL);
  expect_int("0x10", TILEC_DTYPE_I32, 16);
  expect_int("0XfF", TILEC_DTYPE_I32, 255);
  expect_int("-0x10", TILEC_DTYPE_I32, -16);
  expect_int("0xFFFFFFFF", TILEC_DTYPE_I64, 0xFFFFFFFFLL);
  expect_int("9223372036854775807", TILEC_DTYPE_I64, INT64_MAX);
  expect_int("-9223372036854775808", TILEC_DTYPE_I64, INT64_MIN);
  expect_int("9223372036854775808", TILEC_DTYPE_U64, INT64_MIN);
  expect_int("18446744073709551615", TILEC_DTYPE_U64, -1);

  run_value v;
  ck_assert(!run_classify("18446744073709551616", &v));
  ck_assert_int_eq(v.kind, RUN_VALUE_STRING);
  ck_assert(!run_classify("-9223372036854775809", &v));
  ck_assert(!run_classify("0x10000000000000000", &v));
}
END_TEST

START_TEST(test_classify_others) {
  run_value v;
  ck_assert(run_classify("True", &v));
  ck_assert(v.kind == RUN_VALUE_BOOL && v.dtype == TILEC_DTYPE_I1 && v.i == 1);
  ck_assert(run_classify("False", &v));
  ck_assert(v.kind == RUN_VALUE_BOOL && v.i == 0);

  const char *floats[] = {"1.5", "-0.5", "+2.", ".25", "1e-3", "1E6", "inf", "-inf", "nan", "0x1.8p1"};
  for (size_t i = 0; i < sizeof floats / sizeof *floats; i++) {
    ck_assert_msg(run_classify(floats[i], &v) && v.kind == RUN_VALUE_FLOAT, "%s", floats[i]);
    ck_assert(v.dtype == TILEC_DTYPE_F32);
  }
  ck_assert(run_classify("1e-3", &v));
  ck_assert(fabs(v.f - 1e-3) < 1e-12);

  const char *strings[] = {"leaky_relu", "e", "info", "banana", "true",  "none", "0x", "1e",
                           "1_000",      "-", "+",    "12abc",  "1.5.6", "0xg",  " 1", "1 "};
  for (size_t i = 0; i < sizeof strings / sizeof *strings; i++) expect_kind(strings[i], RUN_VALUE_STRING);

  expect_kind("x.npy", RUN_VALUE_NPY);
  expect_kind("dir/1.5.npy", RUN_VALUE_NPY);
  expect_kind("npy", RUN_VALUE_STRING);
}
END_TEST

/* ---- grids, counts, timing summary ---------------------------------------------------- */

START_TEST(test_grid) {
  uint32_t g[3];
  ck_assert(run_parse_grid("8", g));
  ck_assert(g[0] == 8 && g[1] == 1 && g[2] == 1);
  ck_assert(run_parse_grid("2,3", g));
  ck_assert(g[0] == 2 && g[1] == 3 && g[2] == 1);
  ck_assert(run_parse_grid("4,5,6", g));
  ck_assert(g[0] == 4 && g[1] == 5 && g[2] == 6);
  ck_assert(run_parse_grid("0", g));
  ck_assert(g[0] == 0);
  ck_assert(run_parse_grid("4294967295", g));
  ck_assert(g[0] == UINT32_MAX);
  const char *bad[] = {"",   ",",   "8,", ",8", "1,,2",       "1,2,3,4",
                       "-1", "+1",  " 1", "1 ", "4294967296", "99999999999999999999999",
                       "x",  "1.5", "0x"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) ck_assert_msg(!run_parse_grid(bad[i], g), "'%s'", bad[i]);
}
END_TEST

START_TEST(test_summarize) {
  double odd[] = {3, 1, 2};
  double median, min;
  run_summarize(odd, 3, &median, &min);
  ck_assert(median == 2 && min == 1);
  double even[] = {4, 1, 3, 2};
  run_summarize(even, 4, &median, &min);
  ck_assert(median == 2.5 && min == 1);
  double one[] = {7};
  run_summarize(one, 1, &median, &min);
  ck_assert(median == 7 && min == 7);
}
END_TEST

/* ---- scalar conversion to the compiled kernel's types ---------------------------------- */

START_TEST(test_store_scalar) {
  char why[160];
  run_value v;
  unsigned char slot[8];

  ck_assert(run_classify("-5", &v));
  ck_assert(run_store_scalar(&v, TILEC_DTYPE_I32, slot, why, sizeof why));
  int32_t i32;
  memcpy(&i32, slot, 4);
  ck_assert_int_eq(i32, -5);
  ck_assert(run_store_scalar(&v, TILEC_DTYPE_I64, slot, why, sizeof why)); /* widened */
  int64_t i64;
  memcpy(&i64, slot, 8);
  ck_assert_int_eq(i64, -5);
  ck_assert(run_store_scalar(&v, TILEC_DTYPE_I8, slot, why, sizeof why));
  ck_assert_int_eq((int8_t)slot[0], -5);
  ck_assert(!run_store_scalar(&v, TILEC_DTYPE_U32, slot, why, sizeof why));
  ck_assert_str_eq(why, "value does not fit in u32");
  ck_assert(run_store_scalar(&v, TILEC_DTYPE_F32, slot, why, sizeof why)); /* int to float */
  float f32;
  memcpy(&f32, slot, 4);
  ck_assert(f32 == -5.0f);

  ck_assert(run_classify("300", &v));
  ck_assert(!run_store_scalar(&v, TILEC_DTYPE_I8, slot, why, sizeof why));
  ck_assert(run_store_scalar(&v, TILEC_DTYPE_U16, slot, why, sizeof why));
  uint16_t u16;
  memcpy(&u16, slot, 2);
  ck_assert_uint_eq(u16, 300);

  ck_assert(run_classify("2147483648", &v));
  ck_assert(!run_store_scalar(&v, TILEC_DTYPE_I32, slot, why, sizeof why));
  ck_assert(run_store_scalar(&v, TILEC_DTYPE_U32, slot, why, sizeof why));

  ck_assert(run_classify("18446744073709551615", &v));
  ck_assert(!run_store_scalar(&v, TILEC_DTYPE_I64, slot, why, sizeof why));
  ck_assert(run_store_scalar(&v, TILEC_DTYPE_U64, slot, why, sizeof why));
  uint64_t u64;
  memcpy(&u64, slot, 8);
  ck_assert(u64 == UINT64_MAX);

  ck_assert(run_classify("0.25", &v));
  ck_assert(run_store_scalar(&v, TILEC_DTYPE_F32, slot, why, sizeof why));
  memcpy(&f32, slot, 4);
  ck_assert(f32 == 0.25f);
  ck_assert(run_store_scalar(&v, TILEC_DTYPE_F64, slot, why, sizeof why));
  double f64;
  memcpy(&f64, slot, 8);
  ck_assert(f64 == 0.25);
  ck_assert(!run_store_scalar(&v, TILEC_DTYPE_I32, slot, why, sizeof why));
  ck_assert_str_eq(why, "the kernel wants i32, got a float");

  ck_assert(run_classify("True", &v));
  ck_assert(run_store_scalar(&v, TILEC_DTYPE_I1, slot, why, sizeof why));
  ck_assert_uint_eq(slot[0], 1);
  ck_assert(run_store_scalar(&v, TILEC_DTYPE_I32, slot, why, sizeof why));
  memcpy(&i32, slot, 4);
  ck_assert_int_eq(i32, 1);
  ck_assert(run_classify("2", &v));
  ck_assert(!run_store_scalar(&v, TILEC_DTYPE_I1, slot, why, sizeof why));

  ck_assert(!run_store_scalar(&v, TILEC_DTYPE_BF16, slot, why, sizeof why));
  ck_assert_str_eq(why, "scalar parameters of type bf16 are not supported by `tilec run`");
}
END_TEST

/* ---- command-line parsing --------------------------------------------------------------- */

/* Parses "run ARGS..." (space separated, no quoting) into *o; returns run_parse_args' code. */
static int parse(const char *line, run_opts *o, char *storage, size_t cap) {
  static char *argv[64];
  int argc = 0;
  argv[argc++] = "tilec";
  argv[argc++] = "run";
  snprintf(storage, cap, "%s", line);
  for (char *tok = strtok(storage, " "); tok && argc < 63; tok = strtok(NULL, " ")) argv[argc++] = tok;
  argv[argc] = NULL;
  memset(o, 0, sizeof *o);
  return run_parse_args(argc, argv, 2, o);
}

START_TEST(test_parse_ok) {
  char buf[512];
  run_opts o;
  ck_assert_int_eq(parse("k.py -k add --grid 4,2 x=x.npy n=10 BLOCK=64 --out x=y.npy --threads 3 --repeat 5 "
                         "--target x86-64-v3 -O 2 --fast-math -g",
                         &o, buf, sizeof buf),
                   0);
  ck_assert_str_eq(o.file, "k.py");
  ck_assert_str_eq(o.kernel, "add");
  ck_assert(o.grid_xyz[0] == 4 && o.grid_xyz[1] == 2 && o.grid_xyz[2] == 1);
  ck_assert_int_eq(o.nbindings, 3);
  ck_assert_str_eq(o.bindings[0].name, "x");
  ck_assert_str_eq(o.bindings[0].text, "x.npy");
  ck_assert_str_eq(o.bindings[2].name, "BLOCK");
  ck_assert_str_eq(o.bindings[2].text, "64");
  ck_assert_int_eq(o.nouts, 1);
  ck_assert_str_eq(o.outs[0].name, "x");
  ck_assert_str_eq(o.outs[0].path, "y.npy");
  ck_assert_uint_eq(o.threads, 3);
  ck_assert_int_eq(o.repeat, 5);
  ck_assert_str_eq(o.flags.target, "x86-64-v3");
  ck_assert_int_eq(o.flags.opt_level, 2);
  ck_assert(o.flags.fast_math && o.flags.debug);
  ck_assert(!o.no_cache && !o.verbose);
  run_opts_free(&o);

  /* the compile flags (tools/options.c): joined forms, --emit ptx after its target */
  ck_assert_int_eq(
      parse("k.py -k add --grid 1 --check=bounds,nan --emit ptx --target nvptx --num-warps 0x8", &o, buf, sizeof buf),
      0);
  ck_assert_uint_eq(o.flags.checks, TILEC_CHECKS_BOUNDS | TILEC_CHECKS_NAN);
  ck_assert_int_eq(o.flags.stage, TILEC_STAGE_ASM);
  ck_assert_uint_eq(o.flags.num_warps, 8);
  ck_assert_uint_eq(o.flags.num_stages, 0); /* not given: the target's default */
  ck_assert(o.flags.given);
  run_opts_free(&o);
  ck_assert_int_eq(parse("k.py -k add --grid 1 --target nvptx-emu --num-stages 4", &o, buf, sizeof buf), 0);
  ck_assert_uint_eq(o.flags.num_stages, 4);
  tilec_compile_options co;
  tilec_compile_options_init(&co);
  cli_apply_compile_flags(&o.flags, &co);
  ck_assert_uint_eq(co.num_stages, 4);
  run_opts_free(&o);

  /* the JIT cache's switches */
  ck_assert_int_eq(parse("k.py -k add --grid 1 --no-cache -v", &o, buf, sizeof buf), 0);
  ck_assert(o.no_cache && o.verbose);
  run_opts_free(&o);
  ck_assert_int_eq(parse("k.py -k add --grid 1 --verbose", &o, buf, sizeof buf), 0);
  ck_assert(!o.no_cache && o.verbose);
  run_opts_free(&o);

  /* Options may come anywhere; -O0 is one word too; a value may contain '='. */
  ck_assert_int_eq(parse("--grid 1 -k add -O0 k.py s=a=b", &o, buf, sizeof buf), 0);
  ck_assert_str_eq(o.file, "k.py");
  ck_assert_int_eq(o.flags.opt_level, 0);
  ck_assert_str_eq(o.bindings[0].text, "a=b");
  ck_assert_int_eq(o.repeat, 0);
  run_opts_free(&o);
}
END_TEST

START_TEST(test_parse_usage_errors) {
  const char *bad[] = {
      "k.py -k add",     /* no --grid */
      "k.py --grid 1",   /* no kernel */
      "-k add --grid 1", /* no file */
      "k.py -k add --grid 1,2,3,4",
      "k.py -k add --grid 1,x",
      "k.py -k add --grid 1 --threads abc",
      "k.py -k add --grid 1 --threads -1",
      "k.py -k add --grid 1 --threads 4097",
      "k.py -k add --grid 1 --repeat 0",
      "k.py -k add --grid 1 --repeat 1.5",
      "k.py -k add --grid 1 --repeat",
      "k.py -k add --grid",
      "k.py -k add --grid 1 -O 4",
      "k.py -k add --grid 1 -O9",
      "k.py -k add --grid 1 n=1 n=2",  /* duplicate binding */
      "k.py -k add --grid 1 other.py", /* NAME without '=' */
      "k.py -k add --grid 1 =3",
      "k.py -k add --grid 1 1x=3",
      "k.py -k add --grid 1 a-b=3",
      "k.py -k add --grid 1 n=",
      "k.py -k add --grid 1 --out x",
      "k.py -k add --grid 1 --out x=",
      "k.py -k add --grid 1 --out =x.npy",
      "k.py -k add --grid 1 --bogus",
      /* the compile flags (tools/options.c, shared with compile and opt) */
      "k.py -k add --grid 1 --num-warps 0",
      "k.py -k add --grid 1 --num-warps +4",
      "k.py -k add --grid 1 --num-warps",
      "k.py -k add --grid 1 --num-stages 0",
      "k.py -k add --grid 1 --num-stages -2",
      "k.py -k add --grid 1 --num-stages",
      "k.py -k add --grid 1 --emit bogus",
      "k.py -k add --grid 1 --emit ptx",   /* needs --target nvptx */
      "k.py -k add --grid 1 --stage tile", /* opt's option */
      "k.py -k add --grid 1 -s i32",       /* compile's option */
      "k.py -k add --grid 1 --check bogus",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char buf[512];
    run_opts o;
    ck_assert_msg(parse(bad[i], &o, buf, sizeof buf) == 2, "accepted: %s", bad[i]);
    run_opts_free(&o);
  }
}
END_TEST

/* ---- binding to parameters -------------------------------------------------------------- */

static const tilec_source_param add_params[] = {
    {"x_ptr", false, false}, {"y_ptr", false, false}, {"n", false, false},
    {"BLOCK", true, false},  {"ACT", true, true},     {"eps", false, true},
};
#define ADD_NPARAMS ((int)(sizeof add_params / sizeof *add_params))

static void write_npy(const char *name, tilec_dtype dtype) {
  char path[PATH_MAX];
  tmp_path(path, sizeof path, name);
  float data[4] = {1, 2, 3, 4};
  tilec_npy a = {.dtype = dtype, .ndim = 1, .shape = {4}, .count = 4, .data = data};
  a.nbytes = 4 * tilec_dtype_size(dtype);
  tilec_status *st = tilec_npy_write(path, &a);
  ck_assert_msg(!st, "%s", st ? tilec_status_message(st) : "");
}

/* Binds "run k.py -k add --grid 1 <line>" against add_params, after substituting @ with
 * the temp directory. */
static int bind(const char *line, run_opts *o, char *storage, size_t cap) {
  char expanded[4096];
  size_t n = 0, dir_len = strlen(tmp_dir);
  for (const char *p = line; *p && n + dir_len + 1 < sizeof expanded; p++) {
    if (*p == '@') n += (size_t)snprintf(expanded + n, sizeof expanded - n, "%s", tmp_dir);
    else expanded[n++] = *p;
  }
  expanded[n] = 0;
  char full[4200];
  snprintf(full, sizeof full, "k.py -k add --grid 1 %s", expanded);
  ck_assert_int_eq(parse(full, o, storage, cap), 0);
  return run_bind(o, add_params, ADD_NPARAMS);
}

START_TEST(test_bind_entries) {
  write_npy("f.npy", TILEC_DTYPE_F32);
  write_npy("i.npy", TILEC_DTYPE_I32);
  char buf[4200];
  run_opts o;
  ck_assert_int_eq(bind("x_ptr=@/f.npy y_ptr=@/i.npy n=5000000000 BLOCK=1024 ACT=leaky_relu eps=0.5 --out "
                        "y_ptr=@/o.npy",
                        &o, buf, sizeof buf),
                   0);
  ck_assert_str_eq(o.bindings[0].entry, "*fp32:16");
  ck_assert_str_eq(o.bindings[1].entry, "*i32:16");
  /* 5000000000 is a multiple of 16: specialized with the divisibility hint, like Triton's JIT */
  ck_assert_str_eq(o.bindings[2].entry, "i64:16");
  ck_assert(o.bindings[3].is_constexpr && o.bindings[4].is_constexpr);
  ck_assert_str_eq(o.bindings[5].entry, "fp32");
  ck_assert_int_eq(o.bindings[1].arr.dtype, TILEC_DTYPE_I32);
  ck_assert_uint_eq(o.bindings[1].arr.count, 4);
  ck_assert_int_eq(o.outs[0].binding, 1);
  run_opts_free(&o);

  /* Defaults may be left out; constexprs take any text, even an oversized integer. */
  ck_assert_int_eq(bind("x_ptr=@/f.npy y_ptr=@/f.npy n=True BLOCK=99999999999999999999", &o, buf, sizeof buf), 0);
  ck_assert_str_eq(o.bindings[2].entry, "i1");
  run_opts_free(&o);
}
END_TEST

START_TEST(test_bind_errors) {
  write_npy("f.npy", TILEC_DTYPE_F32);
  const char *bad[] = {
      "x_ptr=@/f.npy y_ptr=@/f.npy BLOCK=4",                        /* n missing */
      "x_ptr=@/f.npy y_ptr=@/f.npy n=4",                            /* BLOCK missing */
      "x_ptr=@/f.npy y_ptr=@/f.npy n=4 BLOCK=4 z=1",                /* no such parameter */
      "x_ptr=@/f.npy y_ptr=@/f.npy n=4 BLOCK=@/f.npy",              /* array to constexpr */
      "x_ptr=@/f.npy y_ptr=@/f.npy n=relu BLOCK=4",                 /* string to runtime */
      "x_ptr=@/f.npy y_ptr=@/f.npy n=18446744073709551616 BLOCK=4", /* too big */
      "x_ptr=@/f.npy y_ptr=@/f.npy n=4 BLOCK=4 --out n=@/o.npy",    /* --out a scalar */
      "x_ptr=@/f.npy y_ptr=@/f.npy n=4 BLOCK=4 --out eps=@/o.npy",  /* --out unbound */
      "x_ptr=@/f.npy y_ptr=@/f.npy n=4 BLOCK=4 --out q=@/o.npy",    /* --out unknown */
      "x_ptr=@/missing.npy y_ptr=@/f.npy n=4 BLOCK=4",              /* unreadable array */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char buf[4200];
    run_opts o;
    ck_assert_msg(bind(bad[i], &o, buf, sizeof buf) == 1, "accepted: %s", bad[i]);
    run_opts_free(&o);
  }
}
END_TEST

START_TEST(test_bind_bad_npy_never_crashes) {
  char path[PATH_MAX];
  tmp_path(path, sizeof path, "junk.npy");
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs("\x93NUMPY\x01\x00\x10\x00{'descr': '<f4',", f);
  fclose(f);
  char buf[4200];
  run_opts o;
  ck_assert_int_eq(bind("x_ptr=@/junk.npy y_ptr=@/junk.npy n=4 BLOCK=4", &o, buf, sizeof buf), 1);
  run_opts_free(&o);
}
END_TEST

/* `tilec-exec ARGS...` (space separated): its exit code. */
static int exec_line(const char *line) {
  char storage[1024];
  char *argv[64];
  int argc = 0;
  argv[argc++] = "tilec-exec";
  snprintf(storage, sizeof storage, "%s", line);
  for (char *tok = strtok(storage, " "); tok && argc < 63; tok = strtok(NULL, " ")) argv[argc++] = tok;
  argv[argc] = NULL;
  return tilec_cmd_exec(argc, argv);
}

START_TEST(test_exec_option_and_errors) {
  char buf[512];
  run_opts o;
  ck_assert_int_eq(parse("k.py -k add --grid 4 --target aarch64 --exec qemu-aarch64 x=x.npy", &o, buf, sizeof buf), 0);
  ck_assert_str_eq(o.exec, "qemu-aarch64");
  run_opts_free(&o);
  ck_assert_int_eq(parse("k.py -k add --grid 4 --exec", &o, buf, sizeof buf), 2);
  run_opts_free(&o);
  /* tilec-exec: compile options are usage errors, a missing library or array a failure */
  ck_assert_int_eq(exec_line("lib.so -k add --grid 4 --target aarch64"), 2);
  ck_assert_int_eq(exec_line("lib.so -k add --grid 4 --check-bounds"), 2);
  ck_assert_int_eq(exec_line("lib.so -k add --grid 4 --no-cache"), 2);
  ck_assert_int_eq(exec_line("lib.so -k add --grid 4 --num-warps 4"), 2);
  ck_assert_int_eq(exec_line("lib.so -k add --grid 4 --num-stages 2"), 2);
  ck_assert_int_eq(exec_line("lib.so -k add --grid 4 --emit tile"), 2);
  ck_assert_int_eq(exec_line("lib.so -k add"), 2);
  ck_assert_int_eq(exec_line("lib.so -k add --grid 4 n=name"), 1);
  ck_assert_int_eq(exec_line("/nonexistent/lib.so -k add --grid 4 n=3"), 1);
  char line[PATH_MAX + 64];
  snprintf(line, sizeof line, "/nonexistent/lib.so -k add --grid 4 x=%s/missing.npy", tmp_dir);
  ck_assert_int_eq(exec_line(line), 1);
}
END_TEST

static Suite *run_suite(void) {
  Suite *s = suite_create("run_args");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_classify_ints);
  tcase_add_test(tc, test_classify_others);
  tcase_add_test(tc, test_grid);
  tcase_add_test(tc, test_summarize);
  tcase_add_test(tc, test_store_scalar);
  tcase_add_test(tc, test_parse_ok);
  tcase_add_test(tc, test_parse_usage_errors);
  tcase_add_test(tc, test_bind_entries);
  tcase_add_test(tc, test_bind_errors);
  tcase_add_test(tc, test_bind_bad_npy_never_crashes);
  tcase_add_test(tc, test_exec_option_and_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmp_dir, sizeof tmp_dir, "%s/tilec_test_run_XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(tmp_dir)) {
    perror("mkdtemp");
    return EXIT_FAILURE;
  }
  SRunner *sr = srunner_create(run_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  if (system(cmd) != 0) fprintf(stderr, "test_run_args: could not remove %s\n", tmp_dir);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
