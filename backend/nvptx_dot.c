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
 * the next tl.dot (attention's scores) stays in the fragments instead: "dot results kept
 * in fragments" below.
 *
 * Loop-carried accumulators (tc_nvptx_mma_carries, the backend's loop_carries): a tile an
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
 * this backend's shared_loop). In: a tile.dot root, or an scf.for. Out: the dot's result as
 * a shared buffer. */
#include "backend/nvptx.h"

#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"
#include "dialects/tile.h"
#include <float.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>
#include <string.h>

#define WARP TC_WARP_SIZE
#define MAXT 32       /* C tiles a warp keeps in registers (4 f32 each) across a loop */
#define MAXT_ROUND 16 /* ... in one round of a dot whose C goes to shared memory */

/* The chip's compute capability (sm_80 -> 80); the emulator has every instruction. */
static int capability(const tc_lower *L) {
  if (L->target->gpu_emulation) return 1000;
  const char *a = L->target->cpu;
  return a && !strncmp(a, "sm_", 3) ? atoi(a + 3) : 0;
}

typedef enum mma_ops { OPS_F16, OPS_BF16, OPS_TF32, OPS_S8 } mma_ops;

/* How C's tiles are dealt: blocks of bm x bn tiles, `active` warps per round. */
typedef struct mma_plan {
  int64_t M, N, K;
  int64_t bm, bn; /* tiles of a warp block */
  int64_t nblk_n; /* blocks along N */
  int64_t active; /* warps holding a block each round (the others repeat one) */
  int64_t rounds;
  mma_ops ops;    /* the operands' type on the tensor cores */
  int nparts;     /* fp32 operands: parts each is split into (tf32: 1, tf32x3 and bf16x3: 2, bf16x6: 3) */
  bool split16;   /* fp32 operands as bf16 parts (bf16x3, bf16x6) on the bf16 MMA */
  int64_t ks;     /* K of one MMA: 16 (16-bit operands), 8 (tf32) or 32 (s8) */
  bool btrans;    /* B is tl.trans(x): its fragments are read from x's rows */
  int64_t as, bs; /* elements between rows of A's and B's (x's) buffers (padded: staged) */
  MlirType ce;    /* C's element type (f32, or f16/bf16 rounded once; s8: i32) */
} mma_plan;

/* A plan for C of M x N over K with the target's warps; false when none fits. The warps
 * form a wm x wn grid (powers of 2 dividing the tile counts) with the most warps busy,
 * then the fewest fragment registers loaded per MMA ((4 bm + 2 bn) / (bm bn)). rows: the
 * warps along M only (each holds whole rows: fragment tiles, below). */
static bool make_plan(tc_lower *L, int64_t M, int64_t N, int64_t K, int64_t maxt, bool rows, mma_plan *p) {
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

/* The four 32-bit values the emulator's warp-wide routines (runtime/emu.c) wrote to a
 * thread's scratch (tc_nvptx_scratch), as values of type t. */
static void load_scratch(tc_lower *L, tc_builder *b, MlirValue scratch, MlirType t, MlirValue *out) {
  for (int i = 0; i < 4; i++) {
    int32_t gi = i;
    MlirNamedAttribute ga[2] = {tcb_named(L->ctx, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 1, &gi)),
                                tcb_named(L->ctx, "elem_type", mlirTypeAttrGet(t))};
    MlirValue ptr = tcb_op1(b, "llvm.getelementptr", tcb_type(L->ctx, "!llvm.ptr"), 1, &scratch, 2, ga);
    out[i] = tcb_op1(b, "llvm.load", t, 1, &ptr, 0, NULL);
  }
}

/* Whether op is a dot this file computes on tensor cores, and its plan. */
static bool frag_rows(tc_lower *L, MlirOperation dot);

/* A signed or signless 8-bit integer type (s8 on the tensor cores). */
static bool is_s8(MlirType t) {
  return mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 8 && !mlirIntegerTypeIsUnsigned(t);
}

/* The tensor-core form of a tl.dot (operand types, k step), without a plan. */
static bool mma_types(tc_lower *L, MlirOperation op, mma_plan *p, int64_t *cs, int64_t *as) {
  if (tc_nvptx_alone(L) || capability(L) < 80) return false;
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

static bool mma_dot(tc_lower *L, MlirOperation op, int64_t maxt, mma_plan *p) {
  int64_t as[TC_RANK], cs[TC_RANK];
  mma_plan t;
  if (!mma_types(L, op, &t, cs, as) || !make_plan(L, cs[0], cs[1], as[1], maxt, frag_rows(L, op), p)) return false;
  p->ops = t.ops, p->nparts = t.nparts, p->split16 = t.split16, p->ks = t.ks, p->ce = t.ce;
  return true;
}

/* ---- fragments ------------------------------------------------------------------------ */

static MlirValue cidx(tc_builder *b, int64_t c) { return tcb_const_index(b, c); }
static MlirValue add(tc_builder *b, MlirValue x, MlirValue y) { return tcb_binary(b, "arith.addi", x, y); }
static MlirValue addc(tc_builder *b, MlirValue x, int64_t c) { return c ? add(b, x, cidx(b, c)) : x; }
static MlirValue mulc(tc_builder *b, MlirValue x, int64_t c) { return tcb_binary(b, "arith.muli", x, cidx(b, c)); }

/* This thread's place: its warp, and g, 2q of its lane. */
typedef struct lane_ctx {
  MlirValue warp, g, q, q2;
  MlirValue lm, lr; /* ldmatrix: the 8x8 matrix (lane / 8) and row (lane % 8) this lane addresses */
} lane_ctx;

static lane_ctx lane_of(tc_lower *L, tc_builder *b) {
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

/* A warp block's rows and columns for this lane: row[i] = its A/C row g of m-tile i (row
 * g + 8 is row[i] + 8), col[j] = its C column 2q of n-tile j, bcol[j] = its B column g. */
typedef struct block_ctx {
  MlirValue row[MAXT], col[MAXT], bcol[MAXT];
  MlirValue row0, col0; /* the block's first row and column */
  MlirValue valid;      /* i1: this warp keeps what it computes */
} block_ctx;

/* The block of warp lc->warp in round r (an index; null: round 0). */
static block_ctx block_of(tc_builder *b, const mma_plan *p, const lane_ctx *lc, MlirValue r) {
  block_ctx k;
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
static MlirType frag_elem(tc_lower *L, mma_ops ops) {
  return ops == OPS_S8 ? tcb_int_type(L->ctx, 32) : mlirF32TypeGet(L->ctx);
}

static MlirValue shuffle(tc_lower *L, tc_builder *b, MlirValue x, MlirValue y, int n, const int64_t *mask, MlirType t) {
  MlirValue ops[2] = {x, y};
  MlirNamedAttribute ma = tcb_named(L->ctx, "mask", mlirDenseI64ArrayGet(L->ctx, n, mask));
  return tcb_op1(b, "vector.shuffle", t, 2, ops, 1, &ma);
}

/* Half h of a tile's vector<4 x T> (h = 0: row g, 1: row g + 8) as vector<2 x T>. */
static MlirValue half_of(tc_lower *L, tc_builder *b, MlirValue v, int h) {
  int64_t m[2] = {2 * h, 2 * h + 1};
  return shuffle(L, b, v, v, 2, m, tc_vec_type(L->ctx, 2, tcb_element_type(mlirValueGetType(v))));
}

static void bind_rows(tc_lower *L, tc_chunk *c, const mma_plan *p, MlirValue row, int64_t i, int h);

/* Old tile v (M x N, the dot's C type) at every fragment of the block, as one
 * vector<4xf32> (s8: vector<4xi32>) per tile (i * bn + j) in out; where `arg` is not null,
 * that old tile is bound to the fragments in argv at the same positions (a loop-carried
 * accumulator). */
static void eval_fragments(tc_lower *L, tc_builder *b, const mma_plan *p, const block_ctx *k, MlirValue v,
                           MlirValue arg, const MlirValue *argv, MlirValue *out) {
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 2);
  c.b = *b;
  MlirType fe = frag_elem(L, p->ops), v2 = tc_vec_type(L->ctx, 2, fe);
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
        if (!mlirValueIsNull(arg)) tc_chunk_bind(&c, arg, &pos, (tc_cval){.vec = half_of(L, &c.b, argv[t], x)});
        bind_rows(L, &c, p, pos.idx[0], i, x);
        h[x] = tc_eval(&c, v, &pos).vec;
        if (L->status) break;
        if (!mlirTypeEqual(ve, fe)) h[x] = tcb_cast(&c.b, "arith.extf", h[x], v2);
      }
      if (L->status) break;
      int64_t m[4] = {0, 1, 2, 3};
      out[t] = shuffle(L, &c.b, h[0], h[1], 4, m, tc_vec_type(L->ctx, 4, fe));
    }
  *b = c.b;
  tc_chunk_free(&c);
}

/* Writes the block's fragments (out, one vector<4xf32> or vector<4xi32> per tile) to the
 * flat M x N buffer buf of C's element type, where the warp keeps its block. */
static void store_fragments(tc_lower *L, tc_builder *b, const mma_plan *p, const block_ctx *k, MlirValue buf,
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
        MlirValue h = half_of(L, &sb, v, x);
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
static MlirValue pair32(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i0, MlirValue i1) {
  MlirType e = tcb_element_type(mlirValueGetType(buf)), i16 = tcb_int_type(L->ctx, 16), i32 = tcb_int_type(L->ctx, 32);
  MlirValue o0[2] = {buf, i0}, o1[2] = {buf, i1};
  MlirValue lo = tcb_cast(b, "arith.bitcast", tcb_op1(b, "memref.load", e, 2, o0, 0, NULL), i16);
  MlirValue hi = tcb_cast(b, "arith.bitcast", tcb_op1(b, "memref.load", e, 2, o1, 0, NULL), i16);
  return tcb_binary(b, "arith.ori", tcb_cast(b, "arith.extui", lo, i32),
                    tcb_binary(b, "arith.shli", tcb_cast(b, "arith.extui", hi, i32), tcb_const_int(b, i32, 16)));
}

/* d = mma(a[0..3], bf[0..1], c) for the warp; c and d are vector<4xf32> (s8: vector<4xi32>);
 * a and bf are f16x2/bf16x2 pairs as i32 (m16n8k16), tf32 values as i32 (m16n8k8) or four
 * s8 as i32 (m16n8k32 .s32.s8.s8.s32, without .satfinite: the sums wrap like the CPU
 * targets' i32 adds and Triton's wgmma on sm_90; Triton's sm_80 mma.sync saturates). */
static MlirValue mma(tc_lower *L, tc_builder *b, mma_ops ops, const MlirValue *a, const MlirValue *bf, MlirValue cv) {
  bool bf16 = ops == OPS_BF16, tf32 = ops == OPS_TF32, s8 = ops == OPS_S8;
  MlirType fe = frag_elem(L, ops), i32 = tcb_int_type(L->ctx, 32);
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
    for (int i = 0; i < 4; i++) {
      int64_t pos = i;
      MlirNamedAttribute pa = tcb_named(L->ctx, "position", mlirDenseI64ArrayGet(L->ctx, 1, &pos));
      d[i] = tcb_op1(b, "llvm.extractvalue", fe, 1, &r, 1, &pa);
    }
  }
  return tcb_op1(b, "vector.from_elements", tc_vec_type(L->ctx, 4, fe), 4, d, 0, NULL);
}

/* Four elements of a flat 8-bit buffer, i, i + s, i + 2s, i + 3s, as the 32 bits of an s8x4
 * register (the first in the low byte). */
static MlirValue quad32(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i, int64_t s) {
  MlirType i8 = tcb_element_type(mlirValueGetType(buf)), i32 = tcb_int_type(L->ctx, 32);
  MlirValue r = {NULL};
  for (int x = 0; x < 4; x++) {
    MlirValue o[2] = {buf, addc(b, i, x * s)};
    MlirValue e = tcb_cast(b, "arith.extui", tcb_op1(b, "memref.load", i8, 2, o, 0, NULL), i32);
    if (x) e = tcb_binary(b, "arith.shli", e, tcb_const_int(b, i32, 8 * x));
    r = x ? tcb_binary(b, "arith.ori", r, e) : e;
  }
  return r;
}

/* Elements i .. i + 3 of a flat 8-bit buffer (i a multiple of 4) as one i32 (one 32-bit load). */
static MlirValue load_b32(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i) {
  MlirValue o[2] = {buf, i};
  MlirNamedAttribute al = tcb_named(L->ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), 4));
  MlirValue v =
      tcb_op1(b, "vector.load", tc_vec_type(L->ctx, 4, tcb_element_type(mlirValueGetType(buf))), 2, o, 1, &al);
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
  for (int i = 0; i < 4; i++) {
    int64_t pos = i;
    MlirNamedAttribute pa = tcb_named(L->ctx, "position", mlirDenseI64ArrayGet(L->ctx, 1, &pos));
    out[i] = tcb_op1(b, "llvm.extractvalue", i32, 1, &r, 1, &pa);
  }
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
  MlirValue o[2] = {buf, i};
  MlirNamedAttribute al = tcb_named(L->ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), 8));
  return tcb_op1(b, "vector.load", tc_vec_type(L->ctx, 2, mlirF32TypeGet(L->ctx)), 2, o, 1, &al);
}

