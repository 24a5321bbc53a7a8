#!/usr/bin/env bash
# scripts/bench.sh — runs the tilec benchmark suite against its peers (C loop + SLEEF,
# OpenBLAS, PoCL, numpy at 1 and 2 threads; torch eager and torch.compile at 2 threads;
# Triton's interpreter at small sizes), a size sweep per kernel family, then regenerates
# bench/results.json, bench/REPORT.md, bench/chart.png and bench/sweep.png. Not part of CI.
# Options: --quick, --no-setup, --wait-idle, --no-sweep.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

QUICK=0
SETUP=1
WAIT_IDLE=0
SWEEP=1
for a in "$@"; do
  case "$a" in
    --quick) QUICK=1 ;;      # shorter time budgets: for trying the harness, not for numbers
    --no-setup) SETUP=0 ;;   # skip the package checks (offline machine, packages present)
    --wait-idle) WAIT_IDLE=1 ;;  # first wait (up to 10 min) for other work on the machine to stop
    --no-sweep) SWEEP=0 ;;   # skip the size sweep (about 2 minutes)
    *) echo "usage: scripts/bench.sh [--quick] [--no-setup] [--wait-idle] [--no-sweep]" >&2; exit 2 ;;
  esac
done

BUILD=${TILEC_BUILD_DIR:-build}
WORK="$BUILD/bench"               # generated kernels, drivers, raw results (not committed)
RAW="$WORK/results.jsonl"
CMDS="$WORK/commands.txt"
THREADS=(1 2)
CC=${CC:-clang-22}
PY=/usr/bin/python3               # Debian's python with numpy; pyenv's python3 may lack it
# Matmul block sizes BLOCK_M BLOCK_N BLOCK_K GROUP_SIZE_M (why: see bench/kernels/matmul.py).
read -r BM BN BK GM <<<"${TILEC_BENCH_MATMUL_BLOCKS:-128 128 32 8}"
MATMUL_SIZES=(1024 2048 4096)
# Layer norm at the tutorial's block size, BLOCK = next_power_of_2(N) (one trip per loop), next
# to the BLOCK 256 row: "ROWS COLS BLOCK" each.
LN_TUTORIAL=("1024 8192 8192" "1024 12000 16384")
SM_TUTORIAL=(4096 5000 8192)      # softmax ROWS COLS BLOCK, a masked row (the softmax_8192 kernel)
# The size sweep (2 threads, one round): how cost grows with size, per kernel family.
SWEEP_VADD=(4096 16384 65536 262144 1048576 4194304 16777216)
SWEEP_SOFTMAX_ROWS=(16 64 256 1024 4096 16384)        # x 1024 columns, BLOCK 1024
SWEEP_LN_ROWS=(4 16 64 256 1024 4096)                 # x 8192 columns, BLOCK 8192 and 256
SWEEP_MATMUL=(128 256 512 1024 2048)
SWEEP_INTERP=3    # Triton's interpreter (about 1-5 ms per program): the smallest 3 sizes only
POCL_MATMUL_MAX=1024              # the naive PoCL matmul runs ~1 GFLOP/s: 4096 would take minutes
PROC_TIMEOUT=240                  # seconds per benchmark process: a hung kernel cannot stall the run
COMPILE_SAMPLES=5                 # fresh processes per cold-compile measurement
ROUNDS=3                          # repetitions of the whole kernel suite (see kernel_round)
ALTERNATE=3                       # memory-bound rows: tilec/C runs alternating per round (see pair)

if [ "$QUICK" = 1 ]; then
  export BENCH_TIME_SCALE=0.2; COMPILE_SAMPLES=2; ROUNDS=1; ALTERNATE=1
  SWEEP_VADD=(4096 65536 1048576 16777216); SWEEP_SOFTMAX_ROWS=(16 256 4096)
  SWEEP_LN_ROWS=(4 64 1024); SWEEP_MATMUL=(128 512 2048); SWEEP_INTERP=1
