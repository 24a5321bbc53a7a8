/* dialects/verify.c — the tile-op checks IRDL cannot express: shapes, element types, axes,
 * tile.dot's optional input_precision.
 * In: a module. Out: NULL, or a status naming the op, its location and the clash. */
#include "dialects/tile.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <string.h>

typedef struct verify_state {
  tilec_status *status;
} verify_state;

static bool same_shape(MlirType a, MlirType b) {
  bool sa = mlirTypeIsAShaped(a), sb = mlirTypeIsAShaped(b);
  if (sa != sb) return false;
  if (!sa) return true;
  intptr_t r = mlirShapedTypeGetRank(a);
  if (r != mlirShapedTypeGetRank(b)) return false;
  for (intptr_t i = 0; i < r; i++)
    if (mlirShapedTypeGetDimSize(a, i) != mlirShapedTypeGetDimSize(b, i)) return false;
  return true;
}

static tilec_status *fail(MlirOperation op, const char *what) {
  char opname[64], loc[256];
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(opname, sizeof opname, "%.*s", (int)n.length, n.data);
  tcb_attr_str(mlirLocationGetAttribute(mlirOperationGetLocation(op)), loc, sizeof loc);
  return tilec_status_create(TILEC_ERROR_INTERNAL, "'%s' at %s: %s", opname, loc, what);
}

