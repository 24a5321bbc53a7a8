/* bench/peers/ocl_bench.c — the PoCL peer: builds the kernels in bench/peers/opencl/ on
 * the first CPU OpenCL device and times clEnqueueNDRangeKernel + clFinish (buffers wrap
 * host memory: no copies are timed), plus clBuildProgram. Threads: POCL_MAX_PTHREAD_COUNT. */
#include "../common.h"

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

static int threads;
static const char *src_dir;
static cl_context ctx;
static cl_device_id dev;
static cl_command_queue queue;

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cl_int err_ = (call);                                                                                              \
    if (err_ != CL_SUCCESS) {                                                                                          \
      fprintf(stderr, "ocl_bench: %s failed: %d (line %d)\n", #call, err_, __LINE__);                                  \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

static char *read_text(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", src_dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "ocl_bench: cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) exit(1);
  s[n] = 0;
  fclose(f);
  return s;
}

/* Builds a program from the named .cl files; returns the build time via *secs. */
static cl_program build(const char *const *files, int nfiles, double *secs) {
  const char *srcs[8];
  for (int i = 0; i < nfiles; i++) srcs[i] = read_text(files[i]);
  cl_int err;
  double t0 = bench_now();
  cl_program p = clCreateProgramWithSource(ctx, (cl_uint)nfiles, srcs, NULL, &err);
  CHECK(err);
  err = clBuildProgram(p, 1, &dev, "-cl-std=CL1.2", NULL, NULL);
  if (secs) *secs = bench_now() - t0;
  if (err != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "ocl_bench: build failed (%d):\n%s\n", err, log);
    exit(1);
  }
  for (int i = 0; i < nfiles; i++) free((void *)srcs[i]);
  return p;
}

static cl_kernel kernel(const char *file, const char *name) {
  cl_program p = build(&file, 1, NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  CHECK(err);
  return k;
}

static cl_mem wrap(void *host, size_t bytes) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &err);
  CHECK(err);
  return m;
}

/* Makes the device's writes to a USE_HOST_PTR buffer visible to the host before checking. */
static void sync_to_host(cl_mem m, size_t bytes) {
  cl_int err;
  void *p = clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, NULL, &err);
  CHECK(err);
  CHECK(clEnqueueUnmapMemObject(queue, m, p, 0, NULL, NULL));
  CHECK(clFinish(queue));
}

typedef struct launch {
  cl_kernel k;
  cl_uint dims;
  size_t global[2];
  const size_t *local; /* NULL: PoCL picks the work-group size */
} launch;

static int run(void *p) {
  launch *l = p;
  if (clEnqueueNDRangeKernel(queue, l->k, l->dims, NULL, l->global, l->local, 0, NULL, NULL) != CL_SUCCESS) return 1;
  return clFinish(queue) != CL_SUCCESS;
}

static void emit(const char *bench, const char *size, launch *l, double budget, double err, const char *extra) {
  bench_result r = bench_measure(run, l, budget);
  char note[200] = "";
  const char *st = r.reps == 0 ? "error" : err < 0 ? "ok" : bench_status(err, note, sizeof note);
  if (!note[0] && extra) snprintf(note, sizeof note, "%s", extra);
  bench_emit(bench, size, "pocl", threads, r.reps ? &r : NULL, st, note);
}

/* Checking needs the output of one run, so measurements below run once (then sync) first. */
static double first_run(launch *l, cl_mem out, size_t bytes) {
  if (run(l)) return INFINITY;
  sync_to_host(out, bytes);
  return 0;
}

