#!/usr/bin/env bash
# tests/e2e/bench_gpu_pack.sh BUILD_DIR PYTHON — the GPU bench (bench/gpu/) without a GPU:
# bench/gpu/pack.sh packs two configurations (vector_add, softmax_1024) into a temporary
# folder, then `run.py DIR --dry-run` (PYTHON: torch and triton, no CUDA needed) imports the
# kernels with triton, loads the packed libraries with ctypes, resolves the launch symbols,
# builds both argument lists and checks them against the packed signatures, and calls each
# launch once expecting the runtime's no-driver error. Also: a pack whose signature differs
# from configs.py is refused, an unknown name is refused, a non-pack folder is not written.
# Skips (77) without ptxas, libdevice or a PYTHON with torch and triton.
set -euo pipefail
BUILD=$1
PY=${2:-}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ] || [ -n "${TILEC_PTXAS:-}" ] ||
  { echo "bench.gpu_pack: skipped: no ptxas"; exit 77; }
ld=
for f in "${TILEC_LIBDEVICE:-}" "${CUDA_HOME:-/nonexistent}/nvvm/libdevice/libdevice.10.bc" \
  /usr/local/cuda/nvvm/libdevice/libdevice.10.bc /usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc; do
  [ -n "$f" ] && [ -f "$f" ] && ld=$f && break
done
[ -n "$ld" ] || { echo "bench.gpu_pack: skipped: no libdevice (softmax's exp)"; exit 77; }
[ -n "$PY" ] && "$PY" -c "import torch, triton" 2>/dev/null ||
  { echo "bench.gpu_pack: skipped: no python with torch and triton (TILEC_PYTHON_VENV)"; exit 77; }

out=$("$ROOT/bench/gpu/pack.sh" "$BUILD" "$T/pack" --only vector_add,softmax_1024) || fail "pack.sh: $out"
echo "$out"
grep -q "^packed vector_add .*PTX + cubin" <<<"$out" || fail "no cubin for vector_add: $out"
grep -Eq "^pack: 2 configurations, libraries .*libtilec-runtime.so.0; .* is [0-9.]+ MB" <<<"$out" || fail "summary: $out"
for f in manifest.json kernels/vector_add.so kernels/softmax_1024.so lib/libtilec-runtime.so.0; do
  [ -f "$T/pack/$f" ] || fail "pack lacks $f"
done

# moved elsewhere: nothing may refer to where it was written
mv "$T/pack" "$T/moved"
out=$(env -u LD_LIBRARY_PATH "$PY" "$ROOT/bench/gpu/run.py" "$T/moved" --dry-run 2>&1) || fail "dry run: $out"
echo "$out"
grep -q "^dry run: 2 of 2 configurations ok" <<<"$out" || fail "dry run summary: $out"
grep -q "^vector_add .*ok: vadd_kernel_launch_async, grid \[65536, 1, 1\], 4 tilec / 5 Triton arguments" <<<"$out" ||
  fail "vector_add's launch: $out"

# a pack built from other signatures than configs.py's is refused, by name
"$PY" - "$T/moved/manifest.json" <<'PYEOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["configs"]["vector_add"]["signature"] = m["configs"]["vector_add"]["signature"].replace("1024", "512")
json.dump(m, open(sys.argv[1], "w"))
PYEOF
out=$("$PY" "$ROOT/bench/gpu/run.py" "$T/moved" --dry-run --only vector_add 2>&1) && fail "a stale pack passed: $out"
grep -q "vector_add .*FAILED: .*rebuild the pack" <<<"$out" || fail "stale pack message: $out"
out=$("$PY" "$ROOT/bench/gpu/run.py" "$T/moved" --dry-run --only nosuch 2>&1) && fail "an unknown name passed: $out"
grep -q "nosuch not in the pack" <<<"$out" || fail "unknown name message: $out"
mkdir "$T/other" && touch "$T/other/keep"
"$ROOT/bench/gpu/pack.sh" "$BUILD" "$T/other" --only vector_add >/dev/null 2>&1 && fail "packed into a non-pack folder"
[ -e "$T/other/keep" ] || fail "pack.sh removed a folder that is not a pack"
echo "bench.gpu_pack: ok"
