/* conversion/memory.c — tile.load / tile.store: contiguous pointer tiles become
 * vector.load/store (masked only where the mask is not provably true), uniform pointers
 * scalar accesses, and only irregular pointers gather/scatter. In: chunk contexts and
 * axis info. Out: vector-dialect memory ops on memref views of raw pointers. */
#include "conversion/lower.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdint.h>
#include <string.h>

MlirType tc_memory_type(MlirContext ctx, MlirType elem) {
  if (mlirTypeIsAInteger(elem) && mlirIntegerTypeGetWidth(elem) == 1) return mlirIntegerTypeGet(ctx, 8);
  if (tile_type_is_ptr(elem)) return tcb_type(ctx, "!llvm.ptr");
  return elem;
}

static MlirType ptr_type(MlirContext ctx) { return tcb_type(ctx, "!llvm.ptr"); }

static MlirValue insertvalue(tc_builder *b, MlirValue agg, MlirValue v, int n, const int64_t *pos) {
  MlirValue ops[2] = {agg, v};
  MlirNamedAttribute a = tcb_named(b->ctx, "position", mlirDenseI64ArrayGet(b->ctx, n, pos));
  return tcb_op1(b, "llvm.insertvalue", mlirValueGetType(agg), 2, ops, 1, &a);
}

/* memref<?xT> over [ptr, ptr + huge): the descriptor is built by hand because upstream
 * has no op that views a bare pointer as a memref; the casts fold away in LLVM. */
MlirValue tc_memref_from_ptr(tc_lower *L, tc_builder *b, MlirValue ptr, MlirType elem) {
  MlirContext ctx = L->ctx;
  MlirType desc = tcb_type(ctx, "!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>");
  MlirValue d = tcb_op1(b, "llvm.mlir.poison", desc, 0, NULL, 0, NULL);
  MlirType i64 = tcb_int_type(ctx, 64);
  int64_t p0 = 0, p1 = 1, p2 = 2, p3[2] = {3, 0}, p4[2] = {4, 0};
  d = insertvalue(b, d, ptr, 1, &p0);
  d = insertvalue(b, d, ptr, 1, &p1);
  d = insertvalue(b, d, tcb_const_int(b, i64, 0), 1, &p2);
  d = insertvalue(b, d, tcb_const_int(b, i64, (int64_t)1 << 40), 2, p3);
  d = insertvalue(b, d, tcb_const_int(b, i64, 1), 2, p4);
  int64_t dyn = mlirShapedTypeGetDynamicSize();
  MlirType mt = mlirMemRefTypeContiguousGet(elem, 1, &dyn, mlirAttributeGetNull());
  return tcb_op1(b, "builtin.unrealized_conversion_cast", mt, 1, &d, 0, NULL);
}

MlirValue tc_scalar_addptr(tc_lower *L, tc_builder *b, MlirValue base, MlirValue offset, MlirType pointee) {
  MlirValue ops[2] = {base, offset};
  int32_t dynamic = INT32_MIN;
  MlirNamedAttribute a[2] = {
      tcb_named(L->ctx, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 1, &dynamic)),
      tcb_named(L->ctx, "elem_type", mlirTypeAttrGet(tc_memory_type(L->ctx, pointee)))};
  return tcb_op1(b, "llvm.getelementptr", ptr_type(L->ctx), 2, ops, 2, a);
}

