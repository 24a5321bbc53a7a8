/* runtime/files.c — outputs written through a temporary file in the same directory and
 * renamed into place; temporary directories that are cleaned up even after a kill; whole-file
 * reads that never block on a FIFO, as an errno or a tilec_status (files.h).
 * In: an output path, or a path to read. Out: the file replaced whole, or left as it was;
 * the contents read. */
#include "runtime/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static atomic_uint outfile_counter;

static char *dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

int tilec_outfile_begin(tilec_outfile *o, const char *path) {
  memset(o, 0, sizeof *o);
  o->mode = -1;
  if (!path || !path[0]) return ENOENT;
  struct stat sb;
  /* A symlink is followed: the file it points at is what the user means to replace. */
  char *real = realpath(path, NULL);
  if (real && stat(real, &sb) == 0) {
    if (S_ISDIR(sb.st_mode)) {
      free(real);
      return EISDIR;
    }
    if (!S_ISREG(sb.st_mode)) {
      /* /dev/null, a FIFO, a terminal: there is nothing to protect and renaming over a
       * device node would destroy it, so write to it directly. */
      o->target = real;
      o->tmp = dup_string(real);
      if (!o->tmp) return ENOMEM;
      o->mode = -2;
      return 0;
    }
    o->mode = (int)(sb.st_mode & 07777);
    o->target = real;
  } else {
    free(real);
    o->target = dup_string(path);
  }
  if (!o->target) return ENOMEM;
  char *d1 = dup_string(o->target), *d2 = dup_string(o->target);
  int err = 0;
  if (!d1 || !d2) err = ENOMEM;
  const char *dir = d1 ? dirname(d1) : "", *base = d2 ? basename(d2) : "";
  size_t cap = strlen(dir) + strlen(base) + 64;
  if (!err && !(o->tmp = malloc(cap))) err = ENOMEM;
  for (int attempt = 0; !err; attempt++) {
    unsigned n = atomic_fetch_add(&outfile_counter, 1);
    snprintf(o->tmp, cap, "%s/.%s.tmp-%ld-%u", dir, base, (long)getpid(), n);
    /* O_EXCL: never open a file someone else made; the mode honours the umask. */
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd >= 0) {
      close(fd);
      break;
    }
    if (errno != EEXIST || attempt == 100) err = errno;
  }
  free(d1);
  free(d2);
  if (err) {
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
  }
  return err;
}

int tilec_outfile_commit(tilec_outfile *o) {
  if (!o->tmp) return EINVAL;
  if (o->mode == -2) return 0; /* written in place */
  if (o->mode >= 0) (void)chmod(o->tmp, (mode_t)o->mode);
  if (rename(o->tmp, o->target) != 0) {
    int err = errno;
    unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return err;
  }
  free(o->tmp);
  o->tmp = NULL;
  return 0;
}

void tilec_outfile_end(tilec_outfile *o) {
  if (o->tmp && o->mode != -2) unlink(o->tmp);
  free(o->tmp);
  free(o->target);
  o->tmp = o->target = NULL;
}

int tilec_outfile_write(const char *path, const void *data, size_t len) {
  tilec_outfile o;
  int err = tilec_outfile_begin(&o, path);
  if (err) return err;
  FILE *f = fopen(o.tmp, "wb");
  if (!f) err = errno;
  errno = 0;
  if (!err && len && fwrite(data, 1, len, f) != len) err = errno ? errno : EIO;
  if (f && fclose(f) != 0 && !err) err = errno ? errno : EIO;
  if (!err) err = tilec_outfile_commit(&o);
  tilec_outfile_end(&o);
  return err;
}

