/* backend/nvptx_dot.c — tl.dot of fp16 or bf16 tiles into fp32 on tensor cores (sm_80+):
 * mma.sync.m16n8k16.row.col. The operands and the accumulator are tiles in shared memory
 * (materialized by the threads together); C's 16x8 tiles are dealt to the warps in rounds,
 * every warp running every round (a warp past the last tile computes tile 0 and keeps
 * nothing), so all threads meet the same instructions. Each lane holds the fragments
 * PTX defines for its group g = lane / 4 and thread q = lane % 4:
 *   A: {A[g][2q..2q+1], A[g+8][2q..], A[g][2q+8..], A[g+8][2q+8..]} (four f16x2 / bf16x2)
 *   B: {B[2q..2q+1][g], B[2q+8..2q+9][g]}                           (two)
 *   C, D: {C[g][2q], C[g][2q+1], C[g+8][2q], C[g+8][2q+1]}            (four f32)
 * nvptx-emu runs the same fragments through the emulator's warp-wide MMA (runtime/emu.c).
 * An fp16/bf16 result (out_dtype=tl.float16) runs the same f32 MMAs: C is widened when the
 * fragments are read and rounded once when they are stored.
 * Other dots (fp32, int8, shapes not multiples of 16x8x16, chips before sm_80) deal C's
 * blocks to threads as FMAs (conversion/dot.c over this backend's shared_loop). In: a
 * tile.dot root. Out: its result as a shared buffer. */
#include "backend/nvptx.h"

#include "conversion/lower.h"
#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>
#include <string.h>

#define WARP TC_WARP_SIZE

/* The chip's compute capability (sm_80 -> 80); the emulator has every instruction. */
static int capability(const tc_lower *L) {
  if (L->target->gpu_emulation) return 1000;
  const char *a = L->target->cpu;
  return a && !strncmp(a, "sm_", 3) ? atoi(a + 3) : 0;
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

static MlirValue idx2(tc_builder *b, MlirValue row, int64_t stride, MlirValue col) {
  return tcb_binary(b, "arith.addi", tcb_binary(b, "arith.muli", row, tcb_const_index(b, stride)), col);
}

static MlirValue add_c(tc_builder *b, MlirValue v, int64_t c) { return tcb_binary(b, "arith.addi", v, tcb_const_index(b, c)); }

/* d[0..3] = mma(a[0..3], bf[0..1], c[0..3]) for the warp. */
static void mma(tc_lower *L, tc_builder *b, bool bf16, const MlirValue *a, const MlirValue *bf, const MlirValue *c,
                MlirValue *d) {
  MlirType f32 = mlirF32TypeGet(L->ctx), i32 = tcb_int_type(L->ctx, 32);
  if (L->target->gpu_emulation) {
    MlirValue out = tc_nvptx_scratch(L, 4);
    MlirValue args[12] = {tcb_const_int(b, i32, bf16), a[0], a[1], a[2], a[3], bf[0], bf[1], c[0], c[1], c[2], c[3], out};
    tc_call_runtime(L, b, "tilec_rt_emu_mma_m16n8k16", 12, args);
    for (int i = 0; i < 4; i++) {
      int32_t gi = i;
      MlirNamedAttribute ga[2] = {tcb_named(L->ctx, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 1, &gi)),
                                  tcb_named(L->ctx, "elem_type", mlirTypeAttrGet(f32))};
      MlirValue p = tcb_op1(b, "llvm.getelementptr", tcb_type(L->ctx, "!llvm.ptr"), 1, &out, 2, ga);
      d[i] = tcb_op1(b, "llvm.load", f32, 1, &p, 0, NULL);
    }
    return;
  }
  MlirValue ops[10];
  MlirType h2 = tc_vec_type(L->ctx, 2, mlirF16TypeGet(L->ctx));
  for (int i = 0; i < 4; i++) ops[i] = bf16 ? a[i] : tcb_cast(b, "llvm.bitcast", a[i], h2);
  for (int i = 0; i < 2; i++) ops[4 + i] = bf16 ? bf[i] : tcb_cast(b, "llvm.bitcast", bf[i], h2);
  for (int i = 0; i < 4; i++) ops[6 + i] = c[i];
  const char *ty = bf16 ? "#nvvm.mma_type<bf16>" : "#nvvm.mma_type<f16>";
  int32_t seg[3] = {4, 2, 4};
  MlirNamedAttribute attrs[6] = {
      tcb_named(L->ctx, "layoutA", tcb_attr(L->ctx, "#nvvm.mma_layout<row>")),
      tcb_named(L->ctx, "layoutB", tcb_attr(L->ctx, "#nvvm.mma_layout<col>")),
      tcb_named(L->ctx, "multiplicandAPtxType", tcb_attr(L->ctx, ty)),
      tcb_named(L->ctx, "multiplicandBPtxType", tcb_attr(L->ctx, ty)),
      tcb_named(L->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(L->ctx, 3, seg)),
      tcb_named(L->ctx, "shape", tcb_attr(L->ctx, "#nvvm.shape<m = 16, n = 8, k = 16>"))};
  MlirType st = tcb_type(L->ctx, "!llvm.struct<(f32, f32, f32, f32)>");
  MlirValue r = tcb_op1(b, "nvvm.mma.sync", st, 10, ops, 6, attrs);
  for (int i = 0; i < 4; i++) {
    int64_t pos = i;
    MlirNamedAttribute pa = tcb_named(L->ctx, "position", mlirDenseI64ArrayGet(L->ctx, 1, &pos));
    d[i] = tcb_op1(b, "llvm.extractvalue", f32, 1, &r, 1, &pa);
  }
}

