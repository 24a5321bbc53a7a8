/* conversion/lower.c — the tile → vector/scf driver: rewrites each kernel function,
 * maps scalars one to one, and fuses runs of same-shaped tile ops into groups that run
 * as loops over native-width chunks. In: a verified tile module. Out: a new module in
 * func/scf/arith/math/vector/memref/llvm-pointer ops, ready for upstream lowering. */
#include "conversion/lower.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TC_STACK_BUFFER_LIMIT (128 * 1024)

bool tc_op_is(MlirOperation op, const char *name) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return s.length == strlen(name) && !memcmp(s.data, name, s.length);
}

bool tc_op_in_dialect(MlirOperation op, const char *dialect) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  size_t n = strlen(dialect);
  return s.length > n && !memcmp(s.data, dialect, n) && s.data[n] == '.';
}

MlirType tc_vec_type(MlirContext ctx, int64_t width, MlirType elem) {
  (void)ctx;
  return mlirVectorTypeGet(1, &width, elem);
}

static void loc_text(MlirLocation loc, char *buf, size_t n) {
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirStringRef f = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    snprintf(buf, n, "%.*s:%d:%d", (int)f.length, f.data, mlirLocationFileLineColRangeGetStartLine(loc),
             mlirLocationFileLineColRangeGetStartColumn(loc));
  } else {
    tcb_attr_str(mlirLocationGetAttribute(loc), buf, n);
  }
}

tilec_status *tc_lower_error(tc_lower *L, MlirOperation op, tilec_status_code code, const char *fmt, ...) {
  (void)L;
  char msg[512], where[256] = "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!mlirOperationIsNull(op)) {
    MlirLocation loc = mlirOperationGetLocation(op);
    if (mlirLocationIsAFileLineColRange(loc)) {
      MlirStringRef f = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
      char file[256];
      snprintf(file, sizeof file, "%.*s", (int)f.length, f.data);
      return tilec_status_create_at(code, file, mlirLocationFileLineColRangeGetStartLine(loc),
                                    mlirLocationFileLineColRangeGetStartColumn(loc), NULL, "%s", msg);
    }
    loc_text(loc, where, sizeof where);
    return tilec_status_create(code, "%s (at %s)", msg, where);
  }
  return tilec_status_create(code, "%s", msg);
}

MlirType tc_lower_scalar_type(tc_lower *L, MlirType t) {
  if (tile_type_is_ptr(t)) return tcb_type(L->ctx, "!llvm.ptr");
  return t;
}

MlirValue tc_scalar(tc_lower *L, MlirValue old) {
  MlirValue *v = tc_valmap_get(&L->scalars, old.ptr);
  if (v) return *v;
  if (!L->status)
    L->status = tilec_status_create(TILEC_ERROR_INTERNAL, "lowering: a scalar value was used before it was lowered");
  return (MlirValue){NULL};
}

static void map_scalar(tc_lower *L, MlirValue old, MlirValue v) {
  MlirValue *slot = tc_valmap_put(&L->scalars, old.ptr);
  if (slot) *slot = v;
}

static bool is_tile_type(MlirType t) { return mlirTypeIsARankedTensor(t); }

/* ---- groups --------------------------------------------------------------------------- */

static int64_t group_numel(const tc_lower *L) {
  int64_t n = 1;
  for (int d = 0; d < L->group_rank; d++) n *= L->group_shape[d];
  return n;
}

static bool op_in_group(tc_lower *L, MlirOperation op) { return tc_valmap_get(&L->in_group, op.ptr) != NULL; }

static bool has_outside_use(tc_lower *L, MlirValue v) {
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u))
    if (!op_in_group(L, mlirOpOperandGetOwner(u))) return true;
  return false;
}