/* Elements i and j of a flat f32 buffer as a vector<2xf32>. */
static MlirValue load_2(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i, MlirValue j) {
  MlirType f32 = mlirF32TypeGet(L->ctx);
  MlirValue oi[2] = {buf, i}, oj[2] = {buf, j};
  MlirValue e[2] = {tcb_op1(b, "memref.load", f32, 2, oi, 0, NULL), tcb_op1(b, "memref.load", f32, 2, oj, 0, NULL)};
  return tcb_op1(b, "vector.from_elements", tc_vec_type(L->ctx, 2, f32), 2, e, 0, NULL);
}

/* Element i of a 32-bit shared buffer as an i32. */
static MlirValue load32(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i) {
  MlirValue o[2] = {buf, i};
  MlirValue v = tcb_op1(b, "memref.load", tcb_element_type(mlirValueGetType(buf)), 2, o, 0, NULL);
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
    MlirValue e = add(&kbl, mulc(&kbl, addc(&kbl, arow, 16 * i), as), acol);
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

/* The fragments' A registers of a k step (fragment tiles, below): [k step][m-tile][4]. */
typedef MlirValue a_frags[MAXT][4];

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
  if (p->K / p->ks == 2 && p->ops != OPS_TF32 && !p->split16)
    mlirOperationSetAttributeByName(kf, mlirStringRefCreateFromCString("loop_annotation"),
                                    tcb_attr(L->ctx, "#llvm.loop_annotation<unroll = <full = true>>"));
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

/* ---- loop-carried accumulators ------------------------------------------------------------ */

/* One carried tile of one loop, from count to done. */
typedef struct mma_carry {
  MlirOperation loop, dot;
  int i;         /* which carried value of the loop */
  MlirValue arg; /* the loop body's argument (old) */
  mma_plan plan;
  MlirValue in[MAXT], out[MAXT];
  bool used, bound, emitted;
  bool row; /* a row vector in the quads' registers (row_carry_*, below), not a tl.dot accumulator */
} mma_carry;

/* tc_nvptx_kernel_of(L)->carries: one malloc'ed block (end_kernel frees it with the kernel's state). */
typedef struct carry_set {
  int n, cap;
  mma_carry c[];
} carry_set;

static mma_carry *find_carry(tc_lower *L, MlirOperation loop, int i) {
  carry_set *s = tc_nvptx_kernel_of(L)->carries;
  for (int k = 0; s && k < s->n; k++)
    if (s->c[k].used && mlirOperationEqual(s->c[k].loop, loop) && s->c[k].i == i) return &s->c[k];
  return NULL;
}

static mma_carry *carry_of_dot(tc_lower *L, MlirOperation dot) {
  carry_set *s = tc_nvptx_kernel_of(L)->carries;
  for (int k = 0; s && k < s->n; k++)
    if (s->c[k].used && s->c[k].bound && mlirOperationEqual(s->c[k].dot, dot)) return &s->c[k];
  return NULL;
}

/* A free record (valid until the next call). */
static mma_carry *new_carry(tc_lower *L) {
  carry_set *s = tc_nvptx_kernel_of(L)->carries;
  for (int k = 0; s && k < s->n; k++)
    if (!s->c[k].used) return &s->c[k];
  if (!s || s->n == s->cap) {
    int cap = s ? 2 * s->cap : 4;
    carry_set *g = realloc(s, sizeof *g + sizeof(mma_carry) * (size_t)cap);
    if (!g) return NULL;
    if (!s) g->n = 0;
    g->cap = cap;
    tc_nvptx_kernel_of(L)->carries = s = g;
  }
  return &s->c[s->n++];
}

static MlirValue only_use(MlirValue v, MlirOperation *owner, intptr_t *operand) {
  MlirOpOperand u = mlirValueGetFirstUse(v);
  if (mlirOpOperandIsNull(u) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u))) return (MlirValue){NULL};
  *owner = mlirOpOperandGetOwner(u);
  *operand = (intptr_t)mlirOpOperandGetOperandNumber(u);
  return v;
}

/* The dot of carried tile i of loop when it has the shape `acc = tl.dot(a, b, f(acc))`:
 * the dot stands in the loop's body, its result is only yielded into slot i, and the body
 * argument's one use reaches the dot's acc operand through single-use elementwise ops. */