/* Whether op is a dot this file computes on tensor cores. */
static bool mma_dot(tc_lower *L, MlirOperation op, bool *bf16) {
  if (L->redundant || L->single_thread || capability(L) < 80) return false;
  MlirType at = mlirValueGetType(mlirOperationGetOperand(op, 0)), bt = mlirValueGetType(mlirOperationGetOperand(op, 1));
  MlirType ct = mlirValueGetType(mlirOperationGetResult(op, 0));
  int64_t as[TC_RANK], cs[TC_RANK];
  if (tc_shape_of(at, as) != 2 || tc_shape_of(ct, cs) != 2) return false;
  MlirType ae = mlirShapedTypeGetElementType(at), be = mlirShapedTypeGetElementType(bt), ce = mlirShapedTypeGetElementType(ct);
  bool f16 = mlirTypeIsAF16(ae) && mlirTypeIsAF16(be), b16 = mlirTypeIsABF16(ae) && mlirTypeIsABF16(be);
  *bf16 = b16;
  bool c_ok = mlirTypeIsAF32(ce) || mlirTypeIsAF16(ce) || mlirTypeIsABF16(ce);
  return (f16 || b16) && c_ok && cs[0] % 16 == 0 && cs[1] % 8 == 0 && as[1] % 16 == 0;
}

