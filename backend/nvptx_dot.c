/* backend/nvptx_dot.c — tl.dot on tensor cores (sm_80+): fp16 or bf16 tiles into fp32 with
 * mma.sync.m16n8k16.row.col; fp32 tiles with input_precision tf32 (Triton's default on
 * NVIDIA) or tf32x3 with mma.sync.m16n8k8 .tf32, bf16x3 or bf16x6 with the bf16 m16n8k16 on
 * the operands' bf16 parts; int8 tiles into int32 with mma.sync.m16n8k32 .s32.s8.s8.s32
 * (without .satfinite: the sums wrap modulo 2^32 like the CPU targets' and Triton's wgmma on
 * sm_90; Triton's sm_80 mma.sync saturates). C's 16x8 tiles are dealt to the warps in
 * 2-D blocks (Triton's MMA layout: 4 warps over 128x128 -> each warp 64x64 = 4x8 tiles, at
 * most MAXT tiles = 128 f32 registers a thread; larger C runs the blocks in rounds, every
 * warp running every round — a warp without a block repeats another's and keeps nothing —
 * so all threads meet the same instructions). For each k step (k16; tf32: k8; s8: k32) a
 * warp loads its A fragments once for all its m-tiles (ldmatrix.x4, one per m-tile) and its
 * B fragments once for all its n-tiles (ldmatrix.x4.trans, one per two n-tiles; an odd last
 * one from 16-bit loads; tf32: element by element; s8: as ldmatrix.trans moves 16-bit
 * elements, not bytes, a row-major B is first written transposed to shared memory
 * (transpose_s8: a loop-carried C's dot) and read like a B = tl.trans(x), through ldmatrix
 * without .trans from x's rows; else four byte loads a register), then runs bm x bn MMAs
 * (nvptx-emu emulates ldmatrix too).
 * Each lane holds the fragments PTX defines for its group g = lane / 4 and thread q = lane % 4:
 *   A: {A[g][2q..2q+1], A[g+8][2q..], A[g][2q+8..], A[g+8][2q+8..]} (four f16x2 / bf16x2)
 *   B: {B[2q..2q+1][g], B[2q+8..2q+9][g]}                           (two)
 *   tf32 A: {A[g][q], A[g+8][q], A[g][q+4], A[g+8][q+4]}, B: {B[q][g], B[q+4][g]}
 *   s8 A: {A[g][4q..4q+3], A[g+8][4q..], A[g][4q+16..], A[g+8][4q+16..]} (four s8x4, the
 *      first in the low byte: an 8x8 b16 matrix of ldmatrix is 8 rows x 16 bytes, so A's
 *      loads are the 16-bit ones with a k step of 32 bytes), B: {B[4q..4q+3][g], B[4q+16..][g]}
 *   C, D: {C[g][2q], C[g][2q+1], C[g+8][2q], C[g+8][2q+1]}      (four f32; s8: four s32)
 * tf32 operands are rounded with cvt.rna.tf32.f32 as they are loaded (Triton passes the f32
 * bits, which the tensor cores truncate); tf32x3, bf16x3 and bf16x6 add the products of the
 * operands' smaller parts (v - tf32(v); Triton's splits), see k_loop. A and B are tiles in
 * shared memory (materialized by the threads together). C starts as the dot's acc operand
 * evaluated at each lane's fragment positions (a zero costs nothing) and is written once to
 * the dot's destination (tc_dot_destination).
 *
 * A result read only by row reductions and, through elementwise ops, by the A operand of
 * the next tl.dot (attention's scores) stays in the fragments instead, and so do the row
 * vectors computed from it (nvptx_frags.c).
 *
 * Loop-carried accumulators (nvptx_frags.c's tc_nvptx_mma_carries, the backend's
 * loop_carries; this file computes their dots): a tile an
 * scf.for carries only through `acc = tl.dot(a, b, f(acc))` — f elementwise, e.g.
 * attention's `acc * alpha[:, None]` — stays in the warps' fragments across the loop, as
 * one vector<4xf32> (s8: vector<4xi32>) iter_arg per 16x8 tile; it is written to a shared
 * buffer once, after the loop. No C traffic through shared memory inside the loop.
 *
 * nvptx-emu runs the same fragments through the emulator's warp-wide MMAs (runtime/emu.c),
 * the tf32 rounding in integer ops. An fp16/bf16 result (out_dtype=tl.float16) runs the same
 * f32 MMAs: C is widened when it is read and rounded once when it is stored. Other dots
 * (fp32 with input_precision ieee, 3-D, shapes not multiples of 16x8x16 (tf32: 16x8x8, s8:
 * 16x8x32), chips before sm_80) deal C's blocks to threads as FMAs (conversion/dot.c over
 * this backend's shared_loop). In: a tile.dot root. Out: the dot's result as a shared buffer,
 * or its fragments (nvptx_frags.c's). */
#include "backend/nvptx_mma.h"

#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"
#include "dialects/tile.h"
#include <float.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>
#include <string.h>

/* The chip's compute capability (sm_80 -> 80); the emulator has every instruction. */
int tc_mma_capability(const tc_lower *L) {
  if (L->target->gpu_emulation) return 1000;
  const char *a = L->target->cpu;
  return a && !strncmp(a, "sm_", 3) ? atoi(a + 3) : 0;
}

/* A plan for C of M x N over K with the target's warps; false when none fits. The warps
 * form a wm x wn grid (powers of 2 dividing the tile counts) with the most warps busy,
 * then the fewest fragment registers loaded per MMA ((4 bm + 2 bn) / (bm bn)). rows: the
 * warps along M only (each holds whole rows: fragment tiles, below). */
bool tc_mma_make_plan(tc_lower *L, int64_t M, int64_t N, int64_t K, int64_t maxt, bool rows, mma_plan *p) {
  if (rows && tc_wgmma_rows_plan(L, M, N, K, maxt, p)) return true; /* sm_90a: the warpgroups' rows */
  int64_t tm = M / 16, tn = N / 8, nwarps = L->target->num_warps;
  bool found = false;
  double best_cost = 0;
  for (int64_t wm = rows ? nwarps : 1; wm <= nwarps; wm *= 2) {
    if (tm % wm) continue;
    int64_t wn = nwarps / wm;
    while (wn > 1 && tn % wn) wn /= 2;
    int64_t bm = tm / wm, bn = tn / wn;
    while (bm * bn > maxt) {
      if (bm % 2 == 0 && (4 * bm >= 2 * bn || bn % 2)) bm /= 2;
      else if (bn % 2 == 0) bn /= 2;
      else break;
    }
    if (bm * bn > maxt) continue;
    int64_t nblocks = (tm / bm) * (tn / bn), active = wm * wn;
    double cost = (double)(4 * bm + 2 * bn) / (double)(bm * bn);
    if (found && (active < p->active || (active == p->active && cost >= best_cost))) continue;
    found = true;
    best_cost = cost;
    *p = (mma_plan){
        .M = M, .N = N, .K = K, .bm = bm, .bn = bn, .nblk_n = tn / bn, .active = active, .rounds = nblocks / active};
  }
  return found;
}

MlirValue tc_mma_scratch_slot(tc_lower *L, tc_builder *b, MlirValue scratch, int i, MlirType t) {
  int32_t gi = i;
  MlirNamedAttribute ga[2] = {tcb_named(L->ctx, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 1, &gi)),
                              tcb_named(L->ctx, "elem_type", mlirTypeAttrGet(t))};
  return tcb_op1(b, "llvm.getelementptr", tcb_type(L->ctx, "!llvm.ptr"), 1, &scratch, 2, ga);
}

MlirValue tc_mma_field(tc_lower *L, tc_builder *b, MlirValue s, int64_t i, MlirType t) {
  MlirNamedAttribute pa = tcb_named(L->ctx, "position", mlirDenseI64ArrayGet(L->ctx, 1, &i));
  return tcb_op1(b, "llvm.extractvalue", t, 1, &s, 1, &pa);
}

/* The four 32-bit values the emulator's warp-wide routines (runtime/emu.c) wrote to a
 * thread's scratch (tc_nvptx_scratch), as values of type t. */
static void load_scratch(tc_lower *L, tc_builder *b, MlirValue scratch, MlirType t, MlirValue *out) {
  for (int i = 0; i < 4; i++) {
    MlirValue ptr = tc_mma_scratch_slot(L, b, scratch, i, t);
    out[i] = tcb_op1(b, "llvm.load", t, 1, &ptr, 0, NULL);
  }
}

/* A signed or signless 8-bit integer type (s8 on the tensor cores). */
static bool is_s8(MlirType t) {
  return mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 8 && !mlirIntegerTypeIsUnsigned(t);
}

/* The tensor-core form of a tl.dot (operand types, k step), without a plan. */
bool tc_mma_types(tc_lower *L, MlirOperation op, mma_plan *p, int64_t *cs, int64_t *as) {
  if (tc_nvptx_alone(L) || tc_mma_capability(L) < 80) return false;
  MlirType at = mlirValueGetType(mlirOperationGetOperand(op, 0)), bt = mlirValueGetType(mlirOperationGetOperand(op, 1));
  MlirType ct = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (tc_shape_of(at, as) != 2 || tc_shape_of(ct, cs) != 2) return false;
  MlirType ae = mlirShapedTypeGetElementType(at), be = mlirShapedTypeGetElementType(bt),
           ce = mlirShapedTypeGetElementType(ct);
  bool f16 = mlirTypeIsAF16(ae) && mlirTypeIsAF16(be), b16 = mlirTypeIsABF16(ae) && mlirTypeIsABF16(be);
  /* int8 x int8 -> int32, Triton's only integer dot (tilec's uint8 is an i8 too, read as
   * signed like its CPU path's) */
  bool s8 = is_s8(ae) && is_s8(be);
  bool c_ok = s8 ? mlirTypeIsAInteger(ce) && mlirIntegerTypeGetWidth(ce) == 32
                 : mlirTypeIsAF32(ce) || mlirTypeIsAF16(ce) || mlirTypeIsABF16(ce);
  /* fp32 x fp32 -> fp32 with input_precision tf32, tf32x3, bf16x3 or bf16x6 (ieee: FMAs) */
  tile_dot_precision prec = tile_dot_precision_of(op);
  bool f32 = mlirTypeIsAF32(ae) && mlirTypeIsAF32(be) && mlirTypeIsAF32(ce) && prec != TILE_DOT_IEEE;
  bool tf32 = f32 && (prec == TILE_DOT_TF32 || prec == TILE_DOT_TF32X3);
  int64_t ks = tf32 ? 8 : s8 ? 32 : 16;
  if (!(f16 || b16 || f32 || s8) || !c_ok || cs[0] % 16 || cs[1] % 8 || as[1] % ks) return false;
  *p = (mma_plan){.M = cs[0], .N = cs[1], .K = as[1]};
  p->ops = s8 ? OPS_S8 : tf32 ? OPS_TF32 : b16 || f32 ? OPS_BF16 : OPS_F16;
  p->nparts = prec == TILE_DOT_BF16X6 ? 3 : prec == TILE_DOT_TF32X3 || prec == TILE_DOT_BF16X3 ? 2 : 1;
  p->split16 = f32 && !tf32;
  p->ks = ks;
  p->ce = ce;
  return true;
}