fi
# Two cores leave no room for other work: a busy machine halves the 2-thread numbers.
load1() { cut -d' ' -f1 /proc/loadavg; }
if [ "$WAIT_IDLE" = 1 ]; then
  for _ in $(seq 120); do
    awk -v l="$(load1)" 'BEGIN { exit !(l < 0.3) }' && break
    sleep 5
  done
fi
if awk -v l="$(load1)" 'BEGIN { exit !(l >= 0.5) }'; then
  echo "warning: load average $(load1): other work is running; numbers (2 threads most) will suffer" >&2
fi
T_START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)  # other work on the machine skews 2-thread numbers
section() { printf '\n==== %s ====\n' "$*"; }

if [ "$SETUP" = 1 ]; then
  section "setup"
  bash scripts/setup.sh
  bash scripts/setup-bench.sh
fi

section "build tilec ($BUILD)"
# Incremental: quick when the build is current. If the tree is mid-edit and does not build,
# an existing tilec binary is still good enough to benchmark.
if { [ -f "$BUILD/build.ninja" ] || cmake -G Ninja -DCMAKE_C_COMPILER=clang-22 -B "$BUILD" >/dev/null; } &&
   cmake --build "$BUILD" -j "$(nproc)" --target tilec tilec-runtime >/dev/null; then
  echo "tilec is up to date"
elif [ -x "$BUILD/tilec" ]; then
  echo "warning: the build failed; benchmarking the existing $BUILD/tilec" >&2
else
  echo "error: cannot build tilec" >&2; exit 1
fi
TILEC="$BUILD/tilec"

mkdir -p "$WORK"
: >"$RAW"
: >"$CMDS"

json_str() { # JSON string body: backslashes, quotes, tabs/CRs as spaces
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '%s' "$s" | tr '\t\r\n' '   '
}
# A result line written by this script (rows that could not be measured).
emit() { # bench size impl threads status note
  printf '{"bench":"%s","size":"%s","impl":"%s","threads":%s,"status":"%s","note":"%s"}\n' \
    "$1" "$2" "$3" "$4" "$5" "$(json_str "$6")" >>"$RAW"
}
# Runs a benchmark command with an environment, logs the exact command, appends its JSON
# lines; a crash or timeout becomes an "error" row instead of stopping the suite.
log_cmd() { # the command as one copy-pasteable line (arguments with spaces or * quoted)
  local out="" a
  for a in "$@"; do
    if [[ "$a" =~ [[:space:]*] ]]; then out+="\"$a\" "; else out+="$a "; fi
  done
  printf '%s\n' "${out% }" >>"$CMDS"
}
run() { # bench size impl threads -- command...
  local bench=$1 size=$2 impl=$3 t=$4; shift 5
  log_cmd "$@"
  local out err rc=0
  err=$(mktemp)
  out=$(timeout "$PROC_TIMEOUT" "$@" 2>"$err") || rc=$?
  # AS (set by pair and the sweep): the rows' bench name, when one program serves several rows
  # (layer norm at two block sizes, the sweep); the JSON lines then carry it instead of their own.
  if [ -n "$out" ] && [ -n "${AS:-}" ]; then
    out=$(printf '%s\n' "$out" | sed "s/\"bench\": *\"[^\"]*\"/\"bench\":\"$AS\"/")
  fi
  if [ -n "$out" ]; then printf '%s\n' "$out" >>"$RAW"; printf '%s\n' "$out" | cut -c1-160; fi
  if [ "$rc" != 0 ]; then
    local why
    if [ "$rc" = 124 ]; then why="timed out after ${PROC_TIMEOUT} s"
    else why="exit code $rc: $(grep -v '^\s*$' "$err" | tail -n 1 || true)"; fi
    echo "  $impl $bench $size (T=$t) failed: $why" >&2
    emit "$bench" "$size" "$impl" "$t" error "$why"
  fi
  rm -f "$err"
}

