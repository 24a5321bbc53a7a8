/* conversion/register_tiles.c — loops whose carried tiles evolve lane by lane, with the tiles in
 * registers.
 *
 * The tutorials accumulate into a BLOCK-wide tile across a loop (`acc += tl.load(...)`,
 * layer norm's mean and variance passes). Lowered as written, `acc` lives in a stack
 * buffer and every chunk of every iteration loads and stores it. When each lane of the
 * loop's yields reads only the same lane of the carried tiles, and the carried tiles fit
 * in half the vector registers (16 chunks of fp32 on AVX-512: BLOCK <= 256; 8 on AVX2),
 * their chunks become the loop's vector iter_args instead and are written to the tiles'
 * buffers once, after the loop. Every lane sees the same operations in the same order, so
 * results are bit-identical.
 *
 * Larger tiles keep the buffer: running the loop once per register-sized strip of the
 * tile was measured slower (layer norm 1024x8192, 1 thread: BLOCK 8192 5.7 ms in strips vs
 * 4.5 ms with the buffer; BLOCK 1024 even) — each strip re-walks the row, and LLVM keeps
 * one hoisted address per chunk of the strip, spilling them.
 *
 * Conditions (else the generic lowering in regions.c runs): no stores, atomics, debug
 * ops, reductions, dots, scans or nested regions in the body (they need whole tiles or
 * ordering); carried tiles that are not affine pointer/int tiles are rank 1, of one
 * length, not pointers, and are read only at their own lane (no broadcast or reshape of
 * them). Debug checks stay on the loads in the body (a trip's chunks are visited chunk by
 * chunk across the carried tiles, so of two bad loads in one trip the one at the lower
 * lane is reported first). While the
 * tile lies inside the bound of the loads' mask (`cols < N`) iterations run unmasked
 * (scf.while), the rest with masks (scf.for): LLVM merges an if/else of the two into
 * masked code.
 * In: an old scf.for. Out: scf.while + scf.for over the loop range with vector iter_args. */
#include "backend/backend.h"
#include "conversion/lower.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinTypes.h>
#include <string.h>

#define MAXC 16       /* carried values */
#define MAX_CHUNKS 16 /* chunks of the carried tiles kept in registers */

typedef enum { K_SCALAR, K_AFFINE, K_TILE } kind;

typedef struct reg_loop {
  tc_lower *L;
  MlirOperation op;
  MlirBlock body;
  int n;
  kind kinds[MAXC];
  MlirValue args[MAXC], yields[MAXC];
  MlirType delta_type[MAXC]; /* K_AFFINE */
  int ntile;
  int64_t len, width, chunks; /* tile length, lanes per chunk, chunks per tile */
  MlirValue bound_mask;       /* old mask whose bound decides full iterations (or null) */
  tc_pos pos[MAX_CHUNKS];     /* the tile's chunks */
} reg_loop;

static bool is_tile(MlirType t) { return mlirTypeIsARankedTensor(t); }

/* Ops that read an operand at other positions than their own result's. */
static bool moves_lanes(MlirOperation op) { return tile_op_has(op, TILE_TRAIT_MOVES_LANES); }

/* The body computes only lazily evaluated tiles, tile loads and scalars, and no value
 * derived from a carried tile is read at a moved position. */
