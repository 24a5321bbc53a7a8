/* target/target.h — what the code is compiled for: triple, CPU, features, and the
 * native vector width the lowering chunks tiles by. In: a target name ("host",
 * "x86-64-v2/v3/v4", "aarch64"). Out: a tc_target and an LLVM target machine. */
#ifndef TILEC_TARGET_TARGET_H
#define TILEC_TARGET_TARGET_H

#include "tilec/status.h"
#include <llvm-c/TargetMachine.h>
#include <stdbool.h>

typedef struct tc_target {
  char name[32]; /* as requested */
  char triple[96];
  char cpu[64];
  char features[4096];
  int vector_bits; /* 512 AVX-512, 256 AVX2, 128 SSE/NEON */
  bool is_x86, is_aarch64;
  bool is_cross; /* another architecture than the one tilec runs on */
  bool has_avx512f, has_avx2, has_fma;
  bool has_avx512vnni; /* VPDPWSSD for i8 dot */
  bool has_avx512bf16; /* VDPBF16PS for bf16 dot (host detection only: no named x86-64 level has it) */
  bool is_nvptx;       /* an NVIDIA GPU: cpu is the chip (sm_80 ...), one program = one CTA */
  bool gpu_emulation;  /* nvptx-emu: the nvptx lowering run on this CPU, a CTA's threads as threads */
  int num_warps;       /* nvptx: 32 * num_warps threads per CTA */
  char emu_arch[16];   /* nvptx-emu: the chip asked for (--arch), whose instructions it emulates
                        * where they differ (sm_90a: wgmma); "" = none */
  int num_stages;      /* nvptx: buffers a K loop's tl.dot operand loads cycle through (Triton's
                        * num_stages: loads run num_stages - 1 trips ahead); 0 = the default,
                        * TC_DEFAULT_NUM_STAGES; 1 = no pipelining */
} tc_target;

tilec_status *tc_target_init(tc_target *t, const char *name);
/* nvptx: the chip (NULL: sm_80), the warps per CTA (0: 4) and the pipeline stages (0: 3),
 * checked against what LLVM's NVPTX backend accepts (it aborts the process on an impossible
 * chip, so nothing else reaches it). nvptx-emu: the counts, and the chip (checked; kept in
 * emu_arch: sm_90a's wgmma is emulated) and PTX ISA (checked, not used). Other targets: all
 * must be unset. */
tilec_status *tc_target_set_gpu(tc_target *t, const char *arch, int num_warps, int num_stages, const char *ptx_version);
/* The one num_warps rule (nvptx, nvptx-emu): 0 means the default, else a power of 2 from 1
 * to TC_MAX_NUM_WARPS; *num_warps is set to the value used. */
#define TC_WARP_SIZE 32
#define TC_DEFAULT_NUM_WARPS 4
#define TC_MAX_NUM_WARPS 32     /* 1024 threads, a CTA's limit */
#define TC_DEFAULT_NUM_STAGES 3 /* Triton's default on sm_80+ */
/* At most 7 trips of operand loads in flight. Triton's tutorial configs use 2 to 5 stages
 * (tests/python/dropin: up to 5); 8 stages of a small tile (64x64 fp16 over K = 32: 8 KiB of
 * A and B a stage) already take 64 KiB of shared memory, and a 128x128x64 fp16 stage (32 KiB)
 * fits 7 times in sm_90's 227 KiB. A larger count would only take shared memory. */
#define TC_MAX_NUM_STAGES 8
tilec_status *tc_target_check_num_warps(int *num_warps);
/* The one num_stages rule (nvptx, nvptx-emu): 0 means the default, else 1 (no pipelining)
 * to TC_MAX_NUM_STAGES; *num_stages is set to the value used. */
tilec_status *tc_target_check_num_stages(int *num_stages);
/* Threads of one program (one CTA): TC_WARP_SIZE * num_warps. */
int tc_target_threads(const tc_target *t);
/* Lanes of a native vector for elements of `bits` bits (at least 1). */
int tc_target_lanes(const tc_target *t, unsigned bits);
/* "triple cpu features" summary for metadata (nvptx: "triple chip N warps N stages"). */
void tc_target_describe(const tc_target *t, char *buf, size_t n);
tilec_status *tc_target_machine(const tc_target *t, int opt_level, LLVMTargetMachineRef *out);

#endif
