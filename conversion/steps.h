/* conversion/steps.h — the pipeline's steps after the front end, one function each, that
 * pipeline.c runs by name: tile → tile rewrites (dot-combine, single-trip-loops), the
 * analyses' text (`--emit analysis`) and the lowering tile → vector.
 * In: a tile module. Out: the module rewritten, a text, or a new module. */
#ifndef TILEC_CONVERSION_STEPS_H
#define TILEC_CONVERSION_STEPS_H

#include "target/target.h"
#include "tilec/status.h"
#include <mlir-c/IR.h>
#include <stdint.h>

/* --- combine.c: before the lowering -------------------------------------------------------- */
/* add(d, dot(a, b, 0)) -> dot(a, b, d) where the dot's result has no other use (as
 * Triton's combine pass; the pipeline's step dot-combine). */
void tc_combine_dot_adds(MlirModule module);

/* --- version_loops.c: before the lowering ------------------------------------------------- */
/* Puts each kernel's code from its first accumulation loop with a buffered tile on under
 * `scf.if (every such loop runs once)`, with those loops inlined in the then-branch (see
 * the file's comment). Rewrites the tile module in place (the pipeline's step
 * single-trip-loops). */
void tc_version_single_trip_loops(const tc_target *target, MlirModule module);

/* --- analysis.c ------------------------------------------------------------------------ */
/* `--emit analysis`: axis info of every integer/pointer value and the bound of every
 * load/store mask of a tile module, as text (conversion/analysis.c). *out is malloc'ed. */
tilec_status *tc_analysis_print(MlirModule module, char **out);

/* --- lower.c ------------------------------------------------------------------------------ */
/* Lowers every func.func of `tile_module` into a fresh module (caller destroys it). */
tilec_status *tc_lower_to_vector(MlirModule tile_module, const tc_target *target, uint32_t checks, MlirModule *out);

#endif
