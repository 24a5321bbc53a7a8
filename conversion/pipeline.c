/* conversion/pipeline.c — the named steps after the front end, in one list: the tile → tile
 * rewrites (the dot-combine, the single-trip loop versions), our tile → vector lowering with
 * the backend's math library (SLEEF on CPUs), the upstream conversions to the LLVM dialect,
 * then the backend's code generation (backend/); `--emit STAGE` / `tilec opt --stage STAGE`
 * stop after any of them. In: a tile module and a target. Out: IR text, the analyses' text,
 * or an object file in memory. */
#include "conversion/pipeline.h"

#include "backend/backend.h"
#include "conversion/steps.h"
#include "dialects/ir_util.h"
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Pass.h>
#include <mlir-c/RegisterEverything.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The stages, in pipeline order (indexed by tc_stage): name, the API's number. */
static const struct {
  const char *name;
  tilec_stage api;
} stages[] = {
    [TC_STAGE_TILE] = {"tile", TILEC_STAGE_TILE},
    [TC_STAGE_DOT_COMBINE] = {"dot-combine", TILEC_STAGE_DOT_COMBINE},
    [TC_STAGE_SINGLE_TRIP_LOOPS] = {"single-trip-loops", TILEC_STAGE_SINGLE_TRIP_LOOPS},
    [TC_STAGE_ANALYSIS] = {"analysis", TILEC_STAGE_ANALYSIS},
    [TC_STAGE_VECTOR] = {"vector", TILEC_STAGE_VECTOR},
    [TC_STAGE_LLVM_DIALECT] = {"llvm-dialect", TILEC_STAGE_LLVM_DIALECT},
    [TC_STAGE_LLVM] = {"llvm", TILEC_STAGE_LLVM},
    [TC_STAGE_ASM] = {"asm", TILEC_STAGE_ASM},
    [TC_STAGE_OBJECT] = {"object", (tilec_stage)-1}, /* not printable: no name lookup finds it */
};

bool tc_stage_from_name(const char *name, tc_stage *out) {
  for (int i = 0; i < TC_STAGE_OBJECT; i++)
    if (!strcmp(name, stages[i].name)) {
      *out = (tc_stage)i;
      return true;
    }
  return false;
}

const char *tc_stage_name(tc_stage s) { return stages[s].name; }

bool tc_stage_from_api(tilec_stage api, tc_stage *out) {
  for (int i = 0; i < TC_STAGE_OBJECT; i++)
    if (stages[i].api == api) {
      *out = (tc_stage)i;
      return true;
    }
  return false;
}

tilec_stage tc_stage_api(tc_stage s) { return stages[s].api; }

typedef struct strbuf {
  char *data;
  size_t len, cap;
} strbuf;

static void strbuf_append(MlirStringRef s, void *user) {
  strbuf *b = user;
  if (b->len + s.length + 1 > b->cap) {
    size_t cap = (b->cap ? b->cap * 2 : 4096);
    while (cap < b->len + s.length + 1) cap *= 2;
    char *n = realloc(b->data, cap);
    if (!n) return;
    b->data = n;
    b->cap = cap;
  }
  memcpy(b->data + b->len, s.data, s.length);
  b->len += s.length;
  b->data[b->len] = 0;
}

char *tc_module_to_string(MlirOperation op) {
  strbuf b = {0};
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  mlirOpPrintingFlagsEnableDebugInfo(flags, false, false);
  mlirOperationPrintWithFlags(op, flags, strbuf_append, &b);
  mlirOpPrintingFlagsDestroy(flags);
  if (!b.data) b.data = calloc(1, 1);
  return b.data;
}

/* MLIR's pass registry is process-wide: registered once, whichever thread compiles first. */
static pthread_once_t passes_once = PTHREAD_ONCE_INIT;

static tilec_status *run_passes(MlirModule m, const char *pipeline, const char *what) {
  pthread_once(&passes_once, mlirRegisterAllPasses);
  MlirContext ctx = mlirModuleGetContext(m);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  strbuf err = {0};
  tc_diag_capture cap;
  tilec_status *st = NULL;
  if (mlirLogicalResultIsFailure(mlirParsePassPipeline(
          mlirPassManagerGetAsOpPassManager(pm), mlirStringRefCreateFromCString(pipeline), strbuf_append, &err))) {
    st = tilec_status_create(TILEC_ERROR_INTERNAL, "bad pass pipeline for %s: %s", what, err.data ? err.data : "");
  } else {
    tc_diag_capture_begin(&cap, ctx);
    MlirLogicalResult r = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(m));
    tc_diag_capture_end(&cap);
    if (mlirLogicalResultIsFailure(r)) st = tilec_status_create(TILEC_ERROR_INTERNAL, "%s failed: %s", what, cap.text);
  }
  free(err.data);
  mlirPassManagerDestroy(pm);
  return st;
}