static bool lanewise_body(reg_loop *s) {
  tc_valmap dep;
  tc_valmap_init(&dep, sizeof(int));
  for (int i = 0; i < s->n; i++)
    if (s->kinds[i] == K_TILE) *(int *)tc_valmap_put(&dep, s->args[i].ptr) = 1;
  bool ok = true;
  for (MlirOperation op = mlirBlockGetFirstOperation(s->body); ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (tc_op_is(op, "scf.yield")) break;
    intptr_t nres = mlirOperationGetNumResults(op), nops = mlirOperationGetNumOperands(op);
    if (mlirOperationGetNumRegions(op) > 0 || nres != 1) {
      ok = false;
      break;
    }
    MlirValue res = mlirOperationGetResult(op, 0);
    bool deps = false;
    for (intptr_t k = 0; k < nops; k++)
      if (tc_valmap_get(&dep, mlirOperationGetOperand(op, k).ptr)) deps = true;
    if (is_tile(mlirValueGetType(res))) {
      if ((tile_op_of(op) == TILE_TRANS) || (tile_op_of(op) == TILE_RESHAPE) ||
          (!tc_is_lazy_op(op) && !(tile_op_of(op) == TILE_LOAD)) || (deps && moves_lanes(op))) {
        ok = false;
        break;
      }
      if (deps) *(int *)tc_valmap_put(&dep, res.ptr) = 1;
      continue;
    }
    ok = tc_is_pure_scalar_op(op) || (tile_op_of(op) == TILE_LOAD); /* a scalar load runs once an iteration */
  }
  tc_valmap_free(&dep);
  return ok;
}

static bool classify(reg_loop *s) {
  tc_lower *L = s->L;
  MlirOperation op = s->op;
  MlirOperation yield = mlirBlockGetTerminator(s->body);
  s->n = (int)mlirOperationGetNumOperands(op) - 3;
  if (s->n > MAXC) return false;
  int regs_per_chunk = 0;
  for (int i = 0; i < s->n; i++) {
    MlirValue init = mlirOperationGetOperand(op, 3 + i);
    s->args[i] = mlirBlockGetArgument(s->body, 1 + i);
    s->yields[i] = mlirOperationGetOperand(yield, i);
    MlirType t = mlirValueGetType(init);
    if (!is_tile(t)) {
      s->kinds[i] = K_SCALAR;
      continue;
    }
    MlirType elem = mlirShapedTypeGetElementType(t);
    s->delta_type[i] = tc_affine_carry_type(L, s->args[i], s->yields[i]);
    if (!mlirTypeIsNull(s->delta_type[i])) {
      s->kinds[i] = K_AFFINE;
      continue;
    }
    int64_t shape[TC_RANK];
    if (tc_shape_of(t, shape) != 1 || tile_type_is_ptr(elem) || (s->len && shape[0] != s->len)) return false;
    s->kinds[i] = K_TILE;
    s->len = shape[0];
    s->ntile++;
    unsigned bits = tcb_bitwidth(elem) ? tcb_bitwidth(elem) : 64;
    s->width = tc_nest_width(L, s->len);
    int64_t vbits = L->backend->chunk_bits(L->target);
    int64_t r = (s->width * bits + vbits - 1) / vbits;
    regs_per_chunk += (int)(r < 1 ? 1 : r);
  }
  if (!s->ntile || !lanewise_body(s)) return false;
  /* Half the vector registers hold the tiles; the rest are for the body's temporaries. */
  s->chunks = s->len / s->width;
  if (s->chunks * s->width != s->len || s->chunks > MAX_CHUNKS ||
      s->chunks * regs_per_chunk > L->backend->vector_registers(L->target) / 2)
    return false;
  int niter = 0;
  for (int i = 0; i < s->n; i++) niter += s->kinds[i] == K_TILE ? (int)s->chunks : 1;
  if (niter > TC_MAX_ITER_ARGS) return false;
  for (int i = 0; i < s->n && mlirValueIsNull(s->bound_mask); i++)
    if (s->kinds[i] == K_TILE) s->bound_mask = tc_load_mask_within(L, s->yields[i], mlirValueGetType(s->yields[i]), 0);
  return true;
}

/* The induction variable is k; scalar carries and affine deltas are `carried`. */
static void bind_carries(reg_loop *s, MlirValue k, const MlirValue *carried) {
  tc_lower *L = s->L;
  tc_map_scalar(L, mlirBlockGetArgument(s->body, 0), k);
  for (int i = 0, q = 0; i < s->n; i++) {
    if (s->kinds[i] == K_TILE) continue;
    MlirValue a = carried[q++];
    if (s->kinds[i] == K_SCALAR) {
      tc_map_scalar(L, s->args[i], a);
    } else {
      tc_set_affine(L, s->args[i], mlirOperationGetOperand(s->op, 3 + i), a,
                    tc_affine_step(L, s->args[i], s->yields[i]));
    }
  }
}

