/* conversion/reduce.c — tile.reduce: vertical accumulation in registers over chunks or
 * rows, then one horizontal tree per output element, applying the combine function (a
 * func.func of scalars, cloned here with vector types). In: a reduce op. Out: scalar
 * results, or a buffered tile of the operand shape without the reduced axis. */
#include "backend/backend.h"
#include "conversion/analyses.h"
#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <math.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>
#include <string.h>

#define MAXV TC_REDUCE_MAX_VALUES

static MlirOperation combine_func(tc_lower *L, MlirOperation op) {
  MlirAttribute sym = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("combine"));
  if (mlirAttributeIsNull(sym) || !mlirAttributeIsAFlatSymbolRef(sym)) return (MlirOperation){NULL};
  MlirStringRef name = mlirFlatSymbolRefAttrGetValue(sym);
  MlirOperation parent = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(parent) && !tc_op_is(parent, "builtin.module"))
    parent = mlirOperationGetParentOperation(parent);
  if (mlirOperationIsNull(parent)) return parent;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(parent, 0));
  for (MlirOperation f = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f)) {
    MlirAttribute s = mlirOperationGetAttributeByName(f, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(s) && mlirStringRefEqual(mlirStringAttrGetValue(s), name)) return f;
  }
  (void)L;
  return (MlirOperation){NULL};
}

bool tc_apply_combine(tc_lower *L, tc_builder *b, MlirOperation reduce_op, const MlirValue *args, int nargs,
                      MlirValue *results) {
  MlirOperation fn = combine_func(L, reduce_op);
  if (mlirOperationIsNull(fn)) {
    tc_fail(L, reduce_op, TILEC_ERROR_INTERNAL, "combine function not found");
    return false;
  }
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0));
  if (mlirBlockGetNumArguments(body) != nargs) {
    tc_fail(L, reduce_op, TILEC_ERROR_INTERNAL, "combine function arity mismatch");
    return false;
  }
  bool vec = mlirTypeIsAVector(mlirValueGetType(args[0]));
  int64_t width = vec ? mlirShapedTypeGetDimSize(mlirValueGetType(args[0]), 0) : 1;
  tc_valmap map;
  tc_valmap_init(&map, sizeof(MlirValue));
  for (int i = 0; i < nargs; i++) *(MlirValue *)tc_valmap_put(&map, mlirBlockGetArgument(body, i).ptr) = args[i];
  bool ok = true;
  for (MlirOperation o = mlirBlockGetFirstOperation(body); ok && !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    if (tc_op_is(o, "func.return")) {
      for (intptr_t i = 0; i < mlirOperationGetNumOperands(o); i++) {
        MlirValue *v = tc_valmap_get(&map, mlirOperationGetOperand(o, i).ptr);
        results[i] = v ? *v : (MlirValue){NULL};
      }
      break;
    }
    if (mlirOperationGetNumResults(o) != 1 || !(tc_op_in_dialect(o, "arith") || tc_op_in_dialect(o, "math"))) {
      tc_fail(L, o, TILEC_ERROR_UNSUPPORTED, "combine functions may only use scalar arithmetic");
      ok = false;
      break;
    }
    MlirType rt = mlirValueGetType(mlirOperationGetResult(o, 0));
    MlirValue r;
    if (tc_op_is(o, "arith.constant")) {
      MlirAttribute a = mlirOperationGetAttributeByName(o, mlirStringRefCreateFromCString("value"));
      MlirNamedAttribute na = tcb_named(L->ctx, "value", a);
      r = tcb_op1(b, "arith.constant", rt, 0, NULL, 1, &na);
      if (vec) r = tc_splat_vec(b, r, width);
    } else {
      MlirValue ops[4];
      intptr_t n = mlirOperationGetNumOperands(o);
      for (intptr_t i = 0; i < n && i < 4; i++) {
        MlirValue *v = tc_valmap_get(&map, mlirOperationGetOperand(o, i).ptr);
        ops[i] = v ? *v : (MlirValue){NULL};
        if (!v) ok = false;
      }
      if (!ok) {
        tc_fail(L, o, TILEC_ERROR_UNSUPPORTED, "combine functions may not capture outer values");
        break;
      }
      r = mlirOperationGetResult(tc_clone_elementwise(b, o, ops, vec ? tc_vec_type(L->ctx, width, rt) : rt), 0);
    }
    *(MlirValue *)tc_valmap_put(&map, mlirOperationGetResult(o, 0).ptr) = r;
  }
  tc_valmap_free(&map);
  return ok;
}

bool tc_reduce_horizontal(tc_lower *L, tc_builder *b, MlirOperation op, int n, MlirValue *acc, int64_t width,
                          MlirValue *out) {
  for (int64_t s = width / 2; s >= 1; s /= 2) {
    /* Lane k < s combines with lane k + s; the lanes past s are never read again, and repeat
     * the same upper half (k % s + s) rather than keeping their own values: with identity
     * lanes there, LLVM 22's x86 shuffle lowering turned the 4-lane step [2,3,2,3,4,...] of an
     * i32 sum that shares its first step with an argmax into vpbroadcastq (lanes [0,1,0,1]),
     * a wrong sum (28 for 48 at BLOCK 16). No poison lanes either: a combine may divide. */
    int64_t mask[64];
    for (int64_t k = 0; k < width; k++) mask[k] = k % s + s;
    MlirValue args[2 * MAXV];
    for (int i = 0; i < n; i++) {
      MlirValue ops[2] = {acc[i], acc[i]};
      MlirNamedAttribute a = tcb_named(L->ctx, "mask", mlirDenseI64ArrayGet(L->ctx, width, mask));
      args[i] = acc[i];
      args[n + i] = tcb_op1(b, "vector.shuffle", mlirValueGetType(acc[i]), 2, ops, 1, &a);
    }
    if (!tc_apply_combine(L, b, op, args, 2 * n, acc)) return false;
  }
  for (int i = 0; i < n; i++) {
    int64_t zero = 0;
    MlirNamedAttribute a = tcb_named(L->ctx, "static_position", mlirDenseI64ArrayGet(L->ctx, 1, &zero));
    out[i] = tcb_op1(b, "vector.extract", tcb_element_type(mlirValueGetType(acc[i])), 1, &acc[i], 1, &a);
  }
  return true;
}

