/* tests/e2e/run_elementwise.c — end-to-end tests of 1-D elementwise kernels: compiles each
 * kernel in tests/e2e/kernels once per BLOCK_SIZE with the compiler API, launches it through
 * the runtime for many sizes and grids, and compares every output with a plain C loop.
 * `--target T` compiles for another target (x86-64-v3 runs here too). The two halves
 * also run apart, for cross targets: `--build DIR --target T` only compiles the libraries
 * into DIR; `--run DIR` (the only mode of a build with TILEC_E2E_RUN_ONLY,
 * which needs nothing but the runtime) only loads and checks them, e.g. under qemu. */
#include "tilec/runtime.h"
#ifndef TILEC_E2E_RUN_ONLY
#include "tilec/tilec.h"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Elements past N in every buffer: a store that ignores its mask lands here and is caught. */
#define GUARD 80
#define SENTINEL 0xA5
#define MAX_BUFS 6
#define MAX_ARGS 12

/* ---- fp16 <-> fp32, round to nearest even (independent of the compiler under test) ---- */

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint16_t half_from_float(float f) {
  uint32_t x = f32_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0)); /* inf, quiet NaN */
  int e = (int)exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    /* Subnormal half (or zero): shift the full significand and round once. */
    if (e < -10) return sign;
    uint32_t m = man | 0x800000u;
    unsigned shift = (unsigned)(14 - e);
    uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
  /* A carry out of the significand correctly bumps the exponent (up to infinity). */
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return f32_from_bits(sign | 0x7f800000u | (man << 13));
  if (exp == 0) return (sign ? -1.0f : 1.0f) * ldexpf((float)man, -24);
  return f32_from_bits(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

/* ---- deterministic inputs --------------------------------------------------------------- */

static uint64_t mix(uint64_t i, uint64_t salt) {
  uint64_t z = i * 0x9e3779b97f4a7c15ull + salt * 0xbf58476d1ce4e5b9ull + 1;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Integer in [lo, hi]. */
static int64_t irand(size_t i, uint64_t salt, int64_t lo, int64_t hi) {
  return lo + (int64_t)(mix(i, salt) % (uint64_t)(hi - lo + 1));
}

/* Multiples of 1/64: products and sums of these stay exact in fp32, so a reference in C and
 * a kernel that contracts or reorders nothing must agree bit for bit. */
static float frand(size_t i, uint64_t salt, int64_t k) { return (float)irand(i, salt, -k, k) / 64.0f; }

/* ---- test cases -------------------------------------------------------------------------- */

typedef enum { ARG_BUF, ARG_N, ARG_I32, ARG_I64, ARG_F32 } arg_kind;

typedef struct arg_spec {
  arg_kind kind;
  const char *name; /* parameter name in the kernel, checked against the library metadata */
  int buf;          /* ARG_BUF: buffer index */
  int64_t i;        /* ARG_I32 / ARG_I64 value */
  float f;          /* ARG_F32 value */
} arg_spec;

typedef struct buf_spec {
  tilec_dtype dtype;
  bool output;
  int max_ulps; /* allowed distance for float outputs; integers compare exactly */
} buf_spec;

typedef struct case_data {
  size_t n;
  int block;
  uint32_t grid;
  void *data[MAX_BUFS];   /* what the kernel reads and writes */
  void *expect[MAX_BUFS]; /* outputs only: the reference result */
} case_data;

typedef struct family {
  const char *name;
  const char *file;
  const char *kernel;
  const char *signature; /* one %d: BLOCK_SIZE */
  int nbufs;
  buf_spec bufs[MAX_BUFS];
  int nargs;
  arg_spec args[MAX_ARGS];
  void (*init)(case_data *c);      /* fills the inputs in [0, n) */
  void (*reference)(case_data *c); /* writes the expected outputs in [0, n) */
  uint32_t (*grid)(size_t n, int block);
  bool huge;                /* also run N = 2^24 */
  const char *typed_launch; /* exported KERNEL_launch to call once, or NULL */
} family;

#define F32(c, b) ((float *)(c)->data[b])
#define I32(c, b) ((int32_t *)(c)->data[b])
#define E_F32(c, b) ((float *)(c)->expect[b])
#define E_I32(c, b) ((int32_t *)(c)->expect[b])

static uint32_t cdiv_grid(size_t n, int block) { return (uint32_t)((n + (size_t)block - 1) / (size_t)block); }

/* vector_add: x + y, with infinities, NaN, signed zero and subnormals sprinkled in. */
static float special(size_t i, uint64_t salt) {
  switch (mix(i, salt) % 97) {
    case 0: return INFINITY;
    case 1: return -INFINITY;
    case 2: return NAN;
    case 3: return -0.0f;
    case 4: return 1e-40f;
    default: return frand(i, salt + 1, 640000);
  }
}
static void add_init(case_data *c) {
  for (size_t i = 0; i < c->n; i++) {
    F32(c, 0)[i] = special(i, 11);
    F32(c, 1)[i] = special(i, 12);
  }
}
static void add_ref(case_data *c) {
  for (size_t i = 0; i < c->n; i++) E_F32(c, 2)[i] = F32(c, 0)[i] + F32(c, 1)[i];
}

/* float_ops */
static void fops_init(case_data *c) {
  for (size_t i = 0; i < c->n; i++) {
    F32(c, 0)[i] = frand(i, 21, 640);
    /* Ties make x > y, x >= y and x != y disagree, which is what `where` must see. */
    F32(c, 1)[i] = mix(i, 22) % 8 == 0 ? F32(c, 0)[i] : frand(i, 23, 640);
  }
}
static void fops_ref(case_data *c) {
  size_t half = c->n / 2;
  for (size_t i = 0; i < c->n; i++) {
    float x = F32(c, 0)[i], y = i < half ? F32(c, 1)[i] : -2.0f;
    float picked = x > y ? x - y : fabsf(x) * 0.5f;
    float out = picked + fminf(x, y) * fmaxf(x, 0.25f) - x / (fabsf(y) + 1.0f);
    E_F32(c, 2)[i] = -out + 3.0f;
    E_F32(c, 3)[i] = (x >= y ? 1.0f : -1.0f) + (x != y ? 0.0f : 10.0f);
  }
}

/* int_ops */
static void iops_init(case_data *c) {
  for (size_t i = 0; i < c->n; i++) {
    /* Many small values so both signs of dividend and divisor meet often. */
    I32(c, 0)[i] = (int32_t)(mix(i, 31) % 4 == 0 ? irand(i, 32, -9, 9) : irand(i, 33, -1000000, 1000000));
    int32_t b = (int32_t)irand(i, 34, -50, 50);
    I32(c, 1)[i] = b ? b : 7;
  }
}
static int32_t imin(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t imax(int32_t a, int32_t b) { return a > b ? a : b; }
static void iops_ref(case_data *c) {
  for (size_t i = 0; i < c->n; i++) {
    int32_t a = I32(c, 0)[i], b = I32(c, 1)[i];
    E_I32(c, 2)[i] = a / b;
    E_I32(c, 3)[i] = a % b;
    /* Shift through unsigned: left-shifting a negative int is undefined in C, not in LLVM. */
    E_I32(c, 4)[i] = (int32_t)((uint32_t)a << (b & 7)) + (a >> 3);
    int32_t w = ((a & b) | (~a ^ 0x5A5)) + a % 7 - a / -3;
    E_I32(c, 5)[i] = w + imin(a, b) - imax(a, -b);
  }
}

/* fp16_ops */
static void f16_init(case_data *c) {
  for (size_t i = 0; i < c->n; i++) {
    ((uint16_t *)c->data[0])[i] = half_from_float(frand(i, 41, 6400));
    ((uint16_t *)c->data[1])[i] = half_from_float(frand(i, 42, 6400));
  }
}
static void f16_ref(case_data *c) {
  const uint16_t *x = c->data[0], *y = c->data[1];
  for (size_t i = 0; i < c->n; i++) {
    float xf = half_to_float(x[i]), yf = half_to_float(y[i]);
    ((uint16_t *)c->expect[2])[i] = half_from_float(xf * 1.5f - yf);
    ((uint16_t *)c->expect[3])[i] = half_from_float(xf + yf);
    E_F32(c, 4)[i] = xf;
  }
}

/* casts */
static void cast_init(case_data *c) {
  for (size_t i = 0; i < c->n; i++) {
    F32(c, 0)[i] = mix(i, 51) % 10 == 0 ? 0.0f : frand(i, 52, 64000);
    /* Values near the int8 wrap points as well as wide ones. */
    I32(c, 1)[i] = (int32_t)(mix(i, 53) % 3 == 0 ? irand(i, 54, -300, 300) : irand(i, 55, -100000, 100000));
  }
}
static void cast_ref(case_data *c) {
  for (size_t i = 0; i < c->n; i++) {
    float x = F32(c, 0)[i];
    int32_t xi = I32(c, 1)[i];
    int8_t positive = x > 0;
    int8_t narrow = (int8_t)(uint8_t)(uint32_t)xi;
    ((int8_t *)c->expect[2])[i] = (int8_t)(uint8_t)(narrow + positive);
    E_F32(c, 3)[i] = (float)xi * 0.5f + (float)narrow + (float)positive;
    E_I32(c, 4)[i] = (int32_t)x + (xi < 0);
  }
}

/* programs: each program covers blocks pid and pid + num_programs. */
static uint32_t programs_grid(size_t n, int block) { return (cdiv_grid(n, block) + 1) / 2; }
static void programs_init(case_data *c) { (void)c; }
static void programs_ref(case_data *c) {
  size_t nblocks = (c->n + (size_t)c->block - 1) / (size_t)c->block;
  for (size_t i = 0; i < c->n; i++) {
    size_t blk = i / (size_t)c->block;
    if (blk >= 2 * (size_t)c->grid) continue; /* no program reaches it: stays sentinel */
    E_I32(c, 0)[i] = (int32_t)(blk < c->grid ? blk : blk - c->grid);
    E_I32(c, 1)[i] = (int32_t)((int64_t)c->grid * 100000 + (int64_t)nblocks);
  }
}

/* scalar_args */
#define SA_ALPHA 1.75f
#define SA_BETA (-0.3f)
#define SA_K ((INT64_C(1) << 40) + 5)
#define SA_S (-3)
static void sargs_init(case_data *c) {
  for (size_t i = 0; i < c->n; i++) {
    F32(c, 0)[i] = frand(i, 61, 640);
    I32(c, 1)[i] = (int32_t)irand(i, 62, -1000000, 1000000);
  }
}
static void sargs_ref(case_data *c) {
  for (size_t i = 0; i < c->n; i++) {
    E_F32(c, 2)[i] = F32(c, 0)[i] * SA_ALPHA + SA_BETA;
    ((int64_t *)c->expect[3])[i] = (int64_t)(I32(c, 1)[i] * SA_S) + SA_K;
  }
}

#define IN(t) {t, false, 0}
#define OUT(t, u) {t, true, u}
#define BUF(name, b) {ARG_BUF, name, b, 0, 0}
#define NARG {ARG_N, "n_elements", 0, 0, 0}

static const family families[] = {
    /* the kernel of examples/vector_add (one copy: the user-visible example is what is tested) */
    {"vector_add",
     "../../../examples/vector_add/add.py",
     "add_kernel",
     "*fp32:16, *fp32:16, *fp32:16, i32, %d",
     3,
     {IN(TILEC_DTYPE_F32), IN(TILEC_DTYPE_F32), OUT(TILEC_DTYPE_F32, 0)},
     4,
     {BUF("x_ptr", 0), BUF("y_ptr", 1), BUF("output_ptr", 2), NARG},
     add_init,
     add_ref,
     cdiv_grid,
     true,
     "add_kernel_launch"},
    {"float_ops",
     "float_ops.py",
     "float_ops_kernel",
     "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, %d",
     4,
     {IN(TILEC_DTYPE_F32), IN(TILEC_DTYPE_F32), OUT(TILEC_DTYPE_F32, 1), OUT(TILEC_DTYPE_F32, 0)},
     5,
     {BUF("x_ptr", 0), BUF("y_ptr", 1), BUF("out_ptr", 2), BUF("sel_ptr", 3), NARG},
     fops_init,
     fops_ref,
     cdiv_grid,
     false,
     NULL},
    {"int_ops",
     "int_ops.py",
     "int_ops_kernel",
     "*i32:16, *i32:16, *i32:16, *i32:16, *i32:16, *i32:16, i32, %d",
     6,
     {IN(TILEC_DTYPE_I32), IN(TILEC_DTYPE_I32), OUT(TILEC_DTYPE_I32, 0), OUT(TILEC_DTYPE_I32, 0),
      OUT(TILEC_DTYPE_I32, 0), OUT(TILEC_DTYPE_I32, 0)},
     7,
     {BUF("a_ptr", 0), BUF("b_ptr", 1), BUF("q_ptr", 2), BUF("r_ptr", 3), BUF("s_ptr", 4), BUF("w_ptr", 5), NARG},
     iops_init,
     iops_ref,
     cdiv_grid,
     false,
     NULL},
    {"fp16",
     "fp16_ops.py",
     "fp16_kernel",
     "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, i32, %d",
     5,
     {IN(TILEC_DTYPE_F16), IN(TILEC_DTYPE_F16), OUT(TILEC_DTYPE_F16, 0), OUT(TILEC_DTYPE_F16, 0),
      OUT(TILEC_DTYPE_F32, 0)},
     6,
     {BUF("x_ptr", 0), BUF("y_ptr", 1), BUF("out_ptr", 2), BUF("sum_ptr", 3), BUF("wide_ptr", 4), NARG},
     f16_init,
     f16_ref,
     cdiv_grid,
     false,
     NULL},
    {"casts",
     "casts.py",
     "cast_kernel",
     "*fp32:16, *i32:16, *i8:16, *fp32:16, *i32:16, i32, %d",
     5,
     {IN(TILEC_DTYPE_F32), IN(TILEC_DTYPE_I32), OUT(TILEC_DTYPE_I8, 0), OUT(TILEC_DTYPE_F32, 0),
      OUT(TILEC_DTYPE_I32, 0)},
     6,
     {BUF("x_ptr", 0), BUF("xi_ptr", 1), BUF("o8_ptr", 2), BUF("of_ptr", 3), BUF("oi_ptr", 4), NARG},
     cast_init,
     cast_ref,
     cdiv_grid,
     false,
     NULL},
    /* No :16 hints here: unaligned-looking pointers must work too. */
    {"programs",
     "programs.py",
     "programs_kernel",
     "*i32, *i32, i32, %d",
     2,
     {OUT(TILEC_DTYPE_I32, 0), OUT(TILEC_DTYPE_I32, 0)},
     3,
     {BUF("pid_ptr", 0), BUF("info_ptr", 1), NARG},
     programs_init,
     programs_ref,
     programs_grid,
     false,
     NULL},
    {"scalar_args",
     "scalar_args.py",
     "scalar_args_kernel",
     "*fp32:16, *i32:16, *fp32:16, *i64:16, i32, fp32, fp32, i64, i32, %d",
     4,
     {IN(TILEC_DTYPE_F32), IN(TILEC_DTYPE_I32), OUT(TILEC_DTYPE_F32, 1), OUT(TILEC_DTYPE_I64, 0)},
     9,
     {BUF("x_ptr", 0),
      BUF("xi_ptr", 1),
      BUF("out_ptr", 2),
      BUF("outl_ptr", 3),
      NARG,
      {ARG_F32, "alpha", 0, 0, SA_ALPHA},
      {ARG_F32, "beta", 0, 0, SA_BETA},
      {ARG_I64, "k", 0, SA_K, 0},
      {ARG_I32, "s", 0, SA_S, 0}},
     sargs_init,
     sargs_ref,
     cdiv_grid,
     false,
     NULL},
};

static const int blocks[] = {16, 128, 1024, 65536};
static const size_t sizes[] = {0, 1, 7, 1023, 1024, 1025, 98432};
#define HUGE_N ((size_t)1 << 24)

/* ---- comparing ----------------------------------------------------------------------------- */

/* Distance in representable values; NaN matches any NaN, +0 and -0 are equal. */
static uint64_t f32_ulps(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
  int64_t ia = (int32_t)f32_bits(a), ib = (int32_t)f32_bits(b);
  if (ia < 0) ia = INT32_MIN - ia;
  if (ib < 0) ib = INT32_MIN - ib;
  return (uint64_t)(ia > ib ? ia - ib : ib - ia);
}

static uint64_t f16_ulps(uint16_t a, uint16_t b) {
  bool na = (a & 0x7c00) == 0x7c00 && (a & 0x3ff), nb = (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
  if (na || nb) return na && nb ? 0 : UINT64_MAX;
  int32_t ia = a & 0x8000 ? -(int32_t)(a & 0x7fff) : (int32_t)a;
  int32_t ib = b & 0x8000 ? -(int32_t)(b & 0x7fff) : (int32_t)b;
  return (uint64_t)(ia > ib ? ia - ib : ib - ia);
}

static void show(char *buf, size_t n, tilec_dtype t, const void *p, size_t i) {
  switch (t) {
    case TILEC_DTYPE_F32: snprintf(buf, n, "%.9g", (double)((const float *)p)[i]); break;
    case TILEC_DTYPE_F16:
      snprintf(buf, n, "%.6g (0x%04x)", (double)half_to_float(((const uint16_t *)p)[i]), ((const uint16_t *)p)[i]);
      break;
    case TILEC_DTYPE_I8: snprintf(buf, n, "%d", ((const int8_t *)p)[i]); break;
    case TILEC_DTYPE_I32: snprintf(buf, n, "%" PRId32, ((const int32_t *)p)[i]); break;
    case TILEC_DTYPE_I64: snprintf(buf, n, "%" PRId64, ((const int64_t *)p)[i]); break;
    default: snprintf(buf, n, "?"); break;
  }
}

static const char *buf_name(const family *f, int b) {
  for (int a = 0; a < f->nargs; a++)
    if (f->args[a].kind == ARG_BUF && f->args[a].buf == b) return f->args[a].name;
  return "?";
}

/* Compares [0, n + GUARD): past n the expected value is the sentinel the buffer started with. */
static bool compare(const family *f, const case_data *c, int b, const char *label) {
  tilec_dtype t = f->bufs[b].dtype;
  size_t es = tilec_dtype_size(t), total = c->n + GUARD;
  const unsigned char *got = c->data[b], *exp = c->expect[b];
  for (size_t i = 0; i < total; i++) {
    bool same;
    if (t == TILEC_DTYPE_F32)
      same = f32_ulps(((const float *)got)[i], ((const float *)exp)[i]) <= (uint64_t)f->bufs[b].max_ulps;
    else if (t == TILEC_DTYPE_F16)
      same = f16_ulps(((const uint16_t *)got)[i], ((const uint16_t *)exp)[i]) <= (uint64_t)f->bufs[b].max_ulps;
    else same = memcmp(got + i * es, exp + i * es, es) == 0;
    if (!same) {
      char g[64], e[64];
      show(g, sizeof g, t, got, i);
      show(e, sizeof e, t, exp, i);
      printf("FAIL %s: %s[%zu]%s: got %s, expected %s\n", label, buf_name(f, b), i,
             i >= c->n ? " (past N: a masked-off store wrote)" : "", g, e);
      return false;
    }
  }
  return true;
}

/* ---- running -------------------------------------------------------------------------------- */

static bool alloc_case(const family *f, case_data *c, size_t n) {
  memset(c, 0, sizeof *c);
  c->n = n;
  for (int b = 0; b < f->nbufs; b++) {
    size_t bytes = (n + GUARD) * tilec_dtype_size(f->bufs[b].dtype);
    bytes = (bytes + 63) / 64 * 64;
    c->data[b] = aligned_alloc(64, bytes);
    if (f->bufs[b].output) c->expect[b] = aligned_alloc(64, bytes);
    if (!c->data[b] || (f->bufs[b].output && !c->expect[b])) return false;
    memset(c->data[b], SENTINEL, bytes);
    if (c->expect[b]) memset(c->expect[b], SENTINEL, bytes);
  }
  return true;
}

static void free_case(const family *f, case_data *c) {
  for (int b = 0; b < f->nbufs; b++) {
    free(c->data[b]);
    free(c->expect[b]);
  }
}

static void reset_outputs(const family *f, case_data *c) {
  for (int b = 0; b < f->nbufs; b++) {
    if (!f->bufs[b].output) continue;
    size_t bytes = (c->n + GUARD) * tilec_dtype_size(f->bufs[b].dtype);
    memset(c->data[b], SENTINEL, bytes);
    memset(c->expect[b], SENTINEL, bytes);
  }
}

/* The metadata must list the runtime parameters in the order the test passes them. */
static bool check_desc(const family *f, const tilec_kernel_desc *d) {
  if (d->num_args != (uint32_t)f->nargs) {
    printf("FAIL %s: library says %u runtime arguments, test passes %d\n", f->name, d->num_args, f->nargs);
    return false;
  }
  int a = 0;
  for (uint32_t p = 0; p < d->num_params; p++) {
    if (d->params[p].kind == TILEC_PARAM_CONSTEXPR) continue;
    if (a >= f->nargs || strcmp(d->params[p].name, f->args[a].name) != 0) {
      printf("FAIL %s: runtime parameter %d is '%s', test expects '%s'\n", f->name, a, d->params[p].name,
             a < f->nargs ? f->args[a].name : "(none)");
      return false;
    }
    a++;
  }
  return true;
}

static bool launch_and_check(const family *f, const tilec_kernel_desc *d, case_data *c, uint32_t grid) {
  char label[160];
  snprintf(label, sizeof label, "%s BLOCK_SIZE=%d N=%zu grid=%" PRIu32, f->name, c->block, c->n, grid);
  c->grid = grid;
  reset_outputs(f, c);
  int32_t n32 = (int32_t)c->n;
  int32_t i32v[MAX_ARGS];
  int64_t i64v[MAX_ARGS];
  float f32v[MAX_ARGS];
  void *args[MAX_ARGS];
  for (int a = 0; a < f->nargs; a++) {
    const arg_spec *s = &f->args[a];
    switch (s->kind) {
      case ARG_BUF: args[a] = &c->data[s->buf]; break;
      case ARG_N: args[a] = &n32; break;
      case ARG_I32:
        i32v[a] = (int32_t)s->i;
        args[a] = &i32v[a];
        break;
      case ARG_I64:
        i64v[a] = s->i;
        args[a] = &i64v[a];
        break;
      case ARG_F32:
        f32v[a] = s->f;
        args[a] = &f32v[a];
        break;
    }
  }
  tilec_status *st = tilec_kernel_launch(d, grid, 1, 1, args, NULL);
  if (st) {
    printf("FAIL %s: launch: %s\n", label, tilec_status_format(st));
    tilec_status_destroy(st);
    return false;
  }
  f->reference(c);
  for (int b = 0; b < f->nbufs; b++)
    if (f->bufs[b].output && !compare(f, c, b, label)) return false;
  printf("ok   %s\n", label);
  return true;
}

/* The typed entry point of the header (KERNEL_launch) must behave like the generic launch. */
static bool check_typed_launch(const family *f, const char *so_path, int block) {
  void *h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  typedef int (*add_launch_fn)(uint32_t, uint32_t, uint32_t, float *, float *, float *, int32_t);
  add_launch_fn fn = h ? (add_launch_fn)(uintptr_t)dlsym(h, f->typed_launch) : NULL;
  if (!fn) {
    printf("FAIL %s: %s not exported by %s\n", f->name, f->typed_launch, so_path);
    if (h) dlclose(h);
    return false;
  }
  case_data c;
  bool ok = alloc_case(f, &c, 1025);
  if (ok) {
    c.block = block;
    f->init(&c);
    c.grid = f->grid(c.n, block);
    int rc = fn(c.grid, 1, 1, F32(&c, 0), F32(&c, 1), F32(&c, 2), (int32_t)c.n);
    char label[160];
    snprintf(label, sizeof label, "%s BLOCK_SIZE=%d N=%zu via %s", f->name, block, c.n, f->typed_launch);
    if (rc != 0 || tilec_last_error()[0]) {
      printf("FAIL %s: returned %d: %s\n", label, rc, tilec_last_error());
      ok = false;
    } else {
      f->reference(&c);
      ok = compare(f, &c, 2, label);
      if (ok) printf("ok   %s\n", label);
    }
  }
  free_case(f, &c);
  dlclose(h);
  return ok;
}

static char *read_text(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  char *buf = NULL;
  long sz = fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
  if (sz >= 0 && fseek(fp, 0, SEEK_SET) == 0 && (buf = malloc((size_t)sz + 1)) != NULL) {
    *len = fread(buf, 1, (size_t)sz, fp);
    buf[*len] = 0;
  }
  fclose(fp);
  return buf;
}

typedef struct e2e_mode {
  const char *dir;    /* where the libraries go / come from */
  bool build, run;    /* compile them; load and check them */
  bool keep;          /* leave the libraries in dir */
  const char *target; /* compiler target name (NULL: host) */
#ifndef TILEC_E2E_RUN_ONLY
  tilec_compiler *cc;
#endif
} e2e_mode;

#ifndef TILEC_E2E_RUN_ONLY
static tilec_status *build_one(const family *f, const e2e_mode *m, const char *kernel_dir, const char *src, size_t len,
                               const char *sig, const char *so) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", kernel_dir, f->file);
  tilec_kernel_spec spec = {.source = src,
                            .source_len = len,
                            .filename = path,
                            .kernel = f->kernel,
                            .signature = sig,
                            .defines = NULL,
                            .num_defines = 0};
  return tilec_compiler_build_library(m->cc, &spec, so, NULL);
}
#endif

/* Launches one compiled library for every size (and surplus grids) and its typed entry. */
static int check_library(const family *f, const char *so, int block) {
  tilec_library *lib = NULL;
  const tilec_kernel_desc *d = NULL;
  tilec_status *st = tilec_library_load(so, &lib);
  if (!st) st = tilec_library_find_kernel(lib, f->kernel, &d);
  if (st) {
    printf("FAIL %s BLOCK_SIZE=%d: load %s: %s\n", f->name, block, so, tilec_status_format(st));
    tilec_status_destroy(st);
    tilec_library_unload(lib);
    return 1;
  }
  int failures = 0;
  if (!check_desc(f, d)) {
    failures++;
  } else {
    size_t nsizes = sizeof sizes / sizeof sizes[0];
    for (size_t si = 0; si < nsizes + (f->huge ? 1 : 0); si++) {
      size_t n = si < nsizes ? sizes[si] : HUGE_N;
      case_data c;
      if (!alloc_case(f, &c, n)) {
        printf("FAIL %s: out of memory for N=%zu\n", f->name, n);
        free_case(f, &c);
        failures++;
        continue;
      }
      c.block = block;
      f->init(&c);
      uint32_t grid = f->grid(n, block);
      if (!launch_and_check(f, d, &c, grid)) failures++;
      /* Surplus programs must find their masks all off (N = 0: every program does). */
      else if (n != HUGE_N && !launch_and_check(f, d, &c, grid + 3)) failures++;
      free_case(f, &c);
    }
    if (f->typed_launch && !check_typed_launch(f, so, block)) failures++;
  }
  tilec_library_unload(lib);
  return failures;
}

static int run_family(const family *f, const char *kernel_dir, const e2e_mode *m) {
  char *src = NULL;
  size_t len = 0;
  if (m->build) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", kernel_dir, f->file);
    src = read_text(path, &len);
    if (!src) {
      printf("FAIL %s: cannot read %s: %s\n", f->name, path, strerror(errno));
      return 1;
    }
  }
  int failures = 0;
  for (size_t bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++) {
    int block = blocks[bi];
    char sig[256], so[4200];
    snprintf(sig, sizeof sig, f->signature, block);
    snprintf(so, sizeof so, "%s/%s_%d.so", m->dir, f->name, block);
#ifndef TILEC_E2E_RUN_ONLY
    if (m->build) {
      tilec_status *st = build_one(f, m, kernel_dir, src, len, sig, so);
      if (st) {
        printf("FAIL %s BLOCK_SIZE=%d: compile with signature \"%s\": %s\n", f->name, block, sig,
               tilec_status_format(st));
        tilec_status_destroy(st);
        unlink(so);
        failures++;
        continue;
      }
      if (!m->run) printf("built %s\n", so);
    }
#endif
    if (m->run) failures += check_library(f, so, block);
    if (!m->keep) unlink(so);
  }
  free(src);
  return failures;
}

static int usage(const char *argv0) {
  const size_t nfam = sizeof families / sizeof families[0];
  fprintf(stderr, "usage: %s [--target T] [--build DIR | --run DIR] KERNEL_DIR FAMILY... | all\nfamilies:", argv0);
  for (size_t i = 0; i < nfam; i++) fprintf(stderr, " %s", families[i].name);
  fprintf(stderr, "\n");
  return 2;
}

int main(int argc, char **argv) {
  const size_t nfam = sizeof families / sizeof families[0];
  e2e_mode m = {.build = true, .run = true};
  int a = 1;
  for (; a < argc && !strncmp(argv[a], "--", 2); a += 2) {
    if (a + 1 >= argc) return usage(argv[0]);
    if (!strcmp(argv[a], "--build")) m.dir = argv[a + 1], m.run = false, m.keep = true;
    else if (!strcmp(argv[a], "--run")) m.dir = argv[a + 1], m.build = false, m.keep = true;
    else if (!strcmp(argv[a], "--target")) m.target = argv[a + 1];
    else return usage(argv[0]);
  }
#ifdef TILEC_E2E_RUN_ONLY
  if (m.build) {
    fprintf(stderr, "%s was built without the compiler: only --run DIR works\n", argv[0]);
    return 2;
  }
#endif
  if (argc - a < 2) return usage(argv[0]);
  setvbuf(stdout, NULL, _IOLBF, 0);
  char tmpdir[4096] = "";
  if (!m.dir) {
    const char *tmp = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/tilec-e2e-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpdir)) {
      fprintf(stderr, "cannot create %s: %s\n", tmpdir, strerror(errno));
      return 1;
    }
    m.dir = tmpdir;
  }
#ifndef TILEC_E2E_RUN_ONLY
  if (m.build) {
    tilec_compile_options co;
    tilec_compile_options_init(&co);
    co.target = m.target;
    tilec_status *st = tilec_compiler_create(&co, &m.cc);
    if (st) {
      printf("FAIL: creating the compiler: %s\n", tilec_status_format(st));
      tilec_status_destroy(st);
      if (tmpdir[0]) rmdir(tmpdir);
      return 1;
    }
  }
#endif
  int failures = 0;
  const char *kernel_dir = argv[a];
  for (a++; a < argc; a++) {
    bool all = strcmp(argv[a], "all") == 0, found = false;
    for (size_t i = 0; i < nfam; i++) {
      if (!all && strcmp(argv[a], families[i].name) != 0) continue;
      found = true;
      failures += run_family(&families[i], kernel_dir, &m);
    }
    if (!found) {
      printf("FAIL: unknown family '%s'\n", argv[a]);
      failures++;
    }
  }
#ifndef TILEC_E2E_RUN_ONLY
  tilec_compiler_destroy(m.cc);
#endif
  if (tmpdir[0]) rmdir(tmpdir);
  printf("%s: %d failure%s\n", failures ? "FAILED" : "PASSED", failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}