static tilec_status *check_op(MlirOperation op) {
  tile_op_id k = tile_op_of(op);
  if (!k) return NULL;
  intptr_t nops = mlirOperationGetNumOperands(op);
  MlirType r0 = mlirOperationGetNumResults(op) ? mlirValueGetType(mlirOperationGetResult(op, 0)) : (MlirType){NULL};
  if (k == TILE_SPLAT) {
    if (!mlirTypeIsARankedTensor(r0)) return fail(op, "result must be a ranked tensor");
    if (!mlirTypeEqual(mlirShapedTypeGetElementType(r0), mlirValueGetType(mlirOperationGetOperand(op, 0))))
      return fail(op, "result element type differs from the scalar operand");
  } else if (k == TILE_RANGE) {
    int64_t s = tile_int_attr(op, "start", 0), e = tile_int_attr(op, "end", 0);
    if (!mlirTypeIsARankedTensor(r0) || mlirShapedTypeGetRank(r0) != 1 || mlirShapedTypeGetDimSize(r0, 0) != e - s)
      return fail(op, "result must be tensor<(end - start) x i32>");
  } else if (k == TILE_ADDPTR) {
    MlirType p = mlirValueGetType(mlirOperationGetOperand(op, 0));
    MlirType o = mlirValueGetType(mlirOperationGetOperand(op, 1));
    if (!same_shape(p, o)) return fail(op, "pointer and offset shapes differ");
    if (!tcb_is_int(tcb_element_type(o))) return fail(op, "offset must be an integer");
    if (!tile_type_is_ptr(tcb_element_type(p))) return fail(op, "operand 0 must be a pointer");
  } else if (k == TILE_LOAD || k == TILE_STORE) {
    bool is_load = k == TILE_LOAD;
    MlirType p = mlirValueGetType(mlirOperationGetOperand(op, 0));
    MlirType v = is_load ? r0 : mlirValueGetType(mlirOperationGetOperand(op, 1));
    if (!tile_type_is_ptr(tcb_element_type(p))) return fail(op, "operand 0 must be a pointer");
    if (!same_shape(p, v)) return fail(op, "pointer and value shapes differ");
    MlirType pointee = tile_ptr_pointee(tcb_element_type(p));
    if (!mlirTypeEqual(pointee, tcb_element_type(v)))
      return fail(op, "value element type differs from the pointee type");
    MlirValue m = is_load ? tile_load_mask(op) : tile_store_mask(op);
    if (!mlirValueIsNull(m)) {
      MlirType mt = mlirValueGetType(m);
      if (!same_shape(p, mt)) return fail(op, "mask shape differs from the pointer shape");
      MlirType me = tcb_element_type(mt);
      if (!mlirTypeIsAInteger(me) || mlirIntegerTypeGetWidth(me) != 1) return fail(op, "mask must be i1");
    }
    if (is_load && !mlirValueIsNull(tile_load_other(op)) && !mlirTypeEqual(mlirValueGetType(tile_load_other(op)), v))
      return fail(op, "'other' type differs from the result type");
  } else if (k == TILE_BROADCAST) {
    MlirType s = mlirValueGetType(mlirOperationGetOperand(op, 0));
    if (!mlirTypeIsARankedTensor(s) || !mlirTypeIsARankedTensor(r0) ||
        mlirShapedTypeGetRank(s) != mlirShapedTypeGetRank(r0))
      return fail(op, "broadcast needs tensors of equal rank");
    for (intptr_t i = 0; i < mlirShapedTypeGetRank(s); i++) {
      int64_t a = mlirShapedTypeGetDimSize(s, i), b = mlirShapedTypeGetDimSize(r0, i);
      if (a != b && a != 1) return fail(op, "broadcast dimension is neither equal nor 1");
    }
  } else if (k == TILE_REDUCE || k == TILE_SCAN) {
    /* 1 to 8 tiles (the IRDL's operands) of one shape, combined along axis: a scan's results
     * have that shape, a reduction's that shape without the axis (a scalar from one dim). */
    MlirType s = mlirValueGetType(mlirOperationGetOperand(op, 0));
    if (!mlirTypeIsARankedTensor(s)) return fail(op, "operands must be ranked tensors");
    intptr_t rank = mlirShapedTypeGetRank(s);
    int64_t axis = tile_int_attr(op, "axis", -1);
    if (axis < 0 || axis >= rank) return fail(op, "axis out of range");
    if (mlirOperationGetNumResults(op) != nops) return fail(op, "needs one result per operand");
    for (intptr_t i = 0; i < nops; i++) {
      if (!same_shape(s, mlirValueGetType(mlirOperationGetOperand(op, i)))) return fail(op, "operand shapes differ");
      MlirType r = mlirValueGetType(mlirOperationGetResult(op, i));
      if (k == TILE_SCAN && !same_shape(s, r)) return fail(op, "a scan's result shape differs from its operands'");
      if (k == TILE_SCAN) continue;
      intptr_t rr = mlirTypeIsARankedTensor(r) ? mlirShapedTypeGetRank(r) : 0;
      bool ok = rr == rank - 1 && (rank > 1 || !mlirTypeIsAShaped(r));
      for (intptr_t d = 0, e = 0; ok && d < rank; d++)
        if (d != axis) ok = mlirShapedTypeGetDimSize(r, e++) == mlirShapedTypeGetDimSize(s, d);
      if (!ok) return fail(op, "a reduction's result shape is not its operands' without the axis");
    }
  } else if (k == TILE_DOT) {
    MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("input_precision"));
    tile_dot_precision p;
    if (!mlirAttributeIsNull(a) &&
        (!mlirAttributeIsAString(a) ||
         !tile_dot_precision_parse(mlirStringAttrGetValue(a).data, mlirStringAttrGetValue(a).length, &p)))
      return fail(op, "input_precision must be one of " TILE_DOT_PRECISIONS);
  } else if (k == TILE_EXPAND_DIMS) {
    MlirType s = mlirValueGetType(mlirOperationGetOperand(op, 0));
    if (!mlirTypeIsARankedTensor(s) || !mlirTypeIsARankedTensor(r0) ||
        mlirShapedTypeGetRank(s) + 1 != mlirShapedTypeGetRank(r0))
      return fail(op, "expand_dims adds exactly one dimension");
  }
  (void)nops;
  return NULL;
}

static MlirWalkResult walk_cb(MlirOperation op, void *user) {
  verify_state *st = user;
  st->status = check_op(op);
  return st->status ? MlirWalkResultInterrupt : MlirWalkResultAdvance;
}

tilec_status *tile_verify(MlirOperation module_op) {
  tc_diag_capture cap;
  tc_diag_capture_begin(&cap, mlirOperationGetContext(module_op));
  bool ok = mlirOperationVerify(module_op);
  tc_diag_capture_end(&cap);
  if (!ok) return tilec_status_create(TILEC_ERROR_INTERNAL, "tile IR fails MLIR verification: %s", cap.text);
  verify_state st = {NULL};
  mlirOperationWalk(module_op, walk_cb, &st, MlirWalkPreOrder);
  return st.status;
}
