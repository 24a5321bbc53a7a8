#!/usr/bin/env bash
# bench/gpu/run.sh [DIR] [run.py options] — on the GPU machine (python3 with torch and triton,
# no LLVM/MLIR): times every packed configuration through tilec, Triton and torch
# (bench/gpu/run.py). DIR defaults to build-gpupack/bench (what bench/gpu/pack.sh writes); the
# report goes to $OUT/REPORT.md (+ REPORT.json) when OUT is set, else bench/gpu/REPORT.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIR="${1:-$ROOT/build-gpupack/bench}"
shift $(($# < 1 ? $# : 1))
PY="${PYTHON:-python3}"
if [ -n "${OUT:-}" ]; then
  exec "$PY" "$ROOT/bench/gpu/run.py" "$DIR" --out "$OUT/REPORT.md" "$@"
fi
exec "$PY" "$ROOT/bench/gpu/run.py" "$DIR" "$@"
