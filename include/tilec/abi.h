/* tilec/abi.h — the binary contract between a compiled kernel library and the runtime.
 * A kernel library (.so) exports `tilec_library_abi_version` and `tilec_kernels`, a
 * NULL-terminated array of kernel descriptors; the runtime checks the version before it
 * touches anything else. The compiler pastes this header into every generated stub, so it
 * must stay self-contained (stdint only). Bump TILEC_ABI_VERSION on any layout change. */
#ifndef TILEC_ABI_H
#define TILEC_ABI_H

#include <stdint.h>

#define TILEC_ABI_VERSION 1u

/* Element types, shared by signatures, metadata and .npy binding. */
typedef enum tilec_dtype {
  TILEC_DTYPE_INVALID = 0,
  TILEC_DTYPE_I1, TILEC_DTYPE_I8, TILEC_DTYPE_I16, TILEC_DTYPE_I32, TILEC_DTYPE_I64,
  TILEC_DTYPE_U8, TILEC_DTYPE_U16, TILEC_DTYPE_U32, TILEC_DTYPE_U64,
  TILEC_DTYPE_F16, TILEC_DTYPE_BF16, TILEC_DTYPE_F32, TILEC_DTYPE_F64,
  TILEC_DTYPE_FP8E5, TILEC_DTYPE_FP8E4NV,
  TILEC_DTYPE_FP8E4B15, TILEC_DTYPE_FP8E4B8, TILEC_DTYPE_FP8E5B16, /* appended: values above unchanged */
  TILEC_DTYPE_COUNT
} tilec_dtype;

typedef enum tilec_param_kind {
  TILEC_PARAM_POINTER = 1,   /* runtime pointer: args[i] points at a `T *` */
  TILEC_PARAM_SCALAR = 2,    /* runtime scalar: args[i] points at the value (its C type) */
  TILEC_PARAM_CONSTEXPR = 3  /* compile-time value: not passed at launch */
} tilec_param_kind;

typedef struct tilec_param_desc {
  const char *name;          /* parameter name in the kernel source */
  uint32_t kind;             /* tilec_param_kind */
  uint32_t dtype;            /* tilec_dtype: pointee for pointers, type for scalars */
  uint32_t pointer_depth;    /* 1 for *T, 2 for **T; 0 otherwise */
  uint32_t divisibility;     /* :16 hint (1 when none) */
  const char *value;         /* constexpr value as written, else NULL */
} tilec_param_desc;

/* What the launcher hands each program (the program function's ctx argument). Kernels
 * compiled with bounds checks read `extents`: the element count of each runtime argument
 * (meaningful for pointers; -1 = unknown, not checked). NULL ctx = nothing known. */
typedef struct tilec_program_ctx {
  const int64_t *extents;
} tilec_program_ctx;

/* Runs one program instance. args has one entry per runtime (non-constexpr) parameter,
 * in order; pid and grid are (x, y, z). ctx is the launch's debug context (may be NULL);
 * the return value is 0, or non-zero when the program stopped on a checked error that
 * it recorded in ctx. */
typedef int (*tilec_program_fn)(void *const *args, const uint32_t pid[3],
                                 const uint32_t grid[3], void *ctx);

typedef struct tilec_kernel_desc {
  uint32_t abi_version;      /* TILEC_ABI_VERSION of the compiler that built it */
  uint32_t struct_size;      /* sizeof(tilec_kernel_desc) for that compiler */
  const char *name;          /* kernel name */
  const char *signature;     /* signature as given to the compiler */
  const char *target;        /* target triple + cpu + features */
  const char *source_file;   /* kernel source path as given */
  const char *tilec_version; /* compiler version string */
  uint32_t num_params;       /* all parameters, constexprs included */
  uint32_t num_args;         /* runtime parameters (length of args at launch) */
  const tilec_param_desc *params;
  tilec_program_fn program;
} tilec_kernel_desc;

#endif
