/* target/target.c — host feature detection and named x86-64 levels / AArch64.
 * In: a target name. Out: triple/cpu/features and the native vector width, taken from
 * the real features (never AVX-512 names on an AVX2 machine). */
#include "target/target.h"

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static bool has_feature(const char *features, const char *f) {
  size_t n = strlen(f);
  for (const char *p = features; (p = strstr(p, f)) != NULL; p += n) {
    bool start_ok = p == features || p[-1] == ',';
    bool end_ok = p[n] == 0 || p[n] == ',';
    if (start_ok && end_ok) return true;
  }
  return false;
}

static void copy(char *dst, size_t n, const char *src) { snprintf(dst, n, "%s", src ? src : ""); }

static tilec_status *tc_target_init_named(tc_target *t, const char *name);

/* The architecture tilec itself was built for: code for any other one is cross-compiled. */
static void mark_cross(tc_target *t) {
#if defined(__x86_64__)
  t->is_cross = !t->is_x86;
#elif defined(__aarch64__)
  t->is_cross = !t->is_aarch64;
#else
  t->is_cross = true;
#endif
}

tilec_status *tc_target_init(tc_target *t, const char *name) {
  tilec_status *st = tc_target_init_named(t, name);
  if (!st) mark_cross(t);
  return st;
}

static tilec_status *tc_target_init_named(tc_target *t, const char *name) {
  memset(t, 0, sizeof *t);
  if (!name || !*name) name = "host";
  copy(t->name, sizeof t->name, name);
  if (!strcmp(name, "host")) {
    char *triple = LLVMGetDefaultTargetTriple();
    char *cpu = LLVMGetHostCPUName();
    char *feat = LLVMGetHostCPUFeatures();
    copy(t->triple, sizeof t->triple, triple);
    copy(t->cpu, sizeof t->cpu, cpu);
    copy(t->features, sizeof t->features, feat);
    LLVMDisposeMessage(triple);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(feat);
    t->is_x86 = strncmp(t->triple, "x86_64", 6) == 0;
    t->is_aarch64 = strncmp(t->triple, "aarch64", 7) == 0;
    t->has_avx512f = has_feature(t->features, "+avx512f");
    t->has_avx2 = has_feature(t->features, "+avx2");
    t->has_fma = has_feature(t->features, "+fma");
    t->has_avx512vnni = t->has_avx512f && has_feature(t->features, "+avx512vnni");
    t->has_avx512bf16 = t->has_avx512f && has_feature(t->features, "+avx512bf16");
    t->vector_bits = t->has_avx512f ? 512 : (t->has_avx2 || has_feature(t->features, "+avx")) ? 256 : 128;
    return NULL;
  }
  static const struct {
    const char *name;
    const char *features;
    int bits;
  } levels[] = {
      {"x86-64-v2", "+sse4.2,+popcnt,+cx16,+sahf", 128},
      {"x86-64-v3", "+avx,+avx2,+bmi,+bmi2,+f16c,+fma,+lzcnt,+movbe,+xsave,+sse4.2,+popcnt", 256},
      {"x86-64-v4",
       "+avx,+avx2,+bmi,+bmi2,+f16c,+fma,+lzcnt,+movbe,+xsave,+sse4.2,+popcnt,"
       "+avx512f,+avx512bw,+avx512cd,+avx512dq,+avx512vl",
       512},
  };
  for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
    if (strcmp(name, levels[i].name)) continue;
    copy(t->triple, sizeof t->triple, "x86_64-pc-linux-gnu");
    copy(t->cpu, sizeof t->cpu, name);
    copy(t->features, sizeof t->features, levels[i].features);
    t->is_x86 = true;
    t->vector_bits = levels[i].bits;
    t->has_avx512f = levels[i].bits == 512;
    t->has_avx2 = t->has_fma = levels[i].bits >= 256;
    return NULL;
  }
  if (!strcmp(name, "aarch64")) {
    copy(t->triple, sizeof t->triple, "aarch64-unknown-linux-gnu");
    copy(t->cpu, sizeof t->cpu, "generic");
    copy(t->features, sizeof t->features, "+neon,+fp-armv8");
    t->is_aarch64 = true;
    t->has_fma = true;
    t->vector_bits = 128;
    return NULL;
  }
  if (!strcmp(name, "nvptx-emu")) {
    tilec_status *st = tc_target_init_named(t, "host");
    copy(t->name, sizeof t->name, name);
    t->gpu_emulation = true;
    t->num_warps = TC_DEFAULT_NUM_WARPS;
    t->num_stages = TC_DEFAULT_NUM_STAGES;
    return st;
  }
  if (!strcmp(name, "nvptx")) {
    copy(t->triple, sizeof t->triple, "nvptx64-nvidia-cuda");
    t->is_nvptx = true;
    t->vector_bits = 128; /* a thread's widest global access: ld.global.v4.f32 */
    return tc_target_set_gpu(t, NULL, 0, 0, NULL);
  }
  return tilec_status_create(
      TILEC_ERROR_INVALID_ARGUMENT,
      "unknown target '%s' (expected host, x86-64-v2, x86-64-v3, x86-64-v4, aarch64, nvptx or nvptx-emu)", name);
}

