/* conversion/output_buffer.c — a reduction's captured operand kept in the memory its store
 * writes. Softmax computes exp(x - max) once, for its sum and for the store of
 * exp(x - max) / sum; the reduction captures it in a stack buffer (reduce.c), and the
 * store's nest reads it back. Writing it to the output instead and rescaling there in
 * place saves the stack buffer's write and read of every element: the C loop's shape
 * (softmax 1024x8192, 2 threads, a C model of both: 2.9-3.0 ms in place, 3.3-3.4 ms
 * through a buffer).
 *
 * The output may hold the value early only when nothing can tell: the operand feeds the
 * reduction and, through elementwise ops, that one store and nothing else; the ops
 * between the reduction and the store (same block) read memory only through tile loads;
 * the store is contiguous along a single row of the operand's element type; and at run
 * time (with --check bounds, the row must lie in its buffer: the capture's writes are not
 * checked, the store's are; --check nan and races look at the store) no load the reduction's operand, the store, or
 * the ops in between read overlaps the store's row — except that a row only the operand
 * reads may be the store's row itself (in-place softmax, out == in: each chunk is read
 * before the same chunk is written, and nothing reads the row again). Otherwise (the row
 * shifted, or read again by the store's value) the stack buffer is used: the choice is an
 * arith.select per program.
 * In: a capturing reduction and the store it feeds. Out: the buffer memref. */
#include "backend/backend.h"
#include "conversion/checks.h"
#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinTypes.h>

#define MAX_LOADS 16

typedef struct load_set {
  MlirOperation ops[MAX_LOADS];
  bool capture_only[MAX_LOADS]; /* read only by the capture pass (chunk by chunk, each
                                 * chunk before the same chunk of the row is written) */
  int64_t span[MAX_LOADS];      /* elements of the row each reads (row_span) */
  int n;
  bool failed;
} load_set;

/* capture: read only where the operand is evaluated, at the operand's position */
static void add_load(load_set *s, MlirOperation load, bool capture) {
  for (int i = 0; i < s->n; i++)
    if (mlirOperationEqual(s->ops[i], load)) {
      s->capture_only[i] = s->capture_only[i] && capture;
      return;
    }
  if (s->n == MAX_LOADS) {
    s->failed = true;
    return;
  }
  s->capture_only[s->n] = capture;
  s->ops[s->n++] = load;
}

/* The tile loads v reads through lazily evaluated ops, stopping at `stop` and at tiles
 * already in buffers (computed before). Anything else that could read memory fails.
 * same_pos: v is the capture's operand (read once, in the capture pass), or reaches it
 * through elementwise ops only: its loads are read at the capture's positions. */
static void cone_loads(tc_lower *L, MlirValue v, MlirValue stop, load_set *s, bool same_pos, int depth) {
  if (s->failed) return;
  if (depth > 64) {
    s->failed = true;
    return;
  }
  if (!mlirTypeIsARankedTensor(mlirValueGetType(v)) || mlirValueEqual(v, stop) || tc_special_of(L, v)) return;
  if (!mlirValueIsAOpResult(v)) {
    s->failed = true; /* a loop-carried tile without a buffer */
    return;
  }
  MlirOperation d = mlirOpResultGetOwner(v);
  bool load = tile_op_of(d) == TILE_LOAD;
  if (load) add_load(s, d, same_pos);
  else if (!tc_is_lazy_op(d)) {
    s->failed = true;
    return;
  }
  /* arith/math tile ops are elementwise; tile ops may move lanes (broadcast, trans, ...)
   * and a load's operands are addresses, masks and padding */
  bool elementwise = !load && (tc_op_in_dialect(d, "arith") || tc_op_in_dialect(d, "math"));
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++)
    cone_loads(L, mlirOperationGetOperand(d, i), stop, s, same_pos && elementwise, depth + 1);
}

/* Every use of v, through lazily evaluated ops, is the reduction's operand or the
 * store's value. */
static bool feeds_only(MlirValue v, MlirOperation reduce, MlirOperation store, int depth) {
  if (depth > 32) return false;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    unsigned k = mlirOpOperandGetOperandNumber(u);
    if (mlirOperationEqual(user, reduce) && k == 0) continue;
    if (mlirOperationEqual(user, store) && k == 1) continue;
    if (!tc_is_lazy_op(user) || !feeds_only(mlirOperationGetResult(user, 0), reduce, store, depth + 1)) return false;
  }
  return true;
}

/* The ops strictly between the reduction and the store: pure scalars, lazily evaluated
 * tiles, and tile loads (added to s). */
static bool between_reads_only(MlirOperation reduce, MlirOperation store, load_set *s) {
  if (!mlirBlockEqual(mlirOperationGetBlock(reduce), mlirOperationGetBlock(store))) return false;
  for (MlirOperation o = mlirOperationGetNextInBlock(reduce); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    if (mlirOperationEqual(o, store)) return true;
    if (tile_op_of(o) == TILE_LOAD && mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(o, 0))))
      add_load(s, o, false);
    else if (!tc_is_pure_scalar_op(o) && !tc_is_lazy_op(o) && !tc_op_is(o, "arith.constant")) return false;
  }
  return false;
}

/* Elements a pointer tile of one row spans from its first lane: the row (contiguous), one
 * element (uniform), or 0 when neither is proven (a promise is not enough: the span decides
 * which bytes the row may overlap). */