bool tc_mma_plan_of(tc_lower *L, MlirOperation op, int64_t maxt, mma_plan *p) {
  int64_t as[TC_RANK], cs[TC_RANK];
  mma_plan t;
  if (!tc_mma_types(L, op, &t, cs, as)) return false;
  bool rows = tc_mma_frag_rows(L, op);
  /* a loop's carried accumulator (maxt MAXT) on sm_90a: the warpgroups' plan (nvptx_wgmma.c) */
  mma_plan w = t;
  if (maxt == MAXT && !rows && tc_wgmma_plan(L, &w)) {
    *p = w;
    return true;
  }
  if (!tc_mma_make_plan(L, cs[0], cs[1], as[1], maxt, rows, p)) return false;
  p->ops = t.ops, p->nparts = t.nparts, p->split16 = t.split16, p->ks = t.ks, p->ce = t.ce;
  return true;
}

/* ---- fragments ------------------------------------------------------------------------ */

lane_ctx tc_mma_lane_of(tc_lower *L, tc_builder *b) {
  MlirValue tid = tc_nvptx_thread_id(L, b);
  MlirValue lane = tcb_binary(b, "arith.remui", tid, cidx(b, WARP));
  lane_ctx c = {.warp = tcb_binary(b, "arith.divui", tid, cidx(b, WARP)),
                .g = tcb_binary(b, "arith.divui", lane, cidx(b, 4))};
  c.q = tcb_binary(b, "arith.remui", lane, cidx(b, 4));
  c.q2 = mulc(b, c.q, 2);
  c.lm = tcb_binary(b, "arith.divui", lane, cidx(b, 8));
  c.lr = tcb_binary(b, "arith.remui", lane, cidx(b, 8));
  return c;
}

/* The block of warp lc->warp in round r (an index; null: round 0). */
block_ctx tc_mma_block_of(tc_builder *b, const mma_plan *p, const lane_ctx *lc, MlirValue r) {
  block_ctx k;
  if (p->wg) { /* warpgroup w / 4: bm 64-row m-tiles; warp w % 4: rows 16 (w % 4) + g (+ 8) of each */
    MlirValue wg = tcb_binary(b, "arith.divui", lc->warp, cidx(b, 4)),
              wl = tcb_binary(b, "arith.remui", lc->warp, cidx(b, 4));
    k.valid = tcb_cmpi(b, "ult", lc->warp, cidx(b, p->active));
    k.row0 = add(b, mulc(b, wg, 64 * p->bm), mulc(b, wl, 16));
    k.col0 = cidx(b, 0);
    k.mstep = 64;
    MlirValue r0 = add(b, k.row0, lc->g);
    for (int64_t i = 0; i < p->bm; i++) k.row[i] = addc(b, r0, 64 * i);
    for (int64_t j = 0; j < p->bn; j++) k.col[j] = addc(b, lc->q2, j * 8), k.bcol[j] = addc(b, lc->g, j * 8);
    return k;
  }
  k.mstep = 16;
  MlirValue w = tcb_binary(b, "arith.remui", lc->warp, cidx(b, p->active));
  k.valid = tcb_cmpi(b, "ult", lc->warp, cidx(b, p->active));
  MlirValue blk = mlirValueIsNull(r) ? w : add(b, mulc(b, r, p->active), w);
  MlirValue r0 = add(b, mulc(b, tcb_binary(b, "arith.divui", blk, cidx(b, p->nblk_n)), p->bm * 16), lc->g);
  MlirValue c0 = mulc(b, tcb_binary(b, "arith.remui", blk, cidx(b, p->nblk_n)), p->bn * 8);
  MlirValue cq = add(b, c0, lc->q2), cg = add(b, c0, lc->g);
  k.row0 = tcb_binary(b, "arith.subi", r0, lc->g);
  k.col0 = c0;
  for (int64_t i = 0; i < p->bm; i++) k.row[i] = addc(b, r0, i * 16);
  for (int64_t j = 0; j < p->bn; j++) k.col[j] = addc(b, cq, j * 8), k.bcol[j] = addc(b, cg, j * 8);
  return k;
}

static MlirType vec4_f32(tc_lower *L) { return tc_vec_type(L->ctx, 4, mlirF32TypeGet(L->ctx)); }

/* The element type of C's fragments: i32 for s8 operands, else f32. */
MlirType tc_mma_frag_elem(tc_lower *L, mma_ops ops) {
  return ops == OPS_S8 ? tcb_int_type(L->ctx, 32) : mlirF32TypeGet(L->ctx);
}

MlirValue tc_mma_shuffle(tc_lower *L, tc_builder *b, MlirValue x, MlirValue y, int n, const int64_t *mask, MlirType t) {
  MlirValue ops[2] = {x, y};
  MlirNamedAttribute ma = tcb_named(L->ctx, "mask", mlirDenseI64ArrayGet(L->ctx, n, mask));
  return tcb_op1(b, "vector.shuffle", t, 2, ops, 1, &ma);
}

/* Half h of a tile's vector<4 x T> (h = 0: row g, 1: row g + 8) as vector<2 x T>. */
MlirValue tc_mma_half_of(tc_lower *L, tc_builder *b, MlirValue v, int h) {
  int64_t m[2] = {2 * h, 2 * h + 1};
  return tc_mma_shuffle(L, b, v, v, 2, m, tc_vec_type(L->ctx, 2, tcb_element_type(mlirValueGetType(v))));
}

/* Old tile v (M x N, the dot's C type) at every fragment of the block, as one
 * vector<4xf32> (s8: vector<4xi32>) per tile (i * bn + j) in out; where `arg` is not null,
 * that old tile is bound to the fragments in argv at the same positions (a loop-carried
 * accumulator). */
void tc_mma_eval_fragments(tc_lower *L, tc_builder *b, const mma_plan *p, const block_ctx *k, MlirValue v,
                           MlirValue arg, const MlirValue *argv, MlirValue *out) {
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 2);
  c.b = *b;
  MlirType fe = tc_mma_frag_elem(L, p->ops), v2 = tc_vec_type(L->ctx, 2, fe);
  MlirType ve = mlirShapedTypeGetElementType(mlirValueGetType(v));
  MlirValue rows8[MAXT];
  for (int64_t i = 0; i < p->bm; i++) rows8[i] = addc(&c.b, k->row[i], 8);
  for (int64_t i = 0; i < p->bm && !L->status; i++)
    for (int64_t j = 0; j < p->bn && !L->status; j++) {
      int64_t t = i * p->bn + j;
      MlirValue h[2];
      for (int x = 0; x < 2; x++) {
        tc_pos pos = {.rank = 2, .chunked = true};
        pos.idx[0] = x ? rows8[i] : k->row[i];
        pos.idx[1] = k->col[j];
        if (!mlirValueIsNull(arg)) tc_chunk_bind(&c, arg, &pos, (tc_cval){.vec = tc_mma_half_of(L, &c.b, argv[t], x)});
        tc_mma_bind_rows(L, &c, p, pos.idx[0], i, x);
        h[x] = tc_eval(&c, v, &pos).vec;
        if (L->status) break;
        if (!mlirTypeEqual(ve, fe)) h[x] = tcb_cast(&c.b, "arith.extf", h[x], v2);
      }
      if (L->status) break;
      int64_t m[4] = {0, 1, 2, 3};
      out[t] = tc_mma_shuffle(L, &c.b, h[0], h[1], 4, m, tc_vec_type(L->ctx, 4, fe));
    }
  *b = c.b;
  tc_chunk_free(&c);
}

/* Writes the block's fragments (out, one vector<4xf32> or vector<4xi32> per tile) to the
 * flat M x N buffer buf of C's element type, where the warp keeps its block. */
