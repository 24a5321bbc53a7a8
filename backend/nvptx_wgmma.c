/* backend/nvptx_wgmma.c — tl.dot on sm_90a's warpgroup MMA (wgmma.mma_async), for a K loop's
 * accumulator: fp16 or bf16 tiles into fp32, both operands the pipeline's stage buffers.
 *
 * When (tc_wgmma_plan): the target is sm_90a (`--arch sm_90a`; nvptx-emu with that --arch
 * emulates it), the dot's C is carried by its loop in the fragments (nvptx_frags.c) and is not
 * a rows plan's (attention's kept-in-fragments dots stay on mma.sync), num_warps a multiple of
 * 4, M a multiple of 64 per warpgroup, N 16, 32, 64 or a multiple of 64 up to 256, K a
 * multiple of 16 up to 64 (a K-major row fits one 128-byte swizzle atom), at most MAXT tiles a
 * warp. C is then dealt the warpgroup way (mma_plan.wg): warpgroup
 * G = w / 4 takes m-tiles G bm .. G bm + bm - 1 of 64 rows each, its warp w % 4 rows 16 (w %
 * 4) + g and + 8 of each, every column — exactly the layout of wgmma's accumulator, whose
 * registers per 8 columns j are {D[g][8j + 2q], D[g][8j + 2q + 1], D[g + 8][8j + 2q], D[g +
 * 8][8j + 2q + 1]}, the same as mma.sync's C fragment of n-tile j (so the carried fragments,
 * their initial values and their store after the loop are nvptx_frags.c's, unchanged).
 *
 * The operands: both pipelined (nvptx_pipeline.c, swizzled) into wgmma's canonical swizzled
 * layouts, 1024-byte aligned: rows of A bytes (A = the row's bytes up to 128: 32, 64 or
 * 128-byte swizzle) in atoms of 8 rows, each row's 16-byte chunk c at c ^ (bits 7.. of its
 * offset); a row longer than 128 bytes in several atoms side by side. Read through matrix
 * descriptors (PTX ISA "Matrix Descriptor Format": start address, leading byte offset LBO,
 * stride byte offset SBO, both >> 4, the swizzle mode in bits 62-63):
 *   A [M][K], K-major (K <= 64):   SBO = 8 rows = 8 A, LBO unused (1); m-tile i, k step s at
 *                                  i 64 A + 32 s (the k step moves the start inside the atom)
 *   B [K][N] row-major = N-major:  imm-trans-b 1; LBO = 8 A (the next 128-byte column of atoms),
 *                                  SBO = the next 8 rows of K; k step s at 2 s SBO
 *   B = tl.trans(x), x [N][K]:     imm-trans-b 0, K-major like A; k step s at 32 s
 * If the operands cannot both be pipelined that way (nvptx_dot.c), the same plan runs on
 * mma.sync from padded rows (its m-tiles 64 rows apart: block_ctx.mstep).
 *
 * Each trip: the pipeline's cp.async wait, fence.proxy.async (the copies are generic-proxy
 * writes, wgmma reads through the async proxy) and barrier; wgmma.fence; for every k step and
 * m-tile one wgmma.mma_async.m64nNk16 (the accumulator registers tied in and out); commit;
 * wgmma.wait_group 0 with every accumulator register tied through it, so that nothing reads
 * or moves them while the group runs. (Triton keeps one group in flight across trips; here
 * the next trip's loads are the pipeline's cp.async, already in flight.)
 *
 * nvptx-emu: runtime/emu.c's tilec_rt_emu_wgmma_m64nNk16 computes a thread's fragment from
 * the stage buffers through the same descriptors (start address relative to the buffer). */
#include "backend/nvptx_mma.h"

#include "conversion/lower.h"
#include "dialects/ir_util.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <string.h>

#define MAX_REGS (MAXT * 4)

bool tc_wgmma_target(const tc_lower *L) {
  const tc_target *t = L->target;
  return t->gpu_emulation ? !strcmp(t->emu_arch, "sm_90a") : t->is_nvptx && !strcmp(t->cpu, "sm_90a");
}