/* One iteration of the old body for the chunks at s->pos, at b: the body's scalars (the
 * induction variable k, scalar and affine carries from `carried`), then the yields —
 * tile vectors in `mode` (FULL: the bound mask is all-true) from `in`, and the scalar
 * and affine carries. Returns the number of values in out. */
static int emit_iteration(reg_loop *s, tc_builder *b, tc_chunk_mode mode, MlirValue k, const MlirValue *in,
                          const MlirValue *carried, MlirValue *out) {
  tc_lower *L = s->L;
  tc_builder saved = L->b;
  L->b = *b;
  bind_carries(s, k, carried);
  for (MlirOperation o = mlirBlockGetFirstOperation(s->body); !mlirOperationIsNull(o) && !L->status;
       o = mlirOperationGetNextInBlock(o)) {
    if (tc_op_is(o, "scf.yield")) break;
    if (!is_tile(mlirValueGetType(mlirOperationGetResult(o, 0)))) tc_lower_op(L, o);
  }
  int no = 0;
  if (!L->status) {
    tc_chunk c;
    tc_chunk_init(&c, L, L->b.block, s->width);
    c.b = L->b;
    c.mode = mode;
    c.bound_mask = mode == TC_CHUNK_FULL ? s->bound_mask : (MlirValue){NULL};
    int q = 0;
    for (int i = 0; i < s->n; i++)
      if (s->kinds[i] == K_TILE)
        for (int j = 0; j < s->chunks; j++) tc_chunk_bind(&c, s->args[i], &s->pos[j], (tc_cval){.vec = in[q++]});
    for (int i = 0; i < s->n && !L->status; i++) {
      if (s->kinds[i] != K_TILE) continue;
      for (int j = 0; j < s->chunks && !L->status; j++) {
        c.root = s->pos[j];
        out[no++] = tc_eval(&c, s->yields[i], &s->pos[j]).vec;
      }
    }
    L->b = c.b;
    tc_chunk_free(&c);
  }
  for (int i = 0, q = 0; i < s->n && !L->status; i++) {
    if (s->kinds[i] == K_TILE) continue;
    MlirValue d = carried[q++];
    if (s->kinds[i] == K_SCALAR) {
      out[no++] = tc_scalar(L, s->yields[i]);
      continue;
    }
    out[no++] = tc_affine_next(L, d, s->args[i], s->yields[i]);
  }
  *b = L->b;
  L->b = saved;
  return no;
}

/* Is the tile inside the bound of s->bound_mask in iteration k? Computed before the
 * iteration's `k < ub` test is known, so only from what can be evaluated without reading
 * memory (the scalars it needs are lowered here); false otherwise, and then every
 * iteration runs with masks. */
static MlirValue tile_is_full(reg_loop *s, tc_builder *b, MlirValue k, const MlirValue *carried) {
  tc_lower *L = s->L;
  tc_builder saved = L->b;
  L->b = *b;
  bind_carries(s, k, carried);
  MlirValue full = {NULL};
  if (tc_lower_pure_cone(L, s->bound_mask)) {
    tc_chunk pre;
    tc_chunk_init(&pre, L, L->b.block, s->width);
    pre.b = L->b;
    tc_pos row = {.rank = 1, .chunked = false};
    row.idx[0] = tcb_const_index(&pre.b, 0);
    MlirValue bound = tc_mask_bound(&pre, s->bound_mask, &row, s->len);
    if (!mlirValueIsNull(bound)) full = tcb_cmpi(&pre.b, "ule", tcb_const_index(&pre.b, s->chunks * s->width), bound);
    L->b = pre.b;
    tc_chunk_free(&pre);
  }
  if (mlirValueIsNull(full) && !L->status) full = tcb_const_int(&L->b, tcb_int_type(L->ctx, 1), 0);
  *b = L->b;
  L->b = saved;
  return full;
}

