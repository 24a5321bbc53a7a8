/* tests/unit/test_jit.c — the JIT API and its cache: cold compile, memory and disk hits,
 * corrupt and truncated entries, unwritable cache directories, concurrent processes, and
 * checked launches. In: a vector-add kernel as a string. Out: a Check suite. */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tilec/runtime.h"
#include "tilec/tilec.h"

static const char add_source[] = "import triton\n"
                                 "import triton.language as tl\n"
                                 "\n"
                                 "@triton.jit\n"
                                 "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                                 "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                                 "    mask = offs < n\n"
                                 "    x = tl.load(x_ptr + offs, mask=mask)\n"
                                 "    y = tl.load(y_ptr + offs, mask=mask)\n"
                                 "    tl.store(out_ptr + offs, x + y, mask=mask)\n";

#define ADD_SIG "*fp32, *fp32, *fp32, i32, 64"

static char tmp_root[PATH_MAX];

static void make_root(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmp_root, sizeof tmp_root, "%s/tilec_test_jit_XXXXXX", base && *base ? base : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(tmp_root));
}

static void remove_root(void) {
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd) != 0) fprintf(stderr, "test_jit: could not remove %s\n", tmp_root);
}

static tilec_kernel_spec add_spec(const char *signature) {
  tilec_kernel_spec s = {.source = add_source,
                         .source_len = sizeof add_source - 1,
                         .filename = "add.py",
                         .kernel = "add_kernel",
                         .signature = signature,
                         .defines = NULL,
                         .num_defines = 0};
  return s;
}

static tilec_compiler *compiler_with_cache(const char *cache_dir) {
  tilec_compile_options o;
  tilec_compile_options_init(&o);
  o.cache_dir = cache_dir;
  tilec_compiler *c = NULL;
  tilec_status *st = tilec_compiler_create(&o, &c);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  return c;
}

/* Compiles with no error and no warning. */
static tilec_jit_kernel *jit_ok(tilec_compiler *c, const tilec_kernel_spec *spec) {
  tilec_jit_kernel *k = NULL;
  tilec_status *warning = NULL;
  tilec_status *st = tilec_jit_compile(c, spec, &k, &warning);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  ck_assert_msg(warning == NULL, "unexpected warning: %s", warning ? tilec_status_message(warning) : "");
  ck_assert_ptr_nonnull(k);
  return k;
}

/* Runs the kernel on n elements and compares with a C loop. */
static void check_add(const tilec_jit_kernel *k, int32_t n) {
  float *x = malloc(sizeof(float) * (size_t)(n + 1)), *y = malloc(sizeof(float) * (size_t)(n + 1));
  float *out = malloc(sizeof(float) * (size_t)(n + 1));
  for (int32_t i = 0; i < n; i++) {
    x[i] = (float)i * 0.5f;
    y[i] = 3.0f - (float)i;
    out[i] = NAN;
  }
  out[n] = 42.0f; /* one past the end: must stay untouched */
  void *args[] = {&x, &y, &out, &n};
  tilec_status *st = tilec_jit_kernel_launch(k, (uint32_t)((n + 63) / 64), 1, 1, args, 4, NULL);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  for (int32_t i = 0; i < n; i++) ck_assert_msg(out[i] == x[i] + y[i], "element %d: %g", i, (double)out[i]);
  ck_assert(out[n] == 42.0f);
  free(x);
  free(y);
  free(out);
}

static void check_warning(tilec_status *warning, const char *want) {
  ck_assert_ptr_nonnull(warning);
  ck_assert_str_eq(tilec_status_message(warning), want);
  tilec_status_destroy(warning);
}

static char *cache_in_root(const char *name) {
  static char buf[PATH_MAX + 64];
  snprintf(buf, sizeof buf, "%s/%s", tmp_root, name);
  return buf;
}

