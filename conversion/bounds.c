/* conversion/bounds.c — --check-bounds: every active lane of a load, store or atomic is
 * checked against the extent of the pointer argument its address derives from (the
 * launch passes extents); the first bad lane calls the runtime, which reports the access
 * and unwinds the program. In: accesses with their masks. Out: a cold scf.if per access. */
#include "conversion/lower.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The kernel argument (index) a pointer derives from through addptr/splat/shape ops and
 * loop-carried pointers, or -1 (loaded pointers, int -> pointer casts). */
int tc_root_arg(tc_lower *L, MlirValue v) {
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(L->old_func, 0));
  for (int depth = 0; depth < 256; depth++) {
    if (mlirValueIsABlockArgument(v)) {
      MlirBlock owner = mlirBlockArgumentGetOwner(v);
      intptr_t n = mlirBlockArgumentGetArgNumber(v);
      if (mlirBlockEqual(owner, entry)) return (int)n;
      MlirOperation parent = mlirBlockGetParentOperation(owner);
      if (!mlirOperationIsNull(parent) && tc_op_is(parent, "scf.for") && n >= 1) {
        v = mlirOperationGetOperand(parent, 3 + (n - 1));
        continue;
      }
      if (!mlirOperationIsNull(parent) && tc_op_is(parent, "scf.while")) {
        v = mlirOperationGetOperand(parent, n);
        continue;
      }
      return -1;
    }
    MlirOperation d = mlirOpResultGetOwner(v);
    tile_op_id k = tile_op_of(d);
    if (!k) return -1;
    if (k == TILE_SPLAT || k == TILE_BROADCAST || k == TILE_EXPAND_DIMS || k == TILE_RESHAPE ||
        k == TILE_ADDPTR || k == TILE_HINT) {
      v = mlirOperationGetOperand(d, 0);
      continue;
    }
    return -1;
  }
  return -1;
}

static MlirValue loc_line(tc_lower *L, tc_builder *b, MlirOperation op, int which) {
  MlirLocation loc = mlirOperationGetLocation(op);
  int v = 0;
  if (mlirLocationIsAFileLineColRange(loc))
    v = which ? mlirLocationFileLineColRangeGetStartColumn(loc) : mlirLocationFileLineColRangeGetStartLine(loc);
  return tcb_const_int(b, tcb_int_type(L->ctx, 32), v);
}

static MlirValue file_ptr(tc_lower *L, tc_builder *b, MlirOperation op) {
  char file[512] = "?";
  MlirLocation loc = mlirOperationGetLocation(op);
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirStringRef f = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    snprintf(file, sizeof file, "%.*s", (int)f.length, f.data);
  }
  return tc_string_constant(L, b, file);
}

static int access_kind(MlirOperation op) {
  if ((tile_op_of(op) == TILE_STORE)) return 1;
  if ((tile_op_of(op) == TILE_ATOMIC_RMW) || (tile_op_of(op) == TILE_ATOMIC_CAS)) return 2;
  return 0;
}

/* Calls the runtime for a bad lane: elem offset and tile index (pos + lane). */
static void report(tc_lower *L, tc_builder *b, MlirOperation op, int arg, const tc_pos *pos, MlirValue lane, MlirValue elem,
                   MlirValue extent) {
  MlirType i32 = tcb_int_type(L->ctx, 32), i64 = tcb_int_type(L->ctx, 64);
  MlirValue idx[4];
  for (int d = 0; d < 4; d++) {
    if (d < pos->rank) {
      MlirValue x = pos->idx[d];
      if (d == pos->rank - 1 && !mlirValueIsNull(lane)) x = tcb_binary(b, "arith.addi", x, lane);
      idx[d] = tcb_cast(b, "arith.index_cast", x, i64);
    } else {
      idx[d] = tcb_const_int(b, i64, 0);
    }
  }
  MlirValue args[16] = {tcb_const_int(b, i32, access_kind(op)), tcb_const_int(b, i32, arg), file_ptr(L, b, op),
                        loc_line(L, b, op, 0), loc_line(L, b, op, 1), L->pid[0], L->pid[1], L->pid[2],
                        tcb_const_int(b, i32, pos->rank), idx[0], idx[1], idx[2], idx[3], elem, extent};
  tc_call_runtime(L, b, "tilec_rt_bounds_fail", 15, args);
}

