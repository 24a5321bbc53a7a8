#!/usr/bin/env bash
# tests/e2e/nvptx_modules.sh TILEC INCLUDE_DIR RUNTIME_DIR — the launcher's modules
# (launcher/cuda.c), without a GPU: a stand-in libcuda.so.1 (fake_cuda.c) logs each
# cuModuleLoadData. A GPU library's image is loaded once however many libraries a process
# launches (300 copies of one library, each launched twice: 300 loads; the table held 256,
# and a library past them loaded its module again at every launch, never unloading it); a
# library unloaded (dlclose) and another mapped in its place loads its own image (the library's
# destructor makes the launcher forget the old one: a library at a reused address ran the
# module of the one unloaded before); a module whose kernel lookup fails is not loaded again.
set -euo pipefail
TILEC=$1 INC=$2 RT=$3
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
CC=${CC:-$(command -v clang-22 || command -v cc)}

mkdir -p "$T/fake" "$T/libs"
"$CC" -std=c17 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden "$ROOT/tests/e2e/fake_cuda.c" -o "$T/fake/libcuda.so.1"
"$TILEC" compile "$ROOT/examples/vector_add/add.py" -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" \
  --target nvptx --arch sm_80 -o "$T/add.so"
for i in $(seq 0 299); do cp "$T/add.so" "$T/libs/add$i.so"; done

cat >"$T/main.c" <<'C'
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
typedef int (*launch_fn)(uint32_t, uint32_t, uint32_t, float *, float *, float *, int32_t);
static float x[4], y[4], o[4];
static void *open_lib(const char *dir, int i, launch_fn *launch) {
  char path[4096];
  snprintf(path, sizeof path, "%s/add%d.so", dir, i);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h || !(*launch = (launch_fn)dlsym(h, "add_kernel_launch"))) {
    printf("cannot open %s: %s\n", path, dlerror());
    exit(1);
  }
  return h;
}
/* argv[1]: the libraries' folder; argv[2]: how many to launch, each twice; argv[3] "reopen":
 * then close the first and open it again, launching it once more */
int main(int argc, char **argv) {
  int n = atoi(argv[2]), bad = 0;
  void *first = NULL;
  for (int i = 0; i < n; i++) {
    launch_fn launch;
    void *h = open_lib(argv[1], i, &launch);
    if (!i) first = h;
    for (int k = 0; k < 2; k++) bad |= launch(1, 1, 1, x, y, o, 4) != 0;
  }
  if (argc > 3) {
    launch_fn launch;
    dlclose(first);
    open_lib(argv[1], 0, &launch);
    bad |= launch(1, 1, 1, x, y, o, 4) != 0;
  }
  printf("launches %s\n", bad ? "failed" : "ok");
  return 0;
}
C
"$CC" -std=c17 "$T/main.c" -ldl -L"$RT" -ltilec-runtime -Wl,-rpath,"$RT" -o "$T/main"
loads() { grep -c '^module sm_80' "$1" || true; }

export LD_LIBRARY_PATH="$T/fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
FAKE_CUDA_LOG="$T/many.log" "$T/main" "$T/libs" 300 reopen >"$T/out" || fail "main: $(cat "$T/out")"
grep -q "launches ok" "$T/out" || fail "300 libraries: $(cat "$T/out")"
[ "$(grep -c '^launch add_kernel' "$T/many.log")" = 601 ] || fail "601 launches expected: $(grep -c '^launch' "$T/many.log")"
n=$(loads "$T/many.log")
[ "$n" = 301 ] || fail "300 libraries launched twice, then the first closed and opened again: $n module loads (expected 301)"
echo "ok: 300 libraries, 601 launches, 301 module loads (one each, one after the reopen)"

FAKE_CUDA_FAIL=function FAKE_CUDA_LOG="$T/nofn.log" "$T/main" "$T/libs" 1 >"$T/out" || fail "main: $(cat "$T/out")"
grep -q "launches failed" "$T/out" || fail "a failed kernel lookup did not fail the launch"
n=$(loads "$T/nofn.log")
[ "$n" = 1 ] || fail "a module whose kernel lookup fails was loaded $n times for two launches"
echo "ok: a failed kernel lookup fails each launch and loads the module once"
