#!/usr/bin/env bash
# tests/e2e/nvptx_library.sh TILEC INCLUDE_DIR RUNTIME_DIR — a library built for
# --target nvptx: `tilec compile -o K.so --header K.h` embeds the PTX (and a cubin when ptxas
# is found), exports K_launch and K_launch_async with the typed parameters, and, launched on
# a machine without a CUDA driver or GPU, returns TILEC_ERROR_RUNTIME with a message that
# says so; the C API's JIT compiles and caches the same library (keyed on arch, warps and
# stages)
# and launches it through the driver. Where /dev/nvidia0 exists the kernel runs on the GPU
# on device buffers and its results are checked instead.
set -euo pipefail
TILEC=$1 INC=$2 RT=$3
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$TILEC" compile "$ROOT/examples/vector_add/add.py" -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" \
  --target nvptx --arch sm_80 --num-warps 8 --num-stages 2 -o "$T/add.so" --header "$T/add.h"
grep -q 'int add_kernel_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, float \*x_ptr' "$T/add.h" || fail "header: add_kernel_launch"
grep -q 'int add_kernel_launch_async(void \*cuda_stream' "$T/add.h" || fail "header: add_kernel_launch_async"
# (into files first: `grep -q` in a pipeline under pipefail fails when it stops reading early)
nm -D --defined-only "$T/add.so" >"$T/syms"
strings "$T/add.so" >"$T/strings"
grep -q ' T add_kernel_launch$' "$T/syms" || fail "library: no add_kernel_launch"
grep -q ' T add_kernel_launch_async$' "$T/syms" || fail "library: no add_kernel_launch_async"
grep -q '.entry add_kernel' "$T/strings" || fail "library: no PTX entry add_kernel embedded"
grep -q '.maxntid 256' "$T/strings" || fail "library: --num-warps 8 is not 256 threads"
grep -q 'nvptx64-nvidia-cuda sm_80 8 warps 2 stages' "$T/strings" || fail "library: the descriptor's target is not sm_80, 8 warps, 2 stages"

cat > "$T/main.c" <<'C'
#include "add.h"
#include <stdio.h>
#include <string.h>
#include <tilec/runtime.h>
#include <tilec/status.h>
int main(void) {
  float x[4] = {1, 2, 3, 4}, y[4] = {1, 1, 1, 1}, o[4] = {0};
  int rc = add_kernel_launch(1, 1, 1, x, y, o, 4);
  printf("%d %s\n", rc, tilec_last_error());
  return rc == TILEC_ERROR_RUNTIME ? 0 : 1;
}
C
CC=${CC:-$(command -v clang-22 || command -v cc)}
"$CC" -I"$T" -I"$INC" "$T/main.c" "$T/add.so" -L"$RT" -ltilec-runtime -Wl,-rpath,"$RT" -Wl,-rpath,"$T" -o "$T/main"

# The C API's JIT with target "nvptx": the same library, cached under a key that includes the
# target, arch, warps and stages (as used: 0 is the default 3); its descriptor has no CPU program and tilec_jit_kernel_launch sends
# the grid to the GPU (args as for the CPU: args[i] points at the value).
cat > "$T/jit.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <tilec/runtime.h>
#include <tilec/tilec.h>
static const char src[] = "import triton\nimport triton.language as tl\n@triton.jit\n"
                          "def twice(x_ptr, n, BLOCK: tl.constexpr):\n    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                          "    tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < n) * 2, mask=o < n)\n";
static int jit(const char *arch, unsigned warps, unsigned stages, tilec_jit_kernel **k) {
  tilec_compile_options o;
  tilec_compile_options_init(&o);
  o.target = "nvptx";
  o.arch = arch;
  o.num_warps = warps;
  o.num_stages = stages;
  tilec_compiler *c;
  tilec_status *st = tilec_compiler_create(&o, &c);
  tilec_kernel_spec s;
  memset(&s, 0, sizeof s);
  s.source = src, s.source_len = strlen(src), s.filename = "twice.py", s.kernel = "twice", s.signature = "*fp32, i32, 256";
  if (!st) st = tilec_jit_compile(c, &s, k, NULL);
  if (st) printf("jit %s: %s\n", arch, tilec_status_message(st));
  tilec_compiler_destroy(c);
  return st ? 1 : 0;
}
int main(int argc, char **argv) {
  tilec_jit_kernel *a, *b, *a2, *s2;
  if (jit("sm_80", 4, 0, &a) || jit("sm_90", 8, 0, &b) || jit("sm_80", 4, 3, &a2) || jit("sm_80", 4, 2, &s2)) return 1;
  const tilec_kernel_desc *d = tilec_jit_kernel_desc(a);
  if (strcmp(d->name, "twice") || d->num_args != 2 || d->program || !strstr(d->target, "nvptx") ||
      !strstr(d->target, "sm_80 4 warps 3 stages")) {
    printf("descriptor: %s %u %s\n", d->name, d->num_args, d->target);
    return 1;
  }
  if (!strcmp(tilec_jit_kernel_cache_path(a), tilec_jit_kernel_cache_path(b)) ||
      strcmp(tilec_jit_kernel_cache_path(a), tilec_jit_kernel_cache_path(a2)) ||
      !strcmp(tilec_jit_kernel_cache_path(a), tilec_jit_kernel_cache_path(s2))) {
    printf("cache keys: %s %s %s %s\n", tilec_jit_kernel_cache_path(a), tilec_jit_kernel_cache_path(b),
           tilec_jit_kernel_cache_path(a2), tilec_jit_kernel_cache_path(s2));
    return 1;
  }
  int n = 4;
  void *x = argc > 1 ? (void *)argv[1] : (void *)&n; /* any non-NULL pointer: no driver is reached */
  void *args[2] = {&x, &n};
  tilec_status *st = tilec_jit_kernel_launch(a, 1, 1, 1, args, 1, NULL);
  printf("short args: %s\n", st ? tilec_status_message(st) : "accepted");
  if (!st) return 1;
  tilec_status_destroy(st);
  st = tilec_jit_kernel_launch(a, 1, 1, 1, args, 2, NULL);
  printf("%d %s\n", st ? (int)tilec_status_code_of(st) : 0, st ? tilec_status_message(st) : "");
  return st && tilec_status_code_of(st) == TILEC_ERROR_RUNTIME ? 0 : 1;
}
C
"$CC" -I"$INC" "$T/jit.c" -L"$RT" -ltilec -ltilec-runtime -Wl,-rpath,"$RT" -o "$T/jit"

