/* backend/nvptx_wgmma.c — tl.dot on sm_90a's warpgroup MMA (wgmma.mma_async): fp16 or bf16
 * tiles into fp32, for a K loop's carried accumulator (matmul) and for the rows plans of
 * attention (its scores kept in registers, p @ v).
 *
 * The layout (mma_plan.wg): warpgroup G = w / 4 takes m-tiles G bm .. G bm + bm - 1 of 64 rows
 * each, its warp w % 4 rows 16 (w % 4) + g and + 8 of each, every column — exactly the layout
 * of wgmma's accumulator, whose registers per 8 columns j are {D[g][8j + 2q], D[g][8j + 2q +
 * 1], D[g + 8][8j + 2q], D[g + 8][8j + 2q + 1]}, the same as mma.sync's C fragment of n-tile
 * j (so the carried fragments, their initial values, their store after the loop, the rows'
 * reductions and row vectors of nvptx_frags.c are unchanged). On a wgmma target
 * (`--arch sm_90a`; nvptx-emu with that --arch emulates it) it is
 *   - the plan of a carried accumulator's dot (tc_wgmma_plan: num_warps a multiple of 4, M
 *     of 64 per warpgroup, N 16, 32, 64 or a multiple of 64 up to 256, K 16, 32 or a
 *     multiple of 64, at most MAXT tiles a warp), and
 *   - every rows plan (tc_wgmma_rows_plan, from tc_mma_make_plan: M of 64 per warpgroup), so
 *     that all the dots and row vectors of a kernel's fragments share the same rows whichever
 *     instruction computes each.
 * A dot of such a plan runs on wgmma when the instruction takes it (tc_wgmma_runs) and its
 * operands can be had in wgmma's layouts (nvptx_dot.c's operands_of): each pipelined
 * (nvptx_pipeline.c, swizzled) or, when its loop does not change it (attention's q), staged
 * once before the loop in the same layout, or, for A, the registers of a fragment tile
 * (tc_mma_frag_a: attention's p, the wgmma form with A in registers). Otherwise mma.sync
 * computes it in the same layout from padded rows (its m-tiles 64 rows apart:
 * block_ctx.mstep).
 *
 * Shared operands are in wgmma's canonical swizzled layouts, 1024-byte aligned: rows of R
 * bytes in atoms of 8 rows x A bytes (A = R up to 128: 32-, 64- or 128-byte swizzle), a
 * longer row in several atoms side by side, each row's 16-byte chunk c at c ^ (bits 7.. of
 * its offset) (tc_nvptx_swizzled_at). Read through matrix descriptors (PTX ISA "Matrix
 * Descriptor Format": start address, leading byte offset LBO, stride byte offset SBO, both
 * >> 4, the swizzle mode in bits 62-63):
 *   A [M][K], K-major:             SBO = 8 R (the next 8 rows), LBO unused (1); m-tile i at
 *                                  64 i R, k step s at atom 32 s / A (8 A bytes each), 32 s % A
 *                                  into it
 *   B [K][N] row-major = N-major:  imm-trans-b 1; LBO = 8 A (the next column of atoms), SBO =
 *                                  8 R (the next 8 rows of K); k step s at 2 s SBO
 *   B = tl.trans(x), x [N][K]:     imm-trans-b 0, K-major like A
 *   A in registers:                {a0..a3} of each m-tile and k step: mma.sync's A fragment of
 *                                  the warp's 16 rows, tied through the wait like the
 *                                  accumulator (nothing may reuse them while the group runs)
 *
 * A dot: wgmma.fence; for every k step and m-tile one wgmma.mma_async.m64nNk16 (the
 * accumulator registers tied in and out; a zero acc is scale-d 0 on the first k step, its
 * registers not read); commit; wgmma.wait_group 0 with every accumulator register tied
 * through it, so that nothing reads or moves them while the group runs. Pipelined stages:
 * the pipeline's cp.async wait, fence.proxy.async (the copies are generic-proxy writes,
 * wgmma reads through the async proxy) and barrier come first; an operand staged once has its
 * own fence and barrier. (Triton keeps one group in flight across trips; here the next trip's
 * loads are the pipeline's cp.async, already in flight.)
 *
 * nvptx-emu: runtime/emu.c's tilec_rt_emu_wgmma_m64nNk16 computes a thread's fragment from
 * the stage buffers through the same descriptors (start address relative to the buffer), A
 * from the warp's registers (exchanged) in the register form. */
