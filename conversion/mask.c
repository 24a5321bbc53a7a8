/* conversion/mask.c — masks that bound the last dimension: `offsets < n` (offsets
 * contiguous along the last dim, n constant along it), row conditions constant along the
 * last dim, and `&` of such. They become a lane count per row so full chunks run
 * unmasked and only the tail is masked. In: old i1 tiles. Out: bounds or chunk masks. */
#include "conversion/analyses.h"
#include "conversion/lower.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <string.h>

static int64_t cmpi_predicate(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("predicate"));
  return mlirAttributeIsAInteger(a) ? mlirIntegerAttrGetValueInt(a) : -1;
}

enum { P_EQ, P_NE, P_SLT, P_SLE, P_SGT, P_SGE, P_ULT, P_ULE, P_UGT, P_UGE };

static int last_dim(const tc_axis *a) { return a->rank > 0 ? a->rank - 1 : 0; }

/* ---- the analysis: which masks are a bound, and of what form ------------------------ */

bool tc_bound_plan(tc_axis_analysis *ax, MlirValue mask, int64_t n, tc_bound *out) {
  memset(out, 0, sizeof *out);
  if (mlirValueIsNull(mask) || !mlirTypeIsARankedTensor(mlirValueGetType(mask))) return false;
  tc_axis mx = tc_axis_of(ax, mask);
  if (mx.rank && mx.constancy[last_dim(&mx)] >= n) {
    /* Constant along the last dim: the whole row is in or out. */
    out->kind = TC_BOUND_ROW;
    out->a = mask;
    return true;
  }
  if (!mlirValueIsAOpResult(mask)) return false;
  MlirOperation op = mlirOpResultGetOwner(mask);
  if (tc_op_is(op, "arith.andi")) {
    tc_bound l, r;
    if (!tc_bound_plan(ax, mlirOperationGetOperand(op, 0), n, &l) ||
        !tc_bound_plan(ax, mlirOperationGetOperand(op, 1), n, &r))
      return false;
    out->kind = TC_BOUND_AND;
    out->a = mlirOperationGetOperand(op, 0);
    out->c = mlirOperationGetOperand(op, 1);
    return true;
  }
  if (tile_op_of(op) == TILE_BROADCAST) {
    MlirValue src = mlirOperationGetOperand(op, 0);
    int64_t ss[TC_RANK], ms[TC_RANK];
    int rank = tc_shape_of(mlirValueGetType(mask), ms);
    tc_bound inner;
    if (tc_shape_of(mlirValueGetType(src), ss) != rank || !rank || ss[rank - 1] != ms[rank - 1] ||
        !tc_bound_plan(ax, src, n, &inner))
      return false;
    out->kind = TC_BOUND_BCAST;
    out->a = src;
    return true;
  }
  if (!tc_op_is(op, "arith.cmpi")) return false;
  int64_t p = cmpi_predicate(op);
  MlirValue a = mlirOperationGetOperand(op, 0), c = mlirOperationGetOperand(op, 1);
  if (p == P_SGT || p == P_SGE || p == P_UGT || p == P_UGE) {
    MlirValue t = a;
    a = c;
    c = t;
    p = p == P_SGT ? P_SLT : p == P_SGE ? P_SLE : p == P_UGT ? P_ULT : P_ULE;
  }
  if (p != P_SLT && p != P_SLE && p != P_ULT && p != P_ULE) return false;
  tc_axis axa = tc_axis_of(ax, a), axc = tc_axis_of(ax, c);
  if (!axa.rank || axa.contiguity[last_dim(&axa)] < n || axc.constancy[last_dim(&axc)] < n) return false;
  out->kind = TC_BOUND_LESS;
  out->a = a;
  out->c = c;
  out->inclusive = p == P_SLE || p == P_ULE;
  out->is_unsigned = p == P_ULT || p == P_ULE;
  return true;
}

/* ---- the emission: a lane count per row -------------------------------------------- */

