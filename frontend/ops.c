/* frontend/ops.c — Triton's tensor semantics: literal conversion, casts, broadcasting,
 * arithmetic with type promotion (C-style integer // and %), comparisons, where, min/max.
 * In: tc_val operands. Out: tile-dialect / arith / math ops on tensors and scalars. */
#include "frontend/builtins.h"

#include <math.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <string.h>

MlirType cg_tensor_type(tc_cg *cg, tc_ty ty, int rank, const int64_t *shape) {
  MlirType e = tc_ty_mlir(cg->ctx, ty);
  if (!rank) return e;
  return mlirRankedTensorTypeGet(rank, shape, e, mlirAttributeGetNull());
}

static tc_val same_shape(MlirValue v, tc_ty ty, const tc_val *like) {
  return tv_tensor(v, ty, like->rank, like->shape);
}

tc_val cg_constant(tc_cg *cg, tc_ty ty, double fv, int64_t iv, int rank, const int64_t *shape) {
  if (tc_ty_is_fp8(ty)) return cg_fp8_constant(cg, ty, fv, rank, shape);
  MlirType st = tc_ty_mlir(cg->ctx, ty);
  MlirValue s = tc_ty_is_float(ty) ? tcb_const_float(&cg->b, st, fv) : tcb_const_int(&cg->b, st, iv);
  if (rank) s = tile_build_splat(&cg->b, s, cg_tensor_type(cg, ty, rank, shape));
  return tv_tensor(s, ty, rank, shape);
}

static tc_ty literal_type(const tc_val *v) {
  if (v->kind == TV_BOOL) return tc_ty_make(TILEC_DTYPE_I1);
  if (v->kind == TV_FLOAT) { /* fp32 unless the value is only representable in fp64 */
    double a = fabs(v->f);
    bool f32 = a == 0.0 || isinf(a) || isnan(a) || (a >= 0x1p-126 && a <= 0x1.fffffep127);
    return tc_ty_make(f32 ? TILEC_DTYPE_F32 : TILEC_DTYPE_F64);
  }
  /* Triton: int32, then uint32 for [2^31, 2^32), then int64, then uint64. */
  if (v->kind == TV_INT && v->u64) return tc_ty_make(TILEC_DTYPE_U64);
  if (v->i >= INT32_MIN && v->i <= INT32_MAX) return tc_ty_make(TILEC_DTYPE_I32);
  if (v->i > INT32_MAX && v->i <= (int64_t)UINT32_MAX) return tc_ty_make(TILEC_DTYPE_U32);
  return tc_ty_make(TILEC_DTYPE_I64);
}

static double literal_float(const tc_val *v) {
  if (v->kind == TV_INT && v->u64) return (double)(uint64_t)v->i;
  return v->kind == TV_FLOAT ? v->f : (double)v->i;
}

/* Compile-time arithmetic on an integer in [2^63, 2^64) would need Python's unbounded
 * ints; such constants work as operands of tensor operations (typed uint64). */
static bool big_int(const tc_val *v) { return v->kind == TV_INT && v->u64; }

/* A float converted the way fptosi would for in-range values; NaN, infinities and values
 * beyond int64 (float('-inf') as `other=` of an integer load, or as a float constant whose
 * integer form is never used) saturate instead of being undefined behaviour in C. */
static int64_t cg_float_to_int64(double f) {
  if (isnan(f)) return 0;
  if (f >= 0x1p63) return INT64_MAX;
  if (f < -0x1p63) return INT64_MIN;
  return (int64_t)f;
}

static int64_t literal_int(const tc_val *v) { return v->kind == TV_FLOAT ? cg_float_to_int64(v->f) : v->i; }

tc_val cg_to_tensor(tc_cg *cg, const tc_val *v, tc_loc loc) {
  if (v->kind == TV_TENSOR) return *v;
  if (tv_is_number(v)) {
    tc_ty t = literal_type(v);
    return cg_constant(cg, t, literal_float(v), literal_int(v), 0, NULL);
  }
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "expected a tensor or a number, got %s", tv_kind_name(v));
}

static MlirType type_like(tc_cg *cg, tc_ty ty, const tc_val *v) { return cg_tensor_type(cg, ty, v->rank, v->shape); }