#include "backend/nvptx_mma.h"

#include "conversion/lower.h"
#include "dialects/ir_util.h"
#include "runtime/debug.h" /* TILEC_EMU_WGMMA_*: the emulator's modes */
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <string.h>

#define MAX_TIED (MAXT * 4 + MAXT * 4) /* accumulators, and A registers (k steps x m-tiles x 4) */

bool tc_wgmma_target(const tc_lower *L) {
  const tc_target *t = L->target;
  return t->gpu_emulation ? !strcmp(t->emu_arch, "sm_90a") : t->is_nvptx && !strcmp(t->cpu, "sm_90a");
}

/* C of p->M x p->N dealt the warpgroups' way (mma_plan.wg) over the target's warps, at most
 * maxt tiles a warp. */
static bool wg_layout(tc_lower *L, mma_plan *p, int64_t maxt) {
  int64_t nw = L->target->num_warps;
  if (!tc_wgmma_target(L) || nw % 4 || p->M % (64 * (nw / 4)) || p->N % 8) return false;
  int64_t bm = p->M / 64 / (nw / 4), bn = p->N / 8;
  if (bm * bn > maxt) return false;
  p->bm = bm, p->bn = bn, p->nblk_n = 1, p->active = nw, p->rounds = 1, p->wg = true;
  return true;
}

bool tc_wgmma_rows_plan(tc_lower *L, int64_t M, int64_t N, int64_t K, int64_t maxt, mma_plan *p) {
  mma_plan w = {.M = M, .N = N, .K = K};
  if (!wg_layout(L, &w, maxt)) return false;
  *p = w;
  return true;
}

bool tc_wgmma_runs(const mma_plan *p, bool afix) {
  /* tied through the wait: bm x N / 2 accumulators, and (afix) K / 16 x bm x 4 A registers */
  int64_t tied = p->bm * p->N / 2 + (afix ? p->K / 16 * p->bm * 4 : 0);
  return (p->ops == OPS_F16 || p->ops == OPS_BF16) && p->nparts == 1 && !p->split16 && p->N % 8 == 0 && p->N <= 256 &&
         p->K % 16 == 0 && tied <= MAX_TIED;
}

bool tc_wgmma_plan(tc_lower *L, mma_plan *p) {
  /* rows the swizzled stages take (N-major B: 2 N bytes; K-major A: 2 K) */
  return wg_layout(L, p, MAXT) && tc_wgmma_runs(p, false) && tc_nvptx_swizzle_fits(8, p->N / 8) &&
         tc_nvptx_swizzle_fits(8, p->K / 8);
}

static MlirValue i64c(tc_builder *b, int64_t v) { return tcb_const_int(b, tcb_int_type(b->ctx, 64), v); }

/* The swizzle-mode field of a layout whose atoms are aw bytes wide (128, 64, 32). */
static int64_t swizzle_mode(int64_t aw) { return aw == 128 ? 1 : aw == 64 ? 2 : 3; }

/* The descriptor of a swizzled buffer (atoms aw bytes wide) with these strides, its start
 * address the buffer's (GPU: its 32-bit shared address; emulator: 0, the buffer passed beside
 * it). Base offset 0: the buffer is 1024-byte aligned. */
