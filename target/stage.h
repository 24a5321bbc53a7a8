/* target/stage.h — where a compilation stops and how its code is generated: the stage enum
 * and the code generation options. Shared by the pipeline that runs the stages
 * (conversion/pipeline.h) and the code generators it asks for the last ones
 * (backend/backend.h: lower_math, emit), so that neither includes the other's header.
 * In: nothing. Out: the two types. */
#ifndef TILEC_TARGET_STAGE_H
#define TILEC_TARGET_STAGE_H

#include <stdbool.h>
#include <stdint.h>

/* Where the pipeline stops, in pipeline order; each stage but analysis is the module after
 * the step of its name (the table in conversion/pipeline.c; the API's tilec_stage numbers
 * them apart). */
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
  bool fp_fusion;  /* GPU backends: a * b + c may become one fma (Triton's enable_fp_fusion) */
} tc_codegen_options;

#endif
