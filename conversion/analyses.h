/* conversion/analyses.h — what the lowering decides from, computed on the tile IR alone
 * (no lowering state): per-dimension axis facts (axis_info.h), bounds in masks, equality
 * of values, reach of lazy cones. In: tile IR values (and an axis analysis, memoized).
 * Out: facts; nothing is built. Used by the lowering (mask.c, memory.c, ...), by
 * `--emit analysis` (analysis.c) and by the backends. */
#ifndef TILEC_CONVERSION_ANALYSES_H
#define TILEC_CONVERSION_ANALYSES_H

#include "conversion/axis_info.h"
#include "dialects/ir_util.h"
#include <mlir-c/IR.h>
#include <stdbool.h>
#include <stdint.h>

_Static_assert(TC_AXIS_MAX_RANK == TC_RANK, "the axis analysis covers every dimension of a tile");

/* --- mask.c: bounds ---------------------------------------------------------------------- */
/* What the bound analysis finds in a mask over rows of n lanes (conversion/mask.c):
 * ROW  — constant along the last dim (the row is in or out; a = the mask);
 * LESS — a < c (a <= c when inclusive), a contiguous and c constant along the last dim;
 * AND  — a & c, both bounds;
 * BCAST — a broadcast of a (same rank, same last dim) along leading dims, a's bound: row r
 *         of the mask is row r of a, its broadcast dims at 0 (`cols[None, :] < N` of a 2-D mask). */
enum { TC_BOUND_NONE = 0, TC_BOUND_ROW, TC_BOUND_LESS, TC_BOUND_AND, TC_BOUND_BCAST };
typedef struct tc_bound {
  int kind;
  MlirValue a, c;
  bool inclusive, is_unsigned;
} tc_bound;
bool tc_bound_plan(tc_axis_analysis *ax, MlirValue mask, int64_t n, tc_bound *out);
/* Is a mask with a bound the same for all w lanes of each chunk at a multiple of w (`cols < N`
 * with cols' first element and N both multiples of w)? Then a chunk is wholly inside its
 * bound or wholly outside it, never split (conversion/mask.c). */
bool tc_mask_bound_chunk_uniform(tc_axis_analysis *ax, MlirValue mask, int64_t n, int64_t w);
/* Do a and b compute the same tile: equal values, or the same lazily evaluated op with
 * equal attributes over the same operands (`cols < N` written twice)? */
bool tc_same_value(MlirValue a, MlirValue b, int depth);

/* --- regions.c ------------------------------------------------------------------------- */
/* Does the lazy cone of v reach `target`? With moved_only, only through ops that read
 * their operand at another position (broadcast, expand_dims, reshape, a gather's source). */
bool tc_cone_reaches(MlirValue v, MlirValue target, bool moved_only, bool moved, int depth);

#endif
