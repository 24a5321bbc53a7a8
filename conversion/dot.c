/* conversion/dot.c — tile.dot: C[M,N] = A[M,K] x B[K,N] + acc (batched over a leading
 * dim for 3-D tiles). Operands are materialized in stack buffers; each output chunk of a
 * row is accumulated in registers over K with FMAs of a broadcast A element and a B row
 * chunk; fp16/bf16 inputs widen to fp32, i8 to i32. In: a dot op. Out: a buffered tile. */
#include "conversion/lower.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <string.h>

static MlirValue buffer_for(tc_lower *L, MlirValue old) {
  tc_special *s = tc_special_of(L, old);
  if (s && s->kind == TC_SPECIAL_BUFFER) return s->buffer;
  return tc_materialize(L, old);
}

/* Converts an input element (scalar or vector) to the accumulator type. */
static MlirValue widen(tc_builder *b, MlirValue v, MlirType acc_elem) {
  MlirType t = mlirValueGetType(v);
  MlirType e = tcb_element_type(t);
  if (mlirTypeEqual(e, acc_elem)) return v;
  MlirType to = acc_elem;
  if (mlirTypeIsAVector(t)) {
    int64_t w = mlirShapedTypeGetDimSize(t, 0);
    to = mlirVectorTypeGet(1, &w, acc_elem);
  }
  if (tcb_is_float(e) && tcb_is_float(acc_elem))
    return tcb_cast(b, tcb_bitwidth(e) < tcb_bitwidth(acc_elem) ? "arith.extf" : "arith.truncf", v, to);
  if (tcb_is_int(e) && tcb_is_int(acc_elem)) return tcb_cast(b, "arith.extsi", v, to);
  if (tcb_is_int(e)) return tcb_cast(b, "arith.sitofp", v, to);
  return tcb_cast(b, "arith.fptosi", v, to);
}

