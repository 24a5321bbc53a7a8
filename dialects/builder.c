/* dialects/builder.c — operation-state plumbing behind dialects/builder.h.
 * In: names, operands, attributes. Out: operations inserted at the builder's point. */
#include "dialects/builder.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tcb_init(tc_builder *b, MlirContext ctx) {
  memset(b, 0, sizeof *b);
  b->ctx = ctx;
  b->loc = mlirLocationUnknownGet(ctx);
}

void tcb_set_end(tc_builder *b, MlirBlock block) {
  b->block = block;
  b->before = (MlirOperation){NULL};
}

void tcb_set_before(tc_builder *b, MlirOperation op) {
  b->block = mlirOperationGetBlock(op);
  b->before = op;
}

MlirType tcb_type(MlirContext ctx, const char *text) {
  return mlirTypeParseGet(ctx, mlirStringRefCreateFromCString(text));
}

MlirAttribute tcb_attr(MlirContext ctx, const char *text) {
  return mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString(text));
}

MlirType tcb_index(MlirContext ctx) { return mlirIndexTypeGet(ctx); }
MlirType tcb_int_type(MlirContext ctx, unsigned width) { return mlirIntegerTypeGet(ctx, width); }

MlirNamedAttribute tcb_named(MlirContext ctx, const char *name, MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, mlirStringRefCreateFromCString(name)), a);
}

static void insert(tc_builder *b, MlirOperation op) {
  if (!mlirOperationIsNull(b->before)) mlirBlockInsertOwnedOperationBefore(b->block, b->before, op);
  else mlirBlockAppendOwnedOperation(b->block, op);
}

MlirOperation tcb_op_regions(tc_builder *b, const char *name, intptr_t nresults, const MlirType *results,
                             intptr_t noperands, const MlirValue *operands, intptr_t nattrs,
                             const MlirNamedAttribute *attrs, intptr_t nregions, MlirRegion *regions) {
  MlirOperationState st = mlirOperationStateGet(mlirStringRefCreateFromCString(name), b->loc);
  if (nresults) mlirOperationStateAddResults(&st, nresults, results);
  if (noperands) mlirOperationStateAddOperands(&st, noperands, operands);
  if (nattrs) mlirOperationStateAddAttributes(&st, nattrs, attrs);
  if (nregions) mlirOperationStateAddOwnedRegions(&st, nregions, regions);
  MlirOperation op = mlirOperationCreate(&st);
  if (!mlirBlockIsNull(b->block)) insert(b, op);
  return op;
}

typedef struct collect_state {
  bool (*keep)(MlirOperation, void *);
  void *user;
  MlirOperation *ops;
  int n, cap;
  bool oom;
} collect_state;

static MlirWalkResult collect_one(MlirOperation op, void *user) {
  collect_state *c = user;
  if (!c->keep(op, c->user)) return MlirWalkResultAdvance;
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 32;
    MlirOperation *ops = realloc(c->ops, sizeof *ops * (size_t)cap);
    if (!ops) {
      c->oom = true;
      return MlirWalkResultInterrupt;
    }
    c->ops = ops;
    c->cap = cap;
  }
  c->ops[c->n++] = op;
  return MlirWalkResultAdvance;
}

bool tcb_collect(MlirOperation root, bool (*keep)(MlirOperation, void *), void *user, MlirOperation **ops, int *n) {
  collect_state c = {keep, user, NULL, 0, 0, false};
  mlirOperationWalk(root, collect_one, &c, MlirWalkPostOrder);
  if (c.oom) {
    free(c.ops);
    c.ops = NULL;
    c.n = 0;
  }
  *ops = c.ops;
  *n = c.n;
  return !c.oom;
}

MlirOperation tcb_if(tc_builder *b, MlirValue cond, intptr_t nresults, const MlirType *results, tc_builder *then_b,
                     tc_builder *else_b) {
  MlirRegion regions[2] = {mlirRegionCreate(), mlirRegionCreate()};
  MlirBlock tb = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(regions[0], tb);
  MlirBlock eb = {NULL};
  if (else_b) {
    eb = mlirBlockCreate(0, NULL, NULL);
    mlirRegionAppendOwnedBlock(regions[1], eb);
  }
  MlirOperation iff = tcb_op_regions(b, "scf.if", nresults, results, 1, &cond, 0, NULL, 2, regions);
  tcb_init(then_b, b->ctx);
  then_b->loc = b->loc;
  tcb_set_end(then_b, tb);
  if (else_b) {
    tcb_init(else_b, b->ctx);
    else_b->loc = b->loc;
    tcb_set_end(else_b, eb);
  }
  return iff;
}

