#!/usr/bin/env bash
# tests/cross/aarch64_test.sh SRC_DIR BUILD_DIR WORK_DIR — the AArch64 (NEON) target end to
# end on an x86-64 machine: kernels are cross-compiled by the host's tilec
# (--target aarch64), the runtime and the host programs by clang for aarch64-linux-gnu, and
# everything runs under qemu-aarch64 with Debian's arm64 multiarch libraries (libc6, SLEEF,
# an arm64 libomp). Checks:
#   1. the e2e elementwise families (tests/e2e/run_elementwise.c, every BLOCK_SIZE and size),
#   2. the four AOT examples (vector add, softmax, layer norm, matmul) against their C
#      references,
#   3. the objects: NEON code and only SLEEF's 4-lane (…f4…) entry points,
#   4. the kernel-language suite (tests/lang, ~640 cases against numpy): each kernel is
#      compiled here by `tilec run --target aarch64 --exec ...` and run by an arm64
#      tilec-exec (tools/exec/main.c) under qemu-aarch64.
# Exits 77 (ctest: skipped) with the reason when the cross tools or libraries are missing;
# scripts/setup.sh installs them.
set -euo pipefail
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
WORK=$3
CC=${CC:-clang-22}
OMP_DIR=/usr/local/lib/aarch64-linux-gnu

skip() { echo "SKIP: $*"; exit 77; }
command -v qemu-aarch64 >/dev/null || skip "qemu-aarch64 not found (Debian's qemu-user; scripts/setup.sh installs it)"
[ -e /lib/ld-linux-aarch64.so.1 ] || skip "no arm64 libc (libc6:arm64 after dpkg --add-architecture arm64)"
[ -e /usr/include/aarch64-linux-gnu/bits/libc-header-start.h ] || skip "no arm64 C headers (libc6-dev:arm64)"
[ -e /usr/lib/aarch64-linux-gnu/libsleef.so ] || skip "no arm64 SLEEF (libsleef-dev:arm64)"
[ -e "$OMP_DIR/libomp.so.5" ] || skip "no arm64 OpenMP runtime at $OMP_DIR/libomp.so.5 (scripts/setup.sh extracts libomp5:arm64 there)"
command -v ld.lld-22 >/dev/null || command -v ld.lld >/dev/null || skip "no lld (lld-22)"