static MlirBlock new_block(tc_lower *L, int n, const MlirValue *like) {
  MlirType types[TC_MAX_ITER_ARGS + 1];
  MlirLocation locs[TC_MAX_ITER_ARGS + 1];
  for (int i = 0; i < n; i++) {
    types[i] = mlirValueGetType(like[i]);
    locs[i] = L->b.loc;
  }
  return mlirBlockCreate(n, types, locs);
}

/* The old loop's range at sb, from the values in `vals` (the tiles' vectors,
 * then scalar/affine carries): while the tile is inside the loads' bound, iterations
 * run unmasked (scf.while); the rest run with masks (scf.for). Returns the final values
 * in vals. */
static void emit_range(reg_loop *s, tc_builder *sb, MlirValue lb, MlirValue ub, MlirValue st, int nv, MlirValue *vals) {
  tc_lower *L = s->L;
  int ntv = s->ntile * (int)s->chunks;
  MlirValue out[TC_MAX_ITER_ARGS];
  if (!mlirValueIsNull(s->bound_mask)) {
    /* scf.while (k = lb, vals) { k < ub && full(k) } do { FULL body; k += st } */
    MlirValue w[TC_MAX_ITER_ARGS + 1];
    w[0] = lb;
    memcpy(w + 1, vals, sizeof(MlirValue) * (size_t)nv);
    MlirBlock before = new_block(L, nv + 1, w), after = new_block(L, nv + 1, w);
    MlirRegion regions[2] = {mlirRegionCreate(), mlirRegionCreate()};
    mlirRegionAppendOwnedBlock(regions[0], before);
    mlirRegionAppendOwnedBlock(regions[1], after);
    MlirType types[TC_MAX_ITER_ARGS + 1];
    for (int i = 0; i <= nv; i++) types[i] = mlirValueGetType(w[i]);
    MlirOperation wop = tcb_op_regions(sb, "scf.while", nv + 1, types, nv + 1, w, 0, NULL, 2, regions);
    tc_builder bb;
    tcb_init(&bb, L->ctx);
    bb.loc = L->b.loc;
    tcb_set_end(&bb, before);
    MlirValue args[TC_MAX_ITER_ARGS + 1];
    for (int i = 0; i <= nv; i++) args[i] = mlirBlockGetArgument(before, i);
    MlirValue full = tile_is_full(s, &bb, args[0], args + 1 + ntv);
    if (L->status) return;
    MlirValue cond = tcb_binary(&bb, "arith.andi", tcb_cmpi(&bb, "slt", args[0], ub), full);
    MlirValue cops[TC_MAX_ITER_ARGS + 2];
    cops[0] = cond;
    memcpy(cops + 1, args, sizeof(MlirValue) * (size_t)(nv + 1));
    tcb_op(&bb, "scf.condition", 0, NULL, nv + 2, cops, 0, NULL);
    tc_builder ab = bb;
    tcb_set_end(&ab, after);
    for (int i = 0; i <= nv; i++) args[i] = mlirBlockGetArgument(after, i);
    int no = emit_iteration(s, &ab, TC_CHUNK_FULL, args[0], args + 1, args + 1 + ntv, out + 1);
    if (L->status) return;
    out[0] = tcb_binary(&ab, "arith.addi", args[0], st);
    tcb_op(&ab, "scf.yield", 0, NULL, no + 1, out, 0, NULL);
    lb = mlirOperationGetResult(wop, 0);
    for (int i = 0; i < nv; i++) vals[i] = mlirOperationGetResult(wop, 1 + i);
  }
  MlirOperation kf;
  MlirBlock kb = tc_build_for(L, sb, lb, ub, st, nv, vals, &kf);
  if (L->status) return;
  tc_builder kbld = *sb;
  tcb_set_end(&kbld, kb);
  MlirValue in[TC_MAX_ITER_ARGS];
  for (int i = 0; i < nv; i++) in[i] = mlirBlockGetArgument(kb, 1 + i);
  int no = emit_iteration(s, &kbld, TC_CHUNK_GENERIC, mlirBlockGetArgument(kb, 0), in, in + ntv, out);
  if (L->status) return;
  tcb_op(&kbld, "scf.yield", 0, NULL, no, out, 0, NULL);
  for (int i = 0; i < nv; i++) vals[i] = mlirOperationGetResult(kf, i);
}

