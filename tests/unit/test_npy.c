/* tests/unit/test_npy.c — the .npy reader and writer.
 * In: arrays of every supported dtype, and hand-made byte files (valid and broken in one way
 * each). Out: a Check suite checking round trips, numpy's exact layout, exact error messages. */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/expect.h"
#include "tilec/runtime.h"
#include "tools/npy.h"

static char tmp_dir[PATH_MAX];

static void tmp_path(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", tmp_dir, name); }

static void write_bytes(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(data, 1, len, f), len);
  ck_assert_int_eq(fclose(f), 0);
}

static unsigned char *read_bytes(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  unsigned char *buf = malloc(1 << 16);
  ck_assert_ptr_nonnull(buf);
  *len = fread(buf, 1, 1 << 16, f);
  fclose(f);
  return buf;
}

/* A .npy file from its parts: version, header text (used verbatim, no padding added), a
 * header length to claim (SIZE_MAX: the real one) and the data bytes. */
static void make_npy(const char *path, int major, const char *header, size_t claimed_len, const void *data,
                     size_t data_len) {
  size_t hlen = strlen(header);
  if (claimed_len == SIZE_MAX) claimed_len = hlen;
  size_t pre = major == 1 ? 10 : 12;
  unsigned char *buf = malloc(pre + hlen + data_len + 1);
  ck_assert_ptr_nonnull(buf);
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (unsigned char)major;
  buf[7] = 0;
  for (size_t i = 0; i < pre - 8; i++) buf[8 + i] = (unsigned char)(claimed_len >> (8 * i));
  memcpy(buf + pre, header, hlen);
  if (data_len) memcpy(buf + pre + hlen, data, data_len);
  write_bytes(path, buf, pre + hlen + data_len);
  free(buf);
}

/* Reading `path` fails with exactly `fmt` (one %s: the path); out stays zeroed. */
static void expect_read_error(const char *path, tilec_status_code code, const char *fmt) {
  char msg[2 * PATH_MAX + 256];
  snprintf(msg, sizeof msg, fmt, path);
  tilec_npy a;
  memset(&a, 0x5a, sizeof a);
  expect_status(tilec_npy_read(path, &a), code, msg);
  ck_assert_ptr_null(a.data);
  ck_assert_int_eq(a.ndim, 0);
  ck_assert_uint_eq(a.count, 0);
}

/* A file with one broken header and `data_len` zero bytes of data. */
static void expect_header_error(const char *name, const char *header, size_t data_len, tilec_status_code code,
                                const char *fmt) {
  char path[PATH_MAX + 64];
  tmp_path(path, sizeof path, name);
  void *zeros = calloc(1, data_len + 1);
  make_npy(path, 1, header, SIZE_MAX, zeros, data_len);
  free(zeros);
  expect_read_error(path, code, fmt);
}

static const tilec_dtype npy_dtypes[] = {TILEC_DTYPE_I1,  TILEC_DTYPE_I8,  TILEC_DTYPE_I16, TILEC_DTYPE_I32,
                                         TILEC_DTYPE_I64, TILEC_DTYPE_U8,  TILEC_DTYPE_U16, TILEC_DTYPE_U32,
                                         TILEC_DTYPE_U64, TILEC_DTYPE_F16, TILEC_DTYPE_F32, TILEC_DTYPE_F64};

static void fill_array(tilec_npy *a, tilec_dtype t, int ndim, const int64_t *shape) {
  memset(a, 0, sizeof *a);
  a->dtype = t;
  a->ndim = ndim;
  a->count = 1;
  for (int d = 0; d < ndim; d++) {
    a->shape[d] = shape[d];
    a->count *= (size_t)shape[d];
  }
  a->nbytes = a->count * tilec_dtype_size(t);
  a->data = malloc(a->nbytes + 1);
  ck_assert_ptr_nonnull(a->data);
  unsigned char *b = a->data;
  for (size_t i = 0; i < a->nbytes; i++)
    b[i] = t == TILEC_DTYPE_I1 ? (unsigned char)(i % 3 == 0) : (unsigned char)(i * 37 + 11 + t);
}