static MlirValue alloc_buffer(tc_lower *L, MlirType elem, int64_t numel) {
  MlirType mem = tc_memory_type(L->ctx, elem);
  MlirType mt = mlirMemRefTypeContiguousGet(mem, 1, &numel, mlirAttributeGetNull());
  int64_t bytes = numel * (int64_t)((tcb_bitwidth(mem) + 7) / 8);
  /* Allocation at function entry keeps loops free of stack growth. */
  tc_builder eb = L->b;
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(L->new_func, 0));
  MlirOperation first = mlirBlockGetFirstOperation(entry);
  if (!mlirOperationIsNull(first)) tcb_set_before(&eb, first);
  else tcb_set_end(&eb, entry);
  MlirNamedAttribute seg = tcb_named(L->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(L->ctx, 2, (int32_t[]){0, 0}));
  MlirNamedAttribute align = tcb_named(L->ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), 64));
  MlirNamedAttribute attrs[2] = {seg, align};
  if (bytes <= TC_STACK_BUFFER_LIMIT)
    return tcb_op1(&eb, "memref.alloca", mt, 0, NULL, 2, attrs);
  MlirValue v = tcb_op1(&eb, "memref.alloc", mt, 0, NULL, 2, attrs);
  if (L->ndeallocs == L->capdeallocs) {
    L->capdeallocs = L->capdeallocs ? 2 * L->capdeallocs : 8;
    L->deallocs = realloc(L->deallocs, sizeof *L->deallocs * (size_t)L->capdeallocs);
  }
  L->deallocs[L->ndeallocs++] = mlirOpResultGetOwner(v);
  return v;
}

typedef struct group_plan {
  int64_t numel, width;
  MlirValue bound_mask; /* old mask shared by every store, if it is a bound */
  MlirValue bound;      /* index, computed at function level */
} group_plan;

static void emit_body(tc_lower *L, const group_plan *g, MlirBlock block, MlirValue iv, tc_chunk_mode mode,
                      MlirValue tail_mask) {
  tc_chunk c;
  memset(&c, 0, sizeof c);
  c.L = L;
  tcb_init(&c.b, L->ctx);
  tcb_set_end(&c.b, block);
  c.iv = iv;
  c.width = g->width;
  c.mode = mode;
  c.bound_mask = g->bound_mask;
  c.tail_mask = tail_mask;
  tc_valmap_init(&c.vals, sizeof(tc_cval));
  tc_lanectx_init(&c.lanes, L, &c.b, iv);
  /* Loads first, in program order: a group never has a load after a store. */
  for (int i = 0; i < L->ngroup && !L->status; i++) {
    MlirOperation op = L->group[i];
    c.b.loc = mlirOperationGetLocation(op);
    if (tc_op_is(op, "tile.load")) tc_chunk_value(&c, mlirOperationGetResult(op, 0));
  }
  for (int i = 0; i < L->ngroup && !L->status; i++) {
    MlirOperation op = L->group[i];
    c.b.loc = mlirOperationGetLocation(op);
    if (tc_op_is(op, "tile.store")) tc_chunk_store(&c, op);
  }
  for (int i = 0; i < L->ngroup && !L->status; i++) {
    MlirOperation op = L->group[i];
    if (!tc_op_is(op, "tile.load")) continue;
    MlirValue old = mlirOperationGetResult(op, 0);
    MlirValue *buf = tc_valmap_get(&L->buffers, old.ptr);
    if (!buf) continue;
    MlirValue v = tc_chunk_value(&c, old).vec;
    MlirType elem = tcb_element_type(mlirValueGetType(v));
    MlirType mem = tc_memory_type(L->ctx, elem);
    if (!mlirTypeEqual(mem, elem)) v = tcb_cast(&c.b, "arith.extui", v, tc_vec_type(L->ctx, c.width, mem));
    MlirValue ops[3] = {v, *buf, iv};
    tcb_op(&c.b, "vector.store", 0, NULL, 3, ops, 0, NULL);
  }
  tc_lanectx_free(&c.lanes);
  tc_valmap_free(&c.vals);
}

