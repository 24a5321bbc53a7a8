#!/usr/bin/env bash
# tests/e2e/isa_v3.sh SRC_DIR BUILD_DIR WORK_DIR — the x86-64-v3 target (AVX2, no AVX-512)
# built and run on this machine: the e2e elementwise families and the softmax example
# (its exp in line) against their C references, and the objects checked for no zmm
# register and only SLEEF's 8-lane (…f8…) entry points. Skipped (77) without AVX2.
set -euo pipefail
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
WORK=$3
CC=${CC:-clang-22}
grep -qw avx2 /proc/cpuinfo || { echo "SKIP: this CPU has no AVX2"; exit 77; }
rm -rf "$WORK" && mkdir -p "$WORK" && WORK=$(cd "$WORK" && pwd)
fail=0

"$BUILD/tests/e2e/run_elementwise" --target x86-64-v3 "$SRC/tests/e2e/kernels" all >"$WORK/e2e.log" 2>&1 &&
  echo "ok   $(grep -c '^ok' "$WORK/e2e.log") e2e checks built for x86-64-v3" ||
  { grep -v '^ok' "$WORK/e2e.log"; fail=1; }

"$BUILD/tilec" compile "$SRC/examples/softmax/softmax.py" -k softmax_kernel --target x86-64-v3 \
  -s "*fp32:16, *fp32:16, i32, i32, i32, 1024" -o "$WORK/softmax_kernel.so" --header "$WORK/softmax_kernel.h"
"$CC" -std=c17 -O2 -I"$SRC/include" -I"$WORK" "$SRC/examples/softmax/aot.c" "$WORK/softmax_kernel.so" \
  -L"$BUILD" -ltilec-runtime -lm -Wl,-rpath,"$WORK" -Wl,-rpath,"$BUILD" -o "$WORK/softmax"
"$WORK/softmax" || fail=1

llvm-objdump-22 -d "$WORK/softmax_kernel.so" >"$WORK/softmax.s"
if grep -q zmm "$WORK/softmax.s"; then echo "FAIL: x86-64-v3 softmax uses zmm registers"; fail=1
elif ! grep -q ymm "$WORK/softmax.s"; then echo "FAIL: x86-64-v3 softmax has no ymm (AVX2) code"; fail=1
else echo "ok   softmax for x86-64-v3: ymm code, no zmm"; fi
# fp32 exp is expanded in line (sleef-glue/inline_exp.c): vroundps, no SLEEF call. Other
# math (log, sin: tests/lit/sleef_isa.py) goes to SLEEF's 8-lane entries.
if grep -q vroundps "$WORK/softmax.s" &&
  ! llvm-nm-22 -D --undefined-only "$WORK/softmax_kernel.so" | grep -q 'Sleef_'; then
  echo "ok   softmax for x86-64-v3: exp in line (vroundps), no SLEEF call"
else echo "FAIL: x86-64-v3 softmax's exp is not in line"; fail=1; fi
"$BUILD/tilec" compile "$SRC/tests/lit/sleef_isa.py" -k k -s "*fp32, *fp32, 256" --target x86-64-v3 -o "$WORK/math.so"
sleef=$(llvm-nm-22 -D --undefined-only "$WORK/math.so" | awk '{print $2}' | grep '^Sleef_' || true)
if [ -z "$sleef" ]; then echo "FAIL: log/sin call no SLEEF entry"; fail=1
elif grep -vq 'f8_u10' <<<"$sleef"; then echo "FAIL: x86-64-v3 log/sin call non-8-lane SLEEF entries: $sleef"; fail=1
else echo "ok   log/sin for x86-64-v3 call $(echo $sleef)"; fi

# bf16 stores without AVX512-BF16: LLVM calls __truncsfbf2 / __truncdfbf2, which
# libtilec-runtime provides (a kernel storing bf16 did not load on AVX2 machines). Rounding
# to nearest even, NaN kept, against numpy.
cat >"$WORK/bf16.py" <<'PY'
import triton
import triton.language as tl


@triton.jit
def to_bf16(x_ptr, d_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m).to(tl.bfloat16), mask=m)
    tl.store(z_ptr + offs, tl.load(d_ptr + offs, mask=m).to(tl.bfloat16), mask=m)
PY
/usr/bin/python3 - "$WORK" <<'PY'
import sys, numpy as np
w = sys.argv[1]
rng = np.random.default_rng(7)
x = (rng.standard_normal(1000) * np.exp2(rng.integers(-140, 120, 1000))).astype(np.float32)
x[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 3.4e38]
np.save(w + "/x.npy", x)
np.save(w + "/d.npy", x.astype(np.float64) * (1 + 2.0**-30))
np.save(w + "/y.npy", np.zeros(1000, np.uint16))
np.save(w + "/z.npy", np.zeros(1000, np.uint16))
PY
if "$BUILD/tilec" run "$WORK/bf16.py" -k to_bf16 --grid 1 --target x86-64-v3 x_ptr="$WORK/x.npy" d_ptr="$WORK/d.npy" \
     y_ptr="$WORK/y.npy:bf16" z_ptr="$WORK/z.npy:bf16" n=1000 BLOCK=1024 --no-cache \
     --out y_ptr="$WORK/y.out.npy" --out z_ptr="$WORK/z.out.npy" >"$WORK/bf16.log" 2>&1 &&
   /usr/bin/python3 - "$WORK" <<'PY'
import sys, numpy as np
w = sys.argv[1]
def rne(bits32):
    b = bits32.astype(np.uint64)
    nan = (b & 0x7fffffff) > 0x7f800000
    r = ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    r[nan] = ((b[nan] >> 16) | 0x40).astype(np.uint16)
    return r
x = np.load(w + "/x.npy")
exp = rne(x.view(np.uint32))
y = np.load(w + "/y.out.npy").view(np.uint16)
bad = np.nonzero(y != exp)[0]
if bad.size: sys.exit("float->bf16 lane %d: got %#x, expected %#x" % (bad[0], y[bad[0]], exp[bad[0]]))
z = np.load(w + "/z.out.npy").view(np.uint16)
close = np.abs(z.astype(np.int32) - exp.astype(np.int32)) <= 1  # the double is x*(1+2^-30): at most one step
if not close[6:].all(): sys.exit("double->bf16 off by more than one step")
PY
then echo "ok   bf16 stores for x86-64-v3 (no AVX512-BF16): round to nearest even, NaN kept"
else echo "FAIL: bf16 stores for x86-64-v3"; cat "$WORK/bf16.log"; fail=1; fi

[ $fail = 0 ] && echo "PASSED" || echo "FAILED"
exit $fail
