/* backend/llvm_emit.c — the end of every LLVM-based backend: the LLVM-dialect module
 * translated to LLVM IR for the target's triple and data layout, optimized at the
 * requested level (with the backend's own steps before and after), and printed as IR or
 * emitted as assembly or an object file.
 * In: an LLVM-dialect module. Out: text or object bytes in memory. */
#include "backend/backend.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <mlir-c/Target/LLVMIR.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tilec_status *tc_llvm_emit(MlirModule module, tc_stage stage, const tc_target *target, const tc_codegen_options *opts,
                           tc_llvm_prepare prepare, tc_llvm_prepare finish, char **out, size_t *len) {
  LLVMContextRef lctx = LLVMContextCreate();
  tc_diag_capture cap;
  tc_diag_capture_begin(&cap, mlirModuleGetContext(module));
  LLVMModuleRef lm = mlirTranslateModuleToLLVMIR(mlirModuleGetOperation(module), lctx);
  tc_diag_capture_end(&cap);
  if (!lm) {
    LLVMContextDispose(lctx);
    return tilec_status_create(TILEC_ERROR_INTERNAL, "translation to LLVM IR failed: %s", cap.text);
  }
  LLVMTargetMachineRef tm;
  tilec_status *st = tc_target_machine(target, opts->opt_level, &tm);
  if (st) {
    LLVMDisposeModule(lm);
    LLVMContextDispose(lctx);
    return st;
  }
  LLVMSetTarget(lm, target->triple);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  char *layout = LLVMCopyStringRepOfTargetData(td);
  LLVMSetDataLayout(lm, layout);
  LLVMDisposeMessage(layout);
  LLVMDisposeTargetData(td);
  if (prepare) st = prepare(lm, target);
  char passes[32];
  snprintf(passes, sizeof passes, "default<O%d>", opts->opt_level < 0 ? 0 : opts->opt_level > 3 ? 3 : opts->opt_level);
  LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = st ? NULL : LLVMRunPasses(lm, passes, tm, pbo);
  LLVMDisposePassBuilderOptions(pbo);
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    st = tilec_status_create(TILEC_ERROR_INTERNAL, "LLVM optimization failed: %s", msg);
    LLVMDisposeErrorMessage(msg);
  }
  if (!st && finish) st = finish(lm, target);
  if (!st && stage == TC_STAGE_LLVM) {
    char *s = LLVMPrintModuleToString(lm);
    *len = strlen(s);
    *out = malloc(*len + 1);
    if (*out) memcpy(*out, s, *len + 1);
    else st = tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
    LLVMDisposeMessage(s);
  } else if (!st) {
    LLVMMemoryBufferRef mb = NULL;
    char *msg = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, lm, stage == TC_STAGE_ASM ? LLVMAssemblyFile : LLVMObjectFile, &msg,
                                            &mb)) {
      st = tilec_status_create(TILEC_ERROR_INTERNAL, "code generation failed: %s", msg ? msg : "");
      LLVMDisposeMessage(msg);
    } else {
      *len = LLVMGetBufferSize(mb);
      *out = malloc(*len + 1);
      if (*out) {
        memcpy(*out, LLVMGetBufferStart(mb), *len);
        (*out)[*len] = 0;
      } else {
        st = tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
      }
      LLVMDisposeMemoryBuffer(mb);
    }
  }
  LLVMDisposeTargetMachine(tm);
  LLVMDisposeModule(lm);
  LLVMContextDispose(lctx);
  return st;
}