static void bench_vadd(size_t n) {
  float *x = bench_alloc(n * 4), *y = bench_alloc(n * 4), *o = bench_alloc(n * 4);
  bench_fill(x, n, 1, -1, 1);
  bench_fill(y, n, 2, -1, 1);
  cl_mem bx = wrap(x, n * 4), by = wrap(y, n * 4), bo = wrap(o, n * 4);
  launch l = {kernel("vector_add.cl", "vadd"), 1, {n, 0}, NULL};
  CHECK(clSetKernelArg(l.k, 0, sizeof bx, &bx));
  CHECK(clSetKernelArg(l.k, 1, sizeof by, &by));
  CHECK(clSetKernelArg(l.k, 2, sizeof bo, &bo));
  double e = first_run(&l, bo, n * 4) + bench_check_vadd(x, y, o, n);
  char size[32];
  snprintf(size, sizeof size, "%zu", n);
  emit("vector_add", size, &l, 1.0, e, NULL);
}

/* Row kernels get work-groups of 16 rows: with a NULL local size PoCL 3.1 makes one
 * work-group of all rows, which runs on one thread (measured: no 2-thread speed-up). */
static const size_t rows_per_group = 16;

static void bench_softmax(int rows, int cols) {
  size_t n = (size_t)rows * cols;
  float *in = bench_alloc(n * 4), *out = bench_alloc(n * 4);
  bench_fill(in, n, 3, -8, 8);
  cl_mem bi = wrap(in, n * 4), bo = wrap(out, n * 4);
  launch l = {kernel("softmax.cl", "softmax"), 1, {(size_t)rows, 0}, &rows_per_group};
  CHECK(clSetKernelArg(l.k, 0, sizeof bi, &bi));
  CHECK(clSetKernelArg(l.k, 1, sizeof bo, &bo));
  CHECK(clSetKernelArg(l.k, 2, sizeof cols, &cols));
  double e = first_run(&l, bo, n * 4) + bench_check_softmax(in, out, rows, cols);
  char size[32];
  snprintf(size, sizeof size, "%dx%d", rows, cols);
  emit("softmax", size, &l, 1.0, e, "naive: one work-item per row, 16 rows per work-group");
}

static void bench_layernorm(int rows, int cols) {
  size_t n = (size_t)rows * cols;
  float eps = 1e-5f;
  float *x = bench_alloc(n * 4), *y = bench_alloc(n * 4), *w = bench_alloc(cols * 4ull), *b = bench_alloc(cols * 4ull);
  float *mean = bench_alloc(rows * 4ull), *rstd = bench_alloc(rows * 4ull);
  bench_fill(x, n, 4, -2, 3);
  bench_fill(w, (size_t)cols, 5, 0.5f, 1.5f);
  bench_fill(b, (size_t)cols, 6, -0.5f, 0.5f);
  cl_mem m[6] = {wrap(x, n * 4),       wrap(y, n * 4),          wrap(w, cols * 4ull),
                 wrap(b, cols * 4ull), wrap(mean, rows * 4ull), wrap(rstd, rows * 4ull)};
  launch l = {kernel("layernorm.cl", "layernorm"), 1, {(size_t)rows, 0}, &rows_per_group};
  for (cl_uint i = 0; i < 6; i++) CHECK(clSetKernelArg(l.k, i, sizeof m[i], &m[i]));
  CHECK(clSetKernelArg(l.k, 6, sizeof cols, &cols));
  CHECK(clSetKernelArg(l.k, 7, sizeof eps, &eps));
  double e = first_run(&l, m[1], n * 4) + bench_check_layernorm(x, w, b, y, rows, cols, eps);
  char size[32];
  snprintf(size, sizeof size, "%dx%d", rows, cols);
  emit("layernorm", size, &l, 1.0, e, "naive: one work-item per row, 16 rows per work-group");
}

static void bench_matmul(int n) {
  size_t e = (size_t)n * n;
  float *a = bench_alloc(e * 4), *b = bench_alloc(e * 4), *c = bench_alloc(e * 4);
  bench_fill(a, e, 7, -1, 1);
  bench_fill(b, e, 8, -1, 1);
  cl_mem ba = wrap(a, e * 4), bb = wrap(b, e * 4), bc = wrap(c, e * 4);
  launch l = {kernel("matmul.cl", "matmul"), 2, {(size_t)n, (size_t)n}, NULL};
  CHECK(clSetKernelArg(l.k, 0, sizeof ba, &ba));
  CHECK(clSetKernelArg(l.k, 1, sizeof bb, &bb));
  CHECK(clSetKernelArg(l.k, 2, sizeof bc, &bc));
  CHECK(clSetKernelArg(l.k, 3, sizeof n, &n));
  double err = first_run(&l, bc, e * 4) + bench_check_matmul(a, b, c, n);
  char size[32];
  snprintf(size, sizeof size, "%d", n);
  emit("matmul", size, &l, 2.0, err, "naive: one work-item per element");
}