static MlirOperation carry_shape(tc_lower *L, MlirOperation loop, int i) {
  MlirOperation none = {NULL};
  if (tc_nvptx_alone(L) || capability(L) < 80) return none;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  MlirValue arg = mlirBlockGetArgument(body, 1 + i), y = mlirOperationGetOperand(yield, i);
  MlirType t = mlirValueGetType(arg);
  int64_t s[TC_RANK];
  MlirType e = mlirShapedTypeGetElementType(t);
  bool i32 = mlirTypeIsAInteger(e) && mlirIntegerTypeGetWidth(e) == 32;
  if (tc_shape_of(t, s) != 2 || !(mlirTypeIsAF32(e) || i32) || !mlirValueIsAOpResult(y)) return none;
  MlirOperation dot = mlirOpResultGetOwner(y), owner;
  intptr_t operand;
  if (tile_op_of(dot) != TILE_DOT || !mlirBlockEqual(mlirOperationGetBlock(dot), body)) return none;
  if (mlirValueIsNull(only_use(y, &owner, &operand)) || !mlirOperationEqual(owner, yield) || operand != i) return none;
  MlirValue v = arg;
  for (int depth = 0;; depth++) {
    if (depth == 16 || mlirValueIsNull(only_use(v, &owner, &operand))) return none;
    if (mlirOperationEqual(owner, dot)) return operand == 2 ? dot : none;
    if (tile_op_of(owner) || !tc_is_lazy_op(owner) || mlirOperationGetNumResults(owner) != 1 ||
        !mlirBlockEqual(mlirOperationGetBlock(owner), body))
      return none;
    v = mlirOperationGetResult(owner, 0);
    if (!mlirTypeEqual(mlirValueGetType(v), t)) return none;
  }
}

/* Carried tile i of loop is `acc = tl.dot(a, b, f(acc))` (carry_shape) on tensor cores in
 * one round, C in f32 (s8 operands: i32). Fills c (but its list link) when it is. */
static bool classify(tc_lower *L, MlirOperation loop, int i, mma_carry *c) {
  MlirOperation dot = carry_shape(L, loop, i);
  mma_plan p;
  if (mlirOperationIsNull(dot) || !mma_dot(L, dot, MAXT, &p) || p.rounds != 1 ||
      !mlirTypeEqual(p.ce, frag_elem(L, p.ops)))
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  *c = (mma_carry){.loop = loop, .dot = dot, .i = i, .arg = mlirBlockGetArgument(body, 1 + i), .plan = p};
  return true;
}

/* Carried row vectors (m_i, l_i of attention's online softmax): "row vectors" below. */
static void fresh_after(tc_lower *L, MlirOperation loop);
static bool row_carry_classify(tc_lower *L, MlirOperation loop, int i, mma_carry *c);
static void row_carry_init(tc_lower *L, mma_carry *c, MlirValue *vals);
static void row_carry_bind(tc_lower *L, mma_carry *c, const MlirValue *vals);
static void row_carry_yield(tc_lower *L, mma_carry *c, MlirValue *vals);
static void row_carry_done(tc_lower *L, mma_carry *c, const MlirValue *vals);

static bool is_row_slot(MlirOperation loop, int i) {
  return tc_shape_of(mlirValueGetType(mlirOperationGetOperand(loop, 3 + i)), (int64_t[TC_RANK]){0}) == 1;
}

static int carry_count(tc_lower *L, MlirOperation loop, int i) {
  mma_carry c;
  if (is_row_slot(loop, i)) return row_carry_classify(L, loop, i, &c) ? (int)(2 * c.plan.bm) : 0;
  return classify(L, loop, i, &c) ? (int)(c.plan.bm * c.plan.bn) : 0;
}

/* The record is taken here and given back by carry_done. */
static void carry_init(tc_lower *L, MlirOperation loop, int i, MlirValue *vals) {
  mma_carry *c = new_carry(L);
  if (c && is_row_slot(loop, i)) {
    if (!row_carry_classify(L, loop, i, c)) {
      tc_fail_here(L, TILEC_ERROR_INTERNAL, "a loop's row vector changed its lowering");
      return;
    }
    c->used = true;
    row_carry_init(L, c, vals);
    return;
  }
  if (!c || !classify(L, loop, i, c)) {
    tc_fail_here(L, TILEC_ERROR_INTERNAL, c ? "a loop's tl.dot accumulator changed its lowering" : "out of memory");
    return;
  }
  c->used = true;
  lane_ctx lc = lane_of(L, &L->b);
  block_ctx k = block_of(&L->b, &c->plan, &lc, (MlirValue){NULL});
  eval_fragments(L, &L->b, &c->plan, &k, mlirOperationGetOperand(loop, 3 + i), (MlirValue){NULL}, NULL, vals);
}

static void carry_bind(tc_lower *L, MlirOperation loop, int i, const MlirValue *vals) {
  mma_carry *c = find_carry(L, loop, i);
  if (c->row) {
    row_carry_bind(L, c, vals);
    return;
  }
  memcpy(c->in, vals, sizeof(MlirValue) * (size_t)(c->plan.bm * c->plan.bn));
  c->bound = true;
  c->emitted = false;
}

static void carry_yield(tc_lower *L, MlirOperation loop, int i, MlirValue *vals) {
  mma_carry *c = find_carry(L, loop, i);
  if (c->row) {
    row_carry_yield(L, c, vals);
    return;
  }
  if (!c->emitted) {
    tc_fail_here(L, TILEC_ERROR_INTERNAL, "the loop's tl.dot accumulator was not computed before its yield");
    return;
  }
  memcpy(vals, c->out, sizeof(MlirValue) * (size_t)(c->plan.bm * c->plan.bn));
  c->bound = false;
}

/* After the loop: the fragments go to a shared buffer, the loop's result. */
static void carry_done(tc_lower *L, MlirOperation loop, int i, const MlirValue *vals) {
  mma_carry *c = find_carry(L, loop, i);
  fresh_after(L, loop);
  if (c->row) {
    c->used = false;
    row_carry_done(L, c, vals);
    return;
  }
  mma_plan p = c->plan;
  c->used = false;
  MlirValue buf = tc_alloc_buffer(L, frag_elem(L, p.ops), p.M * p.N);
  if (L->status) return;
  lane_ctx lc = lane_of(L, &L->b);
  block_ctx k = block_of(&L->b, &p, &lc, (MlirValue){NULL});
  tc_nvptx_barrier(L, &L->b); /* readers of the buffer's space before are done */
  store_fragments(L, &L->b, &p, &k, buf, vals);
  tc_nvptx_barrier(L, &L->b); /* C is complete for every thread */
  tc_special *s = tc_special_put(L, mlirOperationGetResult(loop, i));
  memset(s, 0, sizeof *s);
  s->kind = TC_SPECIAL_BUFFER;
  s->buffer = buf;
}

const tc_loop_carries tc_nvptx_mma_carries = {
    .count = carry_count, .init = carry_init, .bind = carry_bind, .yield = carry_yield, .done = carry_done};

/* ---- dot results kept in fragments ----------------------------------------------------------
 * Attention's scores s = q @ k^T feed only row reductions (tl.max(s, 1), tl.sum(p, 1)) and,
 * through elementwise ops (p = exp2(s * c - m[:, None]), p.to(fp16)), the A operand of the
 * next tl.dot. Such a result (frag_eligible) stays in the warps' MMA fragments, never in
 * shared memory, with the warps along M (each holds whole rows): a row reduction folds each
 * lane's values of a row and combines the row's 4 lanes (2 shuffles: frag_reduce); the next
 * dot's A fragments are C fragments converted (C[g][2q..] of n-tiles 2kk and 2kk + 1 are
 * A[g][2q..] and A[g][2q + 8..] of its k step kk: frag_a); a costly value two consumers
 * need (p) is computed once, into fragments too (tc_nvptx_materialize_fragments). Their
 * consumers evaluate at a lane's fragment positions with every fragment tile bound there. */

typedef struct frag_tile {
  MlirValue old;
  mma_plan plan;
  bool row;             /* a row vector (below): vals[2 i + h] is the scalar of row row[i] + 8 h */
  MlirValue vals[MAXT]; /* else vector<4 x the tile's element type> per tile i * bn + j */
  MlirBlock at;         /* the new block they were computed in: in scope there and inside */
} frag_tile;

#define MAXF 32 /* fragment tiles of one kernel */
#define MAXH 8  /* dot operands staged before their loop (hoisted_operand) */
typedef struct frag_set {
  int n;
  frag_tile f[MAXF];
  MlirOperation refreshed_after; /* the last loop carry_done read the thread's index anew after */
  int nhoist;
  struct hoisted {
    MlirValue old;
    MlirOperation nloop;
    int64_t bank;
    MlirValue buf;
    int64_t stride;
  } hoist[MAXH];
} frag_set;

static frag_set *frags_of(tc_lower *L) {
  tc_nvptx_kernel *k = tc_nvptx_kernel_of(L);
  if (!k->frags) k->frags = calloc(1, sizeof(frag_set));
  return k->frags;
}

/* After a loop carrying fragments, the code that follows computes its addresses anew
 * (tc_nvptx_fresh_thread_id), once a loop. */
