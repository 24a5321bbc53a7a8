/* tools/npy.c — reader and writer for NumPy .npy files (format 1.0, 2.0, 3.0).
 * In: a path (read) or a tilec_npy (write). Out: a tilec_npy with a 64-byte aligned buffer,
 * or a status that names the file; malformed input is reported, never trusted. */
#include "tools/npy.h"
#include "runtime/files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tilec/runtime.h"

/* .npy data is little-endian and we hand it to kernels as is. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "tools/npy.c assumes a little-endian host");

#define NPY_ALIGN 64u
/* numpy itself refuses headers over 10000 bytes by default; this only guards the malloc. */
#define NPY_MAX_HEADER (1u << 20)
/* Deeper nesting than this in a header value is garbage, not a dtype. */
#define NPY_MAX_NESTING 64

static const char npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* One row per supported dtype; `descr` is what numpy.save writes for it. */
static const struct {
  char kind;
  unsigned size;
  tilec_dtype dtype;
  const char *descr;
} npy_types[] = {
    {'b', 1, TILEC_DTYPE_I1, "|b1"},  {'i', 1, TILEC_DTYPE_I8, "|i1"},  {'i', 2, TILEC_DTYPE_I16, "<i2"},
    {'i', 4, TILEC_DTYPE_I32, "<i4"}, {'i', 8, TILEC_DTYPE_I64, "<i8"}, {'u', 1, TILEC_DTYPE_U8, "|u1"},
    {'u', 2, TILEC_DTYPE_U16, "<u2"}, {'u', 4, TILEC_DTYPE_U32, "<u4"}, {'u', 8, TILEC_DTYPE_U64, "<u8"},
    {'f', 2, TILEC_DTYPE_F16, "<f2"}, {'f', 4, TILEC_DTYPE_F32, "<f4"}, {'f', 8, TILEC_DTYPE_F64, "<f8"},
};
#define NPY_NUM_TYPES (sizeof npy_types / sizeof npy_types[0])

/* ---- header parsing ------------------------------------------------------------------- */

typedef struct header_parser {
  const char *s;
  size_t n, i;
  const char *path;
} header_parser;

typedef struct header {
  const char *descr; /* points into the header text */
  size_t descr_len;
  int descr_is_string; /* 0: a list or other expression (structured dtype) */
  int fortran_order;
  int ndim;
  int64_t shape[TILEC_NPY_MAX_DIMS];
  int seen_descr, seen_fortran, seen_shape;
} header;

static tilec_status *malformed(const header_parser *p, const char *what) {
  return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "malformed .npy header in '%s': %s at byte %zu", p->path,
                             what, p->i);
}

static int peek(const header_parser *p) { return p->i < p->n ? (unsigned char)p->s[p->i] : -1; }

static void skip_space(header_parser *p) {
  while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r')) p->i++;
}

static int is_quote(int c) { return c == '\'' || c == '"'; }

/* A Python string literal without escapes (numpy never writes any in these fields). */
static tilec_status *parse_string(header_parser *p, const char **str, size_t *len) {
  int q = peek(p);
  if (!is_quote(q)) return malformed(p, "expected a quoted string");
  size_t start = ++p->i;
  while (p->i < p->n && p->s[p->i] != q) p->i++;
  if (p->i >= p->n) return malformed(p, "unterminated string");
  *str = p->s + start;
  *len = p->i - start;
  p->i++;
  return NULL;
}

/* Skips any value up to the ',' or '}' that ends it, honouring brackets and strings. */
static tilec_status *skip_value(header_parser *p) {
  char closers[NPY_MAX_NESTING];
  int depth = 0;
  while (p->i < p->n) {
    int c = peek(p);
    if (is_quote(c)) {
      const char *s;
      size_t len;
      tilec_status *st = parse_string(p, &s, &len);
      if (st) return st;
      continue;
    }
    if (depth == 0 && (c == ',' || c == '}')) return NULL;
    if (c == '(' || c == '[' || c == '{') {
      if (depth == NPY_MAX_NESTING) return malformed(p, "value nested too deeply");
      closers[depth++] = c == '(' ? ')' : c == '[' ? ']' : '}';
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0 || closers[depth - 1] != c) return malformed(p, "unbalanced bracket");
      depth--;
    }
    p->i++;
  }
  return malformed(p, "unterminated value");
}