/* Where the chunks a reduction evaluates also go: the operand's buffer when the operand is
 * a costly value other roots read too (softmax's exp(x - max) feeds the sum and the
 * store), so computing it and summing it is one pass. */
/* How a pass over the chunks of a row evaluates and combines them. */
typedef struct chunk_pass {
  MlirValue buf; /* capture: the operand also goes to this buffer (null: none) */
  const int64_t *shape;
  MlirOperation store;     /* a store the buffer feeds (or null): its lines are prefetched */
  MlirValue wmask;         /* the buffer may be that store's memory: written under its mask */
  const char *select_pred; /* NaN-ignoring min/max as select(x pred acc, x, acc), or null */
} chunk_pass;

/* A tile.store whose value is computed (through lazily evaluated ops) from v. */
static MlirOperation store_fed_by(MlirValue v, int depth) {
  if (depth > 16) return (MlirOperation){NULL};
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if ((tile_op_of(user) == TILE_STORE) && mlirOpOperandGetOperandNumber(u) == 1) return user;
    if (tc_is_lazy_op(user)) {
      MlirOperation s = store_fed_by(mlirOperationGetResult(user, 0), depth + 1);
      if (!mlirOperationIsNull(s)) return s;
    }
  }
  return (MlirOperation){NULL};
}

/* Evaluates operand i at p. Capturing, it also goes to the buffer, and, when that buffer is
 * a stack buffer, the line the later store writes is prefetched for writing: softmax's
 * division pass then stores into cache while the store misses overlap with this pass's exp
 * (measured, 1 thread, 1024x8192: 4.0 -> 3.5 ms). */
static MlirValue eval_operand(tc_chunk *c, const MlirValue *olds, int i, const tc_pos *p, const chunk_pass *cap) {
  MlirValue v = tc_eval(c, olds[i], p).vec;
  if (i == 0 && !mlirValueIsNull(cap->buf) && !c->L->status) {
    MlirValue m = mlirValueIsNull(cap->wmask) ? cap->wmask : tc_chunk_mask(c, cap->wmask, p);
    tc_buffer_write_masked(c, cap->buf, v, p, cap->shape, m);
    if (!mlirOperationIsNull(cap->store)) tc_prefetch_store(c, cap->store, p);
  }
  return v;
}

/* The combine's one op when it is `return op(a, b)` (or op(b, a)) of its two arguments, else
 * null: the reductions tl.sum, tl.max, tl.min, ... build. */
static MlirOperation single_combine_op(tc_lower *L, MlirOperation op) {
  MlirOperation none = {NULL};
  MlirOperation fn = combine_func(L, op);
  if (mlirOperationIsNull(fn)) return none;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0));
  MlirOperation m = mlirBlockGetFirstOperation(body);
  if (mlirOperationIsNull(m) || mlirBlockGetNumArguments(body) != 2 || mlirOperationGetNumOperands(m) != 2) return none;
  MlirOperation ret = mlirOperationGetNextInBlock(m);
  if (mlirOperationIsNull(ret) || !tc_op_is(ret, "func.return") || mlirOperationGetNumOperands(ret) != 1 ||
      !mlirValueEqual(mlirOperationGetOperand(ret, 0), mlirOperationGetResult(m, 0)))
    return none;
  MlirValue a = mlirBlockGetArgument(body, 0), b = mlirBlockGetArgument(body, 1);
  MlirValue x = mlirOperationGetOperand(m, 0), y = mlirOperationGetOperand(m, 1);
  if (!((mlirValueEqual(x, a) && mlirValueEqual(y, b)) || (mlirValueEqual(x, b) && mlirValueEqual(y, a)))) return none;
  return m;
}

bool tc_reduce_commutative(tc_lower *L, MlirOperation op) {
  static const char *const ops[] = {"arith.addf",    "arith.addi",     "arith.mulf",     "arith.muli",  "arith.maxnumf",
                                    "arith.minnumf", "arith.maximumf", "arith.minimumf", "arith.maxsi", "arith.minsi",
                                    "arith.maxui",   "arith.minui",    "arith.andi",     "arith.ori",   "arith.xori"};
  MlirOperation m = single_combine_op(L, op);
  for (size_t i = 0; !mlirOperationIsNull(m) && i < sizeof ops / sizeof ops[0]; i++)
    if (tc_op_is(m, ops[i])) return true;
  return false;
}

/* Float min/max reductions (tl.max, tl.min) where the backend prefers compare + select
 * (x86: maxnum needs vmaxps, a NaN test and a blend per chunk, while select(x > acc, x,
 * acc) is one vmaxps that ignores a NaN x). The
 * accumulators start NaN-free (NaN lanes of the first chunks become the identity), so
 * only a row of NaNs (all lanes) comes out wrong, as the identity: the caller then
 * recomputes the row exactly. Returns the cmpf predicate, or null. */
