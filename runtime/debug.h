/* runtime/debug.h — what compiled kernels call back into while they run: device_print
 * output (buffered per thread, flushed whole per program so programs never interleave)
 * and failed device_asserts (which unwind the program through the trampoline's jmp_buf).
 * In: calls from kernel code. Out: text on stdout, an error for the launcher. */
#ifndef TILEC_RUNTIME_DEBUG_H
#define TILEC_RUNTIME_DEBUG_H

#include "tilec/abi.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdbool.h>
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
TILEC_RT_EXPORT int32_t tilec_rt_emu_shfl_xor(int32_t v, int32_t mask);
TILEC_RT_EXPORT void tilec_rt_emu_mma_m16n8k16(int32_t bf16, int32_t a0, int32_t a1, int32_t a2, int32_t a3, int32_t b0,
                                               int32_t b1, float c0, float c1, float c2, float c3, float *d);
TILEC_RT_EXPORT void tilec_rt_emu_mma_m16n8k8_tf32(int32_t a0, int32_t a1, int32_t a2, int32_t a3, int32_t b0,
                                                   int32_t b1, float c0, float c1, float c2, float c3, float *d);
TILEC_RT_EXPORT void tilec_rt_emu_mma_m16n8k32_s8(int32_t a0, int32_t a1, int32_t a2, int32_t a3, int32_t b0,
                                                  int32_t b1, int32_t c0, int32_t c1, int32_t c2, int32_t c3,
                                                  int32_t *d);
TILEC_RT_EXPORT void tilec_rt_emu_ldmatrix_x4(int32_t trans, const void *row, int32_t *out);
/* cp.async.cg of 16 bytes (src_size of them read, the rest zero), its commit_group and
 * wait_group `pending`: the copy lands in shared memory at the wait that covers its group */
TILEC_RT_EXPORT void tilec_rt_emu_cp_async(void *dst, const void *src, int32_t src_size);
TILEC_RT_EXPORT void tilec_rt_emu_cp_async_commit(void);
TILEC_RT_EXPORT void tilec_rt_emu_cp_async_wait(int32_t pending);
/* tilec_rt_emu_wgmma_m64nNk16's mode bits */
#define TILEC_EMU_WGMMA_BF16 1    /* the operands are bf16 (else f16) */
#define TILEC_EMU_WGMMA_TRANS_B 2 /* B is N-major (imm-trans-b 1) */
#define TILEC_EMU_WGMMA_ZERO 4    /* scale-d 0: D = A x B */
#define TILEC_EMU_WGMMA_A_REGS 8  /* A from the warp's registers (after acc), not a descriptor */
TILEC_RT_EXPORT void tilec_rt_emu_wgmma_m64nNk16(int32_t mode, int32_t n, const void *a, int64_t desc_a, const void *b,
                                                 int64_t desc_b, float *acc);
/* Fails the running program with msg (unwinds through the trampoline, like an assert). */
void tilec_rt_emu_fail(const char *msg);
/* While a CTA runs, a failed assert only records its error (the CTA's other threads must
 * reach their barriers); release unwinds the program afterwards if one was recorded. */
jmp_buf *tilec_rt_emu_hold_jmp(void);
void tilec_rt_emu_release_jmp(jmp_buf *jb);

/* --target nvptx libraries (launcher/cuda.c): queues kernel (PTX, and a cubin when
 * cubin_len > 0) on stream (a CUstream; NULL: the legacy default stream) of CUDA device 0
 * through libcuda.so.1 loaded at run time; wait: then waits for the stream (a kernel's
 * failure is this launch's error). Returns 0 or a tilec_status_code (message:
 * tilec_last_error()). tilec_rt_cuda_launch is what libraries of an earlier tilec call:
 * the same, waiting exactly when stream is NULL. */
TILEC_RT_EXPORT int tilec_rt_cuda_enqueue(const char *kernel, const char *ptx, const unsigned char *cubin,
                                          size_t cubin_len, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z,
                                          uint32_t block_x, uint32_t shared_bytes, void **args, void *stream,
                                          bool wait);
TILEC_RT_EXPORT int tilec_rt_cuda_launch(const char *kernel, const char *ptx, const unsigned char *cubin,
                                         size_t cubin_len, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z,
                                         uint32_t block_x, uint32_t shared_bytes, void **args, void *stream);
/* Called by a GPU library's destructor (dlclose, or exit): the launcher forgets the module it
 * loaded for that library's PTX, so a library mapped later at the same address loads its own. */
TILEC_RT_EXPORT void tilec_rt_cuda_forget(const char *ptx);

/* Called by the generated trampoline around each program that can fail. */
TILEC_RT_EXPORT void tilec_rt_set_jmp(jmp_buf *jb);

/* A tile index in the calls below: `rank` indices in i0..i3 up to rank 4; above rank 4, i0
 * is the address of an int64_t array of the `rank` indices (the kernel's own stack) and
 * i1..i3 are 0.
 * device_print, in Triton's format: one line per element and operand,
 *   pid (X, Y, Z) idx (I, J)PREFIX(operand N) VALUE
 * tilec_rt_print_head writes up to the value: each index right-aligned to its width
 * (`widths`: 4 bits a dimension, dimension d at bit 4 d), the prefix as given (the front end
 * made it Triton's " x: "), "(operand N) " unless operand is -1; rank -1 leaves out the
 * index (a print of text alone: "pid (X, Y, Z) text"). Then at most one value, then
 * tilec_rt_print_end. Integers print signed or unsigned, hex as 0x and the value's own
 * width in digits (a float's hex is its code, printed as an integer of its width); floats as
 * %f; pointers as 0x and the address. */