static int64_t row_span(tc_lower *L, MlirValue ptr) {
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(mlirValueGetType(ptr), shape);
  if (rank == 0 || tc_numel(rank - 1, shape) != 1) return 0;
  tc_axis ax = tc_axis_of(&L->axis_proven, ptr);
  int64_t n = shape[rank - 1];
  if (ax.rank != rank) return 0;
  if (ax.contiguity[rank - 1] >= n) return n;
  if (ax.constancy[rank - 1] >= n) return 1;
  return 0;
}

/* The address of a row pointer tile's first lane, and [lo, hi) of the bytes the row spans
 * as i64 addresses. */
static MlirValue byte_range(tc_chunk *c, MlirValue ptr, int64_t span, MlirValue *lo, MlirValue *hi) {
  tc_lower *L = c->L;
  int64_t shape[TC_RANK];
  tc_pos p0 = {.rank = tc_shape_of(mlirValueGetType(ptr), shape), .chunked = false};
  for (int d = 0; d < p0.rank; d++) p0.idx[d] = tcb_const_index(&c->b, 0);
  MlirType pointee = tc_memory_type(L->ctx, tile_ptr_pointee(mlirShapedTypeGetElementType(mlirValueGetType(ptr))));
  MlirType i64 = tcb_int_type(L->ctx, 64);
  MlirValue addr = tc_lane_address(c, ptr, &p0);
  *lo = tcb_cast(&c->b, "llvm.ptrtoint", addr, i64);
  *hi = tcb_binary(&c->b, "arith.addi", *lo,
                   tcb_const_int(&c->b, i64, span * (int64_t)((tcb_bitwidth(pointee) + 7) / 8)));
  return addr;
}

MlirValue tc_output_buffer(tc_lower *L, tc_builder *b, MlirOperation reduce, MlirOperation store, MlirValue stack,
                           bool rereads) {
  MlirValue none = {NULL};
  if (L->backend->alloc_shared || mlirOperationIsNull(store)) return none;
  if (L->check_bounds && tc_root_arg(L, mlirOperationGetOperand(store, 0)) < 0)
    return none; /* nothing to check against */
  MlirValue v = mlirOperationGetOperand(reduce, 0), ptr = mlirOperationGetOperand(store, 0);
  MlirValue mask = tile_store_mask(store);
  MlirType vt = mlirValueGetType(v), elem = mlirShapedTypeGetElementType(vt);
  MlirType mem = tc_memory_type(L->ctx, elem);
  if (!tc_same_shape(vt, mlirValueGetType(mlirOperationGetOperand(store, 1))) || !mlirTypeEqual(mem, elem) ||
      !mlirTypeEqual(tc_memory_type(L->ctx, tile_ptr_pointee(mlirShapedTypeGetElementType(mlirValueGetType(ptr)))),
                     mem))
    return none;
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(vt, shape);
  if (row_span(L, ptr) != shape[rank - 1] || !feeds_only(v, reduce, store, 0)) return none;
  load_set s = {.n = 0};
  if (!between_reads_only(reduce, store, &s)) return none;
  cone_loads(L, mlirOperationGetOperand(store, 1), v, &s, false, 0);
  cone_loads(L, v, none, &s, !rereads, 0);
  if (s.failed || !tc_lower_pure_cone(L, ptr) || (!mlirValueIsNull(mask) && !tc_lower_pure_cone(L, mask))) return none;
  for (int i = 0; i < s.n; i++) {
    MlirValue lp = mlirOperationGetOperand(s.ops[i], 0);
    s.span[i] = row_span(L, lp);
    if (!s.span[i] || !tc_lower_pure_cone(L, lp)) return none;
  }
  if (L->status) return none;
  /* out: the store's row; disjoint from every load's row */
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 1);
  c.b = *b;
  MlirValue slo, shi, ok = {NULL};
  MlirValue row = byte_range(&c, ptr, shape[rank - 1], &slo, &shi);
  for (int i = 0; i < s.n && !L->status; i++) {
    MlirValue lp = mlirOperationGetOperand(s.ops[i], 0), llo, lhi;
    byte_range(&c, lp, s.span[i], &llo, &lhi);
    MlirValue apart = tcb_binary(&c.b, "arith.ori", tcb_cmpi(&c.b, "ule", lhi, slo), tcb_cmpi(&c.b, "ule", shi, llo));
    if (s.capture_only[i] && s.span[i] == shape[rank - 1] &&
        mlirTypeEqual(tile_ptr_pointee(mlirShapedTypeGetElementType(mlirValueGetType(lp))),
                      tile_ptr_pointee(mlirShapedTypeGetElementType(mlirValueGetType(ptr)))))
      apart = tcb_binary(&c.b, "arith.ori", apart, tcb_cmpi(&c.b, "eq", llo, slo)); /* in place */
    ok = mlirValueIsNull(ok) ? apart : tcb_binary(&c.b, "arith.andi", ok, apart);
  }
  if (L->check_bounds) { /* an out-of-bounds row takes the stack buffer: the store reports it */
    MlirValue within = tc_bounds_bytes_within(L, &c.b, ptr, slo, shi);
    ok = mlirValueIsNull(ok) ? within : tcb_binary(&c.b, "arith.andi", ok, within);
  }
  MlirValue out = tc_memref_from_ptr(L, &c.b, row, mem);
  MlirValue buf = tcb_op1(&c.b, "memref.cast", mlirValueGetType(out), 1, &stack, 0, NULL);
  if (!mlirValueIsNull(ok)) buf = tcb_select(&c.b, ok, out, buf);
  else buf = out;
  *b = c.b;
  tc_chunk_free(&c);
  return L->status ? none : buf;
}
