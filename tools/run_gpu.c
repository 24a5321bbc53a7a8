/* tools/run_gpu.c — `tilec run --target nvptx` on an NVIDIA GPU: each .npy array a pointer
 * or tensor-descriptor parameter is bound to is copied to a device buffer, the grid is
 * launched with the library's tilec_gpu_launch (driver/package.c), the --out arrays are
 * copied back, and --repeat N times N launches with CUDA events (the kernel's time on the
 * GPU, without host overhead). The driver API is reached with dlopen("libcuda.so.1") like
 * the runtime's launcher (launcher/cuda.c), which shares the device's primary context:
 * no link-time CUDA dependency, and without a driver or a GPU a clear error, exit status 1.
 * In: the bound options, the kernel's descriptor and host launch arguments (run.c). Out:
 * the --out arrays' host data, an optional timing line on stdout, errors on stderr. */
#include "tools/run.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long cu_ptr;
typedef struct cu_api {
  int (*init)(unsigned);
  int (*device_get)(int *, int);
  int (*ctx_retain)(void **, int);
  int (*ctx_set)(void *);
  int (*mem_alloc)(cu_ptr *, size_t);
  int (*mem_free)(cu_ptr);
  int (*htod)(cu_ptr, const void *, size_t);
  int (*dtoh)(void *, cu_ptr, size_t);
  int (*stream_create)(void **, unsigned);
  int (*stream_destroy)(void *);
  int (*stream_sync)(void *);
  int (*event_create)(void **, unsigned);
  int (*event_record)(void *, void *);
  int (*event_sync)(void *);
  int (*event_elapsed)(float *, void *, void *);
  int (*event_destroy)(void *);
  int (*error_string)(int, const char **);
} cu_api;

typedef int (*gpu_launch_fn)(void *cuda_stream, uint32_t, uint32_t, uint32_t, void *const *args);

static int gpu_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int gpu_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tilec: error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  return 1;
}

static const char *cu_text(const cu_api *cu, int r) {
  const char *s = NULL;
  if (cu->error_string && cu->error_string(r, &s) == 0 && s) return s;
  return "unknown CUDA error";
}

/* The driver, its primary context current on this thread; 0 or an error's exit status. */
static int cu_open(cu_api *cu, const char *kernel) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return gpu_fail("kernel %s: no CUDA driver: libcuda.so.1 cannot be loaded (%s)", kernel, dlerror());
  struct {
    void **slot;
    const char *name;
  } syms[] = {{(void **)&cu->init, "cuInit"},
              {(void **)&cu->device_get, "cuDeviceGet"},
              {(void **)&cu->ctx_retain, "cuDevicePrimaryCtxRetain"},
              {(void **)&cu->ctx_set, "cuCtxSetCurrent"},
              {(void **)&cu->mem_alloc, "cuMemAlloc_v2"},
              {(void **)&cu->mem_free, "cuMemFree_v2"},
              {(void **)&cu->htod, "cuMemcpyHtoD_v2"},
              {(void **)&cu->dtoh, "cuMemcpyDtoH_v2"},
              {(void **)&cu->stream_create, "cuStreamCreate"},
              {(void **)&cu->stream_destroy, "cuStreamDestroy_v2"},
              {(void **)&cu->stream_sync, "cuStreamSynchronize"},
              {(void **)&cu->event_create, "cuEventCreate"},
              {(void **)&cu->event_record, "cuEventRecord"},
              {(void **)&cu->event_sync, "cuEventSynchronize"},
              {(void **)&cu->event_elapsed, "cuEventElapsedTime"},
              {(void **)&cu->event_destroy, "cuEventDestroy_v2"},
              {(void **)&cu->error_string, "cuGetErrorString"}};
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
    if (!(*syms[i].slot = dlsym(h, syms[i].name)))
      return gpu_fail("kernel %s: the CUDA driver libcuda.so.1 lacks %s", kernel, syms[i].name);
  int r, dev = 0;
  void *ctx = NULL;
  if ((r = cu->init(0)))
    return gpu_fail("kernel %s: the CUDA driver cannot start (cuInit: %s): no usable NVIDIA GPU?", kernel,
                    cu_text(cu, r));
  if ((r = cu->device_get(&dev, 0)) || (r = cu->ctx_retain(&ctx, dev)) || (r = cu->ctx_set(ctx)))
    return gpu_fail("kernel %s: no CUDA device 0 (%s)", kernel, cu_text(cu, r));
  return 0;
}

/* The library's stream launcher: the library that defines the descriptor k. */
static gpu_launch_fn library_launcher(const tilec_kernel_desc *k) {
  Dl_info info;
  if (!dladdr(k, &info) || !info.dli_fname) return NULL;
  void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return NULL;
  gpu_launch_fn fn = (gpu_launch_fn)dlsym(h, "tilec_gpu_launch");
  dlclose(h); /* still loaded: the JIT holds it */
  return fn;
}

typedef struct dev_buf {
  int binding; /* index into o->bindings */
  cu_ptr ptr;
} dev_buf;

static int binding_of(const run_opts *o, const void *host) {
  for (int b = 0; b < o->nbindings; b++)
    if (o->bindings[b].value.kind == RUN_VALUE_NPY && o->bindings[b].arr.data == host) return b;
  return -1;
}

