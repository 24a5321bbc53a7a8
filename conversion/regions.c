/* conversion/regions.c — scf.if / scf.for / scf.while whose values may be tiles. Scalars
 * stay SSA values; a loop-carried tile advanced by a uniform step (p += BLOCK * stride)
 * becomes its initial tile plus a scalar carried in the loop, which keeps the analyses
 * (contiguity) intact; a tile the backend keeps in registers of its own (nvptx: a tl.dot
 * accumulator in the warps' MMA fragments, backend.h loop_carries) is carried as those
 * values; any other tile crossing a region boundary lives in a buffer (nvptx: each thread's
 * own, in its registers, where only nests at its positions read it: alloc_carried_tile).
 * In: old region ops. Out: the same control flow in the new function. */
#include "backend/backend.h"
#include "conversion/analyses.h"
#include "conversion/lower.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>
#include <string.h>

#define MAXC 32
/* An 'if' yields each name its branches assign (after an early return, every live name of
 * the rest of the function): real kernels reach dozens. */
#define MAX_IF_RESULTS 512

static bool is_tile(MlirType t) { return mlirTypeIsARankedTensor(t); }

static MlirOperation terminator(MlirBlock b) {
  MlirOperation last = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    last = op;
  return last;
}

/* The scalar s when v is a uniform tile splat(s) (or a splat constant). */
static MlirValue uniform_scalar(tc_lower *L, MlirValue v) {
  if (!mlirValueIsAOpResult(v)) return (MlirValue){NULL};
  MlirOperation d = mlirOpResultGetOwner(v);
  if ((tile_op_of(d) == TILE_SPLAT)) return mlirOperationGetOperand(d, 0);
  if ((tile_op_of(d) == TILE_BROADCAST)) return uniform_scalar(L, mlirOperationGetOperand(d, 0));
  return (MlirValue){NULL};
}

MlirValue tc_affine_step(tc_lower *L, MlirValue arg, MlirValue y) {
  if (!mlirValueIsAOpResult(y)) return (MlirValue){NULL};
  MlirOperation d = mlirOpResultGetOwner(y);
  if ((tile_op_of(d) == TILE_ADDPTR) && mlirValueEqual(mlirOperationGetOperand(d, 0), arg))
    return uniform_scalar(L, mlirOperationGetOperand(d, 1));
  if (tc_op_is(d, "arith.addi")) {
    if (mlirValueEqual(mlirOperationGetOperand(d, 0), arg)) return uniform_scalar(L, mlirOperationGetOperand(d, 1));
    if (mlirValueEqual(mlirOperationGetOperand(d, 1), arg)) return uniform_scalar(L, mlirOperationGetOperand(d, 0));
  }
  return (MlirValue){NULL};
}

bool tc_cone_reaches(MlirValue v, MlirValue target, bool moved_only, bool moved, int depth) {
  if (mlirValueEqual(v, target)) return !moved_only || moved;
  if (depth > 256 || !mlirValueIsAOpResult(v)) return false;
  MlirOperation d = mlirOpResultGetOwner(v);
  /* a gather's result reads its source's buffer (target's own when the source is target)
   * at the positions of its index, and its index at the result's */
  bool gather = tile_op_of(d) == TILE_GATHER;
  if (!tc_is_lazy_op(d) && !(tile_op_of(d) == TILE_LOAD) && !gather) return false;
  bool m = moved || tile_op_has(d, TILE_TRAIT_MOVES_LANES);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++)
    if (tc_cone_reaches(mlirOperationGetOperand(d, i), target, moved_only, m || (gather && i == 0), depth + 1))
      return true;
  return false;
}

static MlirValue widen_to(tc_builder *b, MlirValue v, MlirType t) {
  if (tcb_bitwidth(mlirValueGetType(v)) < tcb_bitwidth(t)) return tcb_cast(b, "arith.extsi", v, t);
  if (tcb_bitwidth(mlirValueGetType(v)) > tcb_bitwidth(t)) return tcb_cast(b, "arith.trunci", v, t);
  return v;
}

MlirType tc_affine_carry_type(tc_lower *L, MlirValue arg, MlirValue yield) {
  MlirType elem = mlirShapedTypeGetElementType(mlirValueGetType(arg));
  if (mlirValueIsNull(tc_affine_step(L, arg, yield)) || !(tile_type_is_ptr(elem) || tcb_is_int(elem)))
    return (MlirType){NULL};
  return tile_type_is_ptr(elem) ? tcb_int_type(L->ctx, 64) : elem;
}

