/* tools/run.c — `tilec run`: bind NAME=VALUE arguments (.npy arrays, numbers, bools, strings)
 * to a kernel's parameters by name, compile it through the JIT cache the API uses
 * (driver/jit.c: a second run of the same specialization loads the cached library), launch
 * it and time it.
 * With `--exec CMD` the library is run by another program instead: CMD (split at spaces)
 * gets `LIB.so -k KERNEL --grid ... NAME=VALUE... --out NAME=FILE...`, which is what
 * `tilec-exec` (tools/exec/main.c: this file built with TILEC_RUN_EXEC_ONLY, no compiler)
 * takes; run under qemu-aarch64 it runs --target aarch64 kernels on an x86-64 machine.
 * In: argv. Out: --out .npy files, an optional timing line on stdout, diagnostics on stderr. */
#include "tools/run.h"

#include "runtime/files.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- pure helpers (exercised directly by tests/unit/test_run_args.c) ------------------- */

static bool run_is_identifier(const char *s, size_t n) {
  if (n == 0 || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z'))) return false;
  for (size_t i = 1; i < n; i++) {
    char c = s[i];
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

static bool run_ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

/* Where FILE.npy ends in a binding text "FILE.npy[:DTYPE][:[B0,B1,...][:nan]]", or NULL. */
static const char *run_npy_end(const char *text) {
  for (const char *q = strstr(text, ".npy:"); q; q = strstr(q + 1, ".npy:"))
    if (!strstr(q + 1, ".npy:")) return q + 4;
  return NULL;
}

/* The suffixes after FILE.npy: DTYPE reinterprets the file's elements as a dtype NumPy lacks
 * (fp8 codes in uint8 arrays, bf16 bits in uint16 arrays; the sizes must agree); [B0,...]
 * binds the array as a tensor descriptor with that block shape (its shape and C-order
 * strides are the descriptor's), :nan makes out-of-bounds descriptor loads read NaN. */
static bool run_npy_suffix(const char *text, run_value *v) {
  const char *p = run_npy_end(text);
  if (!p) return false;
  run_value r = {.kind = RUN_VALUE_NPY};
  while (*p == ':') {
    p++;
    const char *end = strchr(p, ':');
    if (*p == '[') end = strchr(p, ']') ? strchr(p, ']') + 1 : NULL;
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char part[64];
    if (!n || n >= sizeof part) return false;
    memcpy(part, p, n);
    part[n] = 0;
    if (part[0] == '[') {
      const char *q = part + 1;
      while (*q && *q != ']') {
        char *e;
        long long b = strtoll(q, &e, 10);
        if (e == q || b < 1 || r.desc_rank == TILEC_TENSOR_DESC_MAX_RANK) return false;
        r.desc_block[r.desc_rank++] = b;
        q = e;
        while (*q == ',' || *q == ' ') q++;
      }
      if (!r.desc_rank) return false;
    } else if (!strcmp(part, "nan") && r.desc_rank) {
      r.desc_nan = true;
    } else if (tilec_dtype_from_name(part) != TILEC_DTYPE_INVALID && !r.desc_rank && r.dtype == TILEC_DTYPE_INVALID) {
      r.dtype = tilec_dtype_from_name(part);
    } else {
      return false;
    }
    p += n;
  }
  if (*p) return false;
  *v = r;
  return true;
}

/* Classifies a value text. Returns false only for an integer too large for 64 bits (then
 * kind is STRING), which is an error for a runtime parameter. */
bool run_classify(const char *text, run_value *v) {
  memset(v, 0, sizeof *v);
  if (!strncmp(text, "empty:", 6)) { /* dtype and shape: read when the array is made */
    v->kind = RUN_VALUE_NPY;
    v->empty = true;
    return true;
  }
  if (run_ends_with(text, ".npy")) {
    v->kind = RUN_VALUE_NPY;
    return true;
  }
  if (run_npy_suffix(text, v)) return true;
  if (!strcmp(text, "True") || !strcmp(text, "False")) {
    v->kind = RUN_VALUE_BOOL;
    v->dtype = TILEC_DTYPE_I1;
    v->i = text[0] == 'T';
    return true;
  }
  const char *digits = text + (text[0] == '-' || text[0] == '+');
  if (cli_is_integer(digits)) {
    uint64_t mag;
    /* Out of range: still a string to a constexpr, which gets the text anyway. */
    v->kind = RUN_VALUE_STRING;
    if (!cli_parse_u64(digits, &mag) || (text[0] == '-' && mag > (uint64_t)INT64_MAX + 1)) return false;
    v->kind = RUN_VALUE_INT;
    /* Triton's rule: i32 when it fits, u64 for [2^63, 2^64), i64 otherwise. */
    if (text[0] == '-') {
      v->i = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
      v->dtype = v->i >= INT32_MIN ? TILEC_DTYPE_I32 : TILEC_DTYPE_I64;
    } else if (mag > (uint64_t)INT64_MAX) {
      v->i = (int64_t)mag;
      v->dtype = TILEC_DTYPE_U64;
    } else {
      v->i = (int64_t)mag;
      v->dtype = v->i <= INT32_MAX ? TILEC_DTYPE_I32 : TILEC_DTYPE_I64;
    }
    return true;
  }
  /* A float needs a marker so that words like "leaky_relu" or "e" stay strings even when a
   * prefix of them would parse. */
  bool marker = strpbrk(text, ".eE") || strstr(text, "inf") || strstr(text, "nan");
  if (marker && *text) {
    char *end;
    double f = strtod(text, &end);
    if (end != text && !*end) {
      v->kind = RUN_VALUE_FLOAT;
      v->dtype = TILEC_DTYPE_F32;
      v->f = f;
      return true;
    }
  }
  v->kind = RUN_VALUE_STRING;
  return true;
}

/* "X[,Y[,Z]]", each a uint32; missing dimensions are 1. */
bool run_parse_grid(const char *s, uint32_t xyz[3]) {
  xyz[0] = xyz[1] = xyz[2] = 1;
  int n = 0;
  const char *p = s;
  for (;;) {
    if (n == 3) return false;
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char buf[32];
    if (len == 0 || len >= sizeof buf) return false;
    memcpy(buf, p, len);
    buf[len] = 0;
    uint64_t v;
    if (!cli_parse_u64(buf, &v) || v > UINT32_MAX) return false;
    xyz[n++] = (uint32_t)v;
    if (!comma) return true;
    p = comma + 1;
  }
}

static int run_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts ms in place. */
void run_summarize(double *ms, long n, double *median, double *min) {
  qsort(ms, (size_t)n, sizeof *ms, run_cmp_double);
  *min = ms[0];
  *median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
}

/* The bytes a runtime scalar of type `want` holds for value v, in `slot`. Converts when the
 * compiled kernel wants another type than the text suggested (e.g. i32 widened to i64, or
 * an int passed to an fp32 parameter); refuses conversions that lose the value. */
bool run_store_scalar(const run_value *v, tilec_dtype want, void *slot, char *why, size_t cap) {
  bool is_int = v->kind == RUN_VALUE_INT || v->kind == RUN_VALUE_BOOL;
  bool is_u64 = v->kind == RUN_VALUE_INT && v->dtype == TILEC_DTYPE_U64;
  int64_t i = v->i;
  double f = is_int ? (is_u64 ? (double)(uint64_t)i : (double)i) : v->f;
  int64_t lo = 0;
  uint64_t hi = 0;
  switch (want) {
    case TILEC_DTYPE_I1:
      lo = 0;
      hi = 1;
      break;
    case TILEC_DTYPE_I8:
      lo = INT8_MIN;
      hi = INT8_MAX;
      break;
    case TILEC_DTYPE_I16:
      lo = INT16_MIN;
      hi = INT16_MAX;
      break;
    case TILEC_DTYPE_I32:
      lo = INT32_MIN;
      hi = INT32_MAX;
      break;
    case TILEC_DTYPE_I64:
      lo = INT64_MIN;
      hi = INT64_MAX;
      break;
    case TILEC_DTYPE_U8: hi = UINT8_MAX; break;
    case TILEC_DTYPE_U16: hi = UINT16_MAX; break;
    case TILEC_DTYPE_U32: hi = UINT32_MAX; break;
    case TILEC_DTYPE_U64: hi = UINT64_MAX; break;
    case TILEC_DTYPE_F32: {
      float x = (float)f;
      memcpy(slot, &x, sizeof x);
      return true;
    }
    case TILEC_DTYPE_F64: memcpy(slot, &f, sizeof f); return true;
    default:
      snprintf(why, cap, "scalar parameters of type %s are not supported by `tilec run`", tilec_dtype_name(want));
      return false;
  }
  if (!is_int) {
    snprintf(why, cap, "the kernel wants %s, got a float", tilec_dtype_name(want));
    return false;
  }
  bool fits = is_u64 ? (uint64_t)i <= hi : (i >= lo && (i < 0 || (uint64_t)i <= hi));
  if (!fits) {
    snprintf(why, cap, "value does not fit in %s", tilec_dtype_name(want));
    return false;
  }
  size_t size = tilec_dtype_size(want);
  /* Little-endian: the low bytes of the 64-bit pattern are the narrower value. */
  memcpy(slot, &i, size);
  return true;
}

/* ---- the command ---------------------------------------------------------------------- */

static int run_usage(const char *fmt, const char *arg) { return cli_usage(fmt, arg); }

static int run_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tilec: error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  return 1;
}

void tilec_cli_add_line_text(tilec_status *st); /* tools/tilec.c */

static int run_report(tilec_status *st) {
  tilec_cli_add_line_text(st);
  fprintf(stderr, "%s\n", tilec_status_format(st));
  tilec_status_destroy(st);
  return 1;
}

#ifndef TILEC_RUN_EXEC_ONLY
static int run_read_source(const char *path, char **out, size_t *len) {
  char why[512 + PATH_MAX];
  if (tilec_file_read(path, TILEC_MAX_SOURCE_BYTES, false, out, len, why, sizeof why)) return run_fail("%s", why);
  return 0;
}

#endif

/* Splits NAME=VALUE; NAME must be an identifier so typos like a missing '=' are caught. */
static bool run_split(const char *arg, char **name, const char **value) {
  const char *eq = strchr(arg, '=');
  if (!eq || !run_is_identifier(arg, (size_t)(eq - arg))) return false;
  *name = strndup(arg, (size_t)(eq - arg));
  *value = eq + 1;
  return *name != NULL;
}

void run_opts_free(run_opts *o) {
  for (int i = 0; i < o->nbindings; i++) {
    free(o->bindings[i].name);
    free(o->bindings[i].owned_text);
    tilec_npy_free(&o->bindings[i].arr);
  }
  for (int i = 0; i < o->nouts; i++) free(o->outs[i].name);
  free(o->bindings);
  free(o->outs);
}

/* ---- the options of `run` (beside the compile flags, tools/options.c) ---- */

static int set_kernel(void *d, const char *v) { return ((run_opts *)d)->kernel = v, 0; }
static int set_serial(void *d, const char *v) { return (void)v, ((run_opts *)d)->serial = true, 0; }
static int set_reference(void *d, const char *v) { return (void)v, ((run_opts *)d)->reference = true, 0; }
static int set_no_cache(void *d, const char *v) { return (void)v, ((run_opts *)d)->no_cache = true, 0; }
static int set_verbose(void *d, const char *v) { return (void)v, ((run_opts *)d)->verbose = true, 0; }

static int set_grid(void *d, const char *v) {
  run_opts *o = d;
  o->grid = v;
  if (!run_parse_grid(v, o->grid_xyz))
    return run_usage("--grid expects X[,Y[,Z]] with each a non-negative 32-bit integer, got '%s'", v);
  if (o->grid_xyz[0] > TILEC_MAX_GRID_X || o->grid_xyz[1] > TILEC_MAX_GRID_YZ || o->grid_xyz[2] > TILEC_MAX_GRID_YZ)
    return run_fail("--grid %s exceeds Triton's limits: at most %u programs on axis 0 and %u on axes 1 "
                    "and 2 (program ids are 32-bit)",
                    v, TILEC_MAX_GRID_X, TILEC_MAX_GRID_YZ);
  return 0;
}

static int set_threads(void *d, const char *v) {
  uint64_t n;
  if (!cli_parse_count(v, TILEC_MAX_THREADS, &n))
    return run_usage("--threads expects an integer from 0 (the default) to 4096, got '%s'", v);
  ((run_opts *)d)->threads = (uint32_t)n;
  return 0;
}

static int set_repeat(void *d, const char *v) {
  uint64_t n;
  if (!cli_parse_count(v, RUN_MAX_REPEAT, &n) || n == 0)
    return run_usage("--repeat expects an integer from 1 to 10000000, got '%s'", v);
  ((run_opts *)d)->repeat = (long)n;
  return 0;
}

static int set_exec(void *d, const char *v) {
  if (!*v) return run_usage("--exec expects a command, got '%s'", v);
  ((run_opts *)d)->exec = v;
  return 0;
}

static int set_program(void *d, const char *v) {
  run_opts *o = d;
  if (!run_parse_grid(v, o->program_xyz))
    return run_usage("--program expects X[,Y[,Z]] with each a non-negative 32-bit integer, got '%s'", v);
  /* omitted coordinates of a program id are 0 (a grid's are 1) */
  const char *c1 = strchr(v, ',');
  if (!c1) o->program_xyz[1] = o->program_xyz[2] = 0;
  else if (!strchr(c1 + 1, ',')) o->program_xyz[2] = 0;
  o->one_program = true;
  return 0;
}

static int set_out(void *d, const char *v) {
  run_opts *o = d;
  run_out *out = &o->outs[o->nouts];
  out->binding = -1;
  bool ok = run_split(v, &out->name, &out->path);
  if (ok) o->nouts++;
  if (!ok || !*out->path) return run_usage("--out expects NAME=FILE.npy, got '%s'", v);
  return 0;
}

const cli_option run_option_rows[] = {
    {"--kernel", "-k", "KERNEL", false, CLI_RUN, "the @triton.jit function to run", set_kernel},
    {"--grid", NULL, "X[,Y[,Z]]", false, CLI_RUN, "programs to launch on each axis", set_grid},
    {"--out", NULL, "NAME=FILE.npy", false, CLI_RUN, "write the array bound to NAME after the launch", set_out},
    {"--threads", NULL, "N", false, CLI_RUN,
     "threads running the programs (0, the default: TILEC_NUM_THREADS, else the OpenMP team's)", set_threads},
    {"--repeat", NULL, "N", false, CLI_RUN, "launch N times and print the median and minimum time", set_repeat},
    {"--program", NULL, "X,Y,Z", false, CLI_RUN, "run only this program of the grid", set_program},
    {"--serial", NULL, NULL, false, CLI_RUN, "run the programs one after the other, in order", set_serial},
    {"--reference", NULL, NULL, false, CLI_RUN,
     "also run the plain reference build on the same inputs and compare every array", set_reference},
    {"--no-cache", NULL, NULL, false, CLI_RUN, "compile without the JIT disk cache", set_no_cache},
    {"--verbose", "-v", NULL, false, CLI_RUN, "say on stderr whether the kernel was compiled or cached", set_verbose},
    {"--exec", NULL, "CMD", false, CLI_RUN, "run the library with CMD, e.g. \"qemu-aarch64 rt64/tilec-exec\"",
     set_exec},
};
const int run_option_count = (int)(sizeof run_option_rows / sizeof run_option_rows[0]);

/* argv[first..]: options, FILE and NAME=VALUE bindings (FILE is the library for tilec-exec). */
int run_parse_args(int argc, char **argv, int first, run_opts *o) {
  cli_compile_flags_init(&o->flags);
  /* Every argument after "run" may become a binding or an --out. */
  o->bindings = calloc((size_t)argc, sizeof *o->bindings);
  o->outs = calloc((size_t)argc, sizeof *o->outs);
  if (!o->bindings || !o->outs) return run_fail("out of memory");
  const cli_table tables[2] = {{run_option_rows, run_option_count, o},
                               {cli_compile_flag_rows, cli_compile_flag_count, &o->flags}};
  for (int i = first; i < argc; i++) {
    const char *a = argv[i];
    int r = cli_parse(argc, argv, &i, CLI_RUN, tables, 2);
    if (r > 0) return r;
    if (r == 0) continue;
    if (a[0] == '-' && a[1]) {
      return run_usage("unknown option '%s'", a);
    } else if (!strchr(a, '=') && !o->file) {
      o->file = a;
    } else {
      run_binding *b = &o->bindings[o->nbindings];
      if (!run_split(a, &b->name, &b->text)) {
        if (!strchr(a, '=')) return run_usage("expected NAME=VALUE, got '%s'", a);
        return run_usage("expected NAME=VALUE with NAME a parameter name, got '%s'", a);
      }
      b->param = -1;
      b->parent = -1;
      o->nbindings++;
      if (!*b->text) return run_usage("empty value in '%s'", a);
      for (int j = 0; j < o->nbindings - 1; j++)
        if (!strcmp(o->bindings[j].name, b->name)) return run_usage("parameter '%s' is given more than once", b->name);
    }
  }
  if (!o->file) return run_usage("no input file%s", "");
  if (!o->kernel) return run_usage("no kernel name (-k KERNEL)%s", "");
  if (!o->grid) return run_usage("no grid (--grid X[,Y[,Z]])%s", "");
#ifndef TILEC_RUN_EXEC_ONLY
  return cli_check_compile_flags(&o->flags);
#else
  return 0;
#endif
}

/* Each --out names a binding to an array. */
static int run_resolve_outs(run_opts *o) {
  for (int i = 0; i < o->nouts; i++) {
    run_out *out = &o->outs[i];
    for (int b = 0; b < o->nbindings && out->binding < 0; b++)
      if (!strcmp(o->bindings[b].name, out->name)) out->binding = b;
    if (out->binding < 0)
      return run_fail("--out %s: no array is bound to parameter '%s' (bind it with %s=FILE.npy)", out->name, out->name,
                      out->name);
    if (o->bindings[out->binding].value.kind != RUN_VALUE_NPY)
      return run_fail("--out %s: parameter '%s' is bound to '%s', not to a .npy array", out->name, out->name,
                      o->bindings[out->binding].text);
  }
  return 0;
}

/* NAME=empty:DTYPE:D0[xD1...]: an array tilec makes, every byte 0xff (a NaN of every float
 * type, -1 of every integer) and, for --check init, marked not yet written: a kernel that
 * loads what it never stored is reported. */
static int run_make_empty(run_binding *bd) {
  const char *spec = bd->text + 6, *colon = strchr(spec, ':');
  char dt[16];
  tilec_dtype dtype = TILEC_DTYPE_INVALID;
  if (colon && (size_t)(colon - spec) < sizeof dt) {
    memcpy(dt, spec, (size_t)(colon - spec));
    dt[colon - spec] = 0;
    dtype = tilec_dtype_from_name(dt);
  }
  tilec_npy *a = &bd->arr;
  memset(a, 0, sizeof *a);
  a->dtype = dtype;
  a->count = 1;
  for (const char *p = colon ? colon + 1 : NULL; p && a->ndim < TILEC_NPY_MAX_DIMS;) {
    char *end;
    long long d = strtoll(p, &end, 10);
    if (end == p || d < 1 || d > ((long long)1 << 40) || (*end && *end != 'x')) {
      a->ndim = 0;
      break;
    }
    a->shape[a->ndim++] = d;
    a->count *= (size_t)d;
    p = *end ? end + 1 : NULL;
  }
  if (dtype == TILEC_DTYPE_INVALID || !a->ndim || a->count > ((size_t)1 << 40))
    return run_fail("parameter '%s': '%s' is not empty:DTYPE:SHAPE (a dtype such as fp32, then the dimensions: "
                    "empty:fp32:1000 or empty:i32:64x128)",
                    bd->name, bd->text);
  a->nbytes = a->count * tilec_dtype_size(dtype);
  a->data = aligned_alloc(64, (a->nbytes + 63) / 64 * 64);
  if (!a->data) return run_fail("parameter '%s': out of memory for %zu bytes", bd->name, a->nbytes);
  memset(a->data, 0xff, a->nbytes);
  bd->file_dtype = dtype;
  return 0;
}

static int run_load_array(run_binding *bd) {
  if (bd->value.empty) return run_make_empty(bd);
  tilec_dtype as = bd->value.dtype;
  char *path = strdup(bd->text);
  if (!path) return run_fail("out of memory");
  const char *end = run_npy_end(bd->text);
  if (end) path[end - bd->text] = 0;
  tilec_status *st = tilec_npy_read(path, &bd->arr);
  free(path);
  if (st) return run_report(tilec_status_annotate(st, "parameter '%s'", bd->name));
  bd->file_dtype = bd->arr.dtype;
  if (as != TILEC_DTYPE_INVALID) {
    if (tilec_dtype_size(as) != tilec_dtype_size(bd->arr.dtype))
      return run_fail("parameter '%s': '%s' holds %s elements, which cannot be read as %s (sizes differ)", bd->name,
                      bd->text, tilec_dtype_name(bd->arr.dtype), tilec_dtype_name(as));
    bd->arr.dtype = as;
  }
  if (bd->value.desc_rank && bd->arr.ndim != bd->value.desc_rank)
    return run_fail("parameter '%s': '%s' has %d dimensions but the descriptor block has %d", bd->name, bd->text,
                    bd->arr.ndim, bd->value.desc_rank);
  if (bd->arr.ndim == 0)
    return run_fail("parameter '%s': '%s' holds a 0-d array; a pointer parameter needs at least one dimension",
                    bd->name, bd->text);
  return 0;
}

#ifndef TILEC_RUN_EXEC_ONLY
/* Lists the kernel's source parameters; *params is malloc'ed. */
static int run_inspect(const run_opts *o, const char *src, size_t len, tilec_source_param **params, int *count) {
  int cap = 64;
  for (;;) {
    tilec_source_param *p = calloc((size_t)cap, sizeof *p);
    if (!p) return run_fail("out of memory");
    int n = 0;
    tilec_status *st = tilec_inspect_kernel(src, len, o->file, o->kernel, p, cap, &n);
    if (st) {
      free(p);
      return run_report(st);
    }
    if (n < 0 || n > RUN_MAX_PARAMS) {
      free(p);
      return run_fail("kernel '%s': implausible parameter count %d", o->kernel, n);
    }
    if (n <= cap) {
      *params = p;
      *count = n;
      return 0;
    }
    free(p);
    cap = n;
  }
}

/* A dtype ("tl.float16", "triton.language.int8") or a tuple ("(2, 3)", "[4, 8]"): values
 * Triton specializes as compile-time values even for a parameter not annotated constexpr. */
static bool run_is_compile_time_text(const char *text) {
  return !strncmp(text, "tl.", 3) || !strncmp(text, "triton.language.", 16) || text[0] == '(' || text[0] == '[';
}

static int run_unknown_param(const run_opts *o, const char *name, const tilec_source_param *params, int n) {
  size_t cap = 16;
  for (int i = 0; i < n; i++) cap += strlen(params[i].name) + 2;
  char *list = malloc(cap);
  if (!list) return run_fail("kernel '%s' has no parameter '%s'", o->kernel, name);
  list[0] = 0;
  for (int i = 0; i < n; i++) {
    if (i) strcat(list, ", ");
    strcat(list, params[i].name);
  }
  int rc = run_fail("kernel '%s' has no parameter '%s' (parameters: %s)", o->kernel, name, n ? list : "none");
  free(list);
  return rc;
}

/* The elements of a tuple text "(A, (B, C), D)" (its top-level commas; a trailing comma ends
 * it): at most cap, each [start, start + len) trimmed; -1 when it is not one tuple. */
static int run_tuple_elements(const char *text, const char **start, size_t *len, int cap) {
  size_t n = strlen(text);
  while (n && text[n - 1] == ' ') n--;
  while (n && *text == ' ') text++, n--;
  if (n < 2 || text[0] != '(' || text[n - 1] != ')') return -1;
  int count = 0, depth = 0;
  const char *item = text + 1;
  for (const char *p = text + 1; p <= text + n - 1; p++) {
    bool end = p == text + n - 1;
    if (!end && (*p == '(' || *p == '[')) depth++;
    else if (!end && (*p == ')' || *p == ']')) {
      if (--depth < 0) return -1;
    } else if ((end && depth == 0) || (*p == ',' && depth == 0)) {
      const char *a = item, *e = p;
      while (a < e && *a == ' ') a++;
      while (e > a && e[-1] == ' ') e--;
      if (a == e && !(end && count)) return -1; /* "(,)", "(a,,b)"; "(a,)" is one element */
      if (a < e) {
        if (count == cap) return -1;
        start[count] = a, len[count++] = (size_t)(e - a);
      }
      item = p + 1;
    }
  }
  return depth ? -1 : count;
}

/* Does a tuple text hold an array (then it binds a runtime tuple: Triton flattens it into
 * the kernel's arguments; a tuple of numbers stays a compile-time value)? */
static bool run_tuple_has_array(const char *text) {
  const char *start[RUN_MAX_PARAMS / 16];
  size_t len[RUN_MAX_PARAMS / 16];
  int n = run_tuple_elements(text, start, len, RUN_MAX_PARAMS / 16);
  for (int i = 0; i < n; i++) {
    char *e = strndup(start[i], len[i]);
    run_value v;
    bool array = e && (e[0] == '(' ? run_tuple_has_array(e) : run_classify(e, &v) && v.kind == RUN_VALUE_NPY);
    free(e);
    if (array) return true;
  }
  return false;
}

/* Binding b is a runtime tuple: its elements become bindings NAME_0, NAME_1, ... after the
 * others (the names the front end gives the flattened arguments), nested tuples likewise. */
static int run_expand_tuple(run_opts *o, int b) {
  const char *start[RUN_MAX_PARAMS / 16];
  size_t len[RUN_MAX_PARAMS / 16];
  int n = run_tuple_elements(o->bindings[b].text, start, len, RUN_MAX_PARAMS / 16);
  if (n <= 0)
    return run_fail("parameter '%s': '%s' is not a tuple of arrays, numbers and True/False", o->bindings[b].name,
                    o->bindings[b].text);
  o->bindings[b].tuple = true;
  o->bindings[b].value.kind = RUN_VALUE_STRING; /* not an array itself (--out, --reference) */
  run_binding *grown = realloc(o->bindings, sizeof *grown * (size_t)(o->nbindings + n));
  if (!grown) return run_fail("out of memory");
  o->bindings = grown;
  int first = o->nbindings;
  for (int i = 0; i < n; i++) {
    run_binding *c = &o->bindings[o->nbindings++];
    memset(c, 0, sizeof *c);
    c->param = o->bindings[b].param, c->parent = b;
    c->owned_text = strndup(start[i], len[i]);
    if (!c->owned_text || asprintf(&c->name, "%s_%d", o->bindings[b].name, i) < 0) {
      c->name = NULL;
      return run_fail("out of memory");
    }
    c->text = c->owned_text;
  }
  for (int i = first; i < first + n; i++) {
    run_binding *c = &o->bindings[i];
    if (c->text[0] == '(') {
      int rc = run_expand_tuple(o, i);
      if (rc) return rc;
      continue;
    }
    if (!run_classify(c->text, &c->value))
      return run_fail("element '%s' of parameter '%s' does not fit in 64 bits", c->text, o->bindings[b].name);
    if (c->value.kind == RUN_VALUE_STRING)
      return run_fail("element '%s' of parameter '%s' (a tuple of arrays): its elements must be arrays, numbers, "
                      "True/False or tuples of those",
                      c->text, o->bindings[b].name);
  }
  return 0;
}

/* A runtime tuple's signature entry from its elements' ("(*fp32:16, i32)"). */
static int run_tuple_entry(run_opts *o, int b) {
  run_binding *bd = &o->bindings[b];
  size_t k = 0;
  bd->entry[k++] = '(';
  for (int i = b + 1, n = 0; i < o->nbindings; i++) {
    const run_binding *c = &o->bindings[i];
    if (c->parent != b) continue;
    int w = snprintf(bd->entry + k, sizeof bd->entry - k, "%s%s", n++ ? ", " : "", c->entry);
    if (w < 0 || (size_t)w >= sizeof bd->entry - k - 1)
      return run_fail("parameter '%s': the tuple '%s' has too many elements", bd->name, bd->text);
    k += (size_t)w;
  }
  bd->entry[k++] = ')';
  bd->entry[k] = 0;
  return 0;
}

/* Matches bindings and --out names to parameters and decides each signature entry, loading
 * the .npy arrays (their dtype is part of the entry). A tuple holding arrays is a runtime
 * tuple: its elements are bound as the flattened arguments NAME_0, NAME_1, .... */
int run_bind(run_opts *o, const tilec_source_param *params, int nparams) {
  for (int b = 0, given = o->nbindings; b < given; b++) {
    run_binding *bd = &o->bindings[b];
    for (int p = 0; p < nparams && bd->param < 0; p++)
      if (!strcmp(params[p].name, bd->name)) bd->param = p;
    if (bd->param < 0) return run_unknown_param(o, bd->name, params, nparams);
    if (bd->text[0] == '(' && run_tuple_has_array(bd->text)) {
      if (params[bd->param].is_constexpr)
        return run_fail("parameter '%s' of kernel '%s' is tl.constexpr and cannot be bound to arrays ('%s')", bd->name,
                        o->kernel, bd->text);
      int rc = run_expand_tuple(o, b);
      if (rc) return rc;
      continue;
    }
    bd->is_constexpr = params[bd->param].is_constexpr || run_is_compile_time_text(bd->text);
    /* A constexpr's text goes to the front end verbatim, so only runtime ints must fit. */
    if (!run_classify(bd->text, &bd->value) && !bd->is_constexpr)
      return run_fail("value '%s' of parameter '%s' does not fit in 64 bits", bd->text, bd->name);
  }
  for (int p = 0; p < nparams; p++) {
    bool bound = false;
    for (int b = 0; b < o->nbindings && !bound; b++) bound = o->bindings[b].param == p;
    if (!bound && !params[p].has_default)
      return run_fail("missing value for parameter '%s' of kernel '%s'", params[p].name, o->kernel);
  }
  for (int b = 0; b < o->nbindings; b++) {
    run_binding *bd = &o->bindings[b];
    if (bd->tuple) continue;
    if (bd->value.kind == RUN_VALUE_NPY && bd->is_constexpr)
      return run_fail("parameter '%s' of kernel '%s' is tl.constexpr and cannot be bound to an array ('%s')", bd->name,
                      o->kernel, bd->text);
    if (bd->value.kind == RUN_VALUE_STRING && !bd->is_constexpr)
      return run_fail("parameter '%s' of kernel '%s' is not tl.constexpr, so '%s' must be a number, True/False "
                      "or a .npy file",
                      bd->name, o->kernel, bd->text);
  }
  int rc = run_resolve_outs(o);
  if (rc) return rc;
  for (int b = 0; b < o->nbindings; b++) {
    run_binding *bd = &o->bindings[b];
    if (bd->is_constexpr || bd->tuple) continue; /* the entry is the text itself; a tuple's, below */
    if (bd->value.kind == RUN_VALUE_NPY) {
      rc = run_load_array(bd);
      if (rc) return rc;
      /* npy buffers are 64-byte aligned, so the :16 alignment hint is always true. */
      if (bd->value.desc_rank) {
        int k = snprintf(bd->entry, sizeof bd->entry, "tensordesc<%s[", tilec_dtype_name(bd->arr.dtype));
        for (int i = 0; i < bd->value.desc_rank && k > 0 && (size_t)k < sizeof bd->entry; i++)
          k += snprintf(bd->entry + k, sizeof bd->entry - (size_t)k, "%s%lld", i ? ", " : "",
                        (long long)bd->value.desc_block[i]);
        if (k > 0 && (size_t)k < sizeof bd->entry) snprintf(bd->entry + k, sizeof bd->entry - (size_t)k, "]>");
      } else {
        snprintf(bd->entry, sizeof bd->entry, "*%s:16", tilec_dtype_name(bd->arr.dtype));
      }
    } else {
      /* Like Triton's JIT: integers equal to 1 are specialized away, multiples of 16 get
       * the divisibility hint (TILEC_RUN_NO_SPECIALIZE=1 turns both off). */
      const char *nospec = getenv("TILEC_RUN_NO_SPECIALIZE");
      bool spec = !(nospec && *nospec && strcmp(nospec, "0"));
      bool is_int = bd->value.kind == RUN_VALUE_INT && bd->value.dtype != TILEC_DTYPE_U64;
      if (spec && is_int && bd->value.i == 1)
        snprintf(bd->entry, sizeof bd->entry, "%s:1", tilec_dtype_name(bd->value.dtype));
      else if (spec && is_int && bd->value.i % 16 == 0)
        snprintf(bd->entry, sizeof bd->entry, "%s:16", tilec_dtype_name(bd->value.dtype));
      else snprintf(bd->entry, sizeof bd->entry, "%s", tilec_dtype_name(bd->value.dtype));
    }
  }
  for (int b = o->nbindings - 1; b >= 0; b--) /* a tuple's elements (and nested tuples) come after it */
    if (o->bindings[b].tuple && (rc = run_tuple_entry(o, b))) return rc;
  return 0;
}

#endif /* !TILEC_RUN_EXEC_ONLY */

static double run_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The launch argument for one runtime parameter: a pointer slot or a scalar slot. */
typedef struct run_arg {
  void *ptr;
  _Alignas(8) unsigned char scalar[8];
  int64_t extent;               /* elements behind a pointer argument, -1 for scalars */
  tilec_tensor_descriptor desc; /* a tensor descriptor argument */
} run_arg;

/* Checks the compiled kernel's runtime parameters against the bindings and fills args. */
static int run_make_args(const run_opts *o, const tilec_kernel_desc *k, run_arg *slots, void **args) {
  uint32_t a = 0;
  for (uint32_t p = 0; p < k->num_params; p++) {
    const tilec_param_desc *pd = &k->params[p];
    if (pd->kind == TILEC_PARAM_CONSTEXPR) continue;
    const char *name = pd->name ? pd->name : "?";
    if (a >= k->num_args)
      return run_fail("kernel '%s': descriptor lists more runtime parameters than num_args=%u", o->kernel, k->num_args);
    const run_binding *bd = NULL;
    for (int b = 0; b < o->nbindings && !bd; b++)
      if (pd->name && !strcmp(o->bindings[b].name, pd->name)) bd = &o->bindings[b];
    if (!bd)
      return run_fail("parameter '%s' of kernel '%s' has a default but is a runtime parameter; give it a value "
                      "(%s=...)",
                      name, o->kernel, name);
    if (bd->is_constexpr)
      return run_fail("kernel '%s': tl.constexpr parameter '%s' became a runtime parameter", o->kernel, name);
    if (pd->kind == TILEC_PARAM_POINTER) {
      if (bd->value.kind != RUN_VALUE_NPY)
        return run_fail("parameter '%s' of kernel '%s' is a pointer; bind it to a .npy file, not '%s'", name, o->kernel,
                        bd->text);
      if (pd->pointer_depth != 1 || pd->dtype != (uint32_t)bd->arr.dtype)
        return run_fail("parameter '%s' of kernel '%s': compiled as %s%s but bound to an array of %s", name, o->kernel,
                        pd->pointer_depth == 1 ? "*" : "**", tilec_dtype_name((tilec_dtype)pd->dtype),
                        tilec_dtype_name(bd->arr.dtype));
      slots[a].ptr = bd->arr.data;
      slots[a].extent = (int64_t)bd->arr.count;
      args[a] = &slots[a].ptr;
    } else if (pd->kind == TILEC_PARAM_TENSORDESC) {
      if (bd->value.kind != RUN_VALUE_NPY || !bd->value.desc_rank)
        return run_fail("parameter '%s' of kernel '%s' is a tensor descriptor (%s); bind it to FILE.npy:[BLOCK,...], "
                        "not '%s'",
                        name, o->kernel, pd->value ? pd->value : "?", bd->text);
      if (pd->dtype != (uint32_t)bd->arr.dtype)
        return run_fail("parameter '%s' of kernel '%s': compiled for %s elements but bound to an array of %s", name,
                        o->kernel, tilec_dtype_name((tilec_dtype)pd->dtype), tilec_dtype_name(bd->arr.dtype));
      tilec_tensor_descriptor *d = &slots[a].desc;
      memset(d, 0, sizeof *d);
      d->base = bd->arr.data;
      int64_t stride = 1;
      for (int i = bd->arr.ndim - 1; i >= 0; i--) {
        d->shape[i] = bd->arr.shape[i];
        d->strides[i] = stride;
        stride *= bd->arr.shape[i];
      }
      d->padding = bd->value.desc_nan;
      args[a] = d;
      slots[a].extent = -1; /* descriptor accesses are masked by the descriptor's shape */
    } else if (pd->kind == TILEC_PARAM_SCALAR) {
      if (bd->value.kind == RUN_VALUE_NPY)
        return run_fail("parameter '%s' of kernel '%s' is a scalar, but is bound to an array ('%s')", name, o->kernel,
                        bd->text);
      char why[160];
      if (!run_store_scalar(&bd->value, (tilec_dtype)pd->dtype, slots[a].scalar, why, sizeof why))
        return run_fail("parameter '%s' of kernel '%s' ('%s'): %s", name, o->kernel, bd->text, why);
      args[a] = slots[a].scalar;
      slots[a].extent = -1;
    } else {
      return run_fail("kernel '%s': parameter '%s' has unknown kind %u", o->kernel, name, pd->kind);
    }
    a++;
  }
  if (a != k->num_args)
    return run_fail("kernel '%s': descriptor has %u runtime parameters but num_args=%u", o->kernel, a, k->num_args);
  /* The front end must not have dropped a runtime binding (e.g. specialized it away). */
  for (int b = 0; b < o->nbindings; b++) {
    if (o->bindings[b].is_constexpr) continue;
    bool found = false;
    for (uint32_t p = 0; p < k->num_params && !found; p++)
      found = k->params[p].name && !strcmp(k->params[p].name, o->bindings[b].name) &&
              k->params[p].kind != TILEC_PARAM_CONSTEXPR;
    if (!found && o->bindings[b].value.kind == RUN_VALUE_NPY)
      return run_fail("kernel '%s': array parameter '%s' is not a runtime parameter of the compiled kernel", o->kernel,
                      o->bindings[b].name);
  }
  return 0;
}

static int run_launch_grid(const run_opts *o, const tilec_kernel_desc *k, void *const *args, const int64_t *extents);

/* The launch(es), with the empty: arrays marked uninitialized for --check init while they run. */
static int run_launch(const run_opts *o, const tilec_kernel_desc *k, void *const *args, const int64_t *extents) {
  for (int b = 0; b < o->nbindings; b++) {
    const run_binding *bd = &o->bindings[b];
    if (!bd->value.empty || !bd->arr.data) continue;
    tilec_status *st = tilec_debug_mark_uninitialized(bd->arr.data, bd->arr.nbytes);
    if (st) return run_report(tilec_status_annotate(st, "parameter '%s'", bd->name));
  }
  int rc = run_launch_grid(o, k, args, extents);
  for (int b = 0; b < o->nbindings; b++)
    if (o->bindings[b].value.empty && o->bindings[b].arr.data) tilec_debug_forget(o->bindings[b].arr.data);
  return rc;
}

static int run_launch_grid(const run_opts *o, const tilec_kernel_desc *k, void *const *args, const int64_t *extents) {
  tilec_launch_options lo;
  tilec_launch_options_init(&lo);
  lo.num_threads = o->threads;
  lo.buffer_extents = extents; /* the .npy sizes: bounds-checked kernels report overruns */
  const uint32_t *g = o->grid_xyz;
  if (o->serial) lo.num_threads = 1; /* one thread, programs in flattened order */
  if (o->one_program) {
    const uint32_t *p = o->program_xyz;
    if (p[0] >= g[0] || p[1] >= g[1] || p[2] >= g[2])
      return run_fail("--program %u,%u,%u is outside the grid %u,%u,%u", p[0], p[1], p[2], g[0], g[1], g[2]);
    lo.first_program = p[0] + (uint64_t)g[0] * (p[1] + (uint64_t)g[1] * p[2]);
    lo.program_count = 1;
  }
  if (!o->repeat) {
    tilec_status *st = tilec_kernel_launch(k, g[0], g[1], g[2], args, &lo);
    return st ? run_report(st) : 0;
  }
  double *ms = malloc((size_t)o->repeat * sizeof *ms);
  if (!ms) return run_fail("out of memory for %ld timings", o->repeat);
  /* The warm-up absorbs first-touch page faults and OpenMP team creation. */
  tilec_status *st = tilec_kernel_launch(k, g[0], g[1], g[2], args, &lo);
  for (long r = 0; r < o->repeat && !st; r++) {
    double t0 = run_now_ms();
    st = tilec_kernel_launch(k, g[0], g[1], g[2], args, &lo);
    ms[r] = run_now_ms() - t0;
  }
  if (st) {
    free(ms);
    return run_report(st);
  }
  double median, min;
  run_summarize(ms, o->repeat, &median, &min);
  free(ms);
  printf("time: median_ms=%.6f min_ms=%.6f runs=%ld\n", median, min, o->repeat);
  fflush(stdout);
  return 0;
}

/* Compiles, loads, launches and writes the outputs; owns the temp dir and library. */
/* The launch arguments (and each one's extent, for bounds checks) from the bindings;
 * the arrays are freed by the caller. */
static int run_prepare_args(const run_opts *o, const tilec_kernel_desc *k, run_arg **slots, void ***args,
                            int64_t **extents) {
  size_t n = k->num_args ? k->num_args : 1;
  *slots = calloc(n, sizeof **slots);
  *args = calloc(n, sizeof **args);
  *extents = calloc(n, sizeof **extents);
  if (!*slots || !*args || !*extents) return run_fail("out of memory");
  int rc = run_make_args(o, k, *slots, *args);
  for (uint32_t i = 0; !rc && i < k->num_args; i++) (*extents)[i] = (*slots)[i].extent;
  return rc;
}

static int run_write_outs(const run_opts *o) {
  for (int i = 0; i < o->nouts; i++) {
    const run_out *out = &o->outs[i];
    tilec_npy arr = o->bindings[out->binding].arr;
    arr.dtype = o->bindings[out->binding].file_dtype; /* as read: FILE.npy:DTYPE writes the file's dtype */
    tilec_status *st = tilec_npy_write(out->path, &arr);
    if (st) return run_report(tilec_status_annotate(st, "--out %s", out->name));
  }
  return 0;
}

#ifndef TILEC_RUN_EXEC_ONLY
/* Element i of an array as a double (and whether its dtype is floating-point). */
static double run_elem(const tilec_npy *a, const void *data, size_t i, bool *is_float) {
  const unsigned char *p = (const unsigned char *)data + i * tilec_dtype_size(a->dtype);
  *is_float = false;
  switch (a->dtype) {
    case TILEC_DTYPE_F32: {
      float v;
      memcpy(&v, p, 4);
      *is_float = true;
      return v;
    }
    case TILEC_DTYPE_F64: {
      double v;
      memcpy(&v, p, 8);
      *is_float = true;
      return v;
    }
    case TILEC_DTYPE_F16: {
      uint16_t h;
      memcpy(&h, p, 2);
      int e = (h >> 10) & 31, m = h & 1023;
      double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 1024, e - 25);
      *is_float = true;
      return (h & 0x8000) ? -v : v;
    }
    case TILEC_DTYPE_I8: return *(const int8_t *)p;
    case TILEC_DTYPE_U8:
    case TILEC_DTYPE_I1: return *p;
    case TILEC_DTYPE_FP8E5:
    case TILEC_DTYPE_FP8E4NV:
    case TILEC_DTYPE_FP8E4B15:
    case TILEC_DTYPE_FP8E4B8:
    case TILEC_DTYPE_FP8E5B16: return *p; /* compared code for code */
    case TILEC_DTYPE_BF16: {
      uint16_t v;
      memcpy(&v, p, 2);
      return v;
    }
    case TILEC_DTYPE_I16: {
      int16_t v;
      memcpy(&v, p, 2);
      return v;
    }
    case TILEC_DTYPE_U16: {
      uint16_t v;
      memcpy(&v, p, 2);
      return v;
    }
    case TILEC_DTYPE_I32: {
      int32_t v;
      memcpy(&v, p, 4);
      return v;
    }
    case TILEC_DTYPE_U32: {
      uint32_t v;
      memcpy(&v, p, 4);
      return v;
    }
    case TILEC_DTYPE_I64: {
      int64_t v;
      memcpy(&v, p, 8);
      return (double)v;
    }
    case TILEC_DTYPE_U64: {
      uint64_t v;
      memcpy(&v, p, 8);
      return (double)v;
    }
    default: return 0;
  }
}

/* Exchanges the contents of each bound array with its kept copy (same size). */
static void swap_contents(const run_opts *o, void **kept) {
  for (int b = 0; b < o->nbindings; b++) {
    if (!kept[b]) continue;
    unsigned char *x = o->bindings[b].arr.data, *y = kept[b];
    for (size_t i = 0; i < o->bindings[b].arr.nbytes; i++) {
      unsigned char t = x[i];
      x[i] = y[i];
      y[i] = t;
    }
  }
}

/* The options of this run's build, or of its --reference build (which takes only the
 * target and --check-bounds from the command line). --no-cache: cache_dir "" (the JIT
 * compiles in a temporary directory and keeps the kernel in memory only). */
static void run_compile_options(const run_opts *o, bool reference, tilec_compile_options *co) {
  tilec_compile_options_init(co);
  if (o->no_cache) co->cache_dir = "";
  cli_compile_flags f = o->flags;
  if (reference) { /* the target (--arch, --num-warps, --num-stages, --ptx-version with it) and the bounds checks */
    f.opt_level = -1;
    f.debug = f.fast_math = false;
    co->reference = true;
  }
  cli_apply_compile_flags(&f, co);
  if (reference) co->checks &= TILEC_CHECKS_BOUNDS;
}

/* Compiles spec with tilec_jit_compile, as the API does: the disk cache (TILEC_CACHE_DIR,
 * else $XDG_CACHE_HOME/tilec, else ~/.cache/tilec) is keyed by the source, kernel, bindings,
 * options, target and the compiler's own build, so an equal run loads the library the last
 * one stored. tl.static_print output appears when the kernel is compiled, not when it
 * comes from the cache (as in Triton). `what` names the build in -v lines and errors. */
static int run_jit(const run_opts *o, const tilec_compile_options *co, const tilec_kernel_spec *spec, const char *what,
                   tilec_jit_kernel **out) {
  tilec_compiler *c = NULL;
  tilec_status *warning = NULL;
  tilec_status *st = tilec_compiler_create(co, &c);
  if (!st) st = tilec_jit_compile(c, spec, out, &warning);
  cli_print_compiler_output(c);
  if (warning) {
    fprintf(stderr, "tilec: warning: %s\n", tilec_status_message(warning));
    tilec_status_destroy(warning);
  }
  if (!st && o->verbose) {
    const char *path = tilec_jit_kernel_cache_path(*out);
    if (tilec_jit_kernel_origin(*out) != TILEC_JIT_COMPILED)
      fprintf(stderr, "tilec: %s '%s' loaded from the cache: %s\n", what, o->kernel, path ? path : "(memory)");
    else if (path) fprintf(stderr, "tilec: %s '%s' compiled and cached: %s\n", what, o->kernel, path);
    else fprintf(stderr, "tilec: %s '%s' compiled (not cached)\n", what, o->kernel);
  }
  tilec_compiler_destroy(c);
  if (!st) return 0;
  *out = NULL;
  return run_report(strcmp(what, "kernel") ? tilec_status_annotate(st, "%s", what) : st);
}

/* Builds the reference library (through the cache as well), runs it serially on the kept
 * inputs and compares each array with what the optimized build left; reports the first
 * differing element. */
static int run_reference(const run_opts *o, const tilec_kernel_spec *spec, void **kept) {
  tilec_compile_options co;
  run_compile_options(o, true, &co);
  tilec_jit_kernel *jk = NULL;
  int rc = run_jit(o, &co, spec, "reference build", &jk);
  if (rc) return rc;
  const tilec_kernel_desc *k = tilec_jit_kernel_desc(jk);
  /* swap contents: the bindings' buffers hold the kept inputs again and the optimized
   * results wait in kept[]. The reference runs in the same buffers, so a kernel that stores
   * an address (ptr.to(tl.int64)) stores the same one in both builds. */
  swap_contents(o, kept);
  run_arg *slots = NULL;
  void **args = NULL;
  int64_t *extents = NULL;
  rc = run_prepare_args(o, k, &slots, &args, &extents);
  if (!rc) {
    run_opts serial = *o;
    serial.serial = true; /* deterministic order */
    serial.repeat = 0;
    rc = run_launch(&serial, k, args, extents);
  }
  long compared = 0;
  int arrays = 0;
  for (int b = 0; !rc && b < o->nbindings; b++) {
    if (!kept[b]) continue;
    const tilec_npy *a = &o->bindings[b].arr;
    arrays++;
    for (size_t i = 0; i < a->count; i++, compared++) {
      bool fl;
      double ref = run_elem(a, a->data, i, &fl), opt = run_elem(a, kept[b], i, &fl);
      bool same =
          fl ? ((isnan(ref) && isnan(opt)) || ref == opt || fabs(opt - ref) <= 1e-6 + 1e-5 * fabs(ref)) : ref == opt;
      if (same) continue;
      char idx[128] = "";
      size_t rest = i;
      if (a->ndim > 1) {
        int64_t coord[TILEC_NPY_MAX_DIMS];
        for (int d = a->ndim - 1; d >= 0; d--) {
          coord[d] = (int64_t)(rest % (size_t)a->shape[d]);
          rest /= (size_t)a->shape[d];
        }
        size_t w = 0;
        for (int d = 0; d < a->ndim && w + 24 < sizeof idx; d++)
          w += (size_t)snprintf(idx + w, sizeof idx - w, "%s%lld", d ? ", " : " (index ", (long long)coord[d]);
        snprintf(idx + w, sizeof idx - w, ")");
      }
      rc = run_fail("reference check: '%s'[%zu]%s is %.9g in the optimized build but %.9g in the reference build",
                    o->bindings[b].name, i, idx, opt, ref);
      break;
    }
  }
  if (!rc) printf("reference check: %d array%s, %ld elements agree\n", arrays, arrays == 1 ? "" : "s", compared);
  /* swap back: --out writes what the optimized build produced */
  swap_contents(o, kept);
  free(slots);
  free(args);
  free(extents);
  tilec_jit_kernel_release(jk);
  return rc;
}

/* --exec: CMD (split at spaces) runs the library: `CMD LIB -k KERNEL --grid X,Y,Z
 * [--threads N] [--repeat N] [--serial] [--program X,Y,Z] NAME=VALUE... --out NAME=FILE...`
 * with the runtime bindings only (constexprs are compiled in). */
static int run_spawn(const run_opts *o, const char *so) {
  char *cmd = strdup(o->exec);
  size_t cap = (size_t)(2 * o->nbindings + 2 * o->nouts) + strlen(o->exec) + 24;
  char **argv = calloc(cap, sizeof *argv);
  char **owned = calloc(cap, sizeof *owned);
  if (!cmd || !argv || !owned) {
    free(cmd);
    free(argv);
    free(owned);
    return run_fail("out of memory");
  }
  size_t n = 0, nowned = 0;
  for (char *save = NULL, *t = strtok_r(cmd, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) argv[n++] = t;
  if (n == 0) {
    free(cmd);
    free(argv);
    free(owned);
    return run_fail("--exec needs a command, got '%s'", o->exec);
  }
  char threads[16], repeat[24], program[48];
  argv[n++] = (char *)so;
  argv[n++] = "-k";
  argv[n++] = (char *)o->kernel;
  argv[n++] = "--grid";
  argv[n++] = (char *)o->grid;
  if (o->threads) {
    snprintf(threads, sizeof threads, "%u", o->threads);
    argv[n++] = "--threads";
    argv[n++] = threads;
  }
  if (o->repeat) {
    snprintf(repeat, sizeof repeat, "%ld", o->repeat);
    argv[n++] = "--repeat";
    argv[n++] = repeat;
  }
  if (o->serial) argv[n++] = "--serial";
  if (o->one_program) {
    snprintf(program, sizeof program, "%u,%u,%u", o->program_xyz[0], o->program_xyz[1], o->program_xyz[2]);
    argv[n++] = "--program";
    argv[n++] = program;
  }
  for (int b = 0; b < o->nbindings; b++) {
    const run_binding *bd = &o->bindings[b];
    if (bd->is_constexpr || bd->tuple) continue; /* a tuple goes as its elements, NAME_I=... */
    if (asprintf(&owned[nowned], "%s=%s", bd->name, bd->text) < 0) owned[nowned] = NULL;
    if (owned[nowned]) argv[n++] = owned[nowned++];
  }
  for (int i = 0; i < o->nouts; i++) {
    if (asprintf(&owned[nowned], "%s=%s", o->outs[i].name, o->outs[i].path) < 0) owned[nowned] = NULL;
    if (!owned[nowned]) continue;
    argv[n++] = "--out";
    argv[n++] = owned[nowned++];
  }
  argv[n] = NULL;
  fflush(stdout);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
  if (rc) {
    rc = run_fail("--exec: cannot run '%s': %s", argv[0], strerror(rc));
  } else {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(status)) rc = run_fail("--exec: '%s' was killed by signal %d", argv[0], WTERMSIG(status));
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
      /* tilec-exec prints its own error first; a command that prints nothing (`--exec false`)
       * must not fail silently */
      rc = run_fail("--exec: '%s' exited with status %d", argv[0], WEXITSTATUS(status));
  }
  for (size_t i = 0; i < nowned; i++) free(owned[i]);
  free(owned);
  free(argv);
  free(cmd);
  return rc;
}

/* --exec: the library goes to another program (often for another architecture, which this
 * process could not load), so it is built into a temporary directory, not through the JIT
 * cache, and removed after CMD ran. */
static int run_build_and_spawn(const run_opts *o, const tilec_kernel_spec *spec) {
  char dir[PATH_MAX], so[PATH_MAX + 16];
  int err = tilec_temp_dir("tilec-run", dir, sizeof dir);
  if (err) return run_fail("cannot create a temporary directory in $TMPDIR (else /tmp): %s", strerror(err));
  snprintf(so, sizeof so, "%s/kernel.so", dir);
  tilec_compile_options co;
  run_compile_options(o, false, &co);
  tilec_compiler *c = NULL;
  tilec_status *st = tilec_compiler_create(&co, &c);
  if (!st) st = tilec_compiler_build_library(c, spec, so, NULL);
  cli_print_compiler_output(c);
  tilec_compiler_destroy(c);
  if (!st && o->verbose) fprintf(stderr, "tilec: kernel '%s' compiled into %s for --exec\n", o->kernel, so);
  int rc = st ? run_report(st) : run_spawn(o, so);
  tilec_temp_dir_remove(dir);
  return rc;
}

/* Compiles (or finds in the cache), then launches here (or with --exec elsewhere) and
 * writes the outputs. */
static int run_compile_and_launch(const run_opts *o, const char *src, size_t len) {
  tilec_define *defs = calloc((size_t)o->nbindings + 1, sizeof *defs);
  if (!defs) return run_fail("out of memory");
  size_t ndefs = 0;
  for (int b = 0; b < o->nbindings; b++) {
    const run_binding *bd = &o->bindings[b];
    if (bd->parent >= 0) continue; /* a tuple's element: in the tuple's entry */
    defs[ndefs].name = bd->name;
    defs[ndefs++].value = bd->is_constexpr ? bd->text : bd->entry;
  }
  tilec_kernel_spec spec = {.source = src,
                            .source_len = len,
                            .filename = o->file,
                            .kernel = o->kernel,
                            .signature = NULL,
                            .defines = defs,
                            .num_defines = ndefs};
  if (o->exec) {
    int rc = run_build_and_spawn(o, &spec);
    free(defs);
    return rc;
  }
  if (o->flags.emit) { /* the IR of exactly what would run, for the bindings given */
    tilec_compile_options co;
    run_compile_options(o, false, &co);
    tilec_compiler *c = NULL;
    tilec_status *st = tilec_compiler_create(&co, &c);
    char *text = NULL;
    if (!st) st = tilec_compiler_emit(c, &spec, o->flags.stage, &text);
    if (!st) fputs(text, stdout);
    free(text);
    tilec_compiler_destroy(c);
    free(defs);
    return st ? run_report(st) : 0;
  }

  tilec_compile_options co;
  run_compile_options(o, false, &co);
  tilec_jit_kernel *jk = NULL;
  int rc = run_jit(o, &co, &spec, "kernel", &jk);
  const tilec_kernel_desc *k = rc ? NULL : tilec_jit_kernel_desc(jk);

  run_arg *slots = NULL;
  void **args = NULL;
  int64_t *extents = NULL;
  if (!rc) rc = run_prepare_args(o, k, &slots, &args, &extents);
  /* --reference: keep the inputs, run the optimized build, then the plain reference
   * build on the kept inputs, and compare every array. */
  void **kept = NULL;
  if (!rc && o->reference) {
    kept = calloc((size_t)o->nbindings + 1, sizeof *kept);
    if (!kept) rc = run_fail("out of memory");
    for (int b = 0; !rc && b < o->nbindings; b++) {
      run_binding *bd = &o->bindings[b];
      if (bd->value.kind != RUN_VALUE_NPY) continue;
      kept[b] = malloc(bd->arr.nbytes ? bd->arr.nbytes : 1);
      if (!kept[b]) rc = run_fail("out of memory");
      else memcpy(kept[b], bd->arr.data, bd->arr.nbytes);
    }
  }
  /* a --target nvptx library has no CPU program: its grid goes to the GPU (run_gpu.c) */
  if (!rc) rc = k->program ? run_launch(o, k, args, extents) : run_gpu_launch(o, k, args);
  if (!rc && o->reference) rc = run_reference(o, &spec, kept);
  if (kept)
    for (int b = 0; b < o->nbindings; b++) free(kept[b]);
  free(kept);
  free(extents);
  if (!rc) rc = run_write_outs(o);
  free(slots);
  free(args);
  tilec_jit_kernel_release(jk);
  free(defs);
  return rc;
}

int tilec_cmd_run(int argc, char **argv) {
  run_opts o;
  memset(&o, 0, sizeof o);
  int rc = run_parse_args(argc, argv, 2, &o);
  if (!rc && o.reference && o.repeat)
    rc = run_usage("--reference compares one launch: it cannot be combined with --repeat%s", "");
  if (!rc && o.reference && o.exec)
    rc = run_usage("--reference builds and runs a second library in this process: it cannot be combined with --exec%s",
                   "");
  char *src = NULL;
  size_t len = 0;
  tilec_source_param *params = NULL;
  int nparams = 0;
  if (!rc) rc = run_read_source(o.file, &src, &len);
  if (!rc) rc = run_inspect(&o, src, len, &params, &nparams);
  if (!rc) rc = run_bind(&o, params, nparams);
  if (!rc) rc = run_compile_and_launch(&o, src, len);
  free(params);
  free(src);
  run_opts_free(&o);
  return rc;
}
#endif /* !TILEC_RUN_EXEC_ONLY */

/* `tilec-exec LIB.so -k KERNEL --grid X[,Y[,Z]] NAME=VALUE... [--out NAME=FILE.npy]...`:
 * the launch half of `tilec run` for a library built elsewhere (`tilec run --exec`); the
 * bindings are matched against the library's own parameter list. */
int tilec_cmd_exec(int argc, char **argv) {
  run_opts o;
  memset(&o, 0, sizeof o);
  int rc = run_parse_args(argc, argv, 1, &o);
  if (!rc && (o.flags.given || o.exec || o.reference || o.no_cache || o.verbose))
    rc = run_usage("%s: compile options belong to `tilec run`; give the library as it was built", argv[0]);
  for (int b = 0; !rc && b < o.nbindings; b++) {
    run_binding *bd = &o.bindings[b];
    if (!run_classify(bd->text, &bd->value))
      rc = run_fail("value '%s' of parameter '%s' does not fit in 64 bits", bd->text, bd->name);
    else if (bd->value.kind == RUN_VALUE_STRING)
      rc = run_fail("parameter '%s': '%s' must be a number, True/False or a .npy file", bd->name, bd->text);
    else if (bd->value.kind == RUN_VALUE_NPY) rc = run_load_array(bd);
  }
  if (!rc) rc = run_resolve_outs(&o);
  tilec_library *lib = NULL;
  const tilec_kernel_desc *k = NULL;
  if (!rc) {
    tilec_status *st = tilec_library_load(o.file, &lib);
    if (!st) st = tilec_library_find_kernel(lib, o.kernel, &k);
    if (st) rc = run_report(st);
  }
  run_arg *slots = NULL;
  void **args = NULL;
  int64_t *extents = NULL;
  if (!rc) rc = run_prepare_args(&o, k, &slots, &args, &extents);
  /* a --target nvptx library (no CPU program) goes to the GPU, as in `tilec run`: what the
   * GPU pack of scripts/gpu_check.sh runs on a machine without the compiler */
  if (!rc) rc = k->program ? run_launch(&o, k, args, extents) : run_gpu_launch(&o, k, args);
  if (!rc) rc = run_write_outs(&o);
  free(slots);
  free(args);
  free(extents);
  tilec_library_unload(lib);
  run_opts_free(&o);
  return rc;
}