/* Chips LLVM 22's NVPTX backend knows, each with the PTX ISA LLVM picks for it when the
 * features are left empty — also the lowest it accepts: a chip/PTX pair LLVM cannot do
 * aborts the process, so both are checked here first. */
static const struct {
  const char *arch;
  int min_ptx; /* 10 x the PTX ISA version */
} gpu_archs[] = {{"sm_70", 60},   {"sm_72", 61},  {"sm_75", 63},   {"sm_80", 70},  {"sm_86", 71},
                 {"sm_87", 74},   {"sm_89", 78},  {"sm_90", 78},   {"sm_90a", 80}, {"sm_100", 86},
                 {"sm_100a", 86}, {"sm_101", 86}, {"sm_101a", 86}, {"sm_120", 87}, {"sm_120a", 87}};

/* PTX ISA versions LLVM 22 emits (its +ptxNN features). */
static const int ptx_versions[] = {32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65, 70, 71, 72, 73,
                                   74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90};

/* "8.0" -> 80; 0 when it is not MAJOR.MINOR with one-digit minor. */
static int parse_ptx(const char *v) {
  if (!v || v[0] < '1' || v[0] > '9' || v[1] != '.' || v[2] < '0' || v[2] > '9' || v[3]) return 0;
  return (v[0] - '0') * 10 + (v[2] - '0');
}

tilec_status *tc_target_check_num_warps(int *num_warps) {
  if (*num_warps == 0) *num_warps = TC_DEFAULT_NUM_WARPS;
  int n = *num_warps;
  if (n < 1 || n > TC_MAX_NUM_WARPS || (n & (n - 1)))
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "num_warps must be a power of 2 from 1 to %d (a CTA has at most %d threads), got %d",
                               TC_MAX_NUM_WARPS, TC_MAX_NUM_WARPS * TC_WARP_SIZE, n);
  return NULL;
}

tilec_status *tc_target_check_num_stages(int *num_stages) {
  if (*num_stages == 0) *num_stages = TC_DEFAULT_NUM_STAGES;
  int n = *num_stages;
  if (n < 1 || n > TC_MAX_NUM_STAGES)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "num_stages must be from 1 (no pipelining) to %d, got %d",
                               TC_MAX_NUM_STAGES, n);
  return NULL;
}

int tc_target_threads(const tc_target *t) { return TC_WARP_SIZE * t->num_warps; }

