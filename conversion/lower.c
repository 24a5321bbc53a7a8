/* conversion/lower.c — the tile → vector/scf driver: rewrites each kernel function,
 * maps scalars one to one, leaves pure tile ops to be evaluated where they are consumed,
 * and groups the ops between memory-ordering points so each group's roots (stores,
 * reductions, dot, materializations) run as loop nests over native-width chunks.
 * In: a verified tile module. Out: a new module in func/scf/arith/math/vector/memref. */
#include "conversion/lower.h"
#include "backend/backend.h"
#include "conversion/analyses.h"
#include "conversion/checks.h"
#include "conversion/op_rows.h"
#include "conversion/steps.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include "tilec/abi.h"
#include "tilec/tilec.h" /* TILEC_CHECKS_* */
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tilec_status *error_at(MlirLocation loc, tilec_status_code code, const char *msg) {
  if (!mlirLocationIsNull(loc) && mlirLocationIsAFileLineColRange(loc)) {
    MlirStringRef f = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    char file[256];
    snprintf(file, sizeof file, "%.*s", (int)f.length, f.data);
    return tilec_status_create_at(code, file, mlirLocationFileLineColRangeGetStartLine(loc),
                                  mlirLocationFileLineColRangeGetStartColumn(loc), NULL, "%s", msg);
  }
  return tilec_status_create(code, "%s", msg);
}

tilec_status *tc_lower_error(tc_lower *L, MlirOperation op, tilec_status_code code, const char *fmt, ...) {
  (void)L;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return error_at(mlirOperationIsNull(op) ? (MlirLocation){NULL} : mlirOperationGetLocation(op), code, msg);
}

void tc_fail_here(tc_lower *L, tilec_status_code code, const char *fmt, ...) {
  if (L->status) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  L->status = error_at(L->b.loc, code, msg);
}

void tc_fail(tc_lower *L, MlirOperation op, tilec_status_code code, const char *fmt, ...) {
  if (L->status) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  L->status = tc_lower_error(L, op, code, "%s", msg);
}

MlirType tc_lower_scalar_type(tc_lower *L, MlirType t) {
  if (tile_type_is_ptr(t)) return tcb_type(L->ctx, "!llvm.ptr");
  return t;
}

MlirValue tc_scalar(tc_lower *L, MlirValue old) {
  MlirValue *v = tc_valmap_get(&L->scalars, old.ptr);
  if (v) return *v;
  tc_fail(L, (MlirOperation){NULL}, TILEC_ERROR_INTERNAL, "lowering: a scalar value was used before it was lowered");
  return (MlirValue){NULL};
}

void tc_map_scalar(tc_lower *L, MlirValue old, MlirValue v) {
  MlirValue *slot = tc_valmap_put(&L->scalars, old.ptr);
  if (slot) *slot = v;
}

tc_special *tc_special_of(tc_lower *L, MlirValue old) {
  tc_special *s = tc_valmap_get(&L->special, old.ptr);
  if (s && s->kind == TC_SPECIAL_BUFFER && !mlirBlockIsNull(s->fill_block) &&
      !tc_block_encloses(s->fill_block, L->b.block))
    return NULL;
  return s;
}
tc_special *tc_special_put(tc_lower *L, MlirValue old) { return tc_valmap_put(&L->special, old.ptr); }

tc_builder tc_entry_builder(tc_lower *L) {
  tc_builder eb;
  tcb_init(&eb, L->ctx);
  eb.loc = mlirOperationGetLocation(L->new_func);
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(L->new_func, 0));
  MlirOperation first = mlirBlockGetFirstOperation(entry);
  if (!mlirOperationIsNull(first)) tcb_set_before(&eb, first);
  else tcb_set_end(&eb, entry);
  return eb;
}

void tc_store_fields(tc_lower *L, tc_builder *b, MlirValue buf, MlirType agg, const MlirValue *vals, int n) {
  for (int i = 0; i < n; i++) {
    int32_t gi[2] = {0, i};
    MlirNamedAttribute ga[2] = {tcb_named(L->ctx, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 2, gi)),
                                tcb_named(L->ctx, "elem_type", mlirTypeAttrGet(agg))};
    MlirValue slot = tcb_op1(b, "llvm.getelementptr", tcb_type(L->ctx, "!llvm.ptr"), 1, &buf, 2, ga);
    MlirValue ops[2] = {vals[i], slot};
    tcb_op(b, "llvm.store", 0, NULL, 2, ops, 0, NULL);
  }
}

MlirValue tc_entry_alloca(tc_lower *L, MlirType t) {
  tc_builder eb = tc_entry_builder(L);
  MlirValue one = tcb_const_int(&eb, tcb_int_type(L->ctx, 64), 1);
  MlirNamedAttribute et = tcb_named(L->ctx, "elem_type", mlirTypeAttrGet(t));
  return tcb_op1(&eb, "llvm.alloca", tcb_type(L->ctx, "!llvm.ptr"), 1, &one, 1, &et);
}

static bool is_tile(MlirType t) { return mlirTypeIsARankedTensor(t); }

/* ---- groups ----------------------------------------------------------------------- */

static bool in_group(tc_lower *L, MlirOperation op) { return tc_valmap_get(&L->in_group, op.ptr) != NULL; }

/* A gather buffers its source when its root runs but reads its index where its result is
 * read, as a lazily evaluated op reads its operands: is operand k of op its index? */
