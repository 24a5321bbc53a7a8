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
  TILEC_DTYPE_I1,
  TILEC_DTYPE_I8,
  TILEC_DTYPE_I16,
  TILEC_DTYPE_I32,
  TILEC_DTYPE_I64,
  TILEC_DTYPE_U8,
  TILEC_DTYPE_U16,
  TILEC_DTYPE_U32,
  TILEC_DTYPE_U64,
  TILEC_DTYPE_F16,
  TILEC_DTYPE_BF16,
  TILEC_DTYPE_F32,
  TILEC_DTYPE_F64,
  TILEC_DTYPE_FP8E5,
  TILEC_DTYPE_FP8E4NV,
  TILEC_DTYPE_FP8E4B15,
  TILEC_DTYPE_FP8E4B8,
  TILEC_DTYPE_FP8E5B16, /* appended: values above unchanged */
  TILEC_DTYPE_COUNT
} tilec_dtype;

typedef enum tilec_param_kind {
  TILEC_PARAM_POINTER = 1,   /* runtime pointer: args[i] points at a `T *` */
  TILEC_PARAM_SCALAR = 2,    /* runtime scalar: args[i] points at the value (its C type) */
  TILEC_PARAM_CONSTEXPR = 3, /* compile-time value: not passed at launch */
  TILEC_PARAM_TENSORDESC = 4 /* tensor descriptor (signature "tensordesc<fp16[64, 64]>"): args[i]
                              * points at a tilec_tensor_descriptor; the param's dtype is the
                              * element type and its `value` the signature spelling, which
                              * gives the block shape (and so the rank) */
} tilec_param_kind;

/* A tensor descriptor argument (Triton's host TensorDescriptor(base, shape, strides,
 * block_shape, padding)): what a kernel parameter of type tensordesc<T[B0, ..., Bk]> reads
 * at run time. The block shape is compiled in (the signature); everything here is a runtime
 * value. Rank r = number of block dimensions (1..TILEC_TENSOR_DESC_MAX_RANK); entries past
 * r are ignored.
 *   base      address of element (0, ..., 0) (16-byte aligned in Triton; not required here)
 *   shape     elements per dimension (> 0); loads outside [0, shape) read the padding value,
 *             stores and atomics there are dropped
 *   strides   distance between neighbours per dimension, in elements; strides[r-1] must be
 *             1 (Triton: "last dimension must be contiguous"), the launch checks it
 *   padding   0: out-of-bounds loads read 0 ("zero"), 1: NaN ("nan", float types only)
 * The generated kernel header declares the same struct (guarded by the macro below), and a
 * KERNEL_launch function takes it by value; the void ** launch API takes a pointer to it.
 * On a GPU (--target nvptx) the kernel's parameter is the struct itself, by value (one
 * `.param .align 8 .b8 [80]`): cuLaunchKernel copies the 80 bytes args[i] points at, so
 * args[] is the same for both targets and base is a device pointer there. */
#define TILEC_TENSOR_DESC_MAX_RANK 4
#ifndef TILEC_TENSOR_DESCRIPTOR_DEFINED
#define TILEC_TENSOR_DESCRIPTOR_DEFINED
typedef struct tilec_tensor_descriptor {
  void *base;
  int64_t shape[TILEC_TENSOR_DESC_MAX_RANK];
  int64_t strides[TILEC_TENSOR_DESC_MAX_RANK];
  int64_t padding;
} tilec_tensor_descriptor;
#endif

typedef struct tilec_param_desc {
  const char *name;       /* parameter name in the kernel source */
  uint32_t kind;          /* tilec_param_kind */
  uint32_t dtype;         /* tilec_dtype: pointee for pointers, type for scalars */
  uint32_t pointer_depth; /* 1 for *T, 2 for **T; 0 otherwise */
  uint32_t divisibility;  /* :16 hint (1 when none) */
  const char *value;      /* constexpr value as written, else NULL */
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
typedef int (*tilec_program_fn)(void *const *args, const uint32_t pid[3], const uint32_t grid[3], void *ctx);

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