START_TEST(test_cold_memory_disk) {
  make_root();
  char cache[PATH_MAX + 64];
  snprintf(cache, sizeof cache, "%s", cache_in_root("a/b/cache")); /* created on demand */
  tilec_kernel_spec spec = add_spec(ADD_SIG);

  tilec_compiler *c = compiler_with_cache(cache);
  ck_assert_str_eq(tilec_compiler_cache_dir(c), cache);
  tilec_jit_kernel *k1 = jit_ok(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k1), TILEC_JIT_COMPILED);
  const char *path = tilec_jit_kernel_cache_path(k1);
  ck_assert_ptr_nonnull(path);
  ck_assert_msg(strncmp(path, cache, strlen(cache)) == 0, "%s", path);
  ck_assert_int_eq(access(path, R_OK), 0);
  ck_assert_str_eq(tilec_jit_kernel_desc(k1)->name, "add_kernel");
  check_add(k1, 1);
  check_add(k1, 1025);

  /* Same compiler: the memory cache hands out the same loaded kernel. */
  tilec_jit_kernel *k2 = jit_ok(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k2), TILEC_JIT_MEMORY_CACHE);
  ck_assert_ptr_eq(tilec_jit_kernel_desc(k2), tilec_jit_kernel_desc(k1));

  /* Another compiler: the disk entry is loaded without compiling. */
  tilec_compiler *c2 = compiler_with_cache(cache);
  tilec_jit_kernel *k3 = jit_ok(c2, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k3), TILEC_JIT_DISK_CACHE);
  check_add(k3, 77);

  /* Anything in the key changes the entry: signature, defines, options. */
  tilec_kernel_spec other = add_spec("*fp32, *fp32, *fp32, i32, 128");
  tilec_jit_kernel *k4 = jit_ok(c2, &other);
  ck_assert_int_eq(tilec_jit_kernel_origin(k4), TILEC_JIT_COMPILED);
  ck_assert_str_ne(tilec_jit_kernel_cache_path(k4), path);
  tilec_define d = {"BLOCK", "64"};
  tilec_kernel_spec by_define = add_spec("*fp32, *fp32, *fp32, i32");
  by_define.defines = &d;
  by_define.num_defines = 1;
  tilec_jit_kernel *k5 = jit_ok(c2, &by_define);
  ck_assert_int_eq(tilec_jit_kernel_origin(k5), TILEC_JIT_COMPILED);
  tilec_compile_options o;
  tilec_compile_options_init(&o);
  o.cache_dir = cache;
  o.check_bounds = true;
  tilec_compiler *c3 = NULL;
  ck_assert_ptr_null(tilec_compiler_create(&o, &c3));
  tilec_jit_kernel *k6 = jit_ok(c3, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k6), TILEC_JIT_COMPILED);

  /* Kernels outlive their compiler. */
  tilec_compiler_destroy(c);
  tilec_compiler_destroy(c2);
  tilec_compiler_destroy(c3);
  check_add(k2, 300);
  tilec_jit_kernel_release(k1);
  tilec_jit_kernel_release(k2);
  tilec_jit_kernel_release(k3);
  tilec_jit_kernel_release(k4);
  tilec_jit_kernel_release(k5);
  tilec_jit_kernel_release(k6);
  tilec_jit_kernel_release(NULL);
  remove_root();
}
END_TEST

/* Damages the entry with `how`, then a fresh compiler must warn, rebuild and run. */
static void corrupt_and_rebuild(void (*how)(const char *path), const char *reason) {
  make_root();
  char cache[PATH_MAX + 64];
  snprintf(cache, sizeof cache, "%s", cache_in_root("cache"));
  tilec_kernel_spec spec = add_spec(ADD_SIG);
  tilec_compiler *c = compiler_with_cache(cache);
  tilec_jit_kernel *k = jit_ok(c, &spec);
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s", tilec_jit_kernel_cache_path(k));
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
  how(path);

  c = compiler_with_cache(cache);
  tilec_status *warning = NULL;
  tilec_status *st = tilec_jit_compile(c, &spec, &k, &warning);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  char want[2 * PATH_MAX];
  snprintf(want, sizeof want, "JIT cache entry '%s' was corrupt (%s) and has been rebuilt", path, reason);
  check_warning(warning, want);
  ck_assert_int_eq(tilec_jit_kernel_origin(k), TILEC_JIT_COMPILED);
  check_add(k, 100);
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);

  /* The rebuilt entry is whole again. */
  c = compiler_with_cache(cache);
  k = jit_ok(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k), TILEC_JIT_DISK_CACHE);
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
  remove_root();
}

