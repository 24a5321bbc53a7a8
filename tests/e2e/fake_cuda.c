/* tests/e2e/fake_cuda.c — a stand-in libcuda.so.1 for tests on machines without a GPU: the
 * driver API tilec reaches with dlopen, with host memory as device memory and a launch
 * that runs nothing but copies each kernel parameter the way cuLaunchKernel does — as many
 * bytes from args[i] as the PTX entry declares for parameter i (.u32: 4, .u64: 8,
 * .b8 name[80]: 80) — and records them. Tests read the record through fake_cuda_param()
 * (dlopen the same soname) or the file $FAKE_CUDA_LOG (one "launch" line, then one
 * "param I SIZE HEX" line per parameter). A cubin is refused (no binary for this GPU), so
 * the launcher hands over its PTX, which is what the record is made from.
 * FAKE_CUDA_LAUNCH=fill makes a launch write 0xA5 into every byte of each buffer a
 * parameter's first 8 bytes name (a pointer or a tensor descriptor's base that is one of
 * its allocations): what a kernel wrote there must come back to the host.
 * FAKE_CUDA_FAIL=init makes cuInit fail, FAKE_CUDA_FAIL=function every cuModuleGetFunction. FAKE_CUDA_CC=MN sets the compute capability M.N
 * (default 90); a PTX module's `.target` is logged as "module sm_XX" (which library ran), and
 * cuStreamSynchronize as "sync default" (the NULL stream) or "sync stream" (which launches wait). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
enum { MAX_PARAMS = 64, MAX_ALLOCS = 1024, NO_BINARY = 209, INVALID_VALUE = 1, NOT_FOUND = 500, NOT_INIT = 3 };

typedef struct fake_fn {
  char name[256];
  int nparams;
  size_t size[MAX_PARAMS];
} fake_fn;

static struct {
  void *p;
  size_t n;
} allocs[MAX_ALLOCS];
static unsigned char last[MAX_PARAMS][256];
static size_t last_size[MAX_PARAMS];
static int last_n = -1;

EXPORT const unsigned char *fake_cuda_param(int i, size_t *size) {
  if (i < 0 || i >= last_n) return NULL;
  *size = last_size[i];
  return last[i];
}

EXPORT int fake_cuda_launches(void) { return last_n >= 0; }

EXPORT int cuInit(unsigned flags) {
  (void)flags;
  const char *f = getenv("FAKE_CUDA_FAIL");
  return f && !strcmp(f, "init") ? 100 /* CUDA_ERROR_NO_DEVICE */ : 0;
}
EXPORT int cuDeviceGet(int *d, int ordinal) {
  *d = ordinal;
  return ordinal == 0 ? 0 : INVALID_VALUE;
}
EXPORT int cuDeviceGetCount(int *n) {
  *n = 1;
  return 0;
}
EXPORT int cuDeviceGetAttribute(int *v, int attr, int dev) {
  (void)dev;
  const char *cc = getenv("FAKE_CUDA_CC");
  int mn = cc ? atoi(cc) : 90; /* compute capability 9.0 */
  *v = attr == 75 ? mn / 10 : attr == 76 ? mn % 10 : 1;
  return 0;
}
EXPORT int cuDeviceGetName(char *name, int len, int dev) {
  (void)dev;
  snprintf(name, (size_t)len, "fake GPU (tests/e2e/fake_cuda.c)");
  return 0;
}
EXPORT int cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  (void)dev;
  *ctx = (void *)allocs;
  return 0;
}
EXPORT int cuCtxSetCurrent(void *ctx) { return ctx ? 0 : INVALID_VALUE; }
EXPORT int cuCtxSynchronize(void) { return 0; }
static void log_line(const char *line) {
  const char *path = getenv("FAKE_CUDA_LOG");
  FILE *log = path ? fopen(path, "a") : NULL;
  if (log) fputs(line, log), fclose(log);
}
EXPORT int cuStreamSynchronize(void *s) {
  log_line(s ? "sync stream\n" : "sync default\n");
  return 0;
}
EXPORT int cuStreamCreate(void **s, unsigned flags) {
  (void)flags;
  *s = malloc(1);
  return *s ? 0 : 2;
}
EXPORT int cuStreamDestroy_v2(void *s) {
  free(s);
  return 0;
}
EXPORT int cuGetErrorString(int r, const char **s) {
  *s = r == NO_BINARY ? "no kernel image is available for execution on the device (fake)" : "fake CUDA error";
  return 0;
}

EXPORT int cuModuleLoadData(void **module, const void *image) {
  if (!memcmp(image, "\177ELF", 4)) return NO_BINARY;
  char *copy = strdup(image);
  if (!copy) return 2;
  const char *path = getenv("FAKE_CUDA_LOG"), *t = strstr(copy, "\n.target ");
  FILE *log = path && t ? fopen(path, "a") : NULL;
  if (log) fprintf(log, "module %.*s\n", (int)strcspn(t + 9, " ,\n"), t + 9);
  if (log) fclose(log);
  *module = copy;
  return 0;
}

static size_t scalar_size(const char *t) {
  if (strstr(t, "64")) return 8;
  if (strstr(t, "32")) return 4;
  if (strstr(t, "16")) return 2;
  return 1;
}