static const char *minmax_select_pred(tc_lower *L, MlirOperation op, int nvals, const MlirValue *olds) {
  if (!L->backend->select_minmax(L->target) || nvals != 1 ||
      !tcb_is_float(mlirShapedTypeGetElementType(mlirValueGetType(olds[0]))))
    return NULL;
  MlirOperation m = single_combine_op(L, op);
  if (mlirOperationIsNull(m)) return NULL;
  if (tc_op_is(m, "arith.maxnumf")) return "ogt";
  if (tc_op_is(m, "arith.minnumf")) return "olt";
  return NULL;
}

/* The identity of a select-based min/max (-inf for max, +inf for min) in v's type. */
static MlirValue minmax_identity(tc_builder *b, const chunk_pass *cap, MlirType t) {
  return tcb_const_float(b, t, strcmp(cap->select_pred, "ogt") ? INFINITY : -INFINITY);
}

/* A first chunk as an accumulator: NaN lanes become the identity for select-based min/max. */
static MlirValue seed(tc_builder *b, const chunk_pass *cap, MlirValue v) {
  if (!cap->select_pred || mlirValueIsNull(v)) return v;
  return tcb_select(b, tcb_cmpf(b, "ord", v, v), v, minmax_identity(b, cap, mlirValueGetType(v)));
}

/* res = the accumulators args[0..nvals) combined with the chunk's values args[nvals..). */
static void fold(tc_lower *L, tc_builder *b, MlirOperation op, int nvals, const chunk_pass *cap, const MlirValue *args,
                 MlirValue *res) {
  if (cap->select_pred) res[0] = tcb_select(b, tcb_cmpf(b, cap->select_pred, args[1], args[0]), args[1], args[0]);
  else tc_apply_combine(L, b, op, args, 2 * nvals, res);
}

/* One loop over chunks [lb, ub) step `u * width` folding u chunks per iteration into u
 * accumulator sets (acc: u * nvals values, replaced by the loop results). With a bound
 * mask the chunks are known full (their masks equal to the bound are dropped). */
static void chunk_loop(tc_lower *L, tc_builder *b, MlirOperation op, int nvals, const MlirValue *olds,
                       const tc_pos *outer, MlirValue lb, MlirValue ub, int64_t width, int u, MlirValue bound_mask,
                       const chunk_pass *cap, MlirValue *acc) {
  int nacc = u * nvals;
  MlirOperation f;
  MlirBlock blk = tc_build_for(L, b, lb, ub, tcb_const_index(b, u * width), nacc, acc, &f);
  tc_chunk c;
  tc_chunk_init(&c, L, blk, width);
  c.b.loc = b->loc;
  if (!mlirValueIsNull(bound_mask)) {
    c.mode = TC_CHUNK_FULL;
    c.bound_mask = bound_mask;
  }
  MlirValue res[MAXV];
  for (int k = 0; k < u && !L->status; k++) {
    tc_pos p = *outer;
    p.chunked = true;
    MlirValue j = mlirBlockGetArgument(blk, 0);
    p.idx[p.rank - 1] = k ? tcb_binary(&c.b, "arith.addi", j, tcb_const_index(&c.b, k * width)) : j;
    c.root = p;
    MlirValue args[2 * MAXV];
    for (int i = 0; i < nvals; i++) {
      args[i] = mlirBlockGetArgument(blk, 1 + k * nvals + i);
      args[nvals + i] = eval_operand(&c, olds, i, &p, cap);
    }
    if (L->status) break;
    fold(L, &c.b, op, nvals, cap, args, res + k * nvals);
  }
  if (!L->status) tcb_op(&c.b, "scf.yield", 0, NULL, nacc, res, 0, NULL);
  tc_chunk_free(&c);
  for (int i = 0; i < nacc && !L->status; i++) acc[i] = mlirOperationGetResult(f, i);
}

/* How folding one vector v into an accumulator again and again relates to folding it once:
 * 0 unrelated, 1 the same (max, min, and, or: x op v op v == x op v), 2 the same when v is
 * zero (a sum: x + 0 + 0 == x + 0, also for x = -0 and NaN). */
static int fold_idempotence(tc_lower *L, MlirOperation op, const chunk_pass *cap) {
  if (cap->select_pred) return 1; /* select(v > acc, v, acc) */
  MlirOperation m = single_combine_op(L, op);
  if (mlirOperationIsNull(m)) return 0;
  static const char *const always[] = {"arith.maxnumf", "arith.minnumf", "arith.maximumf", "arith.minimumf",
                                       "arith.maxsi",   "arith.minsi",   "arith.maxui",    "arith.minui",
                                       "arith.andi",    "arith.ori"};
  for (size_t i = 0; i < sizeof always / sizeof *always; i++)
    if (tc_op_is(m, always[i])) return 1;
  return tc_op_is(m, "arith.addf") || tc_op_is(m, "arith.addi") || tc_op_is(m, "arith.xori") ? 2 : 0;
}

/* Chunks [start, n) of the row at `outer`, wholly past the bound of bound_mask, into acc.
 * When the operand there is one vector v in every chunk (tc_uniform_past_bound: masked loads
 * give `other`, tl.where on the mask its other branch) and folding v in repeatedly is folding
 * it once (fold_idempotence), one chunk is evaluated and folded; else every chunk runs, masked.
 * Triton sizes the tile to next_power_of_2(N): layer norm over 12000 columns at BLOCK 16384
 * ran 274 chunks per pass adding zeros, one after the other. A captured operand is only
 * skipped where its buffer is written under the bound's mask (nothing reads it there). */
