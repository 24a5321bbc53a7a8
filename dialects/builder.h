/* dialects/builder.h — a thin, typed layer over MLIR's generic operation-state C API.
 * In: a context, an insertion point and a location. Out: operations and values; used by
 * the front end (tile IR) and the conversion (vector IR) alike. */
#ifndef TILEC_DIALECTS_BUILDER_H
#define TILEC_DIALECTS_BUILDER_H

#include <mlir-c/IR.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct tc_builder {
  MlirContext ctx;
  MlirBlock block;      /* insertion block */
  MlirOperation before; /* insert before this op; null: append to block */
  MlirLocation loc;
} tc_builder;

void tcb_init(tc_builder *b, MlirContext ctx);
void tcb_set_end(tc_builder *b, MlirBlock block);
void tcb_set_before(tc_builder *b, MlirOperation op);

/* Parsing helpers: attributes and types written as MLIR text. Null on parse failure. */
MlirType tcb_type(MlirContext ctx, const char *text);
MlirAttribute tcb_attr(MlirContext ctx, const char *text);
MlirType tcb_index(MlirContext ctx);
MlirType tcb_int_type(MlirContext ctx, unsigned width);
MlirNamedAttribute tcb_named(MlirContext ctx, const char *name, MlirAttribute a);

/* Creates an operation `name` at the insertion point. */
MlirOperation tcb_op(tc_builder *b, const char *name, intptr_t nresults, const MlirType *results, intptr_t noperands,
                     const MlirValue *operands, intptr_t nattrs, const MlirNamedAttribute *attrs);
/* Same with regions (taken over by the new operation). */
MlirOperation tcb_op_regions(tc_builder *b, const char *name, intptr_t nresults, const MlirType *results,
                             intptr_t noperands, const MlirValue *operands, intptr_t nattrs,
                             const MlirNamedAttribute *attrs, intptr_t nregions, MlirRegion *regions);
/* scf.if cond at b with the given results: *then_b (and *else_b, when not NULL, which adds
 * an else block) are builders at the end of the new branch blocks; each branch must be
 * ended with an scf.yield by the caller. */
MlirOperation tcb_if(tc_builder *b, MlirValue cond, intptr_t nresults, const MlirType *results, tc_builder *then_b,
                     tc_builder *else_b);
/* The operations under root, post-order, for which keep(op, user) holds: a malloc'd array of
 * *n of them (NULL when there are none), for passes that rewrite ops they must not meet again
 * mid-walk. Returns false when out of memory. */
bool tcb_collect(MlirOperation root, bool (*keep)(MlirOperation, void *), void *user, MlirOperation **ops, int *n);
/* One-result shorthand. */
MlirValue tcb_op1(tc_builder *b, const char *name, MlirType result, intptr_t noperands, const MlirValue *operands,
                  intptr_t nattrs, const MlirNamedAttribute *attrs);
/* A call of the LLVM intrinsic `intrin` (llvm.call_intrinsic, no operand bundles). */
MlirValue tcb_intrinsic(tc_builder *b, const char *intrin, MlirType result, int32_t noperands,
                        const MlirValue *operands);

/* arith helpers */
MlirValue tcb_const_int(tc_builder *b, MlirType type, int64_t v); /* int, index or splat vector/tensor */
MlirValue tcb_const_float(tc_builder *b, MlirType type, double v);
MlirValue tcb_const_index(tc_builder *b, int64_t v);
MlirValue tcb_binary(tc_builder *b, const char *name, MlirValue lhs, MlirValue rhs);
MlirValue tcb_cmpi(tc_builder *b, const char *pred, MlirValue lhs, MlirValue rhs);
MlirValue tcb_cmpf(tc_builder *b, const char *pred, MlirValue lhs, MlirValue rhs);
MlirValue tcb_cast(tc_builder *b, const char *name, MlirValue v, MlirType to);
MlirValue tcb_select(tc_builder *b, MlirValue c, MlirValue t, MlirValue f);
/* A signed integer or index scalar as i64 (index_cast / extsi; unchanged when already 64-bit). */
MlirValue tcb_sext_i64(tc_builder *b, MlirValue v);

/* Type queries */
bool tcb_is_int(MlirType t);
bool tcb_is_float(MlirType t);
unsigned tcb_bitwidth(MlirType t);     /* int or float; 0 otherwise */
MlirType tcb_element_type(MlirType t); /* of a shaped type; t itself otherwise */
bool tcb_is_shaped(MlirType t);

/* Prints t (or attribute a) into buf (truncated to n-1 chars, always terminated). */
void tcb_type_str(MlirType t, char *buf, size_t n);
void tcb_attr_str(MlirAttribute a, char *buf, size_t n);
void tcb_op_print_to(MlirOperation op, char *buf, size_t n);
/* Captures MLIR diagnostics of ctx while attached (instead of printing to stderr). */
typedef struct tc_diag_capture {
  MlirContext ctx;
  uint64_t id;
  char text[4096];
  size_t len;
} tc_diag_capture;
void tc_diag_capture_begin(tc_diag_capture *c, MlirContext ctx);
void tc_diag_capture_end(tc_diag_capture *c);

#endif