/* Element offset of the pointer tile at the chunk's first lane, as an index. */
static MlirValue first_lane_offset(tc_chunk *c, MlirValue old_ptr, tc_cval p) {
  tc_builder *b = &c->b;
  MlirType i64 = tcb_int_type(c->L->ctx, 64);
  MlirValue acc = {NULL};
  MlirValue v = old_ptr;
  bool ok = true;
  while (ok && mlirValueIsAOpResult(v)) {
    MlirOperation op = mlirOpResultGetOwner(v);
    const char *k = tile_op_kind(op);
    if (k && !strcmp(k, "splat")) break;
    if (!k || strcmp(k, "addptr")) {
      ok = false;
      break;
    }
    MlirValue o = tc_lane_value(&c->lanes, mlirOperationGetOperand(op, 1));
    if (mlirValueIsNull(o)) {
      ok = false;
      break;
    }
    if (tcb_bitwidth(mlirValueGetType(o)) < 64) o = tcb_cast(b, "arith.extsi", o, i64);
    acc = mlirValueIsNull(acc) ? o : tcb_binary(b, "arith.addi", acc, o);
    v = mlirOperationGetOperand(op, 0);
  }
  if (!ok || mlirValueIsAOpResult(v) == false) {
    /* Offsets the symbolic evaluator cannot follow: read lane 0 of the offset vector. */
    int64_t zero = 0;
    MlirNamedAttribute a = tcb_named(c->L->ctx, "static_position", mlirDenseI64ArrayGet(c->L->ctx, 1, &zero));
    acc = tcb_op1(b, "vector.extract", tcb_element_type(mlirValueGetType(p.vec)), 1, &p.vec, 1, &a);
  }
  if (mlirValueIsNull(acc)) return tcb_const_index(b, 0);
  return tcb_cast(b, "arith.index_cast", acc, tcb_index(c->L->ctx));
}

static MlirValue all_true(tc_builder *b, int64_t width) {
  return tcb_const_int(b, tc_vec_type(b->ctx, width, tcb_int_type(b->ctx, 1)), 1);
}

typedef enum access_kind { ACCESS_CONTIGUOUS, ACCESS_UNIFORM, ACCESS_GATHER } access_kind;

static access_kind classify(tc_chunk *c, MlirValue old_ptr, tc_cval p) {
  if (mlirValueIsNull(p.vec)) return ACCESS_UNIFORM;
  tc_axis ax = tc_axis_of(&c->L->axis, old_ptr);
  int last = ax.rank > 0 ? ax.rank - 1 : 0;
  if (ax.contiguity[last] >= c->width && ax.contiguity[last] % c->width == 0) return ACCESS_CONTIGUOUS;
  return ACCESS_GATHER;
}

tc_cval tc_chunk_load(tc_chunk *c, MlirOperation load) {
  tc_lower *L = c->L;
  tc_builder *b = &c->b;
  tc_cval r = {0};
  MlirValue old_ptr = mlirOperationGetOperand(load, 0);
  tc_cval p = tc_chunk_value(c, old_ptr);
  if (L->status) return r;
  MlirType elem = mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetResult(load, 0)));
  MlirType mem = tc_memory_type(L->ctx, elem);
  MlirType vt = tc_vec_type(L->ctx, c->width, mem);
  MlirValue mask = tc_chunk_mask(c, tile_load_mask(load));
  MlirValue pass = {NULL};
  if (!mlirValueIsNull(mask)) {
    MlirValue other = tile_load_other(load);
    if (!mlirValueIsNull(other)) {
      pass = tc_chunk_value(c, other).vec;
      if (!mlirTypeEqual(mem, elem)) pass = tcb_cast(b, "arith.extui", pass, vt);
    } else if (tcb_is_float(mem)) {
      pass = tcb_const_float(b, vt, 0.0);
    } else {
      pass = tcb_const_int(b, vt, 0);
    }
  }
  MlirValue m = tc_view_of(L, b, p.base, mem);
  access_kind kind = classify(c, old_ptr, p);
  if (kind == ACCESS_UNIFORM && mlirValueIsNull(mask)) {
    MlirValue s = tcb_op1(b, "llvm.load", mem, 1, &p.base, 0, NULL);
    r.vec = tcb_op1(b, "vector.broadcast", vt, 1, &s, 0, NULL);
  } else if (kind == ACCESS_CONTIGUOUS) {
    MlirValue start = first_lane_offset(c, old_ptr, p);
    if (mlirValueIsNull(mask)) {
      MlirValue ops[2] = {m, start};
      r.vec = tcb_op1(b, "vector.load", vt, 2, ops, 0, NULL);
    } else {
      MlirValue ops[4] = {m, start, mask, pass};
      r.vec = tcb_op1(b, "vector.maskedload", vt, 4, ops, 0, NULL);
    }
  } else {
    MlirValue offs = p.vec;
    if (mlirValueIsNull(offs)) offs = tcb_const_int(b, tc_vec_type(L->ctx, c->width, tcb_int_type(L->ctx, 32)), 0);
    MlirValue ops[5] = {m, tcb_const_index(b, 0), offs, mlirValueIsNull(mask) ? all_true(b, c->width) : mask,
                        mlirValueIsNull(pass) ? (tcb_is_float(mem) ? tcb_const_float(b, vt, 0.0) : tcb_const_int(b, vt, 0))
                                              : pass};
    r.vec = tcb_op1(b, "vector.gather", vt, 5, ops, 0, NULL);
  }
  if (!mlirTypeEqual(mem, elem)) r.vec = tcb_cmpi(b, "ne", r.vec, tcb_const_int(b, vt, 0));
  return r;
}