MlirValue tc_affine_next(tc_lower *L, MlirValue delta, MlirValue arg, MlirValue yield) {
  MlirValue s = tc_scalar(L, tc_affine_step(L, arg, yield));
  if (L->status) return s;
  return tcb_binary(&L->b, "arith.addi", delta, widen_to(&L->b, s, mlirValueGetType(delta)));
}

void tc_set_affine(tc_lower *L, MlirValue old, MlirValue init, MlirValue delta, MlirValue step) {
  tc_special *s = tc_special_put(L, old);
  memset(s, 0, sizeof *s);
  s->kind = TC_SPECIAL_AFFINE;
  s->init = init;
  s->delta = delta;
  s->step = step;
}

/* CARRY_BACKEND: in registers of the backend's (backend.h, loop_carries) */
typedef enum carry_kind { CARRY_SCALAR, CARRY_AFFINE, CARRY_BUFFER, CARRY_BACKEND } carry_kind;

typedef struct carry {
  carry_kind kind;
  MlirValue buffer;
  bool private_buffer; /* CARRY_BUFFER: the backend's alloc_carried_tile (each thread's own) */
  int new_index;       /* position among the new loop's iter args */
  int nvals;           /* CARRY_BACKEND: how many, from new_index */
} carry;

/* Writes yields of buffered tiles: values that read other carried buffers (or their
 * own at moved positions) go through a temporary first. */
static void write_buffer_yields(tc_lower *L, MlirOperation loop, int n, const MlirValue *args, const MlirValue *yields,
                                const carry *cs) {
  MlirValue temps[MAXC] = {{NULL}};
  for (int i = 0; i < n; i++) {
    if (cs[i].kind != CARRY_BUFFER || mlirValueEqual(yields[i], args[i])) continue;
    bool hazard = tc_cone_reaches(yields[i], args[i], true, false, 0);
    for (int j = 0; j < n && !hazard; j++)
      if (j != i && cs[j].kind == CARRY_BUFFER && !mlirValueEqual(yields[j], args[j]))
        hazard = tc_cone_reaches(yields[i], args[j], false, false, 0);
    if (!hazard) continue;
    int64_t shape[TC_RANK];
    int rank = tc_shape_of(mlirValueGetType(yields[i]), shape);
    /* written and read only by nests over the shape: each thread's own where the carried
     * buffer is */
    if (cs[i].private_buffer) temps[i] = L->backend->alloc_carried_tile(L, loop, i);
    if (mlirValueIsNull(temps[i]))
      temps[i] = tc_alloc_buffer(L, mlirShapedTypeGetElementType(mlirValueGetType(yields[i])), tc_numel(rank, shape));
    tc_materialize_into(L, yields[i], temps[i]);
  }
  for (int i = 0; i < n; i++) {
    if (cs[i].kind != CARRY_BUFFER || mlirValueEqual(yields[i], args[i]) || !mlirValueIsNull(temps[i])) continue;
    tc_special *ys = tc_special_of(L, yields[i]);
    if (ys && ys->kind == TC_SPECIAL_BUFFER && mlirValueEqual(ys->buffer, cs[i].buffer))
      continue; /* updated in place */
    tc_materialize_into(L, yields[i], cs[i].buffer);
  }
  for (int i = 0; i < n; i++) {
    if (mlirValueIsNull(temps[i])) continue;
    /* copy temp -> carried buffer, viewing the temp as the yielded tile */
    tc_special saved = {0};
    tc_special *s = tc_special_of(L, yields[i]);
    if (s) saved = *s;
    tc_special *t = tc_special_put(L, yields[i]);
    t->kind = TC_SPECIAL_BUFFER;
    t->buffer = temps[i];
    t->init = (MlirValue){NULL};
    t->delta = (MlirValue){NULL};
    tc_materialize_into(L, yields[i], cs[i].buffer);
    t = tc_special_put(L, yields[i]);
    *t = saved;
  }
}

