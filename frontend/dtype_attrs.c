/* frontend/dtype_attrs.c — what kernel code can ask a dtype value (a dtype constexpr such as
 * `DT: tl.constexpr` bound to tl.float16, `x.dtype`, or the block types `x.type` of a tile and
 * `bp.type` of a block pointer): Triton's dtype attributes (`name`, `primitive_bitwidth`,
 * `int_bitwidth`, `fp_mantissa_width`, `exponent_bias`, `itemsize`, `element_ty`, `scalar`,
 * `shape`) and predicates (`is_fp16()`, `is_floating()`, `is_block()`, `get_int_max_value()`,
 * ...). In: a TV_DTYPE value. Out: compile-time values or errors. */
#include "frontend/cg.h"

#include <stdio.h>
#include <string.h>

/* Triton's dtype.name: "int32", "uint8", "int1", "fp16", "bf16", "fp8e4nv", "pointer<fp16>". */
void tc_ty_triton_name(tc_ty t, char *buf, size_t n) {
  if (t.ptr_depth) {
    tc_ty e = t;
    e.ptr_depth--;
    char inner[64];
    tc_ty_triton_name(e, inner, sizeof inner);
    snprintf(buf, n, "pointer<%s>", inner);
    return;
  }
  if (tc_ty_is_float(t)) {
    tc_ty_name(t, buf, n); /* fp16, bf16, fp32, fp8e5, ... */
    return;
  }
  char tl[64];
  tc_ty_tl_name(t, tl, sizeof tl); /* tl.int32 */
  snprintf(buf, n, "%s", tl + 3);
}

tc_val tv_block_type(tc_ty t, int rank, const int64_t *shape) {
  tc_val r = tv_dtype(t);
  r.rank = rank;
  for (int i = 0; i < rank; i++) r.shape[i] = shape[i];
  return r;
}

bool tv_dtype_eq(const tc_val *a, const tc_val *b) {
  if (!tc_ty_eq(a->ty, b->ty) || a->rank != b->rank || a->ptr_block != b->ptr_block) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->shape[i] != b->shape[i]) return false;
  return true;
}

/* Triton's block_type.name: "<(16, 32), fp32>" (its shape is a Python tuple: "(8,)" in 1-D). */
void tv_dtype_name(const tc_val *d, char *buf, size_t n) {
  char elem[64];
  tc_ty_triton_name(d->ty, elem, sizeof elem);
  if (!d->rank) {
    snprintf(buf, n, "%s", elem);
    return;
  }
  char shape[128];
  int k = snprintf(shape, sizeof shape, "(");
  for (int i = 0; i < d->rank && k > 0 && (size_t)k < sizeof shape; i++)
    k += snprintf(shape + k, sizeof shape - (size_t)k, "%s%lld", i ? ", " : "", (long long)d->shape[i]);
  if (k > 0 && (size_t)k < sizeof shape) snprintf(shape + k, sizeof shape - (size_t)k, d->rank == 1 ? ",)" : ")");
  snprintf(buf, n, d->ptr_block ? "pointer<<%s, %s>>" : "<%s, %s>", shape, elem);
}

static tc_val name_value(tc_cg *cg, const tc_val *d) {
  char buf[256];
  tv_dtype_name(d, buf, sizeof buf);
  size_t n = strlen(buf);
  char *s = cg_alloc(cg, n + 1);
  memcpy(s, buf, n + 1);
  return tv_str(s, n);
}

static tc_val shape_tuple(tc_cg *cg, const tc_val *d) {
  tc_val r = {.kind = TV_TUPLE, .nitems = d->rank};
  r.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(d->rank + 1));
  for (int i = 0; i < d->rank; i++) r.items[i] = tv_int(d->shape[i]);
  return r;
}

static bool is_named(tc_ty t, const char *name) {
  char buf[64];
  tc_ty_triton_name(t, buf, sizeof buf);
  return !strcmp(buf, name);
}