DRV_FLAGS=(-std=c17 -O3 -march=native -Wall -Wextra -D_POSIX_C_SOURCE=200809L)

section "build peers"
"$CC" "${DRV_FLAGS[@]}" -fopenmp bench/peers/c_bench.c -lsleef -lm -o "$WORK/c_bench"
"$CC" "${DRV_FLAGS[@]}" bench/peers/blas_bench.c -lopenblas -lm -o "$WORK/blas_bench"
"$CC" "${DRV_FLAGS[@]}" bench/peers/ocl_bench.c -lOpenCL -lm -o "$WORK/ocl_bench"
"$CC" "${DRV_FLAGS[@]}" -Iinclude bench/compile_time.c -L"$BUILD" -ltilec -ltilec-runtime \
  -Wl,-rpath,"$ROOT/$BUILD" -o "$WORK/compile_time"
echo "ok"

# ---- tilec kernels: compile each; a kernel the compiler rejects becomes its rows' note ----
declare -A TILEC_OK TILEC_ERR
tilec_kernel() { # variant file kernel signature driver-defines...
  local v=$1 file=$2 k=$3 sig=$4; shift 4
  printf '%s\n' "$TILEC compile $file -k $k -s \"$sig\" -o $WORK/$v.so --header $WORK/$v.h" >>"$CMDS"
  local log
  if log=$("$TILEC" compile "$file" -k "$k" -s "$sig" -o "$WORK/$v.so" --header "$WORK/$v.h" 2>&1); then
    # One driver binary per kernel: generated launchers of different specializations
    # (softmax 1024 vs 8192) share a name, so they cannot be linked into one program.
    "$CC" "${DRV_FLAGS[@]}" -Iinclude -include "$WORK/$v.h" "$@" bench/run.c "$WORK/$v.so" \
      -L"$BUILD" -ltilec-runtime -lm -Wl,-rpath,"$ROOT/$WORK" -Wl,-rpath,"$ROOT/$BUILD" -o "$WORK/run_$v"
    TILEC_OK[$v]=1
    echo "tilec $v: compiled"
  else
    TILEC_ERR[$v]="not supported yet ($(printf '%s\n' "$log" | grep -m1 -v '^\s*$' || true))"
    echo "tilec $v: ${TILEC_ERR[$v]}"
  fi
}
section "compile tilec kernels"
tilec_kernel vector_add bench/kernels/vector_add.py vadd_kernel \
  "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" -DBENCH_VADD -DBENCH_BLOCK=1024
tilec_kernel softmax_1024 bench/kernels/softmax.py softmax_kernel \
  "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1024" -DBENCH_SOFTMAX
tilec_kernel softmax_8192 bench/kernels/softmax.py softmax_kernel \
  "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 8192" -DBENCH_SOFTMAX
tilec_kernel layernorm bench/kernels/layernorm.py layernorm_fwd_kernel \
  "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 256" -DBENCH_LAYERNORM
# The same kernel at the tutorial's BLOCK = next_power_of_2(N): its three loops run once per
# row (bench/kernels/layernorm.py is the shape of Triton's tutorial 05 forward kernel).
for spec in "${LN_TUTORIAL[@]}"; do
  read -r _ _ B <<<"$spec"
  tilec_kernel "layernorm_$B" bench/kernels/layernorm.py layernorm_fwd_kernel \
    "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, $B" -DBENCH_LAYERNORM
done
# Unit strides are specialized with ":1" (Triton's JIT does the same for arguments equal
# to 1), which is what lets the compiler see contiguous rows in the A, B and C tiles.
tilec_kernel matmul bench/kernels/matmul.py matmul_kernel \
  "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, $BM, $BN, $BK, $GM" \
  -DBENCH_MATMUL -DBENCH_BM="$BM" -DBENCH_BN="$BN"
tilec_kernel empty bench/kernels/empty.py empty_kernel "*fp32" -DBENCH_EMPTY