static void round_trip(tilec_dtype t, int ndim, const int64_t *shape) {
  tilec_npy a, b;
  fill_array(&a, t, ndim, shape);
  char path[PATH_MAX + 64];
  tmp_path(path, sizeof path, "round_trip.npy");
  tilec_status *st = tilec_npy_write(path, &a);
  ck_assert_msg(st == NULL, "%s", tilec_status_message(st));
  st = tilec_npy_read(path, &b);
  ck_assert_msg(st == NULL, "%s", tilec_status_message(st));
  ck_assert_int_eq(b.dtype, t);
  ck_assert_int_eq(b.ndim, ndim);
  for (int d = 0; d < TILEC_NPY_MAX_DIMS; d++) ck_assert_int_eq(b.shape[d], d < ndim ? shape[d] : 0);
  ck_assert_uint_eq(b.count, a.count);
  ck_assert_uint_eq(b.nbytes, a.nbytes);
  ck_assert_ptr_nonnull(b.data);
  ck_assert_uint_eq((uintptr_t)b.data % 64, 0);
  if (a.nbytes) ck_assert_mem_eq(b.data, a.data, a.nbytes);
  free(a.data);
  tilec_npy_free(&b);
  ck_assert_ptr_null(b.data);
}

START_TEST(test_round_trip_every_dtype) {
  static const int64_t shape[] = {2, 3, 4};
  for (size_t i = 0; i < sizeof npy_dtypes / sizeof npy_dtypes[0]; i++) round_trip(npy_dtypes[i], 3, shape);
}
END_TEST

START_TEST(test_round_trip_shapes) {
  static const int64_t s0[1] = {0}, s1[] = {0}, s2[] = {7}, s3[] = {2, 0, 3}, s8[] = {1, 2, 1, 2, 1, 3, 1, 2},
                       s4[] = {1025, 3};
  for (size_t i = 0; i < sizeof npy_dtypes / sizeof npy_dtypes[0]; i++) {
    round_trip(npy_dtypes[i], 0, s0); /* 0-d: one element */
    round_trip(npy_dtypes[i], 1, s1); /* no elements */
    round_trip(npy_dtypes[i], 1, s2);
    round_trip(npy_dtypes[i], 3, s3);
    round_trip(npy_dtypes[i], 8, s8);
    round_trip(npy_dtypes[i], 2, s4);
  }
  tilec_npy a;
  char path[PATH_MAX + 64];
  tmp_path(path, sizeof path, "round_trip.npy");
  fill_array(&a, TILEC_DTYPE_F64, 0, s0);
  ck_assert_ptr_null(tilec_npy_write(path, &a));
  free(a.data);
  ck_assert_ptr_null(tilec_npy_read(path, &a));
  ck_assert_uint_eq(a.count, 1);
  ck_assert_uint_eq(a.nbytes, 8);
  tilec_npy_free(&a);
}
END_TEST

/* Byte-exact against what numpy.save writes (format 1.0, data at a multiple of 64). */
static void expect_layout(tilec_dtype t, int ndim, const int64_t *shape, const char *dict) {
  tilec_npy a;
  fill_array(&a, t, ndim, shape);
  char path[PATH_MAX + 64];
  tmp_path(path, sizeof path, "layout.npy");
  ck_assert_ptr_null(tilec_npy_write(path, &a));
  size_t len;
  unsigned char *file = read_bytes(path, &len);
  size_t total = (10 + strlen(dict) + 1 + 63) / 64 * 64;
  ck_assert_uint_eq(len, total + a.nbytes);
  ck_assert_mem_eq(file, "\x93NUMPY\x01\x00", 8);
  ck_assert_uint_eq(file[8] | file[9] << 8, total - 10);
  ck_assert_mem_eq(file + 10, dict, strlen(dict));
  for (size_t i = 10 + strlen(dict); i < total - 1; i++) ck_assert_int_eq(file[i], ' ');
  ck_assert_int_eq(file[total - 1], '\n');
  if (a.nbytes) ck_assert_mem_eq(file + total, a.data, a.nbytes);
  free(file);
  free(a.data);
}

START_TEST(test_numpy_layout) {
  static const int64_t s1[] = {3}, s2[] = {2, 3}, s3[] = {4, 5, 6};
  expect_layout(TILEC_DTYPE_F32, 1, s1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }");
  expect_layout(TILEC_DTYPE_I64, 2, s2, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }");
  expect_layout(TILEC_DTYPE_I1, 3, s3, "{'descr': '|b1', 'fortran_order': False, 'shape': (4, 5, 6), }");
  expect_layout(TILEC_DTYPE_U8, 0, s1, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }");
  expect_layout(TILEC_DTYPE_F16, 1, s1, "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }");
  expect_layout(TILEC_DTYPE_I8, 1, s1, "{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }");
}
END_TEST

