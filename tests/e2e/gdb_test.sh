#!/usr/bin/env bash
# tests/e2e/gdb_test.sh — `tilec compile -g` emits DWARF line tables that point at the
# kernel's .py source: gdb (batch mode) breaks at a kernel source line and shows it, and
# `perf annotate` attributes the kernel's samples to its .py lines.
# Usage: gdb_test.sh TILEC RUNTIME_INCLUDE_DIR. Each part skips (with a reason) when its
# tool is missing or (perf) cannot record in this environment.
set -euo pipefail
TILEC="$1"
INC="$2"
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
pass=0
fail=0
if ! command -v gdb >/dev/null; then
  echo "SKIP: gdb is not installed"
else
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
  echo "ok   gdb breaks at scale.py:11"
  pass=$((pass + 1))
else
  echo "FAIL: gdb did not stop at scale.py:11"
  fail=$((fail + 1))
fi
fi

# perf: an optimized -g build, launched often enough to collect samples; nearly all of the
# kernel's samples must map to scale.py lines (the load, the multiply, the store).
if ! command -v perf >/dev/null || ! perf record -q -o probe.data true >/dev/null 2>&1; then
  echo "SKIP: perf is not installed or cannot record here"
else
  "$TILEC" compile scale.py -k scale_kernel -s "*fp32:16, *fp32:16, i32, 1024" -g -o scale_opt.so --header scale_opt.h
  cat > loop.c <<'C'
#include "scale_opt.h"
#include <stdlib.h>
int main(void) {
  int n = 1 << 22;
  float *x = calloc((size_t)n, sizeof *x), *y = calloc((size_t)n, sizeof *y);
  if (!x || !y) return 1;
  for (int r = 0; r < 200; r++)
    if (scale_kernel_launch((uint32_t)(n / 1024), 1, 1, x, y, n)) return 1;
  return (int)y[0];
}
C
  cc -O2 loop.c -I. -I"$INC" scale_opt.so -Wl,-rpath,"$work" -o loop
  TILEC_NUM_THREADS=1 perf record -q -o perf.data ./loop >/dev/null 2>&1
  lines="$(perf annotate -i perf.data --stdio -l __tilec_kernel_scale_kernel 2>/dev/null | grep -c 'scale.py:' || true)"
  if [ "$lines" -gt 0 ]; then
    echo "ok   perf annotate shows scale.py lines ($lines)"
    pass=$((pass + 1))
  else
    echo "FAIL: perf annotate shows no scale.py lines"
    perf annotate -i perf.data --stdio -l __tilec_kernel_scale_kernel 2>&1 | head -20
    fail=$((fail + 1))
  fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