void tc_chunk_store(tc_chunk *c, MlirOperation store) {
  tc_lower *L = c->L;
  tc_builder *b = &c->b;
  MlirValue old_ptr = mlirOperationGetOperand(store, 0);
  tc_cval p = tc_chunk_value(c, old_ptr);
  tc_cval v = tc_chunk_value(c, mlirOperationGetOperand(store, 1));
  if (L->status) return;
  MlirType elem = tcb_element_type(mlirValueGetType(v.vec));
  MlirType mem = tc_memory_type(L->ctx, elem);
  MlirValue val = v.vec;
  if (!mlirTypeEqual(mem, elem)) val = tcb_cast(b, "arith.extui", val, tc_vec_type(L->ctx, c->width, mem));
  MlirValue mask = tc_chunk_mask(c, tile_store_mask(store));
  MlirValue m = tc_view_of(L, b, p.base, mem);
  access_kind kind = classify(c, old_ptr, p);
  if (kind == ACCESS_CONTIGUOUS) {
    MlirValue start = first_lane_offset(c, old_ptr, p);
    if (mlirValueIsNull(mask)) {
      MlirValue ops[3] = {val, m, start};
      tcb_op(b, "vector.store", 0, NULL, 3, ops, 0, NULL);
    } else {
      MlirValue ops[4] = {m, start, mask, val};
      tcb_op(b, "vector.maskedstore", 0, NULL, 4, ops, 0, NULL);
    }
    return;
  }
  /* Uniform or irregular: scatter writes lanes in order, so the last active lane wins,
   * which is one of the outcomes Triton allows for duplicate addresses. */
  MlirValue offs = p.vec;
  if (mlirValueIsNull(offs)) offs = tcb_const_int(b, tc_vec_type(L->ctx, c->width, tcb_int_type(L->ctx, 32)), 0);
  MlirValue ops[5] = {m, tcb_const_index(b, 0), offs, mlirValueIsNull(mask) ? all_true(b, c->width) : mask, val};
  tcb_op(b, "vector.scatter", 0, NULL, 5, ops, 0, NULL);
}

static MlirOperation build_if(tc_lower *L, tc_builder *b, MlirValue cond, intptr_t nres, const MlirType *res,
                              MlirBlock *then_block, MlirBlock *else_block) {
  MlirRegion regions[2] = {mlirRegionCreate(), mlirRegionCreate()};
  *then_block = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(regions[0], *then_block);
  if (else_block) {
    *else_block = mlirBlockCreate(0, NULL, NULL);
    mlirRegionAppendOwnedBlock(regions[1], *else_block);
  }
  (void)L;
  return tcb_op_regions(b, "scf.if", nres, res, 1, &cond, 0, NULL, 2, regions);
}