static void fresh_after(tc_lower *L, MlirOperation loop) {
  frag_set *fs = frags_of(L);
  if (fs && !mlirOperationEqual(fs->refreshed_after, loop)) {
    fs->refreshed_after = loop;
    tc_nvptx_fresh_thread_id(L, &L->b);
  }
}

/* Are f's registers in scope where L emits (a block lowered twice, as versioned loops are,
 * has its own)? */
static bool frag_live(tc_lower *L, const frag_tile *f) {
  for (MlirBlock b = L->b.block; !mlirBlockIsNull(b);) {
    if (mlirBlockEqual(b, f->at)) return true;
    MlirOperation p = mlirBlockGetParentOperation(b);
    if (mlirOperationIsNull(p)) break;
    b = mlirOperationGetBlock(p);
  }
  return false;
}

static frag_tile *frag_of(tc_lower *L, MlirValue old) {
  frag_set *s = tc_nvptx_kernel_of(L)->frags;
  for (int i = 0; s && i < s->n; i++)
    if (mlirValueEqual(s->f[i].old, old) && frag_live(L, &s->f[i])) return &s->f[i];
  return NULL;
}

/* Records f (its values in scope in block `at` and inside), replacing an earlier record of
 * its tile. */
static void frag_put(tc_lower *L, frag_set *s, frag_tile f, MlirBlock at) {
  f.at = at;
  for (int i = 0; i < s->n; i++)
    if (mlirValueEqual(s->f[i].old, f.old)) {
      s->f[i] = f;
      return;
    }
  if (s->n < MAXF) s->f[s->n++] = f;
  else tc_fail_here(L, TILEC_ERROR_INTERNAL, "more than %d tiles computed from tl.dot results in registers", MAXF);
}

static bool is_16bit_float(MlirType t) { return mlirTypeIsAF16(t) || mlirTypeIsABF16(t); }

/* An arith or math op (not a tile op): what the fragments' consumers compute through. */
static bool arith_or_math(MlirOperation o) {
  return !tile_op_of(o) && (tc_op_in_dialect(o, "arith") || tc_op_in_dialect(o, "math"));
}

/* An arith/math op with one result of the 2-D shape. */
static bool frag_elementwise(MlirOperation o, const int64_t *shape) {
  int64_t s[TC_RANK];
  return arith_or_math(o) && mlirOperationGetNumResults(o) == 1 &&
         tc_shape_of(mlirValueGetType(mlirOperationGetResult(o, 0)), s) == 2 && s[0] == shape[0] && s[1] == shape[1];
}

/* Is dot a loop's carried accumulator in the MMA fragments (tc_nvptx_mma_carries: its C
 * planned for MAXT tiles a warp)? */
static bool dot_carried(tc_lower *L, MlirOperation dot) {
  MlirOperation owner, loop = mlirOperationGetParentOperation(dot);
  intptr_t operand;
  if (mlirOperationIsNull(loop) || !tc_op_is(loop, "scf.for") ||
      mlirValueIsNull(only_use(mlirOperationGetResult(dot, 0), &owner, &operand)) || !tc_op_is(owner, "scf.yield") ||
      !mlirOperationEqual(mlirOperationGetParentOperation(owner), loop))
    return false;
  return mlirOperationEqual(carry_shape(L, loop, (int)operand), dot); /* and C f32: the caller's */
}

/* Does every use of v (an M x N tile of blk), through elementwise ops, read it where a
 * warp of a rows plan holds it: a row reduction (axis 1), or the 16-bit A operand of a
 * tensor-core tl.dot over K = N whose rows plan runs in one round? */
static bool frag_uses_ok(tc_lower *L, MlirValue v, MlirBlock blk, const int64_t *shape, int depth) {
  if (depth > 32) return false;
  bool any = false;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation o = mlirOpOperandGetOwner(u);
    any = true;
    if (!mlirBlockEqual(mlirOperationGetBlock(o), blk)) return false;
    tile_op_id k = tile_op_of(o);
    if (k == TILE_REDUCE) {
      if (tile_int_attr(o, "axis", -1) != 1) return false;
      continue;
    }
    if (k == TILE_DOT) {
      mma_plan t, q;
      int64_t cs[TC_RANK], as[TC_RANK];
      if (mlirOpOperandGetOperandNumber(u) != 0 || !mma_types(L, o, &t, cs, as) || t.ops == OPS_TF32 || t.split16 ||
          !is_16bit_float(mlirShapedTypeGetElementType(mlirValueGetType(v))) || as[0] != shape[0] ||
          as[1] != shape[1] ||
          !make_plan(L, cs[0], cs[1], as[1], dot_carried(L, o) && mlirTypeIsAF32(t.ce) ? MAXT : MAXT_ROUND, true, &q) ||
          q.rounds != 1)
        return false;
      continue;
    }
    if (!frag_elementwise(o, shape) || !frag_uses_ok(L, mlirOperationGetResult(o, 0), blk, shape, depth + 1))
      return false;
  }
  return any;
}

/* Is the result of dot (f32, one round of a rows plan) read only by fragment consumers? */
static bool frag_eligible(tc_lower *L, MlirOperation dot) {
  mma_plan t, q;
  int64_t cs[TC_RANK], as[TC_RANK];
  if (tile_op_of(dot) != TILE_DOT || !mma_types(L, dot, &t, cs, as) || !mlirTypeIsAF32(t.ce) ||
      !make_plan(L, cs[0], cs[1], as[1], MAXT_ROUND, true, &q) || q.rounds != 1)
    return false;
  return frag_uses_ok(L, mlirOperationGetResult(dot, 0), mlirOperationGetBlock(dot), cs, 0);
}

/* The eligible dot whose result v is computed from through elementwise ops of blk (null:
 * none). */
static MlirOperation frag_source(tc_lower *L, MlirValue v, MlirBlock blk, int depth) {
  MlirOperation none = {NULL};
  if (depth > 32 || !mlirValueIsAOpResult(v)) return none;
  MlirOperation d = mlirOpResultGetOwner(v);
  if (!mlirBlockEqual(mlirOperationGetBlock(d), blk)) return none;
  if (tile_op_of(d) == TILE_DOT) return frag_eligible(L, d) ? d : none;
  if (!arith_or_math(d)) return none;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++) {
    MlirOperation s = frag_source(L, mlirOperationGetOperand(d, i), blk, depth + 1);
    if (!mlirOperationIsNull(s)) return s;
  }
  return none;
}

/* The warps of this dot go along M: its result stays in fragments, or its A is read from them. */
static bool frag_rows(tc_lower *L, MlirOperation dot) {
  return frag_eligible(L, dot) ||
         !mlirOperationIsNull(frag_source(L, mlirOperationGetOperand(dot, 0), mlirOperationGetBlock(dot), 0));
}

/* A fragment tile in v's cone (through elementwise ops), or null. */
static frag_tile *frag_in_cone(tc_lower *L, MlirValue v, int depth) {
  frag_tile *f = frag_of(L, v);
  if (f && f->row) return NULL; /* a row vector's cone holds no tile */
  if (f || depth > 32 || !mlirValueIsAOpResult(v)) return f;
  MlirOperation d = mlirOpResultGetOwner(v);
  if (!arith_or_math(d)) return NULL;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d) && !f; i++)
    f = frag_in_cone(L, mlirOperationGetOperand(d, i), depth + 1);
  return f;
}

static MlirBlock old_block(MlirValue v) {
  return mlirValueIsAOpResult(v) ? mlirOperationGetBlock(mlirOpResultGetOwner(v)) : mlirBlockArgumentGetOwner(v);
}

/* The chunk (width 2) at tile t's half h of this lane, every fragment tile of src's plan
 * and block (whose registers are in scope: computed earlier in the same block) bound there. */
static void frag_bind(tc_lower *L, tc_chunk *c, const frag_tile *src, const tc_pos *pos, int64_t t, int h) {
  frag_set *s = tc_nvptx_kernel_of(L)->frags;
  MlirBlock blk = old_block(src->old);
  for (int i = 0; s && i < s->n; i++) {
    const mma_plan *q = &s->f[i].plan;
    if (!s->f[i].row && q->M == src->plan.M && q->N == src->plan.N && q->bm == src->plan.bm && q->bn == src->plan.bn &&
        mlirBlockEqual(old_block(s->f[i].old), blk) && frag_live(L, &s->f[i]))
      tc_chunk_bind(c, s->f[i].old, pos, (tc_cval){.vec = half_of(L, &c->b, s->f[i].vals[t], h)});
  }
  bind_rows(L, c, &src->plan, pos->idx[0], t / src->plan.bn, h);
}

static tc_pos frag_pos(const block_ctx *k, tc_builder *b, int64_t i, int64_t j, int h) {
  tc_pos pos = {.rank = 2, .chunked = true};
  pos.idx[0] = addc(b, k->row[i], 8 * h);
  pos.idx[1] = k->col[j];
  return pos;
}