EXPORT int cuModuleGetFunction(void **fn, void *module, const char *name) {
  char key[300];
  snprintf(key, sizeof key, ".entry %s(", name);
  const char *p = strstr(module, key), *fail = getenv("FAKE_CUDA_FAIL");
  if (!p || (fail && !strcmp(fail, "function"))) return NOT_FOUND;
  fake_fn *f = calloc(1, sizeof *f);
  if (!f) return 2;
  snprintf(f->name, sizeof f->name, "%s", name);
  p += strlen(key);
  const char *end = strchr(p, ')');
  while (end && p < end && f->nparams < MAX_PARAMS) {
    const char *q = strstr(p, ".param");
    if (!q || q > end) break;
    const char *comma = strchr(q, ',');
    if (!comma || comma > end) comma = end;
    char decl[256];
    snprintf(decl, sizeof decl, "%.*s", (int)(comma - q), q);
    /* ".param .align 8 .b8 name[80]", ".param .u64 .ptr .align 1 name", ".param .u32 name" */
    size_t sz = 0;
    for (char *save = NULL, *t = strtok_r(decl, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
      if (!strcmp(t, ".param") || !strcmp(t, ".ptr")) continue;
      if (!strcmp(t, ".align")) {
        strtok_r(NULL, " \t\n", &save);
        continue;
      }
      if (t[0] == '.' && !sz) sz = scalar_size(t);
      else if (strchr(t, '[')) sz *= strtoul(strchr(t, '[') + 1, NULL, 10);
    }
    f->size[f->nparams++] = sz;
    p = comma + 1;
  }
  *fn = f;
  return 0;
}

EXPORT int cuFuncSetAttribute(void *fn, int attr, int v) {
  (void)fn, (void)attr, (void)v;
  return 0;
}

static size_t alloc_size(uint64_t a) {
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (allocs[i].p && (uint64_t)(uintptr_t)allocs[i].p == a) return allocs[i].n;
  return 0;
}

EXPORT int cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void *stream, void **args, void **extra) {
  (void)stream, (void)extra, (void)by, (void)bz;
  fake_fn *f = fn;
  const char *path = getenv("FAKE_CUDA_LOG");
  FILE *log = path ? fopen(path, "a") : NULL;
  if (log) fprintf(log, "launch %s grid %u %u %u block %u shared %u\n", f->name, gx, gy, gz, bx, shared);
  const char *mode = getenv("FAKE_CUDA_LAUNCH");
  for (int i = 0; i < f->nparams; i++) {
    size_t n = f->size[i] < sizeof last[i] ? f->size[i] : sizeof last[i];
    memcpy(last[i], args[i], n); /* what the driver copies into the kernel's parameter space */
    last_size[i] = f->size[i];
    if (log) {
      fprintf(log, "param %d %zu ", i, f->size[i]);
      for (size_t k = 0; k < n; k++) fprintf(log, "%02x", last[i][k]);
      fprintf(log, "\n");
    }
    if (mode && !strcmp(mode, "fill") && n >= 8) { /* a pointer, or a descriptor's base */
      uint64_t a;
      memcpy(&a, last[i], 8);
      size_t bytes = alloc_size(a);
      if (bytes) memset((void *)(uintptr_t)a, 0xA5, bytes);
    }
  }
  last_n = f->nparams;
  if (log) fclose(log);
  return 0;
}

EXPORT int cuMemAlloc_v2(uint64_t *dptr, size_t n) {
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (!allocs[i].p) {
      allocs[i].p = malloc(n ? n : 1);
      if (!allocs[i].p) return 2;
      allocs[i].n = n;
      *dptr = (uint64_t)(uintptr_t)allocs[i].p;
      return 0;
    }
  return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
}
EXPORT int cuMemFree_v2(uint64_t d) {
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (allocs[i].p && (uint64_t)(uintptr_t)allocs[i].p == d) {
      free(allocs[i].p);
      allocs[i].p = NULL;
      return 0;
    }
  return INVALID_VALUE;
}
EXPORT int cuMemcpyHtoD_v2(uint64_t d, const void *h, size_t n) {
  if (n > alloc_size(d)) return INVALID_VALUE;
  memcpy((void *)(uintptr_t)d, h, n);
  return 0;
}
EXPORT int cuMemcpyDtoH_v2(void *h, uint64_t d, size_t n) {
  if (n > alloc_size(d)) return INVALID_VALUE;
  memcpy(h, (const void *)(uintptr_t)d, n);
  return 0;
}
EXPORT int cuEventCreate(void **e, unsigned flags) {
  (void)flags;
  *e = malloc(1);
  return *e ? 0 : 2;
}
EXPORT int cuEventRecord(void *e, void *stream) {
  (void)e, (void)stream;
  return 0;
}
EXPORT int cuEventSynchronize(void *e) {
  (void)e;
  return 0;
}
EXPORT int cuEventElapsedTime(float *ms, void *a, void *b) {
  (void)a, (void)b;
  *ms = 0.25f;
  return 0;
}
EXPORT int cuEventDestroy_v2(void *e) {
  free(e);
  return 0;
}
