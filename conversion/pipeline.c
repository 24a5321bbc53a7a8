/* conversion/pipeline.c — runs the stages: our tile → vector lowering, the backend's math
 * library (SLEEF on CPUs), the upstream conversions to the LLVM dialect, then the
 * backend's code generation (backend/). In: a tile module and a target. Out: IR text or
 * an object file in memory. */
#include "conversion/pipeline.h"

#include "backend/backend.h"
#include "conversion/lower.h"
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Pass.h>
#include <mlir-c/RegisterEverything.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *stage_names[] = {"tile", "vector", "llvm-dialect", "llvm", "asm", "object"};

bool tc_stage_from_name(const char *name, tc_stage *out) {
  for (int i = 0; i <= TC_STAGE_ASM; i++)
    if (!strcmp(name, stage_names[i])) {
      *out = (tc_stage)i;
      return true;
    }
  return false;
}

const char *tc_stage_name(tc_stage s) { return stage_names[s]; }


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
  if (mlirLogicalResultIsFailure(mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                                       mlirStringRefCreateFromCString(pipeline), strbuf_append, &err))) {
    st = tilec_status_create(TILEC_ERROR_INTERNAL, "bad pass pipeline for %s: %s", what, err.data ? err.data : "");
  } else {
    tc_diag_capture_begin(&cap, ctx);
    MlirLogicalResult r = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(m));
    tc_diag_capture_end(&cap);
    if (mlirLogicalResultIsFailure(r))
      st = tilec_status_create(TILEC_ERROR_INTERNAL, "%s failed: %s", what, cap.text);
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

tilec_status *tc_pipeline_run(MlirModule *module, tc_stage stage, const tc_target *target,
                              const tc_codegen_options *opts) {
  if (stage == TC_STAGE_TILE) return NULL;
  MlirModule vec;
  tilec_status *st = tc_lower_to_vector(*module, target, opts->checks, &vec);
  if (st) return st;
  mlirModuleDestroy(*module);
  *module = vec;
  tc_diag_capture cap;
  tc_diag_capture_begin(&cap, mlirModuleGetContext(vec));
  bool ok = mlirOperationVerify(mlirModuleGetOperation(vec));
  tc_diag_capture_end(&cap);
  if (!ok) return tilec_status_create(TILEC_ERROR_INTERNAL, "the vector-stage IR does not verify: %s", cap.text);
  if ((st = run_passes(vec, "builtin.module(canonicalize, cse)", "vector-stage clean-up"))) return st;
  if ((st = tc_backend_for(target)->lower_math(vec, target, opts->fast_math))) return st;
  if (stage == TC_STAGE_VECTOR) return NULL;
  if ((st = run_passes(vec, to_llvm_pipeline, "lowering to the LLVM dialect"))) return st;
  /* -g: a DISubprogram per function turns the kernel-source locations into DWARF line
   * tables (gdb can break at kernel.py:LINE). */
  if (opts->debug_info) {
    st = run_passes(vec, "builtin.module(ensure-debug-info-scope-on-llvm-func{emission-kind=LineTablesOnly})",
                    "debug info");
    if (!st) tc_debug_scope_files(vec); /* helpers inlined from other files keep their file */
    return st;
  }
  return NULL;
}

tilec_status *tc_pipeline_emit(MlirModule module, tc_stage stage, const tc_target *target,
                               const tc_codegen_options *opts, char **out, size_t *len) {
  return tc_backend_for(target)->emit(module, stage, target, opts, out, len);
}
