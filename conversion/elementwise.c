/* conversion/elementwise.c — chunk values of pure tile ops (range, splat, addptr,
 * constants, arith/math) and scalar lane values for contiguity and bounds.
 * In: old tile values. Out: vector<W x T> values (or base + offsets for pointers). */
#include "conversion/lower.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>
#include <string.h>

void tc_lanectx_init(tc_lanectx *lc, tc_lower *L, tc_builder *b, MlirValue idx) {
  lc->L = L;
  lc->b = b;
  lc->idx = idx;
  tc_valmap_init(&lc->memo, sizeof(MlirValue));
}

void tc_lanectx_free(tc_lanectx *lc) { tc_valmap_free(&lc->memo); }

MlirOperation tc_clone_elementwise(tc_builder *b, MlirOperation op, const MlirValue *operands,
                                   MlirType result_type) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  char buf[96];
  size_t n = name.length < sizeof buf - 1 ? name.length : sizeof buf - 1;
  memcpy(buf, name.data, n);
  buf[n] = 0;
  intptr_t nattr = mlirOperationGetNumAttributes(op);
  MlirNamedAttribute attrs[16];
  if (nattr > 16) nattr = 16;
  for (intptr_t i = 0; i < nattr; i++) attrs[i] = mlirOperationGetAttribute(op, i);
  return tcb_op(b, buf, 1, &result_type, mlirOperationGetNumOperands(op), operands, nattr, attrs);
}

static bool is_elementwise(MlirOperation op) {
  return (tc_op_in_dialect(op, "arith") || tc_op_in_dialect(op, "math")) &&
         !tc_op_is(op, "arith.constant") && mlirOperationGetNumResults(op) == 1;
}

static MlirAttribute splat_constant(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsADenseElements(a) && mlirDenseElementsAttrIsSplat(a))
    return mlirDenseElementsAttrGetSplatValue(a);
  if (mlirAttributeIsAInteger(a) || mlirAttributeIsAFloat(a)) return a;
  return mlirAttributeGetNull();
}

static MlirValue index_to_i32(tc_builder *b, MlirValue idx) {
  return tcb_cast(b, "arith.index_cast", idx, tcb_int_type(b->ctx, 32));
}

MlirValue tc_lane_value(tc_lanectx *lc, MlirValue old) {
  MlirType t = mlirValueGetType(old);
  if (!mlirTypeIsAShaped(t)) return tc_scalar(lc->L, old);
  MlirValue *m = tc_valmap_get(&lc->memo, old.ptr);
  if (m) return *m;
  MlirValue r = {NULL};
  if (mlirValueIsABlockArgument(old)) return r;
  MlirOperation op = mlirOpResultGetOwner(old);
  const char *k = tile_op_kind(op);
  tc_builder *b = lc->b;
  if (k && !strcmp(k, "range")) {
    MlirValue s = tcb_const_int(b, tcb_int_type(b->ctx, 32), tile_int_attr(op, "start", 0));
    r = tcb_binary(b, "arith.addi", index_to_i32(b, lc->idx), s);
  } else if (k && !strcmp(k, "splat")) {
    r = tc_scalar(lc->L, mlirOperationGetOperand(op, 0));
  } else if (tc_op_is(op, "arith.constant")) {
    MlirAttribute a = splat_constant(op);
    if (!mlirAttributeIsNull(a)) {
      MlirNamedAttribute na = tcb_named(b->ctx, "value", a);
      r = tcb_op1(b, "arith.constant", mlirAttributeGetType(a), 0, NULL, 1, &na);
    }
  } else if (is_elementwise(op)) {
    intptr_t n = mlirOperationGetNumOperands(op);
    MlirValue ops[4];
    if (n > 4) return r;
    for (intptr_t i = 0; i < n; i++) {
      ops[i] = tc_lane_value(lc, mlirOperationGetOperand(op, i));
      if (mlirValueIsNull(ops[i])) return r;
    }
    r = mlirOperationGetResult(tc_clone_elementwise(b, op, ops, mlirShapedTypeGetElementType(t)), 0);
  }
  if (!mlirValueIsNull(r)) {
    MlirValue *slot = tc_valmap_put(&lc->memo, old.ptr);
    if (slot) *slot = r;
  }
  return r;
}

static MlirValue iota(tc_builder *b, int64_t width) {
  int32_t *vals = malloc(sizeof(int32_t) * (size_t)width);
  for (int64_t i = 0; i < width; i++) vals[i] = (int32_t)i;
  MlirType vt = tc_vec_type(b->ctx, width, tcb_int_type(b->ctx, 32));
  MlirAttribute a = mlirDenseElementsAttrInt32Get(vt, width, vals);
  free(vals);
  MlirNamedAttribute na = tcb_named(b->ctx, "value", a);
  return tcb_op1(b, "arith.constant", vt, 0, NULL, 1, &na);
}

static MlirValue broadcast(tc_builder *b, MlirValue s, int64_t width) {
  return tcb_op1(b, "vector.broadcast", tc_vec_type(b->ctx, width, mlirValueGetType(s)), 1, &s, 0, NULL);
}