static tilec_status *parse_bool(header_parser *p, int *out) {
  if (p->n - p->i >= 4 && memcmp(p->s + p->i, "True", 4) == 0) {
    p->i += 4;
    *out = 1;
    return NULL;
  }
  if (p->n - p->i >= 5 && memcmp(p->s + p->i, "False", 5) == 0) {
    p->i += 5;
    *out = 0;
    return NULL;
  }
  return malformed(p, "expected True or False for 'fortran_order'");
}

static tilec_status *parse_shape(header_parser *p, header *h) {
  if (peek(p) != '(') return malformed(p, "expected '(' to start 'shape'");
  p->i++;
  h->ndim = 0;
  for (;;) {
    skip_space(p);
    if (peek(p) == ')') break;
    int c = peek(p);
    if (c == '-') return malformed(p, "negative dimension in 'shape'");
    if (c < '0' || c > '9') return malformed(p, "expected a dimension in 'shape'");
    if (h->ndim == TILEC_NPY_MAX_DIMS)
      return tilec_status_create(TILEC_ERROR_UNSUPPORTED, ".npy array in '%s' has more than %d dimensions", p->path,
                                 TILEC_NPY_MAX_DIMS);
    uint64_t v = 0;
    while ((c = peek(p)) >= '0' && c <= '9') {
      v = v * 10 + (uint64_t)(c - '0');
      if (v > (uint64_t)INT64_MAX)
        return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                   "shape of .npy array in '%s' has a dimension larger than 2^63 - 1", p->path);
      p->i++;
    }
    if (peek(p) == 'L') p->i++; /* Python 2 long literal, as in old numpy files */
    h->shape[h->ndim++] = (int64_t)v;
    skip_space(p);
    if (peek(p) == ',') {
      p->i++;
      continue;
    }
    if (peek(p) == ')') break;
    return malformed(p, "expected ',' or ')' in 'shape'");
  }
  p->i++;
  return NULL;
}

static int key_is(const char *k, size_t len, const char *want) {
  return strlen(want) == len && memcmp(k, want, len) == 0;
}

static tilec_status *parse_header(const char *text, size_t n, const char *path, header *h) {
  header_parser p = {text, n, 0, path};
  memset(h, 0, sizeof *h);
  tilec_status *st;
  skip_space(&p);
  if (peek(&p) != '{') return malformed(&p, "expected '{'");
  p.i++;
  for (;;) {
    skip_space(&p);
    if (peek(&p) == '}') break;
    const char *key;
    size_t klen;
    if ((st = parse_string(&p, &key, &klen))) return st;
    skip_space(&p);
    if (peek(&p) != ':') return malformed(&p, "expected ':' after a key");
    p.i++;
    skip_space(&p);
    if (key_is(key, klen, "descr")) {
      h->seen_descr = 1;
      if (is_quote(peek(&p))) {
        h->descr_is_string = 1;
        st = parse_string(&p, &h->descr, &h->descr_len);
      } else {
        size_t start = p.i;
        st = skip_value(&p);
        h->descr_is_string = 0;
        h->descr = text + start;
        h->descr_len = p.i - start;
        while (h->descr_len && (h->descr[h->descr_len - 1] == ' ' || h->descr[h->descr_len - 1] == '\n'))
          h->descr_len--;
      }
    } else if (key_is(key, klen, "fortran_order")) {
      h->seen_fortran = 1;
      st = parse_bool(&p, &h->fortran_order);
    } else if (key_is(key, klen, "shape")) {
      h->seen_shape = 1;
      st = parse_shape(&p, h);
    } else {
      st = skip_value(&p); /* keys a future numpy may add */
    }
    if (st) return st;
    skip_space(&p);
    if (peek(&p) == ',') {
      p.i++;
      continue;
    }
    if (peek(&p) == '}') break;
    return malformed(&p, "expected ',' or '}' after a value");
  }
  p.i++;
  skip_space(&p);
  if (p.i != p.n) return malformed(&p, "unexpected text after '}'");
  const char *missing = !h->seen_descr ? "descr" : !h->seen_fortran ? "fortran_order" : !h->seen_shape ? "shape" : NULL;
  if (missing)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "malformed .npy header in '%s': missing key '%s'", path,
                               missing);
  return NULL;
}

