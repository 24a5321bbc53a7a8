#!/usr/bin/env bash
# tests/e2e/gdb_test.sh — `tilec compile -g` emits DWARF line tables that point at the
# kernel's .py source: gdb (batch mode) breaks at a kernel source line and shows it.
# Usage: gdb_test.sh TILEC RUNTIME_INCLUDE_DIR. Skips (exit 0, with a reason) without gdb.
set -euo pipefail
TILEC="$1"
INC="$2"
if ! command -v gdb >/dev/null; then
  echo "SKIP: gdb is not installed"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > scale.py <<'PY'
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x * 3.0
    tl.store(out_ptr + offs, y, mask=mask)
PY
"$TILEC" compile scale.py -k scale_kernel -s "*fp32, *fp32, i32, 64" -g -O0 -o scale.so --header scale.h
cat > host.c <<'C'
#include "scale.h"
#include <stdio.h>
int main(void) {
  float x[100], y[100];
  for (int i = 0; i < 100; i++) x[i] = (float)i;
  int rc = scale_kernel_launch(2, 1, 1, x, y, 100);
  printf("rc=%d y[99]=%g\n", rc, y[99]);
  return rc != 0 || y[99] != 297.0f;
}
C
cc -g host.c -I. -I"$INC" scale.so -Wl,-rpath,"$work" -o host
cat > cmds <<'G'
set breakpoint pending on
break scale.py:11
run
bt 1
quit
G
out="$(TILEC_NUM_THREADS=1 timeout 120 gdb -q -batch -x cmds ./host 2>&1 || true)"
echo "$out" | grep -v '^\[' | head -20
if echo "$out" | grep -q "Breakpoint 1, __tilec_kernel_scale_kernel" && echo "$out" | grep -q "scale.py:11"; then
  echo "1 passed, 0 failed"
else
  echo "FAIL: gdb did not stop at scale.py:11"
  echo "0 passed, 1 failed"
  exit 1
fi