void tc_lower_for(tc_lower *L, MlirOperation op) {
  if (tc_lower_for_in_registers(L, op)) return;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirOperation yield = terminator(body);
  int n = (int)mlirOperationGetNumOperands(op) - 3;
  if (n > MAXC) {
    tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "loops carrying more than %d values are not supported", MAXC);
    return;
  }
  carry cs[MAXC];
  MlirValue inits[TC_MAX_ITER_ARGS], args[MAXC], yields[MAXC];
  int nnew = 0;
  const tc_loop_carries *bc = L->backend->loop_carries;
  for (int i = 0; i < n; i++) {
    MlirValue init = mlirOperationGetOperand(op, 3 + i);
    args[i] = mlirBlockGetArgument(body, 1 + i);
    yields[i] = mlirOperationGetOperand(yield, i);
    memset(&cs[i], 0, sizeof cs[i]);
    MlirType t = mlirValueGetType(init);
    int nb = bc && is_tile(t) ? bc->count(L, op, i) : 0;
    if (nb > 0 && nnew + nb + (n - 1 - i) <= TC_MAX_ITER_ARGS) {
      cs[i].kind = CARRY_BACKEND;
      cs[i].new_index = nnew;
      cs[i].nvals = nb;
      bc->init(L, op, i, inits + nnew);
      nnew += nb;
      continue;
    }
    if (!is_tile(t)) {
      cs[i].kind = CARRY_SCALAR;
      inits[nnew] = tc_scalar(L, init);
      cs[i].new_index = nnew++;
      continue;
    }
    MlirType elem = mlirShapedTypeGetElementType(t);
    MlirType delta_type = tc_affine_carry_type(L, args[i], yields[i]);
    if (!mlirTypeIsNull(delta_type)) {
      cs[i].kind = CARRY_AFFINE;
      inits[nnew] = tcb_const_int(&L->b, delta_type, 0);
      cs[i].new_index = nnew++;
      continue;
    }
    cs[i].kind = CARRY_BUFFER;
    cs[i].new_index = -1;
    /* The loop owns a private buffer: readers of init after the loop must not see the
     * loop's updates (in each thread's registers where the backend can keep it there). */
    int64_t s[TC_RANK];
    int r = tc_shape_of(t, s);
    MlirValue own = L->backend->alloc_carried_tile ? L->backend->alloc_carried_tile(L, op, i) : (MlirValue){NULL};
    cs[i].private_buffer = !mlirValueIsNull(own);
    if (mlirValueIsNull(own)) own = tc_alloc_buffer(L, elem, tc_numel(r, s));
    tc_materialize_into(L, init, own);
    cs[i].buffer = own;
  }
  if (L->status) return;
  MlirValue lb = tc_scalar(L, mlirOperationGetOperand(op, 0)), ub = tc_scalar(L, mlirOperationGetOperand(op, 1)),
            st = tc_scalar(L, mlirOperationGetOperand(op, 2));
  MlirOperation nf;
  MlirBlock nb = tc_build_for(L, &L->b, lb, ub, st, nnew, inits, &nf);
  tc_map_scalar(L, mlirBlockGetArgument(body, 0), mlirBlockGetArgument(nb, 0));
  for (int i = 0; i < n; i++) {
    if (cs[i].kind == CARRY_SCALAR) {
      tc_map_scalar(L, args[i], mlirBlockGetArgument(nb, 1 + cs[i].new_index));
    } else if (cs[i].kind == CARRY_AFFINE) {
      tc_set_affine(L, args[i], mlirOperationGetOperand(op, 3 + i), mlirBlockGetArgument(nb, 1 + cs[i].new_index),
                    tc_affine_step(L, args[i], yields[i]));
    } else if (cs[i].kind == CARRY_BACKEND) {
      MlirValue vals[TC_MAX_ITER_ARGS];
      for (int k = 0; k < cs[i].nvals; k++) vals[k] = mlirBlockGetArgument(nb, 1 + cs[i].new_index + k);
      bc->bind(L, op, i, vals);
    } else {
      tc_special *s = tc_special_put(L, args[i]);
      memset(s, 0, sizeof *s);
      s->kind = TC_SPECIAL_BUFFER;
      s->buffer = cs[i].buffer;
    }
  }
  tc_builder outer = L->b;
  tcb_set_end(&L->b, nb);
  tc_lower_block(L, body);
  L->flush_before_yield = true;
  tc_flush(L);
  L->flush_before_yield = false;
  if (L->status) return;
  L->b.loc = mlirOperationGetLocation(yield);
  MlirValue ny[TC_MAX_ITER_ARGS];
  for (int i = 0; i < n; i++) {
    if (cs[i].kind == CARRY_SCALAR) {
      ny[cs[i].new_index] = tc_scalar(L, yields[i]);
    } else if (cs[i].kind == CARRY_BACKEND) {
      bc->yield(L, op, i, ny + cs[i].new_index);
      if (L->status) return;
    } else if (cs[i].kind == CARRY_AFFINE) {
      ny[cs[i].new_index] = tc_affine_next(L, mlirBlockGetArgument(nb, 1 + cs[i].new_index), args[i], yields[i]);
      if (L->status) return;
    }
  }
  write_buffer_yields(L, op, n, args, yields, cs);
  tcb_op(&L->b, "scf.yield", 0, NULL, nnew, ny, 0, NULL);
  L->b = outer;
  for (int i = 0; i < n; i++) {
    MlirValue res = mlirOperationGetResult(op, i);
    if (cs[i].kind == CARRY_SCALAR) {
      tc_map_scalar(L, res, mlirOperationGetResult(nf, cs[i].new_index));
    } else if (cs[i].kind == CARRY_AFFINE) {
      tc_set_affine(L, res, mlirOperationGetOperand(op, 3 + i), mlirOperationGetResult(nf, cs[i].new_index),
                    (MlirValue){NULL});
    } else if (cs[i].kind == CARRY_BACKEND) {
      MlirValue vals[TC_MAX_ITER_ARGS];
      for (int k = 0; k < cs[i].nvals; k++) vals[k] = mlirOperationGetResult(nf, cs[i].new_index + k);
      bc->done(L, op, i, vals);
    } else {
      tc_special *s = tc_special_put(L, res);
      memset(s, 0, sizeof *s);
      s->kind = TC_SPECIAL_BUFFER;
      s->buffer = cs[i].buffer;
    }
  }
}

