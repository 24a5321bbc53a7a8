#!/usr/bin/env bash
# scripts/examples.sh [BUILD_DIR [OUT_DIR]] — builds and runs every example in examples/ in
# both forms: AOT (tilec compile -> .so + header, host program linked against it) and JIT
# (host program linked against libtilec, compiling the kernel file at run time). Prints one
# correctness line per run; exits non-zero if any example fails. Used by demo.sh and ctest.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
OUT=${2:-$BUILD/examples}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
TILEC="$BUILD/tilec"
CC=${CC:-clang-22}
CFLAGS=(-std=c17 -O2 -Wall -Wextra -Werror -I"$ROOT/include")
cd "$ROOT"

# aot NAME KERNEL SIGNATURE... : compiles examples/NAME/NAME.py (one -s per signature) and
# links examples/NAME/aot.c against the kernel library and the runtime.
aot() {
  local name=$1 kernel=$2 file=$3
  shift 3
  local sigs=()
  for s in "$@"; do sigs+=(-s "$s"); done
  "$TILEC" compile "examples/$name/$file" -k "$kernel" "${sigs[@]}" \
    -o "$OUT/$name/$kernel.so" --header "$OUT/$name/$kernel.h"
  "$CC" "${CFLAGS[@]}" "examples/$name/aot.c" -I"$OUT/$name" "$OUT/$name/$kernel.so" \
    -L"$BUILD" -ltilec-runtime -lm -Wl,-rpath,"$OUT/$name" -Wl,-rpath,"$BUILD" -o "$OUT/$name/aot"
}

# jit NAME : links examples/NAME/jit.c against the compiler library.
jit() {
  "$CC" "${CFLAGS[@]}" "examples/$1/jit.c" -L"$BUILD" -ltilec -ltilec-runtime -lm \
    -Wl,-rpath,"$BUILD" -o "$OUT/$1/jit"
}

mkdir -p "$OUT"/{vector_add,softmax,layer_norm,matmul}

aot softmax softmax_kernel softmax.py "*fp32:16, *fp32:16, i32, i32, i32, 1024"
aot layer_norm layer_norm_kernel layer_norm.py "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32, 256"
# Two specializations in one library: matmul_kernel_launch picks per call.
aot matmul matmul_kernel matmul.py \
  "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 64, 128, 32, 8" \
  "*fp32, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 64, 128, 32, 8"
# vector_add's AOT host is main.c (scripts/demo.sh's original example).
"$TILEC" compile examples/vector_add/add.py -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" \
  -o "$OUT/vector_add/add_kernel.so" --header "$OUT/vector_add/add_kernel.h"
"$CC" "${CFLAGS[@]}" examples/vector_add/main.c -I"$OUT/vector_add" "$OUT/vector_add/add_kernel.so" \
  -L"$BUILD" -ltilec-runtime -lm -Wl,-rpath,"$OUT/vector_add" -Wl,-rpath,"$BUILD" -o "$OUT/vector_add/aot"
for name in vector_add softmax layer_norm matmul; do jit "$name"; done

status=0
for name in vector_add softmax layer_norm matmul; do
  "$OUT/$name/aot" || status=1
  "$OUT/$name/jit" "examples/$name/$(cd examples/$name && ls ./*.py | head -1 | cut -c3-)" || status=1
done
exit $status
