/* dialects/tile.c — loads the IRDL tile dialect and builds tile ops.
 * In: builders, values. Out: tile.* operations with the operandSegmentSizes layout the
 * IRDL definition declares for optional operands. */
#include "dialects/tile.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Dialect/IRDL.h>
#include <mlir-c/RegisterEverything.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char tilec_embedded_irdl[];

tilec_status *tile_context_create(MlirContext *out) {
  MlirDialectRegistry reg = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(reg);
  MlirContext ctx = mlirContextCreateWithRegistry(reg, false);
  mlirDialectRegistryDestroy(reg);
  mlirContextLoadAllAvailableDialects(ctx);
  mlirRegisterAllLLVMTranslations(ctx);
  MlirModule irdl = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(tilec_embedded_irdl));
  if (mlirModuleIsNull(irdl)) {
    mlirContextDestroy(ctx);
    return tilec_status_create(TILEC_ERROR_INTERNAL, "the embedded tile dialect (IRDL) does not parse");
  }
  MlirLogicalResult r = mlirLoadIRDLDialects(irdl);
  mlirModuleDestroy(irdl);
  if (mlirLogicalResultIsFailure(r)) {
    mlirContextDestroy(ctx);
    return tilec_status_create(TILEC_ERROR_INTERNAL, "the embedded tile dialect (IRDL) does not load");
  }
  *out = ctx;
  return NULL;
}

MlirType tile_ptr_type(MlirContext ctx, MlirType pointee) {
  /* IRDL-defined types are reachable from C only through the parser. */
  char inner[200], buf[256];
  tcb_type_str(pointee, inner, sizeof inner);
  snprintf(buf, sizeof buf, "!tile.ptr<%s>", inner);
  return tcb_type(ctx, buf);
}

bool tile_type_is_ptr(MlirType t) {
  if (mlirTypeIsNull(t) || mlirTypeIsAShaped(t) || tcb_is_int(t) || tcb_is_float(t)) return false;
  char buf[16];
  tcb_type_str(t, buf, sizeof buf);
  return strncmp(buf, "!tile.ptr<", 10) == 0;
}

MlirType tile_ptr_pointee(MlirType t) {
  char buf[256];
  tcb_type_str(t, buf, sizeof buf);
  size_t n = strlen(buf);
  if (n < 12 || strncmp(buf, "!tile.ptr<", 10) != 0) return (MlirType){NULL};
  buf[n - 1] = 0;
  return tcb_type(mlirTypeGetContext(t), buf + 10);
}

MlirType tile_tensor_type(MlirContext ctx, int rank, const int64_t *shape, MlirType elem) {
  (void)ctx;
  return mlirRankedTensorTypeGet(rank, shape, elem, mlirAttributeGetNull());
}

static MlirAttribute i32_attr(MlirContext ctx, int64_t v) { return mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), v); }

MlirValue tile_build_program_id(tc_builder *b, int axis) {
  MlirNamedAttribute a = tcb_named(b->ctx, "axis", i32_attr(b->ctx, axis));
  return tcb_op1(b, "tile.program_id", mlirIntegerTypeGet(b->ctx, 32), 0, NULL, 1, &a);
}

MlirValue tile_build_num_programs(tc_builder *b, int axis) {
  MlirNamedAttribute a = tcb_named(b->ctx, "axis", i32_attr(b->ctx, axis));
  return tcb_op1(b, "tile.num_programs", mlirIntegerTypeGet(b->ctx, 32), 0, NULL, 1, &a);
}

MlirValue tile_build_range(tc_builder *b, int32_t start, int32_t end) {
  MlirNamedAttribute a[2] = {tcb_named(b->ctx, "start", i32_attr(b->ctx, start)),
                             tcb_named(b->ctx, "end", i32_attr(b->ctx, end))};
  int64_t n = (int64_t)end - start;
  MlirType t = tile_tensor_type(b->ctx, 1, &n, mlirIntegerTypeGet(b->ctx, 32));
  return tcb_op1(b, "tile.range", t, 0, NULL, 2, a);
}

MlirValue tile_build_splat(tc_builder *b, MlirValue scalar, MlirType tile_type) {
  return tcb_op1(b, "tile.splat", tile_type, 1, &scalar, 0, NULL);
}

MlirValue tile_build_broadcast(tc_builder *b, MlirValue tile, MlirType tile_type) {
  return tcb_op1(b, "tile.broadcast", tile_type, 1, &tile, 0, NULL);
}

