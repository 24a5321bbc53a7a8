/* conversion/bounds.c — the debug checks' instrumentation of loads, stores and atomics.
 * --check bounds: every active lane is checked against the extent of the pointer argument
 * its address derives from (the launch passes extents; a contiguous chunk with one compare);
 * the first bad lane calls the runtime, which reports the access and unwinds the program.
 * --check nan: loads note NaN/Inf in a per-program flag, stores of NaN/Inf from finite
 * inputs are reported. --check races / init: accesses are logged as address runs for
 * runtime/races.c. In: accesses with their masks. Out: checks and calls beside them. */
#include "conversion/checks.h"
#include "conversion/lower.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include "runtime/debug.h" /* TILEC_RT_LOG_*: the flags kernel code reads */
#include "tilec/tilec.h"   /* TILEC_CHECKS_* */
#include <math.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <stdlib.h>
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
    if (k == TILE_SPLAT || k == TILE_BROADCAST || k == TILE_EXPAND_DIMS || k == TILE_RESHAPE || k == TILE_ADDPTR ||
        k == TILE_HINT) {
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
static void report(tc_lower *L, tc_builder *b, MlirOperation op, int arg, const tc_pos *pos, MlirValue lane,
                   MlirValue elem, MlirValue extent) {
  MlirType i32 = tcb_int_type(L->ctx, 32);
  MlirValue idx[4];
  tc_index_words(L, b, pos, lane, idx);
  MlirValue args[16] = {tcb_const_int(b, i32, access_kind(op)),
                        tcb_const_int(b, i32, arg),
                        file_ptr(L, b, op),
                        loc_line(L, b, op, 0),
                        loc_line(L, b, op, 1),
                        L->pid[0],
                        L->pid[1],
                        L->pid[2],
                        tcb_const_int(b, i32, pos->rank),
                        idx[0],
                        idx[1],
                        idx[2],
                        idx[3],
                        elem,
                        extent};
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

/* i1: some lane of the i1 vector `bad` is set. */
static MlirValue any_lane(tc_lower *L, tc_builder *b, MlirValue bad) {
  MlirNamedAttribute kind = tcb_named(L->ctx, "kind", tcb_attr(L->ctx, "#vector.kind<or>"));
  return tcb_op1(b, "vector.reduction", tcb_int_type(L->ctx, 1), 1, &bad, 1, &kind);
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
  MlirValue argp =
      tc_scalar(L, mlirBlockGetArgument(mlirRegionGetFirstBlock(mlirOperationGetRegion(L->old_func, 0)), arg));
  MlirValue base =
      tcb_binary(b, "arith.subi", tcb_cast(b, "llvm.ptrtoint", p.base, i64), tcb_cast(b, "llvm.ptrtoint", argp, i64));
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
  MlirType i64 = tcb_int_type(L->ctx, 64);
  int64_t size, w = c->width;
  /* values the chunk's evaluation makes (and memoizes) go before the branches */
  bool run = pos->chunked && tc_chunk_contiguous(c, old_ptr, p);
  MlirValue first = run ? tc_chunk_first_offset(c, old_ptr, pos) : (MlirValue){NULL};
  MlirValue extent = extent_of(L, b, arg);
  if (!pos->chunked) {
    MlirValue diff = offset_from_arg(L, b, arg, old_ptr, p, false, w, &size);
    MlirValue elem = tcb_binary(b, "arith.divsi", diff, tcb_const_int(b, i64, size));
    MlirValue bad = tcb_binary(b, "arith.ori", tcb_cmpi(b, "slt", diff, tcb_const_int(b, i64, 0)),
                               tcb_cmpi(b, "sge", elem, extent));
    bad = tcb_binary(b, "arith.andi", bad, tcb_cmpi(b, "sge", extent, tcb_const_int(b, i64, 0)));
    if (!mlirValueIsNull(mask)) bad = tcb_binary(b, "arith.andi", bad, mask);
    tc_builder in;
    tcb_if(b, bad, 0, NULL, &in, NULL);
    report(L, &in, op, arg, pos, (MlirValue){NULL}, elem, extent);
    tcb_op(&in, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    return;
  }
  tc_cval pb = {.base = p.base, .is_ptr = true}; /* the chunk's base, lanes aside */
  MlirValue base_diff = offset_from_arg(L, b, arg, old_ptr, pb, false, w, &size);
  tc_builder lanes = *b;
  if (run) { /* a contiguous chunk inside its buffer is fine whatever its mask: one compare */
    MlirValue e0 = tcb_binary(b, "arith.addi", tcb_binary(b, "arith.divsi", base_diff, tcb_const_int(b, i64, size)),
                              tcb_cast(b, "arith.index_cast", first, i64));
    MlirValue in = tcb_binary(b, "arith.andi", tcb_cmpi(b, "sge", e0, tcb_const_int(b, i64, 0)),
                              tcb_cmpi(b, "sle", tcb_binary(b, "arith.addi", e0, tcb_const_int(b, i64, w)), extent));
    in = tcb_binary(b, "arith.ori", in, tcb_cmpi(b, "slt", extent, tcb_const_int(b, i64, 0)));
    tcb_if(b, tcb_binary(b, "arith.xori", in, tcb_const_int(b, tcb_int_type(L->ctx, 1), 1)), 0, NULL, &lanes, NULL);
  }
  tc_builder *lb = &lanes;
  MlirType v64 = tc_vec_type(L->ctx, w, i64);
  MlirValue diff = offset_from_arg(L, lb, arg, old_ptr, p, true, w, &size);
  MlirValue elem = tcb_binary(lb, "arith.divsi", diff, tcb_const_int(lb, v64, size));
  MlirValue bad = tcb_binary(lb, "arith.ori", tcb_cmpi(lb, "slt", diff, tcb_const_int(lb, v64, 0)),
                             tcb_cmpi(lb, "sge", elem, tc_splat_vec(lb, extent, w)));
  MlirValue known = tcb_cmpi(lb, "sge", extent, tcb_const_int(lb, i64, 0));
  bad = tcb_binary(lb, "arith.andi", bad, tc_splat_vec(lb, known, w));
  if (!mlirValueIsNull(mask)) bad = tcb_binary(lb, "arith.andi", bad, mask);
  tc_builder in;
  tcb_if(lb, any_lane(L, lb, bad), 0, NULL, &in, NULL);
  /* cold path: the first bad lane and its offset */
  MlirValue first_bad = first_true_lane(L, &in, bad, w);
  MlirValue lane = tcb_cast(&in, "arith.index_cast", first_bad, tcb_index(L->ctx));
  MlirValue e = lane_of(L, &in, elem, lane, w);
  report(L, &in, op, arg, pos, lane, e, extent);
  tcb_op(&in, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  if (run) tcb_op(&lanes, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

MlirValue tc_bounds_bytes_within(tc_lower *L, tc_builder *b, MlirValue old_ptr, MlirValue lo, MlirValue hi) {
  int arg = tc_root_arg(L, old_ptr);
  if (arg < 0 || mlirValueIsNull(L->extents)) return (MlirValue){NULL};
  MlirType i64 = tcb_int_type(L->ctx, 64);
  MlirType pointee = tile_ptr_pointee(tcb_element_type(mlirValueGetType(old_ptr)));
  int64_t size = (tcb_bitwidth(tc_memory_type(L->ctx, pointee)) + 7) / 8;
  MlirValue argp =
      tc_scalar(L, mlirBlockGetArgument(mlirRegionGetFirstBlock(mlirOperationGetRegion(L->old_func, 0)), arg));
  MlirValue base = tcb_cast(b, "llvm.ptrtoint", argp, i64), extent = extent_of(L, b, arg);
  MlirValue end = tcb_binary(b, "arith.addi", base, tcb_binary(b, "arith.muli", extent, tcb_const_int(b, i64, size)));
  MlirValue in = tcb_binary(b, "arith.andi", tcb_cmpi(b, "uge", lo, base), tcb_cmpi(b, "ule", hi, end));
  return tcb_binary(b, "arith.ori", in, tcb_cmpi(b, "slt", extent, tcb_const_int(b, i64, 0)));
}

void tc_check_scalar_access(tc_lower *L, tc_builder *b, MlirOperation op, MlirValue old_ptr, MlirValue addr,
                            MlirValue mask) {
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

/* ---- --check nan -------------------------------------------------------------------- */

/* v's bits as integers of its width (scalar or vector). */
static MlirValue float_bits(tc_builder *b, MlirValue v) {
  MlirType t = mlirValueGetType(v), e = tcb_element_type(t);
  MlirType it = mlirIntegerTypeGet(b->ctx, tcb_bitwidth(e));
  if (mlirTypeIsAVector(t)) it = tc_vec_type(b->ctx, mlirShapedTypeGetDimSize(t, 0), it);
  return tcb_cast(b, "arith.bitcast", v, it);
}

static MlirValue nonfinite(tc_builder *b, MlirValue v) {
  MlirType t = mlirValueGetType(v), e = tcb_element_type(t);
  if (tcb_bitwidth(e) == 8) { /* fp8 has no float arithmetic after lowering: its codes */
    MlirValue x = float_bits(b, v);
    MlirType xt = mlirValueGetType(x);
    if (mlirTypeIsAFloat8E5M2(e)) /* exponent all ones: Inf and NaN */
      return tcb_cmpi(b, "uge", tcb_binary(b, "arith.andi", x, tcb_const_int(b, xt, 0x7f)), tcb_const_int(b, xt, 0x7c));
    if (mlirTypeIsAFloat8E4M3FN(e) || mlirTypeIsAFloat8E4M3B11FNUZ(e)) /* e4nv, e4b15 (as Triton): S.1111.111 */
      return tcb_cmpi(b, "eq", tcb_binary(b, "arith.andi", x, tcb_const_int(b, xt, 0x7f)), tcb_const_int(b, xt, 0x7f));
    return tcb_cmpi(b, "eq", x, tcb_const_int(b, xt, 0x80)); /* e4b8, e5b16: one NaN, the "-0" code */
  }
  /* |v| == inf, unordered (NaN) included */
  MlirValue a = tcb_cast(b, "math.absf", v, t);
  return tcb_cmpf(b, "ueq", a, tcb_const_float(b, t, INFINITY));
}

/* A non-finite value as f64 for the report: fp8 by its code (E5M2 has infinities). */
static MlirValue nonfinite_f64(tc_lower *L, tc_builder *b, MlirValue v) {
  MlirType f64 = mlirF64TypeGet(L->ctx), e = mlirValueGetType(v);
  if (tcb_bitwidth(e) != 8) return tcb_bitwidth(e) < 64 ? tcb_cast(b, "arith.extf", v, f64) : v;
  if (!mlirTypeIsAFloat8E5M2(e)) return tcb_const_float(b, f64, NAN);
  MlirValue x = float_bits(b, v);
  MlirType i8 = mlirValueGetType(x);
  MlirValue inf =
      tcb_cmpi(b, "eq", tcb_binary(b, "arith.andi", x, tcb_const_int(b, i8, 0x7f)), tcb_const_int(b, i8, 0x7c));
  MlirValue neg = tcb_cmpi(b, "slt", x, tcb_const_int(b, i8, 0));
  MlirValue signed_inf = tcb_select(b, neg, tcb_const_float(b, f64, -INFINITY), tcb_const_float(b, f64, INFINITY));
  return tcb_select(b, inf, signed_inf, tcb_const_float(b, f64, NAN));
}

/* Every lane of the loaded value counts, masked-off ones included: they hold the load's
 * `other` (a block pointer's padding_option="nan", softmax's -inf), which the program then
 * computes with as with anything it loaded, or zero. */
void tc_nan_note_load(tc_chunk *c, MlirValue v) {
  tc_lower *L = c->L;
  if (!L->check_nan || L->status || mlirValueIsNull(L->nan_seen) ||
      !tcb_is_float(tcb_element_type(mlirValueGetType(v))))
    return;
  tc_builder *b = &c->b;
  MlirType i8 = tcb_int_type(L->ctx, 8);
  MlirValue bad = nonfinite(b, v);
  if (mlirTypeIsAVector(mlirValueGetType(bad))) bad = any_lane(L, b, bad);
  /* seen |= bad: no branch, no call in the loops that load */
  MlirValue at[2] = {L->nan_seen, tcb_const_index(b, 0)};
  MlirValue seen = tcb_op1(b, "memref.load", i8, 2, at, 0, NULL);
  seen = tcb_binary(b, "arith.ori", seen, tcb_cast(b, "arith.extui", bad, i8));
  MlirValue st[3] = {seen, L->nan_seen, at[1]};
  tcb_op(b, "memref.store", 0, NULL, 3, st, 0, NULL);
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

void tc_nan_check_store(tc_chunk *c, MlirOperation op, MlirValue old_ptr, MlirValue v, MlirValue mask,
                        const tc_pos *pos) {
  tc_lower *L = c->L;
  if (!L->check_nan || L->status || mlirValueIsNull(L->nan_seen) ||
      !tcb_is_float(tcb_element_type(mlirValueGetType(v))))
    return;
  tc_builder *b = &c->b;
  MlirType i32 = tcb_int_type(L->ctx, 32);
  MlirValue bad = nonfinite(b, v);
  if (!mlirValueIsNull(mask)) bad = tcb_binary(b, "arith.andi", bad, mask);
  int arg = tc_root_arg(L, old_ptr);
  MlirValue lane = {NULL}, val = v;
  tc_builder in;
  /* reported unless the program loaded a NaN/Inf (then the input is to blame) */
  MlirType i8 = tcb_int_type(L->ctx, 8);
  MlirValue at[2] = {L->nan_seen, tcb_const_index(b, 0)};
  MlirValue clean = tcb_cmpi(b, "eq", tcb_op1(b, "memref.load", i8, 2, at, 0, NULL), tcb_const_int(b, i8, 0));
  if (mlirTypeIsAVector(mlirValueGetType(bad))) {
    int64_t w = c->width;
    tcb_if(b, tcb_binary(b, "arith.andi", any_lane(L, b, bad), clean), 0, NULL, &in, NULL);
    MlirValue first = first_true_lane(L, &in, bad, w);
    lane = tcb_cast(&in, "arith.index_cast", first, tcb_index(L->ctx));
    val = lane_of(L, &in, v, lane, w);
  } else {
    tcb_if(b, tcb_binary(b, "arith.andi", bad, clean), 0, NULL, &in, NULL);
  }
  val = nonfinite_f64(L, &in, val);
  MlirValue idx[4];
  tc_index_words(L, &in, pos, lane, idx);
  MlirValue args[14] = {tcb_const_int(&in, i32, arg),
                        file_ptr(L, &in, op),
                        loc_line(L, &in, op, 0),
                        loc_line(L, &in, op, 1),
                        L->pid[0],
                        L->pid[1],
                        L->pid[2],
                        tcb_const_int(&in, i32, pos->rank),
                        idx[0],
                        idx[1],
                        idx[2],
                        idx[3],
                        val};
  tc_call_runtime(L, &in, "tilec_rt_nan_fail", 13, args);
  tcb_op(&in, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

/* ---- --check races (and init) --------------------------------------------------------
 * Each access site logs the addresses it touches as runs (runtime/races.c): kernel code
 * extends the site's open run when a chunk starts where it ends (a load, a compare and a
 * store of the cursor in the runtime's per-thread block), and calls the runtime otherwise
 * or for lanes that are not one contiguous run. Loads are logged from arguments the kernel
 * stores through, and from others when the runtime's flag for the argument says their
 * memory overlaps another argument's. */

/* Raw pointer to a flat stack buffer (for passing lane data to the runtime). */
static MlirValue buffer_ptr(tc_lower *L, tc_builder *b, MlirValue buf) {
  MlirValue a = tcb_op1(b, "memref.extract_aligned_pointer_as_index", tcb_index(L->ctx), 1, &buf, 0, NULL);
  MlirValue i = tcb_cast(b, "arith.index_cast", a, tcb_int_type(L->ctx, 64));
  return tcb_cast(b, "llvm.inttoptr", i, tcb_type(L->ctx, "!llvm.ptr"));
}

static MlirValue block_word(tc_lower *L, tc_builder *b, int64_t index) {
  MlirType i64 = tcb_int_type(L->ctx, 64);
  return tc_scalar_addptr(L, b, L->race_block, tcb_const_int(b, tcb_int_type(L->ctx, 32), index), i64);
}

static MlirValue ptr_bits(tc_lower *L, tc_builder *b, MlirValue ptr) {
  return tcb_cast(b, "llvm.ptrtoint", ptr, tcb_int_type(L->ctx, 64));
}

static bool stores_through(MlirOperation op, void *user) {
  (void)user;
  return tile_op_of(op) == TILE_STORE;
}

static void race_begin(tc_lower *L) {
  if (!(L->check_races || L->check_init) || L->status) return;
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(L->old_func, 0));
  intptr_t nargs = mlirBlockGetNumArguments(entry);
  L->race_stored = calloc((size_t)nargs + 1, 1);
  MlirOperation *stores = NULL;
  int n = 0;
  if (!L->race_stored || !tcb_collect(L->old_func, stores_through, NULL, &stores, &n)) {
    tc_fail(L, L->old_func, TILEC_ERROR_INTERNAL, "out of memory");
    return;
  }
  for (int k = 0; k < n; k++) {
    int arg = tc_root_arg(L, mlirOperationGetOperand(stores[k], 0));
    if (arg >= 0) L->race_stored[arg] = 1;
  }
  free(stores);
  L->race_nargs = (int)nargs;
  L->race_sites = 0;
  MlirType i32 = tcb_int_type(L->ctx, 32);
  MlirValue count = tcb_const_int(&L->b, i32, 0); /* the number of sites: set by tc_race_end */
  L->race_nsites = mlirOpResultGetOwner(count);
  int classes = (L->check_races ? TILEC_CHECKS_RACES : 0) | (L->check_init ? TILEC_CHECKS_INIT : 0);
  MlirValue args[6] = {
      tcb_const_int(&L->b, i32, nargs), count, tcb_const_int(&L->b, i32, classes), L->pid[0], L->pid[1], L->pid[2]};
  L->race_block = tc_call_runtime_value(L, &L->b, "tilec_rt_access_program", tcb_type(L->ctx, "!llvm.ptr"), 6, args);
  /* the flags of the arguments loads may come through, once (LLVM drops the unused) */
  L->race_flags = calloc((size_t)nargs + 1, sizeof *L->race_flags);
  if (!L->race_flags) {
    tc_fail(L, L->old_func, TILEC_ERROR_INTERNAL, "out of memory");
    return;
  }
  for (intptr_t a = 0; a < nargs; a++) {
    if (L->race_stored[a] && !L->check_init) continue;
    MlirValue fp = block_word(L, &L->b, a);
    L->race_flags[a] = tcb_op1(&L->b, "llvm.load", tcb_int_type(L->ctx, 64), 1, &fp, 0, NULL);
  }
}

void tc_checks_begin(tc_lower *L) {
  L->nan_seen = (MlirValue){NULL};
  if (L->check_nan && !L->status) {
    MlirType i8 = tcb_int_type(L->ctx, 8);
    L->nan_seen = tc_alloc_buffer(L, i8, 1);
    MlirValue st[3] = {tcb_const_int(&L->b, i8, 0), L->nan_seen, tcb_const_index(&L->b, 0)};
    tcb_op(&L->b, "memref.store", 0, NULL, 3, st, 0, NULL);
  }
  race_begin(L);
}

void tc_checks_end(tc_lower *L) {
  L->nan_seen = (MlirValue){NULL};
  if (!(L->check_races || L->check_init)) return;
  if (!mlirOperationIsNull(L->race_nsites))
    mlirOperationSetAttributeByName(L->race_nsites, mlirStringRefCreateFromCString("value"),
                                    mlirIntegerAttrGet(tcb_int_type(L->ctx, 32), L->race_sites));
  free(L->race_stored);
  free(L->race_flags);
  L->race_stored = NULL;
  L->race_flags = NULL;
  L->race_nsites = (MlirOperation){NULL};
}

/* The runtime call that starts a run (or logs lanes): the site's constant arguments last. */
static void site_args(tc_lower *L, tc_builder *b, MlirOperation op, int arg, bool write, int64_t size, MlirValue *out) {
  MlirType i32 = tcb_int_type(L->ctx, 32);
  out[0] = tcb_const_int(b, i32, arg);
  out[1] = tcb_const_int(b, i32, write);
  out[2] = tcb_const_int(b, i32, size);
  out[3] = file_ptr(L, b, op);
  out[4] = loc_line(L, b, op, 0);
  out[5] = loc_line(L, b, op, 1);
}

/* The site's run goes on at addr (i64) for `bytes`, or a new one starts there. */
static void extend_run(tc_lower *L, tc_builder *b, MlirOperation op, int site, int arg, bool write, int64_t size,
                       MlirValue addr, int64_t bytes) {
  MlirType i64 = tcb_int_type(L->ctx, 64), i32 = tcb_int_type(L->ctx, 32);
  MlirValue hi_ptr = block_word(L, b, L->race_nargs + 2 * (int64_t)site + 1);
  MlirValue hi = tcb_op1(b, "llvm.load", i64, 1, &hi_ptr, 0, NULL);
  MlirValue end = tcb_binary(b, "arith.addi", addr, tcb_const_int(b, i64, bytes));
  tc_builder on, fresh;
  tcb_if(b, tcb_cmpi(b, "eq", hi, addr), 0, NULL, &on, &fresh);
  MlirValue st[2] = {end, hi_ptr};
  tcb_op(&on, "llvm.store", 0, NULL, 2, st, 0, NULL);
  tcb_op(&on, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  MlirValue args[9] = {tcb_const_int(&fresh, i32, site), addr, tcb_const_int(&fresh, i64, bytes)};
  site_args(L, &fresh, op, arg, write, size, args + 3);
  tc_call_runtime(L, &fresh, "tilec_rt_access_open", 9, args);
  tcb_op(&fresh, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

/* Every active lane's address to the runtime (lanes that are not one run). */
static void log_lanes(tc_lower *L, tc_builder *b, MlirOperation op, int site, int arg, bool write, int64_t size,
                      MlirValue addrs, MlirValue mask, int64_t w) {
  MlirType i32 = tcb_int_type(L->ctx, 32), i8 = tcb_int_type(L->ctx, 8), i64 = tcb_int_type(L->ctx, 64);
  MlirValue a = tc_alloc_buffer(L, i64, w), act = tc_alloc_buffer(L, i8, w);
  MlirValue zero = tcb_const_index(b, 0);
  MlirValue m = mlirValueIsNull(mask) ? tcb_const_int(b, tc_vec_type(L->ctx, w, tcb_int_type(L->ctx, 1)), 1) : mask;
  MlirValue m8 = tcb_cast(b, "arith.extui", m, tc_vec_type(L->ctx, w, i8));
  MlirValue s1[3] = {addrs, a, zero}, s2[3] = {m8, act, zero};
  tcb_op(b, "vector.store", 0, NULL, 3, s1, 0, NULL);
  tcb_op(b, "vector.store", 0, NULL, 3, s2, 0, NULL);
  MlirValue args[10] = {tcb_const_int(b, i32, site), buffer_ptr(L, b, a), buffer_ptr(L, b, act),
                        tcb_const_int(b, i32, w)};
  MlirValue rest[6];
  site_args(L, b, op, arg, write, size, rest);
  memcpy(args + 4, rest, sizeof rest);
  tc_call_runtime(L, b, "tilec_rt_access_lanes", 10, args);
}

static MlirValue reduce_mask(tc_lower *L, tc_builder *b, MlirValue mask, const char *kind) {
  char k[32];
  snprintf(k, sizeof k, "#vector.kind<%s>", kind);
  MlirNamedAttribute a = tcb_named(L->ctx, "kind", tcb_attr(L->ctx, k));
  return tcb_op1(b, "vector.reduction", tcb_int_type(L->ctx, 1), 1, &mask, 1, &a);
}

void tc_race_access(tc_chunk *c, MlirOperation op, MlirValue old_ptr, tc_cval p, MlirValue mask, const tc_pos *pos,
                    bool write) {
  tc_lower *L = c->L;
  if (!(L->check_races || L->check_init) || L->status || mlirValueIsNull(L->race_block)) return;
  int arg = tc_root_arg(L, old_ptr);
  if (arg < 0 || arg >= L->race_nargs) return;
  int site = L->race_sites++;
  MlirType i64 = tcb_int_type(L->ctx, 64);
  MlirType pointee = tile_ptr_pointee(tcb_element_type(mlirValueGetType(old_ptr)));
  int64_t size = (tcb_bitwidth(tc_memory_type(L->ctx, pointee)) + 7) / 8;
  /* values the chunk's evaluation makes (and memoizes) go before the branches */
  bool run = pos->chunked && tc_chunk_contiguous(c, old_ptr, p);
  MlirValue first = run ? tc_chunk_first_offset(c, old_ptr, pos) : (MlirValue){NULL};
  tc_builder outer = c->b, *b = &c->b, logged;
  /* What the runtime's flag for the argument decides: without race checks, only accesses
   * to memory marked uninitialized are sent; with them, stores always, loads when the
   * kernel stores through the argument too, or its memory may be another argument's, or
   * it is marked. */
  int64_t need = !L->check_races                ? TILEC_RT_LOG_INIT
                 : write || L->race_stored[arg] ? 0
                                                : TILEC_RT_LOG_LOADS | TILEC_RT_LOG_INIT;
  if (need) {
    MlirValue bits = tcb_binary(b, "arith.andi", L->race_flags[arg], tcb_const_int(b, i64, need));
    tcb_if(b, tcb_cmpi(b, "ne", bits, tcb_const_int(b, i64, 0)), 0, NULL, &logged, NULL);
    b = &logged;
  }
  if (!pos->chunked) { /* one element */
    MlirValue addr = ptr_bits(L, b, p.base);
    if (!mlirValueIsNull(p.vec))
      addr =
          tcb_binary(b, "arith.addi", addr,
                     tcb_binary(b, "arith.muli", tcb_cast(b, "arith.extsi", p.vec, i64), tcb_const_int(b, i64, size)));
    tc_builder in = *b;
    if (!mlirValueIsNull(mask)) tcb_if(b, mask, 0, NULL, &in, NULL);
    extend_run(L, &in, op, site, arg, write, size, addr, size);
    if (!mlirValueIsNull(mask)) tcb_op(&in, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  } else {
    int64_t w = c->width;
    MlirType v64 = tc_vec_type(L->ctx, w, i64);
    MlirValue base = ptr_bits(L, b, p.base);
    bool masked = !mlirValueIsNull(mask);
    tc_builder full = *b, part = *b, none;
    if (masked && run) { /* all lanes: the run; some: lane by lane; none: nothing */
      tcb_if(b, reduce_mask(L, b, mask, "and"), 0, NULL, &full, &none);
      tcb_if(&none, reduce_mask(L, &none, mask, "or"), 0, NULL, &part, NULL);
      tcb_op(&none, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    } else if (masked) {
      tcb_if(b, reduce_mask(L, b, mask, "or"), 0, NULL, &part, NULL);
    }
    if (run) {
      MlirValue f = tcb_cast(&full, "arith.index_cast", first, i64);
      MlirValue addr =
          tcb_binary(&full, "arith.addi", base, tcb_binary(&full, "arith.muli", f, tcb_const_int(&full, i64, size)));
      extend_run(L, &full, op, site, arg, write, size, addr, w * size);
    }
    if (!run || masked) {
      MlirValue addrs = tc_splat_vec(&part, base, w);
      if (!mlirValueIsNull(p.vec)) {
        MlirValue off = p.vec;
        if (tcb_bitwidth(tcb_element_type(mlirValueGetType(off))) < 64) off = tcb_cast(&part, "arith.extsi", off, v64);
        addrs = tcb_binary(&part, "arith.addi", addrs,
                           tcb_binary(&part, "arith.muli", off, tcb_const_int(&part, v64, size)));
      }
      log_lanes(L, &part, op, site, arg, write, size, addrs, mask, w);
    }
    if (masked && run) tcb_op(&full, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    if (masked) tcb_op(&part, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  }
  if (b == &logged) {
    tcb_op(&logged, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    c->b = outer;
  }
}

void tc_race_scalar_access(tc_lower *L, tc_builder *b, MlirOperation op, MlirValue old_ptr, MlirValue addr,
                           MlirValue mask, bool write) {
  if (!(L->check_races || L->check_init) || L->status) return;
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 1);
  c.b = *b;
  tc_cval p = {.base = addr, .is_ptr = true};
  tc_pos pos = {.rank = 0, .chunked = false};
  tc_race_access(&c, op, old_ptr, p, mask, &pos, write);
  *b = c.b;
  tc_chunk_free(&c);
}

void tc_race_atomic(tc_lower *L, tc_builder *b, MlirOperation op, MlirValue addr, MlirValue old, MlirValue cmp) {
  if (!L->check_races || L->status) return;
  MlirValue where = tcb_cast(b, "llvm.ptrtoint", addr, tcb_int_type(L->ctx, 64));
  if ((tile_op_of(op) == TILE_ATOMIC_CAS)) {
    /* a CAS that found `cmp` took the lock at addr */
    MlirValue ok = tcb_is_float(mlirValueGetType(old)) ? tcb_cmpf(b, "oeq", old, cmp) : tcb_cmpi(b, "eq", old, cmp);
    MlirValue args[2] = {tcb_cast(b, "arith.extui", ok, tcb_int_type(L->ctx, 32)), where};
    tc_call_runtime(L, b, "tilec_rt_race_cas", 2, args);
    return;
  }
  MlirAttribute ka = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("kind"));
  MlirStringRef k = mlirStringAttrGetValue(ka);
  if (k.length == 4 && !memcmp(k.data, "xchg", 4)) tc_call_runtime(L, b, "tilec_rt_race_release", 1, &where);
}
