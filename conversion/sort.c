/* conversion/sort.c — tile.sort: a bitonic sorting network over each row of the last
 * dimension, run in place on a materialized copy of the tile (log2(n)(log2(n)+1)/2 passes
 * of n/2 compare-exchanges; n is a power of two as Triton requires). In: a sort op. Out: the
 * sorted tile in a buffer. */
#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <string.h>

static bool bool_attr(MlirOperation op, const char *name) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  return !mlirAttributeIsNull(a) && mlirAttributeIsABool(a) && mlirBoolAttrGetValue(a);
}

static void emit_sort(tc_lower *L, MlirOperation op) {
  MlirValue src = mlirOperationGetOperand(op, 0), res = mlirOperationGetResult(op, 0);
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(mlirValueGetType(src), shape);
  MlirType elem = mlirShapedTypeGetElementType(mlirValueGetType(src));
  int64_t n = shape[rank - 1];
  if (n & (n - 1)) {
    tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "tl.sort needs a power-of-two last dimension, got %lld", (long long)n);
    return;
  }
  bool desc = bool_attr(op, "descending"), uns = bool_attr(op, "unsigned");
  MlirValue buf = tc_alloc_buffer(L, elem, tc_numel(rank, shape));
  tc_materialize_into(L, src, buf);
  if (L->status) return;
  MlirType mem = tcb_element_type(mlirValueGetType(buf));
  bool isf = tcb_is_float(mem);
  /* one loop over all rows */
  int64_t rows = tc_numel(rank, shape) / n;
  tc_builder b = L->b;
  MlirBlock rb =
      tc_build_for(L, &b, tcb_const_index(&b, 0), tcb_const_index(&b, rows), tcb_const_index(&b, 1), 0, NULL, NULL);
  tc_builder bb;
  tcb_init(&bb, L->ctx);
  bb.loc = L->b.loc;
  tcb_set_end(&bb, rb);
  MlirValue row = tcb_binary(&bb, "arith.muli", mlirBlockGetArgument(rb, 0), tcb_const_index(&bb, n));
  /* The passes (k, j) = (2, 1), (4, 2), (4, 1), (8, 4), ... are one loop carrying k and j,
   * not a loop each: with every index a constant LLVM unrolls the whole network of a
   * 16- or 32-element row into straight-line code whose SLP vectorization took 8-18 s. */
  int64_t npasses = 0;
  for (int64_t k = 2; k <= n; k *= 2)
    for (int64_t j = k / 2; j > 0; j /= 2) npasses++;
  MlirValue one = tcb_const_index(&bb, 1);
  MlirValue inits[2] = {tcb_const_index(&bb, 2), one};
  MlirBlock kb = tc_build_for(L, &bb, tcb_const_index(&bb, 0), tcb_const_index(&bb, npasses), one, 2, inits, NULL);
  tc_builder kbld;
  tcb_init(&kbld, L->ctx);
  kbld.loc = L->b.loc;
  tcb_set_end(&kbld, kb);
  MlirValue k = mlirBlockGetArgument(kb, 1), j = mlirBlockGetArgument(kb, 2);
  MlirBlock pb = tc_build_for(L, &kbld, tcb_const_index(&kbld, 0), tcb_const_index(&kbld, n / 2),
                              tcb_const_index(&kbld, 1), 0, NULL, NULL);
  tc_builder pbld;
  tcb_init(&pbld, L->ctx);
  pbld.loc = L->b.loc;
  tcb_set_end(&pbld, pb);
  MlirValue p = mlirBlockGetArgument(pb, 0);
  /* i = p with a zero bit inserted at the position of j's bit: p + (p & ~(j - 1)); l = i | j */
  MlirValue low = tcb_binary(&pbld, "arith.subi", j, tcb_const_index(&pbld, 1));
  MlirValue high = tcb_binary(&pbld, "arith.subi", p, tcb_binary(&pbld, "arith.andi", p, low));
  MlirValue i = tcb_binary(&pbld, "arith.addi", p, high);
  MlirValue l = tcb_binary(&pbld, "arith.ori", i, j);
  MlirValue ia = tcb_binary(&pbld, "arith.addi", row, i), la = tcb_binary(&pbld, "arith.addi", row, l);
  MlirValue o1[2] = {buf, ia}, o2[2] = {buf, la};
  MlirValue x = tcb_op1(&pbld, "memref.load", mem, 2, o1, 0, NULL);
  MlirValue y = tcb_op1(&pbld, "memref.load", mem, 2, o2, 0, NULL);
  /* ascending block when (i & k) == 0, flipped for descending sorts */
  MlirValue up = tcb_cmpi(&pbld, "eq", tcb_binary(&pbld, "arith.andi", i, k), tcb_const_index(&pbld, 0));
  if (desc) up = tcb_binary(&pbld, "arith.xori", up, tcb_const_int(&pbld, tcb_int_type(L->ctx, 1), 1));
  MlirValue gt = isf ? tcb_cmpf(&pbld, "ogt", x, y) : tcb_cmpi(&pbld, uns ? "ugt" : "sgt", x, y);
  MlirValue lt = isf ? tcb_cmpf(&pbld, "olt", x, y) : tcb_cmpi(&pbld, uns ? "ult" : "slt", x, y);
  MlirValue swap = tcb_select(&pbld, up, gt, lt);
  MlirValue nx = tcb_select(&pbld, swap, y, x), ny = tcb_select(&pbld, swap, x, y);
  MlirValue s1[3] = {nx, buf, ia}, s2[3] = {ny, buf, la};
  tcb_op(&pbld, "memref.store", 0, NULL, 3, s1, 0, NULL);
  tcb_op(&pbld, "memref.store", 0, NULL, 3, s2, 0, NULL);
  tcb_op(&pbld, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  /* next pass: (k, j / 2), or (2k, k) after j = 1 */
  MlirValue last = tcb_cmpi(&kbld, "eq", j, one);
  MlirValue k2 = tcb_binary(&kbld, "arith.shli", k, one);
  MlirValue next[2] = {tcb_select(&kbld, last, k2, k),
                       tcb_select(&kbld, last, k, tcb_binary(&kbld, "arith.shrui", j, one))};
  tcb_op(&kbld, "scf.yield", 0, NULL, 2, next, 0, NULL);
  tcb_op(&bb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tc_special *s = tc_special_put(L, res);
  memset(s, 0, sizeof *s);
  s->kind = TC_SPECIAL_BUFFER;
  s->buffer = buf;
}

int tc_emit_sort(tc_lower *L, MlirOperation *roots, int n) {
  (void)n;
  emit_sort(L, roots[0]);
  return 1;
}