MlirValue tile_build_expand_dims(tc_builder *b, MlirValue tile, int axis, MlirType result) {
  MlirNamedAttribute a = tcb_named(b->ctx, "axis", i32_attr(b->ctx, axis));
  return tcb_op1(b, "tile.expand_dims", result, 1, &tile, 1, &a);
}

MlirValue tile_build_reshape(tc_builder *b, MlirValue tile, MlirType result) {
  return tcb_op1(b, "tile.reshape", result, 1, &tile, 0, NULL);
}

MlirValue tile_build_addptr(tc_builder *b, MlirValue ptr, MlirValue offset) {
  MlirValue ops[2] = {ptr, offset};
  return tcb_op1(b, "tile.addptr", mlirValueGetType(ptr), 2, ops, 0, NULL);
}

MlirValue tile_build_bitcast(tc_builder *b, MlirValue v, MlirType to) {
  return tcb_op1(b, "tile.bitcast", to, 1, &v, 0, NULL);
}

MlirValue tile_build_ptr_to_int(tc_builder *b, MlirValue p, MlirType to) {
  return tcb_op1(b, "tile.ptr_to_int", to, 1, &p, 0, NULL);
}

MlirValue tile_build_int_to_ptr(tc_builder *b, MlirValue v, MlirType to) {
  return tcb_op1(b, "tile.int_to_ptr", to, 1, &v, 0, NULL);
}

static MlirNamedAttribute segments(MlirContext ctx, int n, const int32_t *sizes) {
  return tcb_named(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, n, sizes));
}

MlirValue tile_build_load(tc_builder *b, MlirValue ptr, MlirValue mask, MlirValue other, MlirType result) {
  MlirValue ops[3];
  int n = 0;
  ops[n++] = ptr;
  if (!mlirValueIsNull(mask)) ops[n++] = mask;
  if (!mlirValueIsNull(other)) ops[n++] = other;
  int32_t seg[3] = {1, mlirValueIsNull(mask) ? 0 : 1, mlirValueIsNull(other) ? 0 : 1};
  MlirNamedAttribute a = segments(b->ctx, 3, seg);
  return tcb_op1(b, "tile.load", result, n, ops, 1, &a);
}

void tile_build_store(tc_builder *b, MlirValue ptr, MlirValue value, MlirValue mask) {
  MlirValue ops[3] = {ptr, value, mask};
  int32_t seg[3] = {1, 1, mlirValueIsNull(mask) ? 0 : 1};
  MlirNamedAttribute a = segments(b->ctx, 3, seg);
  tcb_op(b, "tile.store", 0, NULL, 2 + seg[2], ops, 1, &a);
}

static const struct {
  const char *name, *full;
  unsigned traits;
} op_table[TILE_OP_COUNT] = {
    [TILE_NOT_TILE] = {"", "", 0},
#define TILE_OP(ID, nm, tr) [TILE_##ID] = {#nm, "tile." #nm, tr},
#include "dialects/tile_ops.def"
};

/* The rows in name order (built once): tile_op_of is a binary search, not a scan. Every op
 * the IRDL file defines has a row and the reverse (unit.test_dialect checks both), so a
 * tile.* name not found here is a bug of the table, never another dialect's op. */
static tile_op_id by_name[TILE_OP_COUNT - 1];
static pthread_once_t by_name_once = PTHREAD_ONCE_INIT;

static int compare_names(const void *a, const void *b) {
  return strcmp(op_table[*(const tile_op_id *)a].name, op_table[*(const tile_op_id *)b].name);
}

static void sort_names(void) {
  for (int i = 1; i < TILE_OP_COUNT; i++) by_name[i - 1] = (tile_op_id)i;
  qsort(by_name, TILE_OP_COUNT - 1, sizeof by_name[0], compare_names);
}

tile_op_id tile_op_id_of_name(const char *name, size_t len) {
  pthread_once(&by_name_once, sort_names);
  size_t lo = 0, hi = TILE_OP_COUNT - 1;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const char *m = op_table[by_name[mid]].name;
    int c = strncmp(m, name, len);
    if (c == 0 && m[len] != 0) c = 1; /* m is longer: after name */
    if (c == 0) return by_name[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return TILE_NOT_TILE;
}

tile_op_id tile_op_of(MlirOperation op) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  if (s.length < 6 || strncmp(s.data, "tile.", 5) != 0) return TILE_NOT_TILE;
  return tile_op_id_of_name(s.data + 5, s.length - 5);
}

const char *tile_op_name(tile_op_id id) { return id > TILE_NOT_TILE && id < TILE_OP_COUNT ? op_table[id].full : NULL; }

unsigned tile_op_traits(tile_op_id id) { return id < TILE_OP_COUNT ? op_table[id].traits : 0; }