void tc_mma_store_fragments(tc_lower *L, tc_builder *b, const mma_plan *p, const block_ctx *k, MlirValue buf,
                            const MlirValue *vals) {
  tc_builder sb;
  tcb_if(b, k->valid, 0, NULL, &sb, NULL);
  MlirType ce = tcb_element_type(mlirValueGetType(buf));
  bool narrow = tcb_bitwidth(ce) < 32; /* f16, bf16 */
  MlirNamedAttribute al = tcb_named(L->ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), narrow ? 4 : 8));
  for (int64_t i = 0; i < p->bm; i++)
    for (int64_t j = 0; j < p->bn; j++) {
      MlirValue v = vals[i * p->bn + j];
      for (int x = 0; x < 2; x++) {
        MlirValue h = tc_mma_half_of(L, &sb, v, x);
        if (narrow) h = tcb_cast(&sb, "arith.truncf", h, tc_vec_type(L->ctx, 2, ce));
        MlirValue idx = add(&sb, mulc(&sb, addc(&sb, k->row[i], 8 * x), p->N), k->col[j]);
        MlirValue o[3] = {h, buf, idx};
        tcb_op(&sb, "vector.store", 0, NULL, 3, o, 1, &al);
      }
    }
  tcb_op(&sb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

/* Two elements of a flat 16-bit buffer as the 32 bits of an f16x2/bf16x2 register (the
 * first in the low half). */
/* A value of type t (an element, or a vector of them) at element i of an operand's shared
 * buffer, align bytes aligned: on the GPU a load from its shared address (ld.shared: the
 * buffer's memref is a generic pointer, whose loads were generic LD.E with the pipeline's
 * stage buffers), in the emulator a load of the memref. */
static MlirValue shared_load(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i, MlirType t, int64_t align) {
  MlirNamedAttribute al = tcb_named(L->ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), align));
  MlirValue o[2] = {buf, i};
  if (L->target->gpu_emulation)
    return mlirTypeIsAVector(t) ? tcb_op1(b, "vector.load", t, 2, o, 1, &al)
                                : tcb_op1(b, "memref.load", t, 2, o, 0, NULL);
  MlirValue addr = tc_nvptx_shared_address(L, b, buf, i);
  return tcb_op1(b, "llvm.load", t, 1, &addr, 1, &al);
}

static MlirValue pair32(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i0, MlirValue i1) {
  MlirType e = tcb_element_type(mlirValueGetType(buf)), i16 = tcb_int_type(L->ctx, 16), i32 = tcb_int_type(L->ctx, 32);
  MlirValue lo = tcb_cast(b, "arith.bitcast", shared_load(L, b, buf, i0, e, 2), i16);
  MlirValue hi = tcb_cast(b, "arith.bitcast", shared_load(L, b, buf, i1, e, 2), i16);
  return tcb_binary(b, "arith.ori", tcb_cast(b, "arith.extui", lo, i32),
                    tcb_binary(b, "arith.shli", tcb_cast(b, "arith.extui", hi, i32), tcb_const_int(b, i32, 16)));
}

/* d = mma(a[0..3], bf[0..1], c) for the warp; c and d are vector<4xf32> (s8: vector<4xi32>);
 * a and bf are f16x2/bf16x2 pairs as i32 (m16n8k16), tf32 values as i32 (m16n8k8) or four
 * s8 as i32 (m16n8k32 .s32.s8.s8.s32, without .satfinite: the sums wrap like the CPU
 * targets' i32 adds and Triton's wgmma on sm_90; Triton's sm_80 mma.sync saturates). */
static MlirValue mma(tc_lower *L, tc_builder *b, mma_ops ops, const MlirValue *a, const MlirValue *bf, MlirValue cv) {
  bool bf16 = ops == OPS_BF16, tf32 = ops == OPS_TF32, s8 = ops == OPS_S8;
  MlirType fe = tc_mma_frag_elem(L, ops), i32 = tcb_int_type(L->ctx, 32);
  MlirValue c[4], d[4];
  for (int64_t i = 0; i < 4; i++) {
    MlirNamedAttribute at = tcb_named(L->ctx, "static_position", mlirDenseI64ArrayGet(L->ctx, 1, &i));
    c[i] = tcb_op1(b, "vector.extract", fe, 1, &cv, 1, &at);
  }
  if (L->target->gpu_emulation) {
    MlirValue out = tc_nvptx_scratch(L, 4);
    MlirValue args[12] = {
        tcb_const_int(b, i32, bf16), a[0], a[1], a[2], a[3], bf[0], bf[1], c[0], c[1], c[2], c[3], out};
    if (tf32) tc_call_runtime(L, b, "tilec_rt_emu_mma_m16n8k8_tf32", 11, args + 1);
    else if (s8) tc_call_runtime(L, b, "tilec_rt_emu_mma_m16n8k32_s8", 11, args + 1);
    else tc_call_runtime(L, b, "tilec_rt_emu_mma_m16n8k16", 12, args);
    load_scratch(L, b, out, fe, d);
  } else {
    MlirValue ops[10];
    MlirType h2 = tc_vec_type(L->ctx, 2, mlirF16TypeGet(L->ctx));
    bool raw = bf16 || tf32 || s8; /* i32 registers as they are */
    for (int i = 0; i < 4; i++) ops[i] = raw ? a[i] : tcb_cast(b, "llvm.bitcast", a[i], h2);
    for (int i = 0; i < 2; i++) ops[4 + i] = raw ? bf[i] : tcb_cast(b, "llvm.bitcast", bf[i], h2);
    for (int i = 0; i < 4; i++) ops[6 + i] = c[i];
    const char *ty = s8     ? "#nvvm.mma_type<s8>"
                     : tf32 ? "#nvvm.mma_type<tf32>"
                     : bf16 ? "#nvvm.mma_type<bf16>"
                            : "#nvvm.mma_type<f16>";
    const char *shape = s8     ? "#nvvm.shape<m = 16, n = 8, k = 32>"
                        : tf32 ? "#nvvm.shape<m = 16, n = 8, k = 8>"
                               : "#nvvm.shape<m = 16, n = 8, k = 16>";
    int32_t seg[3] = {4, 2, 4};
    MlirNamedAttribute attrs[7] = {tcb_named(L->ctx, "layoutA", tcb_attr(L->ctx, "#nvvm.mma_layout<row>")),
                                   tcb_named(L->ctx, "layoutB", tcb_attr(L->ctx, "#nvvm.mma_layout<col>")),
                                   tcb_named(L->ctx, "multiplicandAPtxType", tcb_attr(L->ctx, ty)),
                                   tcb_named(L->ctx, "multiplicandBPtxType", tcb_attr(L->ctx, ty)),
                                   tcb_named(L->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(L->ctx, 3, seg)),
                                   tcb_named(L->ctx, "shape", tcb_attr(L->ctx, shape))};
    MlirType st = tcb_type(L->ctx, s8 ? "!llvm.struct<(i32, i32, i32, i32)>" : "!llvm.struct<(f32, f32, f32, f32)>");
    attrs[6] = tcb_named(L->ctx, "intOverflowBehavior", tcb_attr(L->ctx, "#nvvm.mma_int_overflow<wrapped>"));
    MlirValue r = tcb_op1(b, "nvvm.mma.sync", st, 10, ops, s8 ? 7 : 6, attrs);
    for (int i = 0; i < 4; i++) d[i] = tc_mma_field(L, b, r, i, fe);
  }
  return tcb_op1(b, "vector.from_elements", tc_vec_type(L->ctx, 4, fe), 4, d, 0, NULL);
}

/* Four elements of a flat 8-bit buffer, i, i + s, i + 2s, i + 3s, as the 32 bits of an s8x4
 * register (the first in the low byte). */
static MlirValue quad32(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i, int64_t s) {
  MlirType i8 = tcb_element_type(mlirValueGetType(buf)), i32 = tcb_int_type(L->ctx, 32);
  MlirValue r = {NULL};
  for (int x = 0; x < 4; x++) {
    MlirValue e = tcb_cast(b, "arith.extui", shared_load(L, b, buf, addc(b, i, x * s), i8, 1), i32);
    if (x) e = tcb_binary(b, "arith.shli", e, tcb_const_int(b, i32, 8 * x));
    r = x ? tcb_binary(b, "arith.ori", r, e) : e;
  }
  return r;
}

/* Elements i .. i + 3 of a flat 8-bit buffer (i a multiple of 4) as one i32 (one 32-bit load). */
static MlirValue load_b32(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i) {
  MlirValue v = shared_load(L, b, buf, i, tc_vec_type(L->ctx, 4, tcb_element_type(mlirValueGetType(buf))), 4);
  return tcb_cast(b, "llvm.bitcast", v, tcb_int_type(L->ctx, 32));
}

MlirValue tc_nvptx_shared_address(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i) {
  int64_t bytes = tcb_bitwidth(tcb_element_type(mlirValueGetType(buf))) / 8;
  MlirValue base = tcb_op1(b, "memref.extract_aligned_pointer_as_index", tcb_index(L->ctx), 1, &buf, 0, NULL);
  MlirType i64 = tcb_int_type(L->ctx, 64), i32 = tcb_int_type(L->ctx, 32);
  if (L->target->gpu_emulation)
    return tcb_cast(b, "llvm.inttoptr", tcb_cast(b, "arith.index_cast", add(b, base, mulc(b, i, bytes)), i64),
                    tcb_type(L->ctx, "!llvm.ptr"));
  /* The shared window's 32-bit address of the buffer, plus the element's offset in 32 bits:
   * one 32-bit add an address (the generic 64-bit sum took a pair of adds or LEAs and two
   * registers per address, for every ldmatrix and cp.async). */
  MlirValue p = tcb_cast(b, "llvm.inttoptr", tcb_cast(b, "arith.index_cast", base, i64), tcb_type(L->ctx, "!llvm.ptr"));
  MlirValue p3 = tcb_cast(b, "llvm.addrspacecast", p, tcb_type(L->ctx, "!llvm.ptr<3>"));
  MlirValue b32 = tcb_cast(b, "arith.trunci", tcb_cast(b, "llvm.ptrtoint", p3, i64), i32);
  MlirValue a32 = tcb_binary(b, "arith.addi", b32, tcb_cast(b, "arith.index_cast", mulc(b, i, bytes), i32));
  return tcb_cast(b, "llvm.inttoptr", tcb_cast(b, "arith.extui", a32, i64), tcb_type(L->ctx, "!llvm.ptr<3>"));
}

/* ldmatrix.sync.aligned.m8n8.x4(.trans).shared.b16: out[m] is this lane's register of
 * matrix m (addr: its row lane % 8 of matrix lane / 8). */
