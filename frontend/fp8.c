/* frontend/fp8.c — Triton's five fp8 types as storage types: tiles hold the 8-bit codes
 * (MLIR f8 types, lowered as bytes); every cast from or to fp8 goes through fp32 with the
 * prelude's _fp8_decode/_fp8_encode (round to nearest even, saturating, NaN kept), and
 * arithmetic, comparisons and min/max on fp8 operands run in fp32 with the result rounded
 * back to the type Triton's promotion gives. Constants are encoded here, at compile time,
 * with the same rules. In: tc_vals involving fp8. Out: tile IR, or a located error. */
#include "frontend/cg.h"

#include "frontend/parser.h"

#include <math.h>
#include <string.h>

/* mantissa bits, exponent bias, format (0 IEEE-like, 1 "fn": S.1111.111 is NaN, 2 "fnuz") */
typedef struct fp8_format {
  int mant, bias, fmt;
} fp8_format;

static bool format_of(tc_ty t, fp8_format *f) {
  if (t.ptr_depth) return false;
  switch (t.dt) {
    case TILEC_DTYPE_FP8E5: *f = (fp8_format){2, 15, 0}; return true;
    case TILEC_DTYPE_FP8E4NV: *f = (fp8_format){3, 7, 1}; return true;
    case TILEC_DTYPE_FP8E4B15: *f = (fp8_format){3, 15, 1}; return true;
    case TILEC_DTYPE_FP8E4B8: *f = (fp8_format){3, 8, 2}; return true;
    case TILEC_DTYPE_FP8E5B16: *f = (fp8_format){2, 16, 2}; return true;
    default: return false;
  }
}

static bool is_fp8_tensor(const tc_val *v) {
  fp8_format f;
  return v->kind == TV_TENSOR && format_of(v->ty, &f);
}

/* The code of fp32 value x (the prelude's _fp8_encode, restated for constants). */
static uint8_t encode(float x, fp8_format f) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  uint32_t a = bits & 0x7FFFFFFFu, sign = (bits >> 24) & 0x80u;
  int shift = 23 - f.mant;
  uint32_t code;
  if (a < ((uint32_t)(128 - f.bias) << 23)) {
    code = (uint32_t)nearbyint(fabs((double)x) * ldexp(1.0, f.bias - 1 + f.mant)); /* default mode: ties to even */
  } else {
    uint32_t r = (a + (1u << (shift - 1)) - 1 + ((a >> shift) & 1)) >> shift;
    code = r - ((uint32_t)(127 - f.bias) << f.mant);
  }
  uint32_t maxc = f.fmt == 0   ? ((((1u << (7 - f.mant)) - 2) << f.mant) | ((1u << f.mant) - 1))
                  : f.fmt == 1 ? 0x7E
                               : 0x7F;
  if (code > maxc) code = maxc;
  if (f.fmt == 2) {
    if (code) code |= sign;
    if (a > 0x7F800000u) code = 0x80;
  } else {
    code |= sign;
    if (a > 0x7F800000u) code = 0x7F | sign;
  }
  return (uint8_t)code;
}

tc_val cg_fp8_constant(tc_cg *cg, tc_ty ty, double v, int rank, const int64_t *shape) {
  fp8_format f;
  format_of(ty, &f);
  tc_ty u8 = tc_ty_make(TILEC_DTYPE_U8);
  /* as Triton: the number becomes an fp32 first, then an fp8 */
  tc_val c = cg_constant(cg, u8, 0, encode((float)v, f), rank, shape);
  return tv_tensor(tcb_cast(&cg->b, "arith.bitcast", c.v, cg_tensor_type(cg, ty, rank, shape)), ty, rank, shape);
}

static tc_val call_prelude(tc_cg *cg, const char *fn, tc_val x, fp8_format f, tc_loc loc) {
  const tc_func *pf = cg->prelude ? tc_module_find(cg->prelude, fn) : NULL;
  if (!pf) return cg_error(cg, loc, TILEC_ERROR_INTERNAL, "the prelude lacks %s", fn);
  tc_val args[4] = {x, tv_int(f.mant), tv_int(f.bias), tv_int(f.fmt)};
  return cg_call_jit(cg, pf, args, 4, NULL, NULL, 0, loc);
}

