/* frontend/builtins_atomic.c — tl.atomic_add/max/min/and/or/xor/xchg and tl.atomic_cas:
 * operands broadcast to one shape, the value converted to the pointee type, and the
 * exact read-modify-write kind chosen here (signedness and float-ness live in the front
 * end). In: call arguments. Out: tile.atomic_rmw / tile.atomic_cas returning old values. */
#include "frontend/builtins.h"

#include <mlir-c/BuiltinAttributes.h>
#include <stdio.h>
#include <string.h>

static bool sem_ok(tc_cg *cg, const tc_val *v, const char *what, tc_loc loc) {
  if (cg_is_none(v)) return true;
  if (v->kind != TV_STR) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s must be a string", what);
    return false;
  }
  static const char *const ok[] = {"acquire", "release", "acq_rel", "relaxed", "gpu", "cta", "sys"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (v->slen == strlen(ok[i]) && !memcmp(v->s, ok[i], v->slen)) return true;
  cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "unknown %s '%.*s'", what, (int)v->slen, v->s);
  return false;
}

static const char *rmw_kind(const char *op, tc_ty t) {
  bool f = tc_ty_is_float(t), s = tc_ty_is_signed(t);
  if (!strcmp(op, "add")) return f ? "fadd" : "add";
  if (!strcmp(op, "max")) return f ? "fmax" : s ? "max" : "umax";
  if (!strcmp(op, "min")) return f ? "fmin" : s ? "min" : "umin";
  if (!strcmp(op, "xchg")) return "xchg";
  if (f) return NULL;
  return op; /* and, or, xor */
}

/* One tile.atomic_rmw of `kind` (ptr, val and mask already broadcast to one shape). */
static tc_val rmw(tc_cg *cg, const char *kind, tc_val ptr, tc_val val, const tc_val *mask) {
  MlirType rt = cg_tensor_type(cg, val.ty, val.rank, val.shape);
  MlirValue m = mask ? mask->v : (MlirValue){NULL};
  return tv_tensor(tile_build_atomic_rmw(&cg->b, kind, ptr.v, val.v, m, rt), val.ty, val.rank, val.shape);
}

/* Float atomic_max/min as Triton defines them (semantic.py): on the bits, a value with the
 * sign bit clear takes a signed integer max (min), one with it set an unsigned integer min
 * (max). This orders -0.0 below +0.0 and NaNs by their bits (a positive NaN wins a max),
 * where LLVM's fmax would ignore NaNs. Each lane runs one of the two atomics. */
static tc_val float_minmax(tc_cg *cg, bool is_max, tc_val ptr, tc_val val, const tc_val *mask, tc_loc loc) {
  bool w64 = tc_ty_bits(val.ty) == 64;
  tc_ty it = tc_ty_make(w64 ? TILEC_DTYPE_I64 : TILEC_DTYPE_I32),
        ut = tc_ty_make(w64 ? TILEC_DTYPE_U64 : TILEC_DTYPE_U32);
  tc_ty ipt = it, upt = ut;
  ipt.ptr_depth = upt.ptr_depth = 1;
  tc_val iv = cg_cast(cg, val, it, true, loc), uv = cg_cast(cg, val, ut, true, loc);
  tc_val ip = cg_cast(cg, ptr, ipt, true, loc), up = cg_cast(cg, ptr, upt, true, loc);
  tc_val neg = cg_compare(cg, TC_CMP_LT, iv, tv_int(0), loc);
  tc_val pos = cg_unary(cg, TC_UOP_NOT, neg, loc);
  tc_val mpos = mask ? cg_logical(cg, true, *mask, pos, loc) : pos;
  tc_val mneg = mask ? cg_logical(cg, true, *mask, neg, loc) : neg;
  if (cg->err) return iv;
  cg_set_loc(cg, loc);
  tc_val pr = rmw(cg, is_max ? "max" : "min", ip, iv, &mpos);
  tc_val nr = rmw(cg, is_max ? "umin" : "umax", up, uv, &mneg);
  tc_val r = cg_where(cg, pos, pr, cg_cast(cg, nr, it, true, loc), loc);
  return cg_cast(cg, r, val.ty, true, loc);
}