static bool materialize_row(tc_lower *L, MlirValue old);

bool tc_nvptx_materialize_fragments(tc_lower *L, MlirValue old) {
  if (frag_of(L, old)) return true;
  if (tc_shape_of(mlirValueGetType(old), (int64_t[TC_RANK]){0}) == 1) return materialize_row(L, old);
  frag_tile *src = frag_in_cone(L, old, 0);
  if (!src || !mlirValueIsAOpResult(old)) return false;
  int64_t shape[TC_RANK] = {src->plan.M, src->plan.N};
  if (!frag_uses_ok(L, old, mlirOperationGetBlock(mlirOpResultGetOwner(old)), shape, 0)) return false;
  frag_set *fs = frags_of(L);
  if (!fs) {
    tc_fail_here(L, TILEC_ERROR_INTERNAL, "out of memory");
    return true;
  }
  frag_tile f = {.old = old, .plan = src->plan};
  tc_builder *b = &L->b;
  tc_nvptx_barrier(L, b); /* what it reads from earlier nests is complete (dropped below if nothing) */
  MlirOperation fence = tc_nvptx_last_op(b);
  lane_ctx lc = lane_of(L, b);
  block_ctx k = block_of(b, &f.plan, &lc, (MlirValue){NULL});
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 2);
  c.b = *b;
  for (int64_t i = 0; i < f.plan.bm && !L->status; i++)
    for (int64_t j = 0; j < f.plan.bn && !L->status; j++) {
      int64_t t = i * f.plan.bn + j, m[4] = {0, 1, 2, 3};
      MlirValue hv[2];
      for (int h = 0; h < 2 && !L->status; h++) {
        tc_pos pos = frag_pos(&k, &c.b, i, j, h);
        frag_bind(L, &c, src, &pos, t, h);
        hv[h] = tc_eval(&c, old, &pos).vec;
      }
      if (!L->status)
        f.vals[t] =
            shuffle(L, &c.b, hv[0], hv[1], 4, m, tc_vec_type(L->ctx, 4, tcb_element_type(mlirValueGetType(hv[0]))));
    }
  *b = c.b;
  tc_chunk_free(&c);
  if (L->status) return true;
  if (!tc_nvptx_touches_memory(fence, b)) mlirOperationDestroy(fence);
  frag_put(L, fs, f, L->b.block);
  return true;
}

/* A's fragments of a dot whose A operand (old) is computed from fragment tiles of plan
 * src, for every k step: a_x of m-tile i at k step kk is the pair at row g + 8 (x % 2),
 * columns 16 kk + 8 (x / 2) + 2q: half x % 2 of C tile (i, 2 kk + x / 2). */
static void frag_a(tc_lower *L, tc_builder *b, const frag_tile *src, MlirValue old, int64_t ksteps, a_frags *out) {
  lane_ctx lc = lane_of(L, b);
  block_ctx k = block_of(b, &src->plan, &lc, (MlirValue){NULL});
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 2);
  c.b = *b;
  MlirType i32 = tcb_int_type(L->ctx, 32);
  for (int64_t kk = 0; kk < ksteps && !L->status; kk++)
    for (int64_t i = 0; i < src->plan.bm && !L->status; i++)
      for (int x = 0; x < 4 && !L->status; x++) {
        int64_t j = 2 * kk + x / 2, t = i * src->plan.bn + j;
        tc_pos pos = frag_pos(&k, &c.b, i, j, x % 2);
        frag_bind(L, &c, src, &pos, t, x % 2);
        MlirValue v = tc_eval(&c, old, &pos).vec;
        if (!L->status) out[kk][i][x] = tcb_cast(&c.b, "llvm.bitcast", v, i32);
      }
  *b = c.b;
  tc_chunk_free(&c);
}

/* ---- row vectors in the quads' registers ----------------------------------------------------
 * Attention's online softmax keeps per-row state across its K loop: m_i (the running max) and
 * l_i (the running sum), updated from row reductions of the scores (m_new = max(m_i,
 * tl.max(s, 1)), alpha = exp2(m_i - m_new), l_i * alpha + tl.sum(p, 1)) and read back by the
 * fragments as row broadcasts (s - m_new[:, None], acc * alpha[:, None]). In a rows plan a
 * lane's fragments cover rows row[i] and row[i] + 8 of each of its m-tiles i, and the four
 * lanes of a quad hold the same rows (Triton's slice of the MMA layout): such a 1-D tile of
 * M elements is 2 bm scalars a lane, vals[2 i + h] for row[i] + 8 h, the same in the quad's
 * four lanes. A row reduction of fragment tiles (tc_nvptx_frag_reduce) produces one with
 * butterfly shuffles (every lane of the quad ends with the row's value; the combine is
 * commutative, so the four lanes agree bit for bit); elementwise ops of row vectors are
 * evaluated at a lane's rows (row_eval; materialize_fragments computes a costly one two
 * consumers need once); a loop carries one as its 2 bm scalars (tc_nvptx_mma_carries); the
 * fragments read one at their rows (bind_rows, in every fragment context). No shared
 * memory, no barrier. A row vector stays in registers only where every use reads it so
 * (row_uses_ok): elementwise ops of rows, a broadcast [:, None] read only in fragment
 * contexts of the same rows, a yield into a carried row vector of the loop; anything else
 * (a store, a reduction, a load's pointer, another layout) keeps the shared buffer. */

/* Do the two plans give a lane the same rows? */
static bool same_rows(const mma_plan *a, const mma_plan *b) {
  return a->M == b->M && a->bm == b->bm && a->active == b->active && a->nblk_n == b->nblk_n && a->rounds == 1 &&
         b->rounds == 1;
}

static tc_pos row_pos(MlirValue row) {
  tc_pos pos = {.rank = 1, .chunked = false};
  pos.idx[0] = row;
  return pos;
}

/* Binds every row vector of p's rows in scope to row (the lane's row[i] + 8 h) in c. */
static void bind_rows(tc_lower *L, tc_chunk *c, const mma_plan *p, MlirValue row, int64_t i, int h) {
  frag_set *s = tc_nvptx_kernel_of(L)->frags;
  tc_pos pos = row_pos(row);
  for (int n = 0; s && n < s->n; n++)
    if (s->f[n].row && same_rows(&s->f[n].plan, p) && frag_live(L, &s->f[n]))
      tc_chunk_bind(c, s->f[n].old, &pos, (tc_cval){.vec = s->f[n].vals[2 * i + h]});
}

/* Old 1-D tile v at this lane's rows of plan p (out[2 i + h]), every row vector in scope
 * bound there. */
static void row_eval(tc_lower *L, tc_builder *b, const mma_plan *p, MlirValue v, MlirValue *out) {
  tc_nvptx_barrier(L, b); /* what v reads from earlier nests is complete (dropped below if nothing) */
  MlirOperation fence = tc_nvptx_last_op(b);
  lane_ctx lc = lane_of(L, b);
  block_ctx k = block_of(b, p, &lc, (MlirValue){NULL});
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 1);
  c.b = *b;
  for (int64_t i = 0; i < p->bm && !L->status; i++)
    for (int h = 0; h < 2 && !L->status; h++) {
      MlirValue row = addc(&c.b, k.row[i], 8 * h);
      tc_pos pos = row_pos(row);
      bind_rows(L, &c, p, row, i, h);
      out[2 * i + h] = tc_eval(&c, v, &pos).vec;
    }
  *b = c.b;
  tc_chunk_free(&c);
  if (!L->status && !tc_nvptx_touches_memory(fence, b)) mlirOperationDestroy(fence);
}

/* The rows plan of the first tl.dot of loop's body whose result stays in fragments. */
static bool loop_row_plan(tc_lower *L, MlirOperation loop, mma_plan *p) {
  if (mlirOperationIsNull(loop) || !tc_op_is(loop, "scf.for")) return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    mma_plan t;
    int64_t cs[TC_RANK], as[TC_RANK];
    if (tile_op_of(o) == TILE_DOT && frag_eligible(L, o) && mma_types(L, o, &t, cs, as) &&
        make_plan(L, cs[0], cs[1], as[1], MAXT_ROUND, true, p))
      return true;
  }
  return false;
}

/* Does r reach, through single-use elementwise ops, the acc operand of a tl.dot whose C a
 * loop carries in the fragments of p's rows (attention's acc * alpha[:, None])? */
static bool on_carried_acc(tc_lower *L, MlirValue r, const mma_plan *p) {
  MlirOperation owner;
  intptr_t operand;
  for (int depth = 0; depth < 16; depth++) {
    if (mlirValueIsNull(only_use(r, &owner, &operand))) return false;
    if (tile_op_of(owner) == TILE_DOT) {
      mma_plan q;
      return operand == 2 && dot_carried(L, owner) && mma_dot(L, owner, MAXT, &q) && same_rows(&q, p);
    }
    if (tile_op_of(owner) || !tc_is_lazy_op(owner) || mlirOperationGetNumResults(owner) != 1) return false;
    r = mlirOperationGetResult(owner, 0);
  }
  return false;
}

