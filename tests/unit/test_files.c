/* tests/unit/test_files.c — the files tilec writes (runtime/files.c): outputs replaced
 * through a temporary file + rename, and temporary directories in $TMPDIR that the next
 * process cleans up after a killed one.
 * In: a scratch directory. Out: a Check suite. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/files.h"

static char scratch[PATH_MAX];

static void path_in(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", scratch, name); }

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

static void expect_text(const char *path, const char *text) {
  char buf[256] = "";
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  ck_assert_str_eq(buf, text);
}

static int entries(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

START_TEST(test_replace_and_abort) {
  char dir[PATH_MAX + 8], p[PATH_MAX + 16];
  path_in(dir, sizeof dir, "out");
  ck_assert_int_eq(mkdir(dir, 0700), 0);
  snprintf(p, sizeof p, "%s/f.txt", dir);
  put(p, "old");
  /* An abandoned write (end without commit) leaves the old file and no temporary. */
  tilec_outfile o;
  ck_assert_int_eq(tilec_outfile_begin(&o, p), 0);
  put(o.tmp, "half");
  tilec_outfile_end(&o);
  expect_text(p, "old");
  ck_assert_int_eq(entries(dir), 1);
  ck_assert_int_eq(tilec_outfile_write(p, "new", 3), 0);
  expect_text(p, "new");
  ck_assert_int_eq(entries(dir), 1);
  /* A directory is not replaced. */
  ck_assert_int_eq(tilec_outfile_write(dir, "x", 1), EISDIR);
  /* Through a symlink, the file it points at is replaced and the link stays. */
  char link[PATH_MAX + 16];
  snprintf(link, sizeof link, "%s/link.txt", dir);
  ck_assert_int_eq(symlink("f.txt", link), 0);
  ck_assert_int_eq(tilec_outfile_write(link, "via", 3), 0);
  struct stat sb;
  ck_assert_int_eq(lstat(link, &sb), 0);
  ck_assert(S_ISLNK(sb.st_mode));
  expect_text(p, "via");
  ck_assert(tilec_same_file(link, p));
  ck_assert(!tilec_same_file(p, dir));
  ck_assert(!tilec_same_file(p, "/nonexistent/x"));
  /* A device is written in place, never renamed over. */
  ck_assert_int_eq(tilec_outfile_write("/dev/null", "x", 1), 0);
  ck_assert_int_eq(stat("/dev/null", &sb), 0);
  ck_assert(S_ISCHR(sb.st_mode));
}
END_TEST

static void make_old_dir(const char *name, time_t age) {
  char d[PATH_MAX + 64], f[PATH_MAX + 80];
  path_in(d, sizeof d, name);
  ck_assert_int_eq(mkdir(d, 0700), 0);
  snprintf(f, sizeof f, "%s/kernel.o", d);
  put(f, "leftover");
  struct timespec t[2] = {{time(NULL) - age, 0}, {time(NULL) - age, 0}};
  ck_assert_int_eq(utimensat(AT_FDCWD, d, t, 0), 0);
}

static bool exists(const char *name) {
  char d[PATH_MAX + 64];
  path_in(d, sizeof d, name);
  return access(d, F_OK) == 0;
}

/* A compile killed mid-way leaves its tilec-build-PID-* directory; the next process that
 * makes a temporary directory removes it once its process is gone and it is old enough. */
START_TEST(test_temp_dirs_honour_tmpdir_and_are_swept) {
  setenv("TMPDIR", scratch, 1);
  make_old_dir("tilec-build-999999999-aaaaaa", 7200); /* no such process, old: removed */
  make_old_dir("tilec-run-999999998-bbbbbb", 7200);   /* likewise */
  make_old_dir("tilec-build-999999997-cccccc", 10);   /* too recent: kept */
  char alive[64];
  snprintf(alive, sizeof alive, "tilec-jit-%ld-dddddd", (long)getppid()); /* process alive: kept */
  make_old_dir(alive, 7200);
  make_old_dir("tilec-build-notapid", 7200); /* not ours: kept */
  char dir[PATH_MAX];
  ck_assert_int_eq(tilec_temp_dir("tilec-build", dir, sizeof dir), 0);
  char want[PATH_MAX + 64];
  snprintf(want, sizeof want, "%s/tilec-build-%ld-", scratch, (long)getpid());
  ck_assert_msg(!strncmp(dir, want, strlen(want)), "%s does not start with %s", dir, want);
  ck_assert(!exists("tilec-build-999999999-aaaaaa"));
  ck_assert(!exists("tilec-run-999999998-bbbbbb"));
  ck_assert(exists("tilec-build-999999997-cccccc"));
  ck_assert(exists(alive));
  ck_assert(exists("tilec-build-notapid"));
  char f[PATH_MAX + 16];
  snprintf(f, sizeof f, "%s/x", dir);
  put(f, "x");
  tilec_temp_dir_remove(dir);
  ck_assert_int_ne(access(dir, F_OK), 0);
}
END_TEST

int main(void) {
  const char *base = getenv("TMPDIR");
  snprintf(scratch, sizeof scratch, "%s/tilec_test_files_XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(scratch)) return EXIT_FAILURE;
  Suite *s = suite_create("files");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_replace_and_abort);
  tcase_add_test(tc, test_temp_dirs_honour_tmpdir_and_are_swept);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
  if (system(cmd) != 0) fprintf(stderr, "test_files: could not remove %s\n", scratch);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
