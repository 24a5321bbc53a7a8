/* runtime/status.c — tilec_status: a heap message with an optional source location.
 * Lives in the runtime library because every layer (compiler, runtime, tools) uses it. */
#include "tilec/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tilec_status {
  tilec_status_code code;
  char *message;
  char *file;
  int line, col;
  char *line_text;
  char *formatted;
  int is_static;
  char *reason; /* NULL: the message */
  tilec_status_origin origin;
  tilec_status_frame *frames;
  int nframes;
};

static struct tilec_status out_of_memory = {
    TILEC_ERROR_INTERNAL, "out of memory while reporting an error", NULL, 0, 0, NULL, NULL, 1, NULL, 0, NULL, 0};

/* A message quoting a megabyte identifier or string must not become a megabyte message:
 * longer ones keep their start and end around an elision mark. */
#define MAX_MESSAGE 2048
#define KEEP_HEAD 1536
#define KEEP_TAIL 256
#define LINE_WINDOW 200 /* source characters shown on each side of the column */

/* Moves a cut at byte i of s back to the start of a UTF-8 character. */
static size_t char_start(const char *s, size_t i) {
  while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80) i--;
  return i;
}

static char *vformat(const char *fmt, va_list ap) {
  va_list cp;
  va_copy(cp, ap);
  int n = vsnprintf(NULL, 0, fmt, cp);
  va_end(cp);
  if (n < 0) return NULL;
  char *s = malloc((size_t)n + 1);
  if (!s) return NULL;
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  if (n > MAX_MESSAGE) {
    size_t head = char_start(s, KEEP_HEAD), tail = char_start(s, (size_t)n - KEEP_TAIL);
    int k = snprintf(s + head, (size_t)n + 1 - head, " [... %zu bytes ...] ", tail - head);
    memmove(s + head + (size_t)k, s + tail, (size_t)n - tail + 1);
  }
  return s;
}

