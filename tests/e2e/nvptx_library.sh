#!/usr/bin/env bash
# tests/e2e/nvptx_library.sh TILEC INCLUDE_DIR RUNTIME_DIR — a library built for
# --target nvptx: `tilec compile -o K.so --header K.h` embeds the PTX (and a cubin when ptxas
# is found), exports K_launch and K_launch_async with the typed parameters, and, launched on
# a machine without a CUDA driver or GPU, returns TILEC_ERROR_RUNTIME with a message that
# says so (a GPU launch needs /dev/nvidia0: reported skipped here).
set -euo pipefail
TILEC=$1 INC=$2 RT=$3
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$TILEC" compile "$ROOT/examples/vector_add/add.py" -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" \
  --target nvptx --arch sm_80 --num-warps 8 -o "$T/add.so" --header "$T/add.h"
grep -q 'int add_kernel_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, float \*x_ptr' "$T/add.h" || fail "header: add_kernel_launch"
grep -q 'int add_kernel_launch_async(void \*cuda_stream' "$T/add.h" || fail "header: add_kernel_launch_async"
# (into files first: `grep -q` in a pipeline under pipefail fails when it stops reading early)
nm -D --defined-only "$T/add.so" >"$T/syms"
strings "$T/add.so" >"$T/strings"
grep -q ' T add_kernel_launch$' "$T/syms" || fail "library: no add_kernel_launch"
grep -q ' T add_kernel_launch_async$' "$T/syms" || fail "library: no add_kernel_launch_async"
grep -q '.entry add_kernel' "$T/strings" || fail "library: no PTX entry add_kernel embedded"
grep -q '.maxntid 256' "$T/strings" || fail "library: --num-warps 8 is not 256 threads"

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
if [ -e /dev/nvidia0 ]; then
  echo "SKIP the no-driver check: this machine has a GPU (/dev/nvidia0)"
else
  out=$(env -u LD_LIBRARY_PATH "$T/main") || fail "launch without a driver: expected TILEC_ERROR_RUNTIME, got: $out"
  grep -Eq 'no CUDA driver|cannot start|no CUDA device' <<<"$out" || fail "launch without a driver: unclear message: $out"
  echo "ok: launch without a GPU: $out"
  echo "SKIP the GPU launch: no /dev/nvidia0 on this machine"
fi
echo "nvptx_library: ok"
