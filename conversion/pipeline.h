/* conversion/pipeline.h — the stages after the front end, by name, in order: tile (the front
 * end's IR) → dot-combine → single-trip-loops (tile → tile steps) → analysis (a view of that
 * IR, not a step) → vector → llvm-dialect → llvm (IR) → asm/object. In: a tile module. Out:
 * the module advanced to a stage, its text, or an object file; MLIR diagnostics are captured,
 * never printed. */
#ifndef TILEC_CONVERSION_PIPELINE_H
#define TILEC_CONVERSION_PIPELINE_H

#include "dialects/builder.h"
#include "target/target.h"
#include "tilec/status.h"
#include "tilec/tilec.h" /* TILEC_CHECKS_* */
#include <mlir-c/IR.h>

/* Where the pipeline stops, in pipeline order; each stage but analysis is the module after
 * the step of its name (the table in pipeline.c; the API's tilec_stage numbers them apart). */
typedef enum tc_stage {
  TC_STAGE_TILE = 0,          /* the front end's tile IR (no step) */
  TC_STAGE_DOT_COMBINE,       /* tile → tile: acc += dot(a, b) accumulates in the dot (combine.c) */
  TC_STAGE_SINGLE_TRIP_LOOPS, /* tile → tile: single-trip versions of accumulation loops (version_loops.c) */
  TC_STAGE_ANALYSIS,          /* not IR: the analyses the lowering decides from, of the IR above (analysis.c) */
  TC_STAGE_VECTOR,            /* tile → vector/scf/arith/memref (lower.c), clean-up, the math library */
  TC_STAGE_LLVM_DIALECT,      /* upstream conversions to the LLVM dialect (+ debug info) */
  TC_STAGE_LLVM,              /* the backend's LLVM IR, optimized */
  TC_STAGE_ASM,               /* the backend's assembly */
  TC_STAGE_OBJECT             /* the backend's object file (not a printable stage) */
} tc_stage;

typedef struct tc_codegen_options {
  int opt_level;   /* 0..3 */
  bool fast_math;  /* SLEEF _u35 and fast-math flags */
  bool debug_info; /* DWARF line tables */
  uint32_t checks; /* TILEC_CHECKS_* to instrument, as driver/checks.c resolved them */
} tc_codegen_options;

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