rm -rf "$WORK"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
RT="$WORK/runtime"
XCFLAGS=(--target=aarch64-linux-gnu -fuse-ld=lld -std=c17 -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$SRC/include")
XLIBS=(-L"$RT" -ltilec-runtime -lm -ldl -Wl,-rpath,"$RT")
run64() { qemu-aarch64 -E LD_LIBRARY_PATH="$OMP_DIR" -E TILEC_NUM_THREADS=2 "$@"; }
fail=0

echo "== runtime for aarch64 (cmake -DTILEC_RUNTIME_ONLY=ON, cmake/aarch64-linux-gnu.cmake)"
cmake -S "$SRC" -B "$RT" -G Ninja -DTILEC_RUNTIME_ONLY=ON -DCMAKE_C_COMPILER="$CC" \
  -DCMAKE_TOOLCHAIN_FILE="$SRC/cmake/aarch64-linux-gnu.cmake" >"$WORK/runtime.log" 2>&1 &&
  cmake --build "$RT" >>"$WORK/runtime.log" 2>&1 || { cat "$WORK/runtime.log"; exit 1; }
file -L "$RT/libtilec-runtime.so" | grep -q "ARM aarch64" || { echo "FAIL: runtime is not aarch64"; exit 1; }

echo "== e2e elementwise families"
mkdir -p "$WORK/e2e"
"$BUILD/tests/e2e/run_elementwise" --build "$WORK/e2e" --target aarch64 "$SRC/tests/e2e/kernels" all >"$WORK/e2e.log" ||
  { cat "$WORK/e2e.log"; exit 1; }
# The reference loops must round like the kernels: no fused multiply-add behind our back.
"$CC" "${XCFLAGS[@]}" -ffp-contract=off -DTILEC_E2E_RUN_ONLY "$SRC/tests/e2e/run_elementwise.c" "${XLIBS[@]}" \
  -o "$WORK/run_elementwise"
if run64 "$WORK/run_elementwise" --run "$WORK/e2e" "$SRC/tests/e2e/kernels" all >"$WORK/e2e-run.log" 2>&1; then
  echo "ok   $(grep -c '^ok' "$WORK/e2e-run.log") e2e checks under qemu-aarch64"
else
  grep -v '^ok' "$WORK/e2e-run.log"; fail=1
fi

echo "== AOT examples"
# example NAME KERNEL FILE HOST_C SIGNATURE... (several: one library with a dispatcher)
example() {
  local name=$1 kernel=$2 file=$3 host=$4 out="$WORK/$1" sigs=()
  shift 4
  for s in "$@"; do sigs+=(-s "$s"); done
  mkdir -p "$out"
  "$BUILD/tilec" compile "$SRC/examples/$name/$file" -k "$kernel" "${sigs[@]}" --target aarch64 \
    -o "$out/$kernel.so" --header "$out/$kernel.h"
  "$CC" "${XCFLAGS[@]}" "$SRC/examples/$name/$host" -I"$out" "$out/$kernel.so" "${XLIBS[@]}" \
    -Wl,-rpath,"$out" -o "$out/aot"
  if run64 "$out/aot"; then :; else echo "FAIL: $name under qemu-aarch64"; fail=1; fi
}
example vector_add add_kernel add.py main.c "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
example softmax softmax_kernel softmax.py aot.c "*fp32:16, *fp32:16, i32, i32, i32, 1024"
example layer_norm layer_norm_kernel layer_norm.py aot.c \
  "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32, 256"
example matmul matmul_kernel matmul.py aot.c \
  "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 64, 128, 32, 8" \
  "*fp32, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 64, 128, 32, 8"

echo "== the objects: NEON, SLEEF's 4-lane entries"
OBJDUMP=llvm-objdump-22
NM=llvm-nm-22
for so in "$WORK"/softmax/softmax_kernel.so "$WORK"/matmul/matmul_kernel.so "$WORK"/vector_add/add_kernel.so; do
  file "$so" | grep -q "ARM aarch64" || { echo "FAIL: $so is not an aarch64 object"; fail=1; }
  "$OBJDUMP" -d "$so" >"$so.s"
  if grep -Eq 'v[0-9]+\.4s' "$so.s"; then echo "ok   $(basename "$so"): NEON (v*.4s) code"
  else echo "FAIL: $(basename "$so") has no NEON .4s instruction"; fail=1; fi
done
if grep -Eq 'fmla[[:space:]]+v[0-9]+\.4s' "$WORK/matmul/matmul_kernel.so.s"; then
  echo "ok   matmul: fmla v*.4s microkernel"
else echo "FAIL: matmul has no fmla v*.4s"; fail=1; fi
# fp32 exp is expanded in line (sleef-glue/inline_exp.c): softmax rounds with frintn, calls nothing.
if grep -Eq 'frintn[[:space:]]+v[0-9]+\.4s' "$WORK/softmax/softmax_kernel.so.s" &&
  ! "$NM" -D --undefined-only "$WORK/softmax/softmax_kernel.so" | grep -q 'Sleef_'; then
  echo "ok   softmax: exp in line (frintn v*.4s), no SLEEF call"
else echo "FAIL: softmax's exp is not in line"; fail=1; fi
# Other math (log, sin) goes to SLEEF's 4-lane entries.
mkdir -p "$WORK/math"
"$BUILD/tilec" compile "$SRC/tests/lit/sleef_isa.py" -k k -s "*fp32, *fp32, 256" --target aarch64 -o "$WORK/math/k.so"
sleef=$("$NM" -D --undefined-only "$WORK/math/k.so" | awk '{print $2}' | grep '^Sleef_' || true)
if [ -z "$sleef" ]; then echo "FAIL: log/sin call no SLEEF entry"; fail=1
elif grep -vq 'f4_u10' <<<"$sleef"; then echo "FAIL: log/sin call non-4-lane SLEEF entries: $sleef"; fail=1
else echo "ok   log/sin call $(echo $sleef)"; fi

echo "== kernel-language suite: compiled for aarch64 here, run by an arm64 tilec-exec"
"$CC" "${XCFLAGS[@]}" -I"$SRC" -DTILEC_RUN_EXEC_ONLY "$SRC/tools/exec/main.c" "$SRC/tools/run.c" "$SRC/tools/run_gpu.c" "$SRC/tools/options.c" "$SRC/tools/npy.c" \
  "${XLIBS[@]}" -o "$WORK/tilec-exec"
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "note: the kernel-language suite needs numpy for /usr/bin/python3 (python3-numpy); not run"
elif /usr/bin/python3 "$SRC/tests/lang/run_lang_tests.py" "$BUILD/tilec" -j 2 --target aarch64 \
     --exec "qemu-aarch64 -E LD_LIBRARY_PATH=$OMP_DIR -E TILEC_NUM_THREADS=2 $WORK/tilec-exec" >"$WORK/lang.log" 2>&1; then
  echo "ok   $(tail -n 1 "$WORK/lang.log") (tests/lang under qemu-aarch64)"
else
  grep -v '^PASS' "$WORK/lang.log"; fail=1
fi

[ $fail = 0 ] && echo "PASSED" || echo "FAILED"
exit $fail