MlirValue tc_mask_bound(tc_chunk *pre, MlirValue mask, const tc_pos *row, int64_t n) {
  MlirValue none = {NULL};
  tc_lower *L = pre->L;
  tc_builder *b = &pre->b;
  tc_bound plan;
  if (!tc_bound_plan(&L->axis, mask, n, &plan)) return none;
  MlirType i64 = tcb_int_type(L->ctx, 64);
  switch (plan.kind) {
    case TC_BOUND_ROW: {
      MlirValue rp = tc_eval(pre, mask, row).vec;
      if (L->status) return none;
      return tcb_select(b, rp, tcb_const_index(b, n), tcb_const_index(b, 0));
    }
    case TC_BOUND_AND: {
      MlirValue l = tc_mask_bound(pre, plan.a, row, n);
      if (mlirValueIsNull(l)) return none;
      MlirValue r = tc_mask_bound(pre, plan.c, row, n);
      if (mlirValueIsNull(r)) return none;
      return tcb_binary(b, "arith.minsi", l, r);
    }
    case TC_BOUND_BCAST: { /* the source's row: its broadcast dims at 0 */
      int64_t ss[TC_RANK];
      tc_pos r = *row;
      tc_shape_of(mlirValueGetType(plan.a), ss);
      for (int d = 0; d + 1 < r.rank; d++)
        if (ss[d] == 1) r.idx[d] = tcb_const_index(b, 0);
      return tc_mask_bound(pre, plan.a, &r, n);
    }
    default: break;
  }
  MlirValue a0 = tc_eval(pre, plan.a, row).vec, c0 = tc_eval(pre, plan.c, row).vec;
  if (L->status || mlirValueIsNull(a0) || mlirValueIsNull(c0)) return none;
  const char *ext = plan.is_unsigned ? "arith.extui" : "arith.extsi";
  if (tcb_bitwidth(mlirValueGetType(a0)) < 64) a0 = tcb_cast(b, ext, a0, i64);
  if (tcb_bitwidth(mlirValueGetType(c0)) < 64) c0 = tcb_cast(b, ext, c0, i64);
  MlirValue k = tcb_binary(b, "arith.subi", c0, a0);
  if (plan.inclusive) k = tcb_binary(b, "arith.addi", k, tcb_const_int(b, i64, 1));
  k = tcb_binary(b, "arith.maxsi", k, tcb_const_int(b, i64, 0));
  k = tcb_binary(b, "arith.minsi", k, tcb_const_int(b, i64, n));
  return tcb_cast(b, "arith.index_cast", k, tcb_index(L->ctx));
}

bool tc_mask_bound_chunk_uniform(tc_axis_analysis *ax, MlirValue mask, int64_t n, int64_t w) {
  tc_bound plan;
  if (!tc_bound_plan(ax, mask, n, &plan)) return false;
  switch (plan.kind) {
    case TC_BOUND_ROW: return true;
    case TC_BOUND_AND:
      return tc_mask_bound_chunk_uniform(ax, plan.a, n, w) && tc_mask_bound_chunk_uniform(ax, plan.c, n, w);
    case TC_BOUND_BCAST: return tc_mask_bound_chunk_uniform(ax, plan.a, n, w);
    case TC_BOUND_LESS: {
      if (plan.inclusive) return false; /* a <= c: the bound c + 1 is not a multiple of w */
      tc_axis xa = tc_axis_of(ax, plan.a), xc = tc_axis_of(ax, plan.c);
      int la = xa.rank ? xa.rank - 1 : 0, lc = xc.rank ? xc.rank - 1 : 0;
      /* a's row starts at a multiple of w and runs on by +1 (contiguity >= n, the plan's
     * condition); c is a multiple of w: a0 + p < c implies a0 + p + w - 1 < c at p = k * w */
      return xa.divisibility[la] % w == 0 && xc.divisibility[lc] % w == 0;
    }
    default: return false;
  }
}

