/* backend/nvptx_pipeline.c — tl.dot operands loaded num_stages - 1 trips ahead of the K
 * loop that consumes them (Triton's software pipelining, num_stages). In: the old operand
 * of an MMA dot (nvptx_dot.c) that is a tile load in the body of the scf.for holding the
 * dot. Out: the shared buffer holding this trip's operand, or null (the dot stages the
 * operand itself then).
 *
 * An operand qualifies when the loop writes no memory (a store between the early load and
 * its trip could change what the trip must read), its load is used only by the dot, its
 * chunks are 16 bytes the
 * axis analysis proves aligned (one cp.async each) dealt evenly to the threads, and its
 * pointer, mask and other depend on the trip only through values the lowering can move to
 * a later trip: integer scalars and carried pointer tiles that grow by a fixed amount each
 * trip (memory.c tc_trip_delta: `a_ptrs += BLOCK_K * stride_ak`, `k_left = K - kb *
 * BLOCK_K`), under tile ops evaluated where they are read. Evaluating the load "d trips
 * later" is then evaluating it with those values moved by d times their per-trip delta (the
 * lowering's scalar map and the carried tiles' affine deltas are shifted, then restored).
 *
 * Each operand gets S = num_stages buffers (the padded rows of nvptx_dot.c's staging);
 * trip t's operand is in buffer t mod S. At each trip, where the dot is:
 *   first trip:  barrier; trips 0 .. S-2 issued (one cp.async group each)
 *   cp.async.wait_group S-2; barrier   -> this trip's group has landed for every thread,
 *                                         and every warp is done with trip t-1's buffer
 *   trip t+S-1 issued into buffer (t-1) mod S; commit
 *   the MMAs read buffer t mod S
 * A trip past the loop's end issues nothing but still commits (an empty group), so every
 * thread counts the same groups. Issuing a chunk: one cp.async.cg of 16 bytes when its mask
 * (evaluated for that trip) is all true; otherwise the load, masked, through registers into
 * the buffer (a K edge) — the barrier of the trip that reads it orders that store too.
 *
 * Several dots in one loop (attention's q @ k^T and p @ v): the first pipelined one also
 * loads the later dots' operands (as they will ask for them, nvptx_dot.c's
 * tc_nvptx_dot_request: the same layout decisions) into the same groups, Triton's one wait
 * and one barrier a trip; a later dot then takes this trip's stage from the loop's group (its
 * barrier orders everything before that dot too when nothing wrote memory since). Where they
 * do not all fit at the loop's full depth, or a later dot asks otherwise than foreseen, or the
 * kernel is lowered again for its shared memory, each dot waits for its own groups the same
 * way (waiting with S-2 groups pending never leaves the trip's own group pending: the S-2
 * newer ones of that operand are already committed).
 *
 * nvptx-emu runs the same structure with the emulator's cp.async (runtime/emu.c): a chunk lands
 * in its stage at the wait_group that covers its group, not at the issue, so a read of a stage
 * without its wait, or a wait with too many groups pending, reads stale bytes there too. */
#include "backend/nvptx.h"

#include "conversion/lower.h"
#include "dialects/ir_util.h"
#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHIFTS 32
#define MAX_CHUNKS 16 /* a thread's chunks of one operand (nvptx_dot.c's MAX_STAGE) */
#define MAX_STAGES 8

/* A value the load's cone reads that changes from trip to trip. */
typedef struct shift {
  MlirValue old;   /* an integer scalar read by a tile op of the cone, or a carried affine tile */
  bool affine;     /* the latter (its special's delta moves) */
  MlirValue delta; /* per trip, i64 (null: the same every trip) */
  MlirValue saved; /* while shifted: the value (or delta) it had */
} shift;

typedef struct cone {
  MlirOperation loop;
  shift s[MAX_SHIFTS];
  int n;
} cone;

static bool add_shift(tc_lower *L, cone *c, MlirValue v, bool affine) {
  for (int i = 0; i < c->n; i++)
    if (mlirValueEqual(c->s[i].old, v)) return true;
  if (c->n == MAX_SHIFTS) return false;
  MlirValue d;
  if (!tc_trip_delta(L, &L->b, c->loop, v, &d) || L->status) return false;
  c->s[c->n++] = (shift){v, affine, d, {NULL}};
  return true;
}