void tc_emit_dot(tc_lower *L, MlirOperation op) {
  MlirValue a = mlirOperationGetOperand(op, 0), bm = mlirOperationGetOperand(op, 1), acc = mlirOperationGetOperand(op, 2);
  MlirValue res = mlirOperationGetResult(op, 0);
  int64_t as[TC_RANK], bs[TC_RANK], cs[TC_RANK];
  int ar = tc_shape_of(mlirValueGetType(a), as);
  tc_shape_of(mlirValueGetType(bm), bs);
  int cr = tc_shape_of(mlirValueGetType(res), cs);
  bool batched = cr == 3;
  int64_t B = batched ? cs[0] : 1, M = cs[cr - 2], N = cs[cr - 1], K = as[ar - 1];
  MlirType ce = mlirShapedTypeGetElementType(mlirValueGetType(res));
  tc_builder *b = &L->b;
  b->loc = mlirOperationGetLocation(op);
  MlirValue abuf = buffer_for(L, a), bbuf = buffer_for(L, bm);
  if (L->status) return;
  /* Accumulate in place into acc's buffer when acc is a loop-carried tile that this dot
   * replaces (acc = tl.dot(a, b, acc)); else into a copy of acc. */
  MlirValue cbuf = {NULL};
  tc_special *accs_sp = tc_special_of(L, acc);
  if (accs_sp && accs_sp->kind == TC_SPECIAL_BUFFER && mlirValueIsABlockArgument(acc)) {
    MlirOpOperand u = mlirValueGetFirstUse(res);
    if (!mlirOpOperandIsNull(u) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(u)) &&
        tc_op_is(mlirOpOperandGetOwner(u), "scf.yield")) {
      unsigned idx = mlirOpOperandGetOperandNumber(u);
      MlirBlock blk = mlirBlockArgumentGetOwner(acc);
      if (mlirBlockArgumentGetArgNumber(acc) == (intptr_t)idx + 1 &&
          mlirBlockEqual(blk, mlirOperationGetBlock(mlirOpOperandGetOwner(u))))
        cbuf = accs_sp->buffer;
    }
  }
  if (mlirValueIsNull(cbuf)) {
    cbuf = tc_alloc_buffer(L, ce, B * M * N);
    tc_materialize_into(L, acc, cbuf);
  }
  if (L->status) return;
  int64_t w = tc_nest_width(L, N);
  /* Register blocking: MR rows x NR chunks of accumulators stay in registers over K. */
  int64_t mr = M % 4 == 0 ? 4 : M % 2 == 0 ? 2 : 1;
  int64_t chunks = N / w;
  int64_t nr = chunks % 4 == 0 ? 4 : chunks % 2 == 0 ? 2 : 1;
  bool isf = tcb_is_float(ce);
  MlirValue zero = tcb_const_index(b, 0);
  tc_builder ob = *b;
  MlirBlock blocks[4];
  int nb = 0;
  MlirValue bi = zero;
  if (batched) {
    blocks[nb] = tc_build_for(L, &ob, zero, tcb_const_index(&ob, B), tcb_const_index(&ob, 1), 0, NULL, NULL);
    bi = mlirBlockGetArgument(blocks[nb], 0);
    tcb_set_end(&ob, blocks[nb++]);
  }
  blocks[nb] = tc_build_for(L, &ob, tcb_const_index(&ob, 0), tcb_const_index(&ob, M), tcb_const_index(&ob, mr), 0, NULL, NULL);
  MlirValue i0 = mlirBlockGetArgument(blocks[nb], 0);
  tcb_set_end(&ob, blocks[nb++]);
  blocks[nb] = tc_build_for(L, &ob, tcb_const_index(&ob, 0), tcb_const_index(&ob, N), tcb_const_index(&ob, nr * w), 0, NULL,
                            NULL);
  MlirValue j0 = mlirBlockGetArgument(blocks[nb], 0);
  tcb_set_end(&ob, blocks[nb++]);
  MlirType vt = tc_vec_type(L->ctx, w, ce);
  int nacc = (int)(mr * nr);
  MlirValue coff[16], accs[16];
  MlirValue rowbase = tcb_binary(&ob, "arith.muli", bi, tcb_const_index(&ob, M));
  for (int r = 0; r < mr; r++) {
    MlirValue row = tcb_binary(&ob, "arith.addi", rowbase, tcb_binary(&ob, "arith.addi", i0, tcb_const_index(&ob, r)));
    MlirValue base = tcb_binary(&ob, "arith.addi", tcb_binary(&ob, "arith.muli", row, tcb_const_index(&ob, N)), j0);
    for (int q = 0; q < nr; q++) {
      int x = r * (int)nr + q;
      coff[x] = tcb_binary(&ob, "arith.addi", base, tcb_const_index(&ob, q * w));
      MlirValue lops[2] = {cbuf, coff[x]};
      accs[x] = tcb_op1(&ob, "vector.load", vt, 2, lops, 0, NULL);
    }
  }
  MlirOperation kf;
  MlirBlock kb = tc_build_for(L, &ob, tcb_const_index(&ob, 0), tcb_const_index(&ob, K), tcb_const_index(&ob, 1), nacc, accs, &kf);
  tc_builder kbld;
  tcb_init(&kbld, L->ctx);
  kbld.loc = b->loc;
  tcb_set_end(&kbld, kb);
  MlirValue k = mlirBlockGetArgument(kb, 0);
  MlirType amem = tcb_element_type(mlirValueGetType(abuf)), bmem = tcb_element_type(mlirValueGetType(bbuf));
  /* b[bi, k, j0 + q*w : +w] */
  MlirValue brow = tcb_binary(&kbld, "arith.addi", tcb_binary(&kbld, "arith.muli", bi, tcb_const_index(&kbld, K)), k);
  MlirValue bbase = tcb_binary(&kbld, "arith.addi", tcb_binary(&kbld, "arith.muli", brow, tcb_const_index(&kbld, N)), j0);
  MlirValue bv[4], av[4], next[16];
  for (int q = 0; q < nr; q++) {
    MlirValue bops[2] = {bbuf, tcb_binary(&kbld, "arith.addi", bbase, tcb_const_index(&kbld, q * w))};
    bv[q] = widen(&kbld, tcb_op1(&kbld, "vector.load", tc_vec_type(L->ctx, w, bmem), 2, bops, 0, NULL), ce);
  }
  for (int r = 0; r < mr; r++) {
    MlirValue row = tcb_binary(&kbld, "arith.addi", rowbase, tcb_binary(&kbld, "arith.addi", i0, tcb_const_index(&kbld, r)));
    MlirValue aops[2] = {abuf, tcb_binary(&kbld, "arith.addi", tcb_binary(&kbld, "arith.muli", row, tcb_const_index(&kbld, K)), k)};
    av[r] = tc_splat_vec(&kbld, widen(&kbld, tcb_op1(&kbld, "memref.load", amem, 2, aops, 0, NULL), ce), w);
  }
  for (int r = 0; r < mr; r++)
    for (int q = 0; q < nr; q++) {
      int x = r * (int)nr + q;
      MlirValue cv = mlirBlockGetArgument(kb, 1 + x);
      if (isf) {
        MlirValue f[3] = {av[r], bv[q], cv};
        next[x] = tcb_op1(&kbld, "math.fma", vt, 3, f, 0, NULL);
      } else {
        next[x] = tcb_binary(&kbld, "arith.addi", cv, tcb_binary(&kbld, "arith.muli", av[r], bv[q]));
      }
    }
  tcb_op(&kbld, "scf.yield", 0, NULL, nacc, next, 0, NULL);
  for (int x = 0; x < nacc; x++) {
    MlirValue sops[3] = {mlirOperationGetResult(kf, x), cbuf, coff[x]};
    tcb_op(&ob, "vector.store", 0, NULL, 3, sops, 0, NULL);
  }
  for (int x = nb - 1; x >= 0; x--) {
    tc_builder yb;
    tcb_init(&yb, L->ctx);
    yb.loc = b->loc;
    tcb_set_end(&yb, blocks[x]);
    tcb_op(&yb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  }
  tc_special *s = tc_special_put(L, res);
  s->kind = TC_SPECIAL_BUFFER;
  s->buffer = cbuf;
}
