/* tilec/status.h — the status object every fallible tilec call returns.
 * NULL means success; a non-NULL status owns a formatted message and, for errors in
 * kernel source, the file:line:col they point at. The caller destroys it. */
#ifndef TILEC_STATUS_H
#define TILEC_STATUS_H

#include <stdarg.h>
#include <stddef.h>

#include "tilec/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tilec_status_code {
  TILEC_OK = 0,
  TILEC_ERROR_INVALID_ARGUMENT = 1, /* bad input from the caller */
  TILEC_ERROR_SYNTAX = 2,           /* kernel source does not parse */
  TILEC_ERROR_SEMANTIC = 3,         /* kernel source parses but is not valid */
  TILEC_ERROR_UNSUPPORTED = 4,      /* valid Triton that tilec does not support yet */
  TILEC_ERROR_NOT_FOUND = 5,        /* missing file, kernel or symbol */
  TILEC_ERROR_ABI = 6,              /* library built for another ABI version */
  TILEC_ERROR_IO = 7,               /* read/write/exec failure */
  TILEC_ERROR_INTERNAL = 8,         /* a tilec bug: the message says where */
  TILEC_ERROR_RUNTIME = 9           /* a kernel failed while running */
} tilec_status_code;

typedef struct tilec_status tilec_status;

/* Creates a status with a printf-style message. Never returns NULL for code != TILEC_OK
 * (falls back to a static out-of-memory status). */
TILEC_API tilec_status *tilec_status_create(tilec_status_code code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
TILEC_API tilec_status *tilec_status_createv(tilec_status_code code, const char *fmt, va_list ap);

/* A status that points into kernel source: file, 1-based line and column, and the text
 * of that source line (copied; may be NULL) for caret diagnostics. */
TILEC_API tilec_status *tilec_status_create_at(tilec_status_code code, const char *file, int line, int col,
                                               const char *line_text, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

TILEC_API void tilec_status_destroy(tilec_status *status);

TILEC_API tilec_status_code tilec_status_code_of(const tilec_status *status);
/* The bare message, without location. Owned by the status. */
TILEC_API const char *tilec_status_message(const tilec_status *status);
/* Location, or NULL/0 when the status does not point into source. */
TILEC_API const char *tilec_status_file(const tilec_status *status);
TILEC_API int tilec_status_line(const tilec_status *status);
TILEC_API int tilec_status_column(const tilec_status *status);
/* Full rendering like a C compiler: "file:line:col: error: msg\n  <line>\n  ^".
 * Owned by the status; valid until it is destroyed. */
TILEC_API const char *tilec_status_format(tilec_status *status);
/* Prepends "prefix: " to the message (keeps the location). Returns the same status. */
TILEC_API tilec_status *tilec_status_annotate(tilec_status *status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
TILEC_API const char *tilec_status_code_name(tilec_status_code code);
/* Sets the source line shown under a located message (copied up to its newline); for
 * callers that have the source when the error was raised without it. */
TILEC_API void tilec_status_set_line_text(tilec_status *status, const char *line_text);
/* True when the status points into source but carries no line text. */
TILEC_API int tilec_status_needs_line_text(const tilec_status *status);

/* ---- where a compile error sits in the kernel's calls ------------------------------------
 * A compile error inside @jit helpers carries the calls that led to it, innermost first:
 * frame 0 is the function holding the error's location (the status's line and column),
 * each next frame the caller at its call site, the last the kernel. `def_line` is the file
 * line of the function's `def`; `line`/`col` are 1-based file positions (col within the
 * function's dedented text, as the compiler saw it). A status without calls has no frames. */
typedef struct tilec_status_frame {
  const char *function;
  const char *file;
  int def_line;
  int line, col;
} tilec_status_frame;

/* What raised a compile error, for front ends that mirror Triton's exception chains. */
typedef enum tilec_status_origin {
  TILEC_ORIGIN_LANGUAGE = 0,     /* the language itself: names, operators, statements */
  TILEC_ORIGIN_BUILTIN = 1,      /* a tl.* function or tensor method refused its arguments */
  TILEC_ORIGIN_STATIC_ASSERT = 2 /* a failed tl.static_assert */
} tilec_status_origin;

TILEC_API int tilec_status_frame_count(const tilec_status *status);
/* Frame i (0 <= i < count), owned by the status; NULL when out of range. */
TILEC_API const tilec_status_frame *tilec_status_frame_at(const tilec_status *status, int i);
/* Appends a frame (the strings are copied). */
TILEC_API void tilec_status_push_frame(tilec_status *status, const char *function, const char *file, int def_line,
                                       int line, int col);
TILEC_API tilec_status_origin tilec_status_origin_of(const tilec_status *status);
TILEC_API void tilec_status_set_origin(tilec_status *status, tilec_status_origin origin);
/* The message without the calls that tilec_status_message names after it ("... (in f(),
 * called at k.py:12)"); the message itself when the status has no such text. */
TILEC_API const char *tilec_status_reason(const tilec_status *status);
TILEC_API void tilec_status_set_reason(tilec_status *status, const char *reason);

#ifdef __cplusplus
}
#endif
#endif