static char *dup_or_null(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

tilec_status *tilec_status_createv(tilec_status_code code, const char *fmt, va_list ap) {
  if (code == TILEC_OK) return NULL;
  tilec_status *s = calloc(1, sizeof *s);
  if (!s) return &out_of_memory;
  s->code = code;
  s->message = vformat(fmt, ap);
  if (!s->message) {
    free(s);
    return &out_of_memory;
  }
  return s;
}

tilec_status *tilec_status_create(tilec_status_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tilec_status *s = tilec_status_createv(code, fmt, ap);
  va_end(ap);
  return s;
}

tilec_status *tilec_status_create_at(tilec_status_code code, const char *file, int line, int col, const char *line_text,
                                     const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tilec_status *s = tilec_status_createv(code, fmt, ap);
  va_end(ap);
  if (!s || s->is_static) return s;
  s->file = dup_or_null(file);
  s->line = line;
  s->col = col;
  if (line_text) {
    size_t n = strcspn(line_text, "\r\n");
    s->line_text = malloc(n + 1);
    if (s->line_text) {
      memcpy(s->line_text, line_text, n);
      s->line_text[n] = 0;
    }
  }
  return s;
}

void tilec_status_destroy(tilec_status *s) {
  if (!s || s->is_static) return;
  free(s->message);
  free(s->file);
  free(s->line_text);
  free(s->formatted);
  free(s->reason);
  for (int i = 0; i < s->nframes; i++) {
    free((char *)s->frames[i].function);
    free((char *)s->frames[i].file);
  }
  free(s->frames);
  free(s);
}

tilec_status_code tilec_status_code_of(const tilec_status *s) { return s ? s->code : TILEC_OK; }
const char *tilec_status_message(const tilec_status *s) { return s ? s->message : "ok"; }
const char *tilec_status_file(const tilec_status *s) { return s ? s->file : NULL; }
int tilec_status_line(const tilec_status *s) { return s ? s->line : 0; }
int tilec_status_column(const tilec_status *s) { return s ? s->col : 0; }

const char *tilec_status_format(tilec_status *s) {
  if (!s) return "ok";
  if (s->is_static) return s->message;
  free(s->formatted);
  s->formatted = NULL;
  if (!s->file) {
    size_t n = strlen(s->message) + 8;
    s->formatted = malloc(n);
    if (!s->formatted) return s->message;
    snprintf(s->formatted, n, "error: %s", s->message);
    return s->formatted;
  }
  const char *text = s->line_text ? s->line_text : "";
  /* A long source line is shown as a window around the column, the caret kept under it. */
  int col = s->col;
  size_t tlen = strlen(text);
  char *window = NULL;
  if (tlen > 2 * LINE_WINDOW) {
    size_t c = col > 0 ? (size_t)col - 1 : 0;
    size_t from = c > LINE_WINDOW ? char_start(text, c - LINE_WINDOW) : 0;
    size_t to = from + 2 * LINE_WINDOW < tlen ? char_start(text, from + 2 * LINE_WINDOW) : tlen;
    window = malloc(to - from + 8);
    if (window) {
      int k = snprintf(window, to - from + 8, "%s%.*s%s", from ? "..." : "", (int)(to - from), text + from,
                       to < tlen ? "..." : "");
      (void)k;
      col = col - (int)from + (from ? 3 : 0);
      text = window;
    }
  }
  size_t n = strlen(s->file) + strlen(s->message) + 2 * strlen(text) + 64 + (size_t)(col > 0 ? col : 0);
  char *out = malloc(n);
  if (!out) {
    free(window);
    return s->message;
  }
  int k = snprintf(out, n, "%s:%d:%d: error: %s", s->file, s->line, s->col, s->message);
  if (s->line_text && k > 0 && (size_t)k < n) {
    k += snprintf(out + k, n - (size_t)k, "\n%s\n", text);
    /* The caret keeps tabs so it lines up under the source text. */
    for (int i = 1; i < col && (size_t)k + 2 < n; i++)
      out[k++] = (i - 1 < (int)strlen(text) && text[i - 1] == '\t') ? '\t' : ' ';
    if ((size_t)k + 2 < n) {
      out[k++] = '^';
      out[k] = 0;
    }
  }
  free(window);
  s->formatted = out;
  return out;
}

/* *text = "prefix: *text" (unchanged when out of memory). */
static void prefix_text(char **text, const char *prefix) {
  size_t n = strlen(prefix) + strlen(*text) + 3;
  char *m = malloc(n);
  if (!m) return;
  snprintf(m, n, "%s: %s", prefix, *text);
  free(*text);
  *text = m;
}

tilec_status *tilec_status_annotate(tilec_status *s, const char *fmt, ...) {
  if (!s || s->is_static) return s;
  va_list ap;
  va_start(ap, fmt);
  char *prefix = vformat(fmt, ap);
  va_end(ap);
  if (!prefix) return s;
  prefix_text(&s->message, prefix);
  if (s->reason) prefix_text(&s->reason, prefix);
  free(prefix);
  return s;
}

const char *tilec_status_code_name(tilec_status_code code) {
  switch (code) {
    case TILEC_OK: return "ok";
    case TILEC_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case TILEC_ERROR_SYNTAX: return "syntax error";
    case TILEC_ERROR_SEMANTIC: return "semantic error";
    case TILEC_ERROR_UNSUPPORTED: return "unsupported";
    case TILEC_ERROR_NOT_FOUND: return "not found";
    case TILEC_ERROR_ABI: return "ABI mismatch";
    case TILEC_ERROR_IO: return "I/O error";
    case TILEC_ERROR_INTERNAL: return "internal error";
    case TILEC_ERROR_RUNTIME: return "runtime error";
  }
  return "unknown";
}

void tilec_status_set_line_text(tilec_status *s, const char *line_text) {
  if (!s || s->is_static || !line_text) return;
  size_t n = strcspn(line_text, "\r\n");
  char *t = malloc(n + 1);
  if (!t) return;
  memcpy(t, line_text, n);
  t[n] = 0;
  free(s->line_text);
  s->line_text = t;
}

int tilec_status_needs_line_text(const tilec_status *s) {
  return s && !s->is_static && s->file && s->line > 0 && !s->line_text;
}

int tilec_status_frame_count(const tilec_status *s) { return s ? s->nframes : 0; }

const tilec_status_frame *tilec_status_frame_at(const tilec_status *s, int i) {
  return s && i >= 0 && i < s->nframes ? &s->frames[i] : NULL;
}

void tilec_status_push_frame(tilec_status *s, const char *function, const char *file, int def_line, int line, int col) {
  if (!s || s->is_static) return;
  tilec_status_frame *f = realloc(s->frames, ((size_t)s->nframes + 1) * sizeof *f);
  if (!f) return; /* the frames are context: an error without them is still the error */
  s->frames = f;
  f[s->nframes++] = (tilec_status_frame){dup_or_null(function), dup_or_null(file), def_line, line, col};
}

tilec_status_origin tilec_status_origin_of(const tilec_status *s) { return s ? s->origin : TILEC_ORIGIN_LANGUAGE; }

void tilec_status_set_origin(tilec_status *s, tilec_status_origin origin) {
  if (s && !s->is_static) s->origin = origin;
}

const char *tilec_status_reason(const tilec_status *s) {
  if (!s) return "ok";
  return s->reason ? s->reason : s->message;
}

void tilec_status_set_reason(tilec_status *s, const char *reason) {
  if (!s || s->is_static) return;
  free(s->reason);
  s->reason = dup_or_null(reason);
}
