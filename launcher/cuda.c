/* launcher/cuda.c — launches kernels built for --target nvptx on an NVIDIA GPU through the
 * CUDA driver API, reached with dlopen("libcuda.so.1") at the first launch: libtilec-runtime
 * has no link-time CUDA dependency, and without a driver or a GPU a launch returns
 * TILEC_ERROR_RUNTIME with a message that says so (tilec_last_error()). The library's PTX
 * (and a cubin ptxas made when the library was built) is loaded once per process; one
 * program is one CTA of block_x threads with shared_bytes of dynamic shared memory.
 * In: a kernel's image, name, grid and argument pointers. Out: 0 or a tilec_status_code. */
#include "runtime/debug.h"
#include "tilec/status.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_device_get_fn)(int *, int);
typedef int (*cu_ctx_retain_fn)(void **, int);
typedef int (*cu_ctx_set_fn)(void *);
typedef int (*cu_module_load_fn)(void **, const void *);
typedef int (*cu_module_function_fn)(void **, void *, const char *);
typedef int (*cu_func_attr_fn)(void *, int, int);
typedef int (*cu_launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                            void **, void **);
typedef int (*cu_sync_fn)(void *);
typedef int (*cu_error_string_fn)(int, const char **);

static struct {
  pthread_once_t once;
  char why[256]; /* set when the driver cannot be used */
  cu_module_load_fn module_load;
  cu_module_function_fn module_function;
  cu_func_attr_fn func_attr;
  cu_launch_fn launch;
  cu_sync_fn stream_sync;
  cu_error_string_fn error_string;
  cu_ctx_set_fn ctx_set;
  void *ctx;
} cuda = {.once = PTHREAD_ONCE_INIT};

/* Each library's image is loaded once and its kernel looked up once: a launch after the first
 * finds the CUfunction here. The table is keyed by the library's PTX (its address: one kernel
 * a library), an open-addressing hash table that grows with the libraries launched (an
 * autotuner's hundreds of configurations each keep their module). A library built by this
 * tilec forgets its entry when it is unloaded (tilec_rt_cuda_forget from its destructor), so
 * another library mapped later at the same address loads its own code; the module itself is
 * left to the context (the destructor may run at exit, after the driver is gone). A module
 * whose kernel lookup failed stays cached (the lookup is retried, the image not reloaded). */
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;
typedef struct module_entry {
  const void *key; /* the library's PTX; NULL: empty; FORGOTTEN: a removed entry */
  void *module, *fn;
} module_entry;
#define FORGOTTEN ((const void *)&modules)
static struct {
  module_entry *slots;
  size_t cap, used, live; /* used: live and forgotten slots */
} modules;

static size_t slot_of(const void *key, size_t cap) {
  uint64_t x = (uint64_t)(uintptr_t)key;
  x ^= x >> 33, x *= 0xff51afd7ed558ccdULL, x ^= x >> 33;
  return (size_t)x & (cap - 1);
}

static module_entry *module_find(const void *key) {
  for (size_t i = modules.cap ? slot_of(key, modules.cap) : 0, n = 0; n < modules.cap;
       i = (i + 1) & (modules.cap - 1), n++) {
    if (!modules.slots[i].key) return NULL;
    if (modules.slots[i].key == key) return &modules.slots[i];
  }
  return NULL;
}

/* A new entry for key (not in the table), or NULL when memory runs out (the launch goes on
 * uncached). */
static module_entry *module_insert(const void *key) {
  if ((modules.used + 1) * 4 > modules.cap * 3) { /* rehash the live entries into a larger table */
    size_t cap = 64;
    while (cap < (modules.live + 1) * 4) cap *= 2;
    module_entry *slots = calloc(cap, sizeof *slots);
    if (!slots) return NULL;
    for (size_t i = 0; i < modules.cap; i++) {
      module_entry *e = &modules.slots[i];
      if (!e->key || e->key == FORGOTTEN) continue;
      size_t j = slot_of(e->key, cap);
      while (slots[j].key) j = (j + 1) & (cap - 1);
      slots[j] = *e;
    }
    free(modules.slots);
    modules.slots = slots, modules.cap = cap, modules.used = modules.live;
  }
  size_t i = slot_of(key, modules.cap);
  while (modules.slots[i].key && modules.slots[i].key != FORGOTTEN) i = (i + 1) & (modules.cap - 1);
  modules.used += !modules.slots[i].key;
  modules.live++;
  modules.slots[i] = (module_entry){key, NULL, NULL};
  return &modules.slots[i];
}

void tilec_rt_cuda_forget(const char *ptx) {
  pthread_mutex_lock(&modules_lock);
  module_entry *e = module_find(ptx);
  if (e) *e = (module_entry){FORGOTTEN, NULL, NULL}, modules.live--;
  pthread_mutex_unlock(&modules_lock);
}

static const char *err_text(int r) {
  const char *s = NULL;
  if (cuda.error_string && cuda.error_string(r, &s) == 0 && s) return s;
  return "unknown CUDA error";
}