static void lower_branch(tc_lower *L, MlirBlock old, MlirBlock nb, int nres, const MlirValue *olds,
                         const MlirValue *bufs, int nscalar) {
  tcb_set_end(&L->b, nb);
  tc_lower_block(L, old);
  tc_flush(L);
  if (L->status) return;
  MlirOperation y = terminator(old);
  MlirValue ny[MAX_IF_RESULTS];
  int k = 0;
  for (int i = 0; i < nres; i++) {
    MlirValue v = mlirOperationGetOperand(y, i);
    if (is_tile(mlirValueGetType(olds[i]))) tc_materialize_into(L, v, bufs[i]);
    else ny[k++] = tc_scalar(L, v);
  }
  (void)nscalar;
  tcb_op(&L->b, "scf.yield", 0, NULL, k, ny, 0, NULL);
}

void tc_lower_if(tc_lower *L, MlirOperation op) {
  int nres = (int)mlirOperationGetNumResults(op);
  if (nres > MAX_IF_RESULTS) {
    tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "if with more than %d results", MAX_IF_RESULTS);
    return;
  }
  MlirValue olds[MAX_IF_RESULTS], bufs[MAX_IF_RESULTS];
  MlirType types[MAX_IF_RESULTS];
  int nscalar = 0;
  for (int i = 0; i < nres; i++) {
    olds[i] = mlirOperationGetResult(op, i);
    MlirType t = mlirValueGetType(olds[i]);
    if (is_tile(t)) {
      int64_t s[TC_RANK];
      int r = tc_shape_of(t, s);
      bufs[i] = tc_alloc_buffer(L, mlirShapedTypeGetElementType(t), tc_numel(r, s));
    } else {
      types[nscalar++] = tc_lower_scalar_type(L, t);
    }
  }
  MlirValue cond = tc_scalar(L, mlirOperationGetOperand(op, 0));
  if (L->status) return;
  MlirBlock then_old = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirBlock else_old = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 1));
  bool has_else = !mlirBlockIsNull(else_old);
  tc_builder tb, eb;
  MlirOperation nif = tcb_if(&L->b, cond, nscalar, types, &tb, has_else ? &eb : NULL);
  tc_builder outer = L->b;
  lower_branch(L, then_old, tb.block, nres, olds, bufs, nscalar);
  if (has_else && !L->status) lower_branch(L, else_old, eb.block, nres, olds, bufs, nscalar);
  L->b = outer;
  int k = 0;
  for (int i = 0; i < nres; i++) {
    if (is_tile(mlirValueGetType(olds[i]))) {
      tc_special *s = tc_special_put(L, olds[i]);
      memset(s, 0, sizeof *s);
      s->kind = TC_SPECIAL_BUFFER;
      s->buffer = bufs[i];
    } else {
      tc_map_scalar(L, olds[i], mlirOperationGetResult(nif, k++));
    }
  }
}