/* tl.atomic_cas and the read-modify-writes tl.atomic_<op> */
static tc_val atomic(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *name = b->name, *op = name + 7, *fn = b->sig.fn;
  bool cas = !strcmp(op, "cas");
  const cg_sig s = b->sig;
  if (!sem_ok(cg, cg_arg(a, &s, "sem"), "sem", loc) || !sem_ok(cg, cg_arg(a, &s, "scope"), "scope", loc))
    return (tc_val){0};
  tc_val ptr = *cg_arg(a, &s, "pointer");
  if (ptr.kind != TV_TENSOR || !tc_ty_is_ptr(ptr.ty))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s expects a pointer or a tile of pointers", fn);
  if (ptr.ty.is_const) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "Cannot store to a constant pointer");
  tc_ty elem = ptr.ty;
  elem.ptr_depth--;
  elem.is_const = false;
  /* Triton's element rules: cas on 16/32/64-bit values; the read-modify-writes on 32/64-bit
   * values, and fp16/bf16 only for atomic_add. */
  char en[16];
  tc_ty_name(elem, en, sizeof en);
  if (tc_ty_is_ptr(elem) || tc_ty_is_bool(elem) || tc_ty_bits(elem) < 16 ||
      (tc_ty_bits(elem) == 16 && !tc_ty_is_float(elem) && !cas)) {
    if (cas)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                      "atomic_cas only supports elements with width {16, 32, 64}, not %s", en);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s does not support %s", name, en);
  }
  if (!cas && tc_ty_bits(elem) == 16 && strcmp(op, "add"))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s does not support %s (only atomic_add does)", name, en);
  const char *kind = cas ? "cas" : rmw_kind(op, elem);
  if (!kind) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s is not defined on floating-point values", fn);
  tc_val val = cg_cast(cg, *cg_arg(a, &s, "val"), elem, false, loc);
  tc_val cmp = cas ? cg_cast(cg, *cg_arg(a, &s, "cmp"), elem, false, loc) : (tc_val){0};
  tc_val *maskp = cas ? NULL : cg_arg(a, &s, "mask");
  tc_val mask = {0};
  if (!cg_is_none(maskp)) mask = cg_mask(cg, maskp, fn, loc);
  if (cg->err) return (tc_val){0};
  /* As Triton's atomics: val, cmp and mask take the pointer's shape. */
  int rank = ptr.rank;
  int64_t shape[TC_MAX_RANK];
  memcpy(shape, ptr.shape, sizeof shape);
  if (rank == 0 && (val.rank > 0 || (cas && cmp.rank > 0) || (!cg_is_none(maskp) && mask.rank > 0)))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s: %s cannot be a block if the pointer argument is not a block",
                    fn,
                    val.rank > 0 ? "the value"
                    : cas        ? "cmp"
                                 : "the mask");
  if (!cg_broadcast_check(cg, &val, rank, shape, loc)) return (tc_val){0};
  if (cas && !cg_broadcast_check(cg, &cmp, rank, shape, loc)) return (tc_val){0};
  if (!cg_is_none(maskp) && !cg_broadcast_check(cg, &mask, rank, shape, loc)) return (tc_val){0};
  ptr = cg_broadcast_to(cg, ptr, rank, shape, loc);
  val = cg_broadcast_to(cg, val, rank, shape, loc);
  if (cas) cmp = cg_broadcast_to(cg, cmp, rank, shape, loc);
  if (!cg_is_none(maskp)) mask = cg_broadcast_to(cg, mask, rank, shape, loc);
  if (cg->err) return (tc_val){0};
  cg_set_loc(cg, loc);
  if (cas) {
    MlirType rt = cg_tensor_type(cg, elem, rank, shape);
    return tv_tensor(tile_build_atomic_cas(&cg->b, ptr.v, cmp.v, val.v, rt), elem, rank, shape);
  }
  bool has_mask = !cg_is_none(maskp);
  if (!strcmp(kind, "fmax") || !strcmp(kind, "fmin"))
    return float_minmax(cg, !strcmp(kind, "fmax"), ptr, val, has_mask ? &mask : NULL, loc);
  return rmw(cg, kind, ptr, val, has_mask ? &mask : NULL);
}

static const char *const p_rmw[] = {"pointer", "val", "mask", "sem", "scope", NULL};
static const char *const p_cas[] = {"pointer", "cmp", "val", "sem", "scope", NULL};

#define RMW(OP) {"atomic_" OP, atomic, {"tl.atomic_" OP, p_rmw}, 2, NULL}

const cg_builtin cg_builtins_atomic[] = {
    {"atomic_cas", atomic, {"tl.atomic_cas", p_cas}, 3, NULL},
    RMW("xchg"),
    RMW("add"),
    RMW("max"),
    RMW("min"),
    RMW("and"),
    RMW("or"),
    RMW("xor"),
    {NULL, NULL, {NULL, NULL}, 0, NULL},
};
