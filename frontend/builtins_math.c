/* frontend/builtins_math.c — the elementwise math builtins: tl.exp ... tl.cbrt (one math.*
 * op each, also libdevice's names), abs, minimum/maximum, clamp, fma, sigmoid, fdiv/div_rn,
 * pow, atan2, fmod, isnan/isinf, umulhi. The accurate forms (div_rn, fdiv(ieee_rounding=True),
 * sqrt_rn, libdevice.exp/exp2) carry TC_ATTR_PRECISE for the nvptx backend. In: call arguments
 * (registry rows below). Out: math/arith ops on float tensors, or Triton's errors for other types. */
#include "frontend/builtins.h"

#include "dialects/ir_util.h"
#include "frontend/parser.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* tl.NAME(x) -> the math.* op in b->data (fp32/fp64 inputs, as Triton's math functions). */
static tc_val math_unary(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  tc_val x = cg_positional(cg, a, b->name, 1, loc);
  if (cg->err) return x;
  char user[64];
  snprintf(user, sizeof user, "tl.%s", b->name);
  return cg_math_unary(cg, b->data, x, loc, user);
}

tc_val cg_math_abs(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  tc_val x = cg_positional(cg, a, "tl.abs", 1, loc);
  if (cg->err) return x;
  if (x.kind != TV_TENSOR) x = cg_to_tensor(cg, &x, loc);
  if (cg->err) return x;
  if (tc_ty_is_fp8(x.ty)) {
    /* as Triton: the code with its sign bit cleared (no round trip through fp32) */
    tc_ty u8 = tc_ty_make(TILEC_DTYPE_U8);
    tc_val bits = cg_cast(cg, x, u8, true, loc);
    if (cg->err) return bits;
    bits = cg_binary(cg, TC_OP_BITAND, bits, tv_int(0x7F), loc);
    return cg->err ? bits : cg_cast(cg, bits, x.ty, true, loc);
  }
  if (tc_ty_is_float(x.ty))
    return tv_tensor(tcb_cast(&cg->b, "math.absf", x.v, mlirValueGetType(x.v)), x.ty, x.rank, x.shape);
  if (tc_ty_is_signed(x.ty))
    return tv_tensor(tcb_cast(&cg->b, "math.absi", x.v, mlirValueGetType(x.v)), x.ty, x.rank, x.shape);
  if (tc_ty_is_int(x.ty)) return x;
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.abs is not defined on pointers");
}

/* propagate_nan=tl.PropagateNan.ALL (0xFFFF, or the string "ALL"): a NaN operand wins. */
static bool propagate_nan(const tc_val *pn) {
  return pn && ((pn->kind == TV_INT && pn->i) || (pn->kind == TV_STR && pn->slen == 3));
}

static tc_val minimum_maximum(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  return cg_minmax(cg, !strcmp(b->name, "maximum"), *cg_arg(a, &b->sig, "x"), *cg_arg(a, &b->sig, "y"),
                   propagate_nan(cg_arg(a, &b->sig, "propagate_nan")), loc);
}

static tc_val clamp(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  /* propagate_nan=tl.PropagateNan.ALL: a NaN in x stays NaN (NaN bounds are undefined in
   * Triton, as here); NONE clamps a NaN x to min */
  bool all = propagate_nan(cg_arg(a, &b->sig, "propagate_nan"));
  tc_val lo = cg_minmax(cg, true, *cg_arg(a, &b->sig, "x"), *cg_arg(a, &b->sig, "min"), all, loc);
  return cg_minmax(cg, false, lo, *cg_arg(a, &b->sig, "max"), all, loc);
}

static tc_val fma3(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  if (a->nargs != 3) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.fma() takes 3 arguments");
  tc_val x = a->args[0], y = a->args[1], z = a->args[2];
  tc_val xy = cg_binary(cg, TC_OP_MUL, x, y, loc);
  if (cg->err) return xy;
  if (!tc_ty_is_float(xy.ty)) return cg_binary(cg, TC_OP_ADD, xy, z, loc);
  /* Build the fused op from the promoted operands. */
  tc_val zz = cg_cast(cg, z, xy.ty, false, loc);
  int rank;
  int64_t shape[TC_MAX_RANK];
  if (!cg_broadcast_shapes(cg, &xy, &zz, &rank, shape, loc)) return (tc_val){0};
  tc_val xa = cg_broadcast_to(cg, cg_cast(cg, x, xy.ty, false, loc), rank, shape, loc);
  tc_val ya = cg_broadcast_to(cg, cg_cast(cg, y, xy.ty, false, loc), rank, shape, loc);
  zz = cg_broadcast_to(cg, zz, rank, shape, loc);
  if (cg->err) return zz;
  MlirValue ops[3] = {xa.v, ya.v, zz.v};
  MlirValue r = tcb_op1(&cg->b, "math.fma", mlirValueGetType(zz.v), 3, ops, 0, NULL);
  return tv_tensor(r, xy.ty, rank, shape);
}