# On a GPU: device buffers through the driver API, the typed launcher, results compared.
cat > "$T/gpu.c" <<'C'
#include "add.h"
#include <dlfcn.h>
#include <stdio.h>
#include <tilec/runtime.h>
typedef int (*fn_i)(unsigned);
typedef int (*fn_dev)(int *, int);
typedef int (*fn_ctx)(void **, int);
typedef int (*fn_set)(void *);
typedef int (*fn_alloc)(unsigned long long *, size_t);
typedef int (*fn_htod)(unsigned long long, const void *, size_t);
typedef int (*fn_dtoh)(void *, unsigned long long, size_t);
int main(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h) return printf("no libcuda.so.1\n"), 1;
  fn_i init = (fn_i)dlsym(h, "cuInit");
  fn_dev dev = (fn_dev)dlsym(h, "cuDeviceGet");
  fn_ctx retain = (fn_ctx)dlsym(h, "cuDevicePrimaryCtxRetain");
  fn_set set = (fn_set)dlsym(h, "cuCtxSetCurrent");
  fn_alloc alloc = (fn_alloc)dlsym(h, "cuMemAlloc_v2");
  fn_htod htod = (fn_htod)dlsym(h, "cuMemcpyHtoD_v2");
  fn_dtoh dtoh = (fn_dtoh)dlsym(h, "cuMemcpyDtoH_v2");
  int d;
  void *ctx;
  if (init(0) || dev(&d, 0) || retain(&ctx, d) || set(ctx)) return printf("no CUDA context\n"), 1;
  enum { N = 5000 };
  static float x[N], y[N], o[N];
  for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 0.5f * (float)i;
  unsigned long long dx, dy, dout;
  if (alloc(&dx, sizeof x) || alloc(&dy, sizeof y) || alloc(&dout, sizeof o) || htod(dx, x, sizeof x) ||
      htod(dy, y, sizeof y))
    return printf("device buffers failed\n"), 1;
  int rc = add_kernel_launch((N + 1023) / 1024, 1, 1, (float *)dx, (float *)dy, (float *)dout, N);
  if (rc) return printf("launch: %d %s\n", rc, tilec_last_error()), 1;
  if (dtoh(o, dout, sizeof o)) return printf("copy back failed\n"), 1;
  for (int i = 0; i < N; i++)
    if (o[i] != x[i] + y[i]) return printf("out[%d] = %g, expected %g\n", i, o[i], x[i] + y[i]), 1;
  printf("GPU: %d sums correct\n", N);
  return 0;
}
C
"$CC" -Wall -Werror -I"$T" -I"$INC" "$T/gpu.c" "$T/add.so" -L"$RT" -ltilec-runtime -ldl -Wl,-rpath,"$RT" -Wl,-rpath,"$T" -o "$T/gpu"
if [ -e /dev/nvidia0 ]; then
  out=$("$T/gpu") || fail "GPU launch: $out"
  echo "ok: $out"
  echo "SKIP the no-driver checks: this machine has a GPU (/dev/nvidia0)"
else
  out=$(env -u LD_LIBRARY_PATH "$T/main") || fail "launch without a driver: expected TILEC_ERROR_RUNTIME, got: $out"
  grep -Eq 'no CUDA driver|cannot start|no CUDA device' <<<"$out" || fail "launch without a driver: unclear message: $out"
  echo "ok: launch without a GPU: $out"
  out=$(env -u LD_LIBRARY_PATH TILEC_CACHE_DIR="$T/cache" "$T/jit") || fail "JIT for nvptx: $out"
  grep -q "short args: kernel 'twice' takes 2 arguments, got 1" <<<"$out" || fail "JIT for nvptx: argument count: $out"
  grep -Eq 'no CUDA driver|cannot start|no CUDA device' <<<"$out" || fail "JIT for nvptx: unclear message: $out"
  echo "ok: JIT for nvptx without a GPU: $(tail -n 1 <<<"$out")"
  echo "SKIP the GPU launch: no /dev/nvidia0 on this machine"
fi
echo "nvptx_library: ok"
