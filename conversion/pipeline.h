/* conversion/pipeline.h — the stages after the front end, by name, in order: tile (the front
 * end's IR) → dot-combine → single-trip-loops (tile → tile steps) → analysis (a view of that
 * IR, not a step) → vector → llvm-dialect → llvm (IR) → asm/object. In: a tile module. Out:
 * the module advanced to a stage, its text, or an object file; MLIR diagnostics are captured,
 * never printed. */
#ifndef TILEC_CONVERSION_PIPELINE_H
#define TILEC_CONVERSION_PIPELINE_H

#include "dialects/builder.h"
#include "target/stage.h"
#include "target/target.h"
#include "tilec/status.h"
#include "tilec/tilec.h" /* TILEC_CHECKS_* */
#include <mlir-c/IR.h>

/* tc_stage (where the pipeline stops, in pipeline order) and tc_codegen_options: target/stage.h. */

/* debug_files.c: after the debug-info pass, ops located in another file than their
 * function (inlined @jit helpers of other modules) get a DILexicalBlockFile scope naming it. */
void tc_debug_scope_files(MlirModule module);

/* A printable stage by name ("tile", "dot-combine", ..., "asm"; not "object"). */
bool tc_stage_from_name(const char *name, tc_stage *out);
const char *tc_stage_name(tc_stage s);
/* The API's stage numbers (include/tilec/tilec.h) to and from tc_stage. */
bool tc_stage_from_api(tilec_stage api, tc_stage *out);
tilec_stage tc_stage_api(tc_stage s);

/* Advances *module (tile stage, verified) through the steps up to `stage` (the module after
 * the last MLIR step for llvm/asm/object: llvm-dialect); the module may be replaced. */
tilec_status *tc_pipeline_run(MlirModule *module, tc_stage stage, const tc_target *target,
                              const tc_codegen_options *opts);
/* Runs *module to `stage` and returns what that stage is: IR text (tile to llvm-dialect),
 * the analyses' text, or the backend's LLVM IR, assembly or object bytes. *out is
 * malloc'ed; *len (if len) its length. The module may be replaced (the caller destroys it). */
tilec_status *tc_pipeline_output(MlirModule *module, tc_stage stage, const tc_target *target,
                                 const tc_codegen_options *opts, char **out, size_t *len);
/* Prints a module (or op) to a malloc'ed string. */
char *tc_module_to_string(MlirOperation op);

#endif