static bool gather_index(MlirOperation op, intptr_t k) { return tile_op_of(op) == TILE_GATHER && k == 1; }

/* Does v reach (through lazily evaluated ops) a consumer outside the current group? */
static bool escapes(tc_lower *L, MlirValue v, int depth) {
  if (depth > 64) return true;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if ((tc_is_lazy_op(user) && !(tile_op_of(user) == TILE_TRANS)) ||
        gather_index(user, mlirOpOperandGetOperandNumber(u))) {
      if (escapes(L, mlirOperationGetResult(user, 0), depth + 1)) return true;
    } else if (!in_group(L, user)) {
      /* The block's yield is evaluated right after this flush: with no store in the
       * group, re-reading the load there is exact, so it need not be captured. */
      if (L->flush_before_yield && !L->group_has_store &&
          (tc_op_is(user, "scf.yield") || tc_op_is(user, "scf.condition")))
        continue;
      return true;
    }
  }
  return false;
}

static bool is_root(MlirOperation op) { return tile_op_has(op, TILE_TRAIT_ROOT); }

/* How many ops read v other than through lazily evaluated ops (each evaluates it anew). */
static int consumers(MlirValue v, int depth) {
  if (depth > 64) return 2;
  int n = 0;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (tc_is_lazy_op(user) && mlirOperationGetNumResults(user) == 1)
      n += consumers(mlirOperationGetResult(user, 0), depth + 1);
    else n++;
  }
  return n;
}

/* Is v (through lazily evaluated ops) the A operand of a dot in another block than
 * `block` — q of attention, loaded once before the loop over K/V blocks whose dot reads it? */
static bool dot_a_elsewhere(MlirValue v, MlirBlock block, int depth) {
  if (depth > 64) return false;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (tile_op_of(user) == TILE_DOT) {
      if (mlirOpOperandGetOperandNumber(u) == 0 && !mlirBlockEqual(mlirOperationGetBlock(user), block)) return true;
    } else if (tc_is_lazy_op(user) && mlirOperationGetNumResults(user) == 1 &&
               dot_a_elsewhere(mlirOperationGetResult(user, 0), block, depth + 1)) {
      return true;
    }
  }
  return false;
}

/* Does the lazily evaluated cone of v contain `target`? */
static bool cone_has(MlirValue v, MlirValue target, tc_valmap *seen, int depth) {
  if (mlirValueEqual(v, target)) return true;
  if (depth > 64 || !mlirValueIsAOpResult(v) || tc_valmap_get(seen, v.ptr)) return false;
  int *m = tc_valmap_put(seen, v.ptr);
  if (m) *m = 1;
  MlirOperation d = mlirOpResultGetOwner(v);
  if (tile_op_of(d) == TILE_GATHER) return cone_has(mlirOperationGetOperand(d, 1), target, seen, depth + 1);
  if (!tc_is_lazy_op(d)) return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++)
    if (cone_has(mlirOperationGetOperand(d, i), target, seen, depth + 1)) return true;
  return false;
}

/* Does an operand of op reach v through lazily evaluated ops? */
static bool op_reads(MlirOperation op, MlirValue v) {
  tc_valmap seen;
  tc_valmap_init(&seen, sizeof(int));
  bool uses = false;
  for (intptr_t k = 0; k < mlirOperationGetNumOperands(op) && !uses; k++)
    uses = cone_has(mlirOperationGetOperand(op, k), v, &seen, 0);
  tc_valmap_free(&seen);
  return uses;
}

/* Is load v read by a root that runs after one of the group's stores? Then its value
 * must be captured before that store; otherwise re-reading it in each nest is exact. */
static bool read_after_store(tc_lower *L, MlirValue v) {
  bool stored = false;
  for (int i = 0; i < L->ngroup; i++) {
    MlirOperation op = L->group[i];
    if (!is_root(op)) continue;
    if (stored && op_reads(op, v)) return true;
    if ((tile_op_of(op) == TILE_STORE)) stored = true;
  }
  return false;
}

/* ---- loads that a store of their own nest may overwrite ----------------------------- */

/* The value a pointer (tile) is computed from: through splats, shape ops and addptr's
 * pointer operand down to a scalar pointer that is not pointer arithmetic. */
static MlirValue ptr_root(MlirValue v, bool loops);

/* An scf.for iter_arg that each iteration only advances (it yields a pointer computed from
 * itself) starts from the same place as its initial value: that value, else the arg. */
static MlirValue through_loop(MlirValue v) {
  MlirBlock body = mlirBlockArgumentGetOwner(v);
  MlirOperation loop = mlirBlockGetParentOperation(body);
  intptr_t i = mlirBlockArgumentGetArgNumber(v);
  if (mlirOperationIsNull(loop) || !tc_op_is(loop, "scf.for") || i < 1) return v;
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(yield) || i - 1 >= mlirOperationGetNumOperands(yield) ||
      3 + i - 1 >= mlirOperationGetNumOperands(loop))
    return v;
  if (!mlirValueEqual(ptr_root(mlirOperationGetOperand(yield, i - 1), false), v)) return v;
  return mlirOperationGetOperand(loop, 3 + i - 1);
}

