/* frontend/diag.h — diagnostics that point into a parsed module's source.
 * In: a module and a source location. Out: source line text, and tilec_status errors
 * carrying "file:line:col" plus that line for a caret. */
#ifndef TILEC_FRONTEND_DIAG_H
#define TILEC_FRONTEND_DIAG_H

#include <stddef.h>

#include "frontend/ast.h"
#include "tilec/status.h"

/* Text of source line `line` (1-based; lines end at \n, \r\n or \r). Not NUL-terminated
 * at the line end; *len gets its length without the newline. NULL if out of range. */
const char *tc_module_line(const tc_module *m, int line, size_t *len);

/* A status pointing at loc in m's source (m may be NULL: then no location). */
tilec_status *tc_error_at(const tc_module *m, tc_loc loc, tilec_status_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
