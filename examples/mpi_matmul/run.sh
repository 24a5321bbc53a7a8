#!/usr/bin/env bash
# examples/mpi_matmul/run.sh [--bench] [BUILD_DIR [OUT_DIR]] — builds mpi_matmul.c with mpicc
# against the tilec build and runs it under mpirun --oversubscribe.
#   default: the checks (ctest examples.mpi): 1024^3 on 2 ranks, then 257x129x100 (10
#            programs) on 3 ranks (an uneven 4/3/3 split) with every rank compiling into
#            an empty cache at once; exits non-zero when a result is wrong.
#   --bench: scaling at 2048^3 (MPI_MATMUL_BENCH="M N K" to change): 1 rank x 1 thread,
#            2 ranks x 1, 4 ranks x 1 (oversubscribed on a 2-core machine), and 1 rank x 2
#            threads (the same cores through OpenMP only), best of MPI_MATMUL_REPEAT (5).
# Exits 77 (ctest's skip) when mpicc or mpirun is missing. MPICC/MPIRUN override the tools
# (ctest passes the ones CMake's FindMPI found); CC (default clang-22) is mpicc's compiler.
set -euo pipefail

bench=0
if [ "${1:-}" = --bench ]; then bench=1; shift; fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
OUT=${2:-$BUILD/examples/mpi_matmul}
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
for tool in "$MPICC" "$MPIRUN"; do
  if ! command -v "$tool" >/dev/null; then
    echo "mpi_matmul: skipped: '$tool' not found (Debian: apt-get install openmpi-bin libopenmpi-dev)"
    exit 77
  fi
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$ROOT"

# Open MPI's wrapper compiles with $OMPI_CC (MPICH's with $MPICH_CC).
OMPI_CC=${CC:-clang-22} MPICH_CC=${CC:-clang-22} "$MPICC" -std=c17 -O2 -Wall -Wextra -Werror -I"$ROOT/include" \
  examples/mpi_matmul/mpi_matmul.c -L"$BUILD" -ltilec -ltilec-runtime -lm -Wl,-rpath,"$BUILD" -o "$OUT/mpi_matmul"

# CI containers run as root, which Open MPI's mpirun refuses unless told otherwise.
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# Open MPI refuses more ranks than cores without --oversubscribe, and binds each rank to one
# core by default when ranks <= cores, which would put all of a rank's OpenMP threads on that
# core (--bind-to none). Other MPIs get no flags. Ranks on this machine inherit the
# environment (TILEC_NUM_THREADS, TILEC_CACHE_DIR); across machines, Open MPI's -x passes it.
MPI_FLAGS=()
if "$MPIRUN" --version 2>&1 | grep -q -E 'Open MPI|OpenRTE'; then MPI_FLAGS=(--oversubscribe --bind-to none); fi
mpi_run() { "$MPIRUN" "${MPI_FLAGS[@]}" "$@"; }
export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$OUT/cache}

if [ "$bench" = 0 ]; then
  export TILEC_NUM_THREADS=${TILEC_NUM_THREADS:-1}
  mpi_run -np 2 "$OUT/mpi_matmul" 1024 1024 1024
  fresh="$OUT/cache-concurrent"
  rm -rf "$fresh"
  TILEC_CACHE_DIR=$fresh mpi_run -np 3 "$OUT/mpi_matmul" --compile-on-every-rank 257 129 100
  exit 0
fi

read -r M N K <<<"${MPI_MATMUL_BENCH:-2048 2048 2048}"
REPEAT=${MPI_MATMUL_REPEAT:-5}
echo "mpi_matmul scaling: ${M}x${N}x${K}, best of $REPEAT, $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
# Warm the disk cache so that no timed run includes a compile (64x128x32 specializes like
# any M, N, K that are multiples of 16: the same signature, the same entry).
TILEC_NUM_THREADS=1 mpi_run -np 1 "$OUT/mpi_matmul" 64 128 32 >/dev/null
for cfg in "1 1" "2 1" "4 1" "1 2"; do
  read -r ranks threads <<<"$cfg"
  TILEC_NUM_THREADS=$threads mpi_run -np "$ranks" "$OUT/mpi_matmul" --repeat "$REPEAT" "$M" "$N" "$K" | grep -v '^  rank '
done