static int exponent_bias(tc_ty t) {
  switch (t.dt) {
    case TILEC_DTYPE_F16:
    case TILEC_DTYPE_FP8E5: return 15;
    case TILEC_DTYPE_BF16:
    case TILEC_DTYPE_F32: return 127;
    case TILEC_DTYPE_F64: return 1023;
    case TILEC_DTYPE_FP8E4NV: return 7;
    default: return 0;
  }
}

static const char *const predicates[] = {
    "is_fp8",
    "is_fp8e4nv",
    "is_fp8e4b8",
    "is_fp8e4b15",
    "is_fp8e5",
    "is_fp8e5b16",
    "is_fp16",
    "is_bf16",
    "is_fp32",
    "is_fp64",
    "is_int1",
    "is_int8",
    "is_int16",
    "is_int32",
    "is_int64",
    "is_uint8",
    "is_uint16",
    "is_uint32",
    "is_uint64",
    "is_floating",
    "is_standard_floating",
    "is_int_signed",
    "is_int_unsigned",
    "is_int",
    "is_bool",
    "is_ptr",
    "is_block",
    "is_const",
    "is_void",
    "get_int_max_value",
    "get_int_min_value",
};

static tc_val method(tc_cg *cg, const tc_val *d, const char *attr) {
  size_t n = strlen(attr) + 7;
  char *s = cg_alloc(cg, n);
  snprintf(s, n, "dtype.%s", attr);
  tc_val m = {.kind = TV_METHOD, .name = s};
  m.self = cg_alloc(cg, sizeof(tc_val));
  *m.self = *d;
  return m;
}

/* The attributes of Triton's block_type (d->rank > 0) and of pointer_type(block_type) (a
 * block pointer's type): what they define, the predicates (false but is_block / is_ptr). */
static tc_val block_attr(tc_cg *cg, const tc_val *d, const char *attr, tc_loc loc) {
  if (!strcmp(attr, "name")) return name_value(cg, d);
  if (d->ptr_block) {
    if (!strcmp(attr, "element_ty")) {
      tc_val e = *d;
      e.ptr_block = false;
      return e;
    }
    if (!strcmp(attr, "scalar")) return *d; /* a pointer type is its own scalar */
  } else {
    if (!strcmp(attr, "element_ty") || !strcmp(attr, "scalar")) return tv_dtype(d->ty);
    if (!strcmp(attr, "shape")) return shape_tuple(cg, d);
    int64_t numel = 1;
    for (int i = 0; i < d->rank; i++) numel *= d->shape[i];
    if (!strcmp(attr, "numel")) return tv_int(numel);
    if (!strcmp(attr, "nbytes") && !tc_ty_is_ptr(d->ty)) return tv_int(numel * (int64_t)(tc_ty_bits(d->ty) / 8));
    if (!strcmp(attr, "get_block_shapes")) return method(cg, d, attr);
  }
  for (size_t i = 0; i < sizeof predicates / sizeof predicates[0]; i++)
    if (!strcmp(attr, predicates[i])) return method(cg, d, attr);
  char buf[256];
  tv_dtype_name(d, buf, sizeof buf);
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s %s has no attribute '%s'",
                  d->ptr_block ? "pointer_type" : "block_type", buf, attr);
}

