/* dialects/ir_util.c — the stateless IR helpers of dialects/ir_util.h (op kinds, shapes,
 * vector types, splats, elementwise clones); integer semantics are in int_semantics.c.
 * In: operations, types, values, a builder. Out: facts, or ops built at the builder. */
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <math.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <string.h>

/* ---- ops --------------------------------------------------------------------------------- */

bool tc_op_is(MlirOperation op, const char *name) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return s.length == strlen(name) && !memcmp(s.data, name, s.length);
}

bool tc_op_in_dialect(MlirOperation op, const char *dialect) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  size_t n = strlen(dialect);
  return s.length > n && !memcmp(s.data, dialect, n) && s.data[n] == '.';
}

bool tc_block_encloses(MlirBlock outer, MlirBlock inner) {
  for (MlirBlock b = inner; !mlirBlockIsNull(b);) {
    if (mlirBlockEqual(b, outer)) return true;
    MlirOperation parent = mlirBlockGetParentOperation(b);
    if (mlirOperationIsNull(parent)) return false;
    b = mlirOperationGetBlock(parent);
  }
  return false;
}

bool tc_is_lazy_op(MlirOperation op) {
  if (mlirOperationGetNumResults(op) != 1) return false;
  if (!mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0)))) return false;
  if (tile_op_of(op)) return tile_op_has(op, TILE_TRAIT_LAZY);
  return tc_op_in_dialect(op, "arith") || tc_op_in_dialect(op, "math");
}

bool tc_is_always_lazy_op(MlirOperation op) { return tc_is_lazy_op(op) && !tile_op_has(op, TILE_TRAIT_ROOT); }

bool tc_is_pure_scalar_op(MlirOperation op) {
  if (mlirOperationGetNumResults(op) != 1 || mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0))))
    return false;
  if (tile_op_of(op)) return tile_op_has(op, TILE_TRAIT_PURE);
  return tc_op_in_dialect(op, "arith") || tc_op_in_dialect(op, "math");
}

bool tc_reshape_is_unit(MlirOperation op) {
  int64_t s[TC_RANK], r[TC_RANK];
  int sr = tc_shape_of(mlirValueGetType(mlirOperationGetOperand(op, 0)), s);
  int rr = tc_shape_of(mlirValueGetType(mlirOperationGetResult(op, 0)), r);
  int64_t a[TC_RANK], b[TC_RANK];
  int na = 0, nb = 0;
  for (int i = 0; i < sr; i++)
    if (s[i] != 1) a[na++] = s[i];
  for (int i = 0; i < rr; i++)
    if (r[i] != 1) b[nb++] = r[i];
  if (na != nb) return false;
  for (int i = 0; i < na; i++)
    if (a[i] != b[i]) return false;
  /* Lazily evaluable only if a chunk of the result's last dim is a chunk of the source's
   * last dim (or a single element): [N,1] -> [N] reads a column, so it goes via memory. */
  return rr == 0 || r[rr - 1] == 1 || (sr > 0 && s[sr - 1] != 1);
}

/* ---- shapes and types -------------------------------------------------------------------- */

int tc_shape_of(MlirType t, int64_t *shape) {
  if (!mlirTypeIsAShaped(t)) return 0;
  int r = (int)mlirShapedTypeGetRank(t);
  for (int i = 0; i < r && i < TC_RANK; i++) shape[i] = mlirShapedTypeGetDimSize(t, i);
  return r;
}

bool tc_same_shape(MlirType a, MlirType b) {
  int64_t sa[TC_RANK], sb[TC_RANK];
  int ra = tc_shape_of(a, sa), rb = tc_shape_of(b, sb);
  if (ra != rb) return false;
  for (int i = 0; i < ra; i++)
    if (sa[i] != sb[i]) return false;
  return true;
}

int64_t tc_numel(int rank, const int64_t *shape) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) n *= shape[i];
  return n;
}

MlirType tc_vec_type(MlirContext ctx, int64_t width, MlirType elem) {
  (void)ctx;
  return mlirVectorTypeGet(1, &width, elem);
}

MlirType tc_memory_type(MlirContext ctx, MlirType elem) {
  if (mlirTypeIsAInteger(elem) && mlirIntegerTypeGetWidth(elem) == 1) return mlirIntegerTypeGet(ctx, 8);
  if (tile_type_is_ptr(elem)) return tcb_type(ctx, "!llvm.ptr");
  return elem;
}

