/* conversion/atomics.c — tile.atomic_rmw and tile.atomic_cas: one llvm.atomicrmw /
 * llvm.cmpxchg per active lane (atomics have no vector form), in a scalar loop nest for
 * tiles; the old values land in a buffer (tiles) or an SSA value (scalars).
 * In: an atomic op after the group before it was flushed. Out: LLVM atomics in scf. */
#include "conversion/checks.h"
#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <string.h>

enum { ORD_MONOTONIC = 2, ORD_ACQUIRE = 4, ORD_ACQ_REL = 6 };

static int64_t bin_op(const char *k) {
  static const char *names[] = {"xchg", "add",  "sub",  "and",  "nand", "or",   "xor", "max",
                                "min",  "umax", "umin", "fadd", "fsub", "fmax", "fmin"};
  for (int i = 0; i < 15; i++)
    if (!strcmp(names[i], k)) return i;
  return -1;
}

static MlirAttribute i64_attr(tc_lower *L, int64_t v) { return mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), v); }

/* One atomic at a scalar address; returns the old value. */
static MlirValue atomic_at(tc_lower *L, tc_builder *b, MlirOperation op, MlirValue addr, MlirValue cmp, MlirValue val) {
  MlirType t = mlirValueGetType(val);
  if ((tile_op_of(op) == TILE_ATOMIC_CAS)) {
    /* cmpxchg works on integers: floats go through their bits */
    MlirType it = t;
    bool fl = tcb_is_float(t);
    if (fl) {
      it = tcb_int_type(L->ctx, tcb_bitwidth(t));
      cmp = tcb_cast(b, "arith.bitcast", cmp, it);
      val = tcb_cast(b, "arith.bitcast", val, it);
    }
    char st[96];
    char tn[32];
    tcb_type_str(it, tn, sizeof tn);
    snprintf(st, sizeof st, "!llvm.struct<(%s, i1)>", tn);
    MlirValue ops[3] = {addr, cmp, val};
    MlirNamedAttribute at[2] = {tcb_named(L->ctx, "success_ordering", i64_attr(L, ORD_ACQ_REL)),
                                tcb_named(L->ctx, "failure_ordering", i64_attr(L, ORD_ACQUIRE))};
    MlirValue pair = tcb_op1(b, "llvm.cmpxchg", tcb_type(L->ctx, st), 3, ops, 2, at);
    int64_t zero = 0;
    MlirNamedAttribute pos = tcb_named(L->ctx, "position", mlirDenseI64ArrayGet(L->ctx, 1, &zero));
    MlirValue old = tcb_op1(b, "llvm.extractvalue", it, 1, &pair, 1, &pos);
    return fl ? tcb_cast(b, "arith.bitcast", old, t) : old;
  }
  MlirAttribute ka = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("kind"));
  MlirStringRef ks = mlirStringAttrGetValue(ka);
  char kind[16];
  snprintf(kind, sizeof kind, "%.*s", (int)ks.length, ks.data);
  MlirValue ops[2] = {addr, val};
  MlirNamedAttribute at[2] = {tcb_named(L->ctx, "bin_op", i64_attr(L, bin_op(kind))),
                              tcb_named(L->ctx, "ordering", i64_attr(L, ORD_ACQ_REL))};
  return tcb_op1(b, "llvm.atomicrmw", t, 2, ops, 2, at);
}