tc_val cg_dtype_attr(tc_cg *cg, const tc_val *d, const char *attr, tc_loc loc) {
  if (d->rank || d->ptr_block) return block_attr(cg, d, attr, loc);
  tc_ty t = d->ty;
  if (!strcmp(attr, "element_ty")) {
    if (!tc_ty_is_ptr(t))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'element_ty' is only defined on pointer dtypes");
    t.ptr_depth--;
    return tv_dtype(t);
  }
  if (!strcmp(attr, "primitive_bitwidth")) return tv_int(tc_ty_bits(t));
  if (!strcmp(attr, "itemsize")) return tv_int(tc_ty_bits(t) / 8);
  if (!strcmp(attr, "scalar")) return *d;
  if (!strcmp(attr, "name")) {
    char buf[64];
    tc_ty_triton_name(t, buf, sizeof buf);
    size_t n = strlen(buf);
    char *s = cg_alloc(cg, n + 1);
    memcpy(s, buf, n);
    return tv_str(s, n);
  }
  if (!tc_ty_is_ptr(t) && tc_ty_is_int(t) && !strcmp(attr, "int_bitwidth")) return tv_int(tc_ty_bits(t));
  if (!tc_ty_is_ptr(t) && tc_ty_is_float(t)) {
    if (!strcmp(attr, "fp_mantissa_width")) return tv_int(tc_ty_mantissa_bits(t));
    if (!strcmp(attr, "exponent_bias")) return tv_int(exponent_bias(t));
  }
  for (size_t i = 0; i < sizeof predicates / sizeof predicates[0]; i++)
    if (!strcmp(attr, predicates[i])) return method(cg, d, attr);
  char buf[64];
  tc_ty_triton_name(t, buf, sizeof buf);
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "dtype %s has no attribute '%s'", buf, attr);
}

tc_val cg_dtype_method(tc_cg *cg, const char *name, tc_callargs *a, tc_loc loc) {
  if (a->nargs != 1 || a->nkw || a->args[0].kind != TV_DTYPE)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "dtype.%s() takes no arguments", name);
  const tc_val *d = &a->args[0];
  if (d->rank || d->ptr_block) {
    /* block_type / pointer_type(block_type): Triton's predicates compare the type's name, which
     * names no element type */
    if (!strcmp(name, "get_block_shapes")) return shape_tuple(cg, d);
    if (!strcmp(name, "get_int_max_value") || !strcmp(name, "get_int_min_value")) {
      char buf[256];
      tv_dtype_name(d, buf, sizeof buf);
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "dtype.%s() needs an integer dtype, got %s", name, buf);
    }
    if (!strcmp(name, "is_block")) return tv_bool(!d->ptr_block);
    if (!strcmp(name, "is_ptr")) return tv_bool(d->ptr_block);
    return tv_bool(false);
  }
  tc_ty t = d->ty;
  bool ptr = tc_ty_is_ptr(t), fl = !ptr && tc_ty_is_float(t), in = !ptr && tc_ty_is_int(t);
  char tn[64];
  tc_ty_triton_name(t, tn, sizeof tn);
  if (!strcmp(name, "get_int_max_value") || !strcmp(name, "get_int_min_value")) {
    if (!in) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "dtype.%s() needs an integer dtype, got %s", name, tn);
    unsigned bits = tc_ty_bits(t);
    bool sgn = tc_ty_is_signed(t), max = name[8] == 'a';
    if (!max) return tv_int(sgn ? (bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1))) : 0);
    if (sgn) return tv_int(bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1);
    tc_val r = tv_int(bits == 64 ? (int64_t)UINT64_MAX : ((int64_t)1 << bits) - 1);
    r.u64 = bits == 64;
    return r;
  }
  if (!strcmp(name, "is_void"))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "dtype.is_void() is not implemented (as in Triton)");
  bool r;
  if (!strcmp(name, "is_fp8")) r = strstr(tn, "fp8") != NULL && !ptr;
  else if (!strcmp(name, "is_floating")) r = fl;
  else if (!strcmp(name, "is_standard_floating")) r = fl && tc_ty_bits(t) >= 16;
  else if (!strcmp(name, "is_int_signed")) r = in && tc_ty_is_signed(t);
  else if (!strcmp(name, "is_int_unsigned")) r = in && !tc_ty_is_signed(t);
  else if (!strcmp(name, "is_int")) r = in;
  else if (!strcmp(name, "is_bool")) r = in && tc_ty_is_bool(t);
  else if (!strcmp(name, "is_ptr")) r = ptr;
  else if (!strcmp(name, "is_block") || !strcmp(name, "is_const")) r = false;
  else r = !ptr && is_named(t, name + 3); /* is_fp16 -> "fp16", is_uint8 -> "uint8" */
  return tv_bool(r);
}