tc_val cg_cast(tc_cg *cg, tc_val v, tc_ty to, bool bitcast, tc_loc loc) {
  if (v.kind != TV_TENSOR) {
    if (tv_is_number(&v)) {
      if (bitcast) v = cg_to_tensor(cg, &v, loc);
      else
        return cg_constant(cg, to, literal_float(&v), tc_ty_is_bool(to) ? (literal_float(&v) != 0) : literal_int(&v), 0,
                           NULL);
    } else {
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "cannot cast %s to a dtype", tv_kind_name(&v));
    }
  }
  if (tc_ty_eq(v.ty, to)) return v;
  tc_builder *b = &cg->b;
  MlirType rt = type_like(cg, to, &v);
  char from_name[16], to_name[16];
  tc_ty_name(v.ty, from_name, sizeof from_name);
  tc_ty_name(to, to_name, sizeof to_name);
  if (bitcast) {
    if (tc_ty_bits(v.ty) != tc_ty_bits(to))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "cannot bitcast %s to %s: sizes differ", from_name, to_name);
    if (tc_ty_is_ptr(v.ty) || tc_ty_is_ptr(to)) return same_shape(tile_build_bitcast(b, v.v, rt), to, &v);
    return same_shape(tcb_cast(b, "arith.bitcast", v.v, rt), to, &v);
  }
  if (tc_ty_is_fp8(v.ty) || tc_ty_is_fp8(to)) return cg_fp8_cast(cg, v, to, loc);
  if (tc_ty_is_ptr(v.ty) && tc_ty_is_ptr(to)) return same_shape(tile_build_bitcast(b, v.v, rt), to, &v);
  if (tc_ty_is_ptr(v.ty)) {
    if (!tc_ty_is_int(to) || tc_ty_bits(to) != 64)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "pointers can only be cast to int64/uint64, not %s", to_name);
    return same_shape(tile_build_ptr_to_int(b, v.v, rt), to, &v);
  }
  if (tc_ty_is_ptr(to)) {
    if (!tc_ty_is_int(v.ty) || tc_ty_bits(v.ty) != 64)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "only int64/uint64 values can be cast to pointers, not %s",
                      from_name);
    return same_shape(tile_build_int_to_ptr(b, v.v, rt), to, &v);
  }
  bool fi = tc_ty_is_float(v.ty), ft = tc_ty_is_float(to);
  if (tc_ty_is_bool(to)) {
    if (fi) {
      MlirValue z = cg_constant(cg, v.ty, 0.0, 0, v.rank, v.shape).v;
      return same_shape(tcb_cmpf(b, "une", v.v, z), to, &v);
    }
    MlirValue z = cg_constant(cg, v.ty, 0.0, 0, v.rank, v.shape).v;
    return same_shape(tcb_cmpi(b, "ne", v.v, z), to, &v);
  }
  if (fi && ft) {
    unsigned a = tc_ty_bits(v.ty), c = tc_ty_bits(to);
    if (a == c) { /* fp16 <-> bf16 go through fp32 */
      tc_val mid = cg_cast(cg, v, tc_ty_make(TILEC_DTYPE_F32), false, loc);
      return cg_cast(cg, mid, to, false, loc);
    }
    return same_shape(tcb_cast(b, a < c ? "arith.extf" : "arith.truncf", v.v, rt), to, &v);
  }
  if (!fi && !ft) {
    unsigned a = tc_ty_bits(v.ty), c = tc_ty_bits(to);
    if (a == c) return same_shape(v.v, to, &v);
    if (a > c) return same_shape(tcb_cast(b, "arith.trunci", v.v, rt), to, &v);
    return same_shape(tcb_cast(b, tc_ty_is_signed(v.ty) ? "arith.extsi" : "arith.extui", v.v, rt), to, &v);
  }
  if (!fi && ft)
    return same_shape(tcb_cast(b, tc_ty_is_signed(v.ty) ? "arith.sitofp" : "arith.uitofp", v.v, rt), to, &v);
  return same_shape(tcb_cast(b, tc_ty_is_signed(to) ? "arith.fptosi" : "arith.fptoui", v.v, rt), to, &v);
}

bool cg_broadcast_shapes(tc_cg *cg, const tc_val *a, const tc_val *b, int *rank, int64_t *shape, tc_loc loc) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  for (int i = 0; i < r; i++) {
    int ia = i - (r - a->rank), ib = i - (r - b->rank);
    int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      char sa[64], sb[64];
      tv_describe(a, sa, sizeof sa);
      tv_describe(b, sb, sizeof sb);
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "cannot broadcast %s and %s: dimension %d is %lld vs %lld", sa, sb, i,
               (long long)da, (long long)db);
      return false;
    }
    shape[i] = da == 1 ? db : da;
  }
  *rank = r;
  return true;
}

static void shape_text(char *buf, size_t n, int rank, const int64_t *shape) {
  size_t w = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < rank && w < n; i++)
    w += (size_t)snprintf(buf + w, n - w, "%s%lld", i ? ", " : "", (long long)shape[i]);
  if (w < n) snprintf(buf + w, n - w, "]");
}

