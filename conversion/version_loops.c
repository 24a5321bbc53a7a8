/* conversion/version_loops.c — single-trip versions of accumulation loops (tile IR in,
 * tile IR out; the pipeline's step single-trip-loops, after dot-combine, before the lowering).
 *
 * Triton's kernels size their blocks with BLOCK = next_power_of_2(N) and still loop
 * `for off in range(0, N, BLOCK)` with a tile accumulator (the tutorial layer norm): at
 * run time the loop runs once. A loop-carried tile too large for the vector registers
 * lives in a stack buffer that is filled with the initial value, read and written by
 * every iteration and read again by whatever consumes the result (a reduction): three
 * passes over the buffer where the computation needs none.
 *
 * This step puts the kernel's code from the first such loop to its end under
 * `scf.if (each such loop runs exactly once)`. The then-branch has each of those loops
 * replaced by its body, with the induction variable at the lower bound and the carried
 * tiles at their initial values, so the carried tiles become lazily evaluated
 * expressions and the consumers read the source data directly; the else-branch is the
 * original code. Both branches compute every value with the same operations in the same
 * order, so the results are identical.
 *
 * A loop qualifies when it sits in the kernel's entry block, carries a non-pointer tile
 * larger than half the vector registers (smaller ones are carried in registers,
 * conversion/register_tiles.c), has no nested loop or dot in its body (keeping the copy
 * small) and has bounds computable before the first qualifying loop (kernel arguments,
 * values defined before it, or constants). */
#include "backend/backend.h"
#include "conversion/steps.h"
#include "conversion/valuemap.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>

#define MAX_LOOPS 8
#define MAX_COPIED_OPS 4096 /* ops (nested included) the then-branch may copy */

static bool is_tile(MlirType t) { return mlirTypeIsARankedTensor(t); }

static MlirWalkResult count_op(MlirOperation op, void *user) {
  (void)op;
  ++*(int *)user;
  return MlirWalkResultAdvance;
}

typedef struct body_check {
  bool ok;
} body_check;

static MlirWalkResult check_body_op(MlirOperation op, void *user) {
  body_check *c = user;
  if (tile_op_of(op) == TILE_DOT || tc_op_is(op, "scf.for") || tc_op_is(op, "scf.while")) {
    c->ok = false;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

/* Does the loop carry a tile the lowering would keep in a buffer (over `budget` bits: half
 * the vector registers)? */
static bool carries_large_tile(int64_t budget, MlirOperation loop) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(loop); i++) {
    MlirType t = mlirValueGetType(mlirOperationGetResult(loop, i));
    if (!is_tile(t)) continue;
    MlirType elem = mlirShapedTypeGetElementType(t);
    if (tile_type_is_ptr(elem)) continue; /* pointer tiles advance by a scalar (AFFINE) */
    int64_t shape[TC_RANK];
    int rank = tc_shape_of(t, shape);
    unsigned bits = tcb_bitwidth(elem) ? tcb_bitwidth(elem) : 64;
    if (tc_numel(rank, shape) * (int64_t)bits > budget) return true;
  }
  return false;
}

/* Is v defined before `first` (an op of block `entry`)? */
static bool defined_before(MlirValue v, MlirBlock entry, MlirOperation first) {
  if (mlirValueIsABlockArgument(v)) return mlirBlockEqual(mlirBlockArgumentGetOwner(v), entry);
  MlirOperation d = mlirOpResultGetOwner(v);
  if (!mlirBlockEqual(mlirOperationGetBlock(d), entry)) return false;
  for (MlirOperation o = mlirBlockGetFirstOperation(entry); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    if (mlirOperationEqual(o, first)) return false;
    if (mlirOperationEqual(o, d)) return true;
  }
  return false;
}

static bool is_constant(MlirValue v) {
  return mlirValueIsAOpResult(v) && tc_op_is(mlirOpResultGetOwner(v), "arith.constant");
}

/* Can v be used before `first`? Constants defined later are copied there. */
static bool available_before(MlirValue v, MlirBlock entry, MlirOperation first) {
  return is_constant(v) || defined_before(v, entry, first);
}

/* A value of the then-branch for an original value: the mapped copy, or the value itself
 * (defined before the scf.if). */
static MlirValue mapped(tc_valmap *map, MlirValue v) {
  MlirValue *m = tc_valmap_get(map, v.ptr);
  return m ? *m : v;
}

static void map_value(tc_valmap *map, MlirValue from, MlirValue to) {
  MlirValue *slot = tc_valmap_put(map, from.ptr);
  if (slot) *slot = to;
}

static MlirWalkResult remap_operands(MlirOperation op, void *user) {
  tc_valmap *map = user;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
    MlirValue v = mlirOperationGetOperand(op, i);
    MlirValue *m = tc_valmap_get(map, v.ptr);
    if (m) mlirOperationSetOperand(op, i, *m);
  }
  return MlirWalkResultAdvance;
}

/* Copies op before `before`, with operands (also those of ops in its regions) taken from
 * map; maps its results to the copy's. */
static void copy_op(MlirOperation op, MlirOperation before, tc_valmap *map) {
  MlirOperation c = mlirOperationClone(op);
  mlirOperationWalk(c, remap_operands, map, MlirWalkPreOrder);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, c);
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++)
    map_value(map, mlirOperationGetResult(op, i), mlirOperationGetResult(c, i));
}

/* The loop's body copied before `before` with the induction variable at the lower bound
 * and the carried values at their initial values; the loop's results map to the yielded. */
