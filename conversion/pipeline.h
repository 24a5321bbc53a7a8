/* conversion/pipeline.h — the stages after the front end, by name: tile → vector →
 * llvm-dialect → llvm (IR) → asm/object. In: a tile module. Out: the module advanced to a
 * stage, its text, or an object file; MLIR diagnostics are captured, never printed. */
#ifndef TILEC_CONVERSION_PIPELINE_H
#define TILEC_CONVERSION_PIPELINE_H

#include "target/target.h"
#include "dialects/builder.h"
#include "tilec/status.h"
#include "tilec/tilec.h" /* TILEC_CHECKS_* */
#include <mlir-c/IR.h>

typedef enum tc_stage {
  TC_STAGE_TILE = 0,
  TC_STAGE_VECTOR,
  TC_STAGE_LLVM_DIALECT,
  TC_STAGE_LLVM,
  TC_STAGE_ASM,
  TC_STAGE_OBJECT
} tc_stage;

typedef struct tc_codegen_options {
  int opt_level;     /* 0..3 */
  bool fast_math;    /* SLEEF _u35 and fast-math flags */
  bool debug_info;   /* DWARF line tables */
  uint32_t checks;   /* TILEC_CHECKS_* to instrument, as driver/checks.c resolved them */
} tc_codegen_options;

/* debug_files.c: after the debug-info pass, ops located in another file than their
 * function (inlined @jit helpers of other modules) get a DILexicalBlockFile scope naming it. */
void tc_debug_scope_files(MlirModule module);

/* Parses a stage name ("tile", "vector", "llvm-dialect", "llvm", "asm"). */
bool tc_stage_from_name(const char *name, tc_stage *out);
const char *tc_stage_name(tc_stage s);


/* Advances *module (tile stage, verified) up to `stage` (<= TC_STAGE_LLVM_DIALECT); the
 * module may be replaced. */
tilec_status *tc_pipeline_run(MlirModule *module, tc_stage stage, const tc_target *target,
                              const tc_codegen_options *opts);
/* From an LLVM-dialect module: LLVM IR text, assembly text, or object bytes
 * (TC_STAGE_LLVM/ASM/OBJECT), by the target's backend. *out is malloc'ed, *len set. */
tilec_status *tc_pipeline_emit(MlirModule module, tc_stage stage, const tc_target *target,
                               const tc_codegen_options *opts, char **out, size_t *len);
/* Prints a module (or op) to a malloc'ed string. */
char *tc_module_to_string(MlirOperation op);

#endif