/* Is every use of the 2-D tile w of blk evaluated in a fragment context of p's rows: an
 * elementwise op whose result is computed from a tl.dot kept in fragments of those rows
 * and read only where the fragments are (frag_uses_ok), or is on a carried accumulator's
 * acc operand, or leads to such through more elementwise ops? */
static bool frag_context(tc_lower *L, MlirValue w, MlirBlock blk, const mma_plan *p, int depth) {
  int64_t shape[TC_RANK];
  if (depth > 16 || tc_shape_of(mlirValueGetType(w), shape) != 2) return false;
  bool any = false;
  for (MlirOpOperand u = mlirValueGetFirstUse(w); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation o = mlirOpOperandGetOwner(u);
    if (!mlirBlockEqual(mlirOperationGetBlock(o), blk) || !frag_elementwise(o, shape)) return false;
    MlirValue r = mlirOperationGetResult(o, 0);
    MlirOperation src = frag_source(L, r, blk, 0);
    mma_plan q;
    int64_t cs[TC_RANK], as[TC_RANK];
    bool in_frags = !mlirOperationIsNull(src) && mma_types(L, src, &q, cs, as) &&
                    make_plan(L, cs[0], cs[1], as[1], MAXT_ROUND, true, &q) && same_rows(&q, p) &&
                    frag_uses_ok(L, r, blk, shape, 0);
    if (!in_frags && !on_carried_acc(L, r, p) && !frag_context(L, r, blk, p, depth + 1)) return false;
    any = true;
  }
  return any;
}

/* Is every use of the 1-D tile v (of blk, p.M long) one that reads it in p's rows: an
 * elementwise op of such tiles, a broadcast v[:, None] read in fragment contexts of p's
 * rows, or a yield into one of loop's carried row vectors (`slots`)? */
static bool row_uses_ok(tc_lower *L, MlirValue v, MlirBlock blk, MlirOperation loop, uint64_t slots, const mma_plan *p,
                        int depth) {
  if (depth > 32) return false;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation o = mlirOpOperandGetOwner(u);
    if (!mlirBlockEqual(mlirOperationGetBlock(o), blk)) return false;
    if (tc_op_is(o, "scf.yield")) {
      unsigned j = mlirOpOperandGetOperandNumber(u);
      if (mlirOperationIsNull(loop) || !mlirOperationEqual(mlirOperationGetParentOperation(o), loop) || j >= 64 ||
          !(slots >> j & 1))
        return false;
      continue;
    }
    int64_t s[TC_RANK];
    int r = mlirOperationGetNumResults(o) == 1 ? tc_shape_of(mlirValueGetType(mlirOperationGetResult(o, 0)), s) : 0;
    if (arith_or_math(o) && r == 1 && s[0] == p->M) {
      if (!row_uses_ok(L, mlirOperationGetResult(o, 0), blk, loop, slots, p, depth + 1)) return false;
      continue;
    }
    tile_op_id k = tile_op_of(o);
    if (!((k == TILE_RESHAPE || k == TILE_EXPAND_DIMS) && r == 2 && s[0] == p->M && s[1] == 1)) return false;
    for (MlirOpOperand e = mlirValueGetFirstUse(mlirOperationGetResult(o, 0)); !mlirOpOperandIsNull(e);
         e = mlirOpOperandGetNextUse(e)) {
      MlirOperation bc = mlirOpOperandGetOwner(e);
      if (tile_op_of(bc) != TILE_BROADCAST || !mlirBlockEqual(mlirOperationGetBlock(bc), blk) ||
          !frag_context(L, mlirOperationGetResult(bc, 0), blk, p, 0))
        return false;
    }
  }
  return true;
}

/* The carried tiles of loop (with p its rows plan) that stay row vectors: 1-D tiles of p.M
 * ints or floats of at most 32 bits whose body argument is read only in p's rows (the
 * largest such set: a slot drops out until none fails). */
static uint64_t row_slots(tc_lower *L, MlirOperation loop, const mma_plan *p) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  int n = (int)mlirOperationGetNumOperands(loop) - 3;
  uint64_t slots = 0;
  for (int i = 0; i < n && i < 64; i++) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(loop, 3 + i));
    int64_t s[TC_RANK];
    if (tc_shape_of(t, s) != 1 || s[0] != p->M) continue;
    MlirType e = mlirShapedTypeGetElementType(t);
    if ((tcb_is_float(e) || mlirTypeIsAInteger(e)) && tcb_bitwidth(e) <= 32) slots |= (uint64_t)1 << i;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < n && i < 64; i++)
      if (slots >> i & 1 && !row_uses_ok(L, mlirBlockGetArgument(body, 1 + i), body, loop, slots, p, 0)) {
        slots &= ~((uint64_t)1 << i);
        changed = true;
      }
  }
  return slots;
}

/* May the 1-D tile v of blk (computed in p's rows) stay a row vector? */
static bool row_value_ok(tc_lower *L, MlirValue v, const mma_plan *p) {
  MlirBlock blk = old_block(v);
  MlirOperation loop = mlirBlockGetParentOperation(blk);
  mma_plan lp;
  uint64_t slots = 0;
  if (loop_row_plan(L, loop, &lp) && same_rows(&lp, p)) slots = row_slots(L, loop, &lp);
  else if (!tc_op_is(loop, "scf.for")) loop = (MlirOperation){NULL};
  return row_uses_ok(L, v, blk, loop, slots, p, 0);
}

/* A row vector in v's cone (through 1-D elementwise ops), or null. */
static frag_tile *row_in_cone(tc_lower *L, MlirValue v, int depth) {
  frag_tile *f = frag_of(L, v);
  if (f || depth > 32 || !mlirValueIsAOpResult(v)) return f && f->row ? f : NULL;
  MlirOperation d = mlirOpResultGetOwner(v);
  if (!arith_or_math(d)) return NULL;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d) && !f; i++)
    f = row_in_cone(L, mlirOperationGetOperand(d, i), depth + 1);
  return f;
}

/* tc_nvptx_materialize_fragments of a 1-D tile: computed once into a row vector where it
 * is computed from one and every use reads it in the same rows. */
static bool materialize_row(tc_lower *L, MlirValue old) {
  frag_tile *src = row_in_cone(L, old, 0);
  if (!src || !mlirValueIsAOpResult(old) || !row_value_ok(L, old, &src->plan)) return false;
  frag_set *fs = frags_of(L);
  if (!fs) {
    tc_fail_here(L, TILEC_ERROR_INTERNAL, "out of memory");
    return true;
  }
  frag_tile f = {.old = old, .plan = src->plan, .row = true};
  row_eval(L, &L->b, &f.plan, old, f.vals);
  if (!L->status) frag_put(L, fs, f, L->b.block);
  return true;
}

static bool row_carry_classify(tc_lower *L, MlirOperation loop, int i, mma_carry *c) {
  mma_plan p;
  if (tc_nvptx_alone(L) || capability(L) < 80 || !loop_row_plan(L, loop, &p) || !(row_slots(L, loop, &p) >> i & 1))
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  *c = (mma_carry){.loop = loop, .i = i, .arg = mlirBlockGetArgument(body, 1 + i), .plan = p, .row = true};
  return true;
}

static void row_carry_init(tc_lower *L, mma_carry *c, MlirValue *vals) {
  row_eval(L, &L->b, &c->plan, mlirOperationGetOperand(c->loop, 3 + c->i), vals);
}

static void row_carry_bind(tc_lower *L, mma_carry *c, const MlirValue *vals) {
  frag_set *fs = frags_of(L);
  if (!fs) {
    tc_fail_here(L, TILEC_ERROR_INTERNAL, "out of memory");
    return;
  }
  frag_tile f = {.old = c->arg, .plan = c->plan, .row = true};
  memcpy(f.vals, vals, sizeof(MlirValue) * (size_t)(2 * c->plan.bm));
  frag_put(L, fs, f, mlirBlockArgumentGetOwner(vals[0]));
}

static void row_carry_yield(tc_lower *L, mma_carry *c, MlirValue *vals) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(c->loop, 0));
  row_eval(L, &L->b, &c->plan, mlirOperationGetOperand(mlirBlockGetTerminator(body), c->i), vals);
}

/* After the loop: lane 0 of each quad of the warps that keep their rows writes them to a
 * shared buffer, the loop's result. */
