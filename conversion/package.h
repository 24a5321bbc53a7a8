/* conversion/package.h — turns a kernel's object code into a loadable library: the C
 * stub (descriptor, trampoline, typed launch function), the header, and the link step.
 * In: object bytes + kernel metadata. Out: KERNEL.so and KERNEL.h on disk. */
#ifndef TILEC_CONVERSION_PACKAGE_H
#define TILEC_CONVERSION_PACKAGE_H

#include "conversion/target.h"
#include "frontend/frontend.h"
#include "tilec/status.h"

tilec_status *tc_package_library(const tc_kernel_info *info, const tc_target *target, const char *source_file,
                                 const char *object, size_t object_len, const char *so_path, bool debug_info);
tilec_status *tc_package_header(const tc_kernel_info *info, const char *header_path);

#endif