/* Headers numpy (or older numpy, or another writer) may produce, all valid. */
START_TEST(test_read_handmade_variants) {
  static const struct {
    int major;
    const char *header;
    tilec_dtype dtype;
    int ndim;
    int64_t shape[3];
  } cases[] = {
      {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }          \n", TILEC_DTYPE_F32, 2, {2, 3}},
      {2, "{'descr': '<i4', 'fortran_order': False, 'shape': (6,), }\n", TILEC_DTYPE_I32, 1, {6}},
      {3, "{'descr': '<u2', 'fortran_order': False, 'shape': (1, 2, 3), }\n", TILEC_DTYPE_U16, 3, {1, 2, 3}},
      {1, "{'shape': (3L, 2L), 'fortran_order': False, 'descr': '<f8'}\n", TILEC_DTYPE_F64, 2, {3, 2}},
      {1, "{\"descr\": \"|b1\", \"fortran_order\": False, \"shape\": (6,)}", TILEC_DTYPE_I1, 1, {6}},
      {1, "{ 'descr' : '=i2' ,'fortran_order':False,'shape':( 6 , ) , }", TILEC_DTYPE_I16, 1, {6}},
      {1, "{'descr': '>u1', 'fortran_order': False, 'shape': (6,), 'extra': [1, (2, 3)]}", TILEC_DTYPE_U8, 1, {6}},
      {1, "{'descr': '=i1', 'fortran_order': False, 'shape': (6,)}", TILEC_DTYPE_I8, 1, {6}},
      {1, "{'descr': '<f4', 'fortran_order': True, 'shape': (6,), 'fortran_order': False}", TILEC_DTYPE_F32, 1, {6}},
  };
  unsigned char data[64];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 7 + 1);
  char path[PATH_MAX + 64];
  tmp_path(path, sizeof path, "variant.npy");
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    size_t count = 1;
    for (int d = 0; d < cases[c].ndim; d++) count *= (size_t)cases[c].shape[d];
    size_t nbytes = count * tilec_dtype_size(cases[c].dtype);
    make_npy(path, cases[c].major, cases[c].header, SIZE_MAX, data, nbytes);
    tilec_npy a;
    tilec_status *st = tilec_npy_read(path, &a);
    ck_assert_msg(st == NULL, "case %zu: %s", c, tilec_status_message(st));
    ck_assert_int_eq(a.dtype, cases[c].dtype);
    ck_assert_int_eq(a.ndim, cases[c].ndim);
    for (int d = 0; d < cases[c].ndim; d++) ck_assert_int_eq(a.shape[d], cases[c].shape[d]);
    ck_assert_uint_eq(a.count, count);
    ck_assert_mem_eq(a.data, data, nbytes);
    tilec_npy_free(&a);
  }
}
END_TEST

START_TEST(test_fortran_order) {
  expect_header_error("fortran.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", 24,
                      TILEC_ERROR_UNSUPPORTED,
                      "'%s' holds a Fortran-order array (fortran_order: True); only C order is "
                      "supported");
}
END_TEST

START_TEST(test_big_endian) {
  expect_header_error("big.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }\n", 8,
                      TILEC_ERROR_UNSUPPORTED,
                      "big-endian .npy dtype '>f4' in '%s' is not supported (save it as '<f4')");
  expect_header_error("big8.npy", "{'descr': '>i8', 'fortran_order': False, 'shape': (2,), }\n", 16,
                      TILEC_ERROR_UNSUPPORTED,
                      "big-endian .npy dtype '>i8' in '%s' is not supported (save it as '<i8')");
}
END_TEST

