/* frontend/diag.c — source-line lookup and located error statuses for the front end.
 * In: a tc_module (its NUL-terminated source copy) and a tc_loc.
 * Out: line text pointers and tilec_status objects (the caller owns them). */
#include "frontend/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

const char *tc_module_line(const tc_module *m, int line, size_t *len) {
  if (len) *len = 0;
  if (!m || !m->source || line < 1) return NULL;
  const char *s = m->source;
  size_t n = m->source_len, i = 0;
  /* Lines are counted exactly as the lexer counts them, so locations agree. */
  for (int cur = 1; cur < line; cur++) {
    while (i < n && s[i] != '\n' && s[i] != '\r') i++;
    if (i >= n) return NULL;
    i += (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n') ? 2 : 1;
  }
  size_t e = i;
  while (e < n && s[e] != '\n' && s[e] != '\r') e++;
  if (len) *len = e - i;
  return s + i;
}

tilec_status *tc_error_at(const tc_module *m, tc_loc loc, tilec_status_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!m) {
    tilec_status *s = tilec_status_createv(code, fmt, ap);
    va_end(ap);
    return s;
  }
  va_list cp;
  va_copy(cp, ap);
  int n = vsnprintf(NULL, 0, fmt, cp);
  va_end(cp);
  char *msg = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (msg) vsnprintf(msg, (size_t)n + 1, fmt, ap);
  va_end(ap);
  if (!msg) return tilec_status_create(code == TILEC_OK ? TILEC_ERROR_INTERNAL : code, "out of memory");
  size_t len;
  const char *text = tc_module_line(m, loc.line, &len);
  tilec_status *s = tilec_status_create_at(code, m->filename, loc.line + m->line_offset, loc.col, text, "%s", msg);
  free(msg);
  return s;
}