int tc_nvptx_emit_dot(tc_lower *L, MlirOperation *roots, int n) {
  MlirOperation op = roots[0];
  bool bf16;
  if (!mma_dot(L, op, &bf16)) return tc_emit_dot(L, roots, n);
  int64_t as[TC_RANK], cs[TC_RANK];
  tc_shape_of(mlirValueGetType(mlirOperationGetOperand(op, 0)), as);
  tc_shape_of(mlirValueGetType(mlirOperationGetResult(op, 0)), cs);
  int64_t M = cs[0], N = cs[1], K = as[1];
  tc_builder *b = &L->b;
  b->loc = mlirOperationGetLocation(op);
  MlirValue abuf = tc_dot_operand(L, mlirOperationGetOperand(op, 0));
  MlirValue bbuf = tc_dot_operand(L, mlirOperationGetOperand(op, 1));
  MlirValue cbuf = tc_dot_accumulator(L, op);
  if (L->status) return 1;
  int64_t ntn = N / 8, tiles = (M / 16) * ntn, nwarps = L->target->num_warps;
  tc_nvptx_barrier(L, b); /* the operands and C are complete */
  MlirValue tid = tc_nvptx_thread_id(L, b);
  MlirValue lane = tcb_binary(b, "arith.remui", tid, tcb_const_index(b, WARP));
  MlirValue warp = tcb_binary(b, "arith.divui", tid, tcb_const_index(b, WARP));
  MlirValue g = tcb_binary(b, "arith.divui", lane, tcb_const_index(b, 4));
  MlirValue q2 = tcb_binary(b, "arith.muli", tcb_binary(b, "arith.remui", lane, tcb_const_index(b, 4)), tcb_const_index(b, 2));
  MlirBlock rb = tc_build_for(L, b, tcb_const_index(b, 0), tcb_const_index(b, (tiles + nwarps - 1) / nwarps),
                              tcb_const_index(b, 1), 0, NULL, NULL);
  tc_builder r;
  tcb_init(&r, L->ctx);
  r.loc = b->loc;
  tcb_set_end(&r, rb);
  MlirValue tile = tcb_binary(&r, "arith.addi", tcb_binary(&r, "arith.muli", mlirBlockGetArgument(rb, 0),
                                                           tcb_const_index(&r, nwarps)), warp);
  MlirValue valid = tcb_cmpi(&r, "ult", tile, tcb_const_index(&r, tiles));
  tile = tcb_select(&r, valid, tile, tcb_const_index(&r, 0));
  MlirValue row0 = tcb_binary(&r, "arith.addi", tcb_binary(&r, "arith.muli", tcb_binary(&r, "arith.divui", tile, tcb_const_index(&r, ntn)),
                                                         tcb_const_index(&r, 16)), g);
  MlirValue row1 = add_c(&r, row0, 8);
  MlirValue j0 = tcb_binary(&r, "arith.muli", tcb_binary(&r, "arith.remui", tile, tcb_const_index(&r, ntn)), tcb_const_index(&r, 8));
  MlirValue col = tcb_binary(&r, "arith.addi", j0, q2), bcol = tcb_binary(&r, "arith.addi", j0, g);
  MlirValue cidx[4] = {idx2(&r, row0, N, col), add_c(&r, idx2(&r, row0, N, col), 1), idx2(&r, row1, N, col),
                       add_c(&r, idx2(&r, row1, N, col), 1)};
  MlirType f32 = mlirF32TypeGet(L->ctx), ce = tcb_element_type(mlirValueGetType(cbuf));
  bool narrow = !mlirTypeIsAF32(ce);
  MlirValue c[4];
  for (int i = 0; i < 4; i++) {
    MlirValue o[2] = {cbuf, cidx[i]};
    c[i] = tcb_op1(&r, "memref.load", ce, 2, o, 0, NULL);
    if (narrow) c[i] = tcb_cast(&r, "arith.extf", c[i], f32);
  }
  MlirOperation kf;
  MlirBlock kb = tc_build_for(L, &r, tcb_const_index(&r, 0), tcb_const_index(&r, K), tcb_const_index(&r, 16), 4, c, &kf);
  tc_builder kbl;
  tcb_init(&kbl, L->ctx);
  kbl.loc = b->loc;
  tcb_set_end(&kbl, kb);
  MlirValue k0 = mlirBlockGetArgument(kb, 0);
  MlirValue ka = tcb_binary(&kbl, "arith.addi", k0, q2), kb8 = add_c(&kbl, ka, 8);
  MlirValue afr[4] = {pair32(L, &kbl, abuf, idx2(&kbl, row0, K, ka), add_c(&kbl, idx2(&kbl, row0, K, ka), 1)),
                      pair32(L, &kbl, abuf, idx2(&kbl, row1, K, ka), add_c(&kbl, idx2(&kbl, row1, K, ka), 1)),
                      pair32(L, &kbl, abuf, idx2(&kbl, row0, K, kb8), add_c(&kbl, idx2(&kbl, row0, K, kb8), 1)),
                      pair32(L, &kbl, abuf, idx2(&kbl, row1, K, kb8), add_c(&kbl, idx2(&kbl, row1, K, kb8), 1))};
  MlirValue bfr[2] = {pair32(L, &kbl, bbuf, idx2(&kbl, ka, N, bcol), idx2(&kbl, add_c(&kbl, ka, 1), N, bcol)),
                      pair32(L, &kbl, bbuf, idx2(&kbl, kb8, N, bcol), idx2(&kbl, add_c(&kbl, kb8, 1), N, bcol))};
  MlirValue cin[4], d[4];
  for (int i = 0; i < 4; i++) cin[i] = mlirBlockGetArgument(kb, 1 + i);
  mma(L, &kbl, bf16, afr, bfr, cin, d);
  tcb_op(&kbl, "scf.yield", 0, NULL, 4, d, 0, NULL);
  tc_builder sb;
  tcb_if(&r, valid, 0, NULL, &sb, NULL);
  for (int i = 0; i < 4; i++) {
    MlirValue v = mlirOperationGetResult(kf, i);
    MlirValue o[3] = {narrow ? tcb_cast(&sb, "arith.truncf", v, ce) : v, cbuf, cidx[i]};
    tcb_op(&sb, "memref.store", 0, NULL, 3, o, 0, NULL);
  }
  tcb_op(&sb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tcb_op(&r, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tc_nvptx_barrier(L, b); /* C is complete for every thread */
  tc_special *s = tc_special_put(L, mlirOperationGetResult(op, 0));
  s->kind = TC_SPECIAL_BUFFER;
  s->buffer = cbuf;
  return 1;
}
