/* driver/package.c — packages one kernel: writes its stub and compiles it in the background
 * while the caller produces the kernel object, then links both into the library.
 * In: metadata + object bytes. Out: files; temporary files are always removed. */
#include "driver/package.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/link.h"
#include "driver/stub.h"
#include "runtime/files.h"

/* One library being packaged: the stub is compiled to an object in the background (while
 * the caller's MLIR and LLVM passes produce the kernel object), then both are linked. */
struct tc_package {
  char dir[4096], obj[4200], stub[4200], stub_obj[4200];
  const tc_target *target;
  bool debug_info;
  bool compiling; /* the stub compile is running */
  tc_cc_job job;
};

tilec_status *tc_package_begin(const tc_kernel_info *info, const tc_target *target, const char *source_file,
                               bool debug_info, tc_package **out) {
  *out = NULL;
  tc_package *p = calloc(1, sizeof *p);
  if (!p) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  int err = tilec_temp_dir("tilec-build", p->dir, sizeof p->dir);
  if (err) {
    free(p);
    return tilec_status_create(TILEC_ERROR_IO, "cannot create a temporary directory in %s: %s",
                               getenv("TMPDIR") && getenv("TMPDIR")[0] ? "$TMPDIR" : "/tmp", strerror(err));
  }
  snprintf(p->obj, sizeof p->obj, "%s/kernel.o", p->dir);
  snprintf(p->stub, sizeof p->stub, "%s/stub.c", p->dir);
  snprintf(p->stub_obj, sizeof p->stub_obj, "%s/stub.o", p->dir);
  p->target = target;
  p->debug_info = debug_info;
  *out = p;
  tilec_status *st = tc_stub_write(p->stub, info, target, source_file);
  if (st) return st;
  char target_flag[200];
  snprintf(target_flag, sizeof target_flag, "--target=%s", target->triple);
  char *argv[16];
  int k = tc_cc_command(argv, "-c", debug_info, target, target_flag);
  argv[k++] = "-o";
  argv[k++] = p->stub_obj;
  argv[k++] = p->stub;
  argv[k] = NULL;
  st = tc_cc_spawn(argv, p->dir, &p->job);
  p->compiling = st == NULL;
  return st;
}

void tc_package_free(tc_package *p) {
  if (!p) return;
  if (p->compiling) tilec_status_destroy(tc_cc_wait(&p->job, "compiling the kernel stub"));
  tilec_temp_dir_remove(p->dir);
  free(p);
}

tilec_status *tc_package_finish(tc_package *p, const char *object, size_t object_len, const char *so_path) {
  tilec_status *st = NULL;
  FILE *f = fopen(p->obj, "wb");
  if (!f || fwrite(object, 1, object_len, f) != object_len)
    st = tilec_status_create(TILEC_ERROR_IO, "cannot write %s", p->obj);
  if (f) fclose(f);
  if (p->compiling) {
    p->compiling = false;
    tilec_status *cs = tc_cc_wait(&p->job, "compiling the kernel stub");
    if (!st) st = cs;
    else tilec_status_destroy(cs);
  }
  if (!st) {
    char *objs[] = {p->obj};
    st = tc_link_objects(p->stub_obj, objs, 1, p->target, so_path, p->debug_info, p->dir);
  }
  return st;
}