static MlirValue ptr_root(MlirValue v, bool loops) {
  for (int depth = 0; depth < 256; depth++) {
    if (mlirValueIsABlockArgument(v)) {
      MlirValue init = loops ? through_loop(v) : v;
      if (mlirValueEqual(init, v)) break;
      v = init;
      continue;
    }
    MlirOperation d = mlirOpResultGetOwner(v); /* an offset or operand 0's pointers themselves */
    if (tile_op_of(d) != TILE_ADDPTR && !tile_op_has(d, TILE_TRAIT_KEEPS_VALUES)) break;
    v = mlirOperationGetOperand(mlirOpResultGetOwner(v), 0);
  }
  return v;
}

static bool is_kernel_param(MlirValue v) {
  if (!mlirValueIsABlockArgument(v)) return false;
  MlirOperation owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
  return !mlirOperationIsNull(owner) && tc_op_is(owner, "func.func");
}

/* Different kernel parameters are taken not to overlap (as everywhere in tilec's lowering);
 * anything else computed from one parameter, or from loaded or loop-carried pointers, may. */
static bool may_alias(MlirValue p, MlirValue q) {
  MlirValue a = ptr_root(p, true), b = ptr_root(q, true);
  return mlirValueEqual(a, b) || !is_kernel_param(a) || !is_kernel_param(b);
}

/* A store nest evaluates its loads chunk by chunk, after the stores of earlier chunks. A
 * load that reads each element where the store writes it sees what it would have seen
 * before any store; one that reads elsewhere in memory the store may write (a row loaded
 * once and broadcast over the columns that overwrite it) must be read before the nest, as
 * Triton's block semantics have every load of a statement before the next statement's
 * stores. Same-shaped stores share one nest: the store that writes need not be the one
 * that reads (x[perm] = ...; y = f(x) in one nest read x where the scatter had written). */
static bool overwritten_by_own_nest(tc_lower *L, MlirOperation load) {
  MlirValue v = mlirOperationGetResult(load, 0), ptr = mlirOperationGetOperand(load, 0);
  bool writes = false, reads = false;
  for (int i = 0; i < L->ngroup && !(writes && reads); i++) {
    MlirOperation st = L->group[i];
    if (!(tile_op_of(st) == TILE_STORE)) continue;
    MlirValue sp = mlirOperationGetOperand(st, 0);
    writes = writes || (may_alias(ptr, sp) && !tc_same_value(ptr, sp, 0));
    reads = reads || op_reads(st, v);
  }
  return writes && reads;
}

/* Does a pointer tile's address follow its lanes along the last dim (contiguous or uniform
 * there), rather than come from data? Proven, not promised: the stores' order depends on it. */
static bool lane_ordered(tc_lower *L, MlirValue ptr) {
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(mlirValueGetType(ptr), shape);
  if (rank == 0) return true;
  tc_axis a = tc_axis_of(&L->axis_proven, ptr);
  return a.contiguity[rank - 1] >= shape[rank - 1] || a.constancy[rank - 1] >= shape[rank - 1];
}

bool tc_store_joins_run(tc_lower *L, const MlirOperation *run, int n, MlirOperation o) {
  if (n >= TC_STORE_RUN_MAX || !tc_same_shape(mlirValueGetType(mlirOperationGetOperand(run[0], 0)),
                                              mlirValueGetType(mlirOperationGetOperand(o, 0))))
    return false;
  MlirValue p = mlirOperationGetOperand(o, 0);
  bool p_ordered = lane_ordered(L, p);
  for (int i = 0; i < n; i++) {
    MlirValue q = mlirOperationGetOperand(run[i], 0);
    if (may_alias(p, q) && !tc_same_value(p, q, 0) && (!p_ordered || !lane_ordered(L, q))) return false;
  }
  return true;
}

/* ---- loads re-read where they are consumed ------------------------------------------ */

static bool writes_memory(MlirOperation op) { return tile_op_has(op, TILE_TRAIT_WRITES) || tc_op_is(op, "func.call"); }

static MlirWalkResult find_write(MlirOperation op, void *user) {
  if (!writes_memory(op)) return MlirWalkResultAdvance;
  *(bool *)user = true;
  return MlirWalkResultInterrupt;
}

static bool contains_write(MlirOperation op) {
  bool found = false;
  mlirOperationWalk(op, find_write, &found, MlirWalkPreOrder);
  return found;
}

#define REREAD_MAX 64

/* Collects, for every consumer of v through lazily evaluated ops, the op of `blk` that is
 * or contains it. False when there are too many or one is not inside blk's ops. */
static bool consumers_in_block(MlirValue v, MlirBlock blk, MlirOperation *out, int *n, int depth) {
  if (depth > 32) return false;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (tc_is_lazy_op(user) || gather_index(user, mlirOpOperandGetOperandNumber(u))) {
      if (!consumers_in_block(mlirOperationGetResult(user, 0), blk, out, n, depth + 1)) return false;
      continue;
    }
    MlirOperation a = user;
    while (!mlirOperationIsNull(a) && !mlirBlockEqual(mlirOperationGetBlock(a), blk))
      a = mlirOperationGetParentOperation(a);
    if (mlirOperationIsNull(a) || *n == REREAD_MAX) return false;
    out[(*n)++] = a;
  }
  return true;
}

/* A load whose value outlives its group is normally captured in a stack buffer. Reading
 * memory again where each consumer is evaluated gives the same values when nothing can
 * write memory between the load and its last consumer: softmax's row is read by the max
 * and again by exp(x - max) without copying it. Consumers must sit in the load's block
 * (not a yield: the value leaves the block), and a consumer that is a loop or branch must
 * not itself write (a later iteration would read the new contents). */