/* The first lane where the i1 vector `bad` is set (min over select(bad, lane, w)); w when
 * none is. */
static MlirValue first_true_lane(tc_lower *L, tc_builder *b, MlirValue bad, int64_t w) {
  MlirType i32 = tcb_int_type(L->ctx, 32);
  int32_t lanes[64];
  for (int64_t k = 0; k < w; k++) lanes[k] = (int32_t)k;
  MlirType v32 = tc_vec_type(L->ctx, w, i32);
  MlirNamedAttribute ca = tcb_named(L->ctx, "value", mlirDenseElementsAttrInt32Get(v32, w, lanes));
  MlirValue iota = tcb_op1(b, "arith.constant", v32, 0, NULL, 1, &ca);
  MlirValue cand = tcb_select(b, bad, iota, tcb_const_int(b, v32, w));
  MlirNamedAttribute kind = tcb_named(L->ctx, "kind", tcb_attr(L->ctx, "#vector.kind<minui>"));
  return tcb_op1(b, "vector.reduction", i32, 1, &cand, 1, &kind);
}

/* Lane `lane` (index) of vector v, read through a small stack slot (cold paths only). */
static MlirValue lane_of(tc_lower *L, tc_builder *b, MlirValue v, MlirValue lane, int64_t w) {
  MlirType et = tcb_element_type(mlirValueGetType(v));
  MlirType mt = mlirMemRefTypeContiguousGet(et, 1, &w, mlirAttributeGetNull());
  int32_t seg[2] = {0, 0};
  MlirNamedAttribute sa = tcb_named(L->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(L->ctx, 2, seg));
  MlirValue slot = tcb_op1(b, "memref.alloca", mt, 0, NULL, 1, &sa);
  MlirValue sops[3] = {v, slot, tcb_const_index(b, 0)};
  tcb_op(b, "vector.store", 0, NULL, 3, sops, 0, NULL);
  MlirValue lops[2] = {slot, lane};
  return tcb_op1(b, "memref.load", et, 2, lops, 0, NULL);
}

static MlirValue extent_of(tc_lower *L, tc_builder *b, int arg) {
  MlirType i64 = tcb_int_type(L->ctx, 64);
  MlirValue p = tc_scalar_addptr(L, b, L->extents, tcb_const_int(b, tcb_int_type(L->ctx, 32), arg), i64);
  return tcb_op1(b, "llvm.load", i64, 1, &p, 0, NULL);
}

/* Byte offset of each lane's address from the start of runtime argument `arg` (i64, a
 * vector of `w` lanes when chunked), and the element size in *size. */
static MlirValue offset_from_arg(tc_lower *L, tc_builder *b, int arg, MlirValue old_ptr, tc_cval p, bool chunked,
                                 int64_t w, int64_t *size) {
  MlirType i64 = tcb_int_type(L->ctx, 64);
  MlirType pointee = tile_ptr_pointee(tcb_element_type(mlirValueGetType(old_ptr)));
  *size = (tcb_bitwidth(tc_memory_type(L->ctx, pointee)) + 7) / 8;
  MlirValue argp = tc_scalar(L, mlirBlockGetArgument(mlirRegionGetFirstBlock(mlirOperationGetRegion(L->old_func, 0)), arg));
  MlirValue base = tcb_binary(b, "arith.subi", tcb_cast(b, "llvm.ptrtoint", p.base, i64), tcb_cast(b, "llvm.ptrtoint", argp, i64));
  MlirType t = chunked ? tc_vec_type(L->ctx, w, i64) : i64;
  MlirValue diff = chunked ? tc_splat_vec(b, base, w) : base;
  if (!mlirValueIsNull(p.vec)) {
    MlirValue off = p.vec;
    if (tcb_bitwidth(tcb_element_type(mlirValueGetType(off))) < 64) off = tcb_cast(b, "arith.extsi", off, t);
    diff = tcb_binary(b, "arith.addi", diff, tcb_binary(b, "arith.muli", off, tcb_const_int(b, t, *size)));
  }
  return diff;
}