/* Can old be evaluated for a later trip by shifting the values it reads (recorded in c)? */
static bool walk(tc_lower *L, cone *c, MlirValue v, int depth) {
  if (depth > 64) return false;
  if (tc_outside_loop(v, c->loop)) return true; /* the same in every trip */
  if (!mlirTypeIsARankedTensor(mlirValueGetType(v))) {
    MlirType t = mlirValueGetType(v);
    if (mlirValueIsAOpResult(v) && tc_op_is(mlirOpResultGetOwner(v), "arith.constant")) return true;
    if (!tcb_is_int(t) && !mlirTypeIsAIndex(t)) return false;
    if (!tc_valmap_get(&L->scalars, v.ptr) && !tc_lower_pure_cone(L, v)) return false;
    return add_shift(L, c, v, false);
  }
  if (mlirValueIsABlockArgument(v)) {
    tc_special *s = tc_special_of(L, v);
    if (!s || s->kind != TC_SPECIAL_AFFINE || mlirValueIsNull(s->step)) return false;
    return add_shift(L, c, v, true);
  }
  if (tc_special_of(L, v)) return false; /* held in a buffer this trip wrote */
  MlirOperation d = mlirOpResultGetOwner(v);
  bool lazy = tc_is_always_lazy_op(d) || (tile_op_of(d) == TILE_RESHAPE && tc_reshape_is_unit(d));
  if (!lazy && tile_op_has(d, TILE_TRAIT_PURE)) {
    /* a reshape or transpose may be materialized where it is read: only of values the
     * same in every trip (the front end puts `rows[:, None]` in the loop) */
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++)
      if (!tc_outside_loop(mlirOperationGetOperand(d, i), c->loop)) return false;
    return true;
  }
  if (!lazy) return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++)
    if (!walk(L, c, mlirOperationGetOperand(d, i), depth + 1)) return false;
  return true;
}

/* i64 x as a value of integer or index type t. */
static MlirValue from_i64(tc_builder *b, MlirValue x, MlirType t) {
  if (mlirTypeIsAIndex(t)) return tcb_cast(b, "arith.index_cast", x, t);
  unsigned w = tcb_bitwidth(t);
  if (w < 64) return tcb_cast(b, "arith.trunci", x, t);
  return x;
}

/* Moves c's values `trips` (i64) trips on, at b; unshift puts them back. */
static void shift_cone(tc_lower *L, tc_builder *b, cone *c, MlirValue trips) {
  for (int i = 0; i < c->n; i++) {
    shift *s = &c->s[i];
    if (mlirValueIsNull(s->delta)) continue;
    MlirValue by = tcb_binary(b, "arith.muli", trips, s->delta);
    if (s->affine) {
      tc_special *sp = tc_special_of(L, s->old);
      s->saved = sp->delta;
      sp->delta = tcb_binary(b, "arith.addi", sp->delta, from_i64(b, by, mlirValueGetType(sp->delta)));
    } else {
      s->saved = tc_scalar(L, s->old);
      tc_map_scalar(L, s->old, tcb_binary(b, "arith.addi", s->saved, from_i64(b, by, mlirValueGetType(s->saved))));
    }
  }
}

static void unshift_cone(tc_lower *L, cone *c) {
  for (int i = 0; i < c->n; i++) {
    shift *s = &c->s[i];
    if (mlirValueIsNull(s->delta)) continue;
    if (s->affine) tc_special_of(L, s->old)->delta = s->saved;
    else tc_map_scalar(L, s->old, s->saved);
  }
}

/* One pipelined operand. */
typedef struct pipe_operand {
  MlirValue old; /* the tile load */
  MlirType elem;
  int64_t w, per_row, u, stride; /* lanes a chunk, chunks a row, chunks a thread, buffer row */
  bool swizzled;                 /* wgmma's swizzled layout, not padded rows: chunk_at */
  MlirValue bufs;                /* the S stages, one after the other */
  int64_t stage_elems;
  cone cone;
} pipe_operand;

/* The buffer of stage `stage` (index): a view at its offset in the operand's S stages. Its
 * address is the stages' (a constant place in shared memory) plus the stage's bytes, so the
 * addresses derived from it stay 32-bit shared ones (a select among S buffers was a 64-bit
 * generic pointer, and every ldmatrix address with it). */
static MlirValue stage_buffer(tc_lower *L, tc_builder *b, const pipe_operand *o, MlirValue stage) {
  MlirType mem = tc_memory_type(L->ctx, o->elem);
  int64_t bytes = o->stage_elems * (16 / o->w);
  MlirValue base = tcb_op1(b, "memref.extract_aligned_pointer_as_index", tcb_index(L->ctx), 1, &o->bufs, 0, NULL);
  MlirValue at = tcb_binary(b, "arith.addi", base, tcb_binary(b, "arith.muli", stage, tcb_const_index(b, bytes)));
  MlirValue p = tcb_cast(b, "llvm.inttoptr", tcb_cast(b, "arith.index_cast", at, tcb_int_type(L->ctx, 64)),
                         tcb_type(L->ctx, "!llvm.ptr"));
  return tc_memref_from_ptr(L, b, p, mem);
}

typedef struct pipe_loop {
  MlirValue iv, lb, ub, step; /* lowered, the loop's own type */
  MlirValue trip;             /* (iv - lb) / step: i32 for a loop of 32 bits or fewer, else index */
  int S;
} pipe_loop;

/* The stage of trip trip + k (k of the trip's type), an index: (trip + k) mod S, in 32 bits
 * where the loop's are (a 64-bit unsigned modulo by a constant is four wide multiplies). */
