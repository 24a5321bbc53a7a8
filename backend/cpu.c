/* backend/cpu.c — the CPU backend (x86-64 with SSE/AVX2/AVX-512, AArch64 with NEON):
 * chunks are native vector registers, nests are scf.for loops over chunks
 * (conversion/nest.c), vector math goes to SLEEF (sleef-glue/), prefetches are
 * memref.prefetch, i8 dot uses AVX512-VNNI and bf16 dot AVX512-BF16 where the CPU has
 * them, and LLVM generates the code for the target's CPU and features.
 * In: a target. Out: tc_backend_cpu. */
#include "backend/backend.h"

#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "sleef-glue/sleef_glue.h"
#include <llvm-c/Core.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

static int chunk_bits(const tc_target *t) { return t->vector_bits; }

static int vector_registers(const tc_target *t) { return t->vector_bits >= 512 || t->is_aarch64 ? 32 : 16; }

/* x86: select(x > acc, x, acc) is one vmaxps, where maxnum needs vmaxps, a NaN test and a
 * blend per chunk (conversion/reduce.c recomputes the rare all-NaN row exactly). */
static bool select_minmax(const tc_target *t) { return t->is_x86; }

/* Reads are prefetched for the next trip of a loop (conversion/memory.c), a whole tl.dot or
 * row pass ahead: into L2 (locality 2: prefetcht1), since the L1 lines would be evicted by
 * the trip's own working set first (the tutorial matmul, 64x128x32 tiles, N = 2048, 1
 * thread: 205 -> 192 ms; its A/B copies 25% -> 18% of the samples). Writes (a store's line
 * during the pass before it) go to L1. */
static void prefetch(tc_builder *b, MlirValue view, MlirValue index, bool write) {
  MlirValue ops[2] = {view, index};
  MlirNamedAttribute attrs[3] = {
      tcb_named(b->ctx, "isWrite", mlirBoolAttrGet(b->ctx, write)),
      tcb_named(b->ctx, "localityHint", mlirIntegerAttrGet(tcb_int_type(b->ctx, 32), write ? 3 : 2)),
      tcb_named(b->ctx, "isDataCache", mlirBoolAttrGet(b->ctx, 1)),
  };
  tcb_op(b, "memref.prefetch", 0, NULL, 2, ops, 3, attrs);
}

/* VPDPWSSD (AVX512-VNNI): in each of 16 i32 lanes, the sum of two signed 16-bit products.
 * VDPBF16PS (AVX512-BF16): in each of 16 f32 lanes, acc + the two bf16 products, each
 * product exact, the sums rounded to nearest even whatever MXCSR says, denormal inputs
 * and outputs flushed to zero. */
static int64_t pair_dot_lanes(const tc_target *t, tc_pair_kind kind) {
  return (kind == TC_PAIR_I16 ? t->has_avx512vnni : t->has_avx512bf16) ? 16 : 0;
}

static MlirValue pair_dot(tc_builder *b, tc_pair_kind kind, MlirValue acc, MlirValue a, MlirValue bv) {
  MlirContext ctx = b->ctx;
  int64_t n = 32;
  /* the intrinsics take <32 x i16> / <32 x bfloat> */
  MlirType v32 = mlirVectorTypeGet(1, &n, kind == TC_PAIR_I16 ? tcb_int_type(ctx, 16) : mlirBF16TypeGet(ctx));
  const char *intrin = kind == TC_PAIR_I16 ? "llvm.x86.avx512.vpdpwssd.512" : "llvm.x86.avx512bf16.dpbf16ps.512";
  MlirValue ops[3] = {acc, tcb_cast(b, "vector.bitcast", a, v32), tcb_cast(b, "vector.bitcast", bv, v32)};
  return tcb_intrinsic(b, intrin, mlirValueGetType(acc), 3, ops);
}

/* Every function gets the target's CPU and features so the optimizer vectorizes for what
 * the machine really has. */
tilec_status *tc_backend_cpu_prepare(LLVMModuleRef m, const tc_target *t) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    LLVMAddTargetDependentFunctionAttr(f, "target-cpu", t->cpu);
    LLVMAddTargetDependentFunctionAttr(f, "target-features", t->features);
  }
  return NULL;
}

static tilec_status *emit(MlirModule module, tc_stage stage, const tc_target *t, const tc_codegen_options *opts,
                          char **out, size_t *len) {
  return tc_llvm_emit(module, stage, t, opts, tc_backend_cpu_prepare, NULL, out, len);
}

const tc_backend tc_backend_cpu = {
    .name = "cpu",
    .chunk_bits = chunk_bits,
    .vector_registers = vector_registers,
    .select_minmax = select_minmax,
    .emit_nest = tc_emit_chunked_nest,
    .op_rows = tc_op_rows,
    .heap_buffers = true,
    .transpose_in_registers = true,
    .prefetch = prefetch,
    .pair_dot_lanes = pair_dot_lanes,
    .pair_dot = pair_dot,
    .lower_math = tc_sleef_glue,
    .emit = emit,
};

const tc_backend *tc_backend_for(const tc_target *t) {
  if (t->is_nvptx) return &tc_backend_nvptx;
  if (t->gpu_emulation) return &tc_backend_nvptx_emu;
  return &tc_backend_cpu;
}
