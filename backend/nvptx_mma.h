/* backend/nvptx_mma.h — what the two files of tl.dot on tensor cores share: nvptx_dot.c (a
 * dot's plan, its fragments and K loop, its operands in shared memory, the dot root) and
 * nvptx_frags.c (what stays in the warps' fragments between ops: loop-carried accumulators,
 * tiles computed from dot results, row vectors in the quads' registers). Both describe the
 * same things: an mma_plan deals C's 16x8 tiles to the warps, lane_ctx / block_ctx are a
 * lane's place in it. Everything here works for nvptx and nvptx-emu. */
#ifndef TILEC_BACKEND_NVPTX_MMA_H
#define TILEC_BACKEND_NVPTX_MMA_H

#include "backend/nvptx.h"
#include "conversion/lower.h"

#define WARP TC_WARP_SIZE
#define MAXT 32       /* C tiles a warp keeps in registers (4 f32 each) across a loop */
#define MAXT_ROUND 16 /* ... in one round of a dot whose C goes to shared memory */

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
  bool wg;        /* the warpgroups' layout (sm_90a's wgmma, nvptx_wgmma.c): warp w of warpgroup
                   * w / 4 holds rows 64 (bm (w / 4) + i) + 16 (w % 4) + g of m-tile i, every
                   * column (bn = N / 8); the m-tiles of a block are 64 rows apart, not 16 */
} mma_plan;

static inline MlirValue cidx(tc_builder *b, int64_t c) { return tcb_const_index(b, c); }
static inline MlirValue add(tc_builder *b, MlirValue x, MlirValue y) { return tcb_binary(b, "arith.addi", x, y); }
static inline MlirValue addc(tc_builder *b, MlirValue x, int64_t c) { return c ? add(b, x, cidx(b, c)) : x; }
static inline MlirValue mulc(tc_builder *b, MlirValue x, int64_t c) {
  return tcb_binary(b, "arith.muli", x, cidx(b, c));
}

/* This thread's place: its warp, and g, 2q of its lane. */
typedef struct lane_ctx {
  MlirValue warp, g, q, q2;
  MlirValue lm, lr; /* ldmatrix: the 8x8 matrix (lane / 8) and row (lane % 8) this lane addresses */
} lane_ctx;

/* A warp block's rows and columns for this lane: row[i] = its A/C row g of m-tile i (row
 * g + 8 is row[i] + 8), col[j] = its C column 2q of n-tile j, bcol[j] = its B column g. */
typedef struct block_ctx {
  MlirValue row[MAXT], col[MAXT], bcol[MAXT];
  MlirValue row0, col0; /* the block's first row and column */
  int64_t mstep;        /* rows from m-tile i to i + 1: 16, or 64 (wg) */
  MlirValue valid;      /* i1: this warp keeps what it computes */
} block_ctx;

/* The fragments' A registers of a k step (fragment tiles, below): [k step][m-tile][4]. */
typedef MlirValue a_frags[MAXT][4];

/* One carried tile of one loop, from count to done (nvptx_frags.c: tc_nvptx_mma_carries). */
typedef struct mma_carry {
  MlirOperation loop, dot;
  int i;         /* which carried value of the loop */
  MlirValue arg; /* the loop body's argument (old) */
  mma_plan plan;
  MlirValue in[MAXT], out[MAXT];
  bool used, bound, emitted;
  bool row; /* a row vector in the quads' registers (row_carry_*, below), not a tl.dot accumulator */
} mma_carry;

/* A tile kept in the warps' fragments (nvptx_frags.c, "dot results kept in fragments"),
 * or a row vector in the quads' registers. */
typedef struct frag_tile {
  MlirValue old;
  mma_plan plan;
  bool row;             /* a row vector (below): vals[2 i + h] is the scalar of row row[i] + 8 h */
  MlirValue vals[MAXT]; /* else vector<4 x the tile's element type> per tile i * bn + j */
  MlirBlock at;         /* the new block they were computed in: in scope there and inside */
} frag_tile;

#define MAXF 32 /* fragment tiles of one kernel */
#define MAXH 8  /* dot operands staged before their loop (hoisted_operand) */
/* The kernel's fragment tiles, and the dot operands staged before their loop (nvptx_dot.c's
 * hoisted_operand): tc_nvptx_kernel's frags. */
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

/* ---- nvptx_dot.c ---- */
/* A pointer to slot i (of type t) of a thread's scratch (tc_nvptx_scratch), which the
 * emulator's tensor-core routines read and write. */
MlirValue tc_mma_scratch_slot(tc_lower *L, tc_builder *b, MlirValue scratch, int i, MlirType t);
/* Field i (of type t) of an LLVM struct (an MMA's, ldmatrix's or inline asm's results). */
MlirValue tc_mma_field(tc_lower *L, tc_builder *b, MlirValue s, int64_t i, MlirType t);
/* The chip's compute capability (sm_80 -> 80); the emulator has every instruction. */
int tc_mma_capability(const tc_lower *L);
/* A plan for C of M x N over K with the target's warps (rows: the warps along M only); false
 * when none fits. */