# Runs the tilec driver of `variant`, or records why it cannot run.
tilec_run() { # variant bench size threads args...
  local v=$1 bench=$2 size=$3 t=$4; shift 4
  if [ -n "${TILEC_OK[$v]:-}" ]; then
    run "$bench" "$size" tilec "$t" -- env "${SCALE_ENV[@]}" TILEC_NUM_THREADS="$t" "$WORK/run_$v" "$@"
  else
    emit "$bench" "$size" tilec "$t" unsupported "${TILEC_ERR[$v]}"
    echo "tilec $bench $size (T=$t): ${TILEC_ERR[$v]}" | cut -c1-160
  fi
}
# OpenBLAS here must pick its kernel by itself: the machine's OPENBLAS_CORETYPE/L2_SIZE
# halve sgemm speed, so they are removed for the BLAS and numpy commands only.
BLAS_ENV=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)
OCL=(env POCL_CACHE_DIR="$WORK/pocl-cache")

# Median seconds of the last row of `impl` for matmul size n at t threads, or empty.
last_median() { # impl n t
  grep "\"bench\":\"matmul\",\"size\":\"$2\",\"impl\":\"$1\",\"threads\":$3," "$RAW" | tail -n 1 |
    sed -n 's/.*"median_s":\([0-9.e+-]*\).*/\1/p' || true
}
declare -A MM_SKIP   # threads -> reason: tilec matmul sizes from then on are too slow to run

# tilec and the C loop of a memory-bound row run ALTERNATE times each, alternating, with a
# budget shortened to match: this machine's memory bandwidth moves between levels for tens of
# seconds at a time (2-thread times by +-30%), and alternating makes both sample the same
# levels instead of one catching a slow stretch the other missed.
SCALE_ENV=()  # extra environment of tilec_run (pair shortens the time budget)
pair() { # variant bench size threads c-args... (the tilec driver gets them without the first)
  local v=$1 bench=$2 size=$3 t=$4; shift 4
  local SCALE_ENV AS=${AS:-}
  if [ "$bench" != "$1" ]; then AS=$bench; fi   # a second row of the same programs
  SCALE_ENV=(BENCH_TIME_SCALE="$(awk -v s="${BENCH_TIME_SCALE:-1}" -v n="$ALTERNATE" 'BEGIN { print s / n }')")
  for _ in $(seq "$ALTERNATE"); do
    tilec_run "$v" "$bench" "$size" "$t" "${@:2}"
    run "$bench" "$size" c "$t" -- env "${SCALE_ENV[@]}" OMP_NUM_THREADS="$t" "$WORK/c_bench" "$@"
  done
}

# Python peers (bench/python/peers.py in the venv scripts/test.sh uses: torch, the real
# triton): torch eager and torch.compile at `threads` (torch.set_num_threads), Triton's
# interpreter and numpy on one thread. One process measures all the given shapes.
VPY=""
VPY_ERR="no Python venv (scripts/python_venv.sh failed)"
section "python venv (torch, triton, tilec)"
if VENV=$(bash scripts/python_venv.sh); then
  VPY="$VENV/bin/python"
  echo "$VPY: torch $("$VPY" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo missing)"
else
  echo "warning: $VPY_ERR: torch, torch.compile and interpreter rows are skipped" >&2
fi
py_peer() { # impl threads kernel shape...
  local impl=$1 t=$2 k=$3; shift 3
  if [ -z "$VPY" ]; then
    local s
    for s in "$@"; do emit "${AS:-$k}" "$s" "$impl" "$t" unavailable "$VPY_ERR"; done
    return
  fi
  local e=(env -u TILEC_TRITON -u TRITON_INTERPRET BENCH_THREADS="$t"
           BENCH_TIME_SCALE="${BENCH_TIME_SCALE:-1}" TORCHINDUCTOR_CACHE_DIR="$WORK/inductor-cache")
  if [ "$impl" = interpreter ]; then e+=(TRITON_INTERPRET=1); fi
  if [ -n "${LN_BLOCK:-}" ]; then e+=(BENCH_LN_BLOCK="$LN_BLOCK"); fi
  run "${AS:-$k}" "$*" "$impl" "$t" -- "${e[@]}" "$VPY" bench/python/peers.py "$impl" "$k" "$@"
}
# torch eager every round; torch.compile in the first round only (each process pays seconds of
# graph set-up even from inductor's cache, and its kernels do not change between rounds).
torch_peers() { # kernel shape...
  py_peer torch 2 "$@"
  if [ "$round" = 1 ]; then py_peer inductor 2 "$@"; fi
}