static void ldmatrix4(tc_lower *L, tc_builder *b, bool trans, MlirValue addr, MlirValue *out) {
  MlirType i32 = tcb_int_type(L->ctx, 32);
  if (L->target->gpu_emulation) {
    MlirValue o = tc_nvptx_scratch(L, 4);
    MlirValue args[3] = {tcb_const_int(b, i32, trans), addr, o};
    tc_call_runtime(L, b, "tilec_rt_emu_ldmatrix_x4", 3, args);
    load_scratch(L, b, o, i32, out);
    return;
  }
  MlirNamedAttribute attrs[4] = {
      tcb_named(L->ctx, "num", mlirIntegerAttrGet(i32, 4)),
      tcb_named(L->ctx, "layout", tcb_attr(L->ctx, trans ? "#nvvm.mma_layout<col>" : "#nvvm.mma_layout<row>")),
      tcb_named(L->ctx, "shape", tcb_attr(L->ctx, "#nvvm.ld_st_matrix_shape<m = 8, n = 8>")),
      tcb_named(L->ctx, "eltType", tcb_attr(L->ctx, "#nvvm.ld_st_matrix_elt_type<b16>"))};
  MlirValue r = tcb_op1(b, "nvvm.ldmatrix", tcb_type(L->ctx, "!llvm.struct<(i32, i32, i32, i32)>"), 1, &addr, 4, attrs);
  for (int i = 0; i < 4; i++) out[i] = tc_mma_field(L, b, r, i, i32);
}

/* cvt.rna.tf32.f32: x (f32) rounded to tf32 (10 mantissa bits, to nearest, ties away from
 * zero), as the i32 an MMA takes (the low 13 bits zero). The emulator rounds the same way in
 * integer ops (half of the dropped bits' weight added to the magnitude, then dropped; the
 * carry may round up to inf), inf stays inf and NaN becomes the canonical NaN. */
static MlirValue to_tf32(tc_lower *L, tc_builder *b, MlirValue x) {
  MlirType i32 = tcb_int_type(L->ctx, 32);
  if (!L->target->gpu_emulation) {
    MlirNamedAttribute rnd = tcb_named(L->ctx, "rnd", tcb_attr(L->ctx, "#nvvm.fp_rnd_mode<rna>"));
    return tcb_op1(b, "nvvm.convert.float.to.tf32", i32, 1, &x, 1, &rnd);
  }
  MlirValue bits = tcb_cast(b, "arith.bitcast", x, i32);
  MlirValue r = tcb_binary(b, "arith.andi", tcb_binary(b, "arith.addi", bits, tcb_const_int(b, i32, 0x1000)),
                           tcb_const_int(b, i32, (int32_t)0xffffe000u));
  MlirValue inf = tcb_cmpi(b, "eq", tcb_binary(b, "arith.andi", bits, tcb_const_int(b, i32, 0x7fffffff)),
                           tcb_const_int(b, i32, 0x7f800000));
  r = tcb_select(b, inf, bits, r);
  return tcb_select(b, tcb_cmpf(b, "uno", x, x), tcb_const_int(b, i32, 0x7fffffff), r);
}

/* A tf32 operand register from the f32 bits v (i32) as its n (1 or 2) parts: big = tf32(v);
 * for tf32x3 also small = tf32(v - big) (v - big is exact in f32). */
static void tf32_parts(tc_lower *L, tc_builder *b, MlirValue v, int n, MlirValue *out) {
  MlirType f32 = mlirF32TypeGet(L->ctx);
  MlirValue f = tcb_cast(b, "arith.bitcast", v, f32);
  out[0] = to_tf32(L, b, f);
  if (n > 1) out[1] = to_tf32(L, b, tcb_binary(b, "arith.subf", f, tcb_cast(b, "arith.bitcast", out[0], f32)));
}

/* A bf16x2 operand register from two f32 (v: vector<2xf32>, element 0 the low half) as its n
 * parts (Triton's bf16x3 / bf16x6 split): part 0 the values rounded to bf16 (to nearest
 * even: cvt.rn.bf16x2.f32), each next one the rest (exact in f32) rounded again. */
static void bf16_parts(tc_lower *L, tc_builder *b, MlirValue v, int n, MlirValue *out) {
  MlirType v2f = tc_vec_type(L->ctx, 2, mlirF32TypeGet(L->ctx)), v2b = tc_vec_type(L->ctx, 2, mlirBF16TypeGet(L->ctx));
  for (int k = 0; k < n; k++) {
    MlirValue h = tcb_cast(b, "arith.truncf", v, v2b);
    out[k] = tcb_cast(b, "llvm.bitcast", h, tcb_int_type(L->ctx, 32));
    if (k + 1 < n) v = tcb_binary(b, "arith.subf", v, tcb_cast(b, "arith.extf", h, v2f));
  }
}

/* Elements i and i + 1 of a flat f32 buffer as a vector<2xf32> (one 64-bit load). */
static MlirValue load_v2(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i) {
  return shared_load(L, b, buf, i, tc_vec_type(L->ctx, 2, mlirF32TypeGet(L->ctx)), 8);
}

/* Elements i and j of a flat f32 buffer as a vector<2xf32>. */
static MlirValue load_2(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i, MlirValue j) {
  MlirType f32 = mlirF32TypeGet(L->ctx);
  MlirValue e[2] = {shared_load(L, b, buf, i, f32, 4), shared_load(L, b, buf, j, f32, 4)};
  return tcb_op1(b, "vector.from_elements", tc_vec_type(L->ctx, 2, f32), 2, e, 0, NULL);
}

/* Element i of a 32-bit shared buffer as an i32. */
static MlirValue load32(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i) {
  MlirValue v = shared_load(L, b, buf, i, tcb_element_type(mlirValueGetType(buf)), 4);
  return tcb_cast(b, "arith.bitcast", v, tcb_int_type(L->ctx, 32));
}

#define MAXP 3 /* parts of an fp32 operand (bf16x6: hi, mid, lo) */

/* One k step at k0 of C += A x B for the warp's block: d from c_in (one vector<4xf32> per
 * tile; s8: vector<4xi32>). Per k step (16; tf32: 8; s8: 32) the A fragments of the bm
 * m-tiles and the B fragments of the bn n-tiles are loaded once, then bm x bn MMAs run. s8
 * fragments: A and a transposed B with ldmatrix (an 8x8 b16 matrix is 8 rows x 16 bytes),
 * an odd last n-tile with 32-bit loads, a row-major B four bytes a register. tf32
 * fragments: A (and a transposed B) with ldmatrix like 16-bit ones, each 32-bit element two
 * b16 of a row, so one lane gets a whole element; a row-major B element by element
 * (ldmatrix.trans would split them);
 * then cvt.rna.tf32.f32. fp32 operands split into bf16 parts (bf16x3, bf16x6): pairs of
 * f32 from shared memory (64-bit loads where the pair is a row's), rounded to bf16x2.
 * With parts (Triton's 3xTF32, 3xBF16, 6xBF16), per tile and k step the small products
 * (bf16x6: mid x mid, lo x hi, hi x lo; then mid x hi, hi x mid) are summed from zero and
 * added to C, then hi x hi. A NaN among the small ones (inf - inf in a part of an inf
 * operand, 0 x inf) only comes with an inf or NaN operand of the same output, whose hi x hi
 * product is then inf or NaN too: the small sum goes through max.f32 with -FLT_MAX (one
 * instruction: NaN -> -FLT_MAX, which that product outweighs; Triton zeroes NaN with a
 * compare and a select), so inf and NaN come out as the exact dot's. afix: A's fragments
 * given (4 registers per m-tile: fragment tiles, below) instead of read from abuf. */