static bool rereadable(MlirOperation load) {
  MlirBlock blk = mlirOperationGetBlock(load);
  MlirOperation cons[REREAD_MAX];
  int n = 0;
  if (mlirBlockIsNull(blk) || !consumers_in_block(mlirOperationGetResult(load, 0), blk, cons, &n, 0)) return false;
  int seen = 0;
  bool written = false;
  for (MlirOperation o = mlirOperationGetNextInBlock(load); !mlirOperationIsNull(o) && seen < n;
       o = mlirOperationGetNextInBlock(o)) {
    bool consumer = false;
    for (int i = 0; i < n; i++)
      if (mlirOperationEqual(cons[i], o)) consumer = true, seen++;
    bool writes = contains_write(o);
    if (consumer) {
      if (written || tc_op_is(o, "scf.yield") || tc_op_is(o, "scf.condition")) return false;
      if (writes && mlirOperationGetNumRegions(o) > 0) return false;
    }
    written = written || writes;
  }
  return seen == n;
}

static bool is_costly(MlirOperation op) {
  /* transcendental math is worth a buffer when two nests need it; arithmetic is not */
  return tc_op_in_dialect(op, "math") && !tc_op_is(op, "math.absf") && !tc_op_is(op, "math.absi") &&
         !tc_op_is(op, "math.fma") && !tc_op_is(op, "math.floor") && !tc_op_is(op, "math.ceil");
}

static int count_uses(MlirValue v) {
  int n = 0;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) n++;
  return n;
}

static bool shared_costly(tc_lower *L, MlirValue v) {
  if (!mlirValueIsAOpResult(v) || !mlirTypeIsARankedTensor(mlirValueGetType(v)) || tc_special_of(L, v)) return false;
  MlirOperation d = mlirOpResultGetOwner(v);
  return tc_is_lazy_op(d) && is_costly(d) && count_uses(v) >= 2;
}

bool tc_reduce_captures(tc_lower *L, MlirOperation op) {
  if (!(tile_op_of(op) == TILE_REDUCE) || mlirOperationGetNumOperands(op) != 1) return false;
  /* many threads (nvptx): the operand is computed once into a buffer before the reduction
   * (registers where thread_tile allows, else shared memory), which both then read */
  if (L->backend->thread_tile) return false;
  MlirValue v = mlirOperationGetOperand(op, 0);
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(mlirValueGetType(v), shape);
  return rank > 0 && tile_int_attr(op, "axis", 0) == rank - 1 && shared_costly(L, v);
}

/* Before a root's nest: lazily evaluated values it needs that are costly and shared
 * with other consumers are computed once into a buffer (softmax's exp(x - max) feeds both
 * the sum and the store). */
static void materialize_shared(tc_lower *L, MlirValue v, tc_valmap *seen, int depth) {
  if (depth > 64 || L->status || !mlirValueIsAOpResult(v) || !mlirTypeIsARankedTensor(mlirValueGetType(v))) return;
  if (tc_valmap_get(seen, v.ptr) || tc_special_of(L, v)) return;
  int *mark = tc_valmap_put(seen, v.ptr);
  if (mark) *mark = 1;
  MlirOperation d = mlirOpResultGetOwner(v);
  if (!tc_is_lazy_op(d)) return;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++)
    materialize_shared(L, mlirOperationGetOperand(d, i), seen, depth + 1);
  if (is_costly(d) && count_uses(v) >= 2 &&
      !(L->backend->materialize_fragments && L->backend->materialize_fragments(L, v)))
    tc_materialize(L, v);
}

/* Does the tile v reach, through lazily evaluated ops and loads, the result of a root of
 * the group? */
static bool reaches_group_root(tc_lower *L, MlirValue v, tc_valmap *seen, int depth) {
  if (!mlirValueIsAOpResult(v) || !mlirTypeIsARankedTensor(mlirValueGetType(v)) || tc_special_of(L, v)) return false;
  if (depth > 64) return true; /* unknown: buffering the load later is always exact */
  if (tc_valmap_get(seen, v.ptr)) return false;
  int *mark = tc_valmap_put(seen, v.ptr);
  if (mark) *mark = 1;
  MlirOperation d = mlirOpResultGetOwner(v);
  if (is_root(d) && in_group(L, d)) return true;
  if (!tc_is_lazy_op(d) && !(tile_op_of(d) == TILE_LOAD)) return false;
  for (intptr_t k = 0; k < mlirOperationGetNumOperands(d); k++)
    if (reaches_group_root(L, mlirOperationGetOperand(d, k), seen, depth + 1)) return true;
  return false;
}

static bool reads_group_root(tc_lower *L, MlirOperation load) {
  tc_valmap seen;
  tc_valmap_init(&seen, sizeof(int));
  bool r = false;
  for (intptr_t k = 0; k < mlirOperationGetNumOperands(load) && !r; k++)
    r = reaches_group_root(L, mlirOperationGetOperand(load, k), &seen, 0);
  tc_valmap_free(&seen);
  return r;
}

/* A load of the group into a buffer of its own when its value is needed after a store of
 * the group or after the group, or a store of its nest may overwrite what it reads. */
