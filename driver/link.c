/* driver/link.c — the C compiler and linker runs that make kernel libraries: a stub compile
 * in the background, and the link of a stub with kernel objects, SLEEF and the runtime into
 * a shared library renamed into place. In: files and a target. Out: a .so or a status. */
#include "driver/link.h"
#include "driver/package.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/files.h"
#include "tilec/runtime.h"

/* Directory of libtilec-runtime.so, so kernel libraries link against the same runtime. */
static void runtime_dir(char *buf, size_t n) {
  Dl_info di;
  buf[0] = 0;
  if (dladdr((void *)&tilec_kernel_launch, &di) && di.dli_fname) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", di.dli_fname);
    char *real = realpath(tmp, NULL);
    snprintf(buf, n, "%s", dirname(real ? real : tmp));
    free(real);
  }
}

/* dir: the build's temporary directory, which holds the output file. */
tilec_status *tc_cc_spawn(char *const argv[], const char *dir, tc_cc_job *j) {
  snprintf(j->errpath, sizeof j->errpath, "%s/cc-XXXXXX", dir);
  j->efd = mkstemp(j->errpath);
  j->what = argv[0];
  j->pid = fork();
  if (j->pid < 0) {
    if (j->efd >= 0) close(j->efd), unlink(j->errpath);
    return tilec_status_create(TILEC_ERROR_IO, "cannot start the C compiler: %s", strerror(errno));
  }
  if (j->pid == 0) {
    if (j->efd >= 0) {
      dup2(j->efd, 1);
      dup2(j->efd, 2);
    }
    execvp(argv[0], argv);
    static const char msg[] = "cannot execute the program (not installed? set TILEC_CC to a C compiler)\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(127);
  }
  return NULL;
}

tilec_status *tc_cc_wait(tc_cc_job *j, const char *doing) {
  int status = 0;
  while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR) {}
  tilec_status *st = NULL;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char msg[2048] = "";
    if (j->efd >= 0) {
      lseek(j->efd, 0, SEEK_SET);
      ssize_t k = read(j->efd, msg, sizeof msg - 1);
      msg[k > 0 ? k : 0] = 0;
    }
    st = tilec_status_create(TILEC_ERROR_IO, "%s with '%s' failed (exit %d): %s", doing, j->what,
                             WIFEXITED(status) ? WEXITSTATUS(status) : -1, msg);
  }
  if (j->efd >= 0) {
    close(j->efd);
    unlink(j->errpath);
  }
  return st;
}

tilec_status *tc_run_cc(char *const argv[], const char *dir) {
  tc_cc_job j;
  tilec_status *st = tc_cc_spawn(argv, dir, &j);
  return st ? st : tc_cc_wait(&j, "linking the kernel library");
}

static const char *c_compiler(void) {
  const char *cc = getenv("TILEC_CC");
  if (cc && *cc) return cc;
  if (access(TILEC_LLVM_ROOT "/bin/clang", X_OK) == 0) return TILEC_LLVM_ROOT "/bin/clang";
  return "cc";
}

/* The linker command the C compiler's driver would run, recorded at configure time
 * (cmake/link_template.cmake): running it directly saves the driver's start-up. */
extern const char *const tilec_link_template[];

static char *subst(const char *arg, const char *key, const char *value) {
  const char *at = strstr(arg, key);
  if (!at) return NULL;
  size_t n = strlen(arg) - strlen(key) + strlen(value) + 1;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%.*s%s%s", (int)(at - arg), arg, value, at + strlen(key));
  return s;
}

/* ld ... with @OUT@, @OBJS@ and @RTDIR@ filled in; false when there is no template, the
 * user chose another compiler (TILEC_CC), or the link fails (then the driver retries). */
static bool link_direct(char *const *objs, size_t n, const char *rt, const char *so_path, const char *dir) {
  const char *cc = getenv("TILEC_CC");
  if (!tilec_link_template[0] || (cc && *cc)) return false;
  size_t nt = 0;
  while (tilec_link_template[nt]) nt++;
  char **argv = calloc(nt + n + 1, sizeof *argv);
  char **owned = calloc(nt + 1, sizeof *owned);
  bool ok = argv && owned;
  size_t k = 0, no = 0;
  for (size_t i = 0; ok && i < nt; i++) {
    const char *a = tilec_link_template[i];
    if (!strcmp(a, "@OBJS@")) {
      for (size_t j = 0; j < n; j++) argv[k++] = objs[j];
    } else if (!strcmp(a, "@OUT@")) {
      argv[k++] = (char *)so_path;
    } else if (strstr(a, "@RTDIR@")) {
      char *s = subst(a, "@RTDIR@", rt[0] ? rt : ".");
      ok = s != NULL;
      argv[k++] = owned[no++] = s;
    } else {
      argv[k++] = (char *)a;
    }
  }
  tilec_status *st = NULL;
  if (ok) {
    argv[k] = NULL;
    st = tc_run_cc(argv, dir);
  }
  ok = ok && !st;
  tilec_status_destroy(st);
  for (size_t i = 0; i < no; i++) free(owned[i]);
  free(owned);
  free(argv);
  return ok;
}