static void past_bound(tc_lower *L, tc_builder *b, MlirOperation op, int nvals, const MlirValue *olds,
                       const tc_pos *outer, int64_t n, int64_t width, MlirValue bound_mask, const chunk_pass *cap,
                       MlirValue start, MlirValue *acc) {
  MlirValue end = tcb_const_index(b, n);
  int idem = nvals == 1 ? fold_idempotence(L, op, cap) : 0;
  bool captured_there =
      !mlirValueIsNull(cap->buf) && (mlirValueIsNull(cap->wmask) || !tc_same_value(cap->wmask, bound_mask, 0));
  if (!idem || captured_there || !tc_uniform_past_bound(L, olds[0], bound_mask, 0)) {
    chunk_loop(L, b, op, nvals, olds, outer, start, end, width, 1, (MlirValue){NULL}, cap, acc);
    return;
  }
  MlirType t = mlirValueGetType(acc[0]);
  tc_builder tb, eb;
  MlirOperation any = tcb_if(b, tcb_cmpi(b, "ult", start, end), 1, &t, &tb, &eb);
  tcb_op(&eb, "scf.yield", 0, NULL, 1, acc, 0, NULL);
  tc_chunk c;
  tc_chunk_init(&c, L, tb.block, width);
  c.b = tb;
  tc_pos p = *outer;
  p.chunked = true;
  p.idx[p.rank - 1] = start;
  MlirValue args[2] = {acc[0], eval_operand(&c, olds, 0, &p, cap)}, once;
  if (!L->status) fold(L, &c.b, op, 1, cap, args, &once);
  if (L->status) {
    tc_chunk_free(&c);
    return;
  }
  if (idem == 2) {
    /* v == 0 in every lane: fold it once; else run the chunks */
    MlirValue v = args[1];
    MlirValue zero = tcb_is_float(tcb_element_type(mlirValueGetType(v)))
                         ? tcb_cmpf(&c.b, "oeq", v, tcb_const_float(&c.b, mlirValueGetType(v), 0.0))
                         : tcb_cmpi(&c.b, "eq", v, tcb_const_int(&c.b, mlirValueGetType(v), 0));
    MlirNamedAttribute kind = tcb_named(L->ctx, "kind", tcb_attr(L->ctx, "#vector.kind<and>"));
    zero = tcb_op1(&c.b, "vector.reduction", tcb_int_type(L->ctx, 1), 1, &zero, 1, &kind);
    tc_builder zb, lb;
    MlirOperation iff = tcb_if(&c.b, zero, 1, &t, &zb, &lb);
    tcb_op(&zb, "scf.yield", 0, NULL, 1, &once, 0, NULL);
    MlirValue looped = acc[0];
    chunk_loop(L, &lb, op, 1, olds, outer, start, end, width, 1, (MlirValue){NULL}, cap, &looped);
    tcb_op(&lb, "scf.yield", 0, NULL, 1, &looped, 0, NULL);
    once = mlirOperationGetResult(iff, 0);
  }
  tcb_op(&c.b, "scf.yield", 0, NULL, 1, &once, 0, NULL);
  tc_chunk_free(&c);
  acc[0] = mlirOperationGetResult(any, 0);
}

/* Accumulates chunks [width, n) of the last dim at `outer` into acc (scf.for with
 * iter_args); returns the loop results in acc. With a bound mask (the mask of a masked
 * load the operand reads), chunks below the bound run unmasked and only the rest masked. */
static void accumulate_last(tc_lower *L, tc_builder *b, MlirOperation op, int nvals, const MlirValue *olds,
                            const tc_pos *outer, int64_t n, int64_t width, MlirValue bound_mask, const chunk_pass *cap,
                            MlirValue *acc) {
  if (width >= n) return;
  /* Up to 4 independent accumulator sets hide the combine's latency (the order of a
   * reduction is unspecified); they are combined once after the loop. */
  int64_t chunks = n / width;
  int u = 1;
  if (chunks >= 8) u = 4;
  if (nvals * u > MAXV) u = 1;
  MlirValue sets[MAXV];
  int nacc = 0;
  for (int k = 0; k < u; k++)
    for (int i = 0; i < nvals; i++) sets[nacc++] = acc[i]; /* every set starts from chunk 0; fixed below */
  /* sets 1..u-1 start from chunks 1..u-1 instead of duplicating chunk 0 */
  tc_chunk pre;
  tc_chunk_init(&pre, L, b->block, width);
  pre.b = *b;
  for (int k = 1; k < u; k++) {
    tc_pos p = *outer;
    p.chunked = true;
    p.idx[p.rank - 1] = tcb_const_index(&pre.b, k * width);
    for (int i = 0; i < nvals; i++) sets[k * nvals + i] = seed(&pre.b, cap, eval_operand(&pre, olds, i, &p, cap));
  }
  MlirValue bound = {NULL};
  if (!mlirValueIsNull(bound_mask)) {
    tc_pos row = *outer;
    row.chunked = false;
    bound = tc_mask_bound(&pre, bound_mask, &row, n);
  }
  *b = pre.b;
  tc_chunk_free(&pre);
  if (L->status) return;
  int64_t start = u * width, full_end = start + ((n - start) / (u * width)) * (u * width);
  MlirValue rest = tcb_const_index(b, full_end);
  if (!mlirValueIsNull(bound)) {
    /* [start, bound rounded down to u chunks): full; [that, n): masked, one chunk a step */
    MlirValue lim = tcb_binary(b, "arith.andi", bound, tcb_const_index(b, -u * width));
    lim = tcb_binary(b, "arith.maxsi", lim, tcb_const_index(b, start));
    chunk_loop(L, b, op, nvals, olds, outer, tcb_const_index(b, start), lim, width, u, bound_mask, cap, sets);
    rest = lim;
  } else {
    chunk_loop(L, b, op, nvals, olds, outer, tcb_const_index(b, start), rest, width, u, (MlirValue){NULL}, cap, sets);
  }
  if (L->status) return;
  /* fold the sets: ((s0 + s1) + s2) + s3 */
  for (int i = 0; i < nvals; i++) acc[i] = sets[i];
  for (int k = 1; k < u; k++) {
    MlirValue args[2 * MAXV];
    for (int i = 0; i < nvals; i++) {
      args[i] = acc[i];
      args[nvals + i] = sets[k * nvals + i];
    }
    tc_apply_combine(L, b, op, args, 2 * nvals, acc);
  }
  /* leftover chunks: n / width not a multiple of u, or the one holding the bound (and the
   * full ones before it in its group of u), then those wholly past the bound */
  if (mlirValueIsNull(bound)) {
    if (full_end < n)
      chunk_loop(L, b, op, nvals, olds, outer, rest, tcb_const_index(b, n), width, 1, (MlirValue){NULL}, cap, acc);
    return;
  }
  MlirValue live_end = tcb_binary(b, "arith.andi", tcb_binary(b, "arith.addi", bound, tcb_const_index(b, width - 1)),
                                  tcb_const_index(b, -width));
  live_end = tcb_binary(b, "arith.maxsi", live_end, rest);
  chunk_loop(L, b, op, nvals, olds, outer, rest, live_end, width, 1, (MlirValue){NULL}, cap, acc);
  if (!L->status) past_bound(L, b, op, nvals, olds, outer, n, width, bound_mask, cap, live_end, acc);
}

