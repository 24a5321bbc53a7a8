/* dialects/ir_util.h — stateless helpers over MLIR IR, beside the builder: op names and
 * dialects, tile op kinds the lowering cares about (lazy, pure), shapes and element counts,
 * vector types, splats and iotas, elementwise clones with Triton's integer semantics.
 * In: operations, types, values and a builder. Out: facts, or ops built at the builder;
 * nothing here reads or keeps state of its own (used by conversion/ and backend/). */
#ifndef TILEC_DIALECTS_IR_UTIL_H
#define TILEC_DIALECTS_IR_UTIL_H

#include "dialects/builder.h"
#include <mlir-c/IR.h>
#include <stdbool.h>
#include <stdint.h>

/* The most dimensions a tile has (conversion/axis_info.h's TC_AXIS_MAX_RANK agrees). */
#define TC_RANK 16

/* --- ops ------------------------------------------------------------------------------- */
bool tc_op_is(MlirOperation op, const char *name);
bool tc_op_in_dialect(MlirOperation op, const char *dialect);
/* Is `outer` the block `inner` is in, or a block some op enclosing `inner` stands in? */
bool tc_block_encloses(MlirBlock outer, MlirBlock inner);
bool tc_is_lazy_op(MlirOperation op); /* pure tile op evaluated at positions */
/* tc_is_lazy_op, and never a nest of its own instead (not reshape, trans: LAZY | ROOT). */
bool tc_is_always_lazy_op(MlirOperation op);
/* A scalar op without side effects or memory reads: arith/math, and the tile dialect's
 * TILE_TRAIT_PURE ops (scalar addptr, program_id, num_programs, hint, ptr_to_int, ...). */
bool tc_is_pure_scalar_op(MlirOperation op);
/* Does a tile.reshape keep the last dim's chunks (only unit dims added or dropped, and a
 * chunk of the result's last dim a chunk of the source's), so it can be read lazily? */
bool tc_reshape_is_unit(MlirOperation op);

/* --- shapes and types ------------------------------------------------------------------- */
int tc_shape_of(MlirType t, int64_t *shape); /* rank of a ranked tensor (0 for scalars) */
bool tc_same_shape(MlirType a, MlirType b);
/* Is v a zero made a tile (a splat of a zero constant, a splat dense constant) or a zero
 * scalar constant? bits: only +0.0 among floats (every bit zero), else -0.0 too. */
bool tc_is_zero_splat(MlirValue v, bool bits);
int64_t tc_numel(int rank, const int64_t *shape);
MlirType tc_vec_type(MlirContext ctx, int64_t width, MlirType elem);
MlirType tc_memory_type(MlirContext ctx, MlirType elem); /* i1 is stored as i8, !tile.ptr as !llvm.ptr */

/* --- values built at b ------------------------------------------------------------------ */
MlirValue tc_iota(tc_builder *b, int64_t width); /* vector<width x i32> 0, 1, ... */
MlirValue tc_splat_vec(tc_builder *b, MlirValue s, int64_t width);
MlirValue tc_vec_lane(tc_builder *b, MlirValue v, int64_t k); /* element k of vector v */
/* Clones an elementwise arith/math op with new operands and result type (integer division,
 * remainder and shifts through tc_build_guarded_int_op). */
MlirOperation tc_clone_elementwise(tc_builder *b, MlirOperation op, const MlirValue *operands, MlirType result);
/* int_semantics.c: arith.divsi/divui/remsi/remui/shli/shrsi/shrui with Triton's results for
 * every operand value (no trap, no poison); returns the op defining the value. */
bool tc_is_guarded_int_op(const char *name);
MlirOperation tc_build_guarded_int_op(tc_builder *b, const char *name, MlirValue x, MlirValue y, MlirType t);

/* --- the accurate form of a math op ----------------------------------------------------- */
/* A unit attribute the frontend puts on arith.divf, math.sqrt and math.exp where the source
 * asks for the accurate form (tl.div_rn, tl.fdiv(ieee_rounding=True), tl.sqrt_rn,
 * libdevice.exp). The nvptx backend then keeps IEEE division and square root and
 * libdevice's __nv_expf instead of Triton's approximate instructions (docs/NVPTX.md, "Math
 * accuracy"); CPU targets compute every form accurately. Elementwise clones keep it; the
 * pipeline removes it after the backend's lower_math. */
#define TC_ATTR_PRECISE "tilec.precise"
bool tc_op_is_precise(MlirOperation op);
void tc_op_set_precise(MlirOperation op);
void tc_strip_precise(MlirOperation root); /* removes the attribute from every op under root */

#endif