static void k_step(tc_lower *L, tc_builder *kb, const mma_plan *p, const block_ctx *k, const lane_ctx *lc,
                   MlirValue abuf, MlirValue bbuf, MlirValue k0, const MlirValue *c_in, const MlirValue (*afix)[4],
                   MlirValue *d) {
  int np = p->nparts;
  int64_t as = p->as, bs = p->bs, ks = p->ks, kh = ks / 2;
  bool tf32 = p->ops == OPS_TF32, s8 = p->ops == OPS_S8, split = p->split16;
  tc_builder kbl = *kb;
  MlirValue ka = add(&kbl, k0, lc->q2), ka8 = addc(&kbl, ka, 8);
  MlirValue afr[MAXT][4], bfr[MAXT][2], bpart[MAXT][MAXP][2];
  /* ldmatrix: lane 8m + r addresses row r of matrix m; A's four matrices are rows +0/+8 x
   * k +0/+kh of the m-tile (a0..a3), B's (.trans) k +0/+8 x n-tiles j, j + 1 (b0, b1 of each) */
  MlirValue m2 = tcb_binary(&kbl, "arith.remui", lc->lm, cidx(&kbl, 2));
  MlirValue md2 = tcb_binary(&kbl, "arith.divui", lc->lm, cidx(&kbl, 2));
  MlirValue lodd = mulc(&kbl, m2, 8), lhalf = mulc(&kbl, md2, 8);
  MlirValue arow = add(&kbl, add(&kbl, k->row0, lc->lr), lodd), acol = add(&kbl, k0, mulc(&kbl, md2, kh));
  for (int64_t i = 0; i < p->bm && !split; i++) {
    if (afix) {
      memcpy(afr[i], afix[i], sizeof afr[i]);
      continue;
    }
    MlirValue e = add(&kbl, mulc(&kbl, addc(&kbl, arow, k->mstep * i), as), acol);
    ldmatrix4(L, &kbl, false, tc_nvptx_shared_address(L, &kbl, abuf, e), afr[i]);
  }
  MlirValue r0 = mulc(&kbl, ka, bs), r8 = mulc(&kbl, ka8, bs);
  MlirValue brow = mulc(&kbl, add(&kbl, add(&kbl, k0, lc->lr), lodd), bs), bcol = add(&kbl, k->col0, lhalf);
  for (int64_t j = 0; split && j < p->bn; j++)
    for (int x = 0; x < 2; x++) {
      /* b_x = B[ka + 8x .. +1][n]: x[n][ka + 8x ..] (one 64-bit load), or two rows of B */
      MlirValue kx = addc(&kbl, ka, 8 * x), v;
      if (p->btrans) v = load_v2(L, &kbl, bbuf, add(&kbl, mulc(&kbl, k->bcol[j], bs), kx));
      else {
        MlirValue i0 = add(&kbl, mulc(&kbl, kx, bs), k->bcol[j]);
        v = load_2(L, &kbl, bbuf, i0, addc(&kbl, i0, bs));
      }
      MlirValue parts[MAXP];
      bf16_parts(L, &kbl, v, np, parts);
      for (int q = 0; q < np; q++) bpart[j][q][x] = parts[q];
    }
  for (int64_t j = 0; p->btrans && !split && j < p->bn; j++) {
    /* bbuf is x = B^T, [N, K] row-major: B's column n is x's row n, so b0 = x[n][k0 + 2q..]
     * (tf32: x[n][k0 + q]) and ldmatrix without .trans: matrices (n-tile j, k +0), (j, k +kh),
     * (j + 1, +0), (j + 1, +kh) */
    if (j % 2 == 0 && j + 1 < p->bn) {
      MlirValue xr = add(&kbl, add(&kbl, addc(&kbl, k->col0, 8 * j), lc->lr), lhalf);
      MlirValue o[4];
      ldmatrix4(
          L, &kbl, false,
          tc_nvptx_shared_address(L, &kbl, bbuf, add(&kbl, mulc(&kbl, xr, bs), add(&kbl, k0, mulc(&kbl, m2, kh)))), o);
      bfr[j][0] = o[0], bfr[j][1] = o[1], bfr[j + 1][0] = o[2], bfr[j + 1][1] = o[3];
      j++;
      continue;
    }
    MlirValue xrow = mulc(&kbl, k->bcol[j], bs);
    if (s8) { /* b_x = x[n][k0 + 16x + 4q .. +3]: one 32-bit load each */
      MlirValue kq = add(&kbl, k0, mulc(&kbl, lc->q, 4));
      bfr[j][0] = load_b32(L, &kbl, bbuf, add(&kbl, xrow, kq));
      bfr[j][1] = load_b32(L, &kbl, bbuf, add(&kbl, xrow, addc(&kbl, kq, 16)));
      continue;
    }
    if (tf32) {
      MlirValue kq = add(&kbl, k0, lc->q);
      bfr[j][0] = load32(L, &kbl, bbuf, add(&kbl, xrow, kq));
      bfr[j][1] = load32(L, &kbl, bbuf, add(&kbl, xrow, addc(&kbl, kq, 4)));
      continue;
    }
    MlirValue i0 = add(&kbl, xrow, ka), i8 = add(&kbl, xrow, ka8);
    bfr[j][0] = pair32(L, &kbl, bbuf, i0, addc(&kbl, i0, 1));
    bfr[j][1] = pair32(L, &kbl, bbuf, i8, addc(&kbl, i8, 1));
  }
  for (int64_t j = 0; !p->btrans && tf32 && j < p->bn; j++) {
    /* B[k0 + q][n] and B[k0 + q + 4][n]: rows bs apart (bs = 8 mod 32: no bank conflicts) */
    MlirValue i0 = add(&kbl, mulc(&kbl, add(&kbl, k0, lc->q), bs), k->bcol[j]);
    bfr[j][0] = load32(L, &kbl, bbuf, i0);
    bfr[j][1] = load32(L, &kbl, bbuf, addc(&kbl, i0, 4 * bs));
  }
  for (int64_t j = 0; !p->btrans && s8 && j < p->bn; j++) {
    /* b_x = B[k0 + 16x + 4q .. +3][n]: four bytes of a column (ldmatrix.trans moves 16-bit
     * elements, not bytes), combined into the register (a staged B's rows, 16 mod 32 bytes
     * apart, put a load's lanes in at most 2 rows of a bank) */
    MlirValue i0 = add(&kbl, mulc(&kbl, add(&kbl, k0, mulc(&kbl, lc->q, 4)), bs), k->bcol[j]);
    bfr[j][0] = quad32(L, &kbl, bbuf, i0, bs);
    bfr[j][1] = quad32(L, &kbl, bbuf, addc(&kbl, i0, 16 * bs), bs);
  }
  for (int64_t j = 0; !p->btrans && !tf32 && !s8 && !split && j < p->bn; j++) {
    if (j % 2 == 0 && j + 1 < p->bn) {
      MlirValue o[4];
      ldmatrix4(L, &kbl, true, tc_nvptx_shared_address(L, &kbl, bbuf, add(&kbl, brow, addc(&kbl, bcol, 8 * j))), o);
      bfr[j][0] = o[0], bfr[j][1] = o[1], bfr[j + 1][0] = o[2], bfr[j + 1][1] = o[3];
      j++;
      continue;
    }
    MlirValue i0 = add(&kbl, r0, k->bcol[j]), i8 = add(&kbl, r8, k->bcol[j]);
    bfr[j][0] = pair32(L, &kbl, bbuf, i0, addc(&kbl, i0, bs));
    bfr[j][1] = pair32(L, &kbl, bbuf, i8, addc(&kbl, i8, bs));
  }
  for (int64_t j = 0; j < p->bn && !split; j++)
    for (int x = 0; x < 2; x++) {
      MlirValue parts[MAXP] = {bfr[j][x]};
      if (tf32) tf32_parts(L, &kbl, bfr[j][x], np, parts);
      for (int q = 0; q < np; q++) bpart[j][q][x] = parts[q];
    }
  MlirValue zero = np > 1 ? tcb_const_float(&kbl, vec4_f32(L), 0.0) : (MlirValue){NULL};
  MlirValue lowest = np > 1 ? tcb_const_float(&kbl, vec4_f32(L), -FLT_MAX) : (MlirValue){NULL};
  for (int64_t i = 0; i < p->bm; i++) {
    /* A's parts next to their MMAs: one m-tile's live at a time (tf32x3 on 4 x 8 tiles a
     * warp: 64 bytes of spills with all of them, 8 outside the k loop this way) */
    MlirValue apart[MAXP][4];
    for (int x = 0; x < 4; x++) {
      MlirValue parts[MAXP] = {afr[i][x]};
      if (split) /* a_x = A[row + 8 (x % 2)][ka + 8 (x / 2) ..] */
        bf16_parts(L, &kbl,
                   load_v2(L, &kbl, abuf,
                           add(&kbl, mulc(&kbl, addc(&kbl, k->row[i], 8 * (x % 2)), as), addc(&kbl, ka, 8 * (x / 2)))),
                   np, parts);
      else if (tf32) tf32_parts(L, &kbl, afr[i][x], np, parts);
      for (int q = 0; q < np; q++) apart[q][x] = parts[q];
    }
    for (int64_t j = 0; j < p->bn; j++) {
      int64_t t = i * p->bn + j;
      MlirValue c = c_in[t];
      if (np > 1) {
        MlirValue sm = zero;
        if (np == 3) {
          sm = mma(L, &kbl, p->ops, apart[1], bpart[j][1], sm);
          sm = mma(L, &kbl, p->ops, apart[2], bpart[j][0], sm);
          sm = mma(L, &kbl, p->ops, apart[0], bpart[j][2], sm);
        }
        sm = mma(L, &kbl, p->ops, apart[1], bpart[j][0], sm);
        sm = mma(L, &kbl, p->ops, apart[0], bpart[j][1], sm);
        sm = tcb_binary(&kbl, "arith.maxnumf", sm, lowest);
        c = tcb_binary(&kbl, "arith.addf", c, sm);
      }
      d[t] = mma(L, &kbl, p->ops, apart[0], bpart[j][0], c);
    }
  }
  *kb = kbl;
}

/* C += A x B over K for the warp's block: out[t] from in[t] (vector<4xf32> per tile): an
 * scf.for over the k steps, or, with A's fragments given for every k step (afix), the k
 * steps unrolled. */
static void k_loop(tc_lower *L, tc_builder *b, const mma_plan *p, const block_ctx *k, const lane_ctx *lc,
                   MlirValue abuf, MlirValue bbuf, const MlirValue *in, const a_frags *afix, MlirValue *out) {
  int nt = (int)(p->bm * p->bn);
  if (afix) {
    MlirValue cur[MAXT];
    memcpy(cur, in, sizeof(MlirValue) * (size_t)nt);
    for (int64_t kk = 0; kk * p->ks < p->K && !L->status; kk++) {
      k_step(L, b, p, k, lc, abuf, bbuf, cidx(b, kk * p->ks), cur, afix[kk], out);
      memcpy(cur, out, sizeof(MlirValue) * (size_t)nt);
    }
    return;
  }
  MlirOperation kf;
  MlirBlock kb = tc_build_for(L, b, cidx(b, 0), cidx(b, p->K), cidx(b, p->ks), nt, in, &kf);
  if (L->status) return;
  /* Two k steps (a BK = 32 fp16 or BK = 64 int8 trip) are unrolled, which LLVM leaves rolled
   * for the body's size: the fragments' addresses become constant offsets (fp16 matmul
   * 128x128x32: 547 -> 510 SASS instructions a trip). Longer ones LLVM unrolls itself where it
   * pays, and forcing tf32's four k8 steps spilled. */
  if (p->K / p->ks == 2 && p->ops != OPS_TF32 && !p->split16) tc_nvptx_unroll(L, kf, true);
  tc_builder kbl;
  tcb_init(&kbl, L->ctx);
  kbl.loc = b->loc;
  tcb_set_end(&kbl, kb);
  MlirValue c[MAXT], d[MAXT];
  for (int t = 0; t < nt; t++) c[t] = mlirBlockGetArgument(kb, 1 + (intptr_t)t);
  k_step(L, &kbl, p, k, lc, abuf, bbuf, mlirBlockGetArgument(kb, 0), c, NULL, d);
  if (L->status) return;
  tcb_op(&kbl, "scf.yield", 0, NULL, nt, d, 0, NULL);
  for (int t = 0; t < nt; t++) out[t] = mlirOperationGetResult(kf, t);
}

/* ---- operands ------------------------------------------------------------------------------ */

