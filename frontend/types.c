/* frontend/types.c — dtype facts and Triton's type promotion (semantic.py's
 * computation_type_impl and integer_promote_impl, re-stated from their documented
 * behaviour). In: tc_ty values. Out: MLIR types, names, promoted types. */
#include "frontend/types.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <string.h>

tc_ty tc_ty_make(tilec_dtype dt) {
  tc_ty t = {dt, 0, false};
  return t;
}

bool tc_ty_eq(tc_ty a, tc_ty b) {
  return a.dt == b.dt && a.ptr_depth == b.ptr_depth && (a.ptr_depth == 0 || a.is_const == b.is_const);
}
bool tc_ty_is_ptr(tc_ty t) { return t.ptr_depth > 0; }

bool tc_ty_is_int(tc_ty t) { return !t.ptr_depth && t.dt >= TILEC_DTYPE_I1 && t.dt <= TILEC_DTYPE_U64; }

bool tc_ty_is_float(tc_ty t) { return !t.ptr_depth && t.dt >= TILEC_DTYPE_F16 && t.dt <= TILEC_DTYPE_FP8E5B16; }

bool tc_ty_is_fp8(tc_ty t) {
  return !t.ptr_depth && (t.dt == TILEC_DTYPE_FP8E5 || t.dt == TILEC_DTYPE_FP8E4NV || t.dt == TILEC_DTYPE_FP8E4B15 ||
                          t.dt == TILEC_DTYPE_FP8E4B8 || t.dt == TILEC_DTYPE_FP8E5B16);
}

bool tc_ty_is_signed(tc_ty t) { return !t.ptr_depth && t.dt >= TILEC_DTYPE_I8 && t.dt <= TILEC_DTYPE_I64; }

bool tc_ty_is_bool(tc_ty t) { return !t.ptr_depth && t.dt == TILEC_DTYPE_I1; }

unsigned tc_ty_bits(tc_ty t) {
  if (t.ptr_depth) return 64;
  switch (t.dt) {
    case TILEC_DTYPE_I1: return 1;
    case TILEC_DTYPE_I8:
    case TILEC_DTYPE_U8:
    case TILEC_DTYPE_FP8E5:
    case TILEC_DTYPE_FP8E4NV:
    case TILEC_DTYPE_FP8E4B15:
    case TILEC_DTYPE_FP8E4B8:
    case TILEC_DTYPE_FP8E5B16: return 8;
    case TILEC_DTYPE_I16:
    case TILEC_DTYPE_U16:
    case TILEC_DTYPE_F16:
    case TILEC_DTYPE_BF16: return 16;
    case TILEC_DTYPE_I32:
    case TILEC_DTYPE_U32:
    case TILEC_DTYPE_F32: return 32;
    case TILEC_DTYPE_I64:
    case TILEC_DTYPE_U64:
    case TILEC_DTYPE_F64: return 64;
    default: return 0;
  }
}

int tc_ty_mantissa_bits(tc_ty t) {
  switch (t.dt) {
    case TILEC_DTYPE_F16: return 10;
    case TILEC_DTYPE_BF16: return 7;
    case TILEC_DTYPE_F32: return 23;
    case TILEC_DTYPE_F64: return 52;
    case TILEC_DTYPE_FP8E5:
    case TILEC_DTYPE_FP8E5B16: return 2;
    case TILEC_DTYPE_FP8E4NV:
    case TILEC_DTYPE_FP8E4B15:
    case TILEC_DTYPE_FP8E4B8: return 3;
    default: return 0;
  }
}