static MlirValue stage_of(tc_lower *L, tc_builder *b, const pipe_loop *pl, MlirValue k) {
  MlirValue t = mlirValueIsNull(k) ? pl->trip : tcb_binary(b, "arith.addi", pl->trip, k);
  MlirType tt = mlirValueGetType(pl->trip);
  MlirValue st =
      tcb_binary(b, "arith.remui", t, mlirTypeIsAIndex(tt) ? tcb_const_index(b, pl->S) : tcb_const_int(b, tt, pl->S));
  return mlirTypeIsAIndex(tt) ? st : tcb_cast(b, "arith.index_castui", st, tcb_index(L->ctx));
}

/* Chunk tid + off of operand o (the thread's chunks are tid, tid + threads, ...), in row
 * order: its position in the tile and its element index in a stage buffer. Padded rows: rows
 * `stride` elements apart. Swizzled (wgmma's canonical layouts, tc_nvptx_pipeline_operands' swizzled; the stages
 * 1024-byte aligned): a row's 16-byte chunks go in atoms of 8 rows x A bytes, A = the row's
 * bytes up to 128 (cpa = A / 16 chunks a row of an atom; a longer row takes several atoms side
 * by side, na of them), atom (r / 8, c / cpa) at chunk ((r / 8) na + c / cpa) 8 cpa; in it row
 * r % 8 at (r % 8) cpa and chunk c % cpa at (c % cpa) ^ ((r % 8) cpa / 8 mod cpa): bits 4.. of
 * the byte offset XOR bits 7.. (the hardware's 32-, 64- or 128-byte swizzle). A warp's 16-byte
 * stores of 8 consecutive chunks land in 8 different 16-byte bank groups. */
static void chunk_at(tc_builder *b, const pipe_operand *o, MlirValue tid, MlirValue off, tc_pos *pos, MlirValue *at) {
  MlirValue ch = tcb_binary(b, "arith.addi", tid, off);
  *pos = (tc_pos){.rank = 2, .chunked = true};
  pos->idx[0] = tcb_binary(b, "arith.divui", ch, tcb_const_index(b, o->per_row));
  MlirValue c = tcb_binary(b, "arith.remui", ch, tcb_const_index(b, o->per_row));
  pos->idx[1] = tcb_binary(b, "arith.muli", c, tcb_const_index(b, o->w));
  if (!o->swizzled) {
    *at = tcb_binary(b, "arith.addi", tcb_binary(b, "arith.muli", pos->idx[0], tcb_const_index(b, o->stride)),
                     pos->idx[1]);
    return;
  }
  *at = tc_nvptx_swizzled_at(b, o->per_row, o->w, pos->idx[0], c);
}

bool tc_nvptx_swizzle_fits(int64_t rows, int64_t per_row) {
  return rows % 8 == 0 && (per_row == 2 || per_row == 4 || (per_row > 0 && per_row % 8 == 0));
}

MlirValue tc_nvptx_swizzled_at(tc_builder *b, int64_t per_row, int64_t w, MlirValue r, MlirValue c) {
  int64_t cpa = per_row < 8 ? per_row : 8, na = per_row / cpa;
  MlirValue r8 = tcb_binary(b, "arith.remui", r, tcb_const_index(b, 8));
  MlirValue atom = tcb_binary(
      b, "arith.addi",
      tcb_binary(b, "arith.muli", tcb_binary(b, "arith.divui", r, tcb_const_index(b, 8)), tcb_const_index(b, na)),
      tcb_binary(b, "arith.divui", c, tcb_const_index(b, cpa)));
  MlirValue f = tcb_binary(
      b, "arith.remui",
      tcb_binary(b, "arith.divui", tcb_binary(b, "arith.muli", r8, tcb_const_index(b, cpa)), tcb_const_index(b, 8)),
      tcb_const_index(b, cpa));
  MlirValue cw = tcb_binary(b, "arith.xori", tcb_binary(b, "arith.remui", c, tcb_const_index(b, cpa)), f);
  MlirValue u = tcb_binary(b, "arith.addi",
                           tcb_binary(b, "arith.addi", tcb_binary(b, "arith.muli", atom, tcb_const_index(b, 8 * cpa)),
                                      tcb_binary(b, "arith.muli", r8, tcb_const_index(b, cpa))),
                           cw);
  return tcb_binary(b, "arith.muli", u, tcb_const_index(b, w));
}

/* Is a load's `other` zero in every bit (+0.0 or integer 0, splat), or absent (masked lanes
 * undefined)? Then a masked chunk may be cp.async's zero fill. */
static bool other_is_zero_fill(MlirOperation load) {
  MlirValue v = tile_load_other(load);
  return mlirValueIsNull(v) || tc_is_zero_splat(v, true);
}

