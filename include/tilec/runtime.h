/* tilec/runtime.h — the runtime API: load a compiled kernel library, look up its kernels,
 * launch a kernel over a 3-D grid of programs on an OpenMP team, and name element types.
 * In: library paths, kernel descriptors, grids, argument pointers. Out: tilec_status (NULL = ok).
 */
#ifndef TILEC_RUNTIME_H
#define TILEC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "tilec/abi.h"
#include "tilec/export.h"
#include "tilec/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- kernel libraries ------------------------------------------------------------------ */

/* A loaded kernel library: the dlopen handle plus its validated kernel table. */
typedef struct tilec_library tilec_library;

/* Loads the kernel library at `path` with dlopen(RTLD_NOW | RTLD_LOCAL). A path without a
 * '/' names a file in the current directory (not a search of the loader's library path).
 * Checks that the library exports `tilec_library_abi_version` equal to TILEC_ABI_VERSION and
 * a NULL-terminated `tilec_kernels` table whose descriptors all match this runtime's ABI
 * version and struct size, have a name and a program function, and have distinct names.
 * Errors: TILEC_ERROR_NOT_FOUND (no such file; symbol missing, i.e. not a tilec library),
 * TILEC_ERROR_IO (the loader refused the file), TILEC_ERROR_ABI (version/size mismatch),
 * TILEC_ERROR_INVALID_ARGUMENT (malformed descriptor or bad arguments).
 * On success *out owns the library; release it with tilec_library_unload. On error *out is
 * NULL and nothing stays loaded. */
TILEC_API tilec_status *tilec_library_load(const char *path, tilec_library **out);

/* Unloads the library (dlclose) and frees it. Every descriptor obtained from it becomes
 * invalid. NULL is a no-op. */
TILEC_API void tilec_library_unload(tilec_library *lib);

/* The path the library was loaded from (owned by the library). */
TILEC_API const char *tilec_library_path(const tilec_library *lib);

/* Number of kernels in the library. */
TILEC_API size_t tilec_library_kernel_count(const tilec_library *lib);

/* The i-th kernel in table order, or NULL when i is out of range. Owned by the library. */
TILEC_API const tilec_kernel_desc *tilec_library_kernel_at(const tilec_library *lib, size_t i);

/* Finds a kernel by exact name. On success *out points into the library (not owned by the
 * caller). TILEC_ERROR_NOT_FOUND lists the names the library does have. */
TILEC_API tilec_status *tilec_library_find_kernel(const tilec_library *lib, const char *name,
                                                  const tilec_kernel_desc **out);

/* ---- debug checks ---------------------------------------------------------------------- */

/* The classes of checks a kernel can be compiled with (tilec_compile_options.checks,
 * `--check all|LIST`, TILEC_CHECK); failures make the launch return TILEC_ERROR_RUNTIME
 * naming the kernel source line. */
#define TILEC_CHECKS_BOUNDS 0x1u /* every active lane of every access against its buffer's extent */
#define TILEC_CHECKS_NAN 0x2u    /* a NaN/Inf stored when the program loaded none */
#define TILEC_CHECKS_RACES                                                                                             \
  0x4u /* two programs of one launch accessing one element, at least one
                                  * storing, neither through atomics nor under a lock */
#define TILEC_CHECKS_INIT                                                                                              \
  0x8u /* a load of an element of memory marked uninitialized
                                  * (below) that no store wrote since */
#define TILEC_CHECKS_ALL 0xfu

/* --check init: marks bytes [base, base + bytes) as not yet written, as a fresh allocation
 * is (`tilec run`'s NAME=empty:DTYPE:SHAPE arrays, tilec.debug.uninitialized in Python).
 * Kernels compiled with init checks then report a load of a byte of it that no store of a
 * checked kernel wrote since, naming the load's source line, the element and the program;
 * their stores mark what they write. The marks last until tilec_debug_forget (also across
 * launches: what one launch stores, the next may load); marking the same range again
 * clears them. What the host writes is not seen: mark memory before anything writes it.
 * A load of what another program of the same launch stores is a race (--check races), and
 * whether it counts as written depends on the timing. Errors: TILEC_ERROR_INVALID_ARGUMENT
 * for NULL, no bytes, or a range that overlaps another marked range. Thread-safe; the
 * range must stay marked while a launch that uses it runs. */
TILEC_API tilec_status *tilec_debug_mark_uninitialized(const void *base, size_t bytes);
/* Forgets the range marked at base (before its memory is freed or reused); 1 when there
 * was one, else 0. */
TILEC_API int tilec_debug_forget(const void *base);

/* ---- launching ------------------------------------------------------------------------- */

typedef enum tilec_schedule {
  TILEC_SCHEDULE_STATIC = 0, /* one contiguous chunk of programs per thread */
  TILEC_SCHEDULE_DYNAMIC = 1 /* threads take small chunks as they finish: uneven programs */
} tilec_schedule;

