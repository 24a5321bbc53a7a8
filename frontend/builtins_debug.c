/* frontend/builtins_debug.c — tl.device_print / print and tl.device_assert / assert on
 * runtime values: arguments broadcast to one shape, emitted as tile.print / tile.assert
 * (the runtime prefixes each line with the program id and the element index).
 * In: evaluated arguments. Out: tile debug ops; constexpr asserts are checked here. */
#include "frontend/cg.h"

#include <mlir-c/BuiltinAttributes.h>
#include <string.h>

static MlirAttribute str(tc_cg *cg, const char *s, size_t n) {
  return mlirStringAttrGet(cg->ctx, mlirStringRefCreate(s, n));
}

tc_val cg_device_print(tc_cg *cg, const char *prefix, size_t plen, const tc_val *args, int nargs, bool hex, tc_loc loc) {
  tc_val ts[16];
  int n = 0, rank = 0;
  int64_t shape[TC_MAX_RANK];
  if (nargs > 8) return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "device_print with more than 8 values");
  for (int i = 0; i < nargs; i++) {
    if (args[i].kind == TV_TENSOR || tv_is_number(&args[i])) {
      ts[n] = cg_to_tensor(cg, &args[i], loc);
      if (cg->err) return ts[n];
      if (n == 0) {
        rank = ts[0].rank;
        memcpy(shape, ts[0].shape, sizeof shape);
      } else if (!cg_broadcast_shapes(cg, &ts[n], &(tc_val){.kind = TV_TENSOR, .rank = rank,
                                                               .shape = {shape[0], shape[1], shape[2], shape[3]}},
                                      &rank, shape, loc)) {
        return (tc_val){0};
      }
      n++;
    } else {
      return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "device_print cannot print a %s", tv_kind_name(&args[i]));
    }
  }
  if (n == 0) return tv_none(); /* only text: nothing happens at run time */
  MlirValue vs[16];
  for (int i = 0; i < n; i++) vs[i] = cg_broadcast_to(cg, ts[i], rank, shape, loc).v;
  if (cg->err) return (tc_val){0};
  int32_t seg[8];
  for (int i = 0; i < 8; i++) seg[i] = i < n;
  MlirNamedAttribute attrs[3] = {tcb_named(cg->ctx, "prefix", str(cg, prefix, plen)),
                                 tcb_named(cg->ctx, "hex", mlirBoolAttrGet(cg->ctx, hex)),
                                 tcb_named(cg->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(cg->ctx, 8, seg))};
  cg_set_loc(cg, loc);
  tile_build_op(&cg->b, TILE_PRINT, 0, NULL, n, vs, 3, attrs);
  return tv_none();
}

tc_val cg_device_assert(tc_cg *cg, tc_val cond, const char *msg, size_t mlen, const tc_val *mask, tc_loc loc) {
  bool t;
  if (cond.kind != TV_TENSOR && cg_truthy_constexpr(cg, &cond, loc, &t)) {
    if (!t) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "assertion failed: %.*s", (int)mlen, msg);
    return tv_none();
  }
  tc_val c = cg_to_bool(cg, cond, loc);
  if (mask && !cg_is_none(mask)) {
    tc_val m = cg_to_bool(cg, *mask, loc);
    c = cg_logical(cg, false, c, cg_unary(cg, TC_UOP_NOT, m, loc), loc);
  }
  if (cg->err) return c;
  MlirNamedAttribute a = tcb_named(cg->ctx, "message", str(cg, msg, mlen));
  cg_set_loc(cg, loc);
  tile_build_op(&cg->b, TILE_ASSERT, 0, NULL, 1, &c.v, 1, &a);
  cg->uses_assert = true;
  return tv_none();
}
