#!/usr/bin/env bash
# scripts/gpu_check.sh [BUILD_DIR] [-- RUN_LANG_TESTS_OPTIONS...] — the kernel-language suite
# on this machine's NVIDIA GPU, in one command: configures and builds BUILD_DIR (default
# build/) if it has no tilec yet, then runs every case of tests/lang with `tilec run --target
# nvptx` for device 0's chip (arrays copied to device buffers and back, compared with the
# suite's references), and prints `N passed, M failed`. Exit status 0 when nothing failed.
# Needs the build's dependencies (scripts/setup.sh), a CUDA driver and a GPU; libdevice for
# the math cases (the CUDA toolkit's, or TILEC_LIBDEVICE). Without a GPU it says so and
# exits 2. Options after `--` go to run_lang_tests.py (e.g. `-- --only math,intops -j 8`).
# Not yet: --pack/--run for a GPU machine without LLVM/MLIR (see issue 29).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=build
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  case "$1" in
    -*) echo "gpu_check.sh: unknown option '$1' (usage: scripts/gpu_check.sh [BUILD_DIR] [-- OPTIONS])" >&2; exit 2 ;;
  esac
  BUILD=$1
  shift
fi
[ "${1:-}" = "--" ] && shift
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
"$PY" -c 'import numpy' 2>/dev/null || { echo "gpu_check.sh: $PY has no numpy (apt-get install python3-numpy)" >&2; exit 2; }

# the GPU first: a machine without one should not spend a build finding out
probe=$("$PY" - "$ROOT" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1] + "/tests/lang")
sys.dont_write_bytecode = True
import run_lang_tests
arch, why = run_lang_tests.gpu_probe()
print("no GPU: " + why if why else "GPU: " + (arch or "a chip tilec does not know (PTX compiled by the driver)"))
EOF
)
echo "$probe"
case "$probe" in "no GPU:"*) exit 2 ;; esac

if [ ! -x "$BUILD/tilec" ]; then
  echo "gpu_check.sh: building $BUILD"
  CC=$(command -v clang-22 || command -v cc)
  cmake -G Ninja -DCMAKE_C_COMPILER="$CC" -B "$BUILD" -S "$ROOT"
  cmake --build "$BUILD" -j "$(nproc)"
fi
start=$(date +%s)
rc=0
"$PY" "$ROOT/tests/lang/run_lang_tests.py" "$BUILD/tilec" --target nvptx \
  --skip-unsupported "not supported on nvptx yet" -j "${GPU_CHECK_JOBS:-8}" "$@" >"$BUILD/gpu_check.log" 2>&1 || rc=$?
grep -E '^(FAIL|KNOWN-BUG) ' "$BUILD/gpu_check.log" || true
tail -n 1 "$BUILD/gpu_check.log"
echo "($(( $(date +%s) - start )) s; every case's line in $BUILD/gpu_check.log)"
exit "$rc"