# Peers of one row run right after tilec's, so slow drifts of a shared machine hit all alike.
# The whole kernel suite runs ROUNDS times and the report takes the median over all runs:
# other work on a shared machine then skews one run, not the result.
kernel_round() {
  section "vector add 2^24"
  for t in "${THREADS[@]}"; do
    pair vector_add vector_add 16777216 "$t" vector_add 16777216
    run vector_add 16777216 pocl "$t" -- "${OCL[@]}" POCL_MAX_PTHREAD_COUNT="$t" "$WORK/ocl_bench" bench/peers/opencl vector_add 16777216
  done
  run vector_add 16777216 numpy 1 -- "${BLAS_ENV[@]}" OPENBLAS_NUM_THREADS=1 "$PY" bench/peers/numpy_bench.py vector_add 16777216
  torch_peers vector_add 16777216

  for shape in "4096 1024" "1024 8192"; do
    read -r R C <<<"$shape"
    section "softmax ${R}x${C}"
    for t in "${THREADS[@]}"; do
      pair "softmax_$C" softmax "${R}x${C}" "$t" softmax "$R" "$C"
      run softmax "${R}x${C}" pocl "$t" -- "${OCL[@]}" POCL_MAX_PTHREAD_COUNT="$t" "$WORK/ocl_bench" bench/peers/opencl softmax "$R" "$C"
    done
    run softmax "${R}x${C}" numpy 1 -- "${BLAS_ENV[@]}" OPENBLAS_NUM_THREADS=1 "$PY" bench/peers/numpy_bench.py softmax "$R" "$C"
    torch_peers softmax "${R}x${C}"
  done
  # A row length that is not a power of two, at the tutorial's BLOCK = next_power_of_2(N): 3192
  # of the 8192 lanes are masked off (the tutorial's benchmark sweeps N = 256 ... 12800).
  section "softmax ${SM_TUTORIAL[0]}x${SM_TUTORIAL[1]}, BLOCK ${SM_TUTORIAL[2]} (the tutorial's next_power_of_2(N))"
  for t in "${THREADS[@]}"; do
    pair "softmax_${SM_TUTORIAL[2]}" "softmax (BLOCK ${SM_TUTORIAL[2]})" "${SM_TUTORIAL[0]}x${SM_TUTORIAL[1]}" "$t" \
      softmax "${SM_TUTORIAL[0]}" "${SM_TUTORIAL[1]}"
  done

  section "layer norm 1024x8192"
  for t in "${THREADS[@]}"; do
    pair layernorm layernorm 1024x8192 "$t" layernorm 1024 8192
    run layernorm 1024x8192 pocl "$t" -- "${OCL[@]}" POCL_MAX_PTHREAD_COUNT="$t" "$WORK/ocl_bench" bench/peers/opencl layernorm 1024 8192
  done
  run layernorm 1024x8192 numpy 1 -- "${BLAS_ENV[@]}" OPENBLAS_NUM_THREADS=1 "$PY" bench/peers/numpy_bench.py layernorm 1024 8192
  torch_peers layernorm 1024x8192
  for spec in "${LN_TUTORIAL[@]}"; do
    read -r R C B <<<"$spec"
    section "layer norm ${R}x${C}, BLOCK $B (the tutorial's next_power_of_2(N))"
    for t in "${THREADS[@]}"; do
      pair "layernorm_$B" "layernorm (BLOCK $B)" "${R}x${C}" "$t" layernorm "$R" "$C"
    done
  done

  section "matmul fp32 (tilec blocks ${BM}x${BN}x${BK}, group ${GM})"
  for t in "${THREADS[@]}"; do
    prev=""
    for n in "${MATMUL_SIZES[@]}"; do
      # Sizes run in ascending order; when the previous size predicts more than ~2 minutes
      # for this one (n^3 scaling, warm-up + 3 samples), this and larger sizes are skipped
      # in every round and their rows say why.
      if [ -z "${MM_SKIP[$t]:-}" ] && [ -n "$prev" ] && [ -n "${TILEC_OK[matmul]:-}" ]; then
        m=$(last_median tilec "$prev" "$t")
        if [ -n "$m" ] && awk -v m="$m" -v a="$prev" -v b="$n" 'BEGIN { exit !(m * (b / a) ^ 3 * 5 > 120) }'; then
          MM_SKIP[$t]="N=$prev took ${m} s per call; larger sizes would exceed the time budget"
        fi
      fi
      if [ -n "${MM_SKIP[$t]:-}" ]; then
        emit matmul "$n" tilec "$t" skipped "${MM_SKIP[$t]}"
      else
        tilec_run matmul matmul "$n" "$t" "$n"
      fi
      prev=$n
    done
    for n in "${MATMUL_SIZES[@]}"; do
      run matmul "$n" openblas "$t" -- "${BLAS_ENV[@]}" OPENBLAS_NUM_THREADS="$t" "$WORK/blas_bench" "$n"
      run matmul "$n" numpy "$t" -- "${BLAS_ENV[@]}" OPENBLAS_NUM_THREADS="$t" "$PY" bench/peers/numpy_bench.py matmul "$n"
      if [ "$n" -le "$POCL_MATMUL_MAX" ]; then
        # Seconds per call and ~100x off the others: one round is enough and saves a minute.
        if [ "$round" = 1 ]; then
          run matmul "$n" pocl "$t" -- "${OCL[@]}" POCL_MAX_PTHREAD_COUNT="$t" "$WORK/ocl_bench" bench/peers/opencl matmul "$n"
        fi
      else
        emit matmul "$n" pocl "$t" skipped "naive PoCL matmul capped at N=$POCL_MATMUL_MAX (it runs at ~1 GFLOP/s)"
      fi
    done
  done
  torch_peers matmul "${MATMUL_SIZES[@]}"

  section "empty kernel launch"
  for t in "${THREADS[@]}"; do
    tilec_run empty launch "grid 1" "$t"
    if [ -z "${TILEC_OK[empty]:-}" ]; then tilec_run empty launch "grid 1024" "$t"; fi
    run launch grid c "$t" -- env OMP_NUM_THREADS="$t" "$WORK/c_bench" launch
    run launch grid pocl "$t" -- "${OCL[@]}" POCL_MAX_PTHREAD_COUNT="$t" "$WORK/ocl_bench" bench/peers/opencl launch
  done
}
for round in $(seq "$ROUNDS"); do
  section "round $round of $ROUNDS"
  kernel_round