bool cg_broadcast_check(tc_cg *cg, const tc_val *v, int rank, const int64_t *shape, tc_loc loc) {
  if (v->rank == 0) return true;
  char src[160], dst[160];
  shape_text(src, sizeof src, v->rank, v->shape);
  shape_text(dst, sizeof dst, rank, shape);
  if (v->rank != rank) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "Cannot broadcast, rank mismatch: %s, %s", src, dst);
    return false;
  }
  for (int i = 0; i < rank; i++)
    if (v->shape[i] != shape[i] && v->shape[i] != 1) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
               "Cannot broadcast, the expanded size of the tensor (%lld) must match the existing size (%lld) at "
               "non-singleton dimension %d: %s, %s",
               (long long)shape[i], (long long)v->shape[i], i, src, dst);
      return false;
    }
  return true;
}

tc_val cg_broadcast_to(tc_cg *cg, tc_val v, int rank, const int64_t *shape, tc_loc loc) {
  if (v.kind != TV_TENSOR) v = cg_to_tensor(cg, &v, loc);
  if (cg->err) return v;
  if (v.rank == rank) {
    bool same = true;
    for (int i = 0; i < rank; i++) same = same && v.shape[i] == shape[i];
    if (same) return v;
  }
  MlirType rt = cg_tensor_type(cg, v.ty, rank, shape);
  if (v.rank == 0) return tv_tensor(tile_build_splat(&cg->b, v.v, rt), v.ty, rank, shape);
  if (v.rank > rank)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "cannot broadcast a tile of rank %d to rank %d", v.rank, rank);
  if (v.rank < rank) {
    int64_t s[TC_MAX_RANK];
    int pad = rank - v.rank;
    for (int i = 0; i < rank; i++) s[i] = i < pad ? 1 : v.shape[i - pad];
    v = tv_tensor(tile_build_reshape(&cg->b, v.v, cg_tensor_type(cg, v.ty, rank, s)), v.ty, rank, s);
  }
  for (int i = 0; i < rank; i++)
    if (v.shape[i] != shape[i] && v.shape[i] != 1)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "cannot broadcast dimension %d of size %lld to %lld", i,
                      (long long)v.shape[i], (long long)shape[i]);
  return tv_tensor(tile_build_broadcast(&cg->b, v.v, rt), v.ty, rank, shape);
}

/* Brings a and b to the common type `ct` and a common shape. */
static bool unify(tc_cg *cg, tc_val *a, tc_val *b, tc_ty ct, tc_loc loc) {
  int rank;
  int64_t shape[TC_MAX_RANK];
  tc_val ta = a->kind == TV_TENSOR ? *a : (tc_val){.kind = TV_TENSOR, .rank = 0};
  tc_val tb = b->kind == TV_TENSOR ? *b : (tc_val){.kind = TV_TENSOR, .rank = 0};
  if (!cg_broadcast_shapes(cg, &ta, &tb, &rank, shape, loc)) return false;
  for (int k = 0; k < 2; k++) {
    tc_val *x = k ? b : a;
    if (x->kind != TV_TENSOR) *x = cg_constant(cg, ct, literal_float(x), literal_int(x), 0, NULL);
    else *x = cg_cast(cg, *x, ct, false, loc);
    if (cg->err) return false;
    *x = cg_broadcast_to(cg, *x, rank, shape, loc);
    if (cg->err) return false;
  }
  return true;
}

static bool operand_ok(tc_cg *cg, const tc_val *v, tc_loc loc) {
  if (v->kind == TV_TENSOR || tv_is_number(v)) return true;
  cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "unsupported operand of kind '%s'", tv_kind_name(v));
  return false;
}

static tc_ty operand_type(const tc_val *v) { return v->kind == TV_TENSOR ? v->ty : literal_type(v); }

static const char *binop_symbol(tc_binop op) {
  static const char *s[] = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@"};
  return s[op];
}

/* The int range of an integer type as doubles (exact for the bounds that matter here). */
static void int_range(tc_ty t, double *lo, double *hi) {
  unsigned w = tc_ty_bits(t);
  if (tc_ty_is_signed(t)) {
    *lo = -ldexp(1.0, (int)w - 1);
    *hi = ldexp(1.0, (int)w - 1) - 1;
  } else {
    *lo = 0;
    *hi = ldexp(1.0, (int)w) - 1;
  }
}