/* Triton's grid limits (CUDA's: x up to 2^31 - 1 programs, y and z up to 65535). tl.program_id
 * and tl.num_programs are 32-bit signed integers in Triton's language, so a larger x would give
 * negative program ids; launches beyond these limits are refused, as Triton refuses them. */
#define TILEC_MAX_GRID_X 2147483647u
#define TILEC_MAX_GRID_YZ 65535u

/* Upper bound on the team size a launch may ask for (options or TILEC_NUM_THREADS): libomp
 * aborts the process when it cannot create the threads, so absurd requests are refused. */
#define TILEC_MAX_THREADS 4096u

typedef struct tilec_launch_options {
  uint32_t num_threads;   /* 0: TILEC_NUM_THREADS from the environment, else OpenMP's default */
  uint32_t schedule;      /* tilec_schedule */
  uint64_t first_program; /* sub-range [first_program, first_program + program_count) of the */
  uint64_t program_count; /* flattened grid; UINT64_MAX = up to the end of the grid */
  /* Element count of the buffer behind each runtime argument (one entry per argument,
   * -1 = unknown), for kernels compiled with bounds checks; NULL = nothing known. The
   * array is read during the launch only. Race checks (check_races) use it to tell which
   * arguments' memory may overlap (their loads are then checked too; unknown extents count
   * as overlapping); several checked launches may run at once. */
  const int64_t *buffer_extents;
} tilec_launch_options;

/* Fills the defaults: 0 threads (environment/OpenMP), static schedule, the whole grid. */
TILEC_API void tilec_launch_options_init(tilec_launch_options *opts);

/* Runs programs [first, first + count) of the grid (grid_x, grid_y, grid_z), flattened
 * x-fastest: program p has x = p % gx, y = (p / gx) % gy, z = p / (gx * gy). `args` holds
 * one pointer per runtime parameter (kernel->num_args), borrowed for the call. `opts` may be
 * NULL (defaults). An empty grid or sub-range returns NULL at once; one program runs on the
 * calling thread; otherwise an OpenMP team of at most one thread per program runs them.
 * TILEC_NUM_THREADS is only read when more than one program runs. A program that returns
 * non-zero stops the launch (programs not yet started are skipped) and the launch returns
 * TILEC_ERROR_RUNTIME naming the lowest failing program that ran. Thread-safe: several host
 * threads may launch at once. The caller destroys the returned status. */
TILEC_API tilec_status *tilec_kernel_launch(const tilec_kernel_desc *kernel, uint32_t grid_x, uint32_t grid_y,
                                            uint32_t grid_z, void *const *args, const tilec_launch_options *opts);

/* tilec_kernel_launch after checks a caller with untyped arguments wants: num_args must
 * equal kernel->num_args, and no pointer parameter may be NULL (`*(void **)args[i]`).
 * Errors are TILEC_ERROR_INVALID_ARGUMENT naming the kernel and the parameter. A kernel
 * that takes an optional pointer should get it as a constexpr (None) instead of NULL. */
TILEC_API tilec_status *tilec_kernel_launch_checked(const tilec_kernel_desc *kernel, uint32_t grid_x, uint32_t grid_y,
                                                    uint32_t grid_z, void *const *args, size_t num_args,
                                                    const tilec_launch_options *opts);

/* tilec_kernel_launch with default options, for the typed KERNEL_launch functions of
 * generated kernel libraries: returns 0 or the tilec_status_code, and keeps the message for
 * tilec_last_error() on this thread. */
TILEC_API int tilec_kernel_launch_simple(const tilec_kernel_desc *kernel, uint32_t grid_x, uint32_t grid_y,
                                         uint32_t grid_z, void *const *args);

/* The message of the last tilec_kernel_launch_simple on this thread, or "" when it
 * succeeded (or none ran). Thread-local storage owned by the runtime; valid until the next
 * launch on this thread. Long messages are truncated. */
TILEC_API const char *tilec_last_error(void);

/* ---- element types --------------------------------------------------------------------- */

/* Triton signature spelling: "i1" "i8" ... "u64" "fp16" "bf16" "fp32" "fp64" "fp8e5"
 * "fp8e4nv"; "invalid" for TILEC_DTYPE_INVALID or an out-of-range value. Static storage. */
TILEC_API const char *tilec_dtype_name(tilec_dtype t);

/* Storage size in bytes (i1 is stored as one byte); 0 for an invalid dtype. */
TILEC_API size_t tilec_dtype_size(tilec_dtype t);

/* Inverse of tilec_dtype_name for the Triton spellings above; TILEC_DTYPE_INVALID for
 * anything else (including NULL and "invalid"). */
TILEC_API tilec_dtype tilec_dtype_from_name(const char *s);

#ifdef __cplusplus
}
#endif
#endif