/* A 2-D operand that is a tile load (masked, or an elementwise op of a masked one) in a
 * shared buffer of its own, in 128-bit chunks dealt to the threads (u chunks each,
 * unrolled; an unmasked load: all at once): when the masks of
 * all of a thread's chunks are all true at run time (every program inside a matmul's
 * edges) they load unmasked — one ld.global.v4 each where the axis analysis proves the
 * alignment, all issued before the shared stores — else lane by lane. Anything else (or
 * chunks not dealt evenly, or more than 16 a thread): tc_dot_operand. */
#define MAX_STAGE 16
int64_t tc_nvptx_operand_stride(int64_t cols, unsigned bits, int64_t bank) {
  int64_t unit = 128 / (int64_t)bits, pad = (cols / unit) % 2 ? 0 : unit;
  if (bank) pad = ((bank - cols) % 32 + 32) % 32;
  return cols + pad;
}

/* Can stage_operand write old in 16-byte chunks (a tile load, masked or plain)? Its mask in
 * *mask (null: plain), the chunks' elements *w, a row's chunks *per_row, a thread's *u. */
static bool stage_fits(tc_lower *L, MlirValue old, MlirValue *mask, int64_t *w, int64_t *per_row, int64_t *u) {
  MlirType t = mlirValueGetType(old);
  int64_t shape[TC_RANK];
  if (tc_shape_of(t, shape) != 2) return false;
  *mask = tc_load_mask_within(L, old, t, 0);
  *w = 128 / (int64_t)tcb_bitwidth(mlirShapedTypeGetElementType(t));
  bool plain = mlirValueIsNull(*mask) && mlirValueIsAOpResult(old) &&
               tile_op_of(mlirOpResultGetOwner(old)) == TILE_LOAD &&
               mlirOperationGetNumOperands(mlirOpResultGetOwner(old)) == 1;
  if ((mlirValueIsNull(*mask) && !plain) || shape[1] % *w) return false;
  int64_t nthreads = tc_target_threads(L->target);
  *per_row = shape[1] / *w;
  *u = shape[0] * *per_row / nthreads;
  return (shape[0] * *per_row) % nthreads == 0 && *u <= MAX_STAGE;
}

/* Could old be staged in wgmma's swizzled layout (stage_operand with swizzled)? */
static bool stage_swizzled_fits(tc_lower *L, MlirValue old) {
  MlirValue mask;
  int64_t w, per_row, u, shape[TC_RANK];
  return stage_fits(L, old, &mask, &w, &per_row, &u) && tc_shape_of(mlirValueGetType(old), shape) == 2 &&
         tc_nvptx_swizzle_fits(shape[0], per_row);
}

/* old (a 2-D tile) written to a shared buffer of its own; swizzled: in wgmma's swizzled
 * layout (1024-byte aligned, tc_nvptx_swizzled_at; *stride 0), which stage_swizzled_fits
 * must have allowed. */
static MlirValue stage_operand(tc_lower *L, MlirValue old, int64_t bank, bool copy, bool swizzled, int64_t *stride) {
  MlirType t = mlirValueGetType(old);
  MlirType e = mlirShapedTypeGetElementType(t);
  int64_t shape[TC_RANK];
  tc_shape_of(t, shape);
  *stride = shape[1];
  tc_special *s = tc_special_of(L, old);
  if (!copy && !swizzled && s && s->kind == TC_SPECIAL_BUFFER) return s->buffer;
  MlirValue mask;
  int64_t w, per_row, u, nthreads = tc_target_threads(L->target);
  if (!stage_fits(L, old, &mask, &w, &per_row, &u)) return tc_dot_operand(L, old);
  bool plain = mlirValueIsNull(mask);
  /* Rows padded to an odd number of 16-byte units: the 8 rows an ldmatrix reads fall in 8
   * different bank groups (128 unpadded bytes a row: all in one, 8-way conflicts). Operands
   * read element by element (fp32: a tf32 B, bf16 parts) instead: rows `bank` banks apart mod
   * 32 — 8 for a tf32 B (rows k0 + q, columns n + g of a warp's lanes) and 64-bit pairs of a
   * row (rows g of a half warp, columns 2q), 4 for the pairs of rows k0 + 2q, k0 + 2q + 1 —
   * so a warp's loads hit distinct banks. The padded buffer is the dot's own (other readers
   * of the tile expect row-major). */
  *stride = swizzled ? 0 : tc_nvptx_operand_stride(shape[1], tcb_bitwidth(e), bank);
  bool pad = swizzled || *stride != shape[1];
  MlirValue buf =
      swizzled ? tc_nvptx_alloc_aligned(L, e, shape[0] * shape[1], 1024) : tc_alloc_buffer(L, e, shape[0] * *stride);
  if (L->status) return buf;
  tc_builder *b = &L->b;
  tc_nvptx_barrier(L, b); /* earlier readers of the buffer's space are done */
  MlirValue tid = tc_nvptx_thread_id(L, b);
  tc_pos pos[MAX_STAGE];
  MlirValue at[MAX_STAGE], full = {NULL};
  tc_chunk pre;
  tc_chunk_init(&pre, L, b->block, w);
  pre.b = *b;
  for (int64_t k = 0; k < u && !L->status; k++) {
    MlirValue ch = addc(&pre.b, tid, k * nthreads);
    pos[k] = (tc_pos){.rank = 2, .chunked = true};
    pos[k].idx[0] = tcb_binary(&pre.b, "arith.divui", ch, cidx(&pre.b, per_row));
    pos[k].idx[1] = mulc(&pre.b, tcb_binary(&pre.b, "arith.remui", ch, cidx(&pre.b, per_row)), w);
    at[k] = swizzled ? tc_nvptx_swizzled_at(&pre.b, per_row, w, pos[k].idx[0],
                                            tcb_binary(&pre.b, "arith.remui", ch, cidx(&pre.b, per_row)))
                     : add(&pre.b, mulc(&pre.b, pos[k].idx[0], *stride), pos[k].idx[1]);
    if (plain) continue;
    MlirValue m = tc_eval(&pre, mask, &pos[k]).vec;
    if (L->status) break;
    MlirNamedAttribute kind = tcb_named(L->ctx, "kind", tcb_attr(L->ctx, "#vector.kind<and>"));
    MlirValue f = tcb_op1(&pre.b, "vector.reduction", tcb_int_type(L->ctx, 1), 1, &m, 1, &kind);
    full = k ? tcb_binary(&pre.b, "arith.andi", full, f) : f;
  }
  *b = pre.b;
  tc_chunk_free(&pre);
  if (L->status) return buf;
  tc_builder fb, gb;
  if (plain) fb = *b;
  else tcb_if(b, full, 0, NULL, &fb, &gb);
  MlirNamedAttribute al = tcb_named(L->ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), 16));
  for (int f = plain ? 1 : 0; f < 2 && !L->status; f++) {
    tc_builder at_b = f ? fb : gb;
    MlirValue v[MAX_STAGE];
    for (int64_t k = 0; k < u && !L->status; k++) {
      tc_chunk c;
      tc_chunk_init(&c, L, at_b.block, w);
      c.b = at_b;
      c.mode = f && !plain ? TC_CHUNK_FULL : TC_CHUNK_GENERIC;
      c.bound_mask = f ? mask : (MlirValue){NULL};
      c.root = pos[k];
      v[k] = tc_eval(&c, old, &pos[k]).vec;
      at_b = c.b;
      tc_chunk_free(&c);
    }
    if (L->status) break;
    for (int64_t k = 0; k < u; k++) {
      MlirValue o[3] = {v[k], buf, at[k]};
      tcb_op(&at_b, "vector.store", 0, NULL, 3, o, 1, &al);
    }
    if (plain) *b = at_b;
    else tcb_op(&at_b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  }
  /* wgmma reads a swizzled operand through the async proxy: the stores (generic proxy) are
   * made visible to it before the barrier that publishes them */
  if (swizzled) tc_nvptx_asm(L, b, "fence.proxy.async.shared::cta;");
  tc_nvptx_barrier(L, b); /* the operand is complete */
  if (!copy && !pad && (s = tc_special_put(L, old))) {
    memset(s, 0, sizeof *s);
    s->kind = TC_SPECIAL_BUFFER;
    s->buffer = buf;
    s->fill_block = b->block;
  }
  return buf;
}

/* ---- a row-major int8 B, transposed ------------------------------------------------------- */

/* B (K x N int8, rows bs apart in buf, bs and N multiples of 16) written transposed to a new
 * buffer x = B^T (N x K, rows padded to an odd number of 16-byte units: ldmatrix without
 * bank conflicts), so that B's s8 fragments are read like a tl.trans B's, with ldmatrix
 * (ldmatrix.trans moves 16-bit elements, not bytes: a row-major B would take four byte loads
 * a register). The threads take 4 x 16 blocks (rows k .. k + 3, columns n .. n + 15); each
 * reads its block's 4 rows with 16-byte loads and writes its 16 columns as 32-bit words of x,
 * the bytes regrouped by two shuffles (prmt). Consecutive threads take pairs of blocks side by
 * side along N, then the next 4 rows: a warp's 32-bit stores (16 k-groups x 2, x's rows 16
 * apart in the same banks) conflict 2-way at K = 64, the least this layout allows, and the
 * 16-byte loads of a quarter warp (4 rows 4 apart x 2 blocks, in 4 of B's 8 16-byte bank
 * slots: its rows are an odd number of 16-byte units) 2-way too. Per BK = 64 trip
 * of a 128 x 128 tile this replaces 128 byte loads (and their combining) a thread by 4
 * 16-byte loads, 16 32-bit stores and 8 ldmatrix. Only for a dot whose C a loop carries in
 * the fragments (B read every trip): a one-off dot reads B's bytes once a round, and its C
 * in shared memory leaves less room (two 128 x 128 int32 ones and x pass sm_80's 163 KB).
 * Out: x; *xs its row stride. */