void tc_check_access(tc_chunk *c, MlirOperation op, MlirValue old_ptr, tc_cval p, MlirValue mask, const tc_pos *pos) {
  tc_lower *L = c->L;
  if (!L->check_bounds || L->status) return;
  int arg = tc_root_arg(L, old_ptr);
  if (arg < 0) return;
  tc_builder *b = &c->b;
  MlirType i64 = tcb_int_type(L->ctx, 64), i32 = tcb_int_type(L->ctx, 32);
  int64_t size, w = c->width;
  MlirValue diff = offset_from_arg(L, b, arg, old_ptr, p, pos->chunked, w, &size);
  MlirValue extent = extent_of(L, b, arg);
  if (!pos->chunked) {
    MlirValue elem = tcb_binary(b, "arith.divsi", diff, tcb_const_int(b, i64, size));
    MlirValue bad = tcb_binary(b, "arith.ori", tcb_cmpi(b, "slt", diff, tcb_const_int(b, i64, 0)), tcb_cmpi(b, "sge", elem, extent));
    bad = tcb_binary(b, "arith.andi", bad, tcb_cmpi(b, "sge", extent, tcb_const_int(b, i64, 0)));
    if (!mlirValueIsNull(mask)) bad = tcb_binary(b, "arith.andi", bad, mask);
    tc_builder in;
    tcb_if(b, bad, 0, NULL, &in, NULL);
    report(L, &in, op, arg, pos, (MlirValue){NULL}, elem, extent);
    tcb_op(&in, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    return;
  }
  MlirType v64 = tc_vec_type(L->ctx, w, i64);
  MlirValue elem = tcb_binary(b, "arith.divsi", diff, tcb_const_int(b, v64, size));
  MlirValue bad = tcb_binary(b, "arith.ori", tcb_cmpi(b, "slt", diff, tcb_const_int(b, v64, 0)),
                             tcb_cmpi(b, "sge", elem, tc_splat_vec(b, extent, w)));
  MlirValue known = tcb_cmpi(b, "sge", extent, tcb_const_int(b, i64, 0));
  bad = tcb_binary(b, "arith.andi", bad, tc_splat_vec(b, known, w));
  if (!mlirValueIsNull(mask)) bad = tcb_binary(b, "arith.andi", bad, mask);
  MlirValue first = first_true_lane(L, b, bad, w);
  tc_builder in;
  tcb_if(b, tcb_cmpi(b, "ult", first, tcb_const_int(b, i32, w)), 0, NULL, &in, NULL);
  /* cold path: the bad lane's offset */
  MlirValue lane = tcb_cast(&in, "arith.index_cast", first, tcb_index(L->ctx));
  MlirValue e = lane_of(L, &in, elem, lane, w);
  report(L, &in, op, arg, pos, lane, e, extent);
  tcb_op(&in, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

void tc_check_scalar_access(tc_lower *L, tc_builder *b, MlirOperation op, MlirValue old_ptr, MlirValue addr, MlirValue mask) {
  if (!L->check_bounds || L->status) return;
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 1);
  c.b = *b;
  tc_cval p = {.base = addr, .is_ptr = true};
  tc_pos pos = {.rank = 0, .chunked = false};
  tc_check_access(&c, op, old_ptr, p, mask, &pos);
  *b = c.b;
  tc_chunk_free(&c);
}

/* ---- --check-nan ------------------------------------------------------------------- */

static MlirValue nonfinite(tc_builder *b, MlirValue v) {
  /* |v| == inf, unordered (NaN) included */
  MlirType t = mlirValueGetType(v);
  MlirValue a = tcb_cast(b, "math.absf", v, t);
  return tcb_cmpf(b, "ueq", a, tcb_const_float(b, t, INFINITY));
}

/* Every lane of the loaded value counts, masked-off ones included: they hold the load's
 * `other` (a block pointer's padding_option="nan", softmax's -inf), which the program then
 * computes with as with anything it loaded, or zero. */
void tc_nan_note_load(tc_chunk *c, MlirValue v) {
  tc_lower *L = c->L;
  if (!L->check_nan || L->status || !tcb_is_float(tcb_element_type(mlirValueGetType(v)))) return;
  tc_builder *b = &c->b;
  MlirValue bad = nonfinite(b, v);
  if (mlirTypeIsAVector(mlirValueGetType(bad))) {
    MlirNamedAttribute kind = tcb_named(L->ctx, "kind", tcb_attr(L->ctx, "#vector.kind<or>"));
    bad = tcb_op1(b, "vector.reduction", tcb_int_type(L->ctx, 1), 1, &bad, 1, &kind);
  }
  tc_builder in;
  tcb_if(b, bad, 0, NULL, &in, NULL);
  tc_call_runtime(L, &in, "tilec_rt_nonfinite_input", 0, NULL);
  tcb_op(&in, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

void tc_nan_note_scalar_load(tc_lower *L, tc_builder *b, MlirValue v) {
  if (!L->check_nan || L->status) return;
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 1);
  c.b = *b;
  tc_nan_note_load(&c, v);
  *b = c.b;
  tc_chunk_free(&c);
}

void tc_nan_check_store(tc_chunk *c, MlirOperation op, MlirValue old_ptr, MlirValue v, MlirValue mask, const tc_pos *pos) {
  tc_lower *L = c->L;
  if (!L->check_nan || L->status || !tcb_is_float(tcb_element_type(mlirValueGetType(v)))) return;
  tc_builder *b = &c->b;
  MlirType i32 = tcb_int_type(L->ctx, 32), f64 = mlirF64TypeGet(L->ctx);
  MlirValue bad = nonfinite(b, v);
  if (!mlirValueIsNull(mask)) bad = tcb_binary(b, "arith.andi", bad, mask);
  int arg = tc_root_arg(L, old_ptr);
  MlirValue lane = {NULL}, val = v;
  tc_builder in;
  if (mlirTypeIsAVector(mlirValueGetType(bad))) {
    int64_t w = c->width;
    MlirValue first = first_true_lane(L, b, bad, w);
    tcb_if(b, tcb_cmpi(b, "ult", first, tcb_const_int(b, i32, w)), 0, NULL, &in, NULL);
    lane = tcb_cast(&in, "arith.index_cast", first, tcb_index(L->ctx));
    val = lane_of(L, &in, v, lane, w);
  } else {
    tcb_if(b, bad, 0, NULL, &in, NULL);
  }
  if (tcb_bitwidth(mlirValueGetType(val)) < 64) val = tcb_cast(&in, "arith.extf", val, f64);
  MlirType i64 = tcb_int_type(L->ctx, 64);
  MlirValue idx[4];
  for (int d = 0; d < 4; d++) {
    if (d < pos->rank) {
      MlirValue x = pos->idx[d];
      if (d == pos->rank - 1 && !mlirValueIsNull(lane)) x = tcb_binary(&in, "arith.addi", x, lane);
      idx[d] = tcb_cast(&in, "arith.index_cast", x, i64);
    } else {
      idx[d] = tcb_const_int(&in, i64, 0);
    }
  }
  MlirValue args[14] = {tcb_const_int(&in, i32, arg), file_ptr(L, &in, op), loc_line(L, &in, op, 0), loc_line(L, &in, op, 1),
                        L->pid[0], L->pid[1], L->pid[2], tcb_const_int(&in, i32, pos->rank), idx[0], idx[1], idx[2], idx[3],
                        val};
  tc_call_runtime(L, &in, "tilec_rt_nan_fail", 13, args);
  tcb_op(&in, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

/* ---- --check-races -------------------------------------------------------------------- */

/* Raw pointer to a flat stack buffer (for passing lane data to the runtime). */
static MlirValue buffer_ptr(tc_lower *L, tc_builder *b, MlirValue buf) {
  MlirValue a = tcb_op1(b, "memref.extract_aligned_pointer_as_index", tcb_index(L->ctx), 1, &buf, 0, NULL);
  MlirValue i = tcb_cast(b, "arith.index_cast", a, tcb_int_type(L->ctx, 64));
  return tcb_cast(b, "llvm.inttoptr", i, tcb_type(L->ctx, "!llvm.ptr"));
}

void tc_race_store(tc_chunk *c, MlirOperation op, MlirValue old_ptr, tc_cval p, MlirValue mask, const tc_pos *pos) {
  tc_lower *L = c->L;
  if (!L->check_races || L->status) return;
  int arg = tc_root_arg(L, old_ptr);
  if (arg < 0) return;
  tc_builder *b = &c->b;
  MlirType i32 = tcb_int_type(L->ctx, 32), i8 = tcb_int_type(L->ctx, 8), i64 = tcb_int_type(L->ctx, 64);
  int64_t size, w = pos->chunked ? c->width : 1;
  MlirValue diff = offset_from_arg(L, b, arg, old_ptr, p, pos->chunked, w, &size);
  MlirValue elems = tc_alloc_buffer(L, i64, w), act = tc_alloc_buffer(L, i8, w);
  MlirValue zero = tcb_const_index(b, 0);
  MlirType et = pos->chunked ? tc_vec_type(L->ctx, w, i64) : i64;
  MlirType mt = pos->chunked ? tc_vec_type(L->ctx, w, tcb_int_type(L->ctx, 1)) : tcb_int_type(L->ctx, 1);
  MlirValue e = tcb_binary(b, "arith.divsi", diff, tcb_const_int(b, et, size));
  MlirValue m = mlirValueIsNull(mask) ? tcb_const_int(b, mt, 1) : mask;
  MlirValue m8 = tcb_cast(b, "arith.extui", m, pos->chunked ? tc_vec_type(L->ctx, w, i8) : i8);
  MlirValue s1[3] = {e, elems, zero}, s2[3] = {m8, act, zero};
  const char *store = pos->chunked ? "vector.store" : "memref.store";
  tcb_op(b, store, 0, NULL, 3, s1, 0, NULL);
  tcb_op(b, store, 0, NULL, 3, s2, 0, NULL);
  MlirValue args[15] = {tcb_const_int(b, i32, arg), extent_of(L, b, arg), buffer_ptr(L, b, elems), buffer_ptr(L, b, act),
                        tcb_const_int(b, i32, w), file_ptr(L, b, op), loc_line(L, b, op, 0), loc_line(L, b, op, 1),
                        L->pid[0], L->pid[1], L->pid[2], L->grid[0], L->grid[1]};
  tc_call_runtime(L, b, "tilec_rt_race_store", 13, args);
}

void tc_race_atomic(tc_lower *L, tc_builder *b, MlirOperation op, MlirValue old, MlirValue cmp) {
  if (!L->check_races || L->status) return;
  if ((tile_op_of(op) == TILE_ATOMIC_CAS)) {
    /* a CAS that found `cmp` took the lock */
    MlirValue ok = tcb_is_float(mlirValueGetType(old)) ? tcb_cmpf(b, "oeq", old, cmp) : tcb_cmpi(b, "eq", old, cmp);
    MlirValue a = tcb_cast(b, "arith.extui", ok, tcb_int_type(L->ctx, 32));
    tc_call_runtime(L, b, "tilec_rt_race_cas", 1, &a);
    return;
  }
  MlirAttribute ka = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("kind"));
  MlirStringRef k = mlirStringAttrGetValue(ka);
  if (k.length == 4 && !memcmp(k.data, "xchg", 4)) tc_call_runtime(L, b, "tilec_rt_race_release", 0, NULL);
}
