/* frontend/frontend.h — the front end's one entry point: Triton-syntax source + kernel
 * name + signature/defines in, a verified tile-dialect module and the kernel's parameter
 * metadata out. Errors point at file:line:col of the kernel source. */
#ifndef TILEC_FRONTEND_FRONTEND_H
#define TILEC_FRONTEND_FRONTEND_H

#include "tilec/abi.h"
#include "tilec/status.h"
#include "tilec/tilec.h"
#include <mlir-c/IR.h>

#define TC_MAX_PARAMS 128

typedef struct tc_kernel_param {
  char name[256];
  tilec_param_kind kind;
  tilec_dtype dtype; /* pointee for pointers */
  int pointer_depth;
  int divisibility; /* 1 when no hint */
  char value[256];  /* constexpr value as text (Python literal form); for a
                           * tensor descriptor its signature spelling */
  int desc_rank;    /* tensor descriptors: block rank and shape */
  int64_t desc_block[4];
} tc_kernel_param;

typedef struct tc_kernel_info {
  char name[128];
  char signature[2048]; /* normalized, one entry per parameter */
  int nparams;
  tc_kernel_param params[TC_MAX_PARAMS];
  bool uses_assert;    /* the program can stop: a failed device_assert (or, nvptx-emu, a CTA
                           * whose threads cannot start) */
  bool check_bounds;   /* compiled with bounds checks: the kernel takes extents */
  bool check_nan;      /* compiled with NaN/Inf store checks (the program can unwind) */
  char notes[4096];    /* tl.static_print output, one line per call */
  int cuda_capability; /* in: the NVIDIA chip compiled for (90: sm_90a), 0 for other targets: what
                        * tl.target_info.is_cuda() / cuda_capability_geq() answer */
  char warnings[4096]; /* Triton's compile-time warnings: "file:line:col: warning: text" lines */
} tc_kernel_info;

/* Parses spec->source, finds spec->kernel, specializes it and emits tile IR into a new
 * module of ctx. On failure nothing is left allocated. */
tilec_status *tc_frontend_compile(MlirContext ctx, const tilec_kernel_spec *spec, MlirModule *out,
                                  tc_kernel_info *info);

/* The Python files the front end would read for a FILE source's imports (sibling and
 * package modules, transitively, at most 64): cb(user, path, contents, length) once each,
 * for the JIT cache key (frontend/module_context.c). */
void tc_source_imports(const char *filename, const char *source, size_t len,
                       void (*cb)(void *user, const char *path, const char *text, size_t n), void *user);

/* C type spelling of a parameter for generated headers ("float *", "int32_t", ...). */
void tc_param_c_type(const tc_kernel_param *p, char *buf, size_t n);

#endif
