/* driver/checks.h — the one resolution of the debug checks a compiler was asked for into
 * the classes its lowering instruments (driver/checks.c). In: tilec_compile_options. Out:
 * TILEC_CHECKS_* bits, which the pipeline, the packaging, the JIT key and the API read. */
#ifndef TILEC_DRIVER_CHECKS_H
#define TILEC_DRIVER_CHECKS_H

#include "tilec/tilec.h"

/* Set in tilec_compile_options.checks by tilec_compile_options_init when TILEC_CHECK does not
 * parse: tilec_compiler_create reports why. */
#define TC_CHECKS_FROM_BAD_ENV 0x80000000u

/* "bounds,races": the names of the classes in bits (static storage). */
const char *tc_checks_name(uint32_t bits);

/* The requested classes (the check_* flags and checks) with what each one needs. */
uint32_t tc_checks_resolve(const tilec_compile_options *o);

#endif