/* Widens the narrower of two integer vectors (sign-extending: tile offsets are signed). */
static void widen_pair(tc_builder *b, MlirValue *x, MlirValue *y) {
  unsigned wx = tcb_bitwidth(tcb_element_type(mlirValueGetType(*x)));
  unsigned wy = tcb_bitwidth(tcb_element_type(mlirValueGetType(*y)));
  if (wx == wy) return;
  MlirValue *n = wx < wy ? x : y, *w = wx < wy ? y : x;
  *n = tcb_cast(b, "arith.extsi", *n, mlirValueGetType(*w));
}

static tc_cval from_buffer(tc_chunk *c, MlirValue old, MlirValue buf) {
  tc_cval r = {0};
  MlirType elem = mlirShapedTypeGetElementType(mlirValueGetType(old));
  MlirType mem = tc_memory_type(c->L->ctx, elem);
  MlirValue ops[2] = {buf, c->iv};
  r.vec = tcb_op1(&c->b, "vector.load", tc_vec_type(c->L->ctx, c->width, mem), 2, ops, 0, NULL);
  if (!mlirTypeEqual(mem, elem)) {
    MlirValue zero = tcb_const_int(&c->b, mlirValueGetType(r.vec), 0);
    r.vec = tcb_cmpi(&c->b, "ne", r.vec, zero);
  }
  return r;
}

tc_cval tc_chunk_value(tc_chunk *c, MlirValue old) {
  tc_cval *m = tc_valmap_get(&c->vals, old.ptr);
  if (m) return *m;
  tc_lower *L = c->L;
  tc_cval r = {0};
  if (L->status) return r;
  MlirType t = mlirValueGetType(old);
  if (mlirValueIsABlockArgument(old)) {
    L->status = tilec_status_create(TILEC_ERROR_UNSUPPORTED,
                                    "tile-valued block arguments are not supported by the lowering yet");
    return r;
  }
  MlirOperation op = mlirOpResultGetOwner(old);
  MlirValue *buf = tc_valmap_get(&L->buffers, old.ptr);
  bool here = tc_valmap_get(&L->in_group, op.ptr) != NULL;
  const char *k = tile_op_kind(op);
  tc_builder *b = &c->b;
  MlirType elem = mlirShapedTypeGetElementType(t);
  if (buf && !here) {
    r = from_buffer(c, old, *buf);
  } else if (k && !strcmp(k, "range")) {
    MlirValue s = tcb_const_int(b, tcb_int_type(L->ctx, 32), tile_int_attr(op, "start", 0));
    MlirValue first = tcb_binary(b, "arith.addi", index_to_i32(b, c->iv), s);
    r.vec = tcb_binary(b, "arith.addi", broadcast(b, first, c->width), iota(b, c->width));
  } else if (k && !strcmp(k, "splat")) {
    MlirValue s = tc_scalar(L, mlirOperationGetOperand(op, 0));
    if (tile_type_is_ptr(elem)) {
      r.is_ptr = true;
      r.base = s;
    } else {
      r.vec = broadcast(b, s, c->width);
    }
  } else if (k && !strcmp(k, "addptr")) {
    tc_cval p = tc_chunk_value(c, mlirOperationGetOperand(op, 0));
    tc_cval o = tc_chunk_value(c, mlirOperationGetOperand(op, 1));
    r = p;
    if (mlirValueIsNull(p.vec)) {
      r.vec = o.vec;
    } else {
      MlirValue x = p.vec, y = o.vec;
      widen_pair(b, &x, &y);
      r.vec = tcb_binary(b, "arith.addi", x, y);
    }
  } else if (k && !strcmp(k, "load")) {
    r = tc_chunk_load(c, op);
  } else if (tc_op_is(op, "arith.constant")) {
    MlirAttribute a = splat_constant(op);
    if (mlirAttributeIsNull(a)) {
      L->status = tc_lower_error(L, op, TILEC_ERROR_UNSUPPORTED, "non-splat tile constants are not supported");
      return r;
    }
    MlirType vt = tc_vec_type(L->ctx, c->width, elem);
    MlirNamedAttribute na = tcb_named(L->ctx, "value", mlirDenseElementsAttrSplatGet(vt, a));
    r.vec = tcb_op1(b, "arith.constant", vt, 0, NULL, 1, &na);
  } else if (is_elementwise(op)) {
    intptr_t n = mlirOperationGetNumOperands(op);
    MlirValue ops[4];
    if (n > 4) {
      L->status = tc_lower_error(L, op, TILEC_ERROR_INTERNAL, "too many operands");
      return r;
    }
    for (intptr_t i = 0; i < n; i++) {
      tc_cval v = tc_chunk_value(c, mlirOperationGetOperand(op, i));
      if (L->status) return r;
      if (v.is_ptr) {
        L->status = tc_lower_error(L, op, TILEC_ERROR_UNSUPPORTED,
                                   "arithmetic on pointer tiles is not supported by the lowering yet");
        return r;
      }
      ops[i] = v.vec;
    }
    r.vec = mlirOperationGetResult(tc_clone_elementwise(b, op, ops, tc_vec_type(L->ctx, c->width, elem)), 0);
  } else {
    MlirStringRef nm = mlirIdentifierStr(mlirOperationGetName(op));
    L->status = tc_lower_error(L, op, TILEC_ERROR_UNSUPPORTED,
                               "'%.*s' on tiles is not supported by the lowering yet", (int)nm.length, nm.data);
    return r;
  }
  if (L->status) return r;
  tc_cval *slot = tc_valmap_put(&c->vals, old.ptr);
  if (slot) *slot = r;
  return r;
}