/* ---- values built at b ------------------------------------------------------------------- */

MlirValue tc_iota(tc_builder *b, int64_t width) {
  int32_t vals[64]; /* a chunk has at most 64 lanes (512 bits of i8) */
  if (width > 64) width = 64;
  for (int64_t i = 0; i < width; i++) vals[i] = (int32_t)i;
  MlirType vt = tc_vec_type(b->ctx, width, tcb_int_type(b->ctx, 32));
  MlirAttribute a = mlirDenseElementsAttrInt32Get(vt, width, vals);
  MlirNamedAttribute na = tcb_named(b->ctx, "value", a);
  return tcb_op1(b, "arith.constant", vt, 0, NULL, 1, &na);
}

MlirValue tc_splat_vec(tc_builder *b, MlirValue s, int64_t width) {
  return tcb_op1(b, "vector.broadcast", tc_vec_type(b->ctx, width, mlirValueGetType(s)), 1, &s, 0, NULL);
}

MlirValue tc_vec_lane(tc_builder *b, MlirValue v, int64_t k) {
  MlirNamedAttribute a = tcb_named(b->ctx, "static_position", mlirDenseI64ArrayGet(b->ctx, 1, &k));
  return tcb_op1(b, "vector.extract", tcb_element_type(mlirValueGetType(v)), 1, &v, 1, &a);
}

MlirOperation tc_clone_elementwise(tc_builder *b, MlirOperation op, const MlirValue *operands, MlirType result) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  char buf[96];
  size_t n = name.length < sizeof buf - 1 ? name.length : sizeof buf - 1;
  memcpy(buf, name.data, n);
  buf[n] = 0;
  if (tc_is_guarded_int_op(buf)) return tc_build_guarded_int_op(b, buf, operands[0], operands[1], result);
  intptr_t nattr = mlirOperationGetNumAttributes(op);
  MlirNamedAttribute attrs[16];
  if (nattr > 16) nattr = 16;
  for (intptr_t i = 0; i < nattr; i++) attrs[i] = mlirOperationGetAttribute(op, i);
  return tcb_op(b, buf, 1, &result, mlirOperationGetNumOperands(op), operands, nattr, attrs);
}

/* ---- the accurate form of a math op ------------------------------------------------------ */

bool tc_op_is_precise(MlirOperation op) {
  return !mlirAttributeIsNull(
      mlirOperationGetDiscardableAttributeByName(op, mlirStringRefCreateFromCString(TC_ATTR_PRECISE)));
}

void tc_op_set_precise(MlirOperation op) {
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetDiscardableAttributeByName(op, mlirStringRefCreateFromCString(TC_ATTR_PRECISE), mlirUnitAttrGet(ctx));
}

static MlirWalkResult strip_one(MlirOperation op, void *user) {
  (void)user;
  mlirOperationRemoveDiscardableAttributeByName(op, mlirStringRefCreateFromCString(TC_ATTR_PRECISE));
  return MlirWalkResultAdvance;
}

void tc_strip_precise(MlirOperation root) { mlirOperationWalk(root, strip_one, NULL, MlirWalkPreOrder); }

static bool is_zero_attr(MlirAttribute v, bool bits) {
  if (mlirAttributeIsAFloat(v)) {
    double x = mlirFloatAttrGetValueDouble(v);
    return x == 0.0 && !(bits && signbit(x));
  }
  if (mlirAttributeIsAInteger(v)) return mlirIntegerAttrGetValueInt(v) == 0;
  return false;
}

bool tc_is_zero_splat(MlirValue v, bool bits) {
  if (!mlirValueIsAOpResult(v)) return false;
  MlirOperation d = mlirOpResultGetOwner(v);
  if (tile_op_of(d) == TILE_SPLAT) {
    MlirValue s = mlirOperationGetOperand(d, 0);
    if (!mlirValueIsAOpResult(s)) return false;
    d = mlirOpResultGetOwner(s);
  }
  if (!tc_op_is(d, "arith.constant")) return false;
  MlirAttribute a = mlirOperationGetAttributeByName(d, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsNull(a)) return false;
  if (mlirAttributeIsADenseElements(a))
    return mlirDenseElementsAttrIsSplat(a) && is_zero_attr(mlirDenseElementsAttrGetSplatValue(a), bits);
  return is_zero_attr(a, bits);
}
