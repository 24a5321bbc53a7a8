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
MlirValue tile_build_load(tc_builder *b, MlirValue ptr, MlirValue mask, MlirValue other,
                          MlirType result);
void tile_build_store(tc_builder *b, MlirValue ptr, MlirValue value, MlirValue mask);

/* Name of an op without the dialect prefix if it is a tile op, else NULL. */
const char *tile_op_kind(MlirOperation op);
/* Optional operand access for load/store (by segment). Null value when absent. */
MlirValue tile_load_mask(MlirOperation load);
MlirValue tile_load_other(MlirOperation load);
MlirValue tile_store_mask(MlirOperation store);
int64_t tile_int_attr(MlirOperation op, const char *name, int64_t dflt);

/* Checks what IRDL cannot: shapes and element types of tile ops in `module_op`. */
tilec_status *tile_verify(MlirOperation module_op);

#endif