bool tilec_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (!a || !b || stat(a, &sa) != 0 || stat(b, &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void tilec_temp_dir_remove(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    for (struct dirent *e; (e = readdir(d)) != NULL;)
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
  }
  rmdir(dir);
}

static const char *temp_root(void) {
  const char *t = getenv("TMPDIR");
  return t && t[0] ? t : "/tmp";
}

/* PREFIX-PID-XXXXXX entries of root whose process is gone and which are old enough. */
static void sweep_stale(const char *root, const char *prefix) {
  DIR *d = opendir(root);
  if (!d) return;
  size_t plen = strlen(prefix);
  time_t now = time(NULL);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (strncmp(e->d_name, prefix, plen) != 0 || e->d_name[plen] != '-') continue;
    char *end;
    long pid = strtol(e->d_name + plen + 1, &end, 10);
    if (end == e->d_name + plen + 1 || *end != '-' || pid <= 0) continue;
    struct stat sb;
    if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(sb.st_mode) || sb.st_uid != getuid() ||
        now - sb.st_mtime < TILEC_TEMP_STALE_SECONDS)
      continue;
    if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    size_t n = strlen(root) + strlen(e->d_name) + 2;
    char *path = malloc(n);
    if (!path) continue;
    snprintf(path, n, "%s/%s", root, e->d_name);
    tilec_temp_dir_remove(path);
    free(path);
  }
  closedir(d);
}

static atomic_flag swept = ATOMIC_FLAG_INIT;

int tilec_temp_dir(const char *prefix, char *buf, size_t cap) {
  const char *root = temp_root();
  if (!atomic_flag_test_and_set(&swept)) {
    sweep_stale(root, "tilec-build");
    sweep_stale(root, "tilec-run");
    sweep_stale(root, "tilec-jit");
  }
  int n = snprintf(buf, cap, "%s/%s-%ld-XXXXXX", root, prefix, (long)getpid());
  if (n < 0 || (size_t)n >= cap) return ENAMETOOLONG;
  return mkdtemp(buf) ? 0 : errno;
}

int tilec_file_read(const char *path, size_t max_size, bool no_follow, char **out, size_t *len, char *why,
                    size_t why_len) {
  *out = NULL;
  *len = 0;
  /* O_NONBLOCK: opening a FIFO for reading would wait for a writer forever. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (no_follow ? O_NOFOLLOW : 0));
  if (fd < 0) {
    int err = errno;
    snprintf(why, why_len, "cannot open '%s': %s", path,
             err == ELOOP && no_follow ? "it is a symbolic link" : strerror(err));
    return err;
  }
  struct stat sb;
  int err = 0;
  if (fstat(fd, &sb) != 0) {
    err = errno;
    snprintf(why, why_len, "cannot stat '%s': %s", path, strerror(err));
  } else if (S_ISDIR(sb.st_mode)) {
    err = EISDIR;
    snprintf(why, why_len, "'%s' is a directory, not a file", path);
  } else if (!S_ISREG(sb.st_mode)) {
    err = EINVAL;
    snprintf(why, why_len, "'%s' is not a regular file (a device, FIFO or socket)", path);
  } else if ((uint64_t)sb.st_size > max_size) {
    err = EFBIG;
    snprintf(why, why_len, "'%s' is too large (%lld bytes; the limit is %zu MiB)", path, (long long)sb.st_size,
             max_size >> 20);
  }
  char *buf = NULL;
  size_t n = 0;
  if (!err && !(buf = malloc((size_t)sb.st_size + 1))) {
    err = ENOMEM;
    snprintf(why, why_len, "out of memory reading '%s'", path);
  }
  while (!err && n < (size_t)sb.st_size) {
    ssize_t k = read(fd, buf + n, (size_t)sb.st_size - n);
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (k < 0) {
      err = errno;
      snprintf(why, why_len, "cannot read '%s': %s", path, strerror(err));
    }
    if (k <= 0) break; /* shrank under us: the caller sees the shorter contents */
    n += (size_t)k;
  }
  close(fd);
  if (err) {
    free(buf);
    return err;
  }
  buf[n] = 0;
  *out = buf;
  *len = n;
  return 0;
}

tilec_status *tilec_file_read_status(const char *path, size_t max_size, bool no_follow, char **out, size_t *len) {
  char why[4608];
  int err = tilec_file_read(path, max_size, no_follow, out, len, why, sizeof why);
  if (err)
    return tilec_status_create(err == ENOENT   ? TILEC_ERROR_NOT_FOUND
                               : err == ENOMEM ? TILEC_ERROR_INTERNAL
                                               : TILEC_ERROR_IO,
                               "%s", why);
  return NULL;
}

tilec_status *tilec_file_read_source(const char *path, char **out, size_t *len) {
  tilec_status *st = tilec_file_read_status(path, TILEC_MAX_SOURCE_BYTES, false, out, len);
  return st ? tilec_status_annotate(st, "kernel source") : NULL;
}