TILEC_RT_EXPORT void tilec_rt_print_head(uint32_t px, uint32_t py, uint32_t pz, int32_t rank, int64_t i0, int64_t i1,
                                         int64_t i2, int64_t i3, int64_t widths, const char *prefix, int32_t operand);
TILEC_RT_EXPORT void tilec_rt_print_int(int64_t v, int32_t is_unsigned, int32_t hex, int32_t bits);
TILEC_RT_EXPORT void tilec_rt_print_float(double v);
TILEC_RT_EXPORT void tilec_rt_print_ptr(int64_t address);
/* The format of kernel libraries built before the above (kept for them): one line per
 * element, "pid (X, Y, Z) idx (I, J) PREFIX V1 V2": begin, one value per argument, end. */
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
/* --check nan: a store of a NaN/Inf fails the program (kernel code calls it only when the
 * program loaded no non-finite value: then its inputs would be to blame). */
TILEC_RT_EXPORT void tilec_rt_nan_fail(int32_t arg, const char *file, int32_t line, int32_t col, uint32_t px,
                                       uint32_t py, uint32_t pz, int32_t rank, int64_t i0, int64_t i1, int64_t i2,
                                       int64_t i3, double v);

/* A failure recorded by kernel code or by a launch's checks: where (kernel source) and what. */
typedef struct tilec_rt_error {
  char file[512]; /* "" when the failure has no source location */
  int line, col;
  char message[1024];
} tilec_rt_error;

/* --check races (runtime/races.c): what one launch logged. The launcher owns one per launch
 * (begin before the programs run, end after), and each thread that runs programs attaches
 * to it for the time it does. */
struct tc_access_log;
struct tc_access_site;
typedef struct tilec_rt_checks {
  const tilec_kernel_desc *kernel;
  void *const *args;
  const int64_t *extents; /* NULL: no buffer size known */
  uint32_t grid[3];
  pthread_mutex_t lock;
  _Atomic int ready;          /* arg_flags and sites made (by the first program) */
  _Atomic int lost;           /* out of memory: the verdict would be incomplete */
  struct tc_access_log *logs; /* one per thread that logged anything */
  uint64_t *arg_flags;        /* per runtime argument: TILEC_RT_LOG_* */
  struct tc_uninit **uninit;  /* per runtime argument: its marked range (--check init), or NULL */
  uint32_t nargs;
  struct tc_access_site *sites;
  uint32_t nsites;
  uint32_t classes;      /* TILEC_CHECKS_RACES / _INIT the kernel was compiled with */
  uint64_t init_program; /* the earliest program that loaded unwritten memory (or ~0) */
  uint32_t init_site;
  uintptr_t init_addr;
} tilec_rt_checks;

/* The per-argument flags kernel code reads from its block: loads through the argument are
 * logged for races (its memory may overlap another argument's) / it lies in memory marked
 * uninitialized (loads and stores go to the runtime, chunk by chunk). */
#define TILEC_RT_LOG_LOADS 1u
#define TILEC_RT_LOG_INIT 2u

void tilec_rt_checks_begin(tilec_rt_checks *k, const tilec_kernel_desc *kernel, void *const *args,
                           const int64_t *extents, const uint32_t grid[3]);
void tilec_rt_checks_attach(tilec_rt_checks *k);
void tilec_rt_checks_detach(void);
/* After every thread detached: 1 and *err when two programs raced, else when a program
 * loaded memory marked uninitialized that nothing stored (or the log ran out of memory);
 * frees what the launch logged either way. */
int tilec_rt_checks_end(tilec_rt_checks *k, tilec_rt_error *err);

/* Kernel code, at the start of each program compiled with race or init checks (classes:
 * TILEC_CHECKS_RACES | TILEC_CHECKS_INIT): the thread's block of nargs flags
 * (TILEC_RT_LOG_*) and nsites (lo, hi) cursors, one per access site, all closed. A site's run goes on while the next chunk starts at its hi
 * (kernel code moves hi); otherwise kernel code calls access_open, which logs the run and
 * starts [addr, addr + bytes). access_lanes does the same lane by lane (gathers, scatters,
 * partly masked chunks: active[i] != 0). write: a store site; size: the element's bytes. */
TILEC_RT_EXPORT uint64_t *tilec_rt_access_program(int32_t nargs, int32_t nsites, int32_t classes, uint32_t px,
                                                  uint32_t py, uint32_t pz);
TILEC_RT_EXPORT void tilec_rt_access_open(int32_t site, int64_t addr, int64_t bytes, int32_t arg, int32_t write,
                                          int32_t size, const char *file, int32_t line, int32_t col);
TILEC_RT_EXPORT void tilec_rt_access_lanes(int32_t site, const int64_t *addrs, const int8_t *active, int32_t count,
                                           int32_t arg, int32_t write, int32_t size, const char *file, int32_t line,
                                           int32_t col);
/* A successful atomic_cas on addr takes a lock there, an atomic_xchg on a locked address
 * releases it: accesses made while holding a lock do not race with other such accesses. */
TILEC_RT_EXPORT void tilec_rt_race_cas(int32_t success, int64_t addr);
TILEC_RT_EXPORT void tilec_rt_race_release(int64_t addr);

/* For the launcher: takes (and clears) the calling thread's recorded failure. */
void tilec_rt_take_error(tilec_rt_error *out);

#endif