static void buffer_load(tc_lower *L, MlirOperation op, int nests) {
  MlirValue v = mlirOperationGetResult(op, 0);
  if (tc_special_of(L, v)) return;
  /* A dot's A operand loaded outside the dot's loop is buffered here, once, rather than
   * by the dot in every trip. */
  /* A load that several nests (or code after the group) read again where each is
   * evaluated: a backend that can keep it in each thread's registers does, so a GPU reads
   * the row from global memory once. */
  bool in_registers = (escapes(L, v, 0) || (nests > 1 && consumers(v, 0) > 1)) && L->backend->thread_tile &&
                      L->backend->thread_tile(L, v);
  if (in_registers || (nests > 1 && read_after_store(L, v)) || (escapes(L, v, 0) && !rereadable(op)) ||
      (L->group_has_store && overwritten_by_own_nest(L, op)) ||
      (escapes(L, v, 0) && dot_a_elsewhere(v, mlirOperationGetBlock(op), 0))) {
    L->b.loc = mlirOperationGetLocation(op);
    tc_materialize(L, v);
  }
}

void tc_flush(tc_lower *L) {
  if (L->ngroup == 0 || L->status) {
    L->ngroup = 0;
    L->group_has_store = false;
    tc_valmap_clear(&L->in_group);
    return;
  }
  MlirLocation saved = L->b.loc;
  /* Count loop nests: runs of same-shaped stores share one (tc_emit_stores). */
  int nests = 0, nrun = 0;
  MlirOperation run[TC_STORE_RUN_MAX];
  for (int i = 0; i < L->ngroup; i++) {
    MlirOperation op = L->group[i];
    if (!is_root(op)) continue;
    if ((tile_op_of(op) == TILE_STORE)) {
      if (nrun && tc_store_joins_run(L, run, nrun, op)) {
        run[nrun++] = op;
        continue;
      }
      run[0] = op;
      nrun = 1;
    } else {
      nrun = 0;
    }
    nests++;
  }
  /* Loads read before any store of the group: with several nests, or when used after
   * the group, they are kept in buffers. A load through a tile that a root of the group
   * computes (an index from tl.sort, a scan, a gather or flip, a reshape, a transpose) has
   * no value before that root's nest: it is buffered where it stands in program order,
   * after the roots before it and before the group's stores (which follow every load). */
  bool *after_roots = calloc((size_t)L->ngroup, sizeof *after_roots);
  if (!after_roots) tc_fail(L, (MlirOperation){NULL}, TILEC_ERROR_INTERNAL, "out of memory");
  for (int i = 0; i < L->ngroup && !L->status; i++) {
    MlirOperation op = L->group[i];
    if (!(tile_op_of(op) == TILE_LOAD)) continue;
    if (reads_group_root(L, op)) after_roots[i] = true;
    else buffer_load(L, op, nests);
  }
  for (int i = 0; i < L->ngroup && !L->status; i++) {
    MlirOperation op = L->group[i];
    if (after_roots[i]) buffer_load(L, op, nests);
    if (!is_root(op)) continue;
    L->b.loc = mlirOperationGetLocation(op);
    tc_valmap seen;
    tc_valmap_init(&seen, sizeof(int));
    if (tc_reduce_captures(L, op)) {
      /* the reduction writes its operand's buffer itself; only what that needs goes first */
      MlirValue v = mlirOperationGetOperand(op, 0);
      int *mark = tc_valmap_put(&seen, v.ptr);
      if (mark) *mark = 1;
      MlirOperation d = mlirOpResultGetOwner(v);
      for (intptr_t k2 = 0; k2 < mlirOperationGetNumOperands(d); k2++)
        materialize_shared(L, mlirOperationGetOperand(d, k2), &seen, 1);
    } else {
      for (intptr_t k2 = 0; k2 < mlirOperationGetNumOperands(op); k2++)
        materialize_shared(L, mlirOperationGetOperand(op, k2), &seen, 0);
    }
    tc_valmap_free(&seen);
    L->b.loc = mlirOperationGetLocation(op);
    const tc_op_lowering *row = tc_op_lowering_of(L, op);
    if (!row || !row->emit) {
      tc_fail(L, op, TILEC_ERROR_INTERNAL, "a root op has no loop nest");
      break;
    }
    int handled = row->emit(L, &L->group[i], L->ngroup - i);
    /* loads among the ops a root's nest took along (none today: only runs of stores) */
    for (int k = i + 1; k < i + handled && !L->status; k++)
      if (after_roots[k]) buffer_load(L, L->group[k], nests);
    i += handled - 1;
  }
  free(after_roots);
  L->b.loc = saved;
  L->ngroup = 0;
  L->group_has_store = false;
  tc_valmap_clear(&L->in_group);
}

void tc_lower_grouped(tc_lower *L, MlirOperation op) {
  if ((tile_op_of(op) == TILE_LOAD) && L->group_has_store) tc_flush(L);
  if (L->ngroup == L->capgroup) {
    int cap = L->capgroup ? 2 * L->capgroup : 64;
    MlirOperation *g = realloc(L->group, sizeof *L->group * (size_t)cap);
    if (!g) {
      tc_fail(L, op, TILEC_ERROR_INTERNAL, "out of memory");
      return;
    }
    L->group = g;
    L->capgroup = cap;
  }
  L->group[L->ngroup++] = op;
  int *mark = tc_valmap_put(&L->in_group, op.ptr);
  if (mark) *mark = 1;
  if ((tile_op_of(op) == TILE_STORE)) L->group_has_store = true;
}

/* ---- ops ---------------------------------------------------------------------------- */