/* One chunk into the buffer: cp.async.cg of 16 bytes, of src_size of them (the rest zero
 * filled) when src_size is given. nvptx-emu: the emulator's cp.async, which lands the chunk
 * at the wait_group that covers it (runtime/emu.c), as late as a GPU may. */
static void copy_chunk(tc_lower *L, tc_builder *b, MlirValue dst, MlirValue at, MlirValue src, MlirValue in) {
  MlirType i32 = tcb_int_type(L->ctx, 32);
  MlirValue size =
      mlirValueIsNull(in) ? (MlirValue){NULL} : tcb_select(b, in, tcb_const_int(b, i32, 16), tcb_const_int(b, i32, 0));
  if (L->target->gpu_emulation) {
    MlirValue args[3] = {tc_nvptx_shared_address(L, b, dst, at), src,
                         mlirValueIsNull(size) ? tcb_const_int(b, i32, 16) : size};
    tc_call_runtime(L, b, "tilec_rt_emu_cp_async", 3, args);
    return;
  }
  MlirValue ops[3] = {tc_nvptx_shared_address(L, b, dst, at),
                      tcb_cast(b, "llvm.addrspacecast", src, tcb_type(L->ctx, "!llvm.ptr<1>")), size};
  MlirNamedAttribute ca[2] = {tcb_named(L->ctx, "size", mlirIntegerAttrGet(i32, 16)),
                              tcb_named(L->ctx, "modifier", tcb_attr(L->ctx, "#nvvm<load_cache_modifier cg>"))};
  tcb_op(b, "nvvm.cp.async.shared.global", 0, NULL, mlirValueIsNull(in) ? 2 : 3, ops, 2, ca);
}

/* The chunks of operand o for trip `trip + trips` into its stage buffer (at b). When the
 * load's mask is true on all of the thread's chunks (every trip inside a matmul's edges),
 * one cp.async each. Else, when the mask is the same over each chunk (the axis analysis)
 * and the masked value zero (or undefined), still one cp.async each, with a source size of
 * 0 where the chunk is masked off (zero filled, nothing read: Triton's form; no branch);
 * otherwise each chunk through registers, masked, behind a branch. */