tilec_status *tc_target_set_gpu(tc_target *t, const char *arch, int num_warps, int num_stages,
                                const char *ptx_version) {
  if (t->gpu_emulation) {
    tilec_status *st = NULL;
    if ((arch && *arch) || ptx_version) /* checked; the chip kept (emu_arch) */
      st = tc_target_set_gpu(&(tc_target){.is_nvptx = true}, arch, 0, 0, ptx_version);
    if (!st) st = tc_target_check_num_warps(&num_warps);
    if (!st) st = tc_target_check_num_stages(&num_stages);
    if (st) return st;
    t->num_warps = num_warps;
    t->num_stages = num_stages;
    copy(t->emu_arch, sizeof t->emu_arch, arch ? arch : "");
    return NULL;
  }
  if (!t->is_nvptx) {
    if ((arch && *arch) || num_warps || num_stages || ptx_version)
      return tilec_status_create(
          TILEC_ERROR_INVALID_ARGUMENT,
          "--arch, --num-warps, --num-stages and --ptx-version apply to the nvptx target only (target is '%s')",
          t->name);
    return NULL;
  }
  if (!arch || !*arch) arch = "sm_80";
  int chip = -1;
  for (size_t i = 0; i < sizeof gpu_archs / sizeof gpu_archs[0]; i++)
    if (!strcmp(arch, gpu_archs[i].arch)) chip = (int)i;
  if (chip < 0) {
    char list[256] = "";
    for (size_t i = 0; i < sizeof gpu_archs / sizeof gpu_archs[0]; i++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", gpu_archs[i].arch);
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "unknown NVIDIA GPU architecture '%s' (expected one of %s)", arch, list);
  }
  int ptx = 0;
  if (ptx_version) {
    ptx = parse_ptx(ptx_version);
    bool known = false;
    for (size_t i = 0; i < sizeof ptx_versions / sizeof ptx_versions[0]; i++) known = known || ptx_versions[i] == ptx;
    if (!known)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                 "unknown PTX ISA version '%s' (expected MAJOR.MINOR from 3.2 to 9.0, e.g. 8.0)",
                                 ptx_version);
    if (ptx < gpu_archs[chip].min_ptx)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                 "PTX ISA %s cannot target %s: it needs PTX %d.%d or later", ptx_version, arch,
                                 gpu_archs[chip].min_ptx / 10, gpu_archs[chip].min_ptx % 10);
  }
  tilec_status *st = tc_target_check_num_warps(&num_warps);
  if (!st) st = tc_target_check_num_stages(&num_stages);
  if (st) return st;
  copy(t->cpu, sizeof t->cpu, arch);
  char features[16] = "";
  if (ptx) snprintf(features, sizeof features, "+ptx%d", ptx);
  copy(t->features, sizeof t->features, features);
  t->num_warps = num_warps;
  t->num_stages = num_stages;
  return NULL;
}

int tc_target_lanes(const tc_target *t, unsigned bits) {
  int n = t->vector_bits / (int)(bits ? bits : 32);
  return n < 1 ? 1 : n;
}

void tc_target_describe(const tc_target *t, char *buf, size_t n) {
  if (t->is_nvptx) snprintf(buf, n, "%s %s %d warps %d stages", t->triple, t->cpu, t->num_warps, t->num_stages);
  else snprintf(buf, n, "%s %s %d-bit", t->triple, t->cpu, t->vector_bits);
}

/* LLVM's target registry is process-wide: initialized once, whichever thread is first. */
static pthread_once_t targets_once = PTHREAD_ONCE_INIT;

static void init_targets(void) {
  LLVMInitializeAllTargetInfos();
  LLVMInitializeAllTargets();
  LLVMInitializeAllTargetMCs();
  LLVMInitializeAllAsmPrinters();
}

tilec_status *tc_target_machine(const tc_target *t, int opt_level, LLVMTargetMachineRef *out) {
  pthread_once(&targets_once, init_targets);
  LLVMTargetRef target;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(t->triple, &target, &err)) {
    tilec_status *s =
        tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "LLVM has no target for '%s': %s", t->triple, err ? err : "");
    LLVMDisposeMessage(err);
    return s;
  }
  LLVMCodeGenOptLevel lvl = opt_level <= 0   ? LLVMCodeGenLevelNone
                            : opt_level == 1 ? LLVMCodeGenLevelLess
                            : opt_level == 2 ? LLVMCodeGenLevelDefault
                                             : LLVMCodeGenLevelAggressive;
  *out = LLVMCreateTargetMachine(target, t->triple, t->cpu, t->features, lvl, LLVMRelocPIC, LLVMCodeModelDefault);
  if (!*out) return tilec_status_create(TILEC_ERROR_INTERNAL, "cannot create a target machine for %s", t->triple);
  return NULL;
}
