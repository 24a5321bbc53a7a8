/* dialects/tile.h — the tile dialect: loading its IRDL definition and typed builders.
 * In: an MLIR context and builder. Out: tile.* operations with the operand/attribute
 * layout the conversion expects (see dialects/tile.irdl.mlir for the op list). */
#ifndef TILEC_DIALECTS_TILE_H
#define TILEC_DIALECTS_TILE_H

#include "dialects/builder.h"
#include "tilec/status.h"

/* A context with every upstream dialect registered and the tile dialect loaded from the
 * IRDL text embedded at build time. The caller destroys it with mlirContextDestroy. */
tilec_status *tile_context_create(MlirContext *out);

/* !tile.ptr<pointee> */
MlirType tile_ptr_type(MlirContext ctx, MlirType pointee);
bool tile_type_is_ptr(MlirType t);
MlirType tile_ptr_pointee(MlirType t);
/* tensor<shape x elem> */
MlirType tile_tensor_type(MlirContext ctx, int rank, const int64_t *shape, MlirType elem);

MlirValue tile_build_program_id(tc_builder *b, int axis);
MlirValue tile_build_num_programs(tc_builder *b, int axis);
MlirValue tile_build_range(tc_builder *b, int32_t start, int32_t end);
MlirValue tile_build_splat(tc_builder *b, MlirValue scalar, MlirType tile_type);
MlirValue tile_build_broadcast(tc_builder *b, MlirValue tile, MlirType tile_type);
MlirValue tile_build_expand_dims(tc_builder *b, MlirValue tile, int axis, MlirType result);
MlirValue tile_build_reshape(tc_builder *b, MlirValue tile, MlirType result);
MlirValue tile_build_addptr(tc_builder *b, MlirValue ptr, MlirValue offset);
MlirValue tile_build_bitcast(tc_builder *b, MlirValue v, MlirType to);
MlirValue tile_build_ptr_to_int(tc_builder *b, MlirValue p, MlirType to);
MlirValue tile_build_int_to_ptr(tc_builder *b, MlirValue v, MlirType to);
/* mask and other may be null values. */
MlirValue tile_build_load(tc_builder *b, MlirValue ptr, MlirValue mask, MlirValue other, MlirType result);
void tile_build_store(tc_builder *b, MlirValue ptr, MlirValue value, MlirValue mask);
/* result[..] = x permuted: result dim i is x's dim order[i]. */
MlirValue tile_build_trans(tc_builder *b, MlirValue x, const int32_t *order, int rank, MlirType result);
/* out[..i..] = src[..index[..i..]..] along axis; result has the index's shape. */
MlirValue tile_build_gather(tc_builder *b, MlirValue src, MlirValue index, int axis, MlirType result);
/* tl.dot's input_precision (Triton's names): how an fp32 x fp32 dot may use tensor cores —
 * ieee: exact fp32 products; tf32: operands rounded to tf32 (10-bit mantissa); tf32x3: the
 * three products of the operands' tf32 parts (big x big + big x small + small x big, about
 * fp32's accuracy); bf16x3 / bf16x6: the same with bf16 parts. Dots of other element types
 * ignore it. Stored as the string attribute "input_precision" of tile.dot (absent: ieee). */
typedef enum tile_dot_precision {
  TILE_DOT_IEEE,
  TILE_DOT_TF32,
  TILE_DOT_TF32X3,
  TILE_DOT_BF16X3,
  TILE_DOT_BF16X6,
} tile_dot_precision;
/* On an scf.for, tl.range(..., num_stages=N): the loop's own depth of the GPU's tl.dot operand
 * pipeline (backend/nvptx_pipeline.c) instead of the kernel's num_stages; an i32 from 1 to 8. */
#define TILE_LOOP_STAGES_ATTR "tilec.num_stages"
#define TILE_DOT_PRECISIONS "('tf32', 'tf32x3', 'ieee', 'bf16x3', 'bf16x6')" /* Triton's list, in its order */
const char *tile_dot_precision_name(tile_dot_precision p);
/* s[0..n) as a precision, case-insensitive like Triton; false for no such name. */
bool tile_dot_precision_parse(const char *s, size_t n, tile_dot_precision *out);
/* The dot's input_precision (ieee when it has none). */
tile_dot_precision tile_dot_precision_of(MlirOperation dot);
/* a[M,K] x b[K,N] + acc[M,N] (a leading batch dim allowed), with input_precision p. */
MlirValue tile_build_dot(tc_builder *b, MlirValue a, MlirValue bm, MlirValue acc, MlirType result,
                         tile_dot_precision p);
