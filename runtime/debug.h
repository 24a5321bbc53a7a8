/* runtime/debug.h — what compiled kernels call back into while they run: device_print
 * output (buffered per thread, flushed whole per program so programs never interleave)
 * and failed device_asserts (which unwind the program through the trampoline's jmp_buf).
 * In: calls from kernel code. Out: text on stdout, an error for the launcher. */
#ifndef TILEC_RUNTIME_DEBUG_H
#define TILEC_RUNTIME_DEBUG_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

/* libtilec-runtime is built with hidden visibility: what kernel libraries call is exported
 * by name (it is their ABI with the runtime, beside include/tilec/abi.h). */
#define TILEC_RT_EXPORT __attribute__((visibility("default")))

/* --target nvptx-emu (runtime/emu.c): runs body(ctx) on nthreads threads sharing a barrier
 * and shared_bytes of zeroed shared memory (one program = one CTA); the calls below are made
 * by those threads. */
TILEC_RT_EXPORT void tilec_rt_emu_cta(uint32_t nthreads, uint64_t shared_bytes, void (*body)(void *ctx), void *ctx);
TILEC_RT_EXPORT int32_t tilec_rt_emu_thread_id(void);
TILEC_RT_EXPORT void tilec_rt_emu_barrier(void);
TILEC_RT_EXPORT void *tilec_rt_emu_shared(void);
TILEC_RT_EXPORT int32_t tilec_rt_emu_shfl_down(int32_t v, int32_t delta);
TILEC_RT_EXPORT int32_t tilec_rt_emu_shfl_up(int32_t v, int32_t delta);
TILEC_RT_EXPORT void tilec_rt_emu_mma_m16n8k16(int32_t bf16, int32_t a0, int32_t a1, int32_t a2, int32_t a3, int32_t b0,
                                               int32_t b1, float c0, float c1, float c2, float c3, float *d);
/* Fails the running program with msg (unwinds through the trampoline, like an assert). */
void tilec_rt_emu_fail(const char *msg);
/* While a CTA runs, a failed assert only records its error (the CTA's other threads must
 * reach their barriers); release unwinds the program afterwards if one was recorded. */
jmp_buf *tilec_rt_emu_hold_jmp(void);
void tilec_rt_emu_release_jmp(jmp_buf *jb);

/* --target nvptx libraries (launcher/cuda.c): launches kernel (PTX, and a cubin when
 * cubin_len > 0) on CUDA device 0 through libcuda.so.1 loaded at run time; stream NULL
 * waits for the kernel. Returns 0 or a tilec_status_code (message: tilec_last_error()). */
TILEC_RT_EXPORT int tilec_rt_cuda_launch(const char *kernel, const char *ptx, const unsigned char *cubin,
                                         size_t cubin_len, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z,
                                         uint32_t block_x, uint32_t shared_bytes, void **args, void *stream);

/* Called by the generated trampoline around each program that can fail. */
TILEC_RT_EXPORT void tilec_rt_set_jmp(jmp_buf *jb);

/* device_print: one line per element: begin, one value per argument, end. */
TILEC_RT_EXPORT void tilec_rt_print_begin(uint32_t px, uint32_t py, uint32_t pz, int32_t rank, int64_t i0, int64_t i1,
                                          int64_t i2, int64_t i3, const char *prefix);
TILEC_RT_EXPORT void tilec_rt_print_i64(int64_t v, int32_t is_unsigned, int32_t hex, int32_t bits);
TILEC_RT_EXPORT void tilec_rt_print_f64(double v, int32_t hex);
TILEC_RT_EXPORT void tilec_rt_print_end(void);

/* device_assert failure: records the report and unwinds the program (never returns
 * when a trampoline registered a jmp_buf). */
TILEC_RT_EXPORT void tilec_rt_assert_fail(const char *msg, const char *file, int32_t line, int32_t col, uint32_t px,
                                          uint32_t py, uint32_t pz, int32_t rank, int64_t i0, int64_t i1, int64_t i2,
                                          int64_t i3);

/* --check-bounds: the trampoline names its kernel (for parameter names in reports);
 * a kernel reports the first out-of-bounds lane of an access (kind 0 load, 1 store,
 * 2 atomic) and the program unwinds. */
TILEC_RT_EXPORT void tilec_rt_set_kernel(const void *kernel_desc);
TILEC_RT_EXPORT void tilec_rt_bounds_fail(int32_t kind, int32_t arg, const char *file, int32_t line, int32_t col,
                                          uint32_t px, uint32_t py, uint32_t pz, int32_t rank, int64_t i0, int64_t i1,
                                          int64_t i2, int64_t i3, int64_t elem, int64_t extent);

/* For generated dispatchers (driver/package.c) that refuse a launch before any kernel
 * is chosen: records msg for tilec_last_error() and returns code, like a failed launch
 * (defined in launcher/launcher.c). */
TILEC_RT_EXPORT int tilec_rt_launch_refused(int code, const char *msg);

/* For the launcher: writes this thread's buffered output (if any) in one piece. */
void tilec_rt_flush_output(void);
/* --check-nan: a program noted a non-finite value among its loads (stores of NaN/Inf are
 * then its inputs' doing, not reported); a non-finite store otherwise fails the program. */
TILEC_RT_EXPORT void tilec_rt_nonfinite_input(void);
TILEC_RT_EXPORT void tilec_rt_nan_fail(int32_t arg, const char *file, int32_t line, int32_t col, uint32_t px, uint32_t py,
                                       uint32_t pz, int32_t rank, int64_t i0, int64_t i1, int64_t i2, int64_t i3, double v);

/* --check-races: a program reports the lanes of one store (element indices into argument
 * `arg`, active flags); a store to an element another program stored to in the same launch
 * fails the program, unless both stores were made while holding a lock (between a
 * successful atomic_cas and the atomic_xchg that releases it). */
TILEC_RT_EXPORT void tilec_rt_race_store(int32_t arg, int64_t extent, const int64_t *elems, const int8_t *active,
                                         int32_t count, const char *file, int32_t line, int32_t col, uint32_t px,
                                         uint32_t py, uint32_t pz, uint32_t gx, uint32_t gy);
TILEC_RT_EXPORT void tilec_rt_race_cas(int32_t success);
TILEC_RT_EXPORT void tilec_rt_race_release(void);
/* For the launcher: shadow memory starts empty for each launch and is freed after it. */
void tilec_rt_race_begin(void);
void tilec_rt_race_end(void);

/* A failure recorded by kernel code on this thread: where (kernel source) and what. */
typedef struct tilec_rt_error {
  char file[512]; /* "" when the failure has no source location */
  int line, col;
  char message[1024];
} tilec_rt_error;

/* For the launcher: takes (and clears) the calling thread's recorded failure. */
void tilec_rt_take_error(tilec_rt_error *out);

#endif