static tc_val sigmoid(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  tc_val x = cg_positional(cg, a, "tl.sigmoid", 1, loc);
  if (cg->err) return x;
  tc_val neg = cg_unary(cg, TC_UOP_NEG, x, loc);
  tc_val e = cg_math_unary(cg, "math.exp", neg, loc, "tl.sigmoid");
  if (cg->err) return e;
  tc_val one = tv_float(1.0);
  return cg_binary(cg, TC_OP_TRUEDIV, one, cg_binary(cg, TC_OP_ADD, one, e, loc), loc);
}

static tc_val binary_math(tc_cg *cg, const char *op, tc_val x, tc_val y, const char *fn, tc_loc loc) {
  /* a Python number beside a float tile takes the tile's type (Triton's binary promotion:
   * tl.div_rn(6 * 448, amax)) */
  if (tv_is_number(&x) && y.kind == TV_TENSOR && tc_ty_is_float(y.ty)) x = cg_cast(cg, x, y.ty, false, loc);
  if (tv_is_number(&y) && x.kind == TV_TENSOR && tc_ty_is_float(x.ty)) y = cg_cast(cg, y, x.ty, false, loc);
  if (cg->err) return x;
  if (x.kind != TV_TENSOR) x = cg_to_tensor(cg, &x, loc);
  if (y.kind != TV_TENSOR) y = cg_to_tensor(cg, &y, loc);
  if (cg->err) return x;
  tc_ty ct = x.ty.dt == TILEC_DTYPE_F64 || y.ty.dt == TILEC_DTYPE_F64 ? tc_ty_make(TILEC_DTYPE_F64)
                                                                      : tc_ty_make(TILEC_DTYPE_F32);
  if (!tc_ty_is_float(x.ty) || !tc_ty_is_float(y.ty) || (x.ty.dt != ct.dt && x.ty.dt != TILEC_DTYPE_F32))
    if (!tc_ty_is_float(x.ty) || !tc_ty_is_float(y.ty))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s expects floating-point inputs", fn);
  x = cg_cast(cg, x, ct, false, loc);
  y = cg_cast(cg, y, ct, false, loc);
  int rank;
  int64_t shape[TC_MAX_RANK];
  if (!cg_broadcast_shapes(cg, &x, &y, &rank, shape, loc)) return (tc_val){0};
  x = cg_broadcast_to(cg, x, rank, shape, loc);
  y = cg_broadcast_to(cg, y, rank, shape, loc);
  if (cg->err) return x;
  return tv_tensor(tcb_binary(&cg->b, op, x.v, y.v), ct, rank, shape);
}

/* The op defining v computes the accurate form (TC_ATTR_PRECISE: IEEE division and square
 * root, libdevice's function on NVIDIA instead of Triton's approximate instruction). */
static tc_val precise(tc_cg *cg, tc_val v) {
  if (!cg->err && v.kind == TV_TENSOR && mlirValueIsAOpResult(v.v)) tc_op_set_precise(mlirOpResultGetOwner(v.v));
  return v;
}

/* tl.div_rn: division rounded as IEEE's on every target */
static tc_val div_rn(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  return precise(cg, binary_math(cg, "arith.divf", *cg_arg(a, &b->sig, "x"), *cg_arg(a, &b->sig, "y"), b->name, loc));
}

/* tl.fdiv(x, y, ieee_rounding=False, approx=False): Triton's `/` (div.full.f32 on NVIDIA)
 * unless ieee_rounding asks for IEEE rounding; approx (Triton's div.approx.f32, fp32 only)
 * is computed as the default division here, never less accurate. */
static tc_val fdiv_fn(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  bool ieee = false, approx = false;
  const tc_val *ir = cg_arg(a, &b->sig, "ieee_rounding"), *ap = cg_arg(a, &b->sig, "approx");
  if ((ir && !cg_truthy_constexpr(cg, ir, loc, &ieee)) || (ap && !cg_truthy_constexpr(cg, ap, loc, &approx)))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.fdiv's ieee_rounding and approx must be constexpr bools");
  if (ieee && approx) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "approx and ieee_rounding cannot both be True");
  tc_val x = *cg_arg(a, &b->sig, "x"), y = *cg_arg(a, &b->sig, "y");
  if (approx &&
      ((x.kind == TV_TENSOR && x.ty.dt != TILEC_DTYPE_F32) || (y.kind == TV_TENSOR && y.ty.dt != TILEC_DTYPE_F32)))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "approx division requires float32 operands");
  tc_val r = binary_math(cg, "arith.divf", x, y, "fdiv", loc);
  return ieee ? precise(cg, r) : r;
}