static void lower_scalar_generic(tc_lower *L, MlirOperation op) {
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirValue ops[8];
  if (n > 8 || mlirOperationGetNumResults(op) != 1) {
    tc_fail(L, op, TILEC_ERROR_INTERNAL, "unexpected scalar op shape");
    return;
  }
  for (intptr_t i = 0; i < n; i++) ops[i] = tc_scalar(L, mlirOperationGetOperand(op, i));
  if (L->status) return;
  MlirValue old = mlirOperationGetResult(op, 0);
  MlirOperation nop = tc_clone_elementwise(&L->b, op, ops, tc_lower_scalar_type(L, mlirValueGetType(old)));
  tc_map_scalar(L, old, mlirOperationGetResult(nop, 0));
}

int tc_emit_materialize_source(tc_lower *L, MlirOperation *roots, int n) {
  (void)n;
  tc_materialize(L, mlirOperationGetOperand(roots[0], 0));
  return 1;
}

/* program_id, num_programs: the kernel's extra arguments (lower_func). */
void tc_lower_grid_id(tc_lower *L, MlirOperation op) {
  int axis = (int)tile_int_attr(op, "axis", 0);
  if (axis < 0 || axis > 2) axis = 0;
  bool pid = tile_op_of(op) == TILE_PROGRAM_ID;
  tc_map_scalar(L, mlirOperationGetResult(op, 0), pid ? L->pid[axis] : L->grid[axis]);
}

static void lower_return(tc_lower *L, MlirOperation op) {
  (void)op;
  for (int i = 0; i < L->ndeallocs; i++) {
    MlirValue m = mlirOperationGetResult(L->deallocs[i], 0);
    tcb_op(&L->b, "memref.dealloc", 0, NULL, 1, &m, 0, NULL);
  }
  tcb_op(&L->b, "func.return", 0, NULL, 0, NULL, 0, NULL);
}

static void lower_assume(tc_lower *L, MlirOperation op) {
  MlirValue c = tc_scalar(L, mlirOperationGetOperand(op, 0));
  MlirNamedAttribute bundles = tcb_named(L->ctx, "op_bundle_sizes", mlirDenseI32ArrayGet(L->ctx, 0, NULL));
  if (!L->status) tcb_op(&L->b, "llvm.intr.assume", 0, NULL, 1, &c, 1, &bundles);
}

static void lower_scalar_arith(tc_lower *L, MlirOperation op) {
  if (tc_op_is(op, "arith.constant")) {
    MlirValue old = mlirOperationGetResult(op, 0);
    MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
    MlirNamedAttribute na = tcb_named(L->ctx, "value", a);
    tc_map_scalar(L, old, tcb_op1(&L->b, "arith.constant", mlirValueGetType(old), 0, NULL, 1, &na));
    return;
  }
  lower_scalar_generic(L, op);
}

/* Ops of other dialects the kernels contain, by name (tile ops: op_table.c). */
static const struct {
  const char *name;
  bool flush_before;
  void (*lower)(tc_lower *L, MlirOperation op);
} other_ops[] = {
    {"func.return", true, lower_return},       {"scf.if", true, tc_lower_if},
    {"scf.for", true, tc_lower_for},           {"scf.while", true, tc_lower_while},
    {"llvm.intr.assume", false, lower_assume},
};

void tc_lower_op(tc_lower *L, MlirOperation op) {
  L->b.loc = mlirOperationGetLocation(op);
  intptr_t nres = mlirOperationGetNumResults(op);
  MlirType r0 = nres ? mlirValueGetType(mlirOperationGetResult(op, 0)) : (MlirType){NULL};
  const tc_op_lowering *row = tc_op_lowering_of(L, op);
  if (row) {
    if (row->flush_before) tc_flush(L);
    /* a lazy tile is evaluated where it is consumed; lazy roots (trans, reshape) decide */
    if (nres == 1 && is_tile(r0) && tc_is_lazy_op(op) && !is_root(op)) return;
    if (row->lower) {
      row->lower(L, op);
      return;
    }
  } else {
    for (size_t i = 0; i < sizeof other_ops / sizeof other_ops[0]; i++) {
      if (!tc_op_is(op, other_ops[i].name)) continue;
      if (other_ops[i].flush_before) tc_flush(L);
      other_ops[i].lower(L, op);
      return;
    }
    if (nres == 1 && is_tile(r0) && tc_is_lazy_op(op)) return; /* arith/math tiles: where consumed */
    if ((tc_op_in_dialect(op, "arith") || tc_op_in_dialect(op, "math")) && nres == 1) {
      lower_scalar_arith(L, op);
      return;
    }
  }
  MlirStringRef nm = mlirIdentifierStr(mlirOperationGetName(op));
  if (tc_op_user_name(op)) /* never an internal op's name */
    tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "this use of %s is not supported by the lowering yet", tc_op_user_name(op));
  else tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "'%.*s' is not supported by the lowering yet", (int)nm.length, nm.data);
}

static bool pure_cone(tc_lower *L, MlirValue v, int depth) {
  if (depth > 16) return false;
  bool tile = mlirTypeIsARankedTensor(mlirValueGetType(v));
  if (tile ? tc_special_of(L, v) != NULL : tc_valmap_get(&L->scalars, v.ptr) != NULL) return true;
  if (!mlirValueIsAOpResult(v)) return false;
  MlirOperation d = mlirOpResultGetOwner(v);
  if (tile ? !tc_is_always_lazy_op(d) : !tc_is_pure_scalar_op(d)) return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++)
    if (!pure_cone(L, mlirOperationGetOperand(d, i), depth + 1)) return false;
  if (!tile) tc_lower_op(L, d);
  return !L->status;
}