bool tc_same_value(MlirValue a, MlirValue b, int depth) {
  if (mlirValueEqual(a, b)) return true;
  if (depth > 32 || !mlirValueIsAOpResult(a) || !mlirValueIsAOpResult(b)) return false;
  if (!mlirTypeEqual(mlirValueGetType(a), mlirValueGetType(b))) return false;
  MlirOperation x = mlirOpResultGetOwner(a), y = mlirOpResultGetOwner(b);
  bool pure_x = tc_is_lazy_op(x) || tc_is_pure_scalar_op(x), pure_y = tc_is_lazy_op(y) || tc_is_pure_scalar_op(y);
  if (!pure_x || !pure_y || !mlirIdentifierEqual(mlirOperationGetName(x), mlirOperationGetName(y))) return false;
  intptr_t n = mlirOperationGetNumOperands(x), na = mlirOperationGetNumAttributes(x);
  if (n != mlirOperationGetNumOperands(y) || na != mlirOperationGetNumAttributes(y)) return false;
  for (intptr_t i = 0; i < na; i++) {
    MlirNamedAttribute ax = mlirOperationGetAttribute(x, i);
    MlirAttribute ay = mlirOperationGetAttributeByName(y, mlirIdentifierStr(ax.name));
    if (mlirAttributeIsNull(ay) || !mlirAttributeEqual(ax.attribute, ay)) return false;
  }
  for (intptr_t i = 0; i < n; i++)
    if (!tc_same_value(mlirOperationGetOperand(x, i), mlirOperationGetOperand(y, i), depth + 1)) return false;
  return true;
}

bool tc_chunk_bound_mask(tc_chunk *c, MlirValue old_mask, const tc_pos *pos, MlirValue *out) {
  if (c->mode == TC_CHUNK_GENERIC || mlirValueIsNull(c->bound_mask) || !tc_pos_equal(pos, &c->root) ||
      !tc_same_value(old_mask, c->bound_mask, 0))
    return false;
  *out = c->mode == TC_CHUNK_FULL ? (MlirValue){NULL} : c->tail_mask;
  return true;
}

/* Is mask m false wherever bound_mask is: the bound's own mask, or `&` with it? */
static bool false_past_bound(MlirValue m, MlirValue bound_mask, int depth) {
  if (tc_same_value(m, bound_mask, 0)) return true;
  if (depth > 8 || !mlirValueIsAOpResult(m) || !tc_op_is(mlirOpResultGetOwner(m), "arith.andi")) return false;
  MlirOperation op = mlirOpResultGetOwner(m);
  return false_past_bound(mlirOperationGetOperand(op, 0), bound_mask, depth + 1) ||
         false_past_bound(mlirOperationGetOperand(op, 1), bound_mask, depth + 1);
}

bool tc_uniform_past_bound(tc_lower *L, MlirValue old, MlirValue bound_mask, int depth) {
  if (!mlirTypeIsARankedTensor(mlirValueGetType(old))) return true; /* a scalar */
  if (depth > 16 || !mlirValueIsAOpResult(old) || tc_special_of(L, old)) return false;
  MlirOperation op = mlirOpResultGetOwner(old);
  switch (tile_op_of(op)) {
    case TILE_SPLAT: return true; /* of a scalar */
    case TILE_HINT: return tc_uniform_past_bound(L, mlirOperationGetOperand(op, 0), bound_mask, depth + 1);
    case TILE_LOAD: {
      /* masked off there: every lane is `other` (or zero) and no memory is read */
      MlirValue mask = tile_load_mask(op), other = tile_load_other(op);
      return !mlirValueIsNull(mask) && false_past_bound(mask, bound_mask, 0) &&
             (mlirValueIsNull(other) || tc_uniform_past_bound(L, other, bound_mask, depth + 1));
    }
    case TILE_NOT_TILE: break;
    default: return false;
  }
  if (tc_op_is(op, "arith.constant")) {
    MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
    return mlirAttributeIsADenseElements(a) && mlirDenseElementsAttrIsSplat(a);
  }
  if (!tc_is_lazy_op(op)) return false;
  if (tc_op_is(op, "arith.select") && false_past_bound(mlirOperationGetOperand(op, 0), bound_mask, 0))
    return tc_uniform_past_bound(L, mlirOperationGetOperand(op, 2), bound_mask, depth + 1);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++)
    if (!tc_uniform_past_bound(L, mlirOperationGetOperand(op, i), bound_mask, depth + 1)) return false;
  return true;
}

MlirValue tc_chunk_mask(tc_chunk *c, MlirValue old_mask, const tc_pos *pos) {
  if (mlirValueIsNull(old_mask)) return old_mask;
  MlirValue m;
  if (tc_chunk_bound_mask(c, old_mask, pos, &m)) return m;
  return tc_eval(c, old_mask, pos).vec;
}