/* scf.for lb..ub step; returns the body block (ending in scf.yield) and its iv. */
static MlirBlock build_for(tc_lower *L, MlirValue lb, MlirValue ub, MlirValue step, MlirValue *iv,
                           MlirOperation *yield) {
  MlirType idx = tcb_index(L->ctx);
  MlirLocation loc = L->b.loc;
  MlirBlock body = mlirBlockCreate(1, &idx, &loc);
  MlirRegion r = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(r, body);
  MlirValue ops[3] = {lb, ub, step};
  tcb_op_regions(&L->b, "scf.for", 0, NULL, 3, ops, 0, NULL, 1, &r);
  tc_builder yb;
  tcb_init(&yb, L->ctx);
  yb.loc = loc;
  tcb_set_end(&yb, body);
  *yield = tcb_op(&yb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  *iv = mlirBlockGetArgument(body, 0);
  return body;
}

/* Body blocks are filled before their terminator: move the yield back to the end. */
static void emit_body_before_yield(tc_lower *L, const group_plan *g, MlirBlock block, MlirOperation yield,
                                   MlirValue iv, tc_chunk_mode mode, MlirValue tail_mask) {
  mlirOperationRemoveFromParent(yield);
  emit_body(L, g, block, iv, mode, tail_mask);
  mlirBlockAppendOwnedOperation(block, yield);
}

static void flush_group(tc_lower *L) {
  if (L->ngroup == 0 || L->status) {
    L->ngroup = 0;
    tc_valmap_clear(&L->in_group);
    return;
  }
  group_plan g;
  memset(&g, 0, sizeof g);
  g.numel = group_numel(L);
  int64_t w = tc_target_lanes(L->target, 32);
  while (w > 1 && (w > g.numel || g.numel % w)) w /= 2;
  g.width = w;
  L->b.loc = mlirOperationGetLocation(L->group[0]);

  /* Loads whose values outlive the group are kept in a buffer for later groups. */
  bool buffered = false;
  for (int i = 0; i < L->ngroup; i++) {
    MlirOperation op = L->group[i];
    if (!tc_op_is(op, "tile.load")) continue;
    MlirValue v = mlirOperationGetResult(op, 0);
    if (!has_outside_use(L, v)) continue;
    MlirValue *slot = tc_valmap_put(&L->buffers, v.ptr);
    if (slot) *slot = alloc_buffer(L, mlirShapedTypeGetElementType(mlirValueGetType(v)), g.numel);
    buffered = true;
  }

  /* Bounded iteration when every store shares one `offsets < n` mask. */
  MlirValue common = {NULL};
  bool all_masked = L->group_has_store;
  for (int i = 0; i < L->ngroup && all_masked; i++) {
    MlirOperation op = L->group[i];
    if (!tc_op_is(op, "tile.store")) continue;
    MlirValue m = tile_store_mask(op);
    if (mlirValueIsNull(m) || (!mlirValueIsNull(common) && !mlirValueEqual(m, common))) all_masked = false;
    common = m;
  }
  if (all_masked && !buffered && L->group_rank == 1) {
    tc_lanectx pre;
    tc_lanectx_init(&pre, L, &L->b, tcb_const_index(&L->b, 0));
    g.bound = tc_mask_bound(&pre, common, g.numel);
    tc_lanectx_free(&pre);
    if (!mlirValueIsNull(g.bound)) g.bound_mask = common;
  }

  tc_prepare_views(L);
  MlirValue iv;
  MlirOperation yield;
  if (!mlirValueIsNull(g.bound)) {
    MlirValue full = tcb_binary(&L->b, "arith.andi", g.bound, tcb_const_index(&L->b, -g.width));
    MlirBlock body = build_for(L, tcb_const_index(&L->b, 0), full, tcb_const_index(&L->b, g.width), &iv, &yield);
    emit_body_before_yield(L, &g, body, yield, iv, TC_CHUNK_FULL, (MlirValue){NULL});
    MlirValue has_tail = tcb_cmpi(&L->b, "ult", full, g.bound);
    MlirRegion regions[2] = {mlirRegionCreate(), mlirRegionCreate()};
    MlirBlock tb = mlirBlockCreate(0, NULL, NULL);
    mlirRegionAppendOwnedBlock(regions[0], tb);
    tcb_op_regions(&L->b, "scf.if", 0, NULL, 1, &has_tail, 0, NULL, 2, regions);
    tc_builder ib;
    tcb_init(&ib, L->ctx);
    ib.loc = L->b.loc;
    tcb_set_end(&ib, tb);
    MlirValue rem = tcb_binary(&ib, "arith.subi", g.bound, full);
    MlirValue tail = tcb_op1(&ib, "vector.create_mask", tc_vec_type(L->ctx, g.width, tcb_int_type(L->ctx, 1)), 1,
                             &rem, 0, NULL);
    emit_body(L, &g, tb, full, TC_CHUNK_TAIL, tail);
    tcb_op(&ib, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  } else if (g.width == g.numel) {
    emit_body(L, &g, L->b.block, tcb_const_index(&L->b, 0), TC_CHUNK_GENERIC, (MlirValue){NULL});
  } else {
    MlirBlock body = build_for(L, tcb_const_index(&L->b, 0), tcb_const_index(&L->b, g.numel),
                               tcb_const_index(&L->b, g.width), &iv, &yield);
    emit_body_before_yield(L, &g, body, yield, iv, TC_CHUNK_GENERIC, (MlirValue){NULL});
  }
  L->ngroup = 0;
  L->group_has_store = false;
  tc_valmap_clear(&L->in_group);
  tc_valmap_clear(&L->views);
}

static void add_to_group(tc_lower *L, MlirOperation op, MlirType shaped) {
  int rank = (int)mlirShapedTypeGetRank(shaped);
  bool same = L->ngroup > 0 && rank == L->group_rank;
  for (int d = 0; same && d < rank; d++) same = mlirShapedTypeGetDimSize(shaped, d) == L->group_shape[d];
  if (L->ngroup > 0 && (!same || (tc_op_is(op, "tile.load") && L->group_has_store))) flush_group(L);
  if (rank != 1) {
    if (!L->status)
      L->status = tc_lower_error(L, op, TILEC_ERROR_UNSUPPORTED,
                                 "tiles of rank %d are not supported by the lowering yet", rank);
    return;
  }
  if (L->ngroup == 0) {
    L->group_rank = rank;
    for (int d = 0; d < rank; d++) L->group_shape[d] = mlirShapedTypeGetDimSize(shaped, d);
  }
  if (L->ngroup == L->capgroup) {
    L->capgroup = L->capgroup ? 2 * L->capgroup : 64;
    L->group = realloc(L->group, sizeof *L->group * (size_t)L->capgroup);
  }
  L->group[L->ngroup++] = op;
  int *mark = tc_valmap_put(&L->in_group, op.ptr);
  if (mark) *mark = 1;
  if (tc_op_is(op, "tile.store")) L->group_has_store = true;
}

/* ---- scalar ops ---------------------------------------------------------------------- */

static void lower_scalar_generic(tc_lower *L, MlirOperation op) {
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirValue ops[8];
  if (n > 8 || mlirOperationGetNumResults(op) != 1) {
    L->status = tc_lower_error(L, op, TILEC_ERROR_INTERNAL, "unexpected scalar op shape");
    return;
  }
  for (intptr_t i = 0; i < n; i++) ops[i] = tc_scalar(L, mlirOperationGetOperand(op, i));
  if (L->status) return;
  MlirValue old = mlirOperationGetResult(op, 0);
  MlirOperation nop = tc_clone_elementwise(&L->b, op, ops, tc_lower_scalar_type(L, mlirValueGetType(old)));
  map_scalar(L, old, mlirOperationGetResult(nop, 0));
}

static void lower_op(tc_lower *L, MlirOperation op) {
  L->b.loc = mlirOperationGetLocation(op);
  const char *k = tile_op_kind(op);
  intptr_t nres = mlirOperationGetNumResults(op);
  MlirType r0 = nres ? mlirValueGetType(mlirOperationGetResult(op, 0)) : (MlirType){NULL};
  if (tc_op_is(op, "func.return")) {
    flush_group(L);
    for (int i = 0; i < L->ndeallocs; i++) {
      MlirValue m = mlirOperationGetResult(L->deallocs[i], 0);
      tcb_op(&L->b, "memref.dealloc", 0, NULL, 1, &m, 0, NULL);
    }
    tcb_op(&L->b, "func.return", 0, NULL, 0, NULL, 0, NULL);
    return;
  }
  if (k && (!strcmp(k, "program_id") || !strcmp(k, "num_programs"))) {
    int axis = (int)tile_int_attr(op, "axis", 0);
    if (axis < 0 || axis > 2) axis = 0;
    map_scalar(L, mlirOperationGetResult(op, 0), !strcmp(k, "program_id") ? L->pid[axis] : L->grid[axis]);
    return;
  }
  if (nres && is_tile_type(r0)) {
    add_to_group(L, op, r0);
    return;
  }
  if (k && !strcmp(k, "store")) {
    MlirType p = mlirValueGetType(mlirOperationGetOperand(op, 0));
    if (is_tile_type(p)) {
      add_to_group(L, op, p);
      return;
    }
    flush_group(L);
    tc_lower_scalar_store(L, op);
    return;
  }
  if (k && !strcmp(k, "load")) {
    flush_group(L);
    tc_lower_scalar_load(L, op);
    return;
  }
  if (k && !strcmp(k, "addptr")) {
    MlirValue base = tc_scalar(L, mlirOperationGetOperand(op, 0));
    MlirValue off = tc_scalar(L, mlirOperationGetOperand(op, 1));
    if (L->status) return;
    MlirType pointee = tile_ptr_pointee(r0);
    map_scalar(L, mlirOperationGetResult(op, 0), tc_scalar_addptr(L, &L->b, base, off, pointee));
    return;
  }
  if (k && (!strcmp(k, "ptr_to_int") || !strcmp(k, "int_to_ptr") || !strcmp(k, "bitcast"))) {
    MlirValue v = tc_scalar(L, mlirOperationGetOperand(op, 0));
    if (L->status) return;
    MlirType to = tc_lower_scalar_type(L, r0);
    const char *name = !strcmp(k, "ptr_to_int") ? "llvm.ptrtoint" : !strcmp(k, "int_to_ptr") ? "llvm.inttoptr" : NULL;
    MlirValue r = v;
    if (name) r = tcb_cast(&L->b, name, v, to);
    else if (!mlirTypeEqual(mlirValueGetType(v), to)) r = tcb_cast(&L->b, "arith.bitcast", v, to);
    map_scalar(L, mlirOperationGetResult(op, 0), r);
    return;
  }
  if (!k && (tc_op_in_dialect(op, "arith") || tc_op_in_dialect(op, "math"))) {
    if (tc_op_is(op, "arith.constant")) {
      MlirValue old = mlirOperationGetResult(op, 0);
      MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
      MlirNamedAttribute na = tcb_named(L->ctx, "value", a);
      map_scalar(L, old, tcb_op1(&L->b, "arith.constant", mlirValueGetType(old), 0, NULL, 1, &na));
      return;
    }
    lower_scalar_generic(L, op);
    return;
  }
  MlirStringRef nm = mlirIdentifierStr(mlirOperationGetName(op));
  L->status = tc_lower_error(L, op, TILEC_ERROR_UNSUPPORTED, "'%.*s' is not supported by the lowering yet",
                             (int)nm.length, nm.data);
}

/* ---- functions ---------------------------------------------------------------------- */

static MlirAttribute str_attr(MlirContext ctx, const char *s) {
  return mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(s));
}

static tilec_status *lower_func(tc_lower *L, MlirOperation fn, MlirBlock out_body) {
  MlirAttribute name_attr = mlirOperationGetAttributeByName(fn, mlirStringRefCreateFromCString("sym_name"));
  MlirStringRef name = mlirStringAttrGetValue(name_attr);
  MlirRegion region = mlirOperationGetRegion(fn, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(region);
  intptr_t nargs = mlirBlockGetNumArguments(entry);
  MlirType *types = calloc((size_t)nargs + 6, sizeof *types);
  MlirLocation *locs = calloc((size_t)nargs + 6, sizeof *locs);
  MlirType i32 = tcb_int_type(L->ctx, 32), i16 = tcb_int_type(L->ctx, 16);
  for (intptr_t i = 0; i < nargs; i++) {
    MlirType t = mlirValueGetType(mlirBlockGetArgument(entry, i));
    /* Half-precision scalars cross the C ABI as their 16 bits. */
    if (tcb_is_float(t) && tcb_bitwidth(t) == 16) t = i16;
    types[i] = tc_lower_scalar_type(L, t);
    locs[i] = mlirOperationGetLocation(fn);
  }
  for (int i = 0; i < 6; i++) {
    types[nargs + i] = i32;
    locs[nargs + i] = mlirOperationGetLocation(fn);
  }
  MlirBlock body = mlirBlockCreate(nargs + 6, types, locs);
  MlirRegion r = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(r, body);
  MlirType ftype = mlirFunctionTypeGet(L->ctx, nargs + 6, types, 0, NULL);
  char sym[256];
  snprintf(sym, sizeof sym, "__tilec_kernel_%.*s", (int)name.length, name.data);
  MlirNamedAttribute attrs[2] = {tcb_named(L->ctx, "sym_name", str_attr(L->ctx, sym)),
                                 tcb_named(L->ctx, "function_type", mlirTypeAttrGet(ftype))};
  tc_builder fb;
  tcb_init(&fb, L->ctx);
  fb.loc = mlirOperationGetLocation(fn);
  tcb_set_end(&fb, out_body);
  L->new_func = tcb_op_regions(&fb, "func.func", 0, NULL, 0, NULL, 2, attrs, 1, &r);
  tcb_init(&L->b, L->ctx);
  L->b.loc = fb.loc;
  tcb_set_end(&L->b, body);
  for (intptr_t i = 0; i < nargs; i++) {
    MlirValue old = mlirBlockGetArgument(entry, i);
    MlirValue nv = mlirBlockGetArgument(body, i);
    MlirType ot = mlirValueGetType(old);
    if (tcb_is_float(ot) && tcb_bitwidth(ot) == 16) nv = tcb_cast(&L->b, "arith.bitcast", nv, ot);
    map_scalar(L, old, nv);
  }
  for (int i = 0; i < 3; i++) {
    L->pid[i] = mlirBlockGetArgument(body, nargs + i);
    L->grid[i] = mlirBlockGetArgument(body, nargs + 3 + i);
  }
  free(types);
  free(locs);
  if (!mlirBlockIsNull(mlirBlockGetNextInRegion(entry)))
    return tc_lower_error(L, fn, TILEC_ERROR_UNSUPPORTED, "kernels with several blocks are not supported");
  for (MlirOperation op = mlirBlockGetFirstOperation(entry); !mlirOperationIsNull(op) && !L->status;
       op = mlirOperationGetNextInBlock(op))
    lower_op(L, op);
  return L->status;
}

tilec_status *tc_lower_to_vector(MlirModule tile_module, const tc_target *target, MlirModule *out) {
  MlirContext ctx = mlirModuleGetContext(tile_module);
  tc_lower L;
  memset(&L, 0, sizeof L);
  L.ctx = ctx;
  L.target = target;
  tc_axis_init(&L.axis);
  tc_valmap_init(&L.scalars, sizeof(MlirValue));
  tc_valmap_init(&L.buffers, sizeof(MlirValue));
  tc_valmap_init(&L.in_group, sizeof(int));
  tc_valmap_init(&L.views, sizeof(tc_view));
  MlirModule nm = mlirModuleCreateEmpty(mlirOperationGetLocation(mlirModuleGetOperation(tile_module)));
  MlirBlock nbody = mlirModuleGetBody(nm);
  tilec_status *st = NULL;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(tile_module)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!tc_op_is(op, "func.func")) continue;
    L.ndeallocs = 0;
    st = lower_func(&L, op, nbody);
    if (st) break;
  }
  tc_axis_free(&L.axis);
  tc_valmap_free(&L.scalars);
  tc_valmap_free(&L.buffers);
  tc_valmap_free(&L.in_group);
  tc_valmap_free(&L.views);
  free(L.group);
  free(L.deallocs);
  if (st) {
    mlirModuleDestroy(nm);
    return st;
  }
  *out = nm;
  return NULL;
}