/* Accumulates rows 1..len-1 of dim `axis` at the chunk position pos (vertical). */
static void accumulate_axis(tc_lower *L, tc_builder *b, MlirOperation op, int nvals, const MlirValue *olds,
                            const tc_pos *pos, int axis, int64_t len, int64_t width, MlirValue *acc) {
  if (len <= 1) return;
  MlirOperation f;
  MlirBlock blk =
      tc_build_for(L, b, tcb_const_index(b, 1), tcb_const_index(b, len), tcb_const_index(b, 1), nvals, acc, &f);
  tc_chunk c;
  tc_chunk_init(&c, L, blk, width);
  c.b.loc = b->loc;
  tc_pos p = *pos;
  p.idx[axis] = mlirBlockGetArgument(blk, 0);
  MlirValue args[2 * MAXV], res[MAXV];
  for (int i = 0; i < nvals; i++) {
    args[i] = mlirBlockGetArgument(blk, 1 + i);
    args[nvals + i] = tc_eval(&c, olds[i], &p).vec;
  }
  if (!L->status && tc_apply_combine(L, &c.b, op, args, 2 * nvals, res))
    tcb_op(&c.b, "scf.yield", 0, NULL, nvals, res, 0, NULL);
  tc_chunk_free(&c);
  for (int i = 0; i < nvals; i++) acc[i] = mlirOperationGetResult(f, i);
}

typedef struct reduce_ctx {
  MlirOperation op;
  int nvals, axis, rank;
  MlirValue olds[MAXV];
  MlirValue bufs[MAXV];
  int64_t shape[TC_RANK];  /* operand shape */
  int64_t rshape[TC_RANK]; /* result shape */
} reduce_ctx;

/* A select-based min/max (chunk_pass.select_pred) that came out as its identity may be a
 * row of NaNs (maxnum gives NaN there): that row is recomputed with the exact combine. */
static MlirValue recheck_identity(tc_lower *L, tc_chunk *c, MlirOperation op, const MlirValue *olds,
                                  const tc_pos *outer, int64_t n, MlirValue bound_mask, const chunk_pass *cap,
                                  MlirValue r) {
  MlirType t = mlirValueGetType(r);
  MlirValue is_identity = tcb_cmpf(&c->b, "oeq", r, minmax_identity(&c->b, cap, t));
  tc_builder tb, eb;
  MlirOperation iff = tcb_if(&c->b, is_identity, 1, &t, &tb, &eb);
  tc_chunk e;
  tc_chunk_init(&e, L, tb.block, c->width);
  e.b = tb;
  chunk_pass exact = {{NULL}, cap->shape, {NULL}, {NULL}, NULL};
  MlirValue acc = eval_operand(&e, olds, 0, outer, &exact), out = r;
  if (!L->status) accumulate_last(L, &e.b, op, 1, olds, outer, n, c->width, bound_mask, &exact, &acc);
  if (!L->status) tc_reduce_horizontal(L, &e.b, op, 1, &acc, c->width, &out);
  tcb_op(&e.b, "scf.yield", 0, NULL, 1, &out, 0, NULL);
  tc_chunk_free(&e);
  tcb_op(&eb, "scf.yield", 0, NULL, 1, &r, 0, NULL);
  return mlirOperationGetResult(iff, 0);
}

