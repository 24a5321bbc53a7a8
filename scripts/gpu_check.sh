#!/usr/bin/env bash
# scripts/gpu_check.sh [BUILD_DIR] [-- RUN_LANG_TESTS_OPTIONS...] — the kernel-language suite
# on this machine's NVIDIA GPU, in one command: configures and builds BUILD_DIR (default
# build/) if it has no tilec yet, then runs every case of tests/lang with `tilec run --target
# nvptx` for device 0's chip (arrays copied to device buffers and back, compared with the
# suite's references), and prints `N passed, M failed`. Exit status 0 when nothing failed.
# Needs the build's dependencies (scripts/setup.sh), a CUDA driver and a GPU; libdevice for
# the math cases (the CUDA toolkit's, or TILEC_LIBDEVICE). Without a GPU it says so and
# exits 2. Options after `--` go to run_lang_tests.py (e.g. `-- --only math,intops -j 8`).
#
# Split in two, for a GPU machine without LLVM/MLIR (a cluster node, a CI runner):
#   scripts/gpu_check.sh --pack DIR [--arch sm_80,sm_90] [--only FAMILIES] [--case SUBSTR] [-j N] [BUILD_DIR]
#     on the build machine (no GPU needed): every run case's GPU library of its exact
#     specialization for each chip (PTX + cubin), its inputs and expected results, tilec-exec,
#     libtilec-runtime and the libraries they need, the suite's sources for the cases that
#     check with a function, a runner (tests/lang/gpu_pack.py; prints the pack's size)
#   DIR/gpu_check.sh --run DIR [--only FAMILIES] [--case SUBSTR] [-j N] [--arch sm_XX]
#     on the GPU machine, which needs only the CUDA driver, Python 3 and numpy: each launch
#     in its own process, results compared with the packed expectations; prints the failures
#     and `N passed, M failed, L left out` (full log in DIR/gpu_check.log, else $TMPDIR);
#     exit 1 on failures, 2 without a GPU (tests/lang/gpu_pack_run.py, copied as DIR/run.py).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# a Python 3 with numpy: $PYTHON, the system's, or the first on PATH
PY=
for p in ${PYTHON:-} /usr/bin/python3 "$(command -v python3 || true)"; do
  [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import numpy' 2>/dev/null && { PY=$p; break; }
done
usage="usage: scripts/gpu_check.sh [BUILD_DIR] [-- OPTIONS] | --pack DIR [OPTIONS] [BUILD_DIR] | --run DIR [OPTIONS]"

if [ "${1:-}" = "--run" ]; then
  [ $# -ge 2 ] || { echo "gpu_check.sh: --run needs the pack's folder ($usage)" >&2; exit 2; }
  DIR=$2
  shift 2
  [ -f "$DIR/pack.json" ] && [ -f "$DIR/run.py" ] || { echo "gpu_check.sh: $DIR is not a GPU pack (no pack.json/run.py)" >&2; exit 2; }
  [ -n "$PY" ] || { echo "gpu_check.sh: no Python 3 with numpy (pip install numpy, or set PYTHON)" >&2; exit 2; }
  LOG=$DIR/gpu_check.log
  { : >"$LOG"; } 2>/dev/null || LOG=$(mktemp "${TMPDIR:-/tmp}/gpu_check.XXXXXX.log")
  start=$(date +%s)
  set +e
  "$PY" "$DIR/run.py" "$DIR" "$@" 2>&1 | tee "$LOG" | grep -E '^(GPU:|pack:|no GPU:|run.py:|usage:|FAIL |KNOWN-BUG |[0-9]+ passed)'
  rc=${PIPESTATUS[0]}
  set -e
  echo "($(( $(date +%s) - start )) s; every case's line in $LOG)"
  exit "$rc"
fi

if [ "${1:-}" = "--pack" ]; then
  [ $# -ge 2 ] || { echo "gpu_check.sh: --pack needs a folder to write ($usage)" >&2; exit 2; }
  DIR=$2
  shift 2
  BUILD=build
  opts=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --arch|--only|--case|-j) [ $# -ge 2 ] || { echo "gpu_check.sh: $1 needs a value" >&2; exit 2; }; opts+=("$1" "$2"); shift 2 ;;
      -*) echo "gpu_check.sh: unknown --pack option '$1' ($usage)" >&2; exit 2 ;;
      *) BUILD=$1; shift ;;
    esac
  done
  case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
  [ -n "$PY" ] || { echo "gpu_check.sh: no Python 3 with numpy (apt-get install python3-numpy)" >&2; exit 2; }
  if [ ! -x "$BUILD/tilec" ] || [ ! -x "$BUILD/tilec-exec" ]; then
    echo "gpu_check.sh: building $BUILD"
    CC=$(command -v clang-22 || command -v cc)
    [ -f "$BUILD/build.ninja" ] || cmake -G Ninja -DCMAKE_C_COMPILER="$CC" -B "$BUILD" -S "$ROOT"
    cmake --build "$BUILD" -j "$(nproc)" --target tilec-tool tilec-exec
  fi
  exec "$PY" "$ROOT/tests/lang/gpu_pack.py" "$BUILD/tilec" "$BUILD/tilec-exec" "$DIR" "${opts[@]}"
fi

BUILD=build
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  case "$1" in
    -*) echo "gpu_check.sh: unknown option '$1' ($usage)" >&2; exit 2 ;;
  esac
  BUILD=$1
  shift
fi
[ "${1:-}" = "--" ] && shift
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
[ -n "$PY" ] || { echo "gpu_check.sh: no Python 3 with numpy (apt-get install python3-numpy)" >&2; exit 2; }

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
