/* tilec/tilec.h — the compiler API: Triton-syntax kernel source in, IR text or a kernel
 * library (.so + C header) out. Every call returns a tilec_status (NULL on success);
 * nothing here prints, exits or aborts. */
#ifndef TILEC_TILEC_H
#define TILEC_TILEC_H

#include <stdbool.h>
#include <stddef.h>

#include "tilec/abi.h"
#include "tilec/status.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *tilec_version(void);

typedef struct tilec_compile_options {
  const char *target;  /* "host" (default), "x86-64-v2", "x86-64-v3", "x86-64-v4", "aarch64" */
  int opt_level;       /* 0..3, default 3 */
  bool fast_math;      /* SLEEF _u35 variants where they exist */
  bool debug_info;     /* DWARF line tables pointing at the kernel source */
} tilec_compile_options;

void tilec_compile_options_init(tilec_compile_options *opts);

typedef struct tilec_compiler tilec_compiler;

/* Creates a compiler (one MLIR context; not thread-safe: use one per thread). */
tilec_status *tilec_compiler_create(const tilec_compile_options *opts, tilec_compiler **out);
void tilec_compiler_destroy(tilec_compiler *c);

/* A named compile-time value or parameter type: NAME=VALUE, VALUE in signature syntax
 * ("*fp32:16", "i32", "1024", "0.5", "True", "leaky_relu"). */
typedef struct tilec_define {
  const char *name;
  const char *value;
} tilec_define;

typedef struct tilec_kernel_spec {
  const char *source;       /* kernel file contents */
  size_t source_len;
  const char *filename;     /* for diagnostics and debug info */
  const char *kernel;       /* name of the @triton.jit function */
  const char *signature;    /* Triton AOT signature, positional; may be NULL */
  const tilec_define *defines; /* by name; override/complete the signature */
  size_t num_defines;
} tilec_kernel_spec;

typedef enum tilec_stage {
  TILEC_STAGE_TILE = 0,     /* tile dialect, as the front end emits it */
  TILEC_STAGE_VECTOR,       /* vector/scf/arith/memref after tile lowering and SLEEF glue */
  TILEC_STAGE_LLVM_DIALECT, /* MLIR LLVM dialect */
  TILEC_STAGE_LLVM,         /* optimized LLVM IR */
  TILEC_STAGE_ASM           /* target assembly */
} tilec_stage;

/* Parses "tile", "vector", "llvm-dialect", "llvm", "asm". */
bool tilec_stage_from_name(const char *name, tilec_stage *out);

/* Compiles the kernel up to `stage` and returns its text (malloc'ed; free() it). */
tilec_status *tilec_compiler_emit(tilec_compiler *c, const tilec_kernel_spec *spec, tilec_stage stage,
                                  char **text_out);

/* Compiles the kernel into a shared library at so_path (linked against the tilec runtime
 * and SLEEF) and, when header_path is non-NULL, writes a C header declaring
 *   int KERNEL_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, <runtime params>); */
tilec_status *tilec_compiler_build_library(tilec_compiler *c, const tilec_kernel_spec *spec, const char *so_path,
                                           const char *header_path);

/* Parses tile-dialect IR text, verifies it and runs the pipeline up to `stage`. */
tilec_status *tilec_compiler_opt(tilec_compiler *c, const char *mlir_text, tilec_stage stage, char **text_out);

/* The parameters of a kernel as written in the source (before specialization). */
typedef struct tilec_source_param {
  char name[96];
  bool is_constexpr; /* annotated `tl.constexpr` */
  bool has_default;
} tilec_source_param;

/* Lists the parameters of `kernel` in `source` (up to max; *count is the total). */
tilec_status *tilec_inspect_kernel(const char *source, size_t len, const char *filename, const char *kernel,
                                   tilec_source_param *params, int max, int *count);

#ifdef __cplusplus
}
#endif
#endif