/* tl.NAME(x) in its accurate form: tl.sqrt_rn (sqrt.rn on NVIDIA where tl.sqrt is
 * sqrt.approx), libdevice.exp (__nv_expf where tl.exp is ex2.approx of x * log2(e)),
 * libdevice.exp2 (__nv_exp2f, subnormal results kept, where tl.exp2 is ex2.approx.ftz). */
static tc_val math_unary_precise(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  tc_val x = cg_positional(cg, a, b->sig.fn, 1, loc);
  if (cg->err) return x;
  return precise(cg, cg_math_unary(cg, b->data, x, loc, b->sig.fn));
}

/* libdevice.pow(x, n) with an int32 n (__nv_powif on fp32, __nv_powi on fp64): x^n from pow
 * on fp64 with n exact, so fp32 results are rounded once from a result good to fp64's 1 ulp,
 * negative bases give the sign of n's parity, and 0^-n is inf. */
static tc_val pow_int(tc_cg *cg, tc_val x, tc_val n, tc_loc loc) {
  if (x.kind != TV_TENSOR) x = cg_to_tensor(cg, &x, loc);
  if (n.kind != TV_TENSOR) n = cg_to_tensor(cg, &n, loc);
  if (cg->err) return x;
  if (!tc_ty_is_float(x.ty) || tc_ty_is_ptr(x.ty))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "pow expects a floating-point base");
  if (n.ty.dt != TILEC_DTYPE_I32) {
    char t[16];
    tc_ty_name(n.ty, t, sizeof t);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                    "pow with an integer exponent takes an int32 exponent (libdevice's (fp32, int32) and (fp64, int32) "
                    "forms), got %s",
                    t);
  }
  tc_ty f64 = tc_ty_make(TILEC_DTYPE_F64);
  tc_ty rt = x.ty.dt == TILEC_DTYPE_F64 ? f64 : tc_ty_make(TILEC_DTYPE_F32);
  tc_val r = binary_math(cg, "math.powf", cg_cast(cg, x, f64, false, loc), cg_cast(cg, n, f64, false, loc), "pow", loc);
  return cg->err ? r : cg_cast(cg, r, rt, false, loc);
}

/* pow, atan2, fmod (libdevice's): the op in b->data on two float operands */
static tc_val binary_fn(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  if (a->nargs != 2) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s() takes 2 arguments", b->name);
  const tc_val *y = &a->args[1];
  bool int_exp = y->kind == TV_INT || (y->kind == TV_TENSOR && tc_ty_is_int(y->ty) && !tc_ty_is_ptr(y->ty));
  if (!strcmp(b->name, "pow") && int_exp) return pow_int(cg, a->args[0], *y, loc);
  return binary_math(cg, b->data, a->args[0], a->args[1], b->name, loc);
}

static tc_val isnan_isinf(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *name = b->name;
  tc_val x = cg_positional(cg, a, name, 1, loc);
  if (cg->err) return x;
  if (x.kind != TV_TENSOR || !tc_ty_is_float(x.ty))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s expects a float tensor", name);
  if (!strcmp(name, "isnan")) {
    MlirValue r = tcb_cmpf(&cg->b, "uno", x.v, x.v);
    return tv_tensor(r, tc_ty_make(TILEC_DTYPE_I1), x.rank, x.shape);
  }
  MlirValue ab = tcb_cast(&cg->b, "math.absf", x.v, mlirValueGetType(x.v));
  MlirValue inf = cg_constant(cg, x.ty, INFINITY, 0, x.rank, x.shape).v;
  return tv_tensor(tcb_cmpf(&cg->b, "oeq", ab, inf), tc_ty_make(TILEC_DTYPE_I1), x.rank, x.shape);
}