/* Body over the result positions when the reduced axis is not the last. */
static void vertical_body(tc_chunk *c, const tc_pos *rpos, void *user) {
  reduce_ctx *r = user;
  tc_pos p = {.rank = r->rank, .chunked = true};
  int k = 0;
  for (int d = 0; d < r->rank; d++) p.idx[d] = d == r->axis ? tcb_const_index(&c->b, 0) : rpos->idx[k++];
  MlirValue acc[MAXV];
  for (int i = 0; i < r->nvals; i++) acc[i] = tc_eval(c, r->olds[i], &p).vec;
  if (c->L->status) return;
  accumulate_axis(c->L, &c->b, r->op, r->nvals, r->olds, &p, r->axis, r->shape[r->axis], c->width, acc);
  for (int i = 0; i < r->nvals; i++) tc_buffer_write(c, r->bufs[i], acc[i], rpos, r->rshape);
}

bool tc_reduce_operands(tc_lower *L, MlirOperation op, const char *what, const char *plural, int *nvals,
                        MlirValue *olds, int *rank, int64_t *shape, int *axis) {
  *nvals = (int)mlirOperationGetNumOperands(op);
  if (*nvals < 1 || *nvals > MAXV) {
    tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "%s of %d tiles are not supported", plural, *nvals);
    return false;
  }
  for (int i = 0; i < *nvals; i++) olds[i] = mlirOperationGetOperand(op, i);
  *rank = tc_shape_of(mlirValueGetType(olds[0]), shape);
  *axis = (int)tile_int_attr(op, "axis", 0);
  if (*axis < 0 || *axis >= *rank) {
    tc_fail(L, op, TILEC_ERROR_INTERNAL, "%s axis out of range", what);
    return false;
  }
  return true;
}

static void emit_reduce(tc_lower *L, MlirOperation op) {
  reduce_ctx r;
  memset(&r, 0, sizeof r);
  r.op = op;
  if (!tc_reduce_operands(L, op, "reduce", "reductions", &r.nvals, r.olds, &r.rank, r.shape, &r.axis)) return;
  int rr = 0;
  for (int d = 0; d < r.rank; d++)
    if (d != r.axis) r.rshape[rr++] = r.shape[d];
  tc_builder *b = &L->b;
  b->loc = mlirOperationGetLocation(op);
  if (r.axis == r.rank - 1) {
    /* Along the last dim: one scalar per outer position. */
    int64_t n = r.shape[r.rank - 1];
    int64_t w = tc_nest_width(L, n);
    if (rr > 0)
      for (int i = 0; i < r.nvals; i++)
        r.bufs[i] = tc_alloc_buffer(L, mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetResult(op, i))),
                                    tc_numel(rr, r.rshape));
    /* before the nest: the store's pointer may need scalars lowered here */
    chunk_pass cap = {{NULL}, r.shape, {NULL}, {NULL}, minmax_select_pred(L, op, r.nvals, r.olds)};
    if (tc_reduce_captures(L, op)) {
      cap.buf =
          tc_alloc_buffer(L, mlirShapedTypeGetElementType(mlirValueGetType(r.olds[0])), tc_numel(r.rank, r.shape));
      cap.store = store_fed_by(r.olds[0], 0);
      /* a select-based min/max may recompute a row (recheck_identity) */
      MlirValue out = tc_output_buffer(L, b, op, cap.store, cap.buf, cap.select_pred != NULL);
      if (!mlirValueIsNull(out)) {
        cap.buf = out;
        cap.wmask = tile_store_mask(cap.store);
        /* The capture writes the store's lines itself: no write prefetch (4 per line, ahead
         * of a store to the same line). The fallback to the stack buffer, when the rows
         * overlap, goes without it (softmax 4096x5000, 1 thread: 15.1 -> 14.5 ms). */
        cap.store = (MlirOperation){NULL};
      }
      if (!mlirOperationIsNull(cap.store) && !tc_store_prefetchable(L, cap.store)) cap.store = (MlirOperation){NULL};
    }
    tc_builder ob = *b;
    tc_pos outer = {.rank = r.rank, .chunked = true};
    MlirBlock opened[TC_RANK];
    int nopened = tc_open_loops(L, &ob, r.rank - 1, r.shape, &outer, opened);
    tc_chunk c;
    tc_chunk_init(&c, L, ob.block, w);
    c.b = ob;
    outer.idx[r.rank - 1] = tcb_const_index(&c.b, 0);
    MlirValue acc[MAXV], out[MAXV];
    for (int i = 0; i < r.nvals; i++) acc[i] = seed(&c.b, &cap, eval_operand(&c, r.olds, i, &outer, &cap));
    /* Bounded by a masked load's mask: rows with runtime length (softmax's cols < n). */
    MlirValue bound_mask = tc_load_mask_within(L, r.olds[0], mlirValueGetType(r.olds[0]), 0);
    if (!L->status) accumulate_last(L, &c.b, op, r.nvals, r.olds, &outer, n, w, bound_mask, &cap, acc);
    if (!mlirValueIsNull(cap.buf) && !L->status) {
      tc_special *s = tc_special_put(L, r.olds[0]);
      memset(s, 0, sizeof *s);
      s->kind = TC_SPECIAL_BUFFER;
      s->buffer = cap.buf;
      s->mask = cap.wmask;
    }
    if (!L->status && tc_reduce_horizontal(L, &c.b, op, r.nvals, acc, w, out)) {
      if (cap.select_pred) out[0] = recheck_identity(L, &c, op, r.olds, &outer, n, bound_mask, &cap, out[0]);
      if (rr == 0) {
        for (int i = 0; i < r.nvals; i++) tc_map_scalar(L, mlirOperationGetResult(op, i), out[i]);
      } else {
        tc_pos rp = {.rank = rr, .chunked = false};
        for (int d = 0; d < rr; d++) rp.idx[d] = outer.idx[d];
        for (int i = 0; i < r.nvals; i++) tc_buffer_write(&c, r.bufs[i], out[i], &rp, r.rshape);
      }
    }
    tc_chunk_free(&c);
    tc_close_loops(L, opened, nopened);
  } else {
    for (int i = 0; i < r.nvals; i++)
      r.bufs[i] = tc_alloc_buffer(L, mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetResult(op, i))),
                                  tc_numel(rr, r.rshape));
    tc_emit_nest(L, rr, r.rshape, (MlirValue){NULL}, vertical_body, &r);
  }
  if (rr > 0 && !L->status)
    for (int i = 0; i < r.nvals; i++) {
      tc_special *s = tc_special_put(L, mlirOperationGetResult(op, i));
      s->kind = TC_SPECIAL_BUFFER;
      s->buffer = r.bufs[i];
    }
}