static void open_driver(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(cuda.why, sizeof cuda.why, "no CUDA driver: libcuda.so.1 cannot be loaded (%s)", dlerror());
    return;
  }
  cu_init_fn init = (cu_init_fn)dlsym(h, "cuInit");
  cu_device_get_fn device_get = (cu_device_get_fn)dlsym(h, "cuDeviceGet");
  cu_ctx_retain_fn retain = (cu_ctx_retain_fn)dlsym(h, "cuDevicePrimaryCtxRetain");
  cuda.ctx_set = (cu_ctx_set_fn)dlsym(h, "cuCtxSetCurrent");
  cuda.module_load = (cu_module_load_fn)dlsym(h, "cuModuleLoadData");
  cuda.module_function = (cu_module_function_fn)dlsym(h, "cuModuleGetFunction");
  cuda.func_attr = (cu_func_attr_fn)dlsym(h, "cuFuncSetAttribute");
  cuda.launch = (cu_launch_fn)dlsym(h, "cuLaunchKernel");
  cuda.stream_sync = (cu_sync_fn)dlsym(h, "cuStreamSynchronize");
  cuda.error_string = (cu_error_string_fn)dlsym(h, "cuGetErrorString");
  if (!init || !device_get || !retain || !cuda.ctx_set || !cuda.module_load || !cuda.module_function || !cuda.launch ||
      !cuda.stream_sync) {
    snprintf(cuda.why, sizeof cuda.why, "the CUDA driver libcuda.so.1 lacks the driver API tilec needs");
    return;
  }
  int r = init(0);
  if (r) {
    snprintf(cuda.why, sizeof cuda.why, "the CUDA driver cannot start (cuInit: %s): no usable NVIDIA GPU?",
             err_text(r));
    return;
  }
  int dev = 0;
  if ((r = device_get(&dev, 0)) || (r = retain(&cuda.ctx, dev)))
    snprintf(cuda.why, sizeof cuda.why, "no CUDA device 0 (%s)", err_text(r));
}

static int fail(int code, const char *fmt, const char *a, const char *b) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, a, b);
  return tilec_rt_launch_refused(code, msg);
}

int tilec_rt_cuda_enqueue(const char *kernel, const char *ptx, const unsigned char *cubin, size_t cubin_len,
                          uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, uint32_t block_x, uint32_t shared_bytes,
                          void **args, void *stream, bool wait) {
  pthread_once(&cuda.once, open_driver);
  if (cuda.why[0]) return fail(TILEC_ERROR_RUNTIME, "kernel %s: %s", kernel, cuda.why);
  if (!grid_x || !grid_y || !grid_z) return tilec_rt_launch_refused(0, "");
  int r = cuda.ctx_set(cuda.ctx);
  if (r) return fail(TILEC_ERROR_RUNTIME, "kernel %s: cuCtxSetCurrent: %s", kernel, err_text(r));
  const void *image = cubin_len ? (const void *)cubin : (const void *)ptx;
  void *module = NULL, *fn = NULL;
  pthread_mutex_lock(&modules_lock);
  module_entry *e = module_find(ptx);
  if (e) module = e->module, fn = e->fn;
  else if ((r = cuda.module_load(&module, image)) && cubin_len)
    r = cuda.module_load(&module, ptx); /* a cubin for another GPU: the driver compiles the PTX */
  int load_error = r;
  if (!r && !e && (e = module_insert(ptx))) e->module = module;
  if (!r && !fn && !(r = cuda.module_function(&fn, module, kernel))) {
    if (shared_bytes > 48 * 1024 && cuda.func_attr) /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
      cuda.func_attr(fn, 8, (int)shared_bytes);
    if (e) e->fn = fn;
  }
  pthread_mutex_unlock(&modules_lock);
  if (load_error)
    return fail(TILEC_ERROR_RUNTIME, "kernel %s: the GPU cannot load its code (cuModuleLoadData: %s)", kernel,
                err_text(r));
  if (r) return fail(TILEC_ERROR_RUNTIME, "kernel %s: cuModuleGetFunction: %s", kernel, err_text(r));
  r = cuda.launch(fn, grid_x, grid_y, grid_z, block_x, 1, 1, shared_bytes, stream, args, NULL);
  if (r) return fail(TILEC_ERROR_RUNTIME, "kernel %s: cuLaunchKernel: %s", kernel, err_text(r));
  if (wait && (r = cuda.stream_sync(stream)))
    return fail(TILEC_ERROR_RUNTIME, "kernel %s failed on the GPU: %s", kernel, err_text(r));
  return tilec_rt_launch_refused(0, "");
}

/* What libraries built by an earlier tilec call: a NULL stream waits. */
int tilec_rt_cuda_launch(const char *kernel, const char *ptx, const unsigned char *cubin, size_t cubin_len,
                         uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, uint32_t block_x, uint32_t shared_bytes,
                         void **args, void *stream) {
  return tilec_rt_cuda_enqueue(kernel, ptx, cubin, cubin_len, grid_x, grid_y, grid_z, block_x, shared_bytes, args,
                               stream, stream == NULL);
}