static bool promote(tc_cg *cg, const tc_val *a, const tc_val *b, bool div_or_mod, tc_ty *ct, tc_loc loc,
                    const char *what) {
  char err[320];
  tc_ty ta = operand_type(a), tb = operand_type(b);
  if (!tc_ty_computation(ta, a->kind != TV_TENSOR, tb, b->kind != TV_TENSOR, div_or_mod, ct, err, sizeof err)) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "invalid operands for '%s': %s", what, err);
    return false;
  }
  /* A Python number converted to an integer computation type must fit it (semantic.py's
   * _cast_to_computation_type). */
  for (int k = 0; k < 2; k++) {
    const tc_val *x = k ? b : a;
    if (x->kind == TV_TENSOR || !tc_ty_is_int(*ct)) continue;
    double v = literal_float(x), lo, hi;
    if (v < 0 && !tc_ty_is_signed(*ct)) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
               "Cannot perform a binary operation between an unsigned tensor and a negative scalar (%g in '%s'). "
               "Perform a explicit cast on one of them.",
               v, what);
      return false;
    }
    int_range(*ct, &lo, &hi);
    if (x->kind == TV_INT && !big_int(x) && (v < lo || v > hi)) {
      char n[16];
      tc_ty_name(*ct, n, sizeof n);
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "Scalar %lld is out of range for type %s in '%s'", (long long)x->i, n,
               what);
      return false;
    }
  }
  return true;
}

static tc_val pointer_arith(tc_cg *cg, tc_binop op, tc_val a, tc_val b, tc_loc loc) {
  bool a_ptr = a.kind == TV_TENSOR && tc_ty_is_ptr(a.ty);
  tc_val p = a_ptr ? a : b, o = a_ptr ? b : a;
  if ((op != TC_OP_ADD && op != TC_OP_SUB) || (op == TC_OP_SUB && !a_ptr))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'%s' is not defined on pointers (only pointer + integer offsets)",
                    binop_symbol(op));
  if (o.kind == TV_TENSOR && tc_ty_is_ptr(o.ty))
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "pointer - pointer is not supported");
  tc_ty ot = operand_type(&o);
  if (!tc_ty_is_int(ot)) {
    char n[16];
    tc_ty_name(ot, n, sizeof n);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "pointer offsets must be integers, got %s", n);
  }
  if (o.kind != TV_TENSOR) {
    o = cg_to_tensor(cg, &o, loc);
    ot = o.ty;
  }
  /* tile.addptr reads offsets as signed: widen unsigned ones first. */
  if (!tc_ty_is_signed(ot) && tc_ty_bits(ot) < 64) o = cg_cast(cg, o, tc_ty_make(TILEC_DTYPE_I64), false, loc);
  if (tc_ty_is_bool(ot)) o = cg_cast(cg, o, tc_ty_make(TILEC_DTYPE_I32), false, loc);
  if (op == TC_OP_SUB) {
    MlirValue zero = cg_constant(cg, o.ty, 0, 0, o.rank, o.shape).v;
    o = same_shape(tcb_binary(&cg->b, "arith.subi", zero, o.v), o.ty, &o);
  }
  int rank;
  int64_t shape[TC_MAX_RANK];
  if (!cg_broadcast_shapes(cg, &p, &o, &rank, shape, loc)) return (tc_val){0};
  p = cg_broadcast_to(cg, p, rank, shape, loc);
  o = cg_broadcast_to(cg, o, rank, shape, loc);
  if (cg->err) return p;
  return tv_tensor(tile_build_addptr(&cg->b, p.v, o.v), p.ty, rank, shape);
}

