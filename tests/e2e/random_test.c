/* tests/e2e/random_test.c — end-to-end test of the prelude's tl.rand, randint, randn, their 4x
 * forms and tl.philox: a C Philox reference, checked against Random123's known-answer vectors,
 * must match kernels/random.py bit for bit (randn within 1e-5: libm and SLEEF differ). */
#include "tilec/runtime.h"
#include "tilec/tilec.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 1000
#define BLOCK 128
#define GRID ((N + BLOCK - 1) / BLOCK)
/* Elements past N in every output: a store that ignores its mask lands here and is caught. */
#define GUARD 64
#define SENTINEL 0xA5
#define MAX_OUT 5

/* ---- reference Philox ------------------------------------------------------------------
 * Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3" (SC'11), and
 * Random123's philox.h: each round multiplies c0 by M0 and c2 by M1 (full-width products),
 * then (c0, c1, c2, c3) <- (hi(M1*c2) ^ c1 ^ k0, lo(M1*c2), hi(M0*c0) ^ c3 ^ k1, lo(M0*c0));
 * the key is bumped by the Weyl constants W0, W1 between rounds. Triton calls M0/M1
 * PHILOX_ROUND_A/B and W0/W1 PHILOX_KEY_A/B (triton/language/random.py). */

static void philox4x32(uint32_t c[4], uint32_t k0, uint32_t k1, int rounds) {
  for (int r = 0; r < rounds; r++) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
    c[1] = (uint32_t)p1;
    c[3] = (uint32_t)p0;
    c[0] = n0;
    c[2] = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

static void philox4x64(uint64_t c[4], uint64_t k0, uint64_t k1, int rounds) {
  for (int r = 0; r < rounds; r++) {
    unsigned __int128 p0 = (unsigned __int128)0xD2E7470EE14C6C93ull * c[0];
    unsigned __int128 p1 = (unsigned __int128)0xCA5A826395121157ull * c[2];
    uint64_t n0 = (uint64_t)(p1 >> 64) ^ c[1] ^ k0, n2 = (uint64_t)(p0 >> 64) ^ c[3] ^ k1;
    c[1] = (uint64_t)p1;
    c[3] = (uint64_t)p0;
    c[0] = n0;
    c[2] = n2;
    k0 += 0x9E3779B97F4A7C15ull;
    k1 += 0xBB67AE8584CAA73Bull;
  }
}

/* Random123 kat_vectors (philox4x32 10 / philox4x64 10): zeros, all-ones, and digits of pi.
 * If the reference disagreed with all of these its round function would be wrong. */
static int check_known_answers(void) {
  static const struct {
    uint32_t ctr[4], key[2], out[4];
  } k32[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  static const struct {
    uint64_t ctr[4], key[2], out[4];
  } k64[] = {
      {{0, 0, 0, 0},
       {0, 0},
       {0x16554d9eca36314cull, 0xdb20fe9d672d0fdcull, 0xd7e772cee186176bull, 0x7e68b68aec7ba23bull}},
      {{~0ull, ~0ull, ~0ull, ~0ull},
       {~0ull, ~0ull},
       {0x87b092c3013fe90bull, 0x438c3c67be8d0224ull, 0x9cc7d7c69cd777b6ull, 0xa09caebf594f0ba0ull}},
      {{0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull},
       {0x452821e638d01377ull, 0xbe5466cf34e90c6cull},
       {0xa528f45403e61d95ull, 0x38c72dbd566e9788ull, 0xa5a1610e72fd18b5ull, 0x57bd43b5e52b7fe6ull}},
  };
  int failures = 0;
  for (size_t t = 0; t < sizeof k32 / sizeof k32[0]; t++) {
    uint32_t c[4];
    memcpy(c, k32[t].ctr, sizeof c);
    philox4x32(c, k32[t].key[0], k32[t].key[1], 10);
    bool ok = !memcmp(c, k32[t].out, sizeof c);
    printf("%s philox4x32-10 known answer %zu: %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 "\n",
           ok ? "ok  " : "FAIL", t, c[0], c[1], c[2], c[3]);
    failures += !ok;
  }
  for (size_t t = 0; t < sizeof k64 / sizeof k64[0]; t++) {
    uint64_t c[4];
    memcpy(c, k64[t].ctr, sizeof c);
    philox4x64(c, k64[t].key[0], k64[t].key[1], 10);
    bool ok = !memcmp(c, k64[t].out, sizeof c);
    printf("%s philox4x64-10 known answer %zu: %016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %016" PRIx64 "\n",
           ok ? "ok  " : "FAIL", t, c[0], c[1], c[2], c[3]);
    failures += !ok;
  }
  return failures;
}

/* ---- Triton's conventions on top of Philox (triton/language/random.py) ---------------- */

/* philox(): the seed is widened to uint64 as a signed value, low word k0, high word k1. */
static void seed_key(int64_t seed, uint32_t *k0, uint32_t *k1) {
  *k0 = (uint32_t)(uint64_t)seed;
  *k1 = (uint32_t)((uint64_t)seed >> 32);
}

/* randint4x(): counter = (low 32 bits of offset, high 32 bits of offset, 0, 0). */
static void randint4x_ref(int64_t seed, int64_t offset, int rounds, uint32_t out[4]) {
  uint32_t k0, k1;
  seed_key(seed, &k0, &k1);
  out[0] = (uint32_t)(uint64_t)offset;
  out[1] = (uint32_t)((uint64_t)offset >> 32);
  out[2] = out[3] = 0;
  philox4x32(out, k0, k1, rounds);
}

/* uint_to_uniform_float(): fold the signed view onto [0, MAX], multiply in fp32 by a scale
 * that Triton writes as a Python float (a double rounded once to fp32). */
static float uniform32(uint32_t x) {
  int32_t i = (int32_t)x;
  if (i < 0) i = -(i + 1);
  return (float)i * (float)4.6566127342e-10;
}

static float uniform64(uint64_t x) {
  int64_t i = (int64_t)x;
  if (i < 0) i = -(i + 1);
  return (float)i * (float)1.0842020432385337e-19;
}

/* pair_uniform_to_normal(): Box-Muller in fp32. */
static void normal_pair(float u1, float u2, float *n1, float *n2) {
  u1 = fmaxf((float)1.0e-7, u1);
  float th = (float)6.283185307179586 * u2;
  float r = sqrtf(-2.0f * logf(u1));
  *n1 = r * cosf(th);
  *n2 = r * sinf(th);
}

/* ---- harness ------------------------------------------------------------------------------ */

static tilec_compiler *g_cc;
static const char *g_src_path;
static char *g_src;
static size_t g_src_len;
static char g_tmpdir[4096];

/* Outputs of one launch; the expected values live next to what the kernel wrote. */
typedef struct outputs {
  int n;
  tilec_dtype type[MAX_OUT];
  void *got[MAX_OUT];
  void *want[MAX_OUT];
  size_t count[MAX_OUT]; /* meaningful elements (the rest up to count + GUARD stays sentinel) */
} outputs;

static void *sentinel_buf(size_t elems, tilec_dtype t) {
  size_t bytes = (elems + GUARD) * tilec_dtype_size(t);
  void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  memset(p, SENTINEL, bytes);
  return p;
}

static void add_out(outputs *o, tilec_dtype t, size_t count) {
  o->type[o->n] = t;
  o->count[o->n] = count;
  o->got[o->n] = sentinel_buf(count, t);
  o->want[o->n] = sentinel_buf(count, t);
  o->n++;
}

static void free_outs(outputs *o) {
  for (int i = 0; i < o->n; i++) {
    free(o->got[i]);
    free(o->want[i]);
  }
}

/* Compiled kernels, kept loaded so every seed of the same width reuses one library. */
#define MAX_LIBS 64
static struct {
  char key[320];
  char so[4200];
  tilec_library *lib;
  const tilec_kernel_desc *desc;
} g_cache[MAX_LIBS];
static int g_ncache;

static const tilec_kernel_desc *get_kernel(const char *kernel, const char *sig, const char *label) {
  char key[320];
  snprintf(key, sizeof key, "%s|%s", kernel, sig);
  for (int i = 0; i < g_ncache; i++)
    if (!strcmp(g_cache[i].key, key)) return g_cache[i].desc;
  if (g_ncache == MAX_LIBS) {
    printf("FAIL %s: more than %d kernel variants\n", label, MAX_LIBS);
    return NULL;
  }
  char so[4200];
  snprintf(so, sizeof so, "%s/%s_%d.so", g_tmpdir, kernel, g_ncache);
  tilec_kernel_spec spec = {.source = g_src,
                            .source_len = g_src_len,
                            .filename = g_src_path,
                            .kernel = kernel,
                            .signature = sig,
                            .defines = NULL,
                            .num_defines = 0};
  tilec_library *lib = NULL;
  const tilec_kernel_desc *d = NULL;
  tilec_status *st = tilec_compiler_build_library(g_cc, &spec, so, NULL);
  if (!st) st = tilec_library_load(so, &lib);
  if (!st) st = tilec_library_find_kernel(lib, kernel, &d);
  if (st) {
    printf("FAIL %s: compile/load with signature \"%s\": %s\n", label, sig, tilec_status_format(st));
    tilec_status_destroy(st);
    tilec_library_unload(lib);
    unlink(so);
    return NULL;
  }
  snprintf(g_cache[g_ncache].key, sizeof g_cache[g_ncache].key, "%s", key);
  snprintf(g_cache[g_ncache].so, sizeof g_cache[g_ncache].so, "%s", so);
  g_cache[g_ncache].lib = lib;
  g_cache[g_ncache].desc = d;
  g_ncache++;
  return d;
}

static void unload_all(void) {
  for (int i = 0; i < g_ncache; i++) {
    tilec_library_unload(g_cache[i].lib);
    unlink(g_cache[i].so);
  }
  g_ncache = 0;
}

/* Launches `kernel` (compiled for `sig`) on `grid` programs with `args`; false (and a FAIL
 * line) if compiling or launching fails. */
static bool run_kernel(const char *kernel, const char *sig, void **args, uint32_t grid, const char *label) {
  const tilec_kernel_desc *d = get_kernel(kernel, sig, label);
  if (!d) return false;
  tilec_status *st = tilec_kernel_launch(d, grid, 1, 1, args, NULL);
  if (st) {
    printf("FAIL %s: launch: %s\n", label, tilec_status_format(st));
    tilec_status_destroy(st);
    return false;
  }
  return true;
}

static double as_double(tilec_dtype t, const void *p, size_t i) {
  switch (t) {
    case TILEC_DTYPE_F32: return ((const float *)p)[i];
    case TILEC_DTYPE_U32: return ((const uint32_t *)p)[i];
    case TILEC_DTYPE_U64: return (double)((const uint64_t *)p)[i];
    default: return 0;
  }
}

static void show(char *buf, size_t n, tilec_dtype t, const void *p, size_t i) {
  if (t == TILEC_DTYPE_F32) {
    uint32_t b;
    memcpy(&b, (const float *)p + i, 4);
    snprintf(buf, n, "%.9g (0x%08" PRIx32 ")", as_double(t, p, i), b);
  } else if (t == TILEC_DTYPE_U32) {
    snprintf(buf, n, "0x%08" PRIx32, ((const uint32_t *)p)[i]);
  } else {
    snprintf(buf, n, "0x%016" PRIx64, ((const uint64_t *)p)[i]);
  }
}

/* Bit-exact unless `tol` > 0 (float outputs then agree within tol * max(1, |want|)). Past the
 * meaningful elements both buffers still hold the sentinel. */
static bool compare(const outputs *o, double tol, const char *label) {
  bool all = true;
  for (int b = 0; b < o->n; b++) {
    tilec_dtype t = o->type[b];
    size_t es = tilec_dtype_size(t), exact = 0;
    double worst = 0;
    for (size_t i = 0; i < o->count[b] + GUARD; i++) {
      const unsigned char *g = (const unsigned char *)o->got[b] + i * es;
      const unsigned char *w = (const unsigned char *)o->want[b] + i * es;
      bool same = !memcmp(g, w, es);
      exact += same && i < o->count[b];
      if (!same && tol > 0 && t == TILEC_DTYPE_F32 && i < o->count[b]) {
        double x = as_double(t, o->got[b], i), y = as_double(t, o->want[b], i);
        double err = fabs(x - y) / fmax(1.0, fabs(y));
        if (err > worst) worst = err;
        same = err <= tol;
      }
      if (!same) {
        char gs[64], ws[64];
        show(gs, sizeof gs, t, o->got[b], i);
        show(ws, sizeof ws, t, o->want[b], i);
        printf("FAIL %s: output %d [%zu]%s: got %s, expected %s\n", label, b, i,
               i >= o->count[b] ? " (past N: a masked-off store wrote)" : "", gs, ws);
        all = false;
        break;
      }
    }
    if (tol > 0 && all)
      printf("     %s: output %d: %zu/%zu bit-exact, worst relative error %.3g\n", label, b, exact, o->count[b], worst);
  }
  if (all) printf("ok   %s\n", label);
  return all;
}

/* ---- the cases --------------------------------------------------------------------------- */

typedef struct seed_case {
  int64_t seed;
  bool wide; /* passed as i64 (Triton's type for integer arguments outside int32) */
} seed_case;

static const seed_case seeds[] = {
    {42, false}, {-7, false}, /* sign-extended by Triton: k1 = 0xffffffff */
    {0, false},  {3000000000ll, true}, {0x1234567890ABCDEFll, true}, {-0x0123456789ABCDEFll, true},
};

/* One seed argument of the right width for the signature. */
typedef struct seed_arg {
  int32_t s32;
  int64_t s64;
} seed_arg;

static void *seed_ptr(seed_arg *a, const seed_case *s) {
  a->s32 = (int32_t)s->seed;
  a->s64 = s->seed;
  return s->wide ? (void *)&a->s64 : (void *)&a->s32;
}

static const char *seed_ty(const seed_case *s) { return s->wide ? "i64" : "i32"; }

static int test_seed(const seed_case *s) {
  int failures = 0;
  char sig[256], label[256];
  seed_arg sa;
  int32_t n = N;
  const char *sty = seed_ty(s);

  /* rand / randint / randn: one output. */
  static const struct {
    const char *kernel, *ptr;
    tilec_dtype t;
  } one[] = {
      {"rand_kernel", "*fp32:16", TILEC_DTYPE_F32},
      {"randint_kernel", "*u32:16", TILEC_DTYPE_U32},
      {"randn_kernel", "*fp32:16", TILEC_DTYPE_F32},
  };
  for (size_t k = 0; k < sizeof one / sizeof one[0]; k++) {
    outputs o = {0};
    add_out(&o, one[k].t, N);
    for (int64_t i = 0; i < N; i++) {
      uint32_t r[4];
      randint4x_ref(s->seed, i, 10, r);
      if (k == 0) ((float *)o.want[0])[i] = uniform32(r[0]);
      if (k == 1) ((uint32_t *)o.want[0])[i] = r[0];
      if (k == 2) {
        float n1, n2;
        normal_pair(uniform32(r[0]), uniform32(r[1]), &n1, &n2);
        ((float *)o.want[0])[i] = n1;
      }
    }
    snprintf(sig, sizeof sig, "%s, %s, i32, %d", one[k].ptr, sty, BLOCK);
    snprintf(label, sizeof label, "%s seed=%" PRId64 " (%s)", one[k].kernel, s->seed, sty);
    void *args[] = {&o.got[0], seed_ptr(&sa, s), &n};
    if (!run_kernel(one[k].kernel, sig, args, GRID, label) || !compare(&o, k == 2 ? 1e-5 : 0, label)) failures++;
    free_outs(&o);
  }

  /* randint4x / rand4x / randn4x: four outputs. */
  static const struct {
    const char *kernel, *ptr;
    tilec_dtype t;
    int kind;
  } four[] = {
      {"randint4x_kernel", "*u32:16", TILEC_DTYPE_U32, 0},
      {"rand4x_kernel", "*fp32:16", TILEC_DTYPE_F32, 1},
      {"randn4x_kernel", "*fp32:16", TILEC_DTYPE_F32, 2},
  };
  for (size_t k = 0; k < sizeof four / sizeof four[0]; k++) {
    outputs o = {0};
    for (int b = 0; b < 4; b++) add_out(&o, four[k].t, N);
    for (int64_t i = 0; i < N; i++) {
      uint32_t r[4];
      float u[4], nv[4];
      randint4x_ref(s->seed, i, 10, r);
      for (int b = 0; b < 4; b++) u[b] = uniform32(r[b]);
      normal_pair(u[0], u[1], &nv[0], &nv[1]);
      normal_pair(u[2], u[3], &nv[2], &nv[3]);
      for (int b = 0; b < 4; b++) {
        if (four[k].kind == 0) ((uint32_t *)o.want[b])[i] = r[b];
        if (four[k].kind == 1) ((float *)o.want[b])[i] = u[b];
        if (four[k].kind == 2) ((float *)o.want[b])[i] = nv[b];
      }
    }
    const char *p = four[k].ptr;
    snprintf(sig, sizeof sig, "%s, %s, %s, %s, %s, i32, %d", p, p, p, p, sty, BLOCK);
    snprintf(label, sizeof label, "%s seed=%" PRId64 " (%s)", four[k].kernel, s->seed, sty);
    void *args[] = {&o.got[0], &o.got[1], &o.got[2], &o.got[3], seed_ptr(&sa, s), &n};
    if (!run_kernel(four[k].kernel, sig, args, GRID, label) || !compare(&o, four[k].kind == 2 ? 1e-5 : 0, label))
      failures++;
    free_outs(&o);
  }

  /* n_rounds = 7 by keyword, and a scalar offset per program. */
  {
    outputs o = {0};
    add_out(&o, TILEC_DTYPE_U32, N);
    add_out(&o, TILEC_DTYPE_U32, GRID);
    uint32_t r[4];
    for (int64_t i = 0; i < N; i++) {
      randint4x_ref(s->seed, i, 7, r);
      ((uint32_t *)o.want[0])[i] = r[0];
    }
    for (int64_t p = 0; p < GRID; p++) {
      randint4x_ref(s->seed, p + 1000000, 10, r);
      ((uint32_t *)o.want[1])[p] = r[0];
    }
    snprintf(sig, sizeof sig, "*u32:16, *u32:16, %s, i32, %d", sty, BLOCK);
    snprintf(label, sizeof label, "rounds_kernel seed=%" PRId64 " (%s)", s->seed, sty);
    void *args[] = {&o.got[0], &o.got[1], seed_ptr(&sa, s), &n};
    if (!run_kernel("rounds_kernel", sig, args, GRID, label) || !compare(&o, 0, label)) failures++;
    free_outs(&o);
  }

  /* tl.philox with four independent 32-bit counters and 6 rounds. */
  {
    outputs o = {0};
    for (int b = 0; b < 4; b++) add_out(&o, TILEC_DTYPE_U32, N);
    uint32_t k0, k1;
    seed_key(s->seed, &k0, &k1);
    for (int32_t i = 0; i < N; i++) {
      uint32_t c[4] = {(uint32_t)i, (uint32_t)(i * 7919), (uint32_t)(i ^ 0x5A5A), (uint32_t)(N - i)};
      philox4x32(c, k0, k1, 6);
      for (int b = 0; b < 4; b++) ((uint32_t *)o.want[b])[i] = c[b];
    }
    snprintf(sig, sizeof sig, "*u32:16, *u32:16, *u32:16, *u32:16, %s, i32, %d", sty, BLOCK);
    snprintf(label, sizeof label, "philox_kernel seed=%" PRId64 " (%s)", s->seed, sty);
    void *args[] = {&o.got[0], &o.got[1], &o.got[2], &o.got[3], seed_ptr(&sa, s), &n};
    if (!run_kernel("philox_kernel", sig, args, GRID, label) || !compare(&o, 0, label)) failures++;
    free_outs(&o);
  }

  /* 64-bit offsets (split into two counter words) and 64-bit counters (Philox4x64). */
  static const int64_t bases[] = {0x00000003FFFFFF00ll, -5000000000ll};
  for (size_t bi = 0; bi < sizeof bases / sizeof bases[0]; bi++) {
    int64_t base = bases[bi];
    {
      outputs o = {0};
      add_out(&o, TILEC_DTYPE_U32, N);
      add_out(&o, TILEC_DTYPE_U32, N);
      add_out(&o, TILEC_DTYPE_F32, N);
      for (int64_t i = 0; i < N; i++) {
        uint32_t r[4];
        randint4x_ref(s->seed, (int64_t)((uint64_t)base + (uint64_t)i * 4294967311ull), 10, r);
        ((uint32_t *)o.want[0])[i] = r[0];
        ((uint32_t *)o.want[1])[i] = r[1];
        ((float *)o.want[2])[i] = uniform32(r[0]);
      }
      snprintf(sig, sizeof sig, "*u32:16, *u32:16, *fp32:16, %s, i64, i32, %d", sty, BLOCK);
      snprintf(label, sizeof label, "randint64_kernel seed=%" PRId64 " (%s) base=%" PRId64, s->seed, sty, base);
      void *args[] = {&o.got[0], &o.got[1], &o.got[2], seed_ptr(&sa, s), &base, &n};
      if (!run_kernel("randint64_kernel", sig, args, GRID, label) || !compare(&o, 0, label)) failures++;
      free_outs(&o);
    }
    {
      outputs o = {0};
      for (int b = 0; b < 4; b++) add_out(&o, TILEC_DTYPE_U64, N);
      add_out(&o, TILEC_DTYPE_F32, N);
      for (int64_t i = 0; i < N; i++) {
        uint64_t c0 = (uint64_t)base + (uint64_t)i;
        uint64_t c[4] = {c0, c0 * 3, c0 ^ 0x7777, (uint64_t)base - c0};
        philox4x64(c, (uint64_t)s->seed, 0, 10);
        for (int b = 0; b < 4; b++) ((uint64_t *)o.want[b])[i] = c[b];
        ((float *)o.want[4])[i] = uniform64(c[0]);
      }
      snprintf(sig, sizeof sig, "*u64:16, *u64:16, *u64:16, *u64:16, *fp32:16, %s, i64, i32, %d", sty, BLOCK);
      snprintf(label, sizeof label, "philox64_kernel seed=%" PRId64 " (%s) base=%" PRId64, s->seed, sty, base);
      void *args[] = {&o.got[0], &o.got[1], &o.got[2], &o.got[3], &o.got[4], seed_ptr(&sa, s), &base, &n};
      if (!run_kernel("philox64_kernel", sig, args, GRID, label) || !compare(&o, 0, label)) failures++;
      free_outs(&o);
    }
  }
  return failures;
}

/* Seeds known at compile time, and uint_to_uniform_float at the ends of the int32 / int64
 * ranges (Triton's test_rand_limits: INT_MIN and INT_MAX both land in [1 - eps, 1)). */
static int test_extras(void) {
  int failures = 0;
  char sig[256], label[256];
  int32_t n = N;
  static const int64_t const_seeds[] = {4294967295ll, 67884135610ll, -7};
  for (size_t k = 0; k < sizeof const_seeds / sizeof const_seeds[0]; k++) {
    outputs o = {0};
    add_out(&o, TILEC_DTYPE_U32, N);
    for (int64_t i = 0; i < N; i++) {
      uint32_t r[4];
      randint4x_ref(const_seeds[k], i, 10, r);
      ((uint32_t *)o.want[0])[i] = r[0];
    }
    snprintf(sig, sizeof sig, "*u32:16, i32, %" PRId64 ", %d", const_seeds[k], BLOCK);
    snprintf(label, sizeof label, "const_seed_kernel SEED=%" PRId64, const_seeds[k]);
    void *args[] = {&o.got[0], &n};
    if (!run_kernel("const_seed_kernel", sig, args, GRID, label) || !compare(&o, 0, label)) failures++;
    free_outs(&o);
  }

  enum { L = 8 };
  static const int32_t in32[L] = {INT32_MIN, INT32_MAX, 0, -1, 1, -2, 0x40000000, INT32_MIN + 1};
  static const int64_t in64[L] = {INT64_MIN, INT64_MAX, 0, -1, 1, -2, INT64_C(0x4000000000000000), INT64_MIN + 1};
  outputs o = {0};
  add_out(&o, TILEC_DTYPE_F32, L);
  add_out(&o, TILEC_DTYPE_F32, L);
  for (int i = 0; i < L; i++) {
    ((float *)o.want[0])[i] = uniform32((uint32_t)in32[i]);
    ((float *)o.want[1])[i] = uniform64((uint64_t)in64[i]);
  }
  for (int b = 0; b < 2; b++) {
    float lo = ((float *)o.want[b])[0], hi = ((float *)o.want[b])[1];
    if (lo != hi || !(lo < 1.0f) || !(lo >= 1.0f - FLT_EPSILON)) {
      printf("FAIL reference uniform%d: INT_MIN -> %.9g, INT_MAX -> %.9g (want equal, in [1 - eps, 1))\n", b ? 64 : 32,
             (double)lo, (double)hi);
      failures++;
    }
  }
  void *in32p = (void *)in32, *in64p = (void *)in64;
  void *args[] = {&in32p, &in64p, &o.got[0], &o.got[1]};
  snprintf(sig, sizeof sig, "*i32, *i64, *fp32, *fp32, %d", L);
  if (!run_kernel("limits_kernel", sig, args, 1, "limits_kernel") || !compare(&o, 0, "limits_kernel")) failures++;
  free_outs(&o);
  return failures;
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

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s KERNEL_DIR\n", argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  int failures = check_known_answers();

  char path[4096];
  snprintf(path, sizeof path, "%s/random.py", argv[1]);
  g_src_path = path;
  g_src = read_text(path, &g_src_len);
  if (!g_src) {
    printf("FAIL: cannot read %s: %s\n", path, strerror(errno));
    return 1;
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(g_tmpdir, sizeof g_tmpdir, "%s/tilec-random-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(g_tmpdir)) {
    fprintf(stderr, "cannot create %s: %s\n", g_tmpdir, strerror(errno));
    return 1;
  }
  tilec_status *st = tilec_compiler_create(NULL, &g_cc);
  if (st) {
    printf("FAIL: creating the compiler: %s\n", tilec_status_format(st));
    tilec_status_destroy(st);
    rmdir(g_tmpdir);
    return 1;
  }
  for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) failures += test_seed(&seeds[i]);
  failures += test_extras();
  unload_all();
  tilec_compiler_destroy(g_cc);
  rmdir(g_tmpdir);
  free(g_src);
  printf("%s: %d failure%s\n", failures ? "FAILED" : "PASSED", failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}
