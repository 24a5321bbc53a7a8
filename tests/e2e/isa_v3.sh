#!/usr/bin/env bash
# tests/e2e/isa_v3.sh SRC_DIR BUILD_DIR WORK_DIR — the x86-64-v3 target (AVX2, no AVX-512)
# built and run on this machine: the e2e elementwise families and the softmax example
# (exp through SLEEF) against their C references, and the objects checked for no zmm
# register and only SLEEF's 8-lane (…f8…) entry points. Skipped (77) without AVX2.
set -euo pipefail
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
WORK=$3
CC=${CC:-clang-22}
grep -qw avx2 /proc/cpuinfo || { echo "SKIP: this CPU has no AVX2"; exit 77; }
rm -rf "$WORK" && mkdir -p "$WORK" && WORK=$(cd "$WORK" && pwd)
fail=0

"$BUILD/tests/e2e/run_elementwise" --target x86-64-v3 "$SRC/tests/e2e/kernels" all >"$WORK/e2e.log" 2>&1 &&
  echo "ok   $(grep -c '^ok' "$WORK/e2e.log") e2e checks built for x86-64-v3" ||
  { grep -v '^ok' "$WORK/e2e.log"; fail=1; }

"$BUILD/tilec" compile "$SRC/examples/softmax/softmax.py" -k softmax_kernel --target x86-64-v3 \
  -s "*fp32:16, *fp32:16, i32, i32, i32, 1024" -o "$WORK/softmax_kernel.so" --header "$WORK/softmax_kernel.h"
"$CC" -std=c17 -O2 -I"$SRC/include" -I"$WORK" "$SRC/examples/softmax/aot.c" "$WORK/softmax_kernel.so" \
  -L"$BUILD" -ltilec-runtime -lm -Wl,-rpath,"$WORK" -Wl,-rpath,"$BUILD" -o "$WORK/softmax"
"$WORK/softmax" || fail=1

llvm-objdump-22 -d "$WORK/softmax_kernel.so" >"$WORK/softmax.s"
if grep -q zmm "$WORK/softmax.s"; then echo "FAIL: x86-64-v3 softmax uses zmm registers"; fail=1
elif ! grep -q ymm "$WORK/softmax.s"; then echo "FAIL: x86-64-v3 softmax has no ymm (AVX2) code"; fail=1
else echo "ok   softmax for x86-64-v3: ymm code, no zmm"; fi
sleef=$(llvm-nm-22 -D --undefined-only "$WORK/softmax_kernel.so" | awk '{print $2}' | grep '^Sleef_' || true)
if [ -z "$sleef" ]; then echo "FAIL: softmax calls no SLEEF entry"; fail=1
elif grep -vq 'f8_u10' <<<"$sleef"; then echo "FAIL: x86-64-v3 softmax calls non-8-lane SLEEF entries: $sleef"; fail=1
else echo "ok   softmax for x86-64-v3 calls $(echo $sleef)"; fi

[ $fail = 0 ] && echo "PASSED" || echo "FAILED"
exit $fail