static void truncate_half(const char *path) {
  struct stat sb;
  ck_assert_int_eq(stat(path, &sb), 0);
  ck_assert_int_eq(truncate(path, sb.st_size / 2), 0);
}

static void truncate_tiny(const char *path) { ck_assert_int_eq(truncate(path, 10), 0); }

static void flip_a_byte(const char *path) {
  FILE *f = fopen(path, "r+b");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fseek(f, 200, SEEK_SET), 0);
  int ch = fgetc(f);
  ck_assert_int_eq(fseek(f, 200, SEEK_SET), 0);
  fputc(ch ^ 0x5a, f);
  fclose(f);
}

START_TEST(test_truncated_entry) { corrupt_and_rebuild(truncate_half, "no tilec trailer (truncated?)"); }
END_TEST

START_TEST(test_tiny_entry) { corrupt_and_rebuild(truncate_tiny, "10 bytes, shorter than its trailer"); }
END_TEST

START_TEST(test_corrupt_entry) { corrupt_and_rebuild(flip_a_byte, "checksum mismatch"); }
END_TEST

START_TEST(test_unwritable_cache_dir) {
  make_root();
  /* Under a regular file: not creatable even for root (tests may run as root, where mode
   * bits would not stop a write). */
  char file[PATH_MAX + 64], cache[PATH_MAX + 64];
  snprintf(file, sizeof file, "%s", cache_in_root("plain-file"));
  FILE *f = fopen(file, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  snprintf(cache, sizeof cache, "%s/cache", file);
  tilec_compiler *c = compiler_with_cache(cache);
  tilec_kernel_spec spec = add_spec(ADD_SIG);
  tilec_jit_kernel *k = NULL;
  tilec_status *warning = NULL;
  tilec_status *st = tilec_jit_compile(c, &spec, &k, &warning);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  char want[2 * PATH_MAX];
  snprintf(want, sizeof want,
           "JIT cache directory '%s' is not usable (Not a directory); kernel 'add_kernel' was compiled in a "
           "temporary directory",
           cache);
  check_warning(warning, want);
  ck_assert_int_eq(tilec_jit_kernel_origin(k), TILEC_JIT_COMPILED);
  ck_assert_ptr_null(tilec_jit_kernel_cache_path(k));
  check_add(k, 500);
  tilec_jit_kernel_release(k);

  /* Without a warning out-parameter the call still succeeds. */
  tilec_compiler *c2 = compiler_with_cache(cache);
  ck_assert_ptr_null(tilec_jit_compile(c2, &spec, &k, NULL));
  check_add(k, 3);
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c2);
  tilec_compiler_destroy(c);
  remove_root();
}
END_TEST

/* The path of the cache entry add_spec(ADD_SIG) gets in cache (compiled once to learn it). */
static void entry_path(const char *cache, char *path, size_t cap) {
  tilec_kernel_spec spec = add_spec(ADD_SIG);
  tilec_compiler *c = compiler_with_cache(cache);
  tilec_jit_kernel *k = jit_ok(c, &spec);
  snprintf(path, cap, "%s", tilec_jit_kernel_cache_path(k));
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
}

/* A FIFO at an entry's path: opening it for reading blocked forever. */
START_TEST(test_fifo_entry) {
  make_root();
  char cache[PATH_MAX + 64], path[PATH_MAX + 64];
  snprintf(cache, sizeof cache, "%s", cache_in_root("cache"));
  entry_path(cache, path, sizeof path);
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  tilec_kernel_spec spec = add_spec(ADD_SIG);
  tilec_compiler *c = compiler_with_cache(cache);
  tilec_jit_kernel *k = NULL;
  tilec_status *warning = NULL;
  tilec_status *st = tilec_jit_compile(c, &spec, &k, &warning);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  char want[3 * PATH_MAX];
  snprintf(want, sizeof want,
           "JIT cache entry '%s' was corrupt ('%s' is not a regular file (a device, FIFO or socket)) and has been "
           "rebuilt",
           path, path);
  check_warning(warning, want);
  check_add(k, 100);
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
  struct stat sb;
  ck_assert_int_eq(stat(path, &sb), 0);
  ck_assert(S_ISREG(sb.st_mode)); /* replaced by a whole entry */
  remove_root();
}
END_TEST