static MlirValue descriptor(tc_lower *L, tc_builder *b, MlirValue buf, int64_t aw, int64_t lbo, int64_t sbo) {
  MlirType i64 = tcb_int_type(L->ctx, 64);
  MlirValue d = i64c(
      b, (int64_t)(((uint64_t)swizzle_mode(aw) << 62) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32)));
  if (L->target->gpu_emulation) return d;
  MlirValue p3 = tc_nvptx_shared_address(L, b, buf, cidx(b, 0));
  MlirValue a = tcb_cast(b, "llvm.ptrtoint", p3, i64);
  a = tcb_binary(b, "arith.shrui", tcb_binary(b, "arith.andi", a, i64c(b, 0x3FFFF)), i64c(b, 4));
  return tcb_binary(b, "arith.ori", d, a);
}

/* A K-major operand's rows of rb bytes (2 K): atoms aw = min(rb, 128) bytes wide, a row's
 * atoms side by side (nvptx_pipeline.c's chunk_at), so 8 rows take 8 rb bytes (SBO) and k
 * step s starts 32 s bytes into the row: atom 32 s / aw, 32 s % aw inside it. */
static int64_t kmajor_atom(int64_t rb) { return rb < 128 ? rb : 128; }
static int64_t kmajor_step(int64_t rb, int64_t s) {
  int64_t aw = kmajor_atom(rb);
  return 32 * s / aw * 8 * aw + 32 * s % aw;
}

static MlirValue extract(tc_lower *L, tc_builder *b, MlirValue v, int64_t i, MlirType t) {
  MlirNamedAttribute at = tcb_named(L->ctx, "static_position", mlirDenseI64ArrayGet(L->ctx, 1, &i));
  return tcb_op1(b, "vector.extract", t, 1, &v, 1, &at);
}

/* An inline asm with side effects (and a memory clobber): nf f32 outputs, then ni i32 ones,
 * tied to the inputs in[0 .. nf + ni), after the other inputs extra[0..ne) (their
 * constraints ec, "l,l,r"); out gets the outputs. */
static void tied_asm(tc_lower *L, tc_builder *b, const char *ptx, int nf, int ni, const MlirValue *in, int ne,
                     const MlirValue *extra, const char *ec, MlirValue *out) {
  MlirType f32 = mlirF32TypeGet(L->ctx), i32 = tcb_int_type(L->ctx, 32);
  int n = nf + ni;
  char cons[4096], st[4096];
  size_t cl = 0, sl = 0;
  for (int i = 0; i < n; i++)
    cl += (size_t)snprintf(cons + cl, sizeof cons - cl, "%s=%s", i ? "," : "", i < nf ? "f" : "r");
  if (ne) cl += (size_t)snprintf(cons + cl, sizeof cons - cl, ",%s", ec);
  for (int i = 0; i < n; i++) cl += (size_t)snprintf(cons + cl, sizeof cons - cl, ",%d", i);
  snprintf(cons + cl, sizeof cons - cl, ",~{memory}");
  sl += (size_t)snprintf(st, sizeof st, "!llvm.struct<(");
  for (int i = 0; i < n; i++)
    sl += (size_t)snprintf(st + sl, sizeof st - sl, "%s%s", i ? ", " : "", i < nf ? "f32" : "i32");
  snprintf(st + sl, sizeof st - sl, ")>");
  MlirValue ops[8 + MAX_TIED];
  for (int i = 0; i < ne; i++) ops[i] = extra[i];
  for (int i = 0; i < n; i++) ops[ne + i] = in[i];
  MlirNamedAttribute a[3] = {
      tcb_named(L->ctx, "asm_string", mlirStringAttrGet(L->ctx, mlirStringRefCreateFromCString(ptx))),
      tcb_named(L->ctx, "constraints", mlirStringAttrGet(L->ctx, mlirStringRefCreateFromCString(cons))),
      tcb_named(L->ctx, "has_side_effects", mlirUnitAttrGet(L->ctx))};
  MlirValue r = tcb_op1(b, "llvm.inline_asm", tcb_type(L->ctx, st), ne + n, ops, 3, a);
  tc_nvptx_mark_shared_read(mlirOpResultGetOwner(r)); /* reads shared memory (wgmma), or waits for that */
  for (int i = 0; i < n; i++) out[i] = tc_mma_field(L, b, r, i, i < nf ? f32 : i32);
}

