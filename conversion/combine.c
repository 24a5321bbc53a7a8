/* conversion/combine.c — `acc += tl.dot(a, b)` accumulates in the dot (tile IR in, tile IR
 * out; the pipeline's step dot-combine, the first after the front end).
 *
 * A dot without an accumulator is a dot into zeros: `acc += tl.dot(a, b)` (the common way
 * to write a K loop) would fill a tile of zeros, run the dot into it and add the result
 * to acc in a pass of its own; `acc = tl.dot(a, b, acc)` accumulates in place. Triton's
 * combine pass rewrites add(d, dot(a, b, 0)) into dot(a, b, d) when the dot's result has
 * no other use, for integers and floats alike (the order of a dot's sums is unspecified),
 * so the results a GPU gives are those of the accumulating dot; this step does the same.
 * The dot moves to the add's place, so d is defined where it runs.
 * In: a tile module. Out: the same module with those adds folded into their dots. */
#include "conversion/steps.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>

static bool is_tile_add(MlirOperation op, void *user) {
  (void)user;
  return (tc_op_is(op, "arith.addf") || tc_op_is(op, "arith.addi")) &&
         mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0)));
}

/* The dot (into zeros, read by nothing else) that operand k of add is, or null. */
static MlirOperation zero_dot(MlirOperation add, int k) {
  MlirValue v = mlirOperationGetOperand(add, k);
  if (!mlirValueIsAOpResult(v)) return (MlirOperation){NULL};
  MlirOperation dot = mlirOpResultGetOwner(v);
  if (tile_op_of(dot) != TILE_DOT || !tc_is_zero_splat(mlirOperationGetOperand(dot, 2), false))
    return (MlirOperation){NULL};
  MlirOpOperand u = mlirValueGetFirstUse(v);
  if (mlirOpOperandIsNull(u) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u))) return (MlirOperation){NULL};
  /* x + x would read the dot twice */
  if (mlirValueEqual(mlirOperationGetOperand(add, 0), mlirOperationGetOperand(add, 1))) return (MlirOperation){NULL};
  if (!mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(add, 1 - k)), mlirValueGetType(v)))
    return (MlirOperation){NULL};
  return dot;
}

void tc_combine_dot_adds(MlirModule module) {
  MlirOperation *adds;
  int n;
  if (!tcb_collect(mlirModuleGetOperation(module), is_tile_add, NULL, &adds, &n)) return; /* out of memory: unchanged */
  for (int i = 0; i < n; i++) {
    MlirOperation add = adds[i];
    for (int k = 0; k < 2; k++) {
      MlirOperation dot = zero_dot(add, k);
      if (mlirOperationIsNull(dot)) continue;
      mlirOperationSetOperand(dot, 2, mlirOperationGetOperand(add, 1 - k));
      mlirOperationMoveBefore(dot, add);
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(add, 0), mlirOperationGetResult(dot, 0));
      mlirOperationDestroy(add);
      break;
    }
  }
  free(adds);
}