static void bench_launch(void) {
  float *x = bench_alloc(64);
  cl_mem bx = wrap(x, 64);
  static const size_t one = 1;
  launch l = {kernel("empty.cl", "empty"), 1, {1, 0}, &one};
  CHECK(clSetKernelArg(l.k, 0, sizeof bx, &bx));
  emit("launch", "grid 1", &l, 1.0, -1, "clEnqueueNDRangeKernel + clFinish");
  l.global[0] = 1024;
  emit("launch", "grid 1024", &l, 1.0, -1, "1024 work-groups of 1 work-item; enqueue + finish");
}

/* One sample per process, so a "cold" build also pays PoCL's one-time start-up in the
 * process (LLVM, its kernel library), as tilec's cold compile pays MLIR's; the caller
 * decides whether PoCL's kernel cache (POCL_CACHE_DIR) is fresh (cold) or filled (cached). */
static void bench_build(const char *mode, const char *which) {
  static const char *all[] = {"vector_add.cl", "softmax.cl", "layernorm.cl", "matmul.cl", "empty.cl"};
  const char *const *files = all;
  int n = 5;
  if (!strcmp(which, "vector_add")) n = 1;
  else if (!strcmp(which, "matmul")) files = all + 3, n = 1;
  else which = "5 kernels";
  char bench[64];
  snprintf(bench, sizeof bench, "compile (%s)", mode);
  double t;
  cl_program p = build(files, n, &t);
  clReleaseProgram(p);
  bench_result r = {t, t, 1, 1};
  bench_emit(bench, which, "pocl", threads, &r, "ok",
             "clBuildProgram in a fresh process; PoCL still generates the work-group function "
             "at the first launch");
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: ocl_bench SRC_DIR TASK [ARGS]\n  tasks: vector_add N | softmax ROWS COLS | "
                    "layernorm ROWS COLS | matmul N | launch | build cold|cached vector_add|matmul|all | device\n");
    return 2;
  }
  src_dir = argv[1];
  threads = bench_threads_from_env("POCL_MAX_PTHREAD_COUNT");
  cl_uint np;
  cl_platform_id plats[8];
  CHECK(clGetPlatformIDs(8, plats, &np));
  cl_int err = CL_DEVICE_NOT_FOUND;
  for (cl_uint i = 0; i < np && err != CL_SUCCESS; i++)
    err = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_CPU, 1, &dev, NULL);
  CHECK(err);
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK(err);
  queue = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
  CHECK(err);

  const char *task = argv[2];
  if (!strcmp(task, "device")) {
    char name[256], ver[256];
    cl_uint cu;
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL));
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof ver, ver, NULL));
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL));
    printf("%s | %s | %u compute units\n", name, ver, cu);
  } else if (!strcmp(task, "vector_add") && argc > 3) {
    bench_vadd((size_t)atol(argv[3]));
  } else if (!strcmp(task, "softmax") && argc > 4) {
    bench_softmax(atoi(argv[3]), atoi(argv[4]));
  } else if (!strcmp(task, "layernorm") && argc > 4) {
    bench_layernorm(atoi(argv[3]), atoi(argv[4]));
  } else if (!strcmp(task, "matmul") && argc > 3) {
    bench_matmul(atoi(argv[3]));
  } else if (!strcmp(task, "launch")) {
    bench_launch();
  } else if (!strcmp(task, "build") && argc > 4) {
    bench_build(argv[3], argv[4]);
  } else {
    fprintf(stderr, "ocl_bench: bad task '%s'\n", task);
    return 2;
  }
  return 0;
}
