#!/usr/bin/env bash
# tests/e2e/debug_checks.sh — `tilec run --check-bounds`: an out-of-bounds lane is reported
# at its source line with the program, the tile index, the element and the buffer size;
# masked-off lanes never are; unchecked builds run as before. Also --program / --serial,
# --check-nan, --reference and --check-races.
# Usage: debug_checks.sh TILEC [hooks|no-hooks]. Prints "N passed, M failed". With "hooks"
# (a -DTILEC_TEST_HOOKS=ON build) it also checks that --reference catches a miscompile.
set -euo pipefail
TILEC="$1"
HOOKS="${2:-no-hooks}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
# `tilec run` caches compiled kernels: a cache of its own keeps the run from reading or filling
# the user's (~/.cache/tilec).
export TILEC_CACHE_DIR="$work/cache"
pass=0
fail=0
check() { # name, expected exit, expected first stderr line ('' = don't care), command...
  local name="$1" want_rc="$2" want="$3"
  shift 3
  set +e
  "$@" > out.txt 2> err.txt
  local rc=$?
  set -e
  local first
  first="$(head -n 1 err.txt)"
  if [ "$rc" -ne "$want_rc" ] || { [ -n "$want" ] && [ "$first" != "$want" ]; }; then
    echo "FAIL $name: exit $rc (want $want_rc), stderr: $first"
    fail=$((fail + 1))
  else
    echo "ok   $name"
    pass=$((pass + 1))
  fi
}
# .npy v1.0 writer for float32 vectors without Python (header padded to a multiple of 64)
npy_f32() { # file count
  local hdr="{'descr': '<f4', 'fortran_order': False, 'shape': ($2,), }"
  local total=$(( ((10 + ${#hdr} + 1 + 63) / 64) * 64 ))
  local hlen=$((total - 10))
  local pad=$((hlen - ${#hdr} - 1))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((hlen & 255)))\\x$(printf %02x $((hlen >> 8)))";
    printf '%s' "$hdr"; printf '%*s' "$pad" ''; printf '\n'
    if [ -n "${3:-}" ]; then for ((i = 0; i < $2; i++)); do printf "$3"; done; else head -c $(($2 * 4)) /dev/zero; fi
  } > "$1"
}
npy_i64() { # file count (zeros)
  local hdr="{'descr': '<i8', 'fortran_order': False, 'shape': ($2,), }"
  local total=$(( ((10 + ${#hdr} + 1 + 63) / 64) * 64 ))
  local hlen=$((total - 10))
  local pad=$((hlen - ${#hdr} - 1))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((hlen & 255)))\\x$(printf %02x $((hlen >> 8)))";
    printf '%s' "$hdr"; printf '%*s' "$pad" ''; printf '\n'; head -c $(($2 * 8)) /dev/zero
  } > "$1"
}
cat > copy.py <<'PY'
import triton
import triton.language as tl


@triton.jit
def copy_unmasked(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x, mask=offs < n)


@triton.jit
def copy_masked(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


@triton.jit
def store_past(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) + 1
    tl.store(out_ptr + offs, offs.to(tl.float32), mask=offs <= n)


@triton.jit
def log_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.log(tl.load(x_ptr + offs, mask=m)) + 1.0, mask=m)


@triton.jit
def whoami(out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0) + 10 * tl.program_id(1)
    tl.store(out_ptr + pid, pid.to(tl.float32))


@triton.jit
def addr_roundtrip(x_ptr, y_ptr, slot_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    addr = x_ptr.to(tl.int64)
    back = (addr + (BLOCK - 1 - i).to(tl.int64) * 4).to(tl.pointer_type(tl.float32))
    tl.store(y_ptr + i, tl.load(back))
    tl.store(slot_ptr, addr)


@triton.jit
def pad_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, NAN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    pad = float('nan') if NAN else -float('inf')
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n, other=pad) * 2.0)


@triton.jit
def scalar_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    s = tl.load(x_ptr)
    tl.store(out_ptr + tl.arange(0, BLOCK), s * 2.0)
PY
npy_f32 x.npy 1000
npy_f32 o.npy 1000
npy_f32 w.npy 12
npy_f32 w40.npy 40
npy_f32 nan.npy 100 '\x00\x00\xc0\x7f'
npy_f32 one.npy 100 '\x00\x00\x80\x3f'
npy_f32 big.npy 1 '\xff\xff\x7f\x7f'
RUN=("$TILEC" run copy.py)
check unmasked_overrun 1 "copy.py:8:9: error: load from 'x_ptr' at element 1000 is out of bounds (buffer has 1000 elements) in program (62, 0, 0), tile index [8]" \
  "${RUN[@]}" -k copy_unmasked --grid 63 x_ptr=x.npy out_ptr=o.npy n=1000 BLOCK=16 --check-bounds
check masked_tail_is_fine 0 "" "${RUN[@]}" -k copy_masked --grid 100 x_ptr=x.npy out_ptr=o.npy n=1000 BLOCK=16 --check-bounds
check in_bounds_unmasked 0 "" "${RUN[@]}" -k copy_unmasked --grid 62 x_ptr=x.npy out_ptr=o.npy n=1000 BLOCK=16 --check-bounds
check store_overrun 1 "copy.py:22:5: error: store to 'out_ptr' at element 1000 is out of bounds (buffer has 1000 elements) in program (62, 0, 0), tile index [7]" \
  "${RUN[@]}" -k store_past --grid 63 out_ptr=o.npy n=1000 BLOCK=16 --check-bounds
check one_program 0 "" "${RUN[@]}" -k whoami --grid 3,4 out_ptr=w40.npy BLOCK=1 --program 2,1
# program (2, 1) stores at element 2 + 10 * 1 = 12: past a 12-element buffer
check one_program_bounds 1 "copy.py:35:5: error: store to 'out_ptr' at element 12 is out of bounds (buffer has 12 elements) in program (2, 1, 0)" \
  "${RUN[@]}" -k whoami --grid 3,4 out_ptr=w.npy BLOCK=1 --program 2,1 --check-bounds
check serial 0 "" "${RUN[@]}" -k copy_masked --grid 100 x_ptr=x.npy out_ptr=o.npy n=1000 BLOCK=16 --serial
# One switch: --check all / --check LIST / --check=LIST and TILEC_CHECK turn classes on together;
# an unknown class is a usage error naming it.
check check_all 1 "copy.py:8:9: error: load from 'x_ptr' at element 1000 is out of bounds (buffer has 1000 elements) in program (62, 0, 0), tile index [8]" \
  "${RUN[@]}" -k copy_unmasked --grid 63 x_ptr=x.npy out_ptr=o.npy n=1000 BLOCK=16 --check all
check check_list 1 "copy.py:22:5: error: store to 'out_ptr' at element 1000 is out of bounds (buffer has 1000 elements) in program (62, 0, 0), tile index [7]" \
  "${RUN[@]}" -k store_past --grid 63 out_ptr=o.npy n=1000 BLOCK=16 --check=nan,bounds
check check_list_without_bounds 0 "" "${RUN[@]}" -k copy_unmasked --grid 62 x_ptr=x.npy out_ptr=o.npy n=1000 BLOCK=16 --check nan
check check_env_all 1 "copy.py:8:9: error: load from 'x_ptr' at element 1000 is out of bounds (buffer has 1000 elements) in program (62, 0, 0), tile index [8]" \
  env TILEC_CHECK=all "${RUN[@]}" -k copy_unmasked --grid 63 x_ptr=x.npy out_ptr=o.npy n=1000 BLOCK=16
check check_unknown 2 "tilec: error: --check: unknown check 'bonds' in 'nan,bonds' (expected all, none, or a comma-separated list of bounds, nan, races and init)" \
  "${RUN[@]}" -k copy_unmasked --grid 63 x_ptr=x.npy out_ptr=o.npy n=1000 BLOCK=16 --check nan,bonds
check check_env_unknown 1 "error: TILEC_CHECK: unknown check 'yes' in 'yes' (expected all, none, or a comma-separated list of bounds, nan, races and init)" \
  env TILEC_CHECK=yes "${RUN[@]}" -k copy_unmasked --grid 63 x_ptr=x.npy out_ptr=o.npy n=1000 BLOCK=16
check compile_check_unknown 2 "tilec: error: --check: unknown check 'racse' in 'racse' (expected all, none, or a comma-separated list of bounds, nan, races and init)" \
  "$TILEC" compile copy.py -k copy_unmasked -s '*fp32, *fp32, i32, 16' --emit vector --check racse
# --check-nan: log(0) = -Inf from finite inputs is reported; NaN inputs passing through are
# not; finite results are fine.
check nan_from_finite 1 "copy.py:29:5: error: store to 'out_ptr' writes -Inf produced from finite inputs in program (0, 0, 0), tile index [0]" \
  "${RUN[@]}" -k log_kernel --grid 7 x_ptr=x.npy out_ptr=o.npy n=100 BLOCK=16 --check-nan
check nan_from_nan_input 0 "" "${RUN[@]}" -k log_kernel --grid 7 x_ptr=nan.npy out_ptr=o.npy n=100 BLOCK=16 --check-nan
check finite_is_fine 0 "" "${RUN[@]}" -k log_kernel --grid 7 x_ptr=one.npy out_ptr=o.npy n=100 BLOCK=16 --check-nan
# A NaN/Inf the load itself supplies (other=, a block pointer's padding_option="nan") and one
# a scalar load reads count as loaded, not produced; a store of a NaN made from them is fine.
check nan_from_other 0 "" "${RUN[@]}" -k pad_kernel --grid 7 x_ptr=one.npy out_ptr=o.npy n=100 BLOCK=16 NAN=True --check nan
check inf_from_other 0 "" "${RUN[@]}" -k pad_kernel --grid 7 x_ptr=one.npy out_ptr=o.npy n=100 BLOCK=16 NAN=False --check nan
check nan_from_scalar_load 0 "" "${RUN[@]}" -k scalar_kernel --grid 1 x_ptr=nan.npy out_ptr=o.npy BLOCK=16 --check nan
check nan_scalar_finite 1 "copy.py:57:5: error: store to 'out_ptr' writes +Inf produced from finite inputs in program (0, 0, 0), tile index [0]" \
  "${RUN[@]}" -k scalar_kernel --grid 1 x_ptr=big.npy out_ptr=o.npy BLOCK=16 --check nan
# --reference: the optimized build agrees with the plain one; a deliberate miscompile
# (test hook) is caught at the first differing element.
check reference_agrees 0 "" "${RUN[@]}" -k copy_masked --grid 100 x_ptr=x.npy out_ptr=o.npy n=1000 BLOCK=16 --reference
if [ "$HOOKS" = hooks ]; then
  check reference_catches 1 "tilec: error: reference check: 'out_ptr'[0] is 1 in the optimized build but 0 in the reference build" \
    env TILEC_TEST_INJECT_MISCOMPILE=1 "${RUN[@]}" -k copy_masked --grid 100 x_ptr=x.npy out_ptr=o.npy n=1000 BLOCK=16 --reference
else
  echo "skip reference_catches: libtilec built without -DTILEC_TEST_HOOKS=ON"
fi
# int64 addresses cast back to a pointer tile (the reference build dereferenced a null base
# and crashed); the address stored to memory is the same in both builds (same buffers).
npy_i64 slot.npy 1
check reference_int_to_ptr 0 "" "${RUN[@]}" -k addr_roundtrip --grid 1 x_ptr=x.npy y_ptr=o.npy slot_ptr=slot.npy BLOCK=16 --reference
# --check-races: two programs storing the same element is reported (exactly, when --serial
# fixes the order; any order in parallel); disjoint stores, atomics and stores made while
# holding an atomic_cas lock are not.
cat > race.py <<'PY'
import triton
import triton.language as tl


@triton.jit
def same_rows(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + pid * BLOCK + offs), mask=pid * BLOCK + offs < n)


@triton.jit
def by_column(out_ptr):
    tl.store(out_ptr + tl.program_id(0), tl.program_id(1).to(tl.float32))


@triton.jit
def histogram(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.atomic_add(out_ptr + (x.to(tl.int32) % 4), 1.0, mask=offs < n)


@triton.jit
def total(x_ptr, out_ptr, lock_ptr, n, LOCK: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    s = tl.sum(tl.load(x_ptr + offs, mask=offs < n), axis=0)
    if LOCK:
        while tl.atomic_cas(lock_ptr, 0, 1) == 1:
            pass
    tl.store(out_ptr, tl.load(out_ptr) + s)
    if LOCK:
        tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def shift_left(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs + 1, mask=offs + 1 < n)
    tl.store(x_ptr + offs, v, mask=offs < n)


@triton.jit
def read_previous(out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs.to(tl.float32), mask=offs < n)
    prev = tl.load(out_ptr + pid * BLOCK - 1, mask=pid > 0, other=0.0)
    tl.store(out_ptr + offs, prev + offs.to(tl.float32), mask=offs < n)


@triton.jit
def scale_in_place(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


@triton.jit
def gather_rows(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # every program reads all of x (read-read sharing is no race)
    offs = tl.arange(0, BLOCK)
    s = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0)
    tl.store(out_ptr + tl.program_id(0), s)


@triton.jit
def flagged(x_ptr, out_ptr, lock_ptr, seen_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    s = tl.sum(tl.load(x_ptr + offs, mask=offs < n), axis=0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    if tl.load(seen_ptr) == 0:
        tl.atomic_xchg(seen_ptr, 1)
        tl.store(out_ptr, s)
    else:
        tl.store(out_ptr, tl.load(out_ptr) + s)
    tl.atomic_xchg(lock_ptr, 0)
PY
npy_f32 s.npy 1
npy_f32 lock.npy 1
npy_f32 seen.npy 1
RACE=("$TILEC" run race.py)
check race_reported 1 "race.py:9:5: error: write-write race on 'out_ptr' element 0: program (1, 0, 0) stores it at race.py:9:5 after program (0, 0, 0) stored it at race.py:9:5, with no atomic or lock ordering the two" \
  "${RACE[@]}" -k same_rows --grid 4 x_ptr=x.npy out_ptr=o.npy n=100 BLOCK=32 --check-races --serial
# the same report whatever the thread count: the accesses are logged, then compared
check race_reported_parallel 1 "race.py:9:5: error: write-write race on 'out_ptr' element 0: program (1, 0, 0) stores it at race.py:9:5 after program (0, 0, 0) stored it at race.py:9:5, with no atomic or lock ordering the two" \
  "${RACE[@]}" -k same_rows --grid 4 x_ptr=x.npy out_ptr=o.npy n=100 BLOCK=32 --check races --threads 2
check race_2d_grid 1 "race.py:14:5: error: write-write race on 'out_ptr' element 0: program (0, 1, 0) stores it at race.py:14:5 after program (0, 0, 0) stored it at race.py:14:5, with no atomic or lock ordering the two" \
  "${RACE[@]}" -k by_column --grid 2,2 out_ptr=w.npy --check-races --serial
check race_free_disjoint 0 "" "${RUN[@]}" -k copy_masked --grid 100 x_ptr=x.npy out_ptr=o.npy n=1000 BLOCK=16 --check-races
check race_free_atomics 0 "" "${RACE[@]}" -k histogram --grid 4 x_ptr=x.npy out_ptr=w.npy n=100 BLOCK=32 --check-races
check race_free_locked 0 "" "${RACE[@]}" -k total --grid 4 x_ptr=x.npy out_ptr=s.npy lock_ptr=lock.npy n=100 LOCK=1 BLOCK=32 --check-races
check race_unlocked 1 "race.py:31:5: error: write-write race on 'out_ptr' element 0: program (1, 0, 0) stores it at race.py:31:5 after program (0, 0, 0) stored it at race.py:31:5, with no atomic or lock ordering the two" \
  "${RACE[@]}" -k total --grid 4 x_ptr=x.npy out_ptr=s.npy lock_ptr=lock.npy n=100 LOCK=0 BLOCK=32 --check-races --serial
# Read-write races: a load of an element another program of the launch stores (either order)
check rw_race_neighbour 1 "race.py:40:5: error: read-write race on 'x_ptr' element 32: program (1, 0, 0) stores it at race.py:40:5 after program (0, 0, 0) loaded it at race.py:39:9, with no atomic or lock ordering the two" \
  "${RACE[@]}" -k shift_left --grid 4 x_ptr=x.npy n=100 BLOCK=32 --check races --threads 2
check rw_race_one_program 0 "" "${RACE[@]}" -k shift_left --grid 1 x_ptr=x.npy n=32 BLOCK=32 --check races
check rw_race_previous 1 "race.py:48:12: error: read-write race on 'out_ptr' element 31: program (1, 0, 0) loads it at race.py:48:12 after program (0, 0, 0) stored it at race.py:47:5, with no atomic or lock ordering the two" \
  "${RACE[@]}" -k read_previous --grid 4 out_ptr=o.npy n=128 BLOCK=32 --check races
check race_free_in_place 0 "" "${RACE[@]}" -k scale_in_place --grid 32 x_ptr=x.npy n=1000 BLOCK=32 --check races
check race_free_shared_reads 0 "" "${RACE[@]}" -k gather_rows --grid 8 x_ptr=x.npy out_ptr=o.npy n=100 BLOCK=128 --check races
# an atomic_xchg on a flag beside the lock does not release it
check race_free_flag_xchg 0 "" "${RACE[@]}" -k flagged --grid 4 x_ptr=x.npy out_ptr=s.npy lock_ptr=lock.npy seen_ptr=seen.npy n=100 BLOCK=32 --check races
# --check init: NAME=empty:DTYPE:SHAPE arrays are made by tilec (0xff bytes) and marked not yet
# written; a load of an element no store wrote since is reported at the load. Arrays read
# from .npy files are written (by numpy), so never reported.
cat > init.py <<'PY'
import triton
import triton.language as tl


@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs.to(tl.float32), mask=offs < n)


@triton.jit
def fill_then_read(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs.to(tl.float32), mask=offs < n - 1)
    v = tl.load(out_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, v * 2.0, mask=offs < n)


@triton.jit
def accumulate(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.load(out_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, acc + tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@triton.jit
def scalar_first(out_ptr, BLOCK: tl.constexpr):
    s = tl.load(out_ptr)
    tl.store(out_ptr + tl.arange(0, BLOCK), s + 1.0)
PY
INIT=("$TILEC" run init.py)
check init_written 0 "" "${INIT[@]}" -k fill --grid 4 out_ptr=empty:fp32:100 n=100 BLOCK=32 --check init --out out_ptr=filled.npy
npy_f32 o100.npy 100
check init_same_as_file 0 "" "${INIT[@]}" -k fill --grid 4 out_ptr=o100.npy n=100 BLOCK=32 --out out_ptr=filled_file.npy
check init_written_values 0 "" cmp filled.npy filled_file.npy
check init_read_before_write 1 "init.py:15:9: error: load from 'out_ptr' at element 99 reads memory nothing has stored to since it was marked uninitialized, in program (3, 0, 0)" \
  "${INIT[@]}" -k fill_then_read --grid 4 out_ptr=empty:fp32:100 n=100 BLOCK=32 --check init
check init_with_all 1 "init.py:15:9: error: load from 'out_ptr' at element 99 reads memory nothing has stored to since it was marked uninitialized, in program (3, 0, 0)" \
  "${INIT[@]}" -k fill_then_read --grid 4 out_ptr=empty:fp32:100 n=100 BLOCK=32 --check all --threads 2
check init_accumulate 1 "init.py:22:11: error: load from 'out_ptr' at element 0 reads memory nothing has stored to since it was marked uninitialized, in program (0, 0, 0)" \
  "${INIT[@]}" -k accumulate --grid 4 x_ptr=x.npy out_ptr=empty:fp32:100 n=100 BLOCK=32 --check init
check init_scalar 1 "init.py:28:9: error: load from 'out_ptr' at element 0 reads memory nothing has stored to since it was marked uninitialized, in program (0, 0, 0)" \
  "${INIT[@]}" -k scalar_first --grid 1 out_ptr=empty:fp32:16 BLOCK=16 --check init
check init_from_file 0 "" "${INIT[@]}" -k accumulate --grid 4 x_ptr=x.npy out_ptr=o.npy n=100 BLOCK=32 --check init
check init_unchecked 0 "" "${INIT[@]}" -k accumulate --grid 4 x_ptr=x.npy out_ptr=empty:fp32:100 n=100 BLOCK=32
check init_bad_spec 1 "tilec: error: parameter 'out_ptr': 'empty:fp33:100' is not empty:DTYPE:SHAPE (a dtype such as fp32, then the dimensions: empty:fp32:1000 or empty:i32:64x128)" \
  "${INIT[@]}" -k accumulate --grid 4 x_ptr=x.npy out_ptr=empty:fp33:100 n=100 BLOCK=32
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
