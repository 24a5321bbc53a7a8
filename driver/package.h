/* driver/package.h — turns a kernel's object code into a loadable library: the C
 * stub (descriptor, trampoline, typed launch function), the header, and the link step.
 * In: object bytes + kernel metadata. Out: KERNEL.so and KERNEL.h on disk. */
#ifndef TILEC_DRIVER_PACKAGE_H
#define TILEC_DRIVER_PACKAGE_H

#include "frontend/frontend.h"
#include "target/target.h"
#include "tilec/status.h"

/* Packaging one kernel: begin (as soon as the front end has described the kernel) writes
 * the stub and compiles it in the background; finish links it with the kernel's object
 * into so_path; free waits for anything still running and removes the temporary files.
 * free is called in every case, after begin (even when begin fails). */
typedef struct tc_package tc_package;
tilec_status *tc_package_begin(const tc_kernel_info *info, const tc_target *target, const char *source_file,
                               bool debug_info, tc_package **out);
tilec_status *tc_package_finish(tc_package *p, const char *object, size_t object_len, const char *so_path);
void tc_package_free(tc_package *p);
tilec_status *tc_package_header(const tc_kernel_info *info, const char *header_path, bool gpu);
/* --target nvptx: a host library whose KERNEL_launch / KERNEL_launch_async(stream, ...) run
 * the PTX (and a cubin, when ptxas is found at build time) on a GPU through the CUDA driver
 * (launcher/cuda.c); pointer parameters are device pointers. */
tilec_status *tc_package_gpu(const tc_kernel_info *info, const tc_target *target, const char *ptx, const char *so_path);

/* Specializations of one kernel in one library (tilec_compiler_build_library_multi). */
#define TC_MAX_VARIANTS 64

typedef struct tc_variant {
  const tc_kernel_info *info;
  const char *symbol; /* the object defines __tilec_kernel_<symbol> (unique per variant) */
  const char *object;
  size_t object_len;
} tc_variant;

/* Checks that the variants differ only in :16 hints and integers fixed to 1, then writes
 * the dispatcher stub, links it with every object into so_path and writes header_path
 * (may be NULL). */
tilec_status *tc_package_library_multi(const tc_variant *v, size_t n, const tc_target *target, const char *source_file,
                                       const char *so_path, const char *header_path, bool debug_info);

#endif