START_TEST(test_unsupported_dtypes) {
  static const struct {
    const char *descr;
    const char *shown;
  } cases[] = {
      {"'<c8'", "<c8"},
      {"'|O'", "|O"},
      {"'<U3'", "<U3"},
      {"'|S5'", "|S5"},
      {"'|f4'", "|f4"},
      {"'<f16'", "<f16"},
      {"'<V2'", "<V2"},
      {"'<M8[ns]'", "<M8[ns]"},
      {"''", ""},
      {"'<b2'", "<b2"},
      {"[('a', '<f4'), ('b', '<i4')]", "[('a', '<f4'), ('b', '<i4')]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char header[256], fmt[256];
    snprintf(header, sizeof header, "{'descr': %s, 'fortran_order': False, 'shape': (2,), }\n", cases[i].descr);
    snprintf(fmt, sizeof fmt, "unsupported .npy dtype '%s' in '%%s'", cases[i].shown);
    expect_header_error("dtype.npy", header, 64, TILEC_ERROR_UNSUPPORTED, fmt);
  }
}
END_TEST

START_TEST(test_bad_magic) {
  char path[PATH_MAX + 64];
  tmp_path(path, sizeof path, "magic.npy");
  write_bytes(path, "\x93NUMPX\x01\x00\x10\x00{}              ", 26);
  expect_read_error(path, TILEC_ERROR_INVALID_ARGUMENT, "'%s' is not a .npy file (bad magic bytes)");
  write_bytes(path, "PK\x03\x04 this is a zip (.npz), not .npy", 36);
  expect_read_error(path, TILEC_ERROR_INVALID_ARGUMENT, "'%s' is not a .npy file (bad magic bytes)");
  write_bytes(path, "", 0);
  expect_read_error(path, TILEC_ERROR_INVALID_ARGUMENT, "'%s' is not a .npy file (bad magic bytes)");
  write_bytes(path, "\x93NUMPY\x01\x00", 8);
  expect_read_error(path, TILEC_ERROR_INVALID_ARGUMENT, "truncated .npy preamble in '%s': expected 10 bytes, found 8");
  write_bytes(path, "\x93NUMPY\x02\x00\x10\x00\x00", 11);
  expect_read_error(path, TILEC_ERROR_INVALID_ARGUMENT, "truncated .npy preamble in '%s': expected 12 bytes, found 11");
  write_bytes(path, "\x93NUMPY\x04\x00\x10\x00\x00\x00", 12);
  expect_read_error(path, TILEC_ERROR_UNSUPPORTED,
                    "unsupported .npy format version 4.0 in '%s' (expected 1.0, 2.0 or 3.0)");
}
END_TEST

START_TEST(test_truncated_header) {
  char path[PATH_MAX + 64];
  tmp_path(path, sizeof path, "short_header.npy");
  make_npy(path, 1, "{'descr': '<f4', 'fortran_order': False, 'sh", 118, NULL, 0);
  expect_read_error(path, TILEC_ERROR_INVALID_ARGUMENT, "truncated .npy header in '%s': expected 118 bytes, found 44");
  /* A complete header that stops mid-dict. */
  expect_header_error("open_dict.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)", 0,
                      TILEC_ERROR_INVALID_ARGUMENT,
                      "malformed .npy header in '%s': expected ',' or '}' after a value at byte 54");
  /* A v2 header length no sane file has: refused before allocating it. */
  make_npy(path, 2, "{}", 0x7fffffff, NULL, 0);
  expect_read_error(path, TILEC_ERROR_INVALID_ARGUMENT,
                    ".npy header of 2147483647 bytes in '%s' exceeds the limit of 1048576 bytes");
}
END_TEST

START_TEST(test_truncated_data) {
  unsigned char data[12] = {0};
  char path[PATH_MAX + 64];
  tmp_path(path, sizeof path, "short_data.npy");
  make_npy(path, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (10,), }\n", SIZE_MAX, data, sizeof data);
  expect_read_error(path, TILEC_ERROR_INVALID_ARGUMENT, "truncated .npy data in '%s': expected 40 bytes, found 12");
  make_npy(path, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n", SIZE_MAX, NULL, 0);
  expect_read_error(path, TILEC_ERROR_INVALID_ARGUMENT, "truncated .npy data in '%s': expected 4 bytes, found 0");
}
END_TEST

START_TEST(test_absurd_shapes) {
  expect_header_error("huge1.npy",
                      "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000, "
                      "1000000000000), }\n",
                      0, TILEC_ERROR_INVALID_ARGUMENT,
                      "shape (1000000000000, 1000000000000) of .npy array in '%s' is too large to "
                      "address");
  expect_header_error("huge2.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }", 0,
                      TILEC_ERROR_INVALID_ARGUMENT,
                      "shape (4611686018427387904,) of .npy array in '%s' is too large to address");
  /* Addressable but not in the file: must be caught without allocating 400 GB. */
  expect_header_error("huge3.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000,), }", 8,
                      TILEC_ERROR_INVALID_ARGUMENT,
                      "truncated .npy data in '%s': expected 400000000000 bytes, found 8");
  expect_header_error("huge4.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 0,
                      TILEC_ERROR_INVALID_ARGUMENT, "shape of .npy array in '%s' has a dimension larger than 2^63 - 1");
  expect_header_error("ninedims.npy",
                      "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }", 4,
                      TILEC_ERROR_UNSUPPORTED, ".npy array in '%s' has more than 8 dimensions");
  /* A zero dimension makes the rest irrelevant, as in numpy. */
  char path[PATH_MAX + 64];
  tmp_path(path, sizeof path, "zero.npy");
  make_npy(path, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4611686018427387904, 8), }", SIZE_MAX, NULL,
           0);
  tilec_npy a;
  ck_assert_ptr_null(tilec_npy_read(path, &a));
  ck_assert_uint_eq(a.count, 0);
  ck_assert_ptr_nonnull(a.data);
  tilec_npy_free(&a);
}
END_TEST