bool tc_wgmma_plan(tc_lower *L, mma_plan *p) {
  int64_t nw = L->target->num_warps;
  if (!tc_wgmma_target(L) || (p->ops != OPS_F16 && p->ops != OPS_BF16) || p->nparts != 1 || p->split16 || nw % 4)
    return false;
  int64_t nwg = nw / 4;
  /* K-major rows of at most 128 bytes (one swizzle atom wide); N-major rows of 32, 64 or a
   * multiple of 128 bytes */
  if (p->M % (64 * nwg) || p->N % 16 || p->N > 256 || (p->N <= 64 ? p->N & (p->N - 1) : p->N % 64) || p->K % 16 ||
      p->K > 64)
    return false;
  int64_t bm = p->M / 64 / nwg, bn = p->N / 8;
  if (bm * bn > MAXT) return false;
  p->bm = bm, p->bn = bn, p->nblk_n = 1, p->active = nw, p->rounds = 1, p->wg = true;
  return true;
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

static MlirValue extract(tc_lower *L, tc_builder *b, MlirValue v, int64_t i, MlirType t) {
  MlirNamedAttribute at = tcb_named(L->ctx, "static_position", mlirDenseI64ArrayGet(L->ctx, 1, &i));
  return tcb_op1(b, "vector.extract", t, 1, &v, 1, &at);
}

/* An inline asm with side effects (and a memory clobber): n f32 outputs tied to the f32
 * inputs in[0..n), after the other inputs extra[0..ne) (their constraints ec, "l,l,r"); out
 * gets the outputs. */
static void tied_asm(tc_lower *L, tc_builder *b, const char *ptx, int n, const MlirValue *in, int ne,
                     const MlirValue *extra, const char *ec, MlirValue *out) {
  MlirType f32 = mlirF32TypeGet(L->ctx);
  char cons[2048], st[2048];
  size_t cl = 0, sl = 0;
  for (int i = 0; i < n; i++) cl += (size_t)snprintf(cons + cl, sizeof cons - cl, "%s=f", i ? "," : "");
  if (ne) cl += (size_t)snprintf(cons + cl, sizeof cons - cl, ",%s", ec);
  for (int i = 0; i < n; i++) cl += (size_t)snprintf(cons + cl, sizeof cons - cl, ",%d", i);
  snprintf(cons + cl, sizeof cons - cl, ",~{memory}");
  sl += (size_t)snprintf(st, sizeof st, "!llvm.struct<(");
  for (int i = 0; i < n; i++) sl += (size_t)snprintf(st + sl, sizeof st - sl, "%sf32", i ? ", " : "");
  snprintf(st + sl, sizeof st - sl, ")>");
  MlirValue ops[3 + MAX_REGS];
  for (int i = 0; i < ne; i++) ops[i] = extra[i];
  for (int i = 0; i < n; i++) ops[ne + i] = in[i];
  MlirNamedAttribute a[3] = {
      tcb_named(L->ctx, "asm_string", mlirStringAttrGet(L->ctx, mlirStringRefCreateFromCString(ptx))),
      tcb_named(L->ctx, "constraints", mlirStringAttrGet(L->ctx, mlirStringRefCreateFromCString(cons))),
      tcb_named(L->ctx, "has_side_effects", mlirUnitAttrGet(L->ctx))};
  MlirValue r = tcb_op1(b, "llvm.inline_asm", tcb_type(L->ctx, st), ne + n, ops, 3, a);
  for (int i = 0; i < n; i++) out[i] = tc_mma_field(L, b, r, i, f32);
}

/* One wgmma.mma_async.m64nNk16 of this warp's m-tile: acc[0 .. N/2) (the tile's registers in
 * wgmma's order) += A x B through the descriptors. Emulator: a, bb are the stage buffers the
 * descriptors' start addresses are relative to. */
static void wgmma(tc_lower *L, tc_builder *b, const mma_plan *p, bool trans_b, MlirValue abuf, MlirValue da,
                  MlirValue bbuf, MlirValue db, MlirValue *acc) {
  int n = (int)(p->N / 2);
  MlirType i32 = tcb_int_type(L->ctx, 32), f32 = mlirF32TypeGet(L->ctx);
  bool bf16 = p->ops == OPS_BF16;
  if (L->target->gpu_emulation) {
    MlirValue scratch = tc_nvptx_scratch(L, n);
    for (int i = 0; i < n; i++) {
      MlirValue st[2] = {acc[i], tc_mma_scratch_slot(L, b, scratch, i, f32)};
      tcb_op(b, "llvm.store", 0, NULL, 2, st, 0, NULL);
    }
    MlirValue args[8] = {tcb_const_int(b, i32, bf16),
                         tcb_const_int(b, i32, (int32_t)p->N),
                         tcb_const_int(b, i32, trans_b),
                         tc_nvptx_shared_address(L, b, abuf, cidx(b, 0)),
                         da,
                         tc_nvptx_shared_address(L, b, bbuf, cidx(b, 0)),
                         db,
                         scratch};
    tc_call_runtime(L, b, "tilec_rt_emu_wgmma_m64nNk16", 8, args);
    for (int i = 0; i < n; i++) {
      MlirValue ptr = tc_mma_scratch_slot(L, b, scratch, i, f32);
      acc[i] = tcb_op1(b, "llvm.load", f32, 1, &ptr, 0, NULL);
    }
    return;
  }
  char ptx[2048], regs[1024];
  size_t rl = 0;
  for (int i = 0; i < n; i++) rl += (size_t)snprintf(regs + rl, sizeof regs - rl, "%s$%d", i ? ", " : "", i);
  const char *ty = bf16 ? "bf16" : "f16";
  snprintf(ptx, sizeof ptx,
           "{\n.reg .pred p;\nsetp.ne.b32 p, $%d, 0;\n"
           "wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s {%s}, $%d, $%d, p, 1, 1, 0, %d;\n}",
           n + 2, (int)p->N, ty, ty, regs, n, n + 1, trans_b ? 1 : 0);
  MlirValue extra[3] = {da, db, tcb_const_int(b, i32, 1)}; /* the descriptors, scale-d */
  MlirValue out[MAX_REGS];
  tied_asm(L, b, ptx, n, acc, 3, extra, "l,l,r", out);
  memcpy(acc, out, sizeof(MlirValue) * (size_t)n);
}

void tc_wgmma_k_loop(tc_lower *L, tc_builder *b, const mma_plan *p, const lane_ctx *lc, MlirValue abuf, MlirValue bbuf,
                     const MlirValue *in, MlirValue *out) {
  MlirType f32 = mlirF32TypeGet(L->ctx), i64 = tcb_int_type(L->ctx, 64);
  int64_t awa = 2 * p->K; /* A's rows: K fp16/bf16 (at most 128 bytes) */
  int64_t awb = p->btrans ? 2 * p->K : (2 * p->N < 128 ? 2 * p->N : 128);
  int64_t na = p->btrans ? 1 : 2 * p->N / awb;
  int64_t lbo_b = p->btrans ? 16 : 8 * awb, sbo_b = p->btrans ? 8 * awb : na * 8 * awb;
  MlirValue da0 = descriptor(L, b, abuf, awa, 16, 8 * awa), db0 = descriptor(L, b, bbuf, awb, lbo_b, sbo_b);
  /* this warpgroup's first m-tile: bm (w / 4) 64-row blocks of 8 atoms each */
  MlirValue wgi = tcb_binary(b, "arith.divui", lc->warp, cidx(b, 4));
  MlirValue wg_off = tcb_cast(b, "arith.index_cast", mulc(b, wgi, p->bm * 64 * awa / 16), i64);
  da0 = tcb_binary(b, "arith.addi", da0, wg_off);
  int n = (int)(p->N / 2);
  MlirValue regs[MAX_REGS]; /* bm x N/2 */
  int64_t nt = p->bm * p->bn;
  for (int64_t t = 0; t < nt; t++)
    for (int e = 0; e < 4; e++) regs[t * 4 + e] = extract(L, b, in[t], e, f32);
  tc_nvptx_asm(L, b, "wgmma.fence.sync.aligned;");
  for (int64_t s = 0; s * 16 < p->K && !L->status; s++) {
    MlirValue db = tcb_binary(b, "arith.addi", db0, i64c(b, (p->btrans ? 32 * s : 2 * s * sbo_b) / 16));
    for (int64_t i = 0; i < p->bm; i++) {
      MlirValue da = tcb_binary(b, "arith.addi", da0, i64c(b, (i * 64 * awa + 32 * s) / 16));
      wgmma(L, b, p, !p->btrans, abuf, da, bbuf, db, &regs[i * n]);
    }
  }
  if (!L->target->gpu_emulation) {
    tc_nvptx_asm(L, b, "wgmma.commit_group.sync.aligned;");
    /* every accumulator register through the wait: none is read before the group is done */
    int total = (int)(p->bm * n);
    MlirValue waited[MAX_REGS];
    tied_asm(L, b, "wgmma.wait_group.sync.aligned 0;", total, regs, 0, NULL, "", waited);
    memcpy(regs, waited, sizeof(MlirValue) * (size_t)total);
  }
  MlirType v4 = tc_vec_type(L->ctx, 4, f32);
  for (int64_t t = 0; t < nt; t++) out[t] = tcb_op1(b, "vector.from_elements", v4, 4, &regs[t * 4], 0, NULL);
}