MlirOperation tcb_op(tc_builder *b, const char *name, intptr_t nresults, const MlirType *results, intptr_t noperands,
                     const MlirValue *operands, intptr_t nattrs, const MlirNamedAttribute *attrs) {
  return tcb_op_regions(b, name, nresults, results, noperands, operands, nattrs, attrs, 0, NULL);
}

MlirValue tcb_op1(tc_builder *b, const char *name, MlirType result, intptr_t noperands, const MlirValue *operands,
                  intptr_t nattrs, const MlirNamedAttribute *attrs) {
  MlirOperation op = tcb_op(b, name, 1, &result, noperands, operands, nattrs, attrs);
  return mlirOperationGetResult(op, 0);
}

MlirValue tcb_intrinsic(tc_builder *b, const char *intrin, MlirType result, int32_t noperands,
                        const MlirValue *operands) {
  int32_t seg[2] = {noperands, 0};
  MlirNamedAttribute attrs[3] = {
      tcb_named(b->ctx, "intrin", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(intrin))),
      tcb_named(b->ctx, "op_bundle_sizes", mlirDenseI32ArrayGet(b->ctx, 0, NULL)),
      tcb_named(b->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(b->ctx, 2, seg)),
  };
  return tcb_op1(b, "llvm.call_intrinsic", result, noperands, operands, 3, attrs);
}

bool tcb_is_shaped(MlirType t) { return mlirTypeIsAShaped(t); }

MlirType tcb_element_type(MlirType t) { return mlirTypeIsAShaped(t) ? mlirShapedTypeGetElementType(t) : t; }

bool tcb_is_int(MlirType t) { return mlirTypeIsAInteger(t) || mlirTypeIsAIndex(t); }
bool tcb_is_float(MlirType t) { return mlirTypeIsAFloat(t); }

unsigned tcb_bitwidth(MlirType t) {
  if (mlirTypeIsAInteger(t)) return mlirIntegerTypeGetWidth(t);
  if (mlirTypeIsAIndex(t)) return 64;
  if (mlirTypeIsAFloat(t)) return mlirFloatTypeGetWidth(t);
  return 0;
}

static MlirAttribute scalar_attr(MlirType elem, int64_t iv, double fv, bool is_float) {
  if (is_float) return mlirFloatAttrDoubleGet(mlirTypeGetContext(elem), elem, fv);
  return mlirIntegerAttrGet(elem, iv);
}

static MlirValue make_const(tc_builder *b, MlirType type, int64_t iv, double fv, bool is_float) {
  MlirType elem = tcb_element_type(type);
  MlirAttribute a = scalar_attr(elem, iv, fv, is_float);
  if (mlirTypeIsAShaped(type)) a = mlirDenseElementsAttrSplatGet(type, a);
  MlirNamedAttribute na = tcb_named(b->ctx, "value", a);
  return tcb_op1(b, "arith.constant", type, 0, NULL, 1, &na);
}

MlirValue tcb_const_int(tc_builder *b, MlirType type, int64_t v) { return make_const(b, type, v, 0, false); }
MlirValue tcb_const_float(tc_builder *b, MlirType type, double v) { return make_const(b, type, 0, v, true); }
MlirValue tcb_const_index(tc_builder *b, int64_t v) { return tcb_const_int(b, tcb_index(b->ctx), v); }

MlirValue tcb_binary(tc_builder *b, const char *name, MlirValue lhs, MlirValue rhs) {
  MlirValue ops[2] = {lhs, rhs};
  return tcb_op1(b, name, mlirValueGetType(lhs), 2, ops, 0, NULL);
}

static MlirType i1_like(MlirContext ctx, MlirType t) {
  MlirType i1 = mlirIntegerTypeGet(ctx, 1);
  if (mlirTypeIsAVector(t)) {
    intptr_t r = mlirShapedTypeGetRank(t);
    int64_t shape[8];
    for (intptr_t i = 0; i < r && i < 8; i++) shape[i] = mlirShapedTypeGetDimSize(t, i);
    return mlirVectorTypeGet(r, shape, i1);
  }
  if (mlirTypeIsARankedTensor(t)) {
    intptr_t r = mlirShapedTypeGetRank(t);
    int64_t shape[8];
    for (intptr_t i = 0; i < r && i < 8; i++) shape[i] = mlirShapedTypeGetDimSize(t, i);
    return mlirRankedTensorTypeGet(r, shape, i1, mlirAttributeGetNull());
  }
  return i1;
}