/* A directory at an entry's path cannot be replaced: compile in a temporary directory. */
START_TEST(test_directory_entry) {
  make_root();
  char cache[PATH_MAX + 64], path[PATH_MAX + 64];
  snprintf(cache, sizeof cache, "%s", cache_in_root("cache"));
  entry_path(cache, path, sizeof path);
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(mkdir(path, 0700), 0);
  char inside[PATH_MAX + 80];
  snprintf(inside, sizeof inside, "%s/keep", path);
  FILE *f = fopen(inside, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  tilec_kernel_spec spec = add_spec(ADD_SIG);
  tilec_compiler *c = compiler_with_cache(cache);
  tilec_jit_kernel *k = NULL;
  tilec_status *warning = NULL;
  tilec_status *st = tilec_jit_compile(c, &spec, &k, &warning);
  ck_assert_msg(st == NULL, "%s", st ? tilec_status_message(st) : "");
  ck_assert_ptr_nonnull(warning);
  const char *w = tilec_status_message(warning);
  char head[PATH_MAX + 80];
  snprintf(head, sizeof head, "JIT cache directory '%s' is not usable (cannot rename '", cache);
  ck_assert_msg(!strncmp(w, head, strlen(head)), "%s", w);
  ck_assert_ptr_nonnull(strstr(w, "Is a directory); kernel 'add_kernel' was compiled in a temporary directory"));
  tilec_status_destroy(warning);
  check_add(k, 100);
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
  ck_assert_int_eq(access(inside, F_OK), 0); /* the directory is left alone */
  remove_root();
}
END_TEST

/* A full file system under the cache (a 4 KiB tmpfs in a private mount namespace): the
 * entry cannot be written, so the kernel is compiled in a temporary directory. Skipped
 * where unprivileged user namespaces are not available. */
START_TEST(test_full_cache_dir) {
  make_root();
  char cache[PATH_MAX + 64];
  snprintf(cache, sizeof cache, "%s", cache_in_root("full"));
  ck_assert_int_eq(mkdir(cache, 0700), 0);
  uid_t uid = getuid();
  gid_t gid = getgid();
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) _exit(77);
    char map[64];
    int fd = open("/proc/self/setgroups", O_WRONLY);
    if (fd >= 0) {
      if (write(fd, "deny", 4) < 0) _exit(77);
      close(fd);
    }
    snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
    fd = open("/proc/self/uid_map", O_WRONLY);
    if (fd < 0 || write(fd, map, strlen(map)) < 0) _exit(77);
    close(fd);
    snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
    fd = open("/proc/self/gid_map", O_WRONLY);
    if (fd < 0 || write(fd, map, strlen(map)) < 0) _exit(77);
    close(fd);
    if (mount("none", cache, "tmpfs", 0, "size=4k") != 0) _exit(77);
    tilec_kernel_spec spec = add_spec(ADD_SIG);
    tilec_compiler *c = compiler_with_cache(cache);
    tilec_jit_kernel *k = NULL;
    tilec_status *warning = NULL;
    tilec_status *st = tilec_jit_compile(c, &spec, &k, &warning);
    if (st) {
      fprintf(stderr, "compile failed: %s\n", tilec_status_message(st));
      _exit(1);
    }
    const char *w = warning ? tilec_status_message(warning) : "";
    if (!strstr(w, "is not usable") || !strstr(w, "No space left on device") ||
        !strstr(w, "was compiled in a temporary directory")) {
      fprintf(stderr, "unexpected warning: '%s'\n", w);
      _exit(1);
    }
    check_add(k, 100);
    _exit(0);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) fprintf(stderr, "test_full_cache_dir: skipped (no user namespaces)\n");
  else ck_assert_int_eq(WEXITSTATUS(status), 0);
  remove_root();
}
END_TEST

