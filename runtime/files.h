/* runtime/files.h — the files tilec writes. Outputs are written without ever damaging what is at their path:
 * the bytes go to a new temporary file in the same directory, renamed over the path only
 * once complete (a failed or interrupted write leaves the old file untouched), and a file
 * is removed only if this code created it. Used by every tilec output: .npy results, kernel
 * libraries, headers (JIT cache entries do the same in driver/jit.c). Reading: the kernel
 * sources and the JIT cache entries are read whole, through one reader.
 * Temporary build directories live in $TMPDIR (else /tmp), carry the creating process id,
 * and ones a killed process left behind are removed by the next one that makes its own.
 * In: an output path. Out: a temporary path to write, then an atomic rename. */
#ifndef TILEC_RUNTIME_FILES_H
#define TILEC_RUNTIME_FILES_H

#include "tilec/status.h"

#include <stdbool.h>
#include <stdio.h>

/* Exported from libtilec-runtime (built with hidden visibility) for libtilec and the tools,
 * though not part of the public API in include/tilec/. */
#define TILEC_OUTFILE_EXPORT __attribute__((visibility("default")))

typedef struct tilec_outfile {
  char *target; /* where commit puts the file (a symlink's target when path is one) */
  char *tmp;    /* the temporary file, created empty by begin (mode 0666 minus umask) */
  int mode;     /* the replaced file's permissions, or -1 when there was none */
} tilec_outfile;

/* Creates the temporary file beside path. Returns 0 or an errno value. */
TILEC_OUTFILE_EXPORT int tilec_outfile_begin(tilec_outfile *o, const char *path);
/* Renames the temporary file over the target (keeping a replaced file's permissions).
 * Returns 0 or an errno value; on failure the temporary file is removed. */
TILEC_OUTFILE_EXPORT int tilec_outfile_commit(tilec_outfile *o);
/* Removes the temporary file (if still there) and frees o's strings. Safe after commit. */
TILEC_OUTFILE_EXPORT void tilec_outfile_end(tilec_outfile *o);

/* Writes len bytes to path through begin/commit. Returns 0 or an errno value. */
TILEC_OUTFILE_EXPORT int tilec_outfile_write(const char *path, const void *data, size_t len);

/* True when a and b name the same existing file (same device and inode). */
TILEC_OUTFILE_EXPORT bool tilec_same_file(const char *a, const char *b);

/* Reads a whole regular file into a NUL-terminated buffer (free it). Never blocks on a FIFO
 * or reads forever from a device (both are refused), refuses directories and files over
 * max_size bytes, and with no_follow refuses a symlink. Returns 0, else an errno value
 * (EISDIR, EINVAL: not a regular file, EFBIG: too large) with why set to the message. */
TILEC_OUTFILE_EXPORT int tilec_file_read(const char *path, size_t max_size, bool no_follow, char **out, size_t *len,
                                         char *why, size_t why_len);
#define TILEC_MAX_SOURCE_BYTES ((size_t)64 << 20)
/* tilec_file_read with the message as a status: TILEC_ERROR_NOT_FOUND for a missing file,
 * TILEC_ERROR_INTERNAL when out of memory, else TILEC_ERROR_IO. */
TILEC_OUTFILE_EXPORT tilec_status *tilec_file_read_status(const char *path, size_t max_size, bool no_follow, char **out,
                                                          size_t *len);
/* A kernel source file for a spec without source text (the compiler, the JIT's cache key):
 * at most TILEC_MAX_SOURCE_BYTES, the status annotated "kernel source". */
TILEC_OUTFILE_EXPORT tilec_status *tilec_file_read_source(const char *path, char **out, size_t *len);

/* Creates $TMPDIR/PREFIX-PID-XXXXXX (mode 0700) into buf. Before the first one in a process,
 * removes this user's PREFIX-PID-* directories whose process is gone and that have not
 * changed for STALE minutes (leftovers of a killed compile). Returns 0 or an errno value. */
TILEC_OUTFILE_EXPORT int tilec_temp_dir(const char *prefix, char *buf, size_t cap);
#define TILEC_TEMP_STALE_SECONDS 600

/* Removes a directory made by tilec_temp_dir and the files in it (not recursive). */
TILEC_OUTFILE_EXPORT void tilec_temp_dir_remove(const char *dir);

#endif
