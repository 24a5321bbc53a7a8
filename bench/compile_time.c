/* bench/compile_time.c — one cold-compile sample per process for a tilec kernel: the `tilec
 * compile` command run as a child (process start + MLIR/LLVM start-up + compile + link),
 * and tilec_compiler_create + tilec_compiler_build_library in this fresh process. */
#include "common.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <tilec/tilec.h>

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

int main(int argc, char **argv) {
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
  char *child_argv[] = {(char *)tool, "compile", (char *)file, "-k", (char *)kernel, "-s", (char *)sig,
                        "-o", so, "--header", hdr, NULL};
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
  tilec_kernel_spec spec = {src, len, file, kernel, sig, NULL, 0};
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
  /* Hook for the JIT cache: when the runtime gains one, time a second compile of the same
   * spec through it here (a hit) and emit it as "compile (cached)". Until then the row says
   * so instead of showing a number. */
  bench_emit("compile (cached)", label, "tilec", 1, NULL, "unavailable", "tilec has no JIT cache yet");
  if (c) tilec_compiler_destroy(c);
  free(src);
  return 0;
}