START_TEST(test_malformed_headers) {
  static const struct {
    const char *header;
    const char *msg;
  } cases[] = {
      {"hello", "malformed .npy header in '%s': expected '{' at byte 0"},
      {"", "malformed .npy header in '%s': expected '{' at byte 0"},
      {"{'descr': '<f4', 'fortran_order': False}", "malformed .npy header in '%s': missing key 'shape'"},
      {"{'fortran_order': False, 'shape': (3,)}", "malformed .npy header in '%s': missing key 'descr'"},
      {"{'descr': '<f4', 'shape': (3,)}", "malformed .npy header in '%s': missing key 'fortran_order'"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (3,)}",
       "malformed .npy header in '%s': expected ',' or '}' after a value at byte 17"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,)}",
       "malformed .npy header in '%s': expected True or False for 'fortran_order' at byte 34"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}",
       "malformed .npy header in '%s': negative dimension in 'shape' at byte 51"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [3]}",
       "malformed .npy header in '%s': expected '(' to start 'shape' at byte 50"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3 4)}",
       "malformed .npy header in '%s': expected ',' or ')' in 'shape' at byte 53"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,",
       "malformed .npy header in '%s': expected a dimension in 'shape' at byte 53"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} extra",
       "malformed .npy header in '%s': unexpected text after '}' at byte 56"},
      {"{'descr' '<f4'}", "malformed .npy header in '%s': expected ':' after a key at byte 9"},
      {"{descr: '<f4'}", "malformed .npy header in '%s': expected a quoted string at byte 1"},
      {"{'descr", "malformed .npy header in '%s': unterminated string at byte 7"},
      {"{'descr': [('a', '<f4')), 'shape': (3,)}", "malformed .npy header in '%s': unbalanced bracket at byte 23"},
      {"{'x': [[[", "malformed .npy header in '%s': unterminated value at byte 9"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    expect_header_error("malformed.npy", cases[i].header, 16, TILEC_ERROR_INVALID_ARGUMENT, cases[i].msg);
  /* Nesting deep enough to be an attack, not a dtype. */
  char deep[256] = "{'x': ";
  for (int i = 0; i < 100; i++) strcat(deep, "[");
  expect_header_error("deep.npy", deep, 0, TILEC_ERROR_INVALID_ARGUMENT,
                      "malformed .npy header in '%s': value nested too deeply at byte 70");
}
END_TEST

START_TEST(test_missing_file) {
  char path[PATH_MAX + 64];
  tmp_path(path, sizeof path, "does_not_exist.npy");
  tilec_npy a;
  char msg[PATH_MAX + 128];
  snprintf(msg, sizeof msg, "cannot open .npy file '%s': No such file or directory", path);
  expect_status(tilec_npy_read(path, &a), TILEC_ERROR_NOT_FOUND, msg);
  expect_status(tilec_npy_read(NULL, &a), TILEC_ERROR_INVALID_ARGUMENT, "tilec_npy_read: path is NULL");
  expect_status(tilec_npy_read(path, NULL), TILEC_ERROR_INVALID_ARGUMENT, "tilec_npy_read: out is NULL");
  tilec_npy_free(NULL);
}
END_TEST

