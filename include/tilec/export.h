/* tilec/export.h — TILEC_API marks the functions libtilec and libtilec-runtime export.
 * Both libraries are built with -fvisibility=hidden: everything not marked (the compiler's
 * internals, the MLIR C API linked in statically) stays inside them. */
#ifndef TILEC_EXPORT_H
#define TILEC_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define TILEC_API __attribute__((visibility("default")))
#else
#define TILEC_API
#endif

#endif