static void issue_operand(tc_lower *L, tc_builder *b, const pipe_loop *pl, pipe_operand *o, MlirValue trips) {
  MlirValue dst = stage_buffer(L, b, o, stage_of(L, b, pl, from_i64(b, trips, mlirValueGetType(pl->trip))));
  shift_cone(L, b, &o->cone, trips);
  MlirOperation load = mlirOpResultGetOwner(o->old);
  MlirValue mask = tile_load_mask(load), ptr = mlirOperationGetOperand(load, 0);
  MlirValue tid = tc_nvptx_thread_id(L, b);
  int64_t nthreads = tc_target_threads(L->target);
  MlirNamedAttribute al = tcb_named(L->ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), 16));
  tc_pos pos[MAX_CHUNKS];
  MlirValue at[MAX_CHUNKS], in[MAX_CHUNKS], full = {NULL};
  bool uniform = !mlirValueIsNull(mask) && tc_axis_of(&L->axis, mask).constancy[1] % o->w == 0;
  bool zero_fill = uniform && other_is_zero_fill(load);
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, o->w);
  c.b = *b;
  for (int64_t k = 0; k < o->u && !L->status; k++) {
    in[k] = (MlirValue){NULL};
    chunk_at(&c.b, o, tid, tcb_const_index(&c.b, k * nthreads), &pos[k], &at[k]);
    if (mlirValueIsNull(mask)) continue;
    MlirValue f;
    if (uniform) { /* the chunk's first lane says it for all (the axis analysis) */
      tc_pos lane = tc_pos_with(&pos[k], false);
      f = tc_eval(&c, mask, &lane).vec;
    } else {
      MlirValue m = tc_eval(&c, mask, &pos[k]).vec;
      if (L->status) break;
      MlirNamedAttribute kind = tcb_named(L->ctx, "kind", tcb_attr(L->ctx, "#vector.kind<and>"));
      f = tcb_op1(&c.b, "vector.reduction", tcb_int_type(L->ctx, 1), 1, &m, 1, &kind);
    }
    if (L->status) break;
    in[k] = f;
    full = k ? tcb_binary(&c.b, "arith.andi", full, f) : f;
  }
  if (zero_fill && !L->status) { /* in the same context: the masks' values are at hand */
    for (int64_t k = 0; k < o->u && !L->status; k++) {
      tc_pos lane = tc_pos_with(&pos[k], false);
      MlirValue src = tc_lane_address(&c, ptr, &lane);
      if (!L->status) copy_chunk(L, &c.b, dst, at[k], src, in[k]);
    }
    *b = c.b;
    tc_chunk_free(&c);
    unshift_cone(L, &o->cone);
    return;
  }
  *b = c.b;
  tc_chunk_free(&c);
  if (L->status) return;
  tc_builder fb = *b, gb;
  if (!mlirValueIsNull(mask)) tcb_if(b, full, 0, NULL, &fb, &gb);
  tc_chunk f;
  tc_chunk_init(&f, L, fb.block, o->w);
  f.b = fb;
  for (int64_t k = 0; k < o->u && !L->status; k++) {
    tc_pos lane = tc_pos_with(&pos[k], false);
    MlirValue src = tc_lane_address(&f, ptr, &lane);
    if (!L->status) copy_chunk(L, &f.b, dst, at[k], src, (MlirValue){NULL});
  }
  if (mlirValueIsNull(mask)) *b = f.b;
  else tcb_op(&f.b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tc_chunk_free(&f);
  if (!mlirValueIsNull(mask) && !L->status) {
    /* an edge: chunk by chunk through registers, masked, in a loop (unrolled, its per-chunk
     * addresses would be hoisted out of the K loop, registers the fast path needs) */
    MlirOperation kloop;
    MlirBlock kb = tc_build_for(L, &gb, tcb_const_index(&gb, 0), tcb_const_index(&gb, o->u), tcb_const_index(&gb, 1), 0,
                                NULL, &kloop);
    tc_nvptx_unroll(L, kloop, false);
    tc_chunk g;
    tc_chunk_init(&g, L, kb, o->w);
    tcb_init(&g.b, L->ctx);
    g.b.loc = b->loc;
    tcb_set_end(&g.b, kb);
    tc_pos gp;
    MlirValue gat;
    chunk_at(&g.b, o, tc_nvptx_thread_id(L, &g.b),
             tcb_binary(&g.b, "arith.muli", mlirBlockGetArgument(kb, 0), tcb_const_index(&g.b, nthreads)), &gp, &gat);
    MlirValue v = tc_eval(&g, o->old, &gp).vec;
    if (!L->status) {
      MlirValue ops[3] = {v, dst, gat};
      tcb_op(&g.b, "vector.store", 0, NULL, 3, ops, 1, &al);
      tcb_op(&g.b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    }
    tc_chunk_free(&g);
    tcb_op(&gb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  }
  unshift_cone(L, &o->cone);
}

/* Trip trip + trips of every operand (when that trip exists), then the group's commit. */
static void issue(tc_lower *L, tc_builder *b, const pipe_loop *pl, pipe_operand *ops, int n, MlirValue trips) {
  MlirType t = mlirValueGetType(pl->iv);
  MlirValue later = tcb_binary(b, "arith.addi", pl->iv, tcb_binary(b, "arith.muli", from_i64(b, trips, t), pl->step));
  tc_builder ib;
  tcb_if(b, tcb_cmpi(b, "slt", later, pl->ub), 0, NULL, &ib, NULL);
  for (int i = 0; i < n && !L->status; i++) issue_operand(L, &ib, pl, &ops[i], trips);
  tcb_op(&ib, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  if (L->target->gpu_emulation) tc_call_runtime(L, b, "tilec_rt_emu_cp_async_commit", 0, NULL);
  else tcb_op(b, "nvvm.cp.async.commit.group", 0, NULL, 0, NULL, 0, NULL);
}

static MlirWalkResult find_write(MlirOperation op, void *user) {
  if (!tile_op_has(op, TILE_TRAIT_WRITES)) return MlirWalkResultAdvance;
  *(bool *)user = true;
  return MlirWalkResultInterrupt;
}

/* Does the loop write memory (a store or an atomic in its body)? A later trip's operand,
 * loaded S - 1 trips early, could then miss what the trips between write. */
static bool loop_writes(MlirOperation loop) {
  bool w = false;
  mlirOperationWalk(loop, find_write, &w, MlirWalkPreOrder);
  return w;
}

/* Can operand `old` of dot be pipelined (see the top)? Fills o but its buffers. */
static bool qualifies(tc_lower *L, MlirOperation dot, MlirOperation loop, MlirValue old, bool swizzled,
                      pipe_operand *o) {
  if (!mlirValueIsAOpResult(old) || tile_op_of(mlirOpResultGetOwner(old)) != TILE_LOAD) return false;
  MlirOperation load = mlirOpResultGetOwner(old);
  if (!mlirBlockEqual(mlirOperationGetBlock(load), mlirOperationGetBlock(dot)) || tc_special_of(L, old)) return false;
  MlirOpOperand use = mlirValueGetFirstUse(old);
  if (mlirOpOperandIsNull(use) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use))) return false;
  MlirType t = mlirValueGetType(old);
  int64_t shape[TC_RANK];
  if (tc_shape_of(t, shape) != 2) return false;
  o->old = old;
  o->swizzled = swizzled;
  o->elem = mlirShapedTypeGetElementType(t);
  MlirType mem = tc_memory_type(L->ctx, o->elem);
  unsigned bits = tcb_bitwidth(mem);
  if (bits != 8 && bits != 16 && bits != 32) return false;
  o->w = 128 / bits;
  int64_t nthreads = tc_target_threads(L->target);
  if (shape[1] % o->w) return false;
  o->per_row = shape[1] / o->w;
  if (swizzled && !tc_nvptx_swizzle_fits(shape[0], o->per_row)) return false;
  int64_t total = shape[0] * o->per_row;
  o->u = total / nthreads;
  if (total % nthreads || o->u < 1 || o->u > MAX_CHUNKS) return false;
  MlirValue ptr = mlirOperationGetOperand(load, 0);
  tc_chunk c;
  tc_chunk_init(&c, L, L->b.block, o->w);
  int64_t align = tc_chunk_alignment(&c, ptr, mem);
  tc_chunk_free(&c);
  if (align != 16) return false;
  o->cone = (cone){.loop = loop};
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(load); i++)
    if (!walk(L, &o->cone, mlirOperationGetOperand(load, i), 0) || L->status) return false;
  return true;
}