tc_val cg_binary(tc_cg *cg, tc_binop op, tc_val a, tc_val b, tc_loc loc) {
  if (!operand_ok(cg, &a, loc) || !operand_ok(cg, &b, loc)) return (tc_val){0};
  tc_val r8;
  if (cg_fp8_binary(cg, op, a, b, loc, &r8)) return r8;
  if ((a.kind == TV_TENSOR && tc_ty_is_ptr(a.ty)) || (b.kind == TV_TENSOR && tc_ty_is_ptr(b.ty)))
    return pointer_arith(cg, op, a, b, loc);
  if (op == TC_OP_POW)
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
                    "'**' is only supported between constexprs (use libdevice.pow on tensors)");
  if (op == TC_OP_MATMUL) {
    tc_callargs ca = {0};
    tc_val ab[2] = {a, b};
    ca.args = ab;
    ca.nargs = 2;
    return cg_builtin_call(cg, cg_builtin_find("dot"), &ca, loc); /* a @ b is tl.dot(a, b) */
  }
  if ((op == TC_OP_LSHIFT || op == TC_OP_RSHIFT) && a.kind == TV_TENSOR && b.kind == TV_INT &&
      b.i >= (int64_t)tc_ty_bits(a.ty)) {
    char n[32];
    tc_ty_triton_name(a.ty, n, sizeof n);
    cg_warn(cg, loc,
            "Value %lld exceeds the maximum bitwidth (%u) for type '%s'. This may result in undefined behavior.",
            (long long)b.i, tc_ty_bits(a.ty), n);
  }
  bool div = op == TC_OP_TRUEDIV || op == TC_OP_FLOORDIV || op == TC_OP_MOD;
  tc_ty ct;
  if (!promote(cg, &a, &b, div, &ct, loc, binop_symbol(op))) return (tc_val){0};
  if (op == TC_OP_TRUEDIV && tc_ty_is_int(ct)) ct = tc_ty_make(TILEC_DTYPE_F32);
  bool isf = tc_ty_is_float(ct);
  bool bitwise =
      op == TC_OP_BITAND || op == TC_OP_BITOR || op == TC_OP_BITXOR || op == TC_OP_LSHIFT || op == TC_OP_RSHIFT;
  if (bitwise && isf) { /* Triton's IncompatibleTypeErrorImpl */
    char n[16];
    tc_ty_name(ct, n, sizeof n);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "invalid operands of type %s and %s for '%s'", n, n,
                    binop_symbol(op));
  }
  if (op == TC_OP_FLOORDIV && isf) {
    char n[16];
    tc_ty_name(ct, n, sizeof n);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'//' is only defined on integers, got %s", n);
  }
  /* `>>` is arithmetic when the tensor it is a method of is signed: the left operand, or the
   * right one when the left is a Python number (tensor.__rrshift__). */
  const tc_val *owner = a.kind == TV_TENSOR ? &a : &b;
  bool ashr = tc_ty_is_signed(owner->ty);
  bool sgn = tc_ty_is_signed(ct);
  const char *name = NULL;
  switch (op) {
    case TC_OP_ADD: name = isf ? "arith.addf" : "arith.addi"; break;
    case TC_OP_SUB: name = isf ? "arith.subf" : "arith.subi"; break;
    case TC_OP_MUL: name = isf ? "arith.mulf" : "arith.muli"; break;
    case TC_OP_TRUEDIV: name = "arith.divf"; break;
    case TC_OP_FLOORDIV: name = sgn ? "arith.divsi" : "arith.divui"; break;
    case TC_OP_MOD: name = isf ? "arith.remf" : sgn ? "arith.remsi" : "arith.remui"; break;
    case TC_OP_BITAND: name = "arith.andi"; break;
    case TC_OP_BITOR: name = "arith.ori"; break;
    case TC_OP_BITXOR: name = "arith.xori"; break;
    case TC_OP_LSHIFT: name = "arith.shli"; break;
    case TC_OP_RSHIFT: name = ashr ? "arith.shrsi" : "arith.shrui"; break;
    default: break;
  }
  /* Integer //, % and shifts are defined for every operand value: the lowering gives them
   * Triton's results (conversion/int_semantics.c). */
  if (!unify(cg, &a, &b, ct, loc)) return (tc_val){0};
  return same_shape(tcb_binary(&cg->b, name, a.v, b.v), ct, &a);
}

tc_val cg_compare(tc_cg *cg, tc_cmpop op, tc_val a, tc_val b, tc_loc loc) {
  if (!operand_ok(cg, &a, loc) || !operand_ok(cg, &b, loc)) return (tc_val){0};
  static const char *syms[] = {"<", "<=", ">", ">=", "==", "!="};
  tc_val r8;
  if (cg_fp8_compare(cg, op, a, b, loc, &r8)) return r8;
  tc_ty ct;
  bool ptrs = (a.kind == TV_TENSOR && tc_ty_is_ptr(a.ty)) || (b.kind == TV_TENSOR && tc_ty_is_ptr(b.ty));
  if (ptrs) {
    if (a.kind != TV_TENSOR || b.kind != TV_TENSOR || !tc_ty_is_ptr(a.ty) || !tc_ty_is_ptr(b.ty))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "pointers can only be compared with pointers");
    a = cg_cast(cg, a, tc_ty_make(TILEC_DTYPE_U64), false, loc);
    b = cg_cast(cg, b, tc_ty_make(TILEC_DTYPE_U64), false, loc);
  }
  if (!promote(cg, &a, &b, false, &ct, loc, syms[op])) return (tc_val){0};
  if (!unify(cg, &a, &b, ct, loc)) return (tc_val){0};
  const char *pred;
  bool isf = tc_ty_is_float(ct), sgn = tc_ty_is_signed(ct);
  switch (op) {
    case TC_CMP_LT: pred = isf ? "olt" : sgn ? "slt" : "ult"; break;
    case TC_CMP_LE: pred = isf ? "ole" : sgn ? "sle" : "ule"; break;
    case TC_CMP_GT: pred = isf ? "ogt" : sgn ? "sgt" : "ugt"; break;
    case TC_CMP_GE: pred = isf ? "oge" : sgn ? "sge" : "uge"; break;
    case TC_CMP_EQ: pred = isf ? "oeq" : "eq"; break;
    case TC_CMP_NE: pred = isf ? "une" : "ne"; break;
    default: return cg_error(cg, loc, TILEC_ERROR_INTERNAL, "bad comparison");
  }
  MlirValue r = isf ? tcb_cmpf(&cg->b, pred, a.v, b.v) : tcb_cmpi(&cg->b, pred, a.v, b.v);
  return same_shape(r, tc_ty_make(TILEC_DTYPE_I1), &a);
}