static void copy_single_trip(MlirOperation loop, MlirOperation before, tc_valmap *map) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  map_value(map, mlirBlockGetArgument(body, 0), mapped(map, mlirOperationGetOperand(loop, 0)));
  for (intptr_t i = 0; i < mlirOperationGetNumResults(loop); i++)
    map_value(map, mlirBlockGetArgument(body, 1 + i), mapped(map, mlirOperationGetOperand(loop, 3 + i)));
  MlirOperation o = mlirBlockGetFirstOperation(body);
  for (; !mlirOperationIsNull(o) && !tc_op_is(o, "scf.yield"); o = mlirOperationGetNextInBlock(o))
    copy_op(o, before, map);
  for (intptr_t i = 0; i < mlirOperationGetNumResults(loop); i++)
    map_value(map, mlirOperationGetResult(loop, i), mapped(map, mlirOperationGetOperand(o, i)));
}

/* lb < ub && ub - lb <= step, in i64 (scf.for's bounds are i32 or index in tile IR). */
static MlirValue runs_once(tc_builder *b, MlirValue lb, MlirValue ub, MlirValue step) {
  MlirValue v[3] = {tcb_sext_i64(b, lb), tcb_sext_i64(b, ub), tcb_sext_i64(b, step)};
  MlirValue some = tcb_cmpi(b, "slt", v[0], v[1]);
  MlirValue one = tcb_cmpi(b, "sle", tcb_binary(b, "arith.subi", v[1], v[0]), v[2]);
  return tcb_binary(b, "arith.andi", some, one);
}

static void version_function(int64_t budget, MlirOperation fn) {
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0));
  MlirOperation ret = mlirBlockGetTerminator(entry);
  if (mlirBlockIsNull(entry) || mlirOperationIsNull(ret) || mlirOperationGetNumOperands(ret) != 0) return;
  MlirOperation loops[MAX_LOOPS];
  int nloops = 0;
  MlirOperation first = {NULL};
  for (MlirOperation o = mlirBlockGetFirstOperation(entry); !mlirOperationIsNull(o) && nloops < MAX_LOOPS;
       o = mlirOperationGetNextInBlock(o)) {
    if (!tc_op_is(o, "scf.for") || !carries_large_tile(budget, o)) continue;
    if (!mlirAttributeIsNull(mlirOperationGetAttributeByName(o, mlirStringRefCreateFromCString("unsignedCmp"))))
      continue; /* the condition below compares signed */
    body_check c = {true};
    for (MlirOperation b = mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(o, 0)));
         c.ok && !mlirOperationIsNull(b); b = mlirOperationGetNextInBlock(b))
      mlirOperationWalk(b, check_body_op, &c, MlirWalkPreOrder);
    if (!c.ok) continue;
    MlirOperation at = mlirOperationIsNull(first) ? o : first;
    bool bounds = true;
    for (int i = 0; i < 3; i++) bounds = bounds && available_before(mlirOperationGetOperand(o, i), entry, at);
    if (!bounds) continue;
    if (mlirOperationIsNull(first)) first = o;
    loops[nloops++] = o;
  }
  if (!nloops) return;
  int copied = 0;
  for (MlirOperation o = first; !mlirOperationEqual(o, ret); o = mlirOperationGetNextInBlock(o))
    mlirOperationWalk(o, count_op, &copied, MlirWalkPreOrder);
  if (copied > MAX_COPIED_OPS) return;

  tc_builder b;
  tcb_init(&b, mlirOperationGetContext(fn));
  b.loc = mlirOperationGetLocation(first);
  tcb_set_before(&b, first);
  tc_valmap map;
  tc_valmap_init(&map, sizeof(MlirValue));
  /* The condition, with later-defined constant bounds copied before it. */
  MlirValue cond = {NULL};
  for (int k = 0; k < nloops; k++) {
    MlirValue v[3];
    for (int i = 0; i < 3; i++) {
      v[i] = mlirOperationGetOperand(loops[k], i);
      if (is_constant(v[i]) && !defined_before(v[i], entry, first) && !tc_valmap_get(&map, v[i].ptr))
        copy_op(mlirOpResultGetOwner(v[i]), first, &map);
      v[i] = mapped(&map, v[i]);
    }
    MlirValue once = runs_once(&b, v[0], v[1], v[2]);
    cond = mlirValueIsNull(cond) ? once : tcb_binary(&b, "arith.andi", cond, once);
  }
  tc_valmap_clear(&map);
  tc_builder then_b, else_b;
  tcb_if(&b, cond, 0, NULL, &then_b, &else_b);
  MlirOperation then_yield = tcb_op(&then_b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  MlirOperation else_yield = tcb_op(&else_b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  /* then: the code with each qualifying loop's single trip inlined */
  for (MlirOperation o = first; !mlirOperationEqual(o, ret); o = mlirOperationGetNextInBlock(o)) {
    bool single = false;
    for (int k = 0; k < nloops; k++) single = single || mlirOperationEqual(o, loops[k]);
    if (single) copy_single_trip(o, then_yield, &map);
    else copy_op(o, then_yield, &map);
  }
  /* else: the original code, moved */
  for (MlirOperation o = first; !mlirOperationEqual(o, ret);) {
    MlirOperation next = mlirOperationGetNextInBlock(o);
    mlirOperationMoveBefore(o, else_yield);
    o = next;
  }
  tc_valmap_free(&map);
}

void tc_version_single_trip_loops(const tc_target *target, MlirModule module) {
  const tc_backend *be = tc_backend_for(target);
  int64_t budget = (int64_t)be->chunk_bits(target) * be->vector_registers(target) / 2;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!tc_op_is(op, "func.func")) continue;
    MlirAttribute vis = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_visibility"));
    if (mlirAttributeIsNull(vis)) version_function(budget, op); /* kernels, not combine functions */
  }
}
