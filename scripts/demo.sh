#!/usr/bin/env bash
# scripts/demo.sh — from a fresh Debian bookworm machine to a running kernel: installs the
# packages, builds tilec, compiles examples/vector_add/add.py into a .so + header, builds
# the C host program main.c against them, runs it and prints its check line; then builds and
# runs every example (scripts/examples.sh), AOT and JIT, one correctness line each, and the
# MPI example (examples/mpi_matmul) on 2 and 3 ranks.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
JOBS=$(nproc)
OUT=build/examples/vector_add

section() { printf '\n==== %s ====\n' "$*"; }

section "setup: Debian packages"
bash scripts/setup.sh

section "build: build/"
cmake -G Ninja -DCMAKE_C_COMPILER=clang-22 -B build
cmake --build build -j "$JOBS"

section "compile: examples/vector_add/add.py -> $OUT/add_kernel.so + add_kernel.h"
mkdir -p "$OUT"
SIG="*fp32:16, *fp32:16, *fp32:16, i32, 1024"
echo "build/tilec compile examples/vector_add/add.py -k add_kernel -s \"$SIG\" -o $OUT/add_kernel.so --header $OUT/add_kernel.h"
build/tilec compile examples/vector_add/add.py -k add_kernel -s "$SIG" \
  -o "$OUT/add_kernel.so" --header "$OUT/add_kernel.h"
grep 'add_kernel_launch' "$OUT/add_kernel.h"

section "host program: examples/vector_add/main.c"
# The kernel library is all the program needs, plus the runtime it already depends on
# (for tilec_last_error); rpaths make the result runnable from anywhere.
CC=${CC:-clang-22}
"$CC" -std=c17 -O2 -Wall -Wextra -Werror examples/vector_add/main.c \
  -I"$OUT" -Iinclude "$OUT/add_kernel.so" -Lbuild -ltilec-runtime -lm \
  -Wl,-rpath,"$ROOT/$OUT" -Wl,-rpath,"$ROOT/build" -o "$OUT/vector_add"

section "run: $OUT/vector_add"
"$OUT/vector_add"

section "examples: vector_add, softmax, layer_norm, matmul — AOT (.so + header) and JIT"
# Each example has a kernel .py, an AOT host program and a JIT host program; every run
# prints one correctness line against a plain C reference. Run twice: the second JIT run
# of each kernel loads it from the disk cache (TILEC_CACHE_DIR, else ~/.cache/tilec).
bash scripts/examples.sh build build/examples
section "examples again: JIT kernels now come from the cache"
for name in vector_add softmax layer_norm matmul; do
  build/examples/$name/jit "examples/$name/$(cd examples/$name && ls ./*.py | head -1 | cut -c3-)"
done

section "MPI: examples/mpi_matmul — one matmul grid split across 2, then 3 ranks (mpirun)"
# Each rank launches its contiguous share of the grid's programs (a sub-range launch); rank 0
# checks the gathered C against a C loop. Skipped (status 77) where mpicc/mpirun are missing.
rc=0
bash examples/mpi_matmul/run.sh build build/examples/mpi_matmul || rc=$?
if [ "$rc" = 77 ]; then echo "(no MPI: example skipped)"; elif [ "$rc" != 0 ]; then exit "$rc"; fi

section "Python: pip install . into ${TILEC_VENV:-$HOME/.cache/tilec/venv}, run examples/python/softmax.py"
# The tilec package (compiler, runtime and the tilec._C extension inside it) launching a
# Triton softmax on numpy arrays, and on torch CPU tensors when the venv has torch
# (scripts/test.sh installs it there).
rc=0
VENV=$(bash scripts/python_venv.sh --no-torch) || rc=$?
if [ "$rc" = 3 ]; then
  echo "numpy/scikit-build-core could not be installed from PyPI: Python example skipped"
elif [ "$rc" != 0 ]; then
  exit "$rc"
else
  (cd /tmp && "$VENV/bin/python" "$ROOT/examples/python/softmax.py")
fi
