#!/usr/bin/env bash
# tests/e2e/run_cache.sh — `tilec run` compiles through the JIT disk cache: the first run of a
# specialization compiles and stores DIR/KEY.so (TILEC_CACHE_DIR), a second equal run loads
# that entry without compiling (-v says so, the entry is not rewritten, tl.static_print is
# silent) and computes the same result; other bindings or options (--check-bounds,
# --reference) are other entries; --no-cache compiles and leaves the cache alone; a corrupt
# entry is rebuilt and an unusable cache directory only warns; the front end's warnings show
# on a compile and on a load from the cache.
# Usage: run_cache.sh TILEC. Prints "N passed, M failed".
set -euo pipefail
TILEC="$(realpath "$1")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
export TILEC_CACHE_DIR="$work/cache"
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
# run NAME ARGS...: tilec run -v with the kernel below; exit status in $rc, output in out.txt/err.txt
run() {
  set +e
  "$TILEC" run scale.py -k scale --grid 4 x_ptr=x.npy out_ptr=o.npy n=100 -v "$@" > out.txt 2> err.txt
  rc=$?
  set -e
}
entries() { find cache -maxdepth 1 -name '*.so' 2>/dev/null | wc -l; }
# .npy v1.0 float32 vector of COUNT copies of the 4 bytes BYTES (printf escapes)
npy_f32() { # file count bytes
  local hdr="{'descr': '<f4', 'fortran_order': False, 'shape': ($2,), }"
  local total=$(( ((10 + ${#hdr} + 1 + 63) / 64) * 64 ))
  local hlen=$((total - 10))
  local pad=$((hlen - ${#hdr} - 1))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((hlen & 255)))\\x$(printf %02x $((hlen >> 8)))";
    printf '%s' "$hdr"; printf '%*s' "$pad" ''; printf '\n'
    for ((i = 0; i < $2; i++)); do printf "$3"; done
  } > "$1"
}
cat > scale.py <<'PY'
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr = 32):
    tl.static_print("compiling scale, BLOCK =", BLOCK)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)
PY
npy_f32 x.npy 100 '\x00\x00\x80\x3f'   # 1.0
npy_f32 o.npy 100 '\x00\x00\x00\x00'
npy_f32 want.npy 100 '\x00\x00\x00\x40' # 2.0
same_data() { cmp -s <(tail -c 400 "$1") <(tail -c 400 want.npy); }

# 1. first run: compiled, stored, static_print printed
run --out out_ptr=o.npy
entry="$(sed -n "s|^tilec: kernel 'scale' compiled and cached: ||p" err.txt)"
if [ "$rc" -ne 0 ] || [ -z "$entry" ] || [ ! -f "$entry" ] || [ "$(dirname "$entry")" != "$work/cache" ]; then
  bad first_run_compiles "exit $rc, stderr: $(head -c 300 err.txt)"
elif ! grep -q "compiling scale, BLOCK = *32" out.txt || ! same_data o.npy || [ "$(entries)" -ne 1 ]; then
  bad first_run_compiles "static_print or result missing, or $(entries) cache entries; stdout: $(head -c 200 out.txt)"
else
  ok first_run_compiles
fi
before="$(stat -c '%i %y' "$entry" 2>/dev/null || true)"

# 2. the same run again: loaded from the entry, which is not rewritten; no compile output
npy_f32 o.npy 100 '\x00\x00\x00\x00'
run --out out_ptr=o.npy
if [ "$rc" -ne 0 ] || ! grep -qxF "tilec: kernel 'scale' loaded from the cache: $entry" err.txt; then
  bad second_run_hits "exit $rc, stderr: $(head -c 300 err.txt)"
elif [ "$(stat -c '%i %y' "$entry")" != "$before" ] || grep -q compiling out.txt || ! same_data o.npy; then
  bad second_run_hits "entry rewritten, static_print printed or wrong result; stdout: $(head -c 200 out.txt)"
else
  ok second_run_hits
fi

# 3. another constexpr value and another option are other entries
run BLOCK=64
if [ "$rc" -ne 0 ] || ! grep -q "compiled and cached" err.txt || ! grep -q "BLOCK = *64" out.txt; then
  bad other_binding_compiles "exit $rc, stderr: $(head -c 300 err.txt)"
else
  ok other_binding_compiles
fi
run --check-bounds
if [ "$rc" -ne 0 ] || ! grep -q "compiled and cached" err.txt || [ "$(entries)" -ne 3 ]; then
  bad other_option_compiles "exit $rc, $(entries) entries, stderr: $(head -c 300 err.txt)"
else
  ok other_option_compiles
fi

# 4. --reference: the reference build is cached as well
run --reference
run2_ok=$rc
cp err.txt err1.txt
run --reference
if [ "$run2_ok" -ne 0 ] || ! grep -q "reference build 'scale' compiled and cached" err1.txt ||
   [ "$rc" -ne 0 ] || [ "$(grep -c "loaded from the cache" err.txt)" -ne 2 ] || ! grep -q "reference check: " out.txt; then
  bad reference_cached "exit $run2_ok/$rc, stderr: $(head -c 300 err1.txt) / $(head -c 300 err.txt)"
else
  ok reference_cached
fi

# 5. --no-cache: compiled again (static_print printed), nothing added to the cache
n="$(entries)"
run --no-cache
if [ "$rc" -ne 0 ] || ! grep -qxF "tilec: kernel 'scale' compiled (not cached)" err.txt || ! grep -q compiling out.txt ||
   [ "$(entries)" -ne "$n" ]; then
  bad no_cache "exit $rc, $(entries) entries (had $n), stderr: $(head -c 300 err.txt)"
else
  ok no_cache
fi

# 6. a truncated entry is rebuilt with a warning, never loaded
[ -n "$entry" ] && truncate -s 100 "$entry"
run --out out_ptr=o.npy
if [ "$rc" -ne 0 ] || ! grep -q "tilec: warning: JIT cache entry '$entry' was corrupt" err.txt ||
   ! grep -q "compiled and cached" err.txt || ! same_data o.npy; then
  bad corrupt_entry_rebuilt "exit $rc, stderr: $(head -c 300 err.txt)"
else
  ok corrupt_entry_rebuilt
fi

# 7. a cache "directory" that is a file: a warning, the kernel still runs
: > notadir
set +e
TILEC_CACHE_DIR="$work/notadir" "$TILEC" run scale.py -k scale --grid 4 x_ptr=x.npy out_ptr=o.npy n=100 \
  --out out_ptr=o.npy > out.txt 2> err.txt
rc=$?
set -e
if [ "$rc" -ne 0 ] || ! grep -q "tilec: warning: JIT cache directory '$work/notadir' is not usable" err.txt ||
   ! same_data o.npy; then
  bad unusable_dir_warns "exit $rc, stderr: $(head -c 300 err.txt)"
else
  ok unusable_dir_warns
fi

# 8. Triton's compile-time warnings go to stderr at the kernel's line, from a compile and
#    again from the cache entry (kept beside it)
cat > warn.py <<'PY'
import triton
import triton.language as tl


@triton.jit
def warn(x_ptr, out_ptr, n, BLOCK: tl.constexpr = 32):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, tl.where(offs, x * 2.0, x * 2.0), mask=m)
PY
want_w="warn.py:10:30: warning: tl.where with a non-boolean condition is deprecated and will error out in a future triton release. Got int32"
for pass_name in compiled cached; do
  set +e
  "$TILEC" run warn.py -k warn --grid 4 x_ptr=x.npy out_ptr=o.npy n=100 --out out_ptr=o.npy > out.txt 2> err.txt
  rc=$?
  set -e
  if [ "$rc" -ne 0 ] || [ "$(grep -c 'warning: tl.where' err.txt)" -ne 1 ] || ! grep -qF "$want_w" err.txt ||
     ! same_data o.npy; then
    bad "warning_$pass_name" "exit $rc, stderr: $(head -c 400 err.txt)"
  else
    ok "warning_$pass_name"
  fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
