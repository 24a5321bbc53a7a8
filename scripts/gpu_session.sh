#!/usr/bin/env bash
# scripts/gpu_session.sh [--only FAMILIES] [BUILD_DIR] — everything one short GPU lease needs
# (a machine with the CUDA driver, Python 3 with numpy, torch and triton, and no LLVM/MLIR),
# packed here into build-gpupack/ (git-ignored: carry that folder there):
#   suite/   the kernel-language suite for sm_90a (Hopper's own target: wgmma) and sm_80 (its
#            PTX for other chips), or the families --only names (scripts/gpu_check.sh --pack);
#            the family 'generated' with 64 random kernels instead of 32 (TILEC_GENERATED_COUNT;
#            160 of them pack to 12 MB, of the 64 MiB a carry may hold)
#   bench/   every bench/gpu configuration at sm_90a (bench/gpu/pack.sh)
#   bench90/ the tl.dot rows again at sm_90 (mma.sync): tilec's two instruction families side
#            by side in one session
#   run.sh   the one command to run there, from the repository root: `bash build-gpupack/run.sh`.
#            It writes REPORT.md/.json (bench), REPORT90.md/.json, suite.txt and gpu_check.log
#            to $OUT (else build-gpupack/out), each step under a time limit: on an H200 the
#            bench took 105 s, the whole suite 200 s at -j 16, the sm_90 rows 30 s.
# Commit bench/gpu/REPORT.md from what comes back, and say in the note which card gave it.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
ONLY=()
while [ $# -gt 0 ]; do
  case "$1" in
    --only) [ $# -ge 2 ] || { echo "gpu_session.sh: --only needs a value" >&2; exit 2; }; ONLY=(--only "$2"); shift 2 ;;
    -*) echo "gpu_session.sh: unknown option '$1' (usage: scripts/gpu_session.sh [--only FAMILIES] [BUILD_DIR])" >&2; exit 2 ;;
    *) BUILD=$1; shift ;;
  esac
done
[ -x "$BUILD/tilec" ] || { echo "gpu_session.sh: no tilec in $BUILD (build it first: see README)" >&2; exit 2; }
OUTDIR=$ROOT/build-gpupack
rm -rf "$OUTDIR"
mkdir -p "$OUTDIR"
TILEC_GENERATED_COUNT=${TILEC_GENERATED_COUNT:-64} "$ROOT/scripts/gpu_check.sh" --pack "$OUTDIR/suite" --arch sm_80,sm_90a "${ONLY[@]}" -j "$(nproc)" "$BUILD" | tail -n 3
bash "$ROOT/bench/gpu/pack.sh" "$BUILD" "$OUTDIR/bench" --arch sm_90a | tail -n 1
DOTS=$(cd "$ROOT/bench/gpu" && python3 -c 'import configs; print(",".join(c["name"] for c in configs.CONFIGS if configs.uses_dot(c)))')
bash "$ROOT/bench/gpu/pack.sh" "$BUILD" "$OUTDIR/bench90" --arch sm_90 --only "$DOTS" | tail -n 1
cat >"$OUTDIR/run.sh" <<'EOF'
#!/usr/bin/env bash
# build-gpupack/run.sh — written by scripts/gpu_session.sh; run from the repository root.
set -o pipefail
export PYTHONUNBUFFERED=1
P=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
O=${OUT:-$P/out}
mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee "$O/gpu.txt"
step() { # NAME LIMIT COMMAND...
  local name=$1 limit=$2 t0
  shift 2
  t0=$(date +%s)
  timeout "$limit" "$@" 2>&1 | tee "$O/$name.txt"
  echo "$name: $(($(date +%s) - t0)) s (limit $limit s)"
}
step bench 240 python3 bench/gpu/run.py "$P/bench" --out "$O/REPORT.md" --timeout 100
step bench90 120 python3 bench/gpu/run.py "$P/bench90" --out "$O/REPORT90.md" --timeout 60
step suite 300 "$P/suite/gpu_check.sh" --run "$P/suite" -j 16
cp "$P/suite/gpu_check.log" "$O/" 2>/dev/null || true
EOF
chmod +x "$OUTDIR/run.sh"
echo "gpu_session: $(du -sh "$OUTDIR" | cut -f1) in $OUTDIR; there: bash build-gpupack/run.sh (carry build-gpupack)"