static const struct {
  const char *sig, *tl;
  tilec_dtype dt;
} names[] = {
    {"i1", "int1", TILEC_DTYPE_I1},
    {"i8", "int8", TILEC_DTYPE_I8},
    {"i16", "int16", TILEC_DTYPE_I16},
    {"i32", "int32", TILEC_DTYPE_I32},
    {"i64", "int64", TILEC_DTYPE_I64},
    {"u8", "uint8", TILEC_DTYPE_U8},
    {"u16", "uint16", TILEC_DTYPE_U16},
    {"u32", "uint32", TILEC_DTYPE_U32},
    {"u64", "uint64", TILEC_DTYPE_U64},
    {"fp16", "float16", TILEC_DTYPE_F16},
    {"bf16", "bfloat16", TILEC_DTYPE_BF16},
    {"fp32", "float32", TILEC_DTYPE_F32},
    {"fp64", "float64", TILEC_DTYPE_F64},
    {"fp8e5", "float8e5", TILEC_DTYPE_FP8E5},
    {"fp8e4nv", "float8e4nv", TILEC_DTYPE_FP8E4NV},
    {"fp8e4b15", "float8e4b15", TILEC_DTYPE_FP8E4B15},
    {"fp8e4b8", "float8e4b8", TILEC_DTYPE_FP8E4B8},
    {"fp8e5b16", "float8e5b16", TILEC_DTYPE_FP8E5B16},
};

void tc_ty_name(tc_ty t, char *buf, size_t n) {
  const char *base = "?";
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].dt == t.dt) base = names[i].sig;
  char stars[8] = "";
  for (int i = 0; i < t.ptr_depth && i < 7; i++) stars[i] = '*';
  snprintf(buf, n, "%s%s%s", stars, t.ptr_depth && t.is_const ? "const " : "", base);
}

bool tc_ty_parse(const char *s, size_t len, tc_ty *out) {
  int depth = 0;
  out->is_const = false;
  while (len && *s == '*') {
    depth++;
    s++;
    len--;
  }
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if ((strlen(names[i].sig) == len && !memcmp(s, names[i].sig, len)) ||
        (strlen(names[i].tl) == len && !memcmp(s, names[i].tl, len))) {
      out->dt = names[i].dt;
      out->ptr_depth = depth;
      return true;
    }
  }
  static const struct {
    const char *name;
    tilec_dtype dt;
  } aliases[] = {
      {"float", TILEC_DTYPE_F32}, {"half", TILEC_DTYPE_F16}, {"double", TILEC_DTYPE_F64},
      {"bool", TILEC_DTYPE_I1},   {"f16", TILEC_DTYPE_F16},  {"f32", TILEC_DTYPE_F32},
      {"f64", TILEC_DTYPE_F64},   {"u1", TILEC_DTYPE_I1},    {"B", TILEC_DTYPE_I1},
  };
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strlen(aliases[i].name) == len && !memcmp(s, aliases[i].name, len)) {
      out->dt = aliases[i].dt;
      out->ptr_depth = depth;
      return true;
    }
  return false;
}

MlirType tc_ty_mlir(MlirContext ctx, tc_ty t) {
  if (t.ptr_depth) {
    tc_ty inner = t;
    inner.ptr_depth--;
    return tile_ptr_type(ctx, tc_ty_mlir(ctx, inner));
  }
  switch (t.dt) {
    case TILEC_DTYPE_F16: return mlirF16TypeGet(ctx);
    case TILEC_DTYPE_BF16: return mlirBF16TypeGet(ctx);
    case TILEC_DTYPE_F32: return mlirF32TypeGet(ctx);
    case TILEC_DTYPE_F64: return mlirF64TypeGet(ctx);
    case TILEC_DTYPE_FP8E5: return mlirFloat8E5M2TypeGet(ctx);
    case TILEC_DTYPE_FP8E4NV: return mlirFloat8E4M3FNTypeGet(ctx);
    /* as Triton maps them; tilec only stores codes in them (frontend/fp8.c converts) */
    case TILEC_DTYPE_FP8E4B15: return mlirFloat8E4M3B11FNUZTypeGet(ctx);
    case TILEC_DTYPE_FP8E4B8: return mlirFloat8E4M3FNUZTypeGet(ctx);
    case TILEC_DTYPE_FP8E5B16: return mlirFloat8E5M2FNUZTypeGet(ctx);
    default: return mlirIntegerTypeGet(ctx, tc_ty_bits(t));
  }
}

/* Kinds ordered as Triton orders them for scalar promotion: bool < integer < float
 * (dtype.kind(): signed and unsigned integers are one kind). */