done

# How cost grows with size: 2 threads, one pass, tilec and the C loop alternating once per
# size, half the time budget; torch eager and Triton's interpreter (smallest sizes only) as
# Python users would run them. Rows are named "sweep <family>".
sweep() {
  local ALTERNATE=1 BENCH_TIME_SCALE
  BENCH_TIME_SCALE=$(awk -v s="${BENCH_TIME_SCALE:-1}" 'BEGIN { print s / 2 }')
  local SCALE_ENV=(BENCH_TIME_SCALE="$BENCH_TIME_SCALE") AS shapes=() r n
  section "sweep: vector add"
  AS="sweep vector_add"
  for n in "${SWEEP_VADD[@]}"; do pair vector_add "$AS" "$n" 2 vector_add "$n"; done
  py_peer torch 2 vector_add "${SWEEP_VADD[@]}"
  py_peer interpreter 2 vector_add "${SWEEP_VADD[@]:0:$SWEEP_INTERP}"

  section "sweep: softmax ROWSx1024 (BLOCK 1024)"
  AS="sweep softmax"
  shapes=()
  for r in "${SWEEP_SOFTMAX_ROWS[@]}"; do
    pair softmax_1024 "$AS" "${r}x1024" 2 softmax "$r" 1024
    shapes+=("${r}x1024")
  done
  py_peer torch 2 softmax "${shapes[@]}"
  py_peer interpreter 2 softmax "${shapes[@]:0:$SWEEP_INTERP}"

  section "sweep: layer norm ROWSx8192 (BLOCK 8192 and 256)"
  shapes=()
  for r in "${SWEEP_LN_ROWS[@]}"; do
    AS="sweep layernorm"
    pair layernorm_8192 "$AS" "${r}x8192" 2 layernorm "$r" 8192
    AS="sweep layernorm (BLOCK 256)"
    tilec_run layernorm "$AS" "${r}x8192" 2 "$r" 8192
    shapes+=("${r}x8192")
  done
  AS="sweep layernorm"
  py_peer torch 2 layernorm "${shapes[@]}"
  LN_BLOCK=pow2 py_peer interpreter 2 layernorm "${shapes[@]:0:$SWEEP_INTERP}"

  section "sweep: matmul fp32"
  AS="sweep matmul"
  for n in "${SWEEP_MATMUL[@]}"; do
    tilec_run matmul "$AS" "$n" 2 "$n"
    run "$AS" "$n" openblas 2 -- "${BLAS_ENV[@]}" BENCH_TIME_SCALE="$BENCH_TIME_SCALE" OPENBLAS_NUM_THREADS=2 "$WORK/blas_bench" "$n"
  done
  py_peer torch 2 matmul "${SWEEP_MATMUL[@]}"
  py_peer interpreter 2 matmul "${SWEEP_MATMUL[@]:0:$SWEEP_INTERP}"
}
if [ "$SWEEP" = 1 ]; then
  round=0
  sweep