START_TEST(test_memory_only) {
  tilec_compiler *c = compiler_with_cache("");
  ck_assert_ptr_null(tilec_compiler_cache_dir(c));
  tilec_kernel_spec spec = add_spec(ADD_SIG);
  tilec_jit_kernel *k = jit_ok(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k), TILEC_JIT_COMPILED);
  ck_assert_ptr_null(tilec_jit_kernel_cache_path(k));
  tilec_jit_kernel *k2 = jit_ok(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k2), TILEC_JIT_MEMORY_CACHE);
  check_add(k2, 65);
  tilec_jit_kernel_release(k);
  tilec_jit_kernel_release(k2);
  tilec_compiler_destroy(c);
}
END_TEST

/* A compiler for target with num_stages (and the rest default), or the status refusing it. */
static tilec_status *stages_compiler(const char *target, uint32_t num_stages, const char *cache, tilec_compiler **c) {
  tilec_compile_options o;
  tilec_compile_options_init(&o);
  o.target = target;
  o.num_stages = num_stages;
  o.cache_dir = cache;
  *c = NULL;
  return tilec_compiler_create(&o, c);
}

static void check_refused(tilec_status *st, const char *want) {
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(tilec_status_message(st), want);
  tilec_status_destroy(st);
}

/* num_stages (Triton's pipeline depth) reaches the GPU targets' cache key as the value used:
 * 0 and 3 (the default) are one entry, 2 another; out of range or on a CPU target, refused. */
START_TEST(test_num_stages) {
  make_root();
  char cache[PATH_MAX + 64];
  snprintf(cache, sizeof cache, "%s", cache_in_root("cache"));
  tilec_kernel_spec spec = add_spec(ADD_SIG);
  tilec_compiler *c0, *c3, *c2;
  ck_assert_ptr_null(stages_compiler("nvptx-emu", 0, cache, &c0));
  ck_assert_ptr_null(stages_compiler("nvptx-emu", 3, cache, &c3));
  ck_assert_ptr_null(stages_compiler("nvptx-emu", 2, cache, &c2));
  tilec_jit_kernel *k0 = jit_ok(c0, &spec), *k3 = jit_ok(c3, &spec), *k2 = jit_ok(c2, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k0), TILEC_JIT_COMPILED);
  ck_assert_int_eq(tilec_jit_kernel_origin(k3), TILEC_JIT_DISK_CACHE);
  ck_assert_str_eq(tilec_jit_kernel_cache_path(k3), tilec_jit_kernel_cache_path(k0));
  ck_assert_int_eq(tilec_jit_kernel_origin(k2), TILEC_JIT_COMPILED);
  ck_assert_str_ne(tilec_jit_kernel_cache_path(k2), tilec_jit_kernel_cache_path(k0));
  check_add(k2, 200); /* the emulated CTA's threads, whatever the pipeline depth */
  tilec_jit_kernel_release(k0);
  tilec_jit_kernel_release(k3);
  tilec_jit_kernel_release(k2);
  tilec_compiler_destroy(c0);
  tilec_compiler_destroy(c3);
  tilec_compiler_destroy(c2);

  tilec_compiler *bad;
  check_refused(stages_compiler("nvptx-emu", 9, cache, &bad), "num_stages must be from 1 (no pipelining) to 8, got 9");
  ck_assert_ptr_null(bad);
  check_refused(stages_compiler("nvptx", UINT32_MAX, cache, &bad),
                "num_stages must be from 1 (no pipelining) to 8, got -1");
  check_refused(stages_compiler("host", 2, cache, &bad), "--arch, --num-warps, --num-stages and --ptx-version apply "
                                                         "to the nvptx target only (target is 'host')");
  ck_assert_ptr_null(stages_compiler("host", 0, cache, &bad)); /* unset: fine anywhere */
  tilec_compiler_destroy(bad);
  ck_assert_ptr_null(stages_compiler("nvptx", 1, cache, &bad)); /* 1: no pipelining */
  tilec_compiler_destroy(bad);
  ck_assert_ptr_null(stages_compiler("nvptx", 8, cache, &bad));
  tilec_compiler_destroy(bad);
  remove_root();
}
END_TEST