bool tc_lower_pure_cone(tc_lower *L, MlirValue v) { return pure_cone(L, v, 0); }

void tc_lower_block(tc_lower *L, MlirBlock block) {
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op) && !L->status;
       op = mlirOperationGetNextInBlock(op)) {
    if (tc_op_is(op, "scf.yield") || tc_op_is(op, "scf.condition")) break; /* handled by the region owner */
    tc_lower_op(L, op);
  }
}

/* ---- functions ---------------------------------------------------------------------- */

static MlirAttribute str_attr(MlirContext ctx, const char *s) {
  return mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(s));
}

/* On a GPU a kernel parameter is passed by value: cuLaunchKernel copies the bytes args[i]
 * points at into the parameter. A tensor descriptor argument (the front end's
 * tile.tensordesc; args[i] points at the caller's tilec_tensor_descriptor) is therefore one
 * byval parameter of the struct's 80 bytes (.param .align 8 .b8 [80] in the PTX), read
 * with ld.param, never a pointer to host memory. The arg_attrs of the lowered function
 * with llvm.byval/llvm.align there; null when the backend passes descriptors by pointer
 * (backend.h descriptors_by_value) or none is. */
_Static_assert(sizeof(tilec_tensor_descriptor) == 8 * (2 + 2 * TILEC_TENSOR_DESC_MAX_RANK),
               "the byval parameter below is the descriptor's bytes");
static MlirAttribute gpu_byval_attrs(tc_lower *L, MlirOperation fn, intptr_t n) {
  if (!L->backend->descriptors_by_value) return (MlirAttribute){NULL};
  MlirAttribute arr = mlirOperationGetAttributeByName(fn, mlirStringRefCreateFromCString("arg_attrs"));
  if (mlirAttributeIsNull(arr) || !mlirAttributeIsAArray(arr)) return (MlirAttribute){NULL};
  MlirAttribute *dicts = calloc((size_t)n, sizeof *dicts);
  if (!dicts) return (MlirAttribute){NULL};
  char desc[64];
  snprintf(desc, sizeof desc, "!llvm.array<%d x i64>", 2 + 2 * TILEC_TENSOR_DESC_MAX_RANK);
  bool any = false;
  for (intptr_t i = 0; i < n; i++) {
    MlirAttribute d = i < mlirArrayAttrGetNumElements(arr) ? mlirArrayAttrGetElement(arr, i) : (MlirAttribute){NULL};
    bool is_desc =
        !mlirAttributeIsNull(d) && mlirAttributeIsADictionary(d) &&
        !mlirAttributeIsNull(mlirDictionaryAttrGetElementByName(d, mlirStringRefCreateFromCString("tile.tensordesc")));
    if (!is_desc) {
      dicts[i] = mlirDictionaryAttrGet(L->ctx, 0, NULL);
      continue;
    }
    MlirNamedAttribute na[2] = {tcb_named(L->ctx, "llvm.byval", mlirTypeAttrGet(tcb_type(L->ctx, desc))),
                                tcb_named(L->ctx, "llvm.align", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), 8))};
    dicts[i] = mlirDictionaryAttrGet(L->ctx, 2, na);
    any = true;
  }
  MlirAttribute r = any ? mlirArrayAttrGet(L->ctx, n, dicts) : (MlirAttribute){NULL};
  free(dicts);
  return r;
}