static const char *to_llvm_pipeline =
    "builtin.module(convert-vector-to-scf{full-unroll=true}, convert-scf-to-cf, "
    "convert-vector-to-llvm, convert-math-to-llvm, expand-strided-metadata, "
    "finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, convert-func-to-llvm, "
    "convert-cf-to-llvm, reconcile-unrealized-casts, canonicalize)";

/* ---- the steps: each takes the module of the stage before it ---------------------------- */

static tilec_status *step_dot_combine(MlirModule *m, const tc_target *t, const tc_codegen_options *o) {
  (void)t, (void)o;
  tc_combine_dot_adds(*m);
  return NULL;
}

static tilec_status *step_single_trip_loops(MlirModule *m, const tc_target *t, const tc_codegen_options *o) {
  (void)o;
  tc_version_single_trip_loops(t, *m);
  return NULL;
}

static tilec_status *step_vector(MlirModule *m, const tc_target *t, const tc_codegen_options *o) {
  MlirModule vec;
  tilec_status *st = tc_lower_to_vector(*m, t, o->checks, &vec);
  if (st) return st;
  mlirModuleDestroy(*m);
  *m = vec;
  tc_diag_capture cap;
  tc_diag_capture_begin(&cap, mlirModuleGetContext(vec));
  bool ok = mlirOperationVerify(mlirModuleGetOperation(vec));
  tc_diag_capture_end(&cap);
  if (!ok) return tilec_status_create(TILEC_ERROR_INTERNAL, "the vector-stage IR does not verify: %s", cap.text);
  if ((st = run_passes(vec, "builtin.module(canonicalize, cse)", "vector-stage clean-up"))) return st;
  st = tc_backend_for(t)->lower_math(vec, t, o->fast_math);
  tc_strip_precise(mlirModuleGetOperation(vec)); /* the marker was for lower_math alone */
  return st;
}

static tilec_status *step_llvm_dialect(MlirModule *m, const tc_target *t, const tc_codegen_options *o) {
  (void)t;
  tilec_status *st = run_passes(*m, to_llvm_pipeline, "lowering to the LLVM dialect");
  /* -g: a DISubprogram per function turns the kernel-source locations into DWARF line
   * tables (gdb can break at kernel.py:LINE). */
  if (st || !o->debug_info) return st;
  st = run_passes(*m, "builtin.module(ensure-debug-info-scope-on-llvm-func{emission-kind=LineTablesOnly})",
                  "debug info");
  if (!st) tc_debug_scope_files(*m); /* helpers inlined from other files keep their file */
  return st;
}

/* The steps in order; the stages after llvm-dialect are the backend's emission of its module. */
static tilec_status *(*const steps[])(MlirModule *, const tc_target *, const tc_codegen_options *) = {
    [TC_STAGE_DOT_COMBINE] = step_dot_combine,
    [TC_STAGE_SINGLE_TRIP_LOOPS] = step_single_trip_loops,
    [TC_STAGE_VECTOR] = step_vector,
    [TC_STAGE_LLVM_DIALECT] = step_llvm_dialect,
};

tilec_status *tc_pipeline_run(MlirModule *module, tc_stage stage, const tc_target *target,
                              const tc_codegen_options *opts) {
  for (int s = 0; s <= (int)stage && s < (int)(sizeof steps / sizeof steps[0]); s++) {
    tilec_status *st = steps[s] ? steps[s](module, target, opts) : NULL;
    if (st) return st;
  }
  return NULL;
}

tilec_status *tc_pipeline_output(MlirModule *module, tc_stage stage, const tc_target *target,
                                 const tc_codegen_options *opts, char **out, size_t *len) {
  size_t n = 0;
  tilec_status *st = tc_pipeline_run(module, stage, target, opts);
  if (st) return st;
  if (stage == TC_STAGE_ANALYSIS) {
    st = tc_analysis_print(*module, out);
  } else if (stage <= TC_STAGE_LLVM_DIALECT) {
    *out = tc_module_to_string(mlirModuleGetOperation(*module));
  } else {
    st = tc_backend_for(target)->emit(*module, stage, target, opts, out, &n);
    if (len) *len = n;
    return st;
  }
  if (!st && len) *len = strlen(*out);
  return st;
}
