/* bench/compile_time.c — one cold-compile sample per process for a tilec kernel: the `tilec
 * compile` command run as a child (process start + MLIR/LLVM start-up + compile + link),
 * and tilec_compiler_create + tilec_compiler_build_library in this fresh process; then the
 * same kernel found in the JIT disk cache by a fresh child process. */
#include "common.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <tilec/tilec.h>
#include <unistd.h>

extern char **environ;

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s) s[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return s;
}

/* The first line of a diagnostic: what the report shows for an unsupported kernel. */
static void first_line(const char *msg, char *out, size_t n) {
  snprintf(out, n, "%s", msg ? msg : "unknown error");
  out[strcspn(out, "\n")] = 0;
}

/* JIT compile of spec through a compiler whose disk cache is `cache_dir`; the origin, or -1. */
static int jit_once(const char *cache_dir, const tilec_kernel_spec *spec) {
  tilec_compile_options o;
  tilec_compile_options_init(&o);
  o.cache_dir = cache_dir;
  tilec_compiler *c = NULL;
  tilec_jit_kernel *k = NULL;
  tilec_status *st = tilec_compiler_create(&o, &c);
  if (!st) st = tilec_jit_compile(c, spec, &k, NULL);
  int origin = st ? -1 : (int)tilec_jit_kernel_origin(k);
  tilec_status_destroy(st);
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
  return origin;
}

static void fill_cache(const char *cache_dir, const tilec_kernel_spec *spec) { (void)jit_once(cache_dir, spec); }

/* `compile_time --cached-hit CACHE FILE KERNEL SIG`: prints "SECONDS ORIGIN". */
static int cached_hit_main(char **argv) {
  size_t len = 0;
  char *src = read_file(argv[3], &len);
  if (!src) return 1;
  tilec_kernel_spec spec = {.source = src,
                            .source_len = len,
                            .filename = argv[3],
                            .kernel = argv[4],
                            .signature = argv[5],
                            .defines = NULL,
                            .num_defines = 0};
  double t0 = bench_now();
  int origin = jit_once(argv[2], &spec);
  printf("%.9f %d\n", bench_now() - t0, origin);
  free(src);
  return 0;
}

/* Runs the --cached-hit mode of this program in a child process and reads its answer. */
static int cached_hit_child(const char *cache, const char *file, const char *kernel, const char *sig, double *secs,
                            int *origin) {
  int fds[2];
  if (pipe(fds)) return -1;
  char *child_argv[] = {"compile_time", "--cached-hit", (char *)cache, (char *)file, (char *)kernel, (char *)sig, NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  pid_t pid;
  int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, child_argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  char buf[128] = "";
  FILE *f = fdopen(fds[0], "r");
  if (f) {
    if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
    fclose(f);
  } else {
    close(fds[0]);
  }
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return sscanf(buf, "%lf %d", secs, origin) == 2 ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc == 6 && !strcmp(argv[1], "--cached-hit")) return cached_hit_main(argv);
  if (argc != 6) {
    fprintf(stderr, "usage: compile_time TILEC_BIN FILE.py KERNEL SIGNATURE OUT_DIR\n");
    return 2;
  }
  const char *tool = argv[1], *file = argv[2], *kernel = argv[3], *sig = argv[4], *dir = argv[5];
  /* Rows are named after the kernel file ("vector_add"), like the PoCL build rows. */
  char label[128];
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  snprintf(label, sizeof label, "%s", base);
  label[strcspn(label, ".")] = 0;
  char so[1024], hdr[1024];
  snprintf(so, sizeof so, "%s/%s.ct.so", dir, kernel);
  snprintf(hdr, sizeof hdr, "%s/%s.ct.h", dir, kernel);

  /* 1. The command-line tool in a fresh child process: what a build system pays. */
  char *child_argv[] = {(char *)tool, "compile",  (char *)file, "-k", (char *)kernel, "-s", (char *)sig, "-o",
                        so,           "--header", hdr,          NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0); /* errors come from step 2 */
  double t0 = bench_now();
  pid_t pid;
  int status = -1;
  if (posix_spawn(&pid, tool, &fa, NULL, child_argv, environ) == 0) waitpid(pid, &status, 0);
  double cli = bench_now() - t0;
  posix_spawn_file_actions_destroy(&fa);

  /* 2. The library API in this process, which has not touched MLIR yet: what a program
   * that JIT-compiles a kernel pays the first time. */
  size_t len = 0;
  char *src = read_file(file, &len);
  if (!src) {
    fprintf(stderr, "compile_time: cannot read %s\n", file);
    return 1;
  }
  tilec_compile_options opts;
  tilec_compile_options_init(&opts);
  tilec_kernel_spec spec = {.source = src,
                            .source_len = len,
                            .filename = file,
                            .kernel = kernel,
                            .signature = sig,
                            .defines = NULL,
                            .num_defines = 0};
  tilec_compiler *c = NULL;
  t0 = bench_now();
  tilec_status *st = tilec_compiler_create(&opts, &c);
  double t_create = bench_now() - t0;
  double t_build = 0;
  if (!st) {
    t0 = bench_now();
    st = tilec_compiler_build_library(c, &spec, so, hdr);
    t_build = bench_now() - t0;
  }
  char note[512];
  if (st) {
    first_line(tilec_status_format(st), note, sizeof note);
    bench_emit("compile (cold)", label, "tilec", 1, NULL, "unsupported", note);
    bench_emit("compile (cold, CLI)", label, "tilec", 1, NULL, "unsupported", note);
    bench_emit("compile (cached)", label, "tilec", 1, NULL, "unsupported", note);
    tilec_status_destroy(st);
  } else {
    bench_result api = {t_create + t_build, t_create + t_build, 1, 1};
    snprintf(note, sizeof note, "API in a fresh process: compiler_create %.1f ms + build_library %.1f ms",
             1e3 * t_create, 1e3 * t_build);
    bench_emit("compile (cold)", label, "tilec", 1, &api, "ok", note);
    bench_result r = {cli, cli, 1, 1};
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    bench_emit("compile (cold, CLI)", label, "tilec", 1, &r, ok ? "ok" : "error",
               "`tilec compile` as a child process, wall time");
  }
  /* 3. The JIT disk cache: fill it here (untimed), then time a fresh process that finds
   * the kernel there (compiler_create + tilec_jit_compile, no compilation). */
  char cache[1024];
  snprintf(cache, sizeof cache, "%s/jit-cache", dir);
  double hit = -1;
  int origin = -1;
  if (!st) fill_cache(cache, &spec);
  if (!st && cached_hit_child(cache, file, kernel, sig, &hit, &origin) == 0 && origin == TILEC_JIT_DISK_CACHE) {
    bench_result r = {hit, hit, 1, 1};
    bench_emit("compile (cached)", label, "tilec", 1, &r, "ok",
               "fresh process: compiler_create + tilec_jit_compile finding the kernel in the disk cache");
  } else if (!st) {
    bench_emit("compile (cached)", label, "tilec", 1, NULL, "error", "the second process did not hit the disk cache");
  }
  if (c) tilec_compiler_destroy(c);
  free(src);
  return 0;
}