/* One wgmma.mma_async.m64nNk16 of this warp's m-tile: acc[0 .. N/2) (the tile's registers in
 * wgmma's order) += A x B (= A x B with zero: scale-d 0), B through its descriptor db
 * (N-major with trans_b), A through da or, where ar is given, from the registers ar[0..3].
 * Emulator: abuf, bbuf are the stage buffers the descriptors' start addresses are relative to. */
static void wgmma(tc_lower *L, tc_builder *b, const mma_plan *p, bool trans_b, bool zero, MlirValue abuf, MlirValue da,
                  const MlirValue *ar, MlirValue bbuf, MlirValue db, MlirValue *acc) {
  int n = (int)(p->N / 2);
  MlirType i32 = tcb_int_type(L->ctx, 32), f32 = mlirF32TypeGet(L->ctx);
  bool bf16 = p->ops == OPS_BF16;
  if (L->target->gpu_emulation) {
    MlirValue scratch = tc_nvptx_scratch(L, n + 4);
    for (int i = zero ? n : 0; i < n + (ar ? 4 : 0); i++) { /* scale-d 0 reads no accumulator */
      MlirValue st[2] = {i < n ? acc[i] : ar[i - n], tc_mma_scratch_slot(L, b, scratch, i, i < n ? f32 : i32)};
      tcb_op(b, "llvm.store", 0, NULL, 2, st, 0, NULL);
    }
    int32_t mode = (bf16 ? TILEC_EMU_WGMMA_BF16 : 0) | (trans_b ? TILEC_EMU_WGMMA_TRANS_B : 0) |
                   (zero ? TILEC_EMU_WGMMA_ZERO : 0) | (ar ? TILEC_EMU_WGMMA_A_REGS : 0);
    MlirValue bp = tc_nvptx_shared_address(L, b, bbuf, cidx(b, 0));
    MlirValue args[7] = {tcb_const_int(b, i32, mode),
                         tcb_const_int(b, i32, (int32_t)p->N),
                         ar ? bp : tc_nvptx_shared_address(L, b, abuf, cidx(b, 0)),
                         ar ? i64c(b, 0) : da,
                         bp,
                         db,
                         scratch};
    tc_call_runtime(L, b, "tilec_rt_emu_wgmma_m64nNk16", 7, args);
    for (int i = 0; i < n; i++) {
      MlirValue ptr = tc_mma_scratch_slot(L, b, scratch, i, f32);
      acc[i] = tcb_op1(b, "llvm.load", f32, 1, &ptr, 0, NULL);
    }
    return;
  }
  char ptx[4096], regs[1024], aop[64];
  size_t rl = 0;
  for (int i = 0; i < n; i++) rl += (size_t)snprintf(regs + rl, sizeof regs - rl, "%s$%d", i ? ", " : "", i);
  const char *ty = bf16 ? "bf16" : "f16";
  /* the inputs after the tied ones: A's descriptor or its four registers, B's, scale-d */
  int na = ar ? 4 : 1;
  if (ar) snprintf(aop, sizeof aop, "{$%d, $%d, $%d, $%d}", n, n + 1, n + 2, n + 3);
  else snprintf(aop, sizeof aop, "$%d", n);
  snprintf(ptx, sizeof ptx,
           "{\n.reg .pred p;\nsetp.ne.b32 p, $%d, 0;\n"
           "wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s {%s}, %s, $%d, p, 1, 1%s, %d;\n}",
           n + na + 1, (int)p->N, ty, ty, regs, aop, n + na, ar ? "" : ", 0", trans_b ? 1 : 0);
  MlirValue extra[6], in[MAX_TIED];
  int ne = 0;
  if (ar)
    for (int i = 0; i < 4; i++) extra[ne++] = ar[i];
  else extra[ne++] = da;
  extra[ne++] = db;
  extra[ne++] = tcb_const_int(b, i32, zero ? 0 : 1);
  MlirValue poison = zero ? tcb_op1(b, "llvm.mlir.poison", f32, 0, NULL, 0, NULL) : (MlirValue){NULL};
  for (int i = 0; i < n; i++) in[i] = zero ? poison : acc[i]; /* scale-d 0 reads no accumulator */
  tied_asm(L, b, ptx, n, 0, in, ne, extra, ar ? "r,r,r,r,l,r" : "l,l,r", acc);
}