static tilec_status *lower_func(tc_lower *L, MlirOperation fn, MlirBlock out_body) {
  MlirAttribute name_attr = mlirOperationGetAttributeByName(fn, mlirStringRefCreateFromCString("sym_name"));
  MlirStringRef name = mlirStringAttrGetValue(name_attr);
  MlirRegion region = mlirOperationGetRegion(fn, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(region);
  intptr_t nargs = mlirBlockGetNumArguments(entry);
  int extra = L->check_bounds ? 7 : 6; /* pid, grid [, extents] */
  MlirType *types = calloc((size_t)nargs + 7, sizeof *types);
  MlirLocation *locs = calloc((size_t)nargs + 7, sizeof *locs);
  if (!types || !locs) {
    free(types);
    free(locs);
    return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  }
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
  if (L->check_bounds) {
    types[nargs + 6] = tcb_type(L->ctx, "!llvm.ptr");
    locs[nargs + 6] = mlirOperationGetLocation(fn);
  }
  MlirBlock body = mlirBlockCreate(nargs + extra, types, locs);
  MlirRegion r = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(r, body);
  MlirType ftype = mlirFunctionTypeGet(L->ctx, nargs + extra, types, 0, NULL);
  char sym[256];
  snprintf(sym, sizeof sym, "__tilec_kernel_%.*s", (int)name.length, name.data);
  MlirNamedAttribute attrs[3] = {tcb_named(L->ctx, "sym_name", str_attr(L->ctx, sym)),
                                 tcb_named(L->ctx, "function_type", mlirTypeAttrGet(ftype)),
                                 {0}};
  MlirAttribute byval = gpu_byval_attrs(L, fn, nargs + extra);
  if (!mlirAttributeIsNull(byval)) attrs[2] = tcb_named(L->ctx, "arg_attrs", byval);
  tc_builder fb;
  tcb_init(&fb, L->ctx);
  fb.loc = mlirOperationGetLocation(fn);
  tcb_set_end(&fb, out_body);
  L->new_func = tcb_op_regions(&fb, "func.func", 0, NULL, 0, NULL, mlirAttributeIsNull(byval) ? 2 : 3, attrs, 1, &r);
  tcb_init(&L->b, L->ctx);
  L->b.loc = fb.loc;
  tcb_set_end(&L->b, body);
  for (intptr_t i = 0; i < nargs; i++) {
    MlirValue old = mlirBlockGetArgument(entry, i);
    MlirValue nv = mlirBlockGetArgument(body, i);
    MlirType ot = mlirValueGetType(old);
    if (tcb_is_float(ot) && tcb_bitwidth(ot) == 16) nv = tcb_cast(&L->b, "arith.bitcast", nv, ot);
    tc_map_scalar(L, old, nv);
  }
  for (int i = 0; i < 3; i++) {
    L->pid[i] = mlirBlockGetArgument(body, nargs + i);
    L->grid[i] = mlirBlockGetArgument(body, nargs + 3 + i);
  }
  L->extents = L->check_bounds ? mlirBlockGetArgument(body, nargs + 6) : (MlirValue){NULL};
  L->old_func = fn;
  free(types);
  free(locs);
  if (!mlirBlockIsNull(mlirBlockGetNextInRegion(entry)))
    return tc_lower_error(L, fn, TILEC_ERROR_UNSUPPORTED, "kernels with several blocks are not supported");
  if (L->backend->begin_kernel && !(L->backend_state = L->backend->begin_kernel(L)))
    return tc_lower_error(L, fn, TILEC_ERROR_INTERNAL, "out of memory");
  tc_checks_begin(L); /* the debug checks' per-program state (bounds.c) */
  L->chunk_bits = L->backend->kernel_chunk_bits ? L->backend->kernel_chunk_bits(L, fn) : 0;
  tc_lower_block(L, entry);
  tc_checks_end(L);
  if (L->backend->end_kernel) L->backend->end_kernel(L);
  L->backend_state = NULL;
  return L->status;
}

static bool is_kernel(MlirOperation fn) {
  /* Combine functions of reductions are private helpers, inlined by the lowering. */
  MlirAttribute v = mlirOperationGetAttributeByName(fn, mlirStringRefCreateFromCString("sym_visibility"));
  return mlirAttributeIsNull(v);
}

tilec_status *tc_lower_to_vector(MlirModule tile_module, const tc_target *target, uint32_t checks, MlirModule *out) {
  MlirContext ctx = mlirModuleGetContext(tile_module);
  tc_lower L;
  memset(&L, 0, sizeof L);
  L.ctx = ctx;
  L.target = target;
  L.backend = tc_backend_for(target);
  L.check_bounds = checks & TILEC_CHECKS_BOUNDS; /* resolved by the driver (driver/checks.c) */
  L.check_nan = checks & TILEC_CHECKS_NAN;
  L.check_races = checks & TILEC_CHECKS_RACES;
  L.check_init = checks & TILEC_CHECKS_INIT;
  tc_axis_init(&L.axis);
  tc_axis_init(&L.axis_proven);
  L.axis_proven.proven_only = true;
  tc_valmap_init(&L.scalars, sizeof(MlirValue));
  tc_valmap_init(&L.special, sizeof(tc_special));
  tc_valmap_init(&L.in_group, sizeof(int));
  tc_valmap_init(&L.views, sizeof(tc_view));
  tc_valmap_init(&L.aligned_buffers, sizeof(int));
  tc_valmap_init(&L.dot_prefetched, sizeof(int));
  /* what a kernel's lowering fills in (cleared for a retry, freed at the end) */
  tc_valmap *maps[] = {&L.scalars, &L.special, &L.in_group, &L.views, &L.aligned_buffers, &L.dot_prefetched};
  MlirModule nm = mlirModuleCreateEmpty(mlirOperationGetLocation(mlirModuleGetOperation(tile_module)));
  MlirBlock nbody = mlirModuleGetBody(nm);
  tilec_status *st = NULL;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(tile_module)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!tc_op_is(op, "func.func") || !is_kernel(op)) continue;
    L.stage_cap = 0;
    L.retries = 0;
    for (;;) {
      L.ndeallocs = 0;
      L.retry_stages = 0;
      st = lower_func(&L, op, nbody);
      /* The backend's end_kernel asks for fewer stages of the K-loop pipeline where its
       * buffers took the kernel over the chip's shared memory: the kernel again, from scratch
       * (Triton's compiler refuses such a config; tilec gives up pipeline depth first), every
       * loop's pipeline at most that deep. */
      if (!st || !L.retry_stages || mlirOperationIsNull(L.new_func)) break;
      tilec_status_destroy(st);
      st = L.status = NULL;
      mlirOperationDestroy(L.new_func);
      L.new_func = (MlirOperation){NULL};
      for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) tc_valmap_clear(maps[i]);
      L.ngroup = 0;
      L.group_has_store = L.flush_before_yield = false;
      L.stage_cap = L.retry_stages;
      L.retries++;
    }
    if (st) break;
  }
  tc_axis_free(&L.axis);
  tc_axis_free(&L.axis_proven);
  for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) tc_valmap_free(maps[i]);
  free(L.group);
  free(L.deallocs);
  if (st) {
    mlirModuleDestroy(nm);
    return st;
  }
  *out = nm;
  return NULL;
}