static MlirValue transpose_s8(tc_lower *L, MlirValue buf, int64_t K, int64_t N, int64_t bs, int64_t *xs) {
  int64_t kgs = K / 4, ncs = N / 16, total = kgs * ncs, nthreads = tc_target_threads(L->target);
  int64_t side = ncs % 2 ? 1 : 2; /* blocks side by side along N in a thread pair */
  *xs = K + ((K / 16) % 2 ? 0 : 16);
  MlirType i8 = tcb_int_type(L->ctx, 8);
  MlirValue x = tc_alloc_buffer(L, i8, N * *xs);
  if (L->status) return x;
  tc_builder *b = &L->b;
  tc_nvptx_barrier(L, b); /* earlier readers of x's space are done */
  MlirValue tid = tc_nvptx_thread_id(L, b);
  MlirType v16 = tc_vec_type(L->ctx, 16, i8), v32 = tc_vec_type(L->ctx, 32, i8), v64 = tc_vec_type(L->ctx, 64, i8),
           v4 = tc_vec_type(L->ctx, 4, i8);
  MlirNamedAttribute a16 = tcb_named(L->ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), 16));
  MlirNamedAttribute a4 = tcb_named(L->ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), 4));
  int64_t pairs[32], quads[64];
  for (int n = 0; n < 16; n++) {
    pairs[2 * n] = n, pairs[2 * n + 1] = 16 + n;                                 /* (v0[n], v1[n]) */
    for (int r = 0; r < 4; r++) quads[4 * n + r] = (r / 2) * 32 + 2 * n + r % 2; /* (v0..v3[n]) */
  }
  for (int64_t r = 0; r * nthreads < total; r++) {
    MlirValue blk = addc(b, tid, r * nthreads);
    bool guard = (r + 1) * nthreads > total;
    tc_builder in = *b;
    if (guard) tcb_if(b, tcb_cmpi(b, "ult", blk, cidx(b, total)), 0, NULL, &in, NULL);
    MlirValue rest = tcb_binary(&in, "arith.divui", blk, cidx(&in, side));
    MlirValue k0 = mulc(&in, tcb_binary(&in, "arith.remui", rest, cidx(&in, kgs)), 4);
    MlirValue nb = add(&in, mulc(&in, tcb_binary(&in, "arith.divui", rest, cidx(&in, kgs)), side),
                       tcb_binary(&in, "arith.remui", blk, cidx(&in, side)));
    MlirValue n0 = mulc(&in, nb, 16);
    MlirValue v[4];
    for (int i = 0; i < 4; i++) {
      MlirValue o[2] = {buf, add(&in, mulc(&in, addc(&in, k0, i), bs), n0)};
      v[i] = tcb_op1(&in, "vector.load", v16, 2, o, 1, &a16);
    }
    MlirValue w01 = tc_mma_shuffle(L, &in, v[0], v[1], 32, pairs, v32),
              w23 = tc_mma_shuffle(L, &in, v[2], v[3], 32, pairs, v32);
    MlirValue t = tc_mma_shuffle(L, &in, w01, w23, 64, quads, v64);
    MlirValue at = add(&in, mulc(&in, n0, *xs), k0);
    for (int64_t n = 0; n < 16; n++) {
      int64_t m[4] = {4 * n, 4 * n + 1, 4 * n + 2, 4 * n + 3};
      MlirValue o[3] = {tc_mma_shuffle(L, &in, t, t, 4, m, v4), x, addc(&in, at, n * *xs)};
      tcb_op(&in, "vector.store", 0, NULL, 3, o, 1, &a4);
    }
    if (guard) tcb_op(&in, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    else *b = in;
  }
  return x;
}

/* ---- tl.trans of a B operand ---------------------------------------------------------------- */

/* The source of v when v is a 2-D tl.trans (order [1, 0]), else null: a tensor-core dot reads
 * such a B operand's source transposed with ldmatrix (tc_nvptx_emit_dot's btrans). */
static MlirValue transposed_source(MlirValue v) {
  MlirValue none = {NULL};
  if (!mlirValueIsAOpResult(v) || tile_op_of(mlirOpResultGetOwner(v)) != TILE_TRANS) return none;
  MlirOperation tr = mlirOpResultGetOwner(v);
  MlirAttribute order = mlirOperationGetAttributeByName(tr, mlirStringRefCreateFromCString("order"));
  int64_t xs[TC_RANK];
  bool ok = !mlirAttributeIsNull(order) && mlirDenseArrayGetNumElements(order) == 2 &&
            mlirDenseI32ArrayGetElement(order, 0) == 1 &&
            tc_shape_of(mlirValueGetType(mlirOperationGetOperand(tr, 0)), xs) == 2;
  return ok ? mlirOperationGetOperand(tr, 0) : none;
}

/* Is op such a tl.trans whose only reader is operand 1 of a tl.dot run on tensor cores? That
 * dot stages (or pipelines) the trans's source itself: it need not be written to a buffer first. */
static bool trans_of_mma_b(tc_lower *L, MlirOperation op) {
  MlirValue r = mlirOperationGetResult(op, 0);
  MlirOpOperand u = mlirValueGetFirstUse(r);
  if (mlirOpOperandIsNull(u) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u)) ||
      mlirOpOperandGetOperandNumber(u) != 1 || mlirValueIsNull(transposed_source(r)))
    return false;
  MlirOperation dot = mlirOpOperandGetOwner(u);
  mma_plan p;
  return tile_op_of(dot) == TILE_DOT && tc_mma_plan_of(L, dot, tc_mma_carry_of_dot(L, dot) ? MAXT : MAXT_ROUND, &p);
}

int tc_nvptx_emit_trans(tc_lower *L, MlirOperation *roots, int n) {
  if (trans_of_mma_b(L, roots[0])) return 1;
  return tc_emit_trans(L, roots, n);
}

/* ---- the dot root ------------------------------------------------------------------------- */

/* A dot operand computed outside the loop the dot stands in (attention's q, whose row-major
 * buffer's 128-byte rows would put the 8 rows of every ldmatrix in one bank group: 8-way
 * conflicts, each trip): staged once before the new loop, its rows padded (stage_operand) when
 * padding changes its layout, or in wgmma's swizzled layout (swizzled). One copy per operand,
 * new loop and layout (bank -1: swizzled). hoist_slot: the index of old's copy among the
 * kernel's (fs->nhoist: a new one), or -1 when it is not hoisted; hoisted_operand: the copy,
 * made where it is new, or null. */
static int hoist_slot(tc_lower *L, MlirOperation dot, MlirValue old, int64_t bank, bool swizzled) {
  MlirOperation oloop = mlirOperationGetParentOperation(dot), nloop = mlirBlockGetParentOperation(L->b.block);
  int64_t shape[TC_RANK];
  MlirType t = mlirValueGetType(old);
  if (mlirOperationIsNull(oloop) || !tc_op_is(oloop, "scf.for") || !tc_outside_loop(old, oloop) ||
      mlirOperationIsNull(nloop) || !tc_op_is(nloop, "scf.for") || tc_shape_of(t, shape) != 2 ||
      (swizzled ? !stage_swizzled_fits(L, old)
                : tc_nvptx_operand_stride(shape[1], tcb_bitwidth(mlirShapedTypeGetElementType(t)), bank) == shape[1]))
    return -1;
  frag_set *fs = tc_mma_frags_of(L);
  if (!fs) return -1;
  if (swizzled) bank = -1;
  for (int i = 0; i < fs->nhoist; i++)
    if (mlirValueEqual(fs->hoist[i].old, old) && mlirOperationEqual(fs->hoist[i].nloop, nloop) &&
        fs->hoist[i].bank == bank)
      return i;
  return fs->nhoist < MAXH ? fs->nhoist : -1;
}

static MlirValue hoisted_operand(tc_lower *L, MlirOperation dot, MlirValue old, int64_t bank, bool swizzled,
                                 int64_t *stride) {
  int i = hoist_slot(L, dot, old, bank, swizzled);
  if (i < 0) return (MlirValue){NULL};
  frag_set *fs = tc_mma_frags_of(L);
  if (i < fs->nhoist) {
    *stride = fs->hoist[i].stride;
    return fs->hoist[i].buf;
  }
  MlirOperation nloop = mlirBlockGetParentOperation(L->b.block);
  tc_builder saved = L->b;
  tcb_set_before(&L->b, nloop);
  MlirValue buf = stage_operand(L, old, bank, true, swizzled, stride);
  L->b = saved;
  if (L->status) return (MlirValue){NULL};
  fs->hoist[fs->nhoist++] = (struct hoisted){old, nloop, swizzled ? -1 : bank, buf, *stride};
  return buf;
}

/* Can a dot of plan p read its A from fragment tiles of plan src (attention's p @ v)? */
static bool a_compatible(const mma_plan *src, const mma_plan *p) {
  return src->bm == p->bm && src->M == p->M && src->N == p->K && src->wg == p->wg && p->ks == 16 && p->rounds == 1 &&
         !p->split16 && p->ops != OPS_TF32;
}

/* Where a tensor-core dot of plan p reads its operands from: olds = A (null: the fragments'
 * registers, afix) and B (tl.trans's source when btrans) with their banks; frag_result: C
 * stays in the fragments (attention's scores); try_wg (sm_90a): wgmma's layouts are worth
 * trying, wg_pipe the operands to pipeline swizzled then (all or none), the others (a value
 * the loop does not change: attention's q) staged once before the loop (hoisted_operand); A
 * from registers stays there. Else padded rows (the pipeline's, or staged). Both the dot
 * and the pipeline's look ahead (tc_nvptx_dot_request) decide by this. */
typedef struct dot_operands {
  MlirValue olds[2];
  int64_t banks[2];
  bool frag_result, try_wg;
  MlirValue wg_pipe[2];
} dot_operands;

