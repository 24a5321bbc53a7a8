/* frontend/module_files.c — where the Python files a kernel source imports are: a module
 * name next to the file, relative (`from ..ops import f`) or absolute in the repository
 * (`from mypkg.ops import f`, looked up from the file's directory upwards), and the whole set
 * of files a source would read (for the JIT cache key). In: a file name and its source.
 * Out: paths and file contents; no compilation. */
#include "frontend/module_context.h"

#include "frontend/parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *tc_read_text_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += r;
    if (n == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  fclose(f);
  if (buf) buf[n < cap ? n : cap - 1] = 0;
  *len = n;
  return buf;
}

/* dir/name.py or the package dir/name/__init__.py (name: n bytes; dir "" or ending in '/')
 * into path; false when neither is a regular file. */
bool tc_module_file_in_dir(const char *dir, const char *name, size_t n, char *path, size_t cap) {
  struct stat st;
  snprintf(path, cap, "%s%.*s.py", dir, (int)n, name);
  if (!stat(path, &st) && S_ISREG(st.st_mode)) return true;
  snprintf(path, cap, "%s%.*s/__init__.py", dir, (int)n, name);
  return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* Drops the last directory of dir ("a/b/" -> "a/", "b/" -> "", "" -> "../"); false past
 * the root. */
bool tc_dir_up(char *dir, size_t cap) {
  size_t len = strlen(dir);
  if (!strcmp(dir, "/")) return false;
  if (!len || !strcmp(dir, "../") || (len >= 4 && !strcmp(dir + len - 4, "/../"))) {
    if (len + 3 >= cap) return false;
    strcat(dir, "../");
    return true;
  }
  dir[len - 1] = 0;
  char *slash = strrchr(dir, '/');
  if (slash) slash[1] = 0;
  else dir[0] = 0;
  return true;
}

/* The file of a non-triton module that `file` imports, among the Python files around it:
 * relative imports (`from . import x`, `from ..utils import y`: `level` dots) from the file's
 * directory up; absolute ones (`from helpers import f`, `from mypkg.utils import f`) from the
 * file's directory, then from each directory above it (the package root a repository's
 * kernels import from). Only the first component (n bytes of first) is looked up. */
bool tc_import_file(const char *file, const char *first, size_t n, int level, char *path, size_t cap) {
  if (!file || file[0] == '<') return false; /* source without a file: no directory to look in */
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", file);
  char *slash = strrchr(dir, '/');
  if (slash) slash[1] = 0;
  else dir[0] = 0;
  for (int i = 1; i < level; i++)
    if (!tc_dir_up(dir, sizeof dir)) return false;
  if (tc_module_file_in_dir(dir, first, n, path, cap)) return true;
  for (int up = 0; level == 0 && up < 8 && tc_dir_up(dir, sizeof dir); up++)
    if (tc_module_file_in_dir(dir, first, n, path, cap)) return true;
  return false;
}

/* ---- the files a source imports (for the JIT key) ---------------------------------------- */

typedef struct deps_walk {
  char seen[64][1200];
  int n;
  void (*cb)(void *, const char *, const char *, size_t);
  void *user;
} deps_walk;

static void deps_of(deps_walk *w, const char *file, const char *src, size_t len, int depth);

static void deps_block(deps_walk *w, const char *file, const tc_block *b, int depth) {
  for (int i = 0; i < b->nstmts; i++) {
    const tc_stmt *st = b->stmts[i];
    if (st->kind == TC_STMT_TRY) {
      deps_block(w, file, &st->u.try_.body, depth);
      for (int h = 0; h < st->u.try_.nhandlers; h++) deps_block(w, file, &st->u.try_.handlers[h].body, depth);
      deps_block(w, file, &st->u.try_.orelse, depth);
      deps_block(w, file, &st->u.try_.final, depth);
    } else if (st->kind == TC_STMT_IF) {
      deps_block(w, file, &st->u.if_.body, depth);
      deps_block(w, file, &st->u.if_.orelse, depth);
    } else if (st->kind == TC_STMT_IMPORT) {
      for (int k = 0; k < st->u.import.nnames; k++) {
        /* the module itself, and for `from . import x` / `from pkg import sub` a submodule */
        const char *names[2] = {st->u.import.from ? st->u.import.from : st->u.import.names[k].name, NULL};
        char both[600];
        if (st->u.import.from) {
          snprintf(both, sizeof both, "%s%s%s", st->u.import.from, *st->u.import.from ? "." : "",
                   st->u.import.names[k].name);
          names[1] = both;
        }
        for (int j = 0; j < 2 && names[j]; j++) {
          const char *m = names[j];
          if (!*m || !strcmp(m, "triton") || !strncmp(m, "triton.", 7)) continue;
          /* each prefix a.b.c: a, a/b, a/b/c, as the import reads them */
          char rel[600];
          size_t ml = strlen(m);
          for (size_t e = 0; e <= ml && e < sizeof rel; e++) {
            if (e < ml && m[e] != '.') continue;
            snprintf(rel, sizeof rel, "%.*s", (int)e, m);
            for (char *c = rel; *c; c++)
              if (*c == '.') *c = '/';
            char path[1200];
            if (!tc_import_file(file, rel, strlen(rel), st->u.import.level, path, sizeof path)) break;
            bool dup = false;
            for (int q = 0; q < w->n && !dup; q++) dup = !strcmp(w->seen[q], path);
            if (dup || w->n == 64) continue;
            snprintf(w->seen[w->n++], sizeof w->seen[0], "%s", path);
            size_t tl = 0;
            char *text = tc_read_text_file(path, &tl);
            if (!text) continue;
            w->cb(w->user, path, text, tl);
            deps_of(w, path, text, tl, depth + 1);
            free(text);
          }
        }
      }
    }
  }
}

static void deps_of(deps_walk *w, const char *file, const char *src, size_t len, int depth) {
  if (depth > 8) return;
  tc_module *m = NULL;
  tilec_status *st = tc_parse_module(file, src, len, &m);
  if (st) {
    tilec_status_destroy(st);
    return;
  }
  deps_block(w, file, &m->toplevel, depth);
  tc_module_destroy(m);
}

void tc_source_imports(const char *filename, const char *source, size_t len,
                       void (*cb)(void *user, const char *path, const char *text, size_t n), void *user) {
  deps_walk *w = calloc(1, sizeof *w);
  if (!w) return;
  w->cb = cb;
  w->user = user;
  deps_of(w, filename, source, len, 0);
  free(w);
}
