/* conversion/mask.c — masks of the form `offsets < n` (and `&` of such) become a bound
 * on the lane index, so full chunks run unmasked and only the tail is masked.
 * In: old i1 tiles. Out: the bound as an index, or the per-chunk mask vector. */
#include "conversion/lower.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <string.h>

static int64_t cmpi_predicate(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("predicate"));
  return mlirAttributeIsAInteger(a) ? mlirIntegerAttrGetValueInt(a) : -1;
}

enum { P_EQ, P_NE, P_SLT, P_SLE, P_SGT, P_SGE, P_ULT, P_ULE, P_UGT, P_UGE };

MlirValue tc_mask_bound(tc_lanectx *pre, MlirValue mask, int64_t numel) {
  MlirValue none = {NULL};
  if (mlirValueIsNull(mask) || !mlirValueIsAOpResult(mask)) return none;
  MlirOperation op = mlirOpResultGetOwner(mask);
  tc_builder *b = pre->b;
  if (tc_op_is(op, "arith.andi")) {
    MlirValue l = tc_mask_bound(pre, mlirOperationGetOperand(op, 0), numel);
    if (mlirValueIsNull(l)) return none;
    MlirValue r = tc_mask_bound(pre, mlirOperationGetOperand(op, 1), numel);
    if (mlirValueIsNull(r)) return none;
    return tcb_binary(b, "arith.minsi", l, r);
  }
  if (!tc_op_is(op, "arith.cmpi")) return none;
  int64_t p = cmpi_predicate(op);
  MlirValue a = mlirOperationGetOperand(op, 0), c = mlirOperationGetOperand(op, 1);
  if (p == P_SGT || p == P_SGE || p == P_UGT || p == P_UGE) {
    MlirValue t = a;
    a = c;
    c = t;
    p = p == P_SGT ? P_SLT : p == P_SGE ? P_SLE : p == P_UGT ? P_ULT : P_ULE;
  }
  if (p != P_SLT && p != P_SLE && p != P_ULT && p != P_ULE) return none;
  tc_axis ax = tc_axis_of(&pre->L->axis, a), cx = tc_axis_of(&pre->L->axis, c);
  if (ax.rank != 1 || ax.contiguity[0] != numel || cx.constancy[0] != numel) return none;
  MlirValue a0 = tc_lane_value(pre, a), c0 = tc_lane_value(pre, c);
  if (mlirValueIsNull(a0) || mlirValueIsNull(c0)) return none;
  MlirType i64 = tcb_int_type(pre->L->ctx, 64);
  const char *ext = (p == P_SLT || p == P_SLE) ? "arith.extsi" : "arith.extui";
  if (tcb_bitwidth(mlirValueGetType(a0)) < 64) a0 = tcb_cast(b, ext, a0, i64);
  if (tcb_bitwidth(mlirValueGetType(c0)) < 64) c0 = tcb_cast(b, ext, c0, i64);
  MlirValue n = tcb_binary(b, "arith.subi", c0, a0);
  if (p == P_SLE || p == P_ULE) n = tcb_binary(b, "arith.addi", n, tcb_const_int(b, i64, 1));
  n = tcb_binary(b, "arith.maxsi", n, tcb_const_int(b, i64, 0));
  n = tcb_binary(b, "arith.minsi", n, tcb_const_int(b, i64, numel));
  return tcb_cast(b, "arith.index_cast", n, tcb_index(pre->L->ctx));
}

MlirValue tc_chunk_mask(tc_chunk *c, MlirValue old_mask) {
  if (mlirValueIsNull(old_mask)) return old_mask;
  if (c->mode != TC_CHUNK_GENERIC && !mlirValueIsNull(c->bound_mask) &&
      mlirValueEqual(old_mask, c->bound_mask))
    return c->mode == TC_CHUNK_FULL ? (MlirValue){NULL} : c->tail_mask;
  return tc_chunk_value(c, old_mask).vec;
}