START_TEST(test_cache_dir_resolution) {
  setenv("TILEC_CACHE_DIR", "/x/tilec-env", 1);
  setenv("XDG_CACHE_HOME", "/x/xdg", 1);
  setenv("HOME", "/x/home", 1);
  tilec_compiler *c = compiler_with_cache(NULL);
  ck_assert_str_eq(tilec_compiler_cache_dir(c), "/x/tilec-env");
  tilec_compiler_destroy(c);
  c = compiler_with_cache("/x/option");
  ck_assert_str_eq(tilec_compiler_cache_dir(c), "/x/option");
  tilec_compiler_destroy(c);
  unsetenv("TILEC_CACHE_DIR");
  c = compiler_with_cache(NULL);
  ck_assert_str_eq(tilec_compiler_cache_dir(c), "/x/xdg/tilec");
  tilec_compiler_destroy(c);
  setenv("XDG_CACHE_HOME", "", 1);
  c = compiler_with_cache(NULL);
  ck_assert_str_eq(tilec_compiler_cache_dir(c), "/x/home/.cache/tilec");
  tilec_compiler_destroy(c);
  unsetenv("HOME");
  unsetenv("XDG_CACHE_HOME");
  c = compiler_with_cache(NULL);
  ck_assert_ptr_null(tilec_compiler_cache_dir(c));
  /* No directory at all: compiled in a temporary directory, and told why. */
  tilec_kernel_spec spec = add_spec(ADD_SIG);
  tilec_jit_kernel *k = NULL;
  tilec_status *warning = NULL;
  ck_assert_ptr_null(tilec_jit_compile(c, &spec, &k, &warning));
  check_warning(warning, "no cache directory: TILEC_CACHE_DIR, XDG_CACHE_HOME and HOME are unset; kernel "
                         "'add_kernel' was compiled in a temporary directory");
  check_add(k, 9);
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
}
END_TEST

START_TEST(test_concurrent_processes) {
  make_root();
  char cache[PATH_MAX + 64];
  snprintf(cache, sizeof cache, "%s", cache_in_root("shared"));
  enum { PROCS = 4 };
  pid_t pids[PROCS];
  for (int i = 0; i < PROCS; i++) {
    pids[i] = fork();
    ck_assert_int_ge(pids[i], 0);
    if (pids[i] == 0) {
      /* Each child: its own compiler on the same empty cache, racing the others. */
      tilec_compile_options o;
      tilec_compile_options_init(&o);
      o.cache_dir = cache;
      tilec_compiler *c = NULL;
      tilec_jit_kernel *k = NULL;
      tilec_kernel_spec spec = add_spec(ADD_SIG);
      tilec_status *w = NULL;
      if (tilec_compiler_create(&o, &c) || tilec_jit_compile(c, &spec, &k, &w) || w) _exit(1);
      int32_t n = 1000;
      float x[1000], y[1000], out[1000];
      for (int j = 0; j < n; j++) x[j] = (float)j, y[j] = 1.0f, out[j] = 0;
      float *px = x, *py = y, *po = out;
      void *args[] = {&px, &py, &po, &n};
      if (tilec_jit_kernel_launch(k, 16, 1, 1, args, 4, NULL)) _exit(2);
      for (int j = 0; j < n; j++)
        if (out[j] != (float)j + 1.0f) _exit(3);
      tilec_jit_kernel_release(k);
      tilec_compiler_destroy(c);
      _exit(0);
    }
  }
  for (int i = 0; i < PROCS; i++) {
    int status = 0;
    ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: status %d", i, status);
  }
  /* One whole entry, no temporary files left behind. */
  char cmd[PATH_MAX + 128];
  snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s' | wc -l)\" -eq 1 && ls '%s' | grep -q '^[0-9a-f]\\{32\\}\\.so$'",
           cache, cache);
  ck_assert_int_eq(system(cmd), 0);
  tilec_compiler *c = compiler_with_cache(cache);
  tilec_kernel_spec spec = add_spec(ADD_SIG);
  tilec_jit_kernel *k = jit_ok(c, &spec);
  ck_assert_int_eq(tilec_jit_kernel_origin(k), TILEC_JIT_DISK_CACHE);
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
  remove_root();
}
END_TEST