START_TEST(test_write_errors) {
  static const int64_t shape[] = {4};
  char path[PATH_MAX + 64], msg[PATH_MAX + 256];
  tmp_path(path, sizeof path, "write.npy");
  tilec_npy a;
  fill_array(&a, TILEC_DTYPE_BF16, 1, shape);
  snprintf(msg, sizeof msg, "cannot write '%s': dtype bf16 has no .npy equivalent", path);
  expect_status(tilec_npy_write(path, &a), TILEC_ERROR_UNSUPPORTED, msg);
  a.dtype = TILEC_DTYPE_FP8E5;
  snprintf(msg, sizeof msg, "cannot write '%s': dtype fp8e5 has no .npy equivalent", path);
  expect_status(tilec_npy_write(path, &a), TILEC_ERROR_UNSUPPORTED, msg);
  a.dtype = TILEC_DTYPE_I16;
  a.count = 5;
  snprintf(msg, sizeof msg, "cannot write '%s': the shape gives 4 elements (8 bytes) but count is 5 and nbytes 8",
           path);
  expect_status(tilec_npy_write(path, &a), TILEC_ERROR_INVALID_ARGUMENT, msg);
  a.count = 4;
  a.ndim = 9;
  snprintf(msg, sizeof msg, "cannot write '%s': ndim 9 is outside 0..8", path);
  expect_status(tilec_npy_write(path, &a), TILEC_ERROR_INVALID_ARGUMENT, msg);
  a.ndim = 1;
  a.shape[0] = -4;
  snprintf(msg, sizeof msg, "cannot write '%s': dimension 0 is negative (-4)", path);
  expect_status(tilec_npy_write(path, &a), TILEC_ERROR_INVALID_ARGUMENT, msg);
  a.shape[0] = 4;
  void *data = a.data;
  a.data = NULL;
  snprintf(msg, sizeof msg, "cannot write '%s': data is NULL", path);
  expect_status(tilec_npy_write(path, &a), TILEC_ERROR_INVALID_ARGUMENT, msg);
  a.data = data;
  snprintf(msg, sizeof msg, "cannot create .npy file '%s/no/such/dir/x.npy': No such file or directory", tmp_dir);
  snprintf(path, sizeof path, "%s/no/such/dir/x.npy", tmp_dir);
  expect_status(tilec_npy_write(path, &a), TILEC_ERROR_NOT_FOUND, msg);
  expect_status(tilec_npy_write(NULL, &a), TILEC_ERROR_INVALID_ARGUMENT, "tilec_npy_write: path is NULL");
  expect_status(tilec_npy_write(path, NULL), TILEC_ERROR_INVALID_ARGUMENT, "tilec_npy_write: arr is NULL");
  free(a.data);
}
END_TEST

/* Every prefix of a valid file, and every single-byte corruption of its header, must give a
 * status or a well-formed array: never a crash (ASan watches). */
START_TEST(test_corruption_never_crashes) {
  static const int64_t shape[] = {3, 5};
  tilec_npy a;
  fill_array(&a, TILEC_DTYPE_I32, 2, shape);
  char path[PATH_MAX + 64], bad[PATH_MAX + 64];
  tmp_path(path, sizeof path, "good.npy");
  tmp_path(bad, sizeof bad, "bad.npy");
  ck_assert_ptr_null(tilec_npy_write(path, &a));
  size_t len;
  unsigned char *file = read_bytes(path, &len);
  for (size_t cut = 0; cut < len; cut++) {
    write_bytes(bad, file, cut);
    tilec_npy b;
    tilec_status *st = tilec_npy_read(bad, &b);
    ck_assert_msg(st != NULL, "prefix of %zu bytes was accepted", cut);
    tilec_status_destroy(st);
  }
  static const unsigned char pokes[] = {0, '\'', '"', '(', ')', '[', '{', '}', ',', ':', '9', 0xff, ' '};
  for (size_t pos = 0; pos < 64; pos++) {
    for (size_t k = 0; k < sizeof pokes; k++) {
      unsigned char saved = file[pos];
      file[pos] = pokes[k];
      write_bytes(bad, file, len);
      file[pos] = saved;
      tilec_npy b;
      tilec_status *st = tilec_npy_read(bad, &b);
      if (st) {
        ck_assert_ptr_null(b.data);
        tilec_status_destroy(st);
      } else {
        ck_assert_uint_le(b.nbytes, len);
        tilec_npy_free(&b);
      }
    }
  }
  free(file);
  free(a.data);
}
END_TEST