bool tile_op_has(MlirOperation op, unsigned mask) { return (op_table[tile_op_of(op)].traits & mask) != 0; }

MlirOperation tile_build_op(tc_builder *b, tile_op_id id, intptr_t nresults, const MlirType *results,
                            intptr_t noperands, const MlirValue *operands, intptr_t nattrs,
                            const MlirNamedAttribute *attrs) {
  return tcb_op(b, op_table[id].full, nresults, results, noperands, operands, nattrs, attrs);
}

MlirValue tile_build_op1(tc_builder *b, tile_op_id id, MlirType result, intptr_t noperands, const MlirValue *operands,
                         intptr_t nattrs, const MlirNamedAttribute *attrs) {
  return tcb_op1(b, op_table[id].full, result, noperands, operands, nattrs, attrs);
}

static int32_t segment(MlirOperation op, int i) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseI32Array(a)) return 0;
  if (i >= mlirDenseArrayGetNumElements(a)) return 0;
  return mlirDenseI32ArrayGetElement(a, i);
}

MlirValue tile_load_mask(MlirOperation load) {
  return segment(load, 1) ? mlirOperationGetOperand(load, 1) : (MlirValue){NULL};
}

MlirValue tile_load_other(MlirOperation load) {
  if (!segment(load, 2)) return (MlirValue){NULL};
  return mlirOperationGetOperand(load, 1 + segment(load, 1));
}

MlirValue tile_store_mask(MlirOperation store) {
  return segment(store, 2) ? mlirOperationGetOperand(store, 2) : (MlirValue){NULL};
}

int64_t tile_int_attr(MlirOperation op, const char *name, int64_t dflt) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a)) return dflt;
  return mlirIntegerAttrGetValueInt(a);
}

MlirValue tile_build_trans(tc_builder *b, MlirValue x, const int32_t *order, int rank, MlirType result) {
  MlirNamedAttribute na = tcb_named(b->ctx, "order", mlirDenseI32ArrayGet(b->ctx, rank, order));
  return tcb_op1(b, "tile.trans", result, 1, &x, 1, &na);
}

MlirValue tile_build_gather(tc_builder *b, MlirValue src, MlirValue index, int axis, MlirType result) {
  MlirValue ops[2] = {src, index};
  MlirNamedAttribute na = tcb_named(b->ctx, "axis", mlirIntegerAttrGet(mlirIntegerTypeGet(b->ctx, 32), axis));
  return tcb_op1(b, "tile.gather", result, 2, ops, 1, &na);
}

static const char *const dot_precisions[] = {[TILE_DOT_IEEE] = "ieee",
                                             [TILE_DOT_TF32] = "tf32",
                                             [TILE_DOT_TF32X3] = "tf32x3",
                                             [TILE_DOT_BF16X3] = "bf16x3",
                                             [TILE_DOT_BF16X6] = "bf16x6"};

const char *tile_dot_precision_name(tile_dot_precision p) { return dot_precisions[p]; }

bool tile_dot_precision_parse(const char *s, size_t n, tile_dot_precision *out) {
  for (int p = 0; p < (int)(sizeof dot_precisions / sizeof dot_precisions[0]); p++) {
    const char *name = dot_precisions[p];
    if (strlen(name) != n) continue;
    size_t i = 0;
    while (i < n && (s[i] | 0x20) == name[i]) i++; /* the names are lower case letters and digits */
    if (i == n) {
      *out = (tile_dot_precision)p;
      return true;
    }
  }
  return false;
}

tile_dot_precision tile_dot_precision_of(MlirOperation dot) {
  MlirAttribute a = mlirOperationGetAttributeByName(dot, mlirStringRefCreateFromCString("input_precision"));
  tile_dot_precision p = TILE_DOT_IEEE;
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a)) return p;
  MlirStringRef s = mlirStringAttrGetValue(a);
  return tile_dot_precision_parse(s.data, s.length, &p) ? p : TILE_DOT_IEEE;
}

MlirValue tile_build_dot(tc_builder *b, MlirValue a, MlirValue bm, MlirValue acc, MlirType result,
                         tile_dot_precision p) {
  MlirValue ops[3] = {a, bm, acc};
  MlirNamedAttribute na = tcb_named(
      b->ctx, "input_precision", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(tile_dot_precision_name(p))));
  return tcb_op1(b, "tile.dot", result, 3, ops, 1, &na);
}