START_TEST(test_source_from_file) {
  make_root();
  char file[PATH_MAX + 64];
  snprintf(file, sizeof file, "%s", cache_in_root("add.py"));
  FILE *f = fopen(file, "w");
  ck_assert_ptr_nonnull(f);
  fputs(add_source, f);
  fclose(f);
  tilec_compiler *c = compiler_with_cache("");
  tilec_kernel_spec spec = {.source = NULL,
                            .source_len = 0,
                            .filename = file,
                            .kernel = "add_kernel",
                            .signature = ADD_SIG,
                            .defines = NULL,
                            .num_defines = 0};
  tilec_jit_kernel *k = jit_ok(c, &spec);
  ck_assert_str_eq(tilec_jit_kernel_desc(k)->source_file, file);
  check_add(k, 129);
  tilec_jit_kernel_release(k);

  char missing[PATH_MAX + 64];
  snprintf(missing, sizeof missing, "%s", cache_in_root("missing.py"));
  spec.filename = missing;
  tilec_status *w = NULL;
  tilec_status *st = tilec_jit_compile(c, &spec, &k, &w);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_null(k);
  ck_assert_ptr_null(w);
  char want[2 * PATH_MAX];
  snprintf(want, sizeof want, "kernel source: cannot open '%s': No such file or directory", missing);
  ck_assert_str_eq(tilec_status_message(st), want);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_NOT_FOUND);
  tilec_status_destroy(st);
  tilec_compiler_destroy(c);
  remove_root();
}
END_TEST

START_TEST(test_compile_errors) {
  tilec_compiler *c = compiler_with_cache("");
  tilec_kernel_spec spec = add_spec(ADD_SIG);
  spec.kernel = "sub_kernel";
  tilec_jit_kernel *k = (tilec_jit_kernel *)1;
  tilec_status *w = (tilec_status *)1;
  tilec_status *st = tilec_jit_compile(c, &spec, &k, &w);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_null(k);
  ck_assert_ptr_null(w);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_NOT_FOUND);
  tilec_status_destroy(st);
  spec = add_spec("*fp32, *fp32, i32, 64");
  st = tilec_jit_compile(c, &spec, &k, NULL);
  ck_assert_ptr_nonnull(st);
  ck_assert_str_eq(tilec_status_message(st),
                   "no value for constexpr parameter 'BLOCK' of kernel 'add_kernel' (give it in the signature or "
                   "with -D BLOCK=VALUE)");
  tilec_status_destroy(st);
  st = tilec_jit_compile(c, NULL, &k, NULL);
  ck_assert_str_eq(tilec_status_message(st),
                   "tilec_jit_compile: needs a compiler and a spec with a kernel name and source or file");
  tilec_status_destroy(st);
  tilec_compiler_destroy(c);
}
END_TEST

static void check_error(tilec_status *st, tilec_status_code code, const char *msg) {
  ck_assert_msg(st != NULL, "expected: %s", msg);
  ck_assert_str_eq(tilec_status_message(st), msg);
  ck_assert_int_eq(tilec_status_code_of(st), code);
  tilec_status_destroy(st);
}

/* A crashed writer's `.tmp-*` file older than an hour is removed by the next compile that
 * writes the cache; a recent one (another process may be writing it) stays. */