/* A loop's group (see the top): the operands its first pipelined dot took for the later
 * ones, in scope in `block` and inside. */
#define MAX_GROUP 4 /* operands a group loads: two dots' */
#define MAX_GROUPS 16
typedef struct pipe_group {
  MlirOperation nloop; /* the lowered loop (a body lowered twice has two) */
  MlirBlock block;
  MlirOperation end; /* the first dot's last op: a later one checks what ran since */
  int n;
  struct taken {
    MlirOperation dot;
    MlirValue old;
    bool swizzled;
    int64_t bank;
    MlirValue buf; /* this trip's stage */
    int64_t stride;
  } t[MAX_GROUP];
} pipe_group;
typedef struct pipe_groups {
  int n;
  pipe_group g[MAX_GROUPS];
} pipe_groups;

static pipe_group *group_of(tc_lower *L, MlirOperation nloop) {
  pipe_groups *gs = tc_nvptx_kernel_of(L)->pipes;
  for (int i = 0; gs && i < gs->n; i++)
    if (mlirOperationEqual(gs->g[i].nloop, nloop)) return &gs->g[i];
  return NULL;
}

/* A later dot's operands olds[0..n) from its loop's group, when the group took every one of
 * them in the layout asked (bufs, strides; how many). */
static int serve(tc_lower *L, const pipe_group *g, MlirOperation dot, const MlirValue *olds, const int64_t *banks,
                 int n, bool swizzled, MlirValue *bufs, int64_t *strides) {
  if (!tc_block_encloses(g->block, L->b.block)) return 0;
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (mlirValueIsNull(olds[i])) continue;
    const struct taken *t = NULL;
    for (int j = 0; j < g->n && !t; j++)
      if (mlirOperationEqual(g->t[j].dot, dot) && mlirValueEqual(g->t[j].old, olds[i]) &&
          g->t[j].swizzled == swizzled && (swizzled || g->t[j].bank == banks[i]))
        t = &g->t[j];
    if (!t) return 0;
    bufs[i] = t->buf, strides[i] = t->stride, m++;
  }
  return m;
}

/* Fills o (but its buffers) for operand old of dot when it qualifies, with its stage's size. */
static bool take(tc_lower *L, MlirOperation dot, MlirOperation loop, MlirValue old, bool swizzled, int64_t bank,
                 pipe_operand *o, int64_t *stage_bytes) {
  if (!qualifies(L, dot, loop, old, swizzled, o)) return false;
  int64_t shape[TC_RANK];
  tc_shape_of(mlirValueGetType(old), shape);
  int64_t eb = 16 / o->w; /* bytes an element: a chunk is 16 */
  o->stride = swizzled ? 0 : tc_nvptx_operand_stride(shape[1], (unsigned)(8 * eb), bank);
  /* stages 128-byte aligned (each a whole number of 128-byte lines: cp.async's 16-byte
   * destinations and ldmatrix's rows keep their alignment and banks in every stage);
   * swizzled ones 1024 (the 128-byte swizzle's period: the hardware swizzles by address) */
  int64_t line = swizzled ? 1024 : 128;
  o->stage_elems = (shape[0] * (swizzled ? shape[1] : o->stride) * eb + line - 1) / line * line / eb;
  *stage_bytes += o->stage_elems * eb;
  return true;
}