/* x sorted along its last dim. */
MlirValue tile_build_sort(tc_builder *b, MlirValue x, bool descending, bool is_unsigned);
/* x with a hint (kind "multiple_of" | "max_contiguous" | "max_constancy", one value per dim). */
MlirValue tile_build_hint(tc_builder *b, MlirValue x, const char *kind, const int64_t *values, int n);
/* Compare-and-swap at each pointer; returns the old values. */
MlirValue tile_build_atomic_cas(tc_builder *b, MlirValue ptr, MlirValue cmp, MlirValue val, MlirType result);
/* tile.reduce / tile.scan of n (<= 8) operands along axis with the private combine function
 * `combine` (FlatSymbolRefAttr); one result per operand. */
MlirOperation tile_build_reduce(tc_builder *b, intptr_t n, const MlirValue *operands, const MlirType *results, int axis,
                                MlirAttribute combine);
MlirOperation tile_build_scan(tc_builder *b, intptr_t n, const MlirValue *operands, const MlirType *results, int axis,
                              MlirAttribute combine, bool reverse);
/* tile.atomic_rmw of kind ("add", "fadd", "max", "umax", "fmax", ..., "xchg"); mask may be null. */
MlirValue tile_build_atomic_rmw(tc_builder *b, const char *kind, MlirValue ptr, MlirValue val, MlirValue mask,
                                MlirType result);
/* tile.print of n (<= 8) tiles after the text `prefix` (a StringAttr); tile.assert. */
/* prefix: the text after the index (Triton's munged prefix); is_unsigned[i]: operand i's
 * integers print unsigned (the attribute "unsigned", bit i). 0 to 8 operands. */
void tile_build_print(tc_builder *b, MlirAttribute prefix, bool hex, intptr_t n, const MlirValue *values,
                      const bool *is_unsigned);
void tile_build_assert(tc_builder *b, MlirValue cond, MlirAttribute message);

/* ---- the op table (dialects/tile_ops.def) -------------------------------------------- */
enum {
  TILE_TRAIT_LAZY = 1,          /* pure, evaluated lane by lane where consumed */
  TILE_TRAIT_MOVES_LANES = 2,   /* result lanes read other operand lanes */
  TILE_TRAIT_ROOT = 4,          /* runs its own loop nest over memory */
  TILE_TRAIT_WRITES = 8,        /* writes memory */
  TILE_TRAIT_PURE = 16,         /* reads no memory, runs no nest: a function of its operands */
  TILE_TRAIT_KEEPS_VALUES = 32, /* each result lane is a lane of operand 0, unchanged */
};

typedef enum tile_op_id {
  TILE_NOT_TILE = 0, /* an op of another dialect */
#define TILE_OP(ID, name, traits) TILE_##ID,
#include "dialects/tile_ops.def"
  TILE_OP_COUNT
} tile_op_id;

/* Which tile op `op` is (TILE_NOT_TILE for arith, scf, func, ... ops). */
tile_op_id tile_op_of(MlirOperation op);
/* The op named "tile.<name>" (name: len bytes, without the prefix), or TILE_NOT_TILE. */
tile_op_id tile_op_id_of_name(const char *name, size_t len);
/* "tile.<name>" of a row (NULL for TILE_NOT_TILE), and its TILE_TRAIT_* bits. */
const char *tile_op_name(tile_op_id id);
unsigned tile_op_traits(tile_op_id id);
/* Does `op` have one of the traits in `mask` (TILE_TRAIT_*)? False for non-tile ops. */
bool tile_op_has(MlirOperation op, unsigned mask);
/* A tile op with the given operands, attributes and result types, for the ops whose
 * operands need no more than that (the others have typed builders below). */
MlirOperation tile_build_op(tc_builder *b, tile_op_id id, intptr_t nresults, const MlirType *results,
                            intptr_t noperands, const MlirValue *operands, intptr_t nattrs,
                            const MlirNamedAttribute *attrs);
/* The same with one result, returned as a value. */
MlirValue tile_build_op1(tc_builder *b, tile_op_id id, MlirType result, intptr_t noperands, const MlirValue *operands,
                         intptr_t nattrs, const MlirNamedAttribute *attrs);
/* Optional operand access for load/store (by segment). Null value when absent. */
MlirValue tile_load_mask(MlirOperation load);
MlirValue tile_load_other(MlirOperation load);
MlirValue tile_store_mask(MlirOperation store);
int64_t tile_int_attr(MlirOperation op, const char *name, int64_t dflt);

/* Checks what IRDL cannot: shapes and element types of tile ops in `module_op`. */
tilec_status *tile_verify(MlirOperation module_op);

#endif