/* Runs the launches once the arguments are device pointers. */
static int gpu_run(const run_opts *o, const cu_api *cu, gpu_launch_fn launch, void *const *args) {
  const uint32_t *g = o->grid_xyz;
  if (!o->repeat) {
    int rc = launch(NULL, g[0], g[1], g[2], args); /* NULL stream: waits for the kernel */
    return rc ? gpu_fail("%s", tilec_last_error()) : 0;
  }
  void *stream = NULL, *ev[2] = {NULL, NULL};
  int r = cu->stream_create(&stream, 0);
  if (!r) r = cu->event_create(&ev[0], 0);
  if (!r) r = cu->event_create(&ev[1], 0);
  if (r) return gpu_fail("CUDA streams/events: %s", cu_text(cu, r));
  double *ms = malloc((size_t)o->repeat * sizeof *ms);
  int rc = ms ? 0 : gpu_fail("out of memory for %ld timings", o->repeat);
  /* the warm-up loads the module and JIT-compiles PTX the cubin does not cover */
  if (!rc && launch(stream, g[0], g[1], g[2], args)) rc = gpu_fail("%s", tilec_last_error());
  if (!rc && (r = cu->stream_sync(stream))) rc = gpu_fail("the kernel failed: %s", cu_text(cu, r));
  for (long i = 0; !rc && i < o->repeat; i++) {
    float t = 0;
    if ((r = cu->event_record(ev[0], stream))) break;
    if (launch(stream, g[0], g[1], g[2], args)) {
      rc = gpu_fail("%s", tilec_last_error());
      break;
    }
    if ((r = cu->event_record(ev[1], stream)) || (r = cu->event_sync(ev[1])) ||
        (r = cu->event_elapsed(&t, ev[0], ev[1])))
      break;
    ms[i] = t;
  }
  if (!rc && r) rc = gpu_fail("timing the kernel: %s", cu_text(cu, r));
  if (!rc) {
    double median, min;
    run_summarize(ms, o->repeat, &median, &min);
    printf("time: median_ms=%.6f min_ms=%.6f runs=%ld (GPU, CUDA events)\n", median, min, o->repeat);
    fflush(stdout);
  }
  free(ms);
  cu->event_destroy(ev[0]);
  cu->event_destroy(ev[1]);
  cu->stream_destroy(stream);
  return rc;
}

int run_gpu_launch(const run_opts *o, const tilec_kernel_desc *k, void **args) {
  if (o->one_program) return gpu_fail("--program runs one program on the CPU; --target nvptx launches the whole grid");
  gpu_launch_fn launch = library_launcher(k);
  if (!launch)
    return gpu_fail("kernel '%s' has no CPU program and its library no GPU launcher (tilec_gpu_launch)", k->name);
  cu_api cu;
  memset(&cu, 0, sizeof cu);
  int rc = cu_open(&cu, k->name);
  if (rc) return rc;
  dev_buf *bufs = calloc((size_t)o->nbindings + 1, sizeof *bufs);
  int nbufs = 0;
  if (!bufs) return gpu_fail("out of memory");
  /* every array a pointer or descriptor reads goes to the device; args then hold device
   * addresses (run.c's slots: the pointer, the descriptor's base) */
  for (uint32_t p = 0, a = 0; !rc && p < k->num_params; p++) {
    const tilec_param_desc *pd = &k->params[p];
    if (pd->kind == TILEC_PARAM_CONSTEXPR) continue;
    void **host = pd->kind == TILEC_PARAM_POINTER      ? (void **)args[a]
                  : pd->kind == TILEC_PARAM_TENSORDESC ? &((tilec_tensor_descriptor *)args[a])->base
                                                       : NULL;
    a++;
    if (!host) continue;
    int b = binding_of(o, *host);
    if (b < 0) {
      rc = gpu_fail("kernel %s: parameter '%s' is not bound to an array", k->name, pd->name ? pd->name : "?");
      break;
    }
    const tilec_npy *arr = &o->bindings[b].arr;
    cu_ptr d = 0;
    int r = cu.mem_alloc(&d, arr->nbytes ? arr->nbytes : 1);
    if (!r && arr->nbytes) r = cu.htod(d, arr->data, arr->nbytes);
    if (r)
      rc = gpu_fail("kernel %s: %s (%zu bytes) to the GPU: %s", k->name, o->bindings[b].name, arr->nbytes,
                    cu_text(&cu, r));
    if (d) bufs[nbufs++] = (dev_buf){b, d};
    *host = (void *)(uintptr_t)d;
  }
  if (!rc) rc = gpu_run(o, &cu, launch, args);
  for (int i = 0; !rc && i < o->nouts; i++) {
    int b = o->outs[i].binding;
    const tilec_npy *arr = &o->bindings[b].arr;
    int j = 0;
    while (j < nbufs && bufs[j].binding != b) j++;
    if (j == nbufs) continue; /* an array no parameter reads: unchanged */
    int r = arr->nbytes ? cu.dtoh(arr->data, bufs[j].ptr, arr->nbytes) : 0;
    if (r) rc = gpu_fail("kernel %s: --out %s from the GPU: %s", k->name, o->outs[i].name, cu_text(&cu, r));
  }
  for (int i = 0; i < nbufs; i++) cu.mem_free(bufs[i].ptr);
  free(bufs);
  return rc;
}
