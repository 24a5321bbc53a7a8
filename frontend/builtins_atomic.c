/* frontend/builtins_atomic.c — tl.atomic_add/max/min/and/or/xor/xchg and tl.atomic_cas:
 * operands broadcast to one shape, the value converted to the pointee type, and the
 * exact read-modify-write kind chosen here (signedness and float-ness live in the front
 * end). In: call arguments. Out: tile.atomic_rmw / tile.atomic_cas returning old values. */
#include "frontend/cg.h"

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

bool cg_atomic_builtin(tc_cg *cg, const char *name, tc_callargs *a, tc_loc loc, tc_val *out) {
  if (strncmp(name, "atomic_", 7)) return false;
  const char *op = name + 7;
  bool cas = !strcmp(op, "cas");
  char fn[64];
  snprintf(fn, sizeof fn, "tl.%s", name);
  static const char *const prmw[] = {"pointer", "val", "mask", "sem", "scope", NULL};
  static const char *const pcas[] = {"pointer", "cmp", "val", "sem", "scope", NULL};
  cg_sig s = {fn, cas ? pcas : prmw};
  if (!cg_check_args(cg, a, &s, cas ? 3 : 2, loc)) return true;
  if (!sem_ok(cg, cg_arg(a, &s, "sem"), "sem", loc) || !sem_ok(cg, cg_arg(a, &s, "scope"), "scope", loc)) return true;
  tc_val ptr = *cg_arg(a, &s, "pointer");
  if (ptr.kind != TV_TENSOR || !tc_ty_is_ptr(ptr.ty)) {
    *out = cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s expects a pointer or a tile of pointers", fn);
    return true;
  }
  tc_ty elem = ptr.ty;
  elem.ptr_depth--;
  /* Triton's element rules: cas on 16/32/64-bit values; the read-modify-writes on 32/64-bit
   * values, and fp16/bf16 only for atomic_add. */
  char en[16];
  tc_ty_name(elem, en, sizeof en);
  if (tc_ty_is_ptr(elem) || tc_ty_is_bool(elem) || tc_ty_bits(elem) < 16 ||
      (tc_ty_bits(elem) == 16 && !tc_ty_is_float(elem) && !cas)) {
    *out = cg_error(cg, loc, TILEC_ERROR_SEMANTIC, cas ? "atomic_cas only supports elements with width {16, 32, 64}, not %s"
                                                       : "%s does not support %s", name, en);
    return true;
  }
  if (!cas && tc_ty_bits(elem) == 16 && strcmp(op, "add")) {
    *out = cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s does not support %s (only atomic_add does)", name, en);
    return true;
  }
  const char *kind = cas ? "cas" : rmw_kind(op, elem);
  if (!kind) {
    *out = cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s is not defined on floating-point values", fn);
    return true;
  }
  tc_val val = cg_cast(cg, *cg_arg(a, &s, "val"), elem, false, loc);
  tc_val cmp = cas ? cg_cast(cg, *cg_arg(a, &s, "cmp"), elem, false, loc) : (tc_val){0};
  tc_val *maskp = cas ? NULL : cg_arg(a, &s, "mask");
  tc_val mask = {0};
  if (!cg_is_none(maskp)) mask = cg_mask(cg, maskp, fn, loc);
  if (cg->err) return true;
  int rank;
  int64_t shape[TC_MAX_RANK];
  if (!cg_broadcast_shapes(cg, &ptr, &val, &rank, shape, loc)) return true;
  tc_val cur = tv_tensor((MlirValue){NULL}, elem, rank, shape);
  if (cas && !cg_broadcast_shapes(cg, &cur, &cmp, &rank, shape, loc)) return true;
  cur = tv_tensor((MlirValue){NULL}, elem, rank, shape);
  if (!cg_is_none(maskp) && !cg_broadcast_shapes(cg, &cur, &mask, &rank, shape, loc)) return true;
  ptr = cg_broadcast_to(cg, ptr, rank, shape, loc);
  val = cg_broadcast_to(cg, val, rank, shape, loc);
  if (cas) cmp = cg_broadcast_to(cg, cmp, rank, shape, loc);
  if (!cg_is_none(maskp)) mask = cg_broadcast_to(cg, mask, rank, shape, loc);
  if (cg->err) return true;
  MlirType rt = cg_tensor_type(cg, elem, rank, shape);
  cg_set_loc(cg, loc);
  MlirValue r;
  if (cas) {
    MlirValue ops[3] = {ptr.v, cmp.v, val.v};
    r = tcb_op1(&cg->b, "tile.atomic_cas", rt, 3, ops, 0, NULL);
  } else {
    MlirValue ops[3] = {ptr.v, val.v, mask.v};
    int32_t seg[3] = {1, 1, cg_is_none(maskp) ? 0 : 1};
    MlirNamedAttribute at[2] = {
        tcb_named(cg->ctx, "kind", mlirStringAttrGet(cg->ctx, mlirStringRefCreateFromCString(kind))),
        tcb_named(cg->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(cg->ctx, 3, seg))};
    r = tcb_op1(&cg->b, "tile.atomic_rmw", rt, 2 + seg[2], ops, 2, at);
  }
  *out = tv_tensor(r, elem, rank, shape);
  return true;
}