START_TEST(test_stale_temp_files) {
  make_root();
  char cache[PATH_MAX + 64], stale[PATH_MAX + 128], fresh[PATH_MAX + 128];
  snprintf(cache, sizeof cache, "%s", cache_in_root("cache"));
  ck_assert_int_eq(mkdir(cache, 0700), 0);
  snprintf(stale, sizeof stale, "%s/.tmp-0123456789abcdef-AAAAAA", cache);
  snprintf(fresh, sizeof fresh, "%s/.tmp-0123456789abcdef-BBBBBB", cache);
  FILE *f = fopen(stale, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  f = fopen(fresh, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  struct timespec old[2] = {{time(NULL) - 2 * 3600, 0}, {time(NULL) - 2 * 3600, 0}};
  ck_assert_int_eq(utimensat(AT_FDCWD, stale, old, 0), 0);
  tilec_compiler *c = compiler_with_cache(cache);
  tilec_kernel_spec spec = add_spec(ADD_SIG);
  tilec_jit_kernel *k = jit_ok(c, &spec);
  check_add(k, 100);
  ck_assert_msg(access(stale, F_OK) != 0, "stale temporary file was not removed");
  ck_assert_msg(access(fresh, F_OK) == 0, "a recent temporary file was removed");
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
  remove_root();
}
END_TEST

START_TEST(test_checked_launch) {
  tilec_compiler *c = compiler_with_cache("");
  tilec_kernel_spec spec = add_spec(ADD_SIG);
  tilec_jit_kernel *k = jit_ok(c, &spec);
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 1, 1, 1}, out[4] = {0};
  float *pa = a, *pb = b, *po = out, *null = NULL;
  int32_t n = 4;
  void *args[] = {&pa, &pb, &po, &n};
  check_error(tilec_jit_kernel_launch(k, 1, 1, 1, args, 3, NULL), TILEC_ERROR_INVALID_ARGUMENT,
              "kernel 'add_kernel' takes 4 arguments (x_ptr, y_ptr, out_ptr, n), got 3");
  check_error(tilec_jit_kernel_launch(k, 1, 1, 1, args, 5, NULL), TILEC_ERROR_INVALID_ARGUMENT,
              "kernel 'add_kernel' takes 4 arguments (x_ptr, y_ptr, out_ptr, n), got 5");
  void *with_null[] = {&pa, &null, &po, &n};
  check_error(tilec_jit_kernel_launch(k, 1, 1, 1, with_null, 4, NULL), TILEC_ERROR_INVALID_ARGUMENT,
              "kernel 'add_kernel': pointer argument 1 ('y_ptr') is NULL");
  void *missing[] = {&pa, &pb, NULL, &n};
  check_error(tilec_jit_kernel_launch(k, 1, 1, 1, missing, 4, NULL), TILEC_ERROR_INVALID_ARGUMENT,
              "kernel 'add_kernel': argument 2 ('out_ptr') is NULL");
  check_error(tilec_jit_kernel_launch(k, UINT32_MAX, UINT32_MAX, 2, args, 4, NULL), TILEC_ERROR_INVALID_ARGUMENT,
              "kernel 'add_kernel': grid (4294967295, 4294967295, 2) exceeds Triton's limits of 2147483647 programs "
              "on axis 0 and 65535 on axes 1 and 2 (program ids are 32-bit)");
  check_error(tilec_jit_kernel_launch(NULL, 1, 1, 1, args, 4, NULL), TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_jit_kernel_launch: kernel is NULL");
  check_error(tilec_kernel_launch_checked(NULL, 1, 1, 1, args, 4, NULL), TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_kernel_launch: kernel is NULL");
  /* Nothing ran; a good launch then does. */
  for (int i = 0; i < 4; i++) ck_assert(out[i] == 0);
  ck_assert_ptr_null(tilec_jit_kernel_launch(k, 1, 1, 1, args, 4, NULL));
  for (int i = 0; i < 4; i++) ck_assert(out[i] == a[i] + 1);
  /* An empty grid checks the arguments and runs nothing. */
  ck_assert_ptr_null(tilec_jit_kernel_launch(k, 0, 1, 1, args, 4, NULL));
  tilec_jit_kernel_release(k);
  tilec_compiler_destroy(c);
}
END_TEST

static Suite *jit_suite(void) {
  Suite *s = suite_create("jit");
  TCase *tc = tcase_create("jit");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_cold_memory_disk);
  tcase_add_test(tc, test_truncated_entry);
  tcase_add_test(tc, test_tiny_entry);
  tcase_add_test(tc, test_corrupt_entry);
  tcase_add_test(tc, test_unwritable_cache_dir);
  tcase_add_test(tc, test_fifo_entry);
  tcase_add_test(tc, test_directory_entry);
  tcase_add_test(tc, test_full_cache_dir);
  tcase_add_test(tc, test_memory_only);
  tcase_add_test(tc, test_cache_dir_resolution);
  tcase_add_test(tc, test_num_stages);
  tcase_add_test(tc, test_concurrent_processes);
  tcase_add_test(tc, test_source_from_file);
  tcase_add_test(tc, test_compile_errors);
  tcase_add_test(tc, test_checked_launch);
  tcase_add_test(tc, test_stale_temp_files);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(jit_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
