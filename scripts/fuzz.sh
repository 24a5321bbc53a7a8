#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] [TARGET...] — builds the libFuzzer targets (build-fuzz/: clang-22,
# -fsanitize=fuzzer,address,undefined) and runs each for SECONDS (default 60): fuzz_frontend
# (kernel source + signature -> tile IR) and fuzz_npy (the .npy reader). Seeds come from
# tests/fuzz/corpus/TARGET (checked in, taken from the tests); what a run adds to the corpus
# stays in build-fuzz/corpus/TARGET for the next run. A crash, leak, UB report or timeout
# fails the script and leaves the input in build-fuzz/artifacts/ (reproduce with
# `build-fuzz/tests/fuzz/TARGET ARTIFACT`). Prints each target's executions per second.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_EACH=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz_frontend fuzz_npy)
BUILD=${TILEC_FUZZ_BUILD:-$ROOT/build-fuzz}
JOBS=${JOBS:-$(nproc)}

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_C_COMPILER=clang-22 -DTILEC_FUZZ=ON > /dev/null
cmake --build "$BUILD" -j "$JOBS" --target "${TARGETS[@]}" > "$BUILD/fuzz-build.log" 2>&1 ||
  { tail -n 30 "$BUILD/fuzz-build.log"; exit 1; }

# Leaks are reported by the fuzzer itself (-detect_leaks); UBSan findings abort.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$BUILD/artifacts"
status=0
for t in "${TARGETS[@]}"; do
  corpus="$BUILD/corpus/$t"
  seeds="$ROOT/tests/fuzz/corpus/${t#fuzz_}"
  mkdir -p "$corpus"
  log="$BUILD/$t.log"
  set +e
  # -timeout: one input taking longer is a hang; -rss_limit_mb: a leak or blow-up.
  "$BUILD/tests/fuzz/$t" "$corpus" "$seeds" -max_total_time="$SECONDS_EACH" -timeout=20 \
    -rss_limit_mb=3072 -max_len=65536 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$t-" \
    > "$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  eps=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 || true)
  if [ "$rc" -ne 0 ]; then
    status=1
    echo "FAIL $t after $runs runs: exit $rc; log $log"
    grep -m 1 -A 30 'ERROR\|runtime error\|deadly signal\|timeout' "$log" || tail -n 30 "$log"
  else
    echo "ok   $t: $runs runs in ${SECONDS_EACH}s ($eps exec/s), $cov, corpus $(ls "$corpus" | wc -l) files"
  fi
done
exit $status