static void row_carry_done(tc_lower *L, mma_carry *c, const MlirValue *vals) {
  MlirValue res = mlirOperationGetResult(c->loop, c->i);
  MlirType e = mlirShapedTypeGetElementType(mlirValueGetType(res));
  int64_t shape[1] = {c->plan.M};
  MlirValue buf = tc_alloc_buffer(L, e, c->plan.M);
  if (L->status) return;
  tc_builder *b = &L->b;
  tc_nvptx_barrier(L, b); /* readers of the buffer's space before are done */
  lane_ctx lc = lane_of(L, b);
  block_ctx k = block_of(b, &c->plan, &lc, (MlirValue){NULL});
  MlirValue first = tcb_binary(b, "arith.andi", k.valid, tcb_cmpi(b, "eq", lc.q, cidx(b, 0)));
  tc_builder wb;
  tcb_if(b, first, 0, NULL, &wb, NULL);
  tc_chunk w;
  tc_chunk_init(&w, L, wb.block, 1);
  w.b = wb;
  for (int64_t i = 0; i < c->plan.bm; i++)
    for (int h = 0; h < 2; h++) {
      tc_pos rp = row_pos(addc(&w.b, k.row[i], 8 * h));
      tc_buffer_write(&w, buf, vals[2 * i + h], &rp, shape);
    }
  tcb_op(&w.b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tc_chunk_free(&w);
  tc_nvptx_barrier(L, b); /* the rows are complete for every thread */
  tc_special *s = tc_special_put(L, res);
  memset(s, 0, sizeof *s);
  s->kind = TC_SPECIAL_BUFFER;
  s->buffer = buf;
}

int tc_nvptx_frag_reduce(tc_lower *L, MlirOperation op) {
  int nvals, rank, axis;
  MlirValue olds[TC_REDUCE_MAX_VALUES];
  int64_t shape[TC_RANK];
  if (mlirOperationGetNumOperands(op) > TC_REDUCE_MAX_VALUES || tile_int_attr(op, "axis", -1) != 1) return 0;
  frag_tile *src = NULL;
  for (intptr_t n = 0; n < mlirOperationGetNumOperands(op) && !src; n++)
    src = frag_in_cone(L, mlirOperationGetOperand(op, n), 0);
  if (!src) return 0;
  if (!tc_reduce_operands(L, op, "reduce", "reductions", &nvals, olds, &rank, shape, &axis)) return 1;
  if (rank != 2 || shape[0] != src->plan.M || shape[1] != src->plan.N) return 0;
  tc_builder *b = &L->b;
  b->loc = mlirOperationGetLocation(op);
  /* a row vector in the quads' registers, or a shared buffer */
  bool rows = nvals == 1 && tc_reduce_commutative(L, op) && row_value_ok(L, mlirOperationGetResult(op, 0), &src->plan);
  frag_tile rf = {.old = mlirOperationGetResult(op, 0), .plan = src->plan, .row = true};
  MlirValue bufs[TC_REDUCE_MAX_VALUES];
  for (int n = 0; n < nvals && !rows; n++)
    bufs[n] = tc_alloc_buffer(L, tcb_element_type(mlirValueGetType(mlirOperationGetResult(op, n))), shape[0]);
  if (L->status) return 1;
  tc_nvptx_barrier(L, b); /* what the operand reads from earlier nests is complete; the buffers are free */
  MlirOperation fence = tc_nvptx_last_op(b);
  lane_ctx lc = lane_of(L, b);
  block_ctx k = block_of(b, &src->plan, &lc, (MlirValue){NULL});
  MlirValue first = tcb_cmpi(b, "eq", lc.q, cidx(b, 0));
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 2);
  c.b = *b;
  for (int64_t i = 0; i < src->plan.bm && !L->status; i++)
    for (int h = 0; h < 2 && !L->status; h++) {
      MlirValue acc[TC_REDUCE_MAX_VALUES], args[2 * TC_REDUCE_MAX_VALUES], v[TC_REDUCE_MAX_VALUES];
      MlirValue row = addc(&c.b, k.row[i], 8 * h);
      for (int64_t j = 0; j < src->plan.bn && !L->status; j++) {
        tc_pos pos = frag_pos(&k, &c.b, i, j, h);
        frag_bind(L, &c, src, &pos, i * src->plan.bn + j, h);
        for (int n = 0; n < nvals && !L->status; n++) {
          args[n] = acc[n];
          args[nvals + n] = tc_eval(&c, olds[n], &pos).vec;
        }
        if (L->status) break;
        if (j == 0) memcpy(acc, args + nvals, sizeof(MlirValue) * (size_t)nvals);
        else if (!tc_apply_combine(L, &c.b, op, args, 2 * nvals, acc)) break;
      }
      if (L->status || !tc_reduce_horizontal(L, &c.b, op, nvals, acc, 2, v)) break;
      for (int d = 2; d >= 1 && !L->status; d /= 2) { /* the row's quad: lanes 4g .. 4g + 3 */
        for (int n = 0; n < nvals; n++) {
          args[n] = v[n];
          args[nvals + n] = tc_nvptx_shfl(L, &c.b, v[n], d, rows ? TC_SHFL_XOR : TC_SHFL_DOWN);
        }
        if (!tc_apply_combine(L, &c.b, op, args, 2 * nvals, v)) break;
      }
      if (L->status) break;
      if (rows) {
        rf.vals[2 * i + h] = v[0];
        continue;
      }
      tc_builder wb;
      tcb_if(&c.b, first, 0, NULL, &wb, NULL);
      tc_chunk w;
      tc_chunk_init(&w, L, wb.block, 1);
      w.b = wb;
      tc_pos rp = {.rank = 1, .chunked = false};
      rp.idx[0] = row;
      for (int n = 0; n < nvals; n++) tc_buffer_write(&w, bufs[n], v[n], &rp, shape);
      tcb_op(&w.b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
      tc_chunk_free(&w);
    }
  *b = c.b;
  tc_chunk_free(&c);
  if (L->status) return 1;
  /* a row vector computed from registers only: no buffer, nothing to order */
  if (rows && !tc_nvptx_touches_memory(fence, b)) mlirOperationDestroy(fence);
  frag_set *fs = rows ? frags_of(L) : NULL;
  if (fs) frag_put(L, fs, rf, b->block);
  else if (rows) tc_fail_here(L, TILEC_ERROR_INTERNAL, "out of memory");
  else tc_nvptx_publish_results(L, op, nvals, bufs);
  return 1;
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

static MlirValue stage_operand(tc_lower *L, MlirValue old, int64_t bank, bool copy, int64_t *stride) {
  MlirType t = mlirValueGetType(old);
  MlirType e = mlirShapedTypeGetElementType(t);
  int64_t shape[TC_RANK];
  tc_shape_of(t, shape);
  *stride = shape[1];
  tc_special *s = tc_special_of(L, old);
  if (!copy && s && s->kind == TC_SPECIAL_BUFFER) return s->buffer;
  MlirValue mask = tc_load_mask_within(L, old, t, 0);
  int64_t w = 128 / (int64_t)tcb_bitwidth(e), nthreads = tc_target_threads(L->target);
  bool plain = mlirValueIsNull(mask) && mlirValueIsAOpResult(old) &&
               tile_op_of(mlirOpResultGetOwner(old)) == TILE_LOAD &&
               mlirOperationGetNumOperands(mlirOpResultGetOwner(old)) == 1;
  if (tc_shape_of(t, shape) != 2 || (mlirValueIsNull(mask) && !plain) || shape[1] % w) return tc_dot_operand(L, old);
  int64_t per_row = shape[1] / w, total = shape[0] * per_row, u = total / nthreads;
  if (total % nthreads || u > MAX_STAGE) return tc_dot_operand(L, old);
  /* Rows padded to an odd number of 16-byte units: the 8 rows an ldmatrix reads fall in 8
   * different bank groups (128 unpadded bytes a row: all in one, 8-way conflicts). Operands
   * read element by element (fp32: a tf32 B, bf16 parts) instead: rows `bank` banks apart mod
   * 32 — 8 for a tf32 B (rows k0 + q, columns n + g of a warp's lanes) and 64-bit pairs of a
   * row (rows g of a half warp, columns 2q), 4 for the pairs of rows k0 + 2q, k0 + 2q + 1 —
   * so a warp's loads hit distinct banks. The padded buffer is the dot's own (other readers
   * of the tile expect row-major). */
  *stride = tc_nvptx_operand_stride(shape[1], tcb_bitwidth(e), bank);
  bool pad = *stride != shape[1];
  MlirValue buf = tc_alloc_buffer(L, e, shape[0] * *stride);
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
    at[k] = add(&pre.b, mulc(&pre.b, pos[k].idx[0], *stride), pos[k].idx[1]);
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
    MlirValue w01 = shuffle(L, &in, v[0], v[1], 32, pairs, v32), w23 = shuffle(L, &in, v[2], v[3], 32, pairs, v32);
    MlirValue t = shuffle(L, &in, w01, w23, 64, quads, v64);
    MlirValue at = add(&in, mulc(&in, n0, *xs), k0);
    for (int64_t n = 0; n < 16; n++) {
      int64_t m[4] = {4 * n, 4 * n + 1, 4 * n + 2, 4 * n + 3};
      MlirValue o[3] = {shuffle(L, &in, t, t, 4, m, v4), x, addc(&in, at, n * *xs)};
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
  return tile_op_of(dot) == TILE_DOT && mma_dot(L, dot, carry_of_dot(L, dot) ? MAXT : MAXT_ROUND, &p);
}

int tc_nvptx_emit_trans(tc_lower *L, MlirOperation *roots, int n) {
  if (trans_of_mma_b(L, roots[0])) return 1;
  return tc_emit_trans(L, roots, n);
}

/* ---- the dot root ------------------------------------------------------------------------- */

/* A dot operand computed outside the loop the dot stands in (attention's q, whose row-major
 * buffer's 128-byte rows would put the 8 rows of every ldmatrix in one bank group: 8-way
 * conflicts, each trip): staged once, its rows padded (stage_operand), before the new loop,
 * when padding changes its layout; null otherwise. One copy per operand and new loop. */
static MlirValue hoisted_operand(tc_lower *L, MlirOperation dot, MlirValue old, int64_t bank, int64_t *stride) {
  MlirValue none = {NULL};
  MlirOperation oloop = mlirOperationGetParentOperation(dot), nloop = mlirBlockGetParentOperation(L->b.block);
  int64_t shape[TC_RANK];
  MlirType t = mlirValueGetType(old);
  if (mlirOperationIsNull(oloop) || !tc_op_is(oloop, "scf.for") || !tc_outside_loop(old, oloop) ||
      mlirOperationIsNull(nloop) || !tc_op_is(nloop, "scf.for") || tc_shape_of(t, shape) != 2 ||
      tc_nvptx_operand_stride(shape[1], tcb_bitwidth(mlirShapedTypeGetElementType(t)), bank) == shape[1])
    return none;
  frag_set *fs = frags_of(L);
  if (!fs) return none;
  for (int i = 0; i < fs->nhoist; i++)
    if (mlirValueEqual(fs->hoist[i].old, old) && mlirOperationEqual(fs->hoist[i].nloop, nloop) &&
        fs->hoist[i].bank == bank) {
      *stride = fs->hoist[i].stride;
      return fs->hoist[i].buf;
    }
  if (fs->nhoist == MAXH) return none;
  tc_builder saved = L->b;
  tcb_set_before(&L->b, nloop);
  MlirValue buf = stage_operand(L, old, bank, true, stride);
  L->b = saved;
  if (L->status) return none;
  fs->hoist[fs->nhoist++] = (struct hoisted){old, nloop, bank, buf, *stride};
  return buf;
}

/* Is the tile old already in a buffer (staging it writes nothing)? */
static bool is_buffer(tc_lower *L, MlirValue old) {
  tc_special *s = tc_special_of(L, old);
  return s && s->kind == TC_SPECIAL_BUFFER;
}

int tc_nvptx_emit_dot(tc_lower *L, MlirOperation *roots, int n) {
  MlirOperation op = roots[0];
  mma_plan p;
  mma_carry *carry = carry_of_dot(L, op);
  if (!mma_dot(L, op, carry ? MAXT : MAXT_ROUND, &p)) return tc_emit_dot(L, roots, n);
  tc_builder *b = &L->b;
  b->loc = mlirOperationGetLocation(op);
  MlirValue aop = mlirOperationGetOperand(op, 0), abuf = {NULL};
  frag_tile *asrc = frag_in_cone(L, aop, 0);
  if (asrc && (asrc->plan.bm != p.bm || asrc->plan.M != p.M || asrc->plan.N != p.K || p.ks != 16 || p.rounds != 1 ||
               p.split16 || p.ops == OPS_TF32))
    asrc = NULL; /* never by frag_eligible's plans; the staged path reads it then */
  MlirValue bop = mlirOperationGetOperand(op, 1), bsrc = transposed_source(bop);
  if (!mlirValueIsNull(bsrc)) p.btrans = true, bop = bsrc;
  int64_t bbank = p.split16 ? (p.btrans ? 8 : 4) : p.ops == OPS_TF32 && !p.btrans ? 8 : 0;
  /* operands loaded in the K loop around the dot: num_stages - 1 trips ahead (nvptx_pipeline.c) */
  MlirValue olds[2] = {asrc ? (MlirValue){NULL} : aop, bop}, bufs[2];
  int64_t banks[2] = {p.split16 ? 8 : 0, bbank}, strides[2] = {0, 0};
  int piped = tc_nvptx_pipeline_operands(L, op, olds, banks, 2, bufs, strides);
  bool staged = false; /* an operand written to shared memory after the pipeline's barrier */
  if (!mlirValueIsNull(bufs[0])) abuf = bufs[0], p.as = strides[0];
  else if (!asrc && mlirValueIsNull(abuf = hoisted_operand(L, op, aop, banks[0], &p.as)))
    staged |= !is_buffer(L, aop), abuf = stage_operand(L, aop, banks[0], false, &p.as);
  MlirValue bbuf = bufs[1];
  if (!mlirValueIsNull(bbuf)) p.bs = strides[1];
  else if (mlirValueIsNull(bbuf = hoisted_operand(L, op, bop, bbank, &p.bs)))
    staged |= !is_buffer(L, bop), bbuf = stage_operand(L, bop, bbank, false, &p.bs);
  if (L->status) return 1;
  if (carry && p.ops == OPS_S8 && !p.btrans && p.N % 16 == 0 && p.bs % 16 == 0) { /* read as tl.trans(B^T) */
    bbuf = transpose_s8(L, bbuf, p.K, p.N, p.bs, &p.bs);
    p.btrans = true;
    piped = 0; /* the transpose is complete after the barrier below, not the pipeline's */
    if (L->status) return 1;
  }
  /* The pipeline's barrier (emitted at this dot, after every earlier nest of the trip)
   * already makes the operands and what A and acc read complete, unless an operand was
   * written after it. */
  bool fenced = piped > 0 && !staged;
  MlirValue acc = mlirOperationGetOperand(op, 2);
  a_frags *afix = NULL;
  if (asrc) {
    if (!fenced) tc_nvptx_barrier(L, b); /* B and what A reads from earlier nests are complete */
    afix = malloc(sizeof(a_frags) * (size_t)(p.K / p.ks));
    if (!afix) {
      tc_fail_here(L, TILEC_ERROR_INTERNAL, "out of memory");
      return 1;
    }
    frag_a(L, b, asrc, aop, p.K / p.ks, afix);
  }
  if (carry) {                                    /* C in the loop's fragments */
    if (!fenced && !asrc) tc_nvptx_barrier(L, b); /* the operands are complete */
    lane_ctx lc = lane_of(L, b);
    block_ctx k = block_of(b, &p, &lc, (MlirValue){NULL});
    MlirValue cin[MAXT];
    eval_fragments(L, b, &p, &k, acc, carry->arg, carry->in, cin);
    if (!L->status) k_loop(L, b, &p, &k, &lc, abuf, bbuf, cin, afix, carry->out);
    free(afix);
    carry->emitted = true;
    return 1;
  }
  frag_set *fs = afix ? NULL : frags_of(L);
  if (fs && p.rounds == 1 && frag_eligible(L, op)) { /* C stays in the fragments */
    if (!fenced) tc_nvptx_barrier(L, b);             /* the operands and what acc reads are complete */
    lane_ctx lc = lane_of(L, b);
    block_ctx k = block_of(b, &p, &lc, (MlirValue){NULL});
    frag_tile f = {.old = mlirOperationGetResult(op, 0), .plan = p};
    MlirValue cin[MAXT];
    eval_fragments(L, b, &p, &k, acc, (MlirValue){NULL}, NULL, cin);
    if (!L->status) k_loop(L, b, &p, &k, &lc, abuf, bbuf, cin, NULL, f.vals);
    if (!L->status) frag_put(L, fs, f, L->b.block);
    return 1;
  }
  MlirValue cbuf = tc_dot_destination(L, op);
  if (L->status) return 1;
  tc_nvptx_barrier(L, b); /* the operands and what acc reads are complete */
  lane_ctx lc = lane_of(L, b);
  MlirBlock rb = tc_build_for(L, b, cidx(b, 0), cidx(b, p.rounds), cidx(b, 1), 0, NULL, NULL);
  tc_builder r;
  tcb_init(&r, L->ctx);
  r.loc = b->loc;
  tcb_set_end(&r, rb);
  block_ctx k = block_of(&r, &p, &lc, mlirBlockGetArgument(rb, 0));
  MlirValue cin[MAXT], cout[MAXT];
  eval_fragments(L, &r, &p, &k, acc, (MlirValue){NULL}, NULL, cin);
  if (L->status) return 1;
  k_loop(L, &r, &p, &k, &lc, abuf, bbuf, cin, afix, cout);
  free(afix);
  afix = NULL;
  if (L->status) return 1;
  store_fragments(L, &r, &p, &k, cbuf, cout);
  tcb_op(&r, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tc_nvptx_barrier(L, b); /* C is complete for every thread */
  tc_special *s = tc_special_put(L, mlirOperationGetResult(op, 0));
  s->kind = TC_SPECIAL_BUFFER;
  s->buffer = cbuf;
  return 1;
}