static int64_t cmpi_code(const char *p) {
  static const char *names[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
  for (int i = 0; i < 10; i++)
    if (!strcmp(names[i], p)) return i;
  return -1;
}

static int64_t cmpf_code(const char *p) {
  static const char *names[] = {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                                "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};
  for (int i = 0; i < 16; i++)
    if (!strcmp(names[i], p)) return i;
  return -1;
}

MlirValue tcb_cmpi(tc_builder *b, const char *pred, MlirValue lhs, MlirValue rhs) {
  MlirValue ops[2] = {lhs, rhs};
  MlirNamedAttribute na =
      tcb_named(b->ctx, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(b->ctx, 64), cmpi_code(pred)));
  return tcb_op1(b, "arith.cmpi", i1_like(b->ctx, mlirValueGetType(lhs)), 2, ops, 1, &na);
}

MlirValue tcb_cmpf(tc_builder *b, const char *pred, MlirValue lhs, MlirValue rhs) {
  MlirValue ops[2] = {lhs, rhs};
  MlirNamedAttribute na =
      tcb_named(b->ctx, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(b->ctx, 64), cmpf_code(pred)));
  return tcb_op1(b, "arith.cmpf", i1_like(b->ctx, mlirValueGetType(lhs)), 2, ops, 1, &na);
}

MlirValue tcb_cast(tc_builder *b, const char *name, MlirValue v, MlirType to) {
  return tcb_op1(b, name, to, 1, &v, 0, NULL);
}

MlirValue tcb_sext_i64(tc_builder *b, MlirValue v) {
  MlirType t = mlirValueGetType(v), i64 = tcb_int_type(b->ctx, 64);
  if (mlirTypeIsAIndex(t)) return tcb_cast(b, "arith.index_cast", v, i64);
  return tcb_bitwidth(t) < 64 ? tcb_cast(b, "arith.extsi", v, i64) : v;
}

MlirValue tcb_select(tc_builder *b, MlirValue c, MlirValue t, MlirValue f) {
  MlirValue ops[3] = {c, t, f};
  return tcb_op1(b, "arith.select", mlirValueGetType(t), 3, ops, 0, NULL);
}

typedef struct print_sink {
  char *buf;
  size_t cap, len;
} print_sink;

static void sink_append(MlirStringRef s, void *user) {
  print_sink *k = user;
  for (size_t i = 0; i < s.length && k->len + 1 < k->cap; i++) k->buf[k->len++] = s.data[i];
  k->buf[k->len] = 0;
}

void tcb_type_str(MlirType t, char *buf, size_t n) {
  print_sink k = {buf, n, 0};
  if (n) buf[0] = 0;
  mlirTypePrint(t, sink_append, &k);
}

void tcb_attr_str(MlirAttribute a, char *buf, size_t n) {
  print_sink k = {buf, n, 0};
  if (n) buf[0] = 0;
  mlirAttributePrint(a, sink_append, &k);
}

void tcb_op_print_to(MlirOperation op, char *buf, size_t n) {
  print_sink k = {buf, n, 0};
  if (n) buf[0] = 0;
  mlirOperationPrint(op, sink_append, &k);
}

static void capture_append(MlirStringRef s, void *user) {
  tc_diag_capture *c = user;
  for (size_t i = 0; i < s.length && c->len + 1 < sizeof c->text; i++) c->text[c->len++] = s.data[i];
  c->text[c->len] = 0;
}

static MlirLogicalResult capture_handler(MlirDiagnostic d, void *user) {
  tc_diag_capture *c = user;
  if (c->len && c->len + 2 < sizeof c->text) c->text[c->len++] = '\n';
  char loc[256];
  MlirLocation l = mlirDiagnosticGetLocation(d);
  if (mlirLocationIsAFileLineColRange(l)) {
    MlirStringRef f = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(l));
    snprintf(loc, sizeof loc, "%.*s:%d:%d: ", (int)f.length, f.data, mlirLocationFileLineColRangeGetStartLine(l),
             mlirLocationFileLineColRangeGetStartColumn(l));
    capture_append(mlirStringRefCreateFromCString(loc), c);
  }
  mlirDiagnosticPrint(d, capture_append, c);
  return mlirLogicalResultSuccess();
}

void tc_diag_capture_begin(tc_diag_capture *c, MlirContext ctx) {
  c->ctx = ctx;
  c->len = 0;
  c->text[0] = 0;
  c->id = mlirContextAttachDiagnosticHandler(ctx, capture_handler, c, NULL);
}

void tc_diag_capture_end(tc_diag_capture *c) { mlirContextDetachDiagnosticHandler(c->ctx, c->id); }