/* Optional: files numpy itself wrote, when a python3 has numpy. Each is read, checked, and
 * written back byte for byte. */
START_TEST(test_numpy_interop) {
  /* A pyenv python3 may shadow the system one that has python3-numpy. */
  static const char *pythons[] = {"python3", "/usr/bin/python3"};
  const char *python = NULL;
  char cmd[4 * PATH_MAX];
  for (size_t i = 0; i < sizeof pythons / sizeof pythons[0] && !python; i++) {
    snprintf(cmd, sizeof cmd, "%s -c 'import numpy' >/dev/null 2>&1", pythons[i]);
    if (system(cmd) == 0) python = pythons[i];
  }
  if (!python) return; /* skipped: no numpy */
  static const struct {
    const char *numpy;
    tilec_dtype dtype;
  } types[] = {{"bool", TILEC_DTYPE_I1},     {"int8", TILEC_DTYPE_I8},     {"int16", TILEC_DTYPE_I16},
               {"int32", TILEC_DTYPE_I32},   {"int64", TILEC_DTYPE_I64},   {"uint8", TILEC_DTYPE_U8},
               {"uint16", TILEC_DTYPE_U16},  {"uint32", TILEC_DTYPE_U32},  {"uint64", TILEC_DTYPE_U64},
               {"float16", TILEC_DTYPE_F16}, {"float32", TILEC_DTYPE_F32}, {"float64", TILEC_DTYPE_F64}};
  static const struct {
    const char *numpy;
    int ndim;
    int64_t shape[3];
  } shapes[] = {{"(2, 3, 4)", 3, {2, 3, 4}}, {"()", 0, {0}}, {"(0,)", 1, {0}}, {"(1025,)", 1, {1025}}};
  snprintf(cmd, sizeof cmd,
           "%s -c \"import numpy as np\n"
           "for t in ['bool','int8','int16','int32','int64','uint8','uint16','uint32','uint64',"
           "'float16','float32','float64']:\n"
           "  for k, s in enumerate([(2, 3, 4), (), (0,), (1025,)]):\n"
           "    np.save('%s/np_%%s_%%d.npy' %% (t, k), (np.arange(max(1, int(np.prod(s)))) %% 100)"
           "[:int(np.prod(s))].reshape(s).astype(t))\n"
           "with open('%s/np_v2.npy', 'wb') as f:\n"
           "  np.lib.format.write_array(f, np.arange(5, dtype=np.int32), version=(2, 0))\n"
           "with open('%s/np_v3.npy', 'wb') as f:\n"
           "  np.lib.format.write_array(f, np.arange(5, dtype=np.int32), version=(3, 0))\n\"",
           python, tmp_dir, tmp_dir, tmp_dir);
  ck_assert_int_eq(system(cmd), 0);
  char path[PATH_MAX + 64], ours[PATH_MAX + 64];
  tmp_path(ours, sizeof ours, "ours.npy");
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
      char name[64];
      snprintf(name, sizeof name, "np_%s_%zu.npy", types[t].numpy, k);
      tmp_path(path, sizeof path, name);
      tilec_npy a;
      tilec_status *st = tilec_npy_read(path, &a);
      ck_assert_msg(st == NULL, "%s: %s", name, tilec_status_message(st));
      ck_assert_int_eq(a.dtype, types[t].dtype);
      ck_assert_int_eq(a.ndim, shapes[k].ndim);
      for (int d = 0; d < a.ndim; d++) ck_assert_int_eq(a.shape[d], shapes[k].shape[d]);
      /* Spot-check values that every dtype represents exactly: element i is i % 100. */
      if (a.count > 7 && types[t].dtype == TILEC_DTYPE_I32) ck_assert_int_eq(((int32_t *)a.data)[7], 7);
      if (a.count > 7 && types[t].dtype == TILEC_DTYPE_F64) ck_assert_double_eq(((double *)a.data)[7], 7.0);
      ck_assert_ptr_null(tilec_npy_write(ours, &a));
      tilec_npy_free(&a);
      size_t n1, n2;
      unsigned char *f1 = read_bytes(path, &n1), *f2 = read_bytes(ours, &n2);
      ck_assert_msg(n1 == n2 && memcmp(f1, f2, n1) == 0, "%s differs when written back", name);
      free(f1);
      free(f2);
    }
  }
  static const char *versions[] = {"np_v2.npy", "np_v3.npy"};
  for (size_t v = 0; v < 2; v++) {
    tmp_path(path, sizeof path, versions[v]);
    tilec_npy a;
    tilec_status *st = tilec_npy_read(path, &a);
    ck_assert_msg(st == NULL, "%s: %s", versions[v], tilec_status_message(st));
    ck_assert_uint_eq(a.count, 5);
    ck_assert_int_eq(((int32_t *)a.data)[4], 4);
    tilec_npy_free(&a);
  }
}
END_TEST