/* ---- scans ------------------------------------------------------------------------- */

typedef struct scan_ctx {
  MlirOperation op;
  int nvals, axis, rank;
  bool reverse;
  MlirValue olds[MAXV];
  MlirValue bufs[MAXV];
  int64_t shape[TC_RANK];
  int64_t oshape[TC_RANK]; /* shape without the scanned axis (vertical case) */
} scan_ctx;

/* combine in scan order: the running value (earlier in scan order) first */
static bool scan_combine(tc_lower *L, tc_builder *b, const scan_ctx *s, const MlirValue *earlier,
                         const MlirValue *later, MlirValue *out) {
  MlirValue args[2 * MAXV];
  /* Triton's reverse scan is flip-scan-flip: the accumulated value (from the right)
   * still comes first, so the argument order is the same both ways. */
  for (int i = 0; i < s->nvals; i++) {
    args[i] = earlier[i];
    args[s->nvals + i] = later[i];
  }
  return tc_apply_combine(L, b, s->op, args, 2 * s->nvals, out);
}

bool tc_scan_chunk(tc_lower *L, tc_builder *b, MlirOperation op, int nvals, bool reverse, MlirValue *v, int64_t w,
                   const MlirValue *carry) {
  scan_ctx sc = {.op = op, .nvals = nvals, .reverse = reverse}, *s = &sc;
  for (int64_t sh = 1; sh < w; sh *= 2) {
    int64_t mask[64]; /* a chunk has at most 64 lanes (512 bits of i8) */
    bool take[64];
    for (int64_t k = 0; k < w; k++) {
      if (!s->reverse) {
        mask[k] = k >= sh ? k - sh : k;
        take[k] = k >= sh;
      } else {
        mask[k] = k + sh < w ? k + sh : k;
        take[k] = k + sh < w;
      }
    }
    MlirValue shifted[MAXV], comb[MAXV];
    for (int i = 0; i < s->nvals; i++) {
      MlirValue ops[2] = {v[i], v[i]};
      MlirNamedAttribute a = tcb_named(L->ctx, "mask", mlirDenseI64ArrayGet(L->ctx, w, mask));
      shifted[i] = tcb_op1(b, "vector.shuffle", mlirValueGetType(v[i]), 2, ops, 1, &a);
    }
    if (!scan_combine(L, b, s, shifted, v, comb)) return false;
    MlirType mt = tc_vec_type(L->ctx, w, tcb_int_type(L->ctx, 1));
    MlirAttribute bits[64];
    for (int64_t k = 0; k < w; k++) bits[k] = mlirBoolAttrGet(L->ctx, take[k]);
    MlirNamedAttribute ca = tcb_named(L->ctx, "value", mlirDenseElementsAttrGet(mt, w, bits));
    MlirValue sel = tcb_op1(b, "arith.constant", mt, 0, NULL, 1, &ca);
    for (int i = 0; i < s->nvals; i++) v[i] = tcb_select(b, sel, comb[i], v[i]);
  }
  if (carry) {
    MlirValue cv[MAXV];
    for (int i = 0; i < s->nvals; i++) cv[i] = tc_splat_vec(b, carry[i], w);
    if (!scan_combine(L, b, s, cv, v, v)) return false;
  }
  return true;
}

static MlirValue lane(tc_lower *L, tc_builder *b, MlirValue v, int64_t k) {
  MlirNamedAttribute a = tcb_named(L->ctx, "static_position", mlirDenseI64ArrayGet(L->ctx, 1, &k));
  return tcb_op1(b, "vector.extract", tcb_element_type(mlirValueGetType(v)), 1, &v, 1, &a);
}

static void scan_vertical_body(tc_chunk *c, const tc_pos *opos, void *user) {
  scan_ctx *s = user;
  tc_lower *L = c->L;
  int64_t n = s->shape[s->axis];
  tc_pos p = {.rank = s->rank, .chunked = true};
  int k = 0;
  for (int d = 0; d < s->rank; d++)
    p.idx[d] = d == s->axis ? tcb_const_index(&c->b, s->reverse ? n - 1 : 0) : opos->idx[k++];
  MlirValue acc[MAXV];
  for (int i = 0; i < s->nvals; i++) {
    acc[i] = tc_eval(c, s->olds[i], &p).vec;
    tc_buffer_write(c, s->bufs[i], acc[i], &p, s->shape);
  }
  if (L->status || n <= 1) return;
  MlirOperation f;
  MlirBlock blk = tc_build_for(L, &c->b, tcb_const_index(&c->b, 1), tcb_const_index(&c->b, n),
                               tcb_const_index(&c->b, 1), s->nvals, acc, &f);
  tc_chunk in;
  tc_chunk_init(&in, L, blk, c->width);
  MlirValue it = mlirBlockGetArgument(blk, 0);
  p.idx[s->axis] = s->reverse ? tcb_binary(&in.b, "arith.subi", tcb_const_index(&in.b, n - 1), it) : it;
  MlirValue cur[MAXV], prev[MAXV], next[MAXV];
  for (int i = 0; i < s->nvals; i++) {
    prev[i] = mlirBlockGetArgument(blk, 1 + i);
    cur[i] = tc_eval(&in, s->olds[i], &p).vec;
  }
  if (!L->status && scan_combine(L, &in.b, s, prev, cur, next)) {
    for (int i = 0; i < s->nvals; i++) tc_buffer_write(&in, s->bufs[i], next[i], &p, s->shape);
    tcb_op(&in.b, "scf.yield", 0, NULL, s->nvals, next, 0, NULL);
  }
  tc_chunk_free(&in);
}