static void operands_of(tc_lower *L, MlirOperation op, mma_plan *p, bool carry, bool afix, dot_operands *d) {
  MlirValue aop = mlirOperationGetOperand(op, 0), bop = mlirOperationGetOperand(op, 1), bsrc = transposed_source(bop);
  if (!mlirValueIsNull(bsrc)) p->btrans = true, bop = bsrc;
  int64_t bbank = p->split16 ? (p->btrans ? 8 : 4) : p->ops == OPS_TF32 && !p->btrans ? 8 : 0;
  *d = (dot_operands){.olds = {afix ? (MlirValue){NULL} : aop, bop}, .banks = {p->split16 ? 8 : 0, bbank}};
  d->frag_result = !carry && !afix && p->rounds == 1 && tc_mma_frag_eligible(L, op);
  /* a K-major A, or B = tl.trans(x), has rows of 2 K bytes, an N-major B of 2 N */
  d->try_wg = p->wg && (carry || d->frag_result) && tc_wgmma_runs(p, afix) &&
              (afix || tc_nvptx_swizzle_fits(8, p->K / 8)) && tc_nvptx_swizzle_fits(8, (p->btrans ? p->K : p->N) / 8);
  for (int i = 0; d->try_wg && i < 2; i++)
    d->wg_pipe[i] =
        mlirValueIsNull(d->olds[i]) || hoist_slot(L, op, d->olds[i], 0, true) >= 0 ? (MlirValue){NULL} : d->olds[i];
}

bool tc_nvptx_dot_request(tc_lower *L, MlirOperation dot, tc_pipe_request *r) {
  mma_carry *carry = tc_mma_carry_of_dot(L, dot);
  mma_plan p, q;
  int64_t cs[TC_RANK], as[TC_RANK];
  if (!tc_mma_plan_of(L, dot, carry ? MAXT : MAXT_ROUND, &p)) return false;
  /* A from the fragments: a dot kept in them in A's cone (as tc_mma_frag_in_cone will find it) */
  MlirOperation src = tc_mma_frag_a_source(L, dot);
  bool afix = !mlirOperationIsNull(src) && tc_mma_types(L, src, &q, cs, as) &&
              tc_mma_make_plan(L, cs[0], cs[1], as[1], MAXT_ROUND, true, &q) && a_compatible(&q, &p);
  dot_operands d;
  operands_of(L, dot, &p, carry != NULL, afix, &d);
  *r = (tc_pipe_request){.try_wg = d.try_wg,
                         .wg = {d.wg_pipe[0], d.wg_pipe[1]},
                         .olds = {d.olds[0], d.olds[1]},
                         .banks = {d.banks[0], d.banks[1]}};
  return true;
}

/* Is the tile old already in a buffer (staging it writes nothing)? */
static bool is_buffer(tc_lower *L, MlirValue old) {
  tc_special *s = tc_special_of(L, old);
  return s && s->kind == TC_SPECIAL_BUFFER;
}

int tc_nvptx_emit_dot(tc_lower *L, MlirOperation *roots, int n) {
  MlirOperation op = roots[0];
  mma_plan p;
  mma_carry *carry = tc_mma_carry_of_dot(L, op);
  if (!tc_mma_plan_of(L, op, carry ? MAXT : MAXT_ROUND, &p)) return tc_emit_dot(L, roots, n);
  tc_builder *b = &L->b;
  b->loc = mlirOperationGetLocation(op);
  MlirValue aop = mlirOperationGetOperand(op, 0), abuf = {NULL};
  frag_tile *asrc = tc_mma_frag_in_cone(L, aop, 0);
  if (asrc && !a_compatible(&asrc->plan, &p))
    asrc = NULL; /* never by frag_eligible's plans; the staged path reads it then */
  dot_operands d;
  operands_of(L, op, &p, carry != NULL, asrc != NULL, &d);
  MlirValue bop = d.olds[1], bufs[2] = {{NULL}, {NULL}};
  int64_t strides[2] = {0, 0};
  bool frag_result = d.frag_result, fenced = false;
  /* operands loaded in the K loop around the dot: num_stages - 1 trips ahead (nvptx_pipeline.c);
   * sm_90a: in wgmma's swizzled layouts (d.wg_pipe all, or none), the others staged once */
  int piped = 0, need = 0;
  for (int i = 0; i < 2; i++) need += !mlirValueIsNull(d.wg_pipe[i]);
  bool wg = d.try_wg && (!need || (piped = tc_nvptx_pipeline_operands(L, op, d.wg_pipe, d.banks, 2, true, bufs, strides,
                                                                      &fenced)) == need);
  if (!wg) piped = tc_nvptx_pipeline_operands(L, op, d.olds, d.banks, 2, false, bufs, strides, &fenced);
  if (wg && !asrc && mlirValueIsNull(bufs[0])) bufs[0] = hoisted_operand(L, op, aop, 0, true, &strides[0]);
  if (wg && mlirValueIsNull(bufs[1])) bufs[1] = hoisted_operand(L, op, bop, 0, true, &strides[1]);
  if (L->status) return 1;
  if (wg && (mlirValueIsNull(bufs[1]) || (!asrc && mlirValueIsNull(bufs[0])))) {
    tc_fail_here(L, TILEC_ERROR_INTERNAL, "a wgmma operand could not be staged");
    return 1;
  }
  bool staged = false; /* an operand written to shared memory after the pipeline's barrier */
  if (!mlirValueIsNull(bufs[0])) abuf = bufs[0], p.as = strides[0];
  else if (!asrc && mlirValueIsNull(abuf = hoisted_operand(L, op, aop, d.banks[0], false, &p.as)))
    staged |= !is_buffer(L, aop), abuf = stage_operand(L, aop, d.banks[0], false, false, &p.as);
  MlirValue bbuf = bufs[1];
  if (!mlirValueIsNull(bbuf)) p.bs = strides[1];
  else if (mlirValueIsNull(bbuf = hoisted_operand(L, op, bop, d.banks[1], false, &p.bs)))
    staged |= !is_buffer(L, bop), bbuf = stage_operand(L, bop, d.banks[1], false, false, &p.bs);
  if (L->status) return 1;
  if (carry && p.ops == OPS_S8 && !p.btrans && p.N % 16 == 0 && p.bs % 16 == 0) { /* read as tl.trans(B^T) */
    bbuf = transpose_s8(L, bbuf, p.K, p.N, p.bs, &p.bs);
    p.btrans = true;
    fenced = false; /* the transpose is complete after the barrier below, not the pipeline's */
    if (L->status) return 1;
  }
  /* The pipeline's barrier (emitted at this dot, after every earlier nest of the trip, or at
   * the first dot of its group with nothing written since) already makes the operands and
   * what A and acc read complete, unless an operand was written after it. */
  fenced = fenced && !staged;
  MlirValue acc = mlirOperationGetOperand(op, 2);
  a_frags *afix = NULL;
  if (asrc) {
    if (!fenced) tc_nvptx_barrier(L, b); /* B and what A reads from earlier nests are complete */
    afix = malloc(sizeof(a_frags) * (size_t)(p.K / p.ks));
    if (!afix) {
      tc_fail_here(L, TILEC_ERROR_INTERNAL, "out of memory");
      return 1;
    }
    tc_mma_frag_a(L, b, asrc, aop, p.K / p.ks, afix);
  }
  if (carry) {                                    /* C in the loop's fragments */
    if (!fenced && !asrc) tc_nvptx_barrier(L, b); /* the operands are complete */
    lane_ctx lc = tc_mma_lane_of(L, b);
    block_ctx k = tc_mma_block_of(b, &p, &lc, (MlirValue){NULL});
    MlirValue cin[MAXT];
    tc_mma_eval_fragments(L, b, &p, &k, acc, carry->arg, carry->in, cin);
    if (!L->status && wg) tc_wgmma_k_loop(L, b, &p, &lc, abuf, bbuf, afix, false, cin, carry->out);
    else if (!L->status) k_loop(L, b, &p, &k, &lc, abuf, bbuf, cin, afix, carry->out);
    free(afix);
    carry->emitted = true;
    return 1;
  }
  frag_set *fs = frag_result ? tc_mma_frags_of(L) : NULL;
  if (fs) {                              /* C stays in the fragments */
    if (!fenced) tc_nvptx_barrier(L, b); /* the operands and what acc reads are complete */
    lane_ctx lc = tc_mma_lane_of(L, b);
    block_ctx k = tc_mma_block_of(b, &p, &lc, (MlirValue){NULL});
    frag_tile f = {.old = mlirOperationGetResult(op, 0), .plan = p};
    MlirValue cin[MAXT];
    bool zero = wg && tc_is_zero_splat(acc, false); /* wgmma's scale-d 0: C = A x B */
    if (!zero) tc_mma_eval_fragments(L, b, &p, &k, acc, (MlirValue){NULL}, NULL, cin);
    if (!L->status && wg) tc_wgmma_k_loop(L, b, &p, &lc, abuf, bbuf, NULL, zero, cin, f.vals);
    else if (!L->status) k_loop(L, b, &p, &k, &lc, abuf, bbuf, cin, NULL, f.vals);
    if (!L->status) tc_mma_frag_put(L, fs, f, L->b.block);
    return 1;
  }
  MlirValue cbuf = tc_dot_destination(L, op);
  if (L->status) return 1;
  tc_nvptx_barrier(L, b); /* the operands and what acc reads are complete */
  lane_ctx lc = tc_mma_lane_of(L, b);
  MlirBlock rb = tc_build_for(L, b, cidx(b, 0), cidx(b, p.rounds), cidx(b, 1), 0, NULL, NULL);
  tc_builder r;
  tcb_init(&r, L->ctx);
  r.loc = b->loc;
  tcb_set_end(&r, rb);
  block_ctx k = tc_mma_block_of(&r, &p, &lc, mlirBlockGetArgument(rb, 0));
  MlirValue cin[MAXT], cout[MAXT];
  tc_mma_eval_fragments(L, &r, &p, &k, acc, (MlirValue){NULL}, NULL, cin);
  if (L->status) return 1;
  k_loop(L, &r, &p, &k, &lc, abuf, bbuf, cin, afix, cout);
  free(afix);
  afix = NULL;
  if (L->status) return 1;
  tc_mma_store_fragments(L, &r, &p, &k, cbuf, cout);
  tcb_op(&r, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tc_nvptx_barrier(L, b); /* C is complete for every thread */
  tc_special *s = tc_special_put(L, mlirOperationGetResult(op, 0));
  s->kind = TC_SPECIAL_BUFFER;
  s->buffer = cbuf;
  return 1;
}