void tc_wgmma_k_loop(tc_lower *L, tc_builder *b, const mma_plan *p, const lane_ctx *lc, MlirValue abuf, MlirValue bbuf,
                     const a_frags *afix, bool zero, const MlirValue *in, MlirValue *out) {
  MlirType f32 = mlirF32TypeGet(L->ctx), i64 = tcb_int_type(L->ctx, 64);
  int64_t rba = 2 * p->K; /* A's K-major rows */
  int64_t rbb = p->btrans ? 2 * p->K : 2 * p->N;
  int64_t awb = kmajor_atom(rbb); /* N-major B's atoms too: the row's bytes up to 128 */
  int64_t lbo_b = p->btrans ? 16 : 8 * awb, sbo_b = 8 * rbb;
  MlirValue db0 = descriptor(L, b, bbuf, awb, lbo_b, sbo_b), da0 = {NULL};
  if (!afix) {
    da0 = descriptor(L, b, abuf, kmajor_atom(rba), 16, 8 * rba);
    /* this warpgroup's first m-tile: bm (w / 4) 64-row blocks */
    MlirValue wgi = tcb_binary(b, "arith.divui", lc->warp, cidx(b, 4));
    da0 = tcb_binary(b, "arith.addi", da0, tcb_cast(b, "arith.index_cast", mulc(b, wgi, p->bm * 64 * rba / 16), i64));
  }
  int n = (int)(p->N / 2);
  MlirValue regs[MAX_TIED]; /* bm x N/2 accumulators, then A's registers (afix) */
  int64_t nt = p->bm * p->bn;
  for (int64_t t = 0; t < nt && !zero; t++)
    for (int e = 0; e < 4; e++) regs[t * 4 + e] = extract(L, b, in[t], e, f32);
  tc_nvptx_asm(L, b, "wgmma.fence.sync.aligned;");
  for (int64_t s = 0; s * 16 < p->K && !L->status; s++) {
    int64_t boff = p->btrans ? kmajor_step(rbb, s) : 2 * s * sbo_b;
    MlirValue db = tcb_binary(b, "arith.addi", db0, i64c(b, boff / 16));
    for (int64_t i = 0; i < p->bm; i++) {
      MlirValue da = {NULL};
      if (!afix) da = tcb_binary(b, "arith.addi", da0, i64c(b, (i * 64 * rba + kmajor_step(rba, s)) / 16));
      wgmma(L, b, p, !p->btrans, zero && s == 0, abuf, da, afix ? afix[s][i] : NULL, bbuf, db, &regs[i * n]);
    }
  }
  if (!L->target->gpu_emulation) {
    tc_nvptx_asm(L, b, "wgmma.commit_group.sync.aligned;");
    /* every accumulator register, and A's registers, through the wait: none is read, moved or
     * reused before the group is done */
    int nf = (int)(p->bm * n), ni = 0;
    for (int64_t s = 0; afix && s * 16 < p->K; s++)
      for (int64_t i = 0; i < p->bm; i++)
        for (int x = 0; x < 4; x++) regs[nf + ni++] = afix[s][i][x];
    MlirValue waited[MAX_TIED];
    tied_asm(L, b, "wgmma.wait_group.sync.aligned 0;", nf, ni, regs, 0, NULL, "", waited);
    memcpy(regs, waited, sizeof(MlirValue) * (size_t)nf);
  }
  MlirType v4 = tc_vec_type(L->ctx, 4, f32);
  for (int64_t t = 0; t < nt; t++) out[t] = tcb_op1(b, "vector.from_elements", v4, 4, &regs[t * 4], 0, NULL);
}