bool tc_mma_make_plan(tc_lower *L, int64_t M, int64_t N, int64_t K, int64_t maxt, bool rows, mma_plan *p);
/* The tensor-core form of a tl.dot (operand types, k step), without a plan; C's and A's shapes. */
bool tc_mma_types(tc_lower *L, MlirOperation op, mma_plan *p, int64_t *cs, int64_t *as);
/* Whether op is a dot computed on tensor cores, and its plan (at most maxt tiles a warp). */
bool tc_mma_plan_of(tc_lower *L, MlirOperation op, int64_t maxt, mma_plan *p);
lane_ctx tc_mma_lane_of(tc_lower *L, tc_builder *b);
/* The block of warp lc->warp in round r (an index; null: round 0). */
block_ctx tc_mma_block_of(tc_builder *b, const mma_plan *p, const lane_ctx *lc, MlirValue r);
/* The element type of C's fragments: i32 for s8 operands, else f32. */
MlirType tc_mma_frag_elem(tc_lower *L, mma_ops ops);
MlirValue tc_mma_shuffle(tc_lower *L, tc_builder *b, MlirValue x, MlirValue y, int n, const int64_t *mask, MlirType t);
/* Half h of a tile's vector<4 x T> (h = 0: row g, 1: row g + 8) as vector<2 x T>. */
MlirValue tc_mma_half_of(tc_lower *L, tc_builder *b, MlirValue v, int h);
/* Old tile v (M x N) at every fragment of the block, one vector<4 x C's type> per tile in out;
 * where arg is not null, that old tile is bound to the fragments argv (a carried accumulator). */
void tc_mma_eval_fragments(tc_lower *L, tc_builder *b, const mma_plan *p, const block_ctx *k, MlirValue v,
                           MlirValue arg, const MlirValue *argv, MlirValue *out);
/* Writes the block's fragments to the flat M x N buffer buf, where the warp keeps its block. */
void tc_mma_store_fragments(tc_lower *L, tc_builder *b, const mma_plan *p, const block_ctx *k, MlirValue buf,
                            const MlirValue *vals);

/* ---- nvptx_wgmma.c ---- */
/* Does the target have wgmma (sm_90a, or nvptx-emu emulating it)? */
bool tc_wgmma_target(const tc_lower *L);
/* The warpgroups' plan of a C tile (wg: see mma_plan) when a carried accumulator's dot can
 * run on wgmma from two swizzled stages (its types in p already); false otherwise. */
bool tc_wgmma_plan(tc_lower *L, mma_plan *p);
/* A rows plan (each warp holds whole rows) in the warpgroups' layout, on a wgmma target
 * (tc_mma_make_plan's rows plans there: the same rows for every dot of a kernel's fragments,
 * whichever instruction computes each); false when M does not fill the warpgroups. */
bool tc_wgmma_rows_plan(tc_lower *L, int64_t M, int64_t N, int64_t K, int64_t maxt, mma_plan *p);
/* Can wgmma compute this plan's dot (its types and shape; where the operands are staged is
 * the caller's): afix, with A from the fragments' registers. */
bool tc_wgmma_runs(const mma_plan *p, bool afix);
/* C += A x B over K with wgmma (zero: C = A x B, in not read): B the swizzled stage buffer
 * bbuf, A the swizzled K-major abuf or, with afix, the fragments' registers of every k step
 * (tc_mma_frag_a); out[t] from in[t] (vector<4xf32> a tile). */
void tc_wgmma_k_loop(tc_lower *L, tc_builder *b, const mma_plan *p, const lane_ctx *lc, MlirValue abuf, MlirValue bbuf,
                     const a_frags *afix, bool zero, const MlirValue *in, MlirValue *out);

/* ---- nvptx_frags.c ---- */
frag_set *tc_mma_frags_of(tc_lower *L);
/* Records f (its values in scope in block `at` and inside), replacing an earlier record of its tile. */
void tc_mma_frag_put(tc_lower *L, frag_set *s, frag_tile f, MlirBlock at);
/* Is the result of dot read only where the warps of a rows plan hold it (kept in fragments)? */
bool tc_mma_frag_eligible(tc_lower *L, MlirOperation dot);
/* The warps of this dot go along M: its result stays in fragments, or its A is read from them. */
bool tc_mma_frag_rows(tc_lower *L, MlirOperation dot);
/* The dot kept in fragments whose result dot's A operand is computed from (through
 * elementwise ops of its block), or null: A read from the fragments (before it is lowered). */
MlirOperation tc_mma_frag_a_source(tc_lower *L, MlirOperation dot);
/* A fragment tile in v's cone (through elementwise ops), or null. */
frag_tile *tc_mma_frag_in_cone(tc_lower *L, MlirValue v, int depth);
/* A's fragments, for every k step, of a dot whose A operand (old) is computed from src. */
void tc_mma_frag_a(tc_lower *L, tc_builder *b, const frag_tile *src, MlirValue old, int64_t ksteps, a_frags *out);
/* Binds every row vector of p's rows in scope to row (the lane's row[i] + 8 h) in c. */
void tc_mma_bind_rows(tc_lower *L, tc_chunk *c, const mma_plan *p, MlirValue row, int64_t i, int h);
/* The carried accumulator whose dot this is, while its loop's body is lowered (or null). */
mma_carry *tc_mma_carry_of_dot(tc_lower *L, MlirOperation dot);

#endif