tc_val cg_to_bool(tc_cg *cg, tc_val v, tc_loc loc) {
  if (v.kind != TV_TENSOR) v = cg_to_tensor(cg, &v, loc);
  if (cg->err || tc_ty_is_bool(v.ty)) return v;
  if (tc_ty_is_ptr(v.ty)) v = cg_cast(cg, v, tc_ty_make(TILEC_DTYPE_U64), false, loc);
  return cg_cast(cg, v, tc_ty_make(TILEC_DTYPE_I1), false, loc);
}

/* Python's integers are unbounded; compile-time integers here are 64-bit, and a result
 * that does not fit is a located error rather than a wrapped (or undefined) value. */
static tc_val int_overflow(tc_cg *cg, const char *op, tc_loc loc) {
  return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
                  "integer overflow in compile-time '%s': the result does not fit in 64 bits", op);
}

/* base ** exp for exp >= 0 by squaring: at most 64 steps whatever exp is. */
static bool int_pow(int64_t base, int64_t exp, int64_t *out) {
  if (base == 1 || exp == 0) return *out = 1, true;
  if (base == 0) return *out = 0, true;
  if (base == -1) return *out = exp & 1 ? -1 : 1, true;
  int64_t r = 1, b = base;
  for (;;) {
    if (exp & 1 && __builtin_mul_overflow(r, b, &r)) return false;
    exp >>= 1;
    if (!exp) break;
    if (__builtin_mul_overflow(b, b, &b)) return false; /* |base| >= 2 and exp still > 0 */
  }
  *out = r;
  return true;
}

tc_val cg_unary(tc_cg *cg, tc_unop op, tc_val a, tc_loc loc) {
  if (big_int(&a) && op != TC_UOP_POS && op != TC_UOP_NOT)
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
                    "compile-time unary operators on an integer constant >= 2**63 are not supported");
  if (tv_is_constexpr(&a)) {
    switch (op) {
      case TC_UOP_POS: return a;
      case TC_UOP_NEG:
        if (a.kind == TV_FLOAT) return tv_float(-a.f);
        if (a.kind == TV_INT || a.kind == TV_BOOL) {
          if (a.i == INT64_MIN) return int_overflow(cg, "-", loc);
          return tv_int(-a.i);
        }
        break;
      case TC_UOP_NOT: {
        bool t;
        if (cg_truthy_constexpr(cg, &a, loc, &t)) return tv_bool(!t);
        break;
      }
      case TC_UOP_INVERT:
        if (a.kind == TV_INT || a.kind == TV_BOOL) return tv_int(~a.i);
        break;
    }
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "bad operand type for unary operator: '%s'", tv_kind_name(&a));
  }
  if (a.kind != TV_TENSOR)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "bad operand type for unary operator: '%s'", tv_kind_name(&a));
  if (tc_ty_is_ptr(a.ty)) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "unary operators are not defined on pointers");
  switch (op) {
    case TC_UOP_POS: return a;
    case TC_UOP_NEG: {
      tc_val r8;
      if (cg_fp8_negate(cg, a, loc, &r8)) return r8;
    }
      if (tc_ty_is_float(a.ty)) return same_shape(tcb_cast(&cg->b, "arith.negf", a.v, mlirValueGetType(a.v)), a.ty, &a);
      return same_shape(tcb_binary(&cg->b, "arith.subi", cg_constant(cg, a.ty, 0, 0, a.rank, a.shape).v, a.v), a.ty,
                        &a);
    case TC_UOP_NOT: {
      tc_val t = cg_to_bool(cg, a, loc);
      if (cg->err) return t;
      MlirValue one = cg_constant(cg, t.ty, 0, 1, t.rank, t.shape).v;
      return same_shape(tcb_binary(&cg->b, "arith.xori", t.v, one), t.ty, &t);
    }
    case TC_UOP_INVERT:
      if (!tc_ty_is_int(a.ty)) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'~' is only defined on integers");
      return same_shape(tcb_binary(&cg->b, "arith.xori", a.v, cg_constant(cg, a.ty, 0, -1, a.rank, a.shape).v), a.ty,
                        &a);
  }
  return (tc_val){0};
}

tc_val cg_logical(tc_cg *cg, bool is_and, tc_val a, tc_val b, tc_loc loc) {
  a = cg_to_bool(cg, a, loc);
  b = cg_to_bool(cg, b, loc);
  if (cg->err) return a;
  if (!unify(cg, &a, &b, tc_ty_make(TILEC_DTYPE_I1), loc)) return (tc_val){0};
  return same_shape(tcb_binary(&cg->b, is_and ? "arith.andi" : "arith.ori", a.v, b.v), a.ty, &a);
}