static void emit_scan(tc_lower *L, MlirOperation op) {
  scan_ctx s;
  memset(&s, 0, sizeof s);
  s.op = op;
  if (!tc_reduce_operands(L, op, "scan", "scans", &s.nvals, s.olds, &s.rank, s.shape, &s.axis)) return;
  MlirAttribute rv = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("reverse"));
  s.reverse = !mlirAttributeIsNull(rv) && mlirAttributeIsABool(rv) && mlirBoolAttrGetValue(rv);
  int64_t numel = tc_numel(s.rank, s.shape);
  for (int i = 0; i < s.nvals; i++)
    s.bufs[i] = tc_alloc_buffer(L, mlirShapedTypeGetElementType(mlirValueGetType(s.olds[i])), numel);
  tc_builder *b = &L->b;
  b->loc = mlirOperationGetLocation(op);
  if (s.axis == s.rank - 1) {
    int64_t n = s.shape[s.rank - 1];
    int64_t w = tc_nest_width(L, n);
    tc_builder ob = *b;
    tc_pos pos = {.rank = s.rank, .chunked = true};
    MlirBlock opened[TC_RANK];
    int nopened = tc_open_loops(L, &ob, s.rank - 1, s.shape, &pos, opened);
    /* first chunk (last one when reversed) has no carry */
    tc_chunk c;
    tc_chunk_init(&c, L, ob.block, w);
    c.b = ob;
    pos.idx[s.rank - 1] = tcb_const_index(&c.b, s.reverse ? n - w : 0);
    MlirValue v[MAXV], carry[MAXV];
    for (int i = 0; i < s.nvals; i++) v[i] = tc_eval(&c, s.olds[i], &pos).vec;
    if (!L->status && tc_scan_chunk(L, &c.b, s.op, s.nvals, s.reverse, v, w, NULL)) {
      for (int i = 0; i < s.nvals; i++) {
        tc_buffer_write(&c, s.bufs[i], v[i], &pos, s.shape);
        carry[i] = lane(L, &c.b, v[i], s.reverse ? 0 : w - 1);
      }
      if (n > w) {
        MlirOperation f;
        MlirBlock blk = tc_build_for(L, &c.b, tcb_const_index(&c.b, w), tcb_const_index(&c.b, n),
                                     tcb_const_index(&c.b, w), s.nvals, carry, &f);
        tc_chunk in;
        tc_chunk_init(&in, L, blk, w);
        tc_pos p = pos;
        MlirValue it = mlirBlockGetArgument(blk, 0);
        p.idx[s.rank - 1] = s.reverse ? tcb_binary(&in.b, "arith.subi", tcb_const_index(&in.b, n - w), it) : it;
        MlirValue cin[MAXV], cv[MAXV], cout[MAXV];
        for (int i = 0; i < s.nvals; i++) {
          cin[i] = mlirBlockGetArgument(blk, 1 + i);
          cv[i] = tc_eval(&in, s.olds[i], &p).vec;
        }
        if (!L->status && tc_scan_chunk(L, &in.b, s.op, s.nvals, s.reverse, cv, w, cin)) {
          for (int i = 0; i < s.nvals; i++) {
            tc_buffer_write(&in, s.bufs[i], cv[i], &p, s.shape);
            cout[i] = lane(L, &in.b, cv[i], s.reverse ? 0 : w - 1);
          }
          tcb_op(&in.b, "scf.yield", 0, NULL, s.nvals, cout, 0, NULL);
        }
        tc_chunk_free(&in);
      }
    }
    tc_chunk_free(&c);
    tc_close_loops(L, opened, nopened);
  } else {
    int k = 0;
    for (int d = 0; d < s.rank; d++)
      if (d != s.axis) s.oshape[k++] = s.shape[d];
    tc_emit_nest(L, k, s.oshape, (MlirValue){NULL}, scan_vertical_body, &s);
  }
  if (L->status) return;
  for (int i = 0; i < s.nvals; i++) {
    tc_special *sp = tc_special_put(L, mlirOperationGetResult(op, i));
    sp->kind = TC_SPECIAL_BUFFER;
    sp->buffer = s.bufs[i];
  }
}

int tc_emit_reduce(tc_lower *L, MlirOperation *roots, int n) {
  (void)n;
  emit_reduce(L, roots[0]);
  return 1;
}

int tc_emit_scan(tc_lower *L, MlirOperation *roots, int n) {
  (void)n;
  emit_scan(L, roots[0]);
  return 1;
}

/* A reduction joins the group; one with a scalar result is needed right away. */
void tc_lower_reduce(tc_lower *L, MlirOperation op) {
  tc_lower_grouped(L, op);
  if (!mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0)))) tc_flush(L);
}