/* The C compiler with the flags the stub compile (-c) and the driver link (-shared) share;
 * returns how many argv entries it wrote. */
int tc_cc_command(char **argv, const char *mode, bool debug_info, const tc_target *target, char *target_flag) {
  int k = 0;
  argv[k++] = (char *)c_compiler();
  argv[k++] = (char *)mode;
  argv[k++] = "-fPIC";
  argv[k++] = "-O1";
  argv[k++] = debug_info ? "-g" : "-g0";
  if (target->is_cross) argv[k++] = target_flag;
  return k;
}

static bool is_object(const char *path) {
  size_t n = strlen(path);
  return n > 2 && !strcmp(path + n - 2, ".o");
}

/* cc -shared stub.c objs... with SLEEF and the runtime. A cross target (another
 * architecture than the one tilec runs on) links with lld against the target's multiarch
 * libraries and leaves the runtime's symbols to be bound when the library is loaded by a
 * program linked against that target's libtilec-runtime: the host's runtime cannot be
 * linked into it. */
static tilec_status *link_into(const char *stub, char **objs, size_t n, const tc_target *target, const char *so_path,
                               bool debug_info, const char *dir) {
  char rt[4096], rtflag[4200], rpath[4200], target_flag[200];
  runtime_dir(rt, sizeof rt);
  snprintf(rtflag, sizeof rtflag, "-L%s", rt[0] ? rt : ".");
  snprintf(rpath, sizeof rpath, "-Wl,-rpath,%s", rt[0] ? rt : ".");
  snprintf(target_flag, sizeof target_flag, "--target=%s", target->triple);
  if (!target->is_cross && is_object(stub)) {
    char *all[TC_MAX_VARIANTS + 2];
    size_t na = 0;
    all[na++] = (char *)stub;
    for (size_t i = 0; i < n && na < TC_MAX_VARIANTS + 2; i++) all[na++] = objs[i];
    if (link_direct(all, na, rt, so_path, dir)) return NULL;
  }
  char **argv = calloc(n + 24, sizeof *argv);
  if (!argv) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  int k = tc_cc_command(argv, "-shared", debug_info, target, target_flag);
  if (target->is_cross) argv[k++] = "-fuse-ld=lld";
  argv[k++] = "-o";
  argv[k++] = (char *)so_path;
  argv[k++] = (char *)stub;
  for (size_t i = 0; i < n; i++) argv[k++] = objs[i];
  if (!target->is_cross) {
    argv[k++] = rtflag;
    argv[k++] = rpath;
    argv[k++] = "-ltilec-runtime";
  }
  argv[k++] = "-Wl,--as-needed"; /* only libraries that call SLEEF load it (not a GPU library's host side) */
  argv[k++] = "-lsleef";
  argv[k++] = "-Wl,--no-as-needed";
  argv[k++] = "-lm";
  argv[k] = NULL;
  tilec_status *st = tc_run_cc(argv, dir);
  free(argv);
  return st;
}

/* Links into a temporary file beside so_path and renames it into place: a failed link
 * leaves an existing library (or anything else at that path) as it was. */
tilec_status *tc_link_objects(const char *stub, char **objs, size_t n, const tc_target *target, const char *so_path,
                              bool debug_info, const char *dir) {
  tilec_outfile o;
  int err = tilec_outfile_begin(&o, so_path);
  if (err) return tilec_status_create(TILEC_ERROR_IO, "cannot write %s: %s", so_path, strerror(err));
  tilec_status *st = link_into(stub, objs, n, target, o.tmp, debug_info, dir);
  if (!st && (err = tilec_outfile_commit(&o)) != 0)
    st = tilec_status_create(TILEC_ERROR_IO, "cannot write %s: %s", so_path, strerror(err));
  tilec_outfile_end(&o);
  return st;
}