bool tc_lower_for_in_registers(tc_lower *L, MlirOperation op) {
  reg_loop s = {.L = L, .op = op, .body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))};
  if (!classify(&s)) return false;

  MlirValue lb = tc_scalar(L, mlirOperationGetOperand(op, 0)), ub = tc_scalar(L, mlirOperationGetOperand(op, 1)),
            st = tc_scalar(L, mlirOperationGetOperand(op, 2));
  MlirValue bufs[MAXC] = {{NULL}}, carried[MAXC]; /* carried: scalars and affine deltas */
  int nc = 0;
  for (int i = 0; i < s.n; i++) {
    MlirValue init = mlirOperationGetOperand(op, 3 + i);
    if (s.kinds[i] == K_TILE) {
      bufs[i] = tc_alloc_buffer(L, mlirShapedTypeGetElementType(mlirValueGetType(init)), s.len);
    } else {
      carried[nc++] = s.kinds[i] == K_SCALAR ? tc_scalar(L, init) : tcb_const_int(&L->b, s.delta_type[i], 0);
    }
  }
  if (L->status) return true;

  tc_builder sb = L->b; /* the code around the loop (L->b takes the yield's location inside) */
  for (int j = 0; j < s.chunks; j++) {
    s.pos[j] = (tc_pos){.rank = 1, .chunked = true};
    s.pos[j].idx[0] = tcb_const_index(&sb, j * s.width);
  }
  MlirValue vals[TC_MAX_ITER_ARGS];
  int nv = 0;
  {
    tc_chunk ic;
    tc_chunk_init(&ic, L, sb.block, s.width);
    ic.b = sb;
    for (int i = 0; i < s.n; i++)
      if (s.kinds[i] == K_TILE)
        for (int j = 0; j < s.chunks; j++) vals[nv++] = tc_eval(&ic, mlirOperationGetOperand(op, 3 + i), &s.pos[j]).vec;
    sb = ic.b;
    tc_chunk_free(&ic);
  }
  int ntv = nv;
  for (int k = 0; k < nc; k++) vals[nv++] = carried[k];
  if (L->status) return true;
  L->b.loc = mlirOperationGetLocation(mlirBlockGetTerminator(s.body));
  emit_range(&s, &sb, lb, ub, st, nv, vals);
  if (L->status) return true;

  /* after the loop: the vectors go to the carried tiles' buffers */
  {
    tc_chunk wc;
    tc_chunk_init(&wc, L, sb.block, s.width);
    wc.b = sb;
    int64_t shape[1] = {s.len};
    for (int i = 0, k = 0; i < s.n; i++) {
      if (s.kinds[i] != K_TILE) continue;
      for (int j = 0; j < s.chunks; j++) tc_buffer_write(&wc, bufs[i], vals[k++], &s.pos[j], shape);
    }
    sb = wc.b;
    tc_chunk_free(&wc);
  }
  MlirValue *final = vals + ntv;
  L->b = sb;
  for (int i = 0, k = 0; i < s.n; i++) {
    MlirValue res = mlirOperationGetResult(op, i);
    if (s.kinds[i] == K_SCALAR) {
      tc_map_scalar(L, res, final[k++]);
      continue;
    }
    if (s.kinds[i] == K_AFFINE) {
      tc_set_affine(L, res, mlirOperationGetOperand(op, 3 + i), final[k++], (MlirValue){NULL});
      continue;
    }
    tc_special *sp = tc_special_put(L, res);
    memset(sp, 0, sizeof *sp);
    sp->kind = TC_SPECIAL_BUFFER;
    sp->buffer = bufs[i];
  }
  return true;
}
