#!/usr/bin/env bash
# bench/gpu/pack.sh — on the build machine (no GPU needed): builds the GPU bench's pack, the
# tilec GPU library of every bench/gpu/configs.py configuration (--target nvptx --arch sm_90a by
# default: H100/H200's own target, wgmma; PTX + cubin) with libtilec-runtime, the libraries it
# needs and manifest.json, for bench/gpu/run.py on a GPU machine that has no LLVM/MLIR.
# usage: bench/gpu/pack.sh [BUILD_DIR] [DIR] [pack.py options: --arch A --only NAMES]
#   BUILD_DIR (default build) holds tilec; DIR defaults to build-gpupack/bench.
# Then, there: python3 bench/gpu/run.py DIR --out bench/gpu/REPORT.md
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-$ROOT/build}"
DIR="${2:-$ROOT/build-gpupack/bench}"
shift $(($# < 2 ? $# : 2))
if [ ! -x "$BUILD/tilec" ]; then
  echo "pack.sh: no tilec in $BUILD (build it: cmake --build $BUILD)" >&2
  exit 2
fi
exec python3 "$ROOT/bench/gpu/pack.py" "$BUILD/tilec" "$DIR" "$@"