static int kind_rank(tc_ty t) {
  if (tc_ty_is_bool(t)) return 0;
  if (tc_ty_is_int(t)) return 1;
  return 2;
}

tc_ty tc_ty_integer_promote(tc_ty a, tc_ty b) {
  unsigned ra = tc_ty_bits(a), rb = tc_ty_bits(b);
  bool sa = tc_ty_is_signed(a), sb = tc_ty_is_signed(b);
  if (sa == sb) return ra > rb ? a : b;
  if (!sa) return ra >= rb ? a : b;
  return rb >= ra ? b : a;
}

static bool is_fp8(tc_ty t) { return t.dt == TILEC_DTYPE_FP8E5 || t.dt == TILEC_DTYPE_FP8E4NV; }

bool tc_ty_computation(tc_ty a, bool a_lit, tc_ty b, bool b_lit, bool div_or_mod, tc_ty *out, char *err, size_t errn) {
  /* A scalar of a lower or equal kind than the tensor takes no part in the promotion. */
  if (a_lit != b_lit) {
    tc_ty lit = a_lit ? a : b, other = a_lit ? b : a;
    if (kind_rank(lit) <= kind_rank(other)) a = b = other;
  }
  bool fa = tc_ty_is_float(a), fb = tc_ty_is_float(b);
  if (a.dt == TILEC_DTYPE_F64 || b.dt == TILEC_DTYPE_F64) {
    *out = tc_ty_make(TILEC_DTYPE_F64);
    return true;
  }
  /* no division or remainder below 32 bits: they run in fp32 */
  if (div_or_mod && (fa || fb)) {
    *out = tc_ty_make(TILEC_DTYPE_F32);
    return true;
  }
  if (a.dt == TILEC_DTYPE_F32 || b.dt == TILEC_DTYPE_F32) {
    *out = tc_ty_make(TILEC_DTYPE_F32);
    return true;
  }
  if (a.dt == TILEC_DTYPE_F16 || b.dt == TILEC_DTYPE_F16) {
    *out = tc_ty_make(TILEC_DTYPE_F16);
    return true;
  }
  if (a.dt == TILEC_DTYPE_BF16 && b.dt == TILEC_DTYPE_BF16) {
    *out = a;
    return true;
  }
  if (a.dt == TILEC_DTYPE_BF16 || b.dt == TILEC_DTYPE_BF16) {
    *out = tc_ty_make(TILEC_DTYPE_F32);
    return true;
  }
  if (is_fp8(a) && is_fp8(b)) {
    *out = a.dt == b.dt ? a : tc_ty_make(TILEC_DTYPE_F16);
    return true;
  }
  char na[16], nb[16];
  tc_ty_name(a, na, sizeof na);
  tc_ty_name(b, nb, sizeof nb);
  if (!tc_ty_is_int(a) || !tc_ty_is_int(b)) {
    snprintf(err, errn, "unexpected type %s and %s", na, nb);
    return false;
  }
  /* int1 counts as unsigned here, as in Triton */
  if (div_or_mod && tc_ty_is_signed(a) != tc_ty_is_signed(b)) {
    snprintf(err, errn,
             "Cannot use /, //, or %% with %s and %s because they have different signedness; "
             "this is unlikely to result in a useful answer. Cast them to the same signedness.",
             na, nb);
    return false;
  }
  *out = tc_ty_integer_promote(a, b);
  return true;
}

void tc_ty_tl_name(tc_ty t, char *buf, size_t n) {
  const char *base = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].dt == t.dt) base = names[i].tl;
  if (!base) {
    tc_ty_name(t, buf, n);
    return;
  }
  int k = 0;
  for (int i = 0; i < t.ptr_depth && k >= 0 && (size_t)k < n; i++)
    k += snprintf(buf + k, n - (size_t)k, "tl.pointer_type(");
  if (k >= 0 && (size_t)k < n) k += snprintf(buf + k, n - (size_t)k, "tl.%s", base);
  for (int i = 0; i < t.ptr_depth && k >= 0 && (size_t)k < n; i++) k += snprintf(buf + k, n - (size_t)k, ")");
}