tc_val cg_fp8_cast(tc_cg *cg, tc_val v, tc_ty to, tc_loc loc) {
  fp8_format ff, ft;
  bool from8 = format_of(v.ty, &ff), to8 = format_of(to, &ft);
  tc_ty f32 = tc_ty_make(TILEC_DTYPE_F32), u8 = tc_ty_make(TILEC_DTYPE_U8);
  if (from8) {
    tc_val bits = cg_cast(cg, v, u8, true, loc);
    if (cg->err) return bits;
    tc_val x = call_prelude(cg, "_fp8_decode", bits, ff, loc);
    if (cg->err) return x;
    return cg_cast(cg, x, to, false, loc);
  }
  if (!to8) return cg_error(cg, loc, TILEC_ERROR_INTERNAL, "cg_fp8_cast without an fp8 type");
  /* fp16/bf16 widen exactly; fp64 and integers round to fp32 first (as Triton's backends
   * convert them), then to fp8 */
  tc_val x = cg_cast(cg, v, f32, false, loc);
  if (cg->err) return x;
  tc_val code = call_prelude(cg, "_fp8_encode", x, ft, loc);
  if (cg->err) return code;
  return cg_cast(cg, code, to, true, loc);
}

/* The compute type of an operation with an fp8 operand: fp32, or fp64 when the other
 * operand is fp64. */
static tc_ty wide_type(const tc_val *a, const tc_val *b) {
  bool f64 =
      (a->kind == TV_TENSOR && a->ty.dt == TILEC_DTYPE_F64) || (b->kind == TV_TENSOR && b->ty.dt == TILEC_DTYPE_F64);
  return tc_ty_make(f64 ? TILEC_DTYPE_F64 : TILEC_DTYPE_F32);
}

static bool result_type(tc_cg *cg, const tc_val *a, const tc_val *b, bool div, const char *what, tc_ty *out,
                        tc_loc loc) {
  char err[256];
  tc_ty ta = a->kind == TV_TENSOR ? a->ty : tc_ty_make(TILEC_DTYPE_F32);
  tc_ty tb = b->kind == TV_TENSOR ? b->ty : tc_ty_make(TILEC_DTYPE_F32);
  if (!tc_ty_computation(ta, a->kind != TV_TENSOR, tb, b->kind != TV_TENSOR, div, out, err, sizeof err)) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "invalid operands for '%s': %s", what, err);
    return false;
  }
  /* Triton computes / and % on any float below 32 bits in fp32 */
  if (div && tc_ty_bits(*out) < 32) *out = tc_ty_make(TILEC_DTYPE_F32);
  return true;
}

static bool widen(tc_cg *cg, tc_val *a, tc_val *b, tc_loc loc) {
  tc_ty w = wide_type(a, b);
  if (a->kind == TV_TENSOR) *a = cg_cast(cg, *a, w, false, loc);
  if (b->kind == TV_TENSOR) *b = cg_cast(cg, *b, w, false, loc);
  return !cg->err;
}

bool cg_fp8_binary(tc_cg *cg, tc_binop op, tc_val a, tc_val b, tc_loc loc, tc_val *out) {
  if (!is_fp8_tensor(&a) && !is_fp8_tensor(&b)) return false;
  *out = (tc_val){0};
  if ((a.kind == TV_TENSOR && tc_ty_is_ptr(a.ty)) || (b.kind == TV_TENSOR && tc_ty_is_ptr(b.ty))) return false;
  static const char *sym[] = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@"};
  if (op == TC_OP_MATMUL || op == TC_OP_POW) return false;
  bool div = op == TC_OP_TRUEDIV || op == TC_OP_FLOORDIV || op == TC_OP_MOD;
  tc_ty rt;
  if (!result_type(cg, &a, &b, div, sym[op], &rt, loc) || !widen(cg, &a, &b, loc)) return true;
  tc_val r = cg_binary(cg, op, a, b, loc);
  if (cg->err) return true;
  *out = tc_ty_eq(r.ty, rt) ? r : cg_cast(cg, r, rt, false, loc);
  return true;
}