static tc_val umulhi(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  if (a->nargs != 2) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.umulhi() takes 2 arguments");
  tc_val x = a->args[0], y = a->args[1];
  tc_val p = cg_binary(cg, TC_OP_MUL, x, y, loc); /* for the promoted type and shapes */
  if (cg->err) return p;
  if (!tc_ty_is_int(p.ty)) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.umulhi expects integer operands");
  if (tc_ty_bits(p.ty) > 32) {
    /* 64-bit: the high half of the 128-bit product from 32-bit halves (prelude) */
    const tc_func *f = cg->prelude ? tc_module_find(cg->prelude, "_umulhi64") : NULL;
    if (!f) return cg_error(cg, loc, TILEC_ERROR_INTERNAL, "the prelude lacks _umulhi64");
    tc_ty u64 = tc_ty_make(TILEC_DTYPE_U64);
    tc_val args[2] = {cg_cast(cg, cg_broadcast_to(cg, x, p.rank, p.shape, loc), u64, false, loc),
                      cg_cast(cg, cg_broadcast_to(cg, y, p.rank, p.shape, loc), u64, false, loc)};
    if (cg->err) return p;
    tc_val hi = cg_call_jit(cg, f, args, 2, NULL, NULL, 0, loc);
    if (cg->err) return hi;
    return cg_cast(cg, hi, p.ty, false, loc);
  }
  tc_ty u64 = tc_ty_make(TILEC_DTYPE_U64), u32 = tc_ty_make(TILEC_DTYPE_U32);
  tc_val xa = cg_cast(cg, cg_cast(cg, cg_broadcast_to(cg, x, p.rank, p.shape, loc), u32, false, loc), u64, false, loc);
  tc_val ya = cg_cast(cg, cg_cast(cg, cg_broadcast_to(cg, y, p.rank, p.shape, loc), u32, false, loc), u64, false, loc);
  tc_val m = cg_binary(cg, TC_OP_MUL, xa, ya, loc);
  tc_val hi = cg_binary(cg, TC_OP_RSHIFT, m, tv_int(32), loc);
  return cg_cast(cg, hi, p.ty, false, loc);
}

static const char *const p_minmax[] = {"x", "y", "propagate_nan", NULL};
static const char *const p_clamp[] = {"x", "min", "max", "propagate_nan", NULL};
static const char *const p_fdiv[] = {"x", "y", "ieee_rounding", "approx", NULL};
static const char *const p_xy[] = {"x", "y", NULL};

#define UNARY(NAME, OP) {NAME, math_unary, {NAME, NULL}, 0, OP}

const cg_builtin cg_builtins_math[] = {
    UNARY("exp", "math.exp"),
    UNARY("exp2", "math.exp2"),
    UNARY("log", "math.log"),
    UNARY("log2", "math.log2"),
    UNARY("sin", "math.sin"),
    UNARY("cos", "math.cos"),
    UNARY("sqrt", "math.sqrt"),
    {"sqrt_rn", math_unary_precise, {"tl.sqrt_rn", NULL}, 0, "math.sqrt"},
    UNARY("rsqrt", "math.rsqrt"),
    UNARY("erf", "math.erf"),
    UNARY("floor", "math.floor"),
    UNARY("ceil", "math.ceil"),
    UNARY("tan", "math.tan"),
    UNARY("tanh", "math.tanh"),
    UNARY("asin", "math.asin"),
    UNARY("acos", "math.acos"),
    UNARY("atan", "math.atan"),
    UNARY("sinh", "math.sinh"),
    UNARY("cosh", "math.cosh"),
    UNARY("asinh", "math.asinh"),
    UNARY("acosh", "math.acosh"),
    UNARY("atanh", "math.atanh"),
    UNARY("log10", "math.log10"),
    UNARY("log1p", "math.log1p"),
    UNARY("expm1", "math.expm1"),
    UNARY("rint", "math.roundeven"),
    UNARY("nearbyint", "math.roundeven"),
    UNARY("round", "math.round"),
    UNARY("trunc", "math.trunc"),
    UNARY("erfc", "math.erfc"),
    UNARY("cbrt", "math.cbrt"),
    {"abs", cg_math_abs, {"tl.abs", NULL}, 0, NULL},
    {"minimum", minimum_maximum, {"minimum", p_minmax}, 2, NULL},
    {"maximum", minimum_maximum, {"maximum", p_minmax}, 2, NULL},
    {"clamp", clamp, {"tl.clamp", p_clamp}, 3, NULL},
    {"fma", fma3, {"tl.fma", NULL}, 0, NULL},
    {"sigmoid", sigmoid, {"tl.sigmoid", NULL}, 0, NULL},
    {"fdiv", fdiv_fn, {"tl.fdiv", p_fdiv}, 2, NULL},
    {"div_rn", div_rn, {"tl.div_rn", p_xy}, 2, NULL},
    /* libdevice.exp (frontend/builtins.c): not a name tl has (a dot cannot follow tl.) */
    {"libdevice.exp", math_unary_precise, {"libdevice.exp", NULL}, 0, "math.exp"},
    {"libdevice.exp2", math_unary_precise, {"libdevice.exp2", NULL}, 0, "math.exp2"},
    {"pow", binary_fn, {"pow", NULL}, 0, "math.powf"},
    {"atan2", binary_fn, {"atan2", NULL}, 0, "math.atan2"},
    {"fmod", binary_fn, {"fmod", NULL}, 0, "arith.remf"},
    {"isnan", isnan_isinf, {"isnan", NULL}, 0, NULL},
    {"isinf", isnan_isinf, {"isinf", NULL}, 0, NULL},
    {"umulhi", umulhi, {"tl.umulhi", NULL}, 0, NULL},
    {NULL, NULL, {NULL, NULL}, 0, NULL},
};