fi

section "compile times"
# Cold = a fresh process each time (and, for PoCL, an empty kernel cache); one sample per
# process, the report takes the median over the processes.
compile_kernel() { # file kernel signature
  for _ in $(seq "$COMPILE_SAMPLES"); do
    run "compile (cold)" "$(basename "$1" .py)" tilec 1 -- "$WORK/compile_time" "$TILEC" "$1" "$2" "$3" "$WORK"
  done
}
compile_kernel bench/kernels/vector_add.py vadd_kernel "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024"
compile_kernel bench/kernels/softmax.py softmax_kernel "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1024"
compile_kernel bench/kernels/layernorm.py layernorm_fwd_kernel \
  "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 256"
compile_kernel bench/kernels/matmul.py matmul_kernel \
  "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, $BM, $BN, $BK, $GM"
for which in vector_add matmul all; do
  for _ in $(seq 3); do
    cache="$WORK/pocl-build-cache"
    rm -rf "$cache" && mkdir -p "$cache"   # empty: the next build is cold
    run "compile (cold)" "$which" pocl 1 -- env POCL_CACHE_DIR="$cache" "$WORK/ocl_bench" bench/peers/opencl build cold "$which"
    run "compile (cached)" "$which" pocl 1 -- env POCL_CACHE_DIR="$cache" "$WORK/ocl_bench" bench/peers/opencl build cached "$which"
  done
  rm -rf "$cache"
done