void tc_lower_while(tc_lower *L, MlirOperation op) {
  int n = (int)mlirOperationGetNumOperands(op);
  int nres = (int)mlirOperationGetNumResults(op);
  if (n > MAXC || nres != n) {
    tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "while loops carrying more than %d values, or changing their number", MAXC);
    return;
  }
  MlirBlock before = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirBlock after = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 1));
  MlirOperation cond = terminator(before);
  /* Tiles live in one buffer each, shared by the before/after arguments and the result:
   * that needs the condition to forward the before arguments unchanged (as the front end
   * emits it). */
  carry cs[MAXC];
  MlirValue inits[MAXC];
  MlirType types[MAXC];
  MlirLocation locs[MAXC];
  int nnew = 0;
  for (int i = 0; i < n; i++) {
    MlirValue v = mlirOperationGetOperand(op, i);
    MlirType t = mlirValueGetType(v);
    memset(&cs[i], 0, sizeof cs[i]);
    if (is_tile(t)) {
      if (!mlirValueEqual(mlirOperationGetOperand(cond, 1 + i), mlirBlockGetArgument(before, i))) {
        tc_fail(L, op, TILEC_ERROR_UNSUPPORTED,
                "'while' loops whose condition changes a carried tile are not supported");
        return;
      }
      int64_t sh[TC_RANK];
      int r = tc_shape_of(t, sh);
      cs[i].kind = CARRY_BUFFER;
      cs[i].new_index = -1;
      cs[i].buffer = tc_alloc_buffer(L, mlirShapedTypeGetElementType(t), tc_numel(r, sh));
      tc_materialize_into(L, v, cs[i].buffer);
      MlirValue olds[3] = {mlirBlockGetArgument(before, i), mlirBlockGetArgument(after, i),
                           mlirOperationGetResult(op, i)};
      for (int k = 0; k < 3; k++) {
        tc_special *sp = tc_special_put(L, olds[k]);
        memset(sp, 0, sizeof *sp);
        sp->kind = TC_SPECIAL_BUFFER;
        sp->buffer = cs[i].buffer;
      }
    } else {
      cs[i].kind = CARRY_SCALAR;
      cs[i].new_index = nnew;
      inits[nnew] = tc_scalar(L, v);
      types[nnew] = tc_lower_scalar_type(L, t);
      locs[nnew] = L->b.loc;
      nnew++;
    }
  }
  if (L->status) return;
  MlirBlock nb = mlirBlockCreate(nnew, types, locs);
  MlirBlock na = mlirBlockCreate(nnew, types, locs);
  MlirRegion regions[2] = {mlirRegionCreate(), mlirRegionCreate()};
  mlirRegionAppendOwnedBlock(regions[0], nb);
  mlirRegionAppendOwnedBlock(regions[1], na);
  MlirOperation nw = tcb_op_regions(&L->b, "scf.while", nnew, types, nnew, inits, 0, NULL, 2, regions);
  tc_builder outer = L->b;
  for (int i = 0; i < n; i++)
    if (cs[i].kind == CARRY_SCALAR)
      tc_map_scalar(L, mlirBlockGetArgument(before, i), mlirBlockGetArgument(nb, cs[i].new_index));
  tcb_set_end(&L->b, nb);
  tc_lower_block(L, before);
  tc_flush(L);
  if (L->status) return;
  MlirValue cops[MAXC + 1];
  int nc = 0;
  cops[nc++] = tc_scalar(L, mlirOperationGetOperand(cond, 0));
  for (int i = 0; i < n; i++)
    if (cs[i].kind == CARRY_SCALAR) cops[nc++] = tc_scalar(L, mlirOperationGetOperand(cond, 1 + i));
  tcb_op(&L->b, "scf.condition", 0, NULL, nc, cops, 0, NULL);
  for (int i = 0; i < n; i++)
    if (cs[i].kind == CARRY_SCALAR)
      tc_map_scalar(L, mlirBlockGetArgument(after, i), mlirBlockGetArgument(na, cs[i].new_index));
  tcb_set_end(&L->b, na);
  tc_lower_block(L, after);
  tc_flush(L);
  if (L->status) return;
  MlirOperation y = terminator(after);
  MlirValue args[MAXC], yields[MAXC], yops[MAXC];
  int ny = 0;
  for (int i = 0; i < n; i++) {
    args[i] = mlirBlockGetArgument(after, i);
    yields[i] = mlirOperationGetOperand(y, i);
    if (cs[i].kind == CARRY_SCALAR) yops[ny++] = tc_scalar(L, yields[i]);
  }
  write_buffer_yields(L, op, n, args, yields, cs);
  tcb_op(&L->b, "scf.yield", 0, NULL, ny, yops, 0, NULL);
  L->b = outer;
  for (int i = 0; i < n; i++)
    if (cs[i].kind == CARRY_SCALAR)
      tc_map_scalar(L, mlirOperationGetResult(op, i), mlirOperationGetResult(nw, cs[i].new_index));
}