/* Files in tmp_dir whose name starts with prefix (leftover temporaries). */
static int count_entries(const char *prefix) {
  DIR *d = opendir(tmp_dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (!strncmp(e->d_name, prefix, strlen(prefix))) n++;
  closedir(d);
  return n;
}

/* `tilec run ... x=F.npy --out x=F.npy` replaces its own input: a write that fails part
 * way (here EFBIG from a file-size limit; ENOSPC and EIO take the same path) must leave F
 * exactly as it was, and leave no temporary file behind. */
START_TEST(test_failed_write_keeps_the_old_file) {
  static const int64_t small_shape[] = {64}, big_shape[] = {1 << 14};
  tilec_npy small, big;
  fill_array(&small, TILEC_DTYPE_F32, 1, small_shape);
  fill_array(&big, TILEC_DTYPE_F32, 1, big_shape);
  char path[PATH_MAX + 64];
  tmp_path(path, sizeof path, "inout.npy");
  ck_assert_ptr_null(tilec_npy_write(path, &small));
  ck_assert_int_eq(chmod(path, 0640), 0);
  size_t len0;
  unsigned char *before = read_bytes(path, &len0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {4096, 4096}; /* the big array needs 64 KiB */
    setrlimit(RLIMIT_FSIZE, &rl);
    tilec_status *st = tilec_npy_write(path, &big);
    int ok = st && strstr(tilec_status_message(st), "File too large") != NULL;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the write did not fail with EFBIG");
  size_t len1;
  unsigned char *after = read_bytes(path, &len1);
  ck_assert_uint_eq(len0, len1);
  ck_assert_int_eq(memcmp(before, after, len0), 0);
  ck_assert_int_eq(count_entries(".inout.npy"), 0);
  /* A successful replacement keeps the permissions of the file it replaces. */
  ck_assert_ptr_null(tilec_npy_write(path, &big));
  struct stat sb;
  ck_assert_int_eq(stat(path, &sb), 0);
  ck_assert_int_eq(sb.st_mode & 0777, 0640);
  ck_assert_int_eq(sb.st_size, (off_t)(128 + big.nbytes));
  ck_assert_int_eq(count_entries(".inout.npy"), 0);
  free(before);
  free(after);
  tilec_npy_free(&small);
  tilec_npy_free(&big);
}
END_TEST

static Suite *npy_suite(void) {
  Suite *s = suite_create("npy");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_round_trip_every_dtype);
  tcase_add_test(tc, test_round_trip_shapes);
  tcase_add_test(tc, test_numpy_layout);
  tcase_add_test(tc, test_read_handmade_variants);
  tcase_add_test(tc, test_fortran_order);
  tcase_add_test(tc, test_big_endian);
  tcase_add_test(tc, test_unsupported_dtypes);
  tcase_add_test(tc, test_bad_magic);
  tcase_add_test(tc, test_truncated_header);
  tcase_add_test(tc, test_truncated_data);
  tcase_add_test(tc, test_absurd_shapes);
  tcase_add_test(tc, test_malformed_headers);
  tcase_add_test(tc, test_missing_file);
  tcase_add_test(tc, test_write_errors);
  tcase_add_test(tc, test_failed_write_keeps_the_old_file);
  tcase_add_test(tc, test_corruption_never_crashes);
  tcase_add_test(tc, test_numpy_interop);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmp_dir, sizeof tmp_dir, "%s/tilec_test_npy_XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(tmp_dir)) {
    perror("mkdtemp");
    return EXIT_FAILURE;
  }
  SRunner *sr = srunner_create(npy_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  if (system(cmd) != 0) fprintf(stderr, "test_npy: could not remove %s\n", tmp_dir);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