static tilec_status *dtype_of_descr(const header *h, const char *path, tilec_dtype *out) {
  /* Long structured descrs are cut so the message stays readable. */
  int shown = h->descr_len > 80 ? 80 : (int)h->descr_len;
  const char *more = h->descr_len > 80 ? "..." : "";
  if (h->descr_is_string && h->descr_len == 3) {
    char order = h->descr[0], kind = h->descr[1];
    unsigned size = (unsigned)(h->descr[2] - '0');
    for (size_t i = 0; i < NPY_NUM_TYPES; i++) {
      if (npy_types[i].kind != kind || npy_types[i].size != size) continue;
      /* Byte order is moot for one byte; '=' is native, and this host is little-endian. */
      int ok = order == '<' || order == '=' || (size == 1 && (order == '|' || order == '>'));
      if (ok) {
        *out = npy_types[i].dtype;
        return NULL;
      }
      if (order == '>')
        return tilec_status_create(TILEC_ERROR_UNSUPPORTED,
                                   "big-endian .npy dtype '%.3s' in '%s' is not supported "
                                   "(save it as '<%c%c')",
                                   h->descr, path, kind, h->descr[2]);
      break;
    }
  }
  return tilec_status_create(TILEC_ERROR_UNSUPPORTED, "unsupported .npy dtype '%.*s%s' in '%s'", shown, h->descr, more,
                             path);
}

/* ---- reading -------------------------------------------------------------------------- */

static void format_shape(char *buf, size_t cap, int ndim, const int64_t *shape) {
  size_t k = 0;
  buf[0] = 0;
  for (int d = 0; d < ndim && k < cap; d++) {
    int w = snprintf(buf + k, cap - k, "%s%lld", d ? ", " : "", (long long)shape[d]);
    if (w < 0) break;
    k += (size_t)w;
  }
  if (ndim == 1 && k + 1 < cap) {
    buf[k++] = ',';
    buf[k] = 0;
  }
}

static tilec_status *read_exact(FILE *f, void *buf, size_t n, size_t *got) {
  *got = fread(buf, 1, n, f);
  if (*got < n && ferror(f)) return tilec_status_create(TILEC_ERROR_IO, "%s", strerror(errno));
  return NULL;
}