section "python: launch overhead; tilec from Python vs torch and numpy"
# bench/python/run.py, in the venv scripts/test.sh uses (tilec from `pip install .`, torch
# and the real triton from PyPI); its own report: bench/python/REPORT.md. Triton's
# interpreter is measured above (the sweep, small sizes), not again at full size here.
PYOPTS=(--no-interpreter)
if [ "$QUICK" = 1 ]; then PYOPTS+=(--quick); fi
mkdir -p "${BENCH_REPORT_DIR:-bench}/python"
if [ -n "$VPY" ]; then
  "$VPY" bench/python/run.py "${PYOPTS[@]}" --out "${BENCH_REPORT_DIR:-bench}/python/REPORT.md" ||
    echo "warning: the Python benchmarks failed" >&2
else
  echo "warning: $VPY_ERR: Python benchmarks skipped" >&2
fi

section "debug checks: --check all against unchecked"
# bench/check_cost.py: each kernel unchecked and with --check all, alternating; wall time at 2
# threads, then CPU time per launch at 1 thread. Its tables go into REPORT.md.
CHECKS_MD="$WORK/check_cost.md"
if { "$PY" bench/check_cost.py "$TILEC" --rounds "$((ROUNDS + 2))" && echo &&
     "$PY" bench/check_cost.py "$TILEC" --rounds "$((ROUNDS + 2))" --cpu; } >"$CHECKS_MD"; then
  CHECKS_OPT=(--checks "$CHECKS_MD")
else
  echo "warning: bench/check_cost.py failed: no debug checks section" >&2
  CHECKS_OPT=()
fi

section "report"
# Machine facts for the report; the load average shows whether other work shared the cores.
MACHINE="$WORK/machine.env"
{
  echo "cpu=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)"
  echo "cpus=$(nproc)"
  echo "cores_per_socket=$(lscpu | sed -n 's/^Core(s) per socket:[[:space:]]*//p')"
  echo "threads_per_core=$(lscpu | sed -n 's/^Thread(s) per core:[[:space:]]*//p')"
  echo "caches=$(lscpu | sed -n 's/^\(L[123][di]\{0,1\}\) cache:[[:space:]]*/\1 /p' | paste -sd ';' -)"
  echo "simd=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(sse4_2|avx|avx2|fma|avx512f|avx512bw|avx512vl|avx512_vnni|avx512_bf16|amx_tile)$' | paste -sd ' ' -)"
  echo "kernel=$(uname -srm)"
  echo "os=$(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "memory=$(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "cc=$("$CC" --version | head -n 1)"
  echo "pocl=$(env POCL_CACHE_DIR="$WORK/pocl-cache" "$WORK/ocl_bench" bench/peers/opencl device 2>/dev/null || echo unavailable)"
  echo "numpy=$("$PY" -c 'import numpy; print(numpy.__version__)')"
  if [ -n "$VPY" ]; then
    echo "torch=$("$VPY" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo unavailable)"
    echo "triton=$(env -u TILEC_TRITON "$VPY" -c 'import triton; print(triton.__version__)' 2>/dev/null || echo unavailable)"
    echo "sweep=$SWEEP"
  fi
  echo "sleef=$(dpkg-query -W -f='${Version}' libsleef-dev 2>/dev/null || echo unknown)"
  echo "openblas=$(dpkg-query -W -f='${Version}' libopenblas0-pthread 2>/dev/null || echo unknown)"
  echo "tilec_commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git status --porcelain -- . ':(exclude)bench' 2>/dev/null | grep -q . && echo ' (uncommitted changes present)')"
  echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "loadavg_start=$LOAD_START"
  echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "duration_s=$(( $(date +%s) - T_START ))"
  echo "matmul_blocks=$BM $BN $BK $GM"
  echo "quick=$QUICK"
  echo "rounds=$ROUNDS"
  echo "alternate=$ALTERNATE"
} >"$MACHINE"
# BENCH_REPORT_DIR: write the report elsewhere (trying the harness without replacing bench/).
"$PY" bench/report.py --raw "$RAW" --machine "$MACHINE" --commands "$CMDS" --out "${BENCH_REPORT_DIR:-bench}" "${CHECKS_OPT[@]}"
echo "total: $(( $(date +%s) - T_START )) s"