tc_val cg_where(tc_cg *cg, tc_val c, tc_val x, tc_val y, tc_loc loc) {
  if (!operand_ok(cg, &x, loc) || !operand_ok(cg, &y, loc)) return (tc_val){0};
  c = cg_to_bool(cg, c, loc);
  if (cg->err) return c;
  tc_ty ct;
  bool xp = x.kind == TV_TENSOR && tc_ty_is_ptr(x.ty), yp = y.kind == TV_TENSOR && tc_ty_is_ptr(y.ty);
  if (xp || yp) {
    if (!xp || !yp || !tc_ty_eq(x.ty, y.ty))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.where on pointers needs two pointers of the same type");
    ct = x.ty;
  } else if (!promote(cg, &x, &y, false, &ct, loc, "tl.where")) {
    return (tc_val){0};
  }
  if (!unify(cg, &x, &y, ct, loc)) return (tc_val){0};
  int rank;
  int64_t shape[TC_MAX_RANK];
  if (!cg_broadcast_shapes(cg, &c, &x, &rank, shape, loc)) return (tc_val){0};
  c = cg_broadcast_to(cg, c, rank, shape, loc);
  x = cg_broadcast_to(cg, x, rank, shape, loc);
  y = cg_broadcast_to(cg, y, rank, shape, loc);
  if (cg->err) return c;
  return tv_tensor(tcb_select(&cg->b, c.v, x.v, y.v), ct, rank, shape);
}

tc_val cg_minmax(tc_cg *cg, bool is_max, tc_val a, tc_val b, bool propagate_nan, tc_loc loc) {
  if (!operand_ok(cg, &a, loc) || !operand_ok(cg, &b, loc)) return (tc_val){0};
  tc_val r8;
  if (cg_fp8_minmax(cg, is_max, a, b, propagate_nan, loc, &r8)) return r8;
  tc_ty ct;
  if (!promote(cg, &a, &b, false, &ct, loc, is_max ? "tl.maximum" : "tl.minimum")) return (tc_val){0};
  if (!unify(cg, &a, &b, ct, loc)) return (tc_val){0};
  const char *name;
  if (tc_ty_is_float(ct))
    name =
        propagate_nan ? (is_max ? "arith.maximumf" : "arith.minimumf") : (is_max ? "arith.maxnumf" : "arith.minnumf");
  else if (tc_ty_is_signed(ct)) name = is_max ? "arith.maxsi" : "arith.minsi";
  else name = is_max ? "arith.maxui" : "arith.minui";
  return same_shape(tcb_binary(&cg->b, name, a.v, b.v), ct, &a);
}

tc_val cg_math_unary(tc_cg *cg, const char *mlir_op, tc_val x, tc_loc loc, const char *user_name) {
  if (x.kind != TV_TENSOR) x = cg_to_tensor(cg, &x, loc);
  if (cg->err) return x;
  if (x.ty.dt != TILEC_DTYPE_F32 && x.ty.dt != TILEC_DTYPE_F64) {
    char n[16];
    tc_ty_name(x.ty, n, sizeof n);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                    "%s expects fp32 or fp64 input, got %s (convert with .to(tl.float32))", user_name, n);
  }
  return same_shape(tcb_cast(&cg->b, mlir_op, x.v, mlirValueGetType(x.v)), x.ty, &x);
}

/* ---- Python arithmetic on compile-time values -------------------------------------- */

static int64_t py_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static int64_t py_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