void tc_lower_scalar_load(tc_lower *L, MlirOperation load) {
  MlirValue old = mlirOperationGetResult(load, 0);
  MlirType elem = mlirValueGetType(old);
  MlirType mem = tc_memory_type(L->ctx, elem);
  MlirValue ptr = tc_scalar(L, mlirOperationGetOperand(load, 0));
  MlirValue old_mask = tile_load_mask(load);
  MlirValue r;
  if (mlirValueIsNull(old_mask)) {
    r = tcb_op1(&L->b, "llvm.load", mem, 1, &ptr, 0, NULL);
  } else {
    MlirBlock tb, eb;
    MlirOperation iff = build_if(L, &L->b, tc_scalar(L, old_mask), 1, &mem, &tb, &eb);
    tc_builder ib;
    tcb_init(&ib, L->ctx);
    ib.loc = L->b.loc;
    tcb_set_end(&ib, tb);
    MlirValue v = tcb_op1(&ib, "llvm.load", mem, 1, &ptr, 0, NULL);
    tcb_op(&ib, "scf.yield", 0, NULL, 1, &v, 0, NULL);
    tcb_set_end(&ib, eb);
    MlirValue other = tile_load_other(load);
    MlirValue o = !mlirValueIsNull(other) ? tc_scalar(L, other)
                  : tcb_is_float(mem)     ? tcb_const_float(&ib, mem, 0.0)
                                          : tcb_const_int(&ib, mem, 0);
    if (!mlirValueIsNull(other) && !mlirTypeEqual(mem, elem)) o = tcb_cast(&ib, "arith.extui", o, mem);
    tcb_op(&ib, "scf.yield", 0, NULL, 1, &o, 0, NULL);
    r = mlirOperationGetResult(iff, 0);
  }
  if (!mlirTypeEqual(mem, elem)) r = tcb_cmpi(&L->b, "ne", r, tcb_const_int(&L->b, mem, 0));
  MlirValue *slot = tc_valmap_put(&L->scalars, old.ptr);
  if (slot) *slot = r;
}

void tc_lower_scalar_store(tc_lower *L, MlirOperation store) {
  MlirValue ptr = tc_scalar(L, mlirOperationGetOperand(store, 0));
  MlirValue val = tc_scalar(L, mlirOperationGetOperand(store, 1));
  MlirType elem = mlirValueGetType(val);
  MlirType mem = tc_memory_type(L->ctx, elem);
  MlirValue old_mask = tile_store_mask(store);
  tc_builder ib = L->b;
  if (!mlirValueIsNull(old_mask)) {
    MlirBlock tb;
    build_if(L, &L->b, tc_scalar(L, old_mask), 0, NULL, &tb, NULL);
    tcb_set_end(&ib, tb);
  }
  if (!mlirTypeEqual(mem, elem)) val = tcb_cast(&ib, "arith.extui", val, mem);
  MlirValue ops[2] = {val, ptr};
  tcb_op(&ib, "llvm.store", 0, NULL, 2, ops, 0, NULL);
  if (!mlirValueIsNull(old_mask)) tcb_op(&ib, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

MlirValue tc_view_of(tc_lower *L, tc_builder *b, MlirValue ptr, MlirType elem) {
  tc_view *v = tc_valmap_get(&L->views, ptr.ptr);
  if (v && mlirTypeEqual(v->elem, elem)) return v->memref;
  return tc_memref_from_ptr(L, b, ptr, elem);
}

/* The scalar pointer a pointer tile is built from (splat at the root of addptr chains). */
static MlirValue root_pointer(MlirValue v) {
  while (mlirValueIsAOpResult(v)) {
    MlirOperation op = mlirOpResultGetOwner(v);
    const char *k = tile_op_kind(op);
    if (k && !strcmp(k, "splat")) return mlirOperationGetOperand(op, 0);
    if (!k || strcmp(k, "addptr")) break;
    v = mlirOperationGetOperand(op, 0);
  }
  return (MlirValue){NULL};
}

void tc_prepare_views(tc_lower *L) {
  tc_valmap_clear(&L->views);
  for (int i = 0; i < L->ngroup; i++) {
    MlirOperation op = L->group[i];
    const char *k = tile_op_kind(op);
    if (!k || (strcmp(k, "load") && strcmp(k, "store"))) continue;
    MlirValue old_ptr = mlirOperationGetOperand(op, 0);
    MlirValue root = root_pointer(old_ptr);
    if (mlirValueIsNull(root)) continue;
    MlirValue *base = tc_valmap_get(&L->scalars, root.ptr);
    if (!base) continue;
    MlirType pointee = tile_ptr_pointee(tcb_element_type(mlirValueGetType(old_ptr)));
    MlirType mem = tc_memory_type(L->ctx, pointee);
    tc_view *v = tc_valmap_get(&L->views, base->ptr);
    if (v) continue;
    MlirValue m = tc_memref_from_ptr(L, &L->b, *base, mem);
    v = tc_valmap_put(&L->views, base->ptr);
    if (v) {
      v->memref = m;
      v->elem = mem;
    }
  }
}