/* if (mask) old = atomic(...) else old = 0 */
static MlirValue masked_atomic(tc_lower *L, tc_builder *b, MlirOperation op, MlirValue mask, MlirValue addr,
                               MlirValue cmp, MlirValue val) {
  if (mlirValueIsNull(mask)) {
    MlirValue old = atomic_at(L, b, op, addr, cmp, val);
    tc_race_atomic(L, b, op, addr, old, cmp);
    return old;
  }
  MlirType t = mlirValueGetType(val);
  tc_builder ib, eb;
  MlirOperation iff = tcb_if(b, mask, 1, &t, &ib, &eb);
  MlirValue old = atomic_at(L, &ib, op, addr, cmp, val);
  tc_race_atomic(L, &ib, op, addr, old, cmp);
  tcb_op(&ib, "scf.yield", 0, NULL, 1, &old, 0, NULL);
  MlirValue z = tcb_is_float(t) ? tcb_const_float(&eb, t, 0.0) : tcb_const_int(&eb, t, 0);
  tcb_op(&eb, "scf.yield", 0, NULL, 1, &z, 0, NULL);
  return mlirOperationGetResult(iff, 0);
}

typedef struct atomic_lanes {
  MlirOperation op;
  bool cas;
  MlirValue old_ptr, old_cmp, old_val, old_mask;
  MlirType pointee;
  MlirValue buf; /* the old values, one per lane */
  int64_t shape[TC_RANK];
} atomic_lanes;

static void atomic_lane(tc_chunk *c, const tc_pos *pos, void *user) {
  atomic_lanes *x = user;
  tc_lower *L = c->L;
  tc_cval p = tc_eval(c, x->old_ptr, pos);
  MlirValue v = tc_eval(c, x->old_val, pos).vec;
  MlirValue cm = x->cas ? tc_eval(c, x->old_cmp, pos).vec : (MlirValue){NULL};
  MlirValue m = mlirValueIsNull(x->old_mask) ? x->old_mask : tc_eval(c, x->old_mask, pos).vec;
  if (!L->status) tc_check_access(c, x->op, x->old_ptr, p, m, pos);
  if (L->status) return;
  MlirValue addr = mlirValueIsNull(p.vec) ? p.base : tc_scalar_addptr(L, &c->b, p.base, p.vec, x->pointee);
  MlirValue old = masked_atomic(L, &c->b, x->op, m, addr, cm, v);
  tc_buffer_write(c, x->buf, old, pos, x->shape);
}

void tc_lower_atomic(tc_lower *L, MlirOperation op) {
  bool cas = (tile_op_of(op) == TILE_ATOMIC_CAS);
  MlirValue oldres = mlirOperationGetResult(op, 0);
  MlirType rt = mlirValueGetType(oldres);
  MlirValue old_ptr = mlirOperationGetOperand(op, 0);
  MlirValue old_cmp = cas ? mlirOperationGetOperand(op, 1) : (MlirValue){NULL};
  MlirValue old_val = mlirOperationGetOperand(op, cas ? 2 : 1);
  MlirValue old_mask = cas ? (MlirValue){NULL} : tile_store_mask(op);
  MlirType pointee = tile_ptr_pointee(tcb_element_type(mlirValueGetType(old_ptr)));
  if (!mlirTypeIsARankedTensor(rt)) {
    MlirValue p = tc_scalar(L, old_ptr), v = tc_scalar(L, old_val);
    MlirValue c = cas ? tc_scalar(L, old_cmp) : (MlirValue){NULL};
    MlirValue m = mlirValueIsNull(old_mask) ? old_mask : tc_scalar(L, old_mask);
    if (L->status) return;
    tc_check_scalar_access(L, &L->b, op, old_ptr, p, m);
    tc_map_scalar(L, oldres, masked_atomic(L, &L->b, op, m, p, c, v));
    return;
  }
  /* A scalar loop nest: every lane is its own atomic. */
  atomic_lanes x = {op, cas, old_ptr, old_cmp, old_val, old_mask, pointee, {NULL}, {0}};
  int rank = tc_shape_of(rt, x.shape);
  x.buf = tc_alloc_buffer(L, mlirShapedTypeGetElementType(rt), tc_numel(rank, x.shape));
  tc_emit_scalar_nest(L, rank, x.shape, atomic_lane, &x);
  tc_special *s = tc_special_put(L, oldres);
  s->kind = TC_SPECIAL_BUFFER;
  s->buffer = x.buf;
}
