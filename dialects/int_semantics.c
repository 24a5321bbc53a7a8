/* dialects/int_semantics.c — integer division, remainder and shifts with a result for
 * every operand value. In the tile IR these arith ops carry Triton's meaning, not LLVM's
 * (where a zero divisor or INT_MIN / -1 traps on x86 and an out-of-range shift is poison):
 * the results are those of Triton's interpreter (numpy) and of GPUs:
 *   x // 0 == 0, x % 0 == 0, INT_MIN // -1 == INT_MIN (wraps), INT_MIN % -1 == 0;
 *   shift amounts read as unsigned: from the bit width up, << and logical >> give 0 and
 *   arithmetic >> gives the sign (0 or -1).
 * The analyses see the plain op (a divisor's divisibility, a splat amount); the guard is
 * emitted here, when the op is cloned onto scalars or vectors, and LLVM folds it away for
 * constant operands. In: op name and lowered operands. Out: the op producing the value. */
#include "dialects/ir_util.h"

#include <string.h>

static bool is(const char *name, const char *op) { return !strcmp(name, op); }

bool tc_is_guarded_int_op(const char *name) {
  return is(name, "arith.divsi") || is(name, "arith.divui") || is(name, "arith.remsi") || is(name, "arith.remui") ||
         is(name, "arith.shli") || is(name, "arith.shrsi") || is(name, "arith.shrui");
}

static MlirOperation def(MlirValue v) { return mlirOpResultGetOwner(v); }

MlirOperation tc_build_guarded_int_op(tc_builder *b, const char *name, MlirValue x, MlirValue y, MlirType t) {
  int64_t w = tcb_bitwidth(tcb_element_type(t));
  MlirValue zero = tcb_const_int(b, t, 0), one = tcb_const_int(b, t, 1);
  if (is(name, "arith.shrsi")) { /* amounts from w - 1 up all give the sign */
    MlirValue amt = tcb_binary(b, "arith.minui", y, tcb_const_int(b, t, w - 1));
    return def(tcb_binary(b, name, x, amt));
  }
  if (is(name, "arith.shli") || is(name, "arith.shrui")) {
    MlirValue in = tcb_cmpi(b, "ult", y, tcb_const_int(b, t, w));
    MlirValue r = tcb_binary(b, name, x, tcb_select(b, in, y, zero));
    return def(tcb_select(b, in, r, zero));
  }
  bool sgn = is(name, "arith.divsi") || is(name, "arith.remsi");
  bool div = is(name, "arith.divsi") || is(name, "arith.divui");
  MlirValue isz = tcb_cmpi(b, "eq", y, zero), bad = isz, ism1 = {NULL};
  if (sgn) {
    ism1 = tcb_cmpi(b, "eq", y, tcb_const_int(b, t, -1));
    bad = tcb_binary(b, "arith.ori", isz, ism1);
  }
  MlirValue r = tcb_binary(b, name, x, tcb_select(b, bad, one, y)); /* x % 1 == 0: both bad cases of % */
  if (!div) return def(r);
  if (sgn) r = tcb_select(b, ism1, tcb_binary(b, "arith.subi", zero, r), r); /* x // -1 == -x, wrapping */
  return def(tcb_select(b, isz, zero, r));
}