tilec_status *tilec_npy_read_stream(FILE *f, const char *path, tilec_npy *out) {
  unsigned char pre[12];
  size_t got;
  tilec_status *st = read_exact(f, pre, 10, &got);
  if (st) return tilec_status_annotate(st, "cannot read '%s'", path);
  if (memcmp(pre, npy_magic, got < 6 ? got : 6) != 0 || got == 0)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "'%s' is not a .npy file (bad magic bytes)", path);
  if (got < 10)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "truncated .npy preamble in '%s': expected 10 bytes, found %zu", path, got);
  unsigned major = pre[6], minor = pre[7];
  size_t preamble;
  uint32_t hlen;
  if (major == 1) {
    preamble = 10;
    hlen = (uint32_t)pre[8] | (uint32_t)pre[9] << 8;
  } else if (major == 2 || major == 3) {
    preamble = 12;
    if ((st = read_exact(f, pre + 10, 2, &got))) return tilec_status_annotate(st, "cannot read '%s'", path);
    if (got < 2)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                 "truncated .npy preamble in '%s': expected 12 bytes, found %zu", path, 10 + got);
    hlen = (uint32_t)pre[8] | (uint32_t)pre[9] << 8 | (uint32_t)pre[10] << 16 | (uint32_t)pre[11] << 24;
  } else {
    return tilec_status_create(TILEC_ERROR_UNSUPPORTED,
                               "unsupported .npy format version %u.%u in '%s' (expected 1.0, "
                               "2.0 or 3.0)",
                               major, minor, path);
  }
  if (hlen > NPY_MAX_HEADER)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               ".npy header of %u bytes in '%s' exceeds the limit of %u bytes", (unsigned)hlen, path,
                               NPY_MAX_HEADER);
  char *text = malloc(hlen ? hlen : 1);
  if (!text) return tilec_status_create(TILEC_ERROR_IO, "cannot allocate the .npy header of '%s'", path);
  if ((st = read_exact(f, text, hlen, &got))) {
    free(text);
    return tilec_status_annotate(st, "cannot read '%s'", path);
  }
  if (got < hlen) {
    free(text);
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "truncated .npy header in '%s': expected %u bytes, found %zu", path, (unsigned)hlen,
                               got);
  }
  header h;
  st = parse_header(text, hlen, path, &h);
  if (!st) st = dtype_of_descr(&h, path, &out->dtype);
  if (!st && h.fortran_order)
    st = tilec_status_create(TILEC_ERROR_UNSUPPORTED,
                             "'%s' holds a Fortran-order array (fortran_order: True); only C "
                             "order is supported",
                             path);
  free(text); /* h.descr points into text: no use of it below */
  if (st) return st;

  out->ndim = h.ndim;
  memcpy(out->shape, h.shape, sizeof out->shape);
  size_t elem = tilec_dtype_size(out->dtype), count = 1, nbytes;
  int overflow = 0;
  for (int d = 0; d < h.ndim; d++) {
    if (h.shape[d] == 0) {
      count = 0;
      overflow = 0;
      break;
    }
    if (__builtin_mul_overflow(count, (uint64_t)h.shape[d], &count)) overflow = 1;
  }
  if (overflow || __builtin_mul_overflow(count, elem, &nbytes) || nbytes > SIZE_MAX - NPY_ALIGN) {
    char shape[TILEC_NPY_MAX_DIMS * 24];
    format_shape(shape, sizeof shape, h.ndim, h.shape);
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "shape (%s) of .npy array in '%s' is too large to address",
                               shape, path);
  }
  out->count = count;
  out->nbytes = nbytes;

  /* Check the file really holds the data before allocating what the header claims. */
  struct stat sb;
  if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode)) {
    uint64_t size = (uint64_t)sb.st_size, offset = (uint64_t)preamble + hlen;
    uint64_t left = size > offset ? size - offset : 0;
    if (left < nbytes)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                 "truncated .npy data in '%s': expected %zu bytes, found %llu", path, nbytes,
                                 (unsigned long long)left);
  }
  /* A pipe has no size to check: a header claiming nearly 2^64 bytes must not wrap the
   * rounded-up capacity (found by fuzz_npy). */
  if (nbytes > SIZE_MAX - NPY_ALIGN)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "the shape in '%s' is too large to address", path);
  size_t cap = (nbytes + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
  if (cap == 0) cap = NPY_ALIGN;
  out->data = aligned_alloc(NPY_ALIGN, cap);
  if (!out->data)
    return tilec_status_create(TILEC_ERROR_IO, "cannot allocate %zu bytes for the data of '%s'", nbytes, path);
  /* Padding is zeroed so vector code reading a whole last chunk sees defined bytes. */
  memset((char *)out->data + nbytes, 0, cap - nbytes);
  if ((st = read_exact(f, out->data, nbytes, &got))) return tilec_status_annotate(st, "cannot read '%s'", path);
  if (got < nbytes)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "truncated .npy data in '%s': expected %zu bytes, found %zu", path, nbytes, got);
  return NULL;
}

tilec_status *tilec_npy_read(const char *path, tilec_npy *out) {
  if (!out) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_npy_read: out is NULL");
  memset(out, 0, sizeof *out);
  if (!path) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_npy_read: path is NULL");
  FILE *f = fopen(path, "rb");
  if (!f)
    return tilec_status_create(errno == ENOENT ? TILEC_ERROR_NOT_FOUND : TILEC_ERROR_IO,
                               "cannot open .npy file '%s': %s", path, strerror(errno));
  tilec_status *st = tilec_npy_read_stream(f, path, out);
  fclose(f);
  if (st) tilec_npy_free(out);
  return st;
}

/* ---- writing -------------------------------------------------------------------------- */