MlirValue tile_build_sort(tc_builder *b, MlirValue x, bool descending, bool is_unsigned) {
  MlirNamedAttribute at[2] = {tcb_named(b->ctx, "descending", mlirBoolAttrGet(b->ctx, descending)),
                              tcb_named(b->ctx, "unsigned", mlirBoolAttrGet(b->ctx, is_unsigned))};
  return tcb_op1(b, "tile.sort", mlirValueGetType(x), 1, &x, 2, at);
}

MlirValue tile_build_hint(tc_builder *b, MlirValue x, const char *kind, const int64_t *values, int n) {
  MlirNamedAttribute at[2] = {
      tcb_named(b->ctx, "kind", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(kind))),
      tcb_named(b->ctx, "values", mlirDenseI64ArrayGet(b->ctx, n, values))};
  return tcb_op1(b, "tile.hint", mlirValueGetType(x), 1, &x, 2, at);
}

MlirValue tile_build_atomic_cas(tc_builder *b, MlirValue ptr, MlirValue cmp, MlirValue val, MlirType result) {
  MlirValue ops[3] = {ptr, cmp, val};
  return tcb_op1(b, "tile.atomic_cas", result, 3, ops, 0, NULL);
}

/* tile.reduce / tile.scan: n (<= 8) operands combined along `axis` by the private function
 * `combine` (a FlatSymbolRefAttr); results of types `results`. */
static MlirOperation build_combining(tc_builder *b, tile_op_id id, intptr_t n, const MlirValue *operands,
                                     const MlirType *results, int axis, MlirAttribute combine, int reverse) {
  int32_t seg[8];
  for (int i = 0; i < 8; i++) seg[i] = i < n;
  MlirNamedAttribute attrs[5];
  int na = 0;
  attrs[na++] = tcb_named(b->ctx, "axis", mlirIntegerAttrGet(mlirIntegerTypeGet(b->ctx, 32), axis));
  attrs[na++] = tcb_named(b->ctx, "combine", combine);
  if (reverse >= 0) attrs[na++] = tcb_named(b->ctx, "reverse", mlirBoolAttrGet(b->ctx, reverse));
  attrs[na++] = tcb_named(b->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(b->ctx, 8, seg));
  attrs[na++] = tcb_named(b->ctx, "resultSegmentSizes", mlirDenseI32ArrayGet(b->ctx, 8, seg));
  return tile_build_op(b, id, n, results, n, operands, na, attrs);
}

MlirOperation tile_build_reduce(tc_builder *b, intptr_t n, const MlirValue *operands, const MlirType *results, int axis,
                                MlirAttribute combine) {
  return build_combining(b, TILE_REDUCE, n, operands, results, axis, combine, -1);
}

MlirOperation tile_build_scan(tc_builder *b, intptr_t n, const MlirValue *operands, const MlirType *results, int axis,
                              MlirAttribute combine, bool reverse) {
  return build_combining(b, TILE_SCAN, n, operands, results, axis, combine, reverse);
}

MlirValue tile_build_atomic_rmw(tc_builder *b, const char *kind, MlirValue ptr, MlirValue val, MlirValue mask,
                                MlirType result) {
  MlirValue ops[3] = {ptr, val, mask};
  int32_t seg[3] = {1, 1, mlirValueIsNull(mask) ? 0 : 1};
  MlirNamedAttribute at[2] = {
      tcb_named(b->ctx, "kind", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(kind))),
      tcb_named(b->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(b->ctx, 3, seg))};
  return tile_build_op1(b, TILE_ATOMIC_RMW, result, 2 + seg[2], ops, 2, at);
}

void tile_build_print(tc_builder *b, MlirAttribute prefix, bool hex, intptr_t n, const MlirValue *values,
                      const bool *is_unsigned) {
  int32_t seg[8];
  int unsigned_mask = 0;
  for (int i = 0; i < 8; i++) seg[i] = i < n;
  for (intptr_t i = 0; i < n; i++) unsigned_mask |= is_unsigned[i] << i;
  MlirNamedAttribute attrs[4] = {
      tcb_named(b->ctx, "prefix", prefix), tcb_named(b->ctx, "hex", mlirBoolAttrGet(b->ctx, hex)),
      tcb_named(b->ctx, "unsigned", mlirIntegerAttrGet(mlirIntegerTypeGet(b->ctx, 32), unsigned_mask)),
      tcb_named(b->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(b->ctx, 8, seg))};
  tile_build_op(b, TILE_PRINT, 0, NULL, n, values, 4, attrs);
}

void tile_build_assert(tc_builder *b, MlirValue cond, MlirAttribute message) {
  MlirNamedAttribute a = tcb_named(b->ctx, "message", message);
  tile_build_op(b, TILE_ASSERT, 0, NULL, 1, &cond, 1, &a);
}