bool cg_fp8_compare(tc_cg *cg, tc_cmpop op, tc_val a, tc_val b, tc_loc loc, tc_val *out) {
  if (!is_fp8_tensor(&a) && !is_fp8_tensor(&b)) return false;
  *out = (tc_val){0};
  tc_ty rt;
  if (!result_type(cg, &a, &b, false, "comparison", &rt, loc) || !widen(cg, &a, &b, loc)) return true;
  *out = cg_compare(cg, op, a, b, loc);
  return true;
}

bool cg_fp8_minmax(tc_cg *cg, bool is_max, tc_val a, tc_val b, bool propagate_nan, tc_loc loc, tc_val *out) {
  if (!is_fp8_tensor(&a) && !is_fp8_tensor(&b)) return false;
  *out = (tc_val){0};
  tc_ty rt;
  if (!result_type(cg, &a, &b, false, is_max ? "tl.maximum" : "tl.minimum", &rt, loc) || !widen(cg, &a, &b, loc))
    return true;
  tc_val r = cg_minmax(cg, is_max, a, b, propagate_nan, loc);
  if (!cg->err) *out = tc_ty_eq(r.ty, rt) ? r : cg_cast(cg, r, rt, false, loc);
  return true;
}

bool cg_fp8_negate(tc_cg *cg, tc_val a, tc_loc loc, tc_val *out) {
  if (!is_fp8_tensor(&a)) return false;
  tc_val w = cg_cast(cg, a, tc_ty_make(TILEC_DTYPE_F32), false, loc);
  tc_val n = cg->err ? w : cg_unary(cg, TC_UOP_NEG, w, loc);
  *out = cg->err ? n : cg_cast(cg, n, a.ty, false, loc);
  return true;
}

tc_val cg_cast_rounded(tc_cg *cg, tc_val v, tc_ty to, const tc_val *rounding, tc_loc loc) {
  if (v.kind != TV_TENSOR) v = cg_to_tensor(cg, &v, loc);
  if (cg->err || tc_ty_eq(v.ty, to)) return v; /* Triton: a cast to the same type is the value, whatever the rounding */
  bool rtz = rounding->kind == TV_STR && rounding->slen == 3 && !memcmp(rounding->s, "rtz", 3);
  bool rtne = rounding->kind == TV_STR && rounding->slen == 4 && !memcmp(rounding->s, "rtne", 4);
  if (!rtz && !rtne) {
    if (rounding->kind == TV_STR)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "fp_downcast_rounding must be 'rtne' or 'rtz', got '%.*s'",
                      (int)rounding->slen, rounding->s);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "fp_downcast_rounding must be 'rtne' or 'rtz', got a %s",
                    tv_kind_name(rounding));
  }
  if (!tc_ty_is_float(v.ty) || !tc_ty_is_float(to) || tc_ty_bits(to) >= tc_ty_bits(v.ty)) {
    char a[16], b[16];
    tc_ty_name(v.ty, a, sizeof a);
    tc_ty_name(to, b, sizeof b);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                    "fp_downcast_rounding should be set only for truncating fp conversions, not %s to %s", a, b);
  }
  tc_val y = cg_cast(cg, v, to, false, loc); /* round to nearest even */
  if (cg->err || rtne) return y;
  /* toward zero: where rounding to nearest went away from zero, step the code's magnitude
   * down by one (prelude's _rtz_fixup) */
  const tc_func *pf = cg->prelude ? tc_module_find(cg->prelude, "_rtz_fixup") : NULL;
  if (!pf) return cg_error(cg, loc, TILEC_ERROR_INTERNAL, "the prelude lacks _rtz_fixup");
  unsigned bits = tc_ty_bits(to);
  tc_ty ity = tc_ty_make(bits == 8 ? TILEC_DTYPE_U8 : bits == 16 ? TILEC_DTYPE_U16 : TILEC_DTYPE_U32);
  fp8_format f;
  bool fnuz = format_of(to, &f) && f.fmt == 2;
  tc_val args[4] = {v, y, tv_dtype(ity), tv_bool(fnuz)};
  return cg_call_jit(cg, pf, args, 4, NULL, NULL, 0, loc);
}