tc_val cg_constexpr_binary(tc_cg *cg, tc_binop op, const tc_val *a, const tc_val *b, tc_loc loc) {
  if (a->kind == TV_STR && b->kind == TV_STR && op == TC_OP_ADD) {
    char *s = cg_alloc(cg, a->slen + b->slen + 1);
    memcpy(s, a->s, a->slen);
    memcpy(s + a->slen, b->s, b->slen);
    s[a->slen + b->slen] = 0;
    return tv_str(s, a->slen + b->slen);
  }
  if (!tv_is_number(a) || !tv_is_number(b))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "unsupported operand types for '%s': '%s' and '%s'",
                    binop_symbol(op), tv_kind_name(a), tv_kind_name(b));
  if (big_int(a) || big_int(b))
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
                    "compile-time '%s' on an integer constant >= 2**63 is not supported; use it with a tensor "
                    "operand (it is typed uint64 there) or tl.full(..., dtype=tl.uint64)",
                    binop_symbol(op));
  bool flt = a->kind == TV_FLOAT || b->kind == TV_FLOAT;
  double x = literal_float(a), y = literal_float(b);
  int64_t i = a->i, j = b->i;
  int64_t r;
  switch (op) {
    case TC_OP_ADD:
      if (flt) return tv_float(x + y);
      return __builtin_add_overflow(i, j, &r) ? int_overflow(cg, "+", loc) : tv_int(r);
    case TC_OP_SUB:
      if (flt) return tv_float(x - y);
      return __builtin_sub_overflow(i, j, &r) ? int_overflow(cg, "-", loc) : tv_int(r);
    case TC_OP_MUL:
      if (flt) return tv_float(x * y);
      return __builtin_mul_overflow(i, j, &r) ? int_overflow(cg, "*", loc) : tv_int(r);
    case TC_OP_TRUEDIV:
      if (y == 0) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "division by zero");
      return tv_float(x / y);
    case TC_OP_FLOORDIV:
      if (y == 0) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "division by zero");
      if (!flt && i == INT64_MIN && j == -1) return int_overflow(cg, "//", loc);
      return flt ? tv_float(floor(x / y)) : tv_int(py_floordiv(i, j));
    case TC_OP_MOD:
      if (y == 0) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "modulo by zero");
      if (flt) {
        double r = fmod(x, y);
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        return tv_float(r);
      }
      return tv_int(j == -1 ? 0 : py_mod(i, j)); /* INT64_MIN % -1 traps in C */
    case TC_OP_POW:
      if (x == 0 && y < 0) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "0.0 cannot be raised to a negative power");
      if (flt || j < 0) return tv_float(pow(x, y));
      return int_pow(i, j, &r) ? tv_int(r) : int_overflow(cg, "**", loc);
    default: break;
  }
  if (flt) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'%s' is not defined on floats", binop_symbol(op));
  switch (op) {
    case TC_OP_LSHIFT:
    case TC_OP_RSHIFT:
      if (j < 0) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "negative shift count");
      if (op == TC_OP_RSHIFT) return tv_int(j >= 64 ? (i < 0 ? -1 : 0) : i >> j);
      if (i == 0) return tv_int(0);
      if (j >= 64 || (i >> (63 - j)) != (i < 0 ? -1 : 0)) return int_overflow(cg, "<<", loc);
      return tv_int((int64_t)((uint64_t)i << j));
    case TC_OP_BITAND: return a->kind == TV_BOOL && b->kind == TV_BOOL ? tv_bool(i & j) : tv_int(i & j);
    case TC_OP_BITOR: return a->kind == TV_BOOL && b->kind == TV_BOOL ? tv_bool(i | j) : tv_int(i | j);
    case TC_OP_BITXOR: return a->kind == TV_BOOL && b->kind == TV_BOOL ? tv_bool(i ^ j) : tv_int(i ^ j);
    default: break;
  }
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'%s' is not supported between constexprs", binop_symbol(op));
}

tc_val cg_constexpr_compare(tc_cg *cg, tc_cmpop op, const tc_val *a, const tc_val *b, tc_loc loc) {
  int c;
  if (tv_is_number(a) && tv_is_number(b)) {
    double x = literal_float(a), y = literal_float(b);
    if (big_int(a) || big_int(b)) /* one side >= 2^63: above every int64 */
      c = big_int(a) && big_int(b) ? ((uint64_t)a->i<(uint64_t)b->i ? -1 : (uint64_t)a->i>(uint64_t) b->i)
                                   : (big_int(a) ? 1 : -1);
    else if (a->kind != TV_FLOAT && b->kind != TV_FLOAT) c = a->i < b->i ? -1 : a->i > b->i;
    else c = x < y ? -1 : x > y;
  } else if (a->kind == TV_STR && b->kind == TV_STR) {
    size_t n = a->slen < b->slen ? a->slen : b->slen;
    c = memcmp(a->s, b->s, n);
    if (!c) c = a->slen < b->slen ? -1 : a->slen > b->slen;
  } else if (a->kind == TV_DTYPE && b->kind == TV_DTYPE && (op == TC_CMP_EQ || op == TC_CMP_NE)) {
    c = tv_dtype_eq(a, b) ? 0 : 1;
  } else if (op == TC_CMP_EQ || op == TC_CMP_NE) {
    c = a->kind == TV_NONE && b->kind == TV_NONE ? 0 : 1;
  } else {
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "cannot compare '%s' and '%s'", tv_kind_name(a), tv_kind_name(b));
  }
  switch (op) {
    case TC_CMP_LT: return tv_bool(c < 0);
    case TC_CMP_LE: return tv_bool(c <= 0);
    case TC_CMP_GT: return tv_bool(c > 0);
    case TC_CMP_GE: return tv_bool(c >= 0);
    case TC_CMP_EQ: return tv_bool(c == 0);
    case TC_CMP_NE: return tv_bool(c != 0);
    default: break;
  }
  return cg_error(cg, loc, TILEC_ERROR_INTERNAL, "bad comparison");
}