int tc_nvptx_pipeline_operands(tc_lower *L, MlirOperation dot, const MlirValue *olds, const int64_t *banks, int n,
                               bool swizzled, MlirValue *bufs, int64_t *strides, bool *fenced) {
  for (int i = 0; i < n; i++) bufs[i] = (MlirValue){NULL};
  *fenced = false;
  MlirOperation loop = mlirOperationGetParentOperation(dot);
  if (mlirOperationIsNull(loop) || !tc_op_is(loop, "scf.for") || n > 2 || L->check_bounds || L->check_nan ||
      L->check_races || L->check_init || tc_nvptx_alone(L) || loop_writes(loop))
    return 0;
  /* the lowered loop: every use of the stages is inside it (end_kernel packs them by it) */
  MlirOperation nloop = mlirBlockGetParentOperation(L->b.block);
  while (!mlirOperationIsNull(nloop) && !tc_op_is(nloop, "scf.for")) nloop = mlirOperationGetParentOperation(nloop);
  pipe_group *g = mlirOperationIsNull(nloop) ? NULL : group_of(L, nloop);
  if (g) { /* a later dot: its operands from the group, published by the first dot's barrier */
    int m = serve(L, g, dot, olds, banks, n, swizzled, bufs, strides);
    /* ... with nothing written since that another thread might read here */
    if (m) *fenced = !tc_nvptx_writes_memory(g->end, &L->b);
    if (m) return m;
  }
  /* the loop's tl.range(..., num_stages=N), else the kernel's; a retry's cap (conversion/lower.c) */
  int S = L->target->num_stages ? L->target->num_stages : TC_DEFAULT_NUM_STAGES;
  MlirAttribute own = mlirOperationGetAttributeByName(loop, mlirStringRefCreateFromCString(TILE_LOOP_STAGES_ATTR));
  if (!mlirAttributeIsNull(own) && mlirAttributeIsAInteger(own)) S = (int)mlirIntegerAttrGetValueInt(own);
  if (L->stage_cap && S > L->stage_cap) S = L->stage_cap;
  if (S < 2 || S > MAX_STAGES) return 0;
  pipe_operand ops[MAX_GROUP];
  int idx[MAX_GROUP], m = 0;
  int64_t stage_bytes = 0;
  for (int i = 0; i < n && !L->status; i++) {
    if (mlirValueIsNull(olds[i])) continue;
    if (!take(L, dot, loop, olds[i], swizzled, banks[i], &ops[m], &stage_bytes)) {
      if (swizzled) return 0; /* all or none: the caller stages them its other way */
      continue;
    }
    idx[m++] = i;
  }
  if (!m || L->status) return 0;
  /* The first pipelined dot of the loop also loads the later dots' operands (as they will ask
   * for them: tc_nvptx_dot_request) into the same groups: one wait and one barrier a trip. */
  int mine = m; /* this dot's */
  int64_t own_bytes = stage_bytes;
  MlirOperation later[MAX_GROUP];
  int64_t later_bank[MAX_GROUP];
  pipe_groups *gs = tc_nvptx_kernel_of(L)->pipes;
  /* (not in a kernel lowered again for its shared memory: the groups' sizes are known before
   * what the later dots stage, which the separate groups' room counted) */
  bool group = !g && !mlirOperationIsNull(nloop) && (!gs || gs->n < MAX_GROUPS) && !L->retries;
  for (MlirOperation e = mlirOperationGetNextInBlock(dot); group && !mlirOperationIsNull(e) && !L->status;
       e = mlirOperationGetNextInBlock(e)) {
    tc_pipe_request r;
    if (tile_op_of(e) != TILE_DOT || !tc_nvptx_dot_request(L, e, &r)) continue;
    int64_t sb = 0;
    int k = 0;
    pipe_operand tmp[2];
    bool sw = r.try_wg;
    for (int i = 0; sw && i < 2; i++) /* wgmma's layouts: all of them, or none */
      if (!mlirValueIsNull(r.wg[i])) {
        if (m + k == MAX_GROUP || !take(L, e, loop, r.wg[i], true, 0, &tmp[k], &sb)) sw = false;
        else later_bank[m + k++] = 0;
      }
    if (!sw) { /* else padded rows: each that qualifies */
      k = 0, sb = 0;
      for (int i = 0; i < 2; i++)
        if (!mlirValueIsNull(r.olds[i]) && m + k < MAX_GROUP &&
            take(L, e, loop, r.olds[i], false, r.banks[i], &tmp[k], &sb))
          later_bank[m + k++] = r.banks[i];
    }
    for (int i = 0; i < k; i++) later[m] = e, ops[m++] = tmp[i];
    stage_bytes += sb;
  }
  if (L->status) return 0;
  /* as many stages as the chip's shared memory leaves room for (at least 2); the later dots'
   * operands stay out (they pipeline apart) unless all fit at the loop's full depth */
  int64_t room = tc_nvptx_shared_limit(L) - tc_nvptx_shared_live(L);
  if (S * stage_bytes > room) m = mine, stage_bytes = own_bytes;
  while (S > 2 && S * stage_bytes > room) S--;
  if (S * stage_bytes > room) return 0;
  if (S > tc_nvptx_kernel_of(L)->stages) tc_nvptx_kernel_of(L)->stages = S;
  tc_builder *b = &L->b;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  pipe_loop pl = {tc_scalar(L, mlirBlockGetArgument(body, 0)),
                  tc_scalar(L, mlirOperationGetOperand(loop, 0)),
                  tc_scalar(L, mlirOperationGetOperand(loop, 1)),
                  tc_scalar(L, mlirOperationGetOperand(loop, 2)),
                  {NULL},
                  S};
  if (L->status) return 0;
  for (int j = 0; j < m; j++) {
    ops[j].bufs = ops[j].swizzled ? tc_nvptx_alloc_aligned(L, ops[j].elem, S * ops[j].stage_elems, 1024)
                                  : tc_alloc_buffer(L, ops[j].elem, S * ops[j].stage_elems);
    if (!mlirOperationIsNull(nloop)) tc_nvptx_shared_in_loop(L, ops[j].bufs, nloop);
  }
  if (L->status) return 0;
  MlirType i64 = tcb_int_type(L->ctx, 64), lt = mlirValueGetType(pl.iv);
  /* the trip in the loop's own 32 bits (or fewer, widened), else as an index */
  MlirType tt = !mlirTypeIsAIndex(lt) && tcb_bitwidth(lt) <= 32 ? tcb_int_type(L->ctx, 32) : tcb_index(L->ctx);
  MlirValue ops3[3] = {pl.iv, pl.lb, pl.step};
  for (int i = 0; i < 3; i++)
    ops3[i] = mlirTypeIsAIndex(tt)    ? tcb_cast(b, "arith.index_cast", ops3[i], tt)
              : tcb_bitwidth(lt) < 32 ? tcb_cast(b, "arith.extsi", ops3[i], tt)
                                      : ops3[i];
  pl.trip = tcb_binary(b, "arith.divui", tcb_binary(b, "arith.subi", ops3[0], ops3[1]), ops3[2]);
  MlirValue zero_trip = mlirTypeIsAIndex(tt) ? tcb_const_index(b, 0) : tcb_const_int(b, tt, 0);
  /* the first trip: trips 0 .. S-2, after every warp is done with the buffers (an outer loop's last trip) */
  tc_builder fb;
  tcb_if(b, tcb_cmpi(b, "eq", pl.trip, zero_trip), 0, NULL, &fb, NULL);
  tc_nvptx_barrier(L, &fb);
  MlirOperation pro_loop;
  MlirBlock pro = tc_build_for(L, &fb, tcb_const_index(&fb, 0), tcb_const_index(&fb, S - 1), tcb_const_index(&fb, 1), 0,
                               NULL, &pro_loop);
  /* not unrolled: each stage's destinations would be addresses of their own, hoisted out of
   * the K loop by LLVM and kept through it (attention: 16 registers, spilled) */
  tc_nvptx_unroll(L, pro_loop, false);
  tc_builder pb;
  tcb_init(&pb, L->ctx);
  pb.loc = b->loc;
  tcb_set_end(&pb, pro);
  issue(L, &pb, &pl, ops, m, tcb_cast(&pb, "arith.index_cast", mlirBlockGetArgument(pro, 0), i64));
  tcb_op(&pb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tcb_op(&fb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  /* this trip's group has landed; every warp is done with trip - 1's buffers */
  if (L->target->gpu_emulation) {
    MlirValue pending = tcb_const_int(b, tcb_int_type(L->ctx, 32), S - 2);
    tc_call_runtime(L, b, "tilec_rt_emu_cp_async_wait", 1, &pending);
  } else {
    MlirNamedAttribute na = tcb_named(L->ctx, "n", mlirIntegerAttrGet(tcb_int_type(L->ctx, 32), S - 2));
    tcb_op(b, "nvvm.cp.async.wait.group", 0, NULL, 0, NULL, 1, &na);
    /* wgmma reads the stages through the async proxy: this thread's copies (generic proxy)
     * are made visible to it before the barrier that publishes them */
    bool any_swizzled = false;
    for (int j = 0; j < m; j++) any_swizzled |= ops[j].swizzled;
    if (any_swizzled) tc_nvptx_asm(L, b, "fence.proxy.async.shared::cta;");
  }
  tc_nvptx_barrier(L, b);
  issue(L, b, &pl, ops, m, tcb_const_int(b, i64, S - 1));
  MlirValue cur = stage_of(L, b, &pl, (MlirValue){NULL});
  for (int j = 0; j < mine; j++) {
    bufs[idx[j]] = stage_buffer(L, b, &ops[j], cur);
    strides[idx[j]] = ops[j].stride;
  }
  if (L->status) return 0;
  if (m > mine) { /* the group, for the later dots */
    if (!gs && !(gs = tc_nvptx_kernel_of(L)->pipes = calloc(1, sizeof(pipe_groups)))) {
      tc_fail_here(L, TILEC_ERROR_INTERNAL, "out of memory");
      return 0;
    }
    pipe_group *ng = &gs->g[gs->n++];
    *ng = (pipe_group){.nloop = nloop, .block = b->block};
    for (int j = mine; j < m; j++)
      ng->t[ng->n++] = (struct taken){
          later[j], ops[j].old, ops[j].swizzled, later_bank[j], stage_buffer(L, b, &ops[j], cur), ops[j].stride};
    ng->end = tc_nvptx_last_op(b);
  }
  *fenced = true;
  return L->status ? 0 : mine;
}