static tilec_status *check_array(const char *path, const tilec_npy *a, const char **descr) {
  *descr = NULL;
  for (size_t i = 0; i < NPY_NUM_TYPES; i++)
    if (npy_types[i].dtype == a->dtype) *descr = npy_types[i].descr;
  if (!*descr)
    return tilec_status_create(TILEC_ERROR_UNSUPPORTED, "cannot write '%s': dtype %s has no .npy equivalent", path,
                               tilec_dtype_name(a->dtype));
  if (a->ndim < 0 || a->ndim > TILEC_NPY_MAX_DIMS)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "cannot write '%s': ndim %d is outside 0..%d", path,
                               a->ndim, TILEC_NPY_MAX_DIMS);
  size_t count = 1, nbytes;
  int zero = 0, overflow = 0;
  for (int d = 0; d < a->ndim; d++) {
    if (a->shape[d] < 0)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "cannot write '%s': dimension %d is negative (%lld)",
                                 path, d, (long long)a->shape[d]);
    if (a->shape[d] == 0) zero = 1;
    else if (__builtin_mul_overflow(count, (uint64_t)a->shape[d], &count)) overflow = 1;
  }
  if (zero) count = 0, overflow = 0;
  if (overflow || __builtin_mul_overflow(count, tilec_dtype_size(a->dtype), &nbytes))
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "cannot write '%s': the shape is too large to address",
                               path);
  if (count != a->count || nbytes != a->nbytes)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "cannot write '%s': the shape gives %zu elements (%zu bytes) but "
                               "count is %zu and nbytes %zu",
                               path, count, nbytes, a->count, a->nbytes);
  if (nbytes && !a->data)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "cannot write '%s': data is NULL", path);
  return NULL;
}

tilec_status *tilec_npy_write(const char *path, const tilec_npy *arr) {
  if (!path || !arr)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_npy_write: %s is NULL", path ? "arr" : "path");
  const char *descr;
  tilec_status *st = check_array(path, arr, &descr);
  if (st) return st;

  char shape[TILEC_NPY_MAX_DIMS * 24];
  format_shape(shape, sizeof shape, arr->ndim, arr->shape);
  /* The exact text numpy.save writes, so files diff clean against numpy's own. */
  char dict[256 + sizeof shape];
  int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape);
  if (len < 0 || (size_t)len >= sizeof dict)
    return tilec_status_create(TILEC_ERROR_INTERNAL, "npy header for '%s' does not fit", path);
  /* Data starts on a 64-byte boundary: header = dict, spaces, '\n'. */
  size_t preamble = 10, total = preamble + (size_t)len + 1;
  total = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
  size_t hlen = total - preamble;
  unsigned char pre[10];
  memcpy(pre, npy_magic, 6);
  pre[6] = 1;
  pre[7] = 0;
  pre[8] = (unsigned char)(hlen & 0xff);
  pre[9] = (unsigned char)(hlen >> 8);
  char header[sizeof dict + NPY_ALIGN];
  memcpy(header, dict, (size_t)len);
  memset(header + len, ' ', hlen - (size_t)len - 1);
  header[hlen - 1] = '\n';

  /* Through a temporary file renamed into place: `--out x=F.npy` usually replaces the input
   * F.npy, which a failed or interrupted write must leave whole. */
  tilec_outfile o;
  int err = tilec_outfile_begin(&o, path);
  if (err)
    return tilec_status_create(err == ENOENT ? TILEC_ERROR_NOT_FOUND : TILEC_ERROR_IO,
                               "cannot create .npy file '%s': %s", path, strerror(err));
  FILE *f = fopen(o.tmp, "wb");
  if (!f) err = errno;
  errno = 0;
  int ok = f && fwrite(pre, 1, sizeof pre, f) == sizeof pre && fwrite(header, 1, hlen, f) == hlen &&
           (arr->nbytes == 0 || fwrite(arr->data, 1, arr->nbytes, f) == arr->nbytes);
  if (f && !ok && !err) err = errno ? errno : EIO;
  if (f && fclose(f) != 0 && ok) {
    ok = 0;
    err = errno ? errno : EIO;
  }
  if (ok && (err = tilec_outfile_commit(&o)) != 0) ok = 0;
  tilec_outfile_end(&o);
  if (!ok)
    return tilec_status_create(TILEC_ERROR_IO, "cannot write .npy file '%s': %s", path, strerror(err ? err : EIO));
  return NULL;
}

void tilec_npy_free(tilec_npy *arr) {
  if (!arr) return;
  free(arr->data);
  memset(arr, 0, sizeof *arr);
}
