#!/usr/bin/env bash
# tests/e2e/nvptx_abi.sh TILEC INCLUDE_DIR RUNTIME_DIR — what a --target nvptx kernel receives
# as its parameters, without a GPU: a stand-in libcuda.so.1 (fake_cuda.c) copies each
# parameter from args[] the way cuLaunchKernel does (the bytes the PTX entry declares) and
# this test compares them with the launch's arguments. A tensor descriptor must arrive as
# its 80 bytes (one byval .param .align 8 .b8 [80]); a kernel that declares it as a .u64
# pointer receives the first 8 bytes args[i] points at — the descriptor's base — and reads
# the data as if it were the descriptor (what an H200 showed: zeros, NaN, illegal address).
# Checked for the typed K_launch, K_launch_async and the C API's JIT launch
# (tilec_jit_kernel_launch: args[i] points at the tilec_tensor_descriptor), and which of them
# wait for the kernel (the fake driver logs cuStreamSynchronize).
set -euo pipefail
TILEC=$1 INC=$2 RT=$3
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
CC=${CC:-$(command -v clang-22 || command -v cc)}

mkdir -p "$T/fake"
"$CC" -std=c17 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden "$ROOT/tests/e2e/fake_cuda.c" -o "$T/fake/libcuda.so.1"

K=$ROOT/tests/lang/descriptors/kernels.py
SIG="tensordesc<fp32[8,16]>, tensordesc<fp32[8,16]>, i32, i32"
"$TILEC" compile "$K" -k copy_add_kernel -s "$SIG" --target nvptx --arch sm_90 --emit ptx >"$T/k.ptx"
grep -q '.param .align 8 .b8 copy_add_kernel_param_0\[80\]' "$T/k.ptx" || fail "PTX: descriptor parameter is not 80 bytes by value: $(grep -m2 '.param' "$T/k.ptx" | tr '\n' ' ')"
"$TILEC" compile "$K" -k copy_add_kernel -s "$SIG" --target nvptx --arch sm_90 -o "$T/k.so" --header "$T/k.h"

cat >"$T/main.c" <<'C'
#include "k.h"
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <tilec/runtime.h>
#include <tilec/tilec.h>
typedef const unsigned char *(*param_fn)(int, size_t *);
static param_fn param;
static int check(const char *how, const tilec_tensor_descriptor *a, const tilec_tensor_descriptor *b, int32_t m,
                 int32_t n) {
  size_t sz[4];
  const unsigned char *p[4];
  for (int i = 0; i < 4; i++)
    if (!(p[i] = param(i, &sz[i]))) return printf("%s: parameter %d was not passed\n", how, i), 1;
  if (sz[0] != sizeof *a || sz[1] != sizeof *b)
    return printf("%s: descriptor parameters of %zu and %zu bytes, expected %zu\n", how, sz[0], sz[1], sizeof *a), 1;
  if (memcmp(p[0], a, sizeof *a) || memcmp(p[1], b, sizeof *b))
    return printf("%s: the kernel's descriptor bytes differ from the launch's descriptors\n", how), 1;
  int32_t gm, gn;
  memcpy(&gm, p[2], 4), memcpy(&gn, p[3], 4);
  if (sz[2] != 4 || sz[3] != 4 || gm != m || gn != n) return printf("%s: M, N = %d, %d\n", how, gm, gn), 1;
  printf("ok: %s: two 80-byte descriptors and M, N by value\n", how);
  return 0;
}
static const char src[] = "import triton\nimport triton.language as tl\n@triton.jit\n"
                          "def cp(in_desc, out_desc, M, N):\n"
                          "    out_desc.store([0, 0], in_desc.load([0, 0]) + 1)\n";
int main(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW);
  param = h ? (param_fn)dlsym(h, "fake_cuda_param") : NULL;
  if (!param) return printf("not the fake driver\n"), 1;
  static float x[19 * 37], y[19 * 37];
  tilec_tensor_descriptor a = {x, {19, 37}, {37, 1}, 0}, b = {y, {19, 37}, {37, 1}, 1};
  int rc = copy_add_kernel_launch(3, 3, 1, a, b, 19, 37);
  if (rc) return printf("launch: %d %s\n", rc, tilec_last_error()), 1;
  if (check("copy_add_kernel_launch", &a, &b, 19, 37)) return 1;
  a.shape[0] = 7, b.strides[0] = 40;
  rc = copy_add_kernel_launch_async(NULL, 1, 1, 1, a, b, 7, 5);
  if (rc || check("copy_add_kernel_launch_async", &a, &b, 7, 5)) return 1;
  /* the JIT (what the Python package uses): args[i] points at the descriptor */
  tilec_compile_options o;
  tilec_compile_options_init(&o);
  o.target = "nvptx";
  o.arch = "sm_90";
  tilec_compiler *c;
  tilec_jit_kernel *k = NULL;
  tilec_status *st = tilec_compiler_create(&o, &c);
  tilec_kernel_spec s;
  memset(&s, 0, sizeof s);
  s.source = src, s.source_len = strlen(src), s.filename = "cp.py", s.kernel = "cp";
  s.signature = "tensordesc<fp32[8,16]>, tensordesc<fp32[8,16]>, i32, i32";
  if (!st) st = tilec_jit_compile(c, &s, &k, NULL);
  int32_t m = 11, n = 13;
  void *args[4] = {&a, &b, &m, &n};
  if (!st) st = tilec_jit_kernel_launch(k, 1, 1, 1, args, 4, NULL);
  if (st) return printf("JIT: %s\n", tilec_status_message(st)), 1;
  tilec_compiler_destroy(c);
  return check("tilec_jit_kernel_launch", &a, &b, 11, 13);
}
C
"$CC" -Wall -Werror -I"$T" -I"$INC" "$T/main.c" "$T/k.so" -L"$RT" -ltilec -ltilec-runtime -ldl -Wl,-rpath,"$RT" -Wl,-rpath,"$T" -o "$T/main"
out=$(LD_LIBRARY_PATH="$T/fake" TILEC_CACHE_DIR="$T/cache" FAKE_CUDA_LOG="$T/log" "$T/main") || fail "$out"
echo "$out"
grep -q '^launch copy_add_kernel grid 3 3 1 block 128' "$T/log" || fail "fake driver log: $(head -n 1 "$T/log")"
# K_launch waits for its kernel, K_launch_async(NULL, ...) only queues it on the default stream
# (a wait there would put the host's round trip into every queued launch), the JIT waits.
order=$(grep -E '^(launch|sync) ' "$T/log" | cut -d' ' -f1,2 | tr '\n' ',')
[ "$order" = "launch copy_add_kernel,sync default,launch copy_add_kernel,launch cp,sync default," ] ||
  fail "launches and waits: $order"
echo "ok: K_launch and the JIT wait for the kernel, K_launch_async(NULL) does not"

# `tilec run --target nvptx`: the arrays to device buffers, the launch, --out back from the
# device. The fake launch fills each buffer a parameter names with 0xA5: that is what --out
# must hold afterwards; the parameters must be device addresses (the fake's allocations).
PY=/usr/bin/python3
"$PY" - "$T" <<'EOF2'
import sys, numpy as np
t = sys.argv[1]
np.save(t + "/x.npy", np.arange(1000, dtype=np.float32))
np.save(t + "/y.npy", np.ones(1000, np.float32))
np.save(t + "/o.npy", np.zeros(1000, np.float32))
np.save(t + "/m.npy", np.arange(19 * 37, dtype=np.float32).reshape(19, 37))
EOF2
ADD=$ROOT/examples/vector_add/add.py
RUN=("$TILEC" run "$ADD" -k add_kernel --grid 4 x_ptr="$T/x.npy" y_ptr="$T/y.npy" output_ptr="$T/o.npy" n_elements=1000
  BLOCK_SIZE=256 --target nvptx --out output_ptr="$T/o2.npy")
rm -f "$T/log"
out=$(LD_LIBRARY_PATH="$T/fake" TILEC_CACHE_DIR="$T/cache" FAKE_CUDA_LOG="$T/log" FAKE_CUDA_LAUNCH=fill "${RUN[@]}" --repeat 3) ||
  fail "tilec run --target nvptx (fake driver): $out"
grep -q '^time: median_ms=0.250000 min_ms=0.250000 runs=3 (GPU, CUDA events)$' <<<"$out" || fail "--repeat timing line: $out"
[ "$(grep -c '^launch add_kernel grid 4 1 1 block 128' "$T/log")" = 4 ] || fail "expected a warm-up and 3 timed launches: $(cat "$T/log")"
[ "$(grep -c '^module ' "$T/log")" = 1 ] || fail "the kernel's module is loaded once for 4 launches: $(cat "$T/log")"
"$PY" - "$T" <<'EOF2' || fail "tilec run --target nvptx: --out is not what the device buffer held"
import sys, numpy as np
o = np.load(sys.argv[1] + "/o2.npy")
assert o.dtype == np.float32 and o.shape == (1000,) and (o.view(np.uint8) == 0xA5).all(), o[:4]
EOF2
grep -q '^param 3 4 e8030000$' "$T/log" || fail "n_elements=1000 not passed as 4 bytes: $(grep '^param 3' "$T/log" | head -n 1)"
echo "ok: tilec run --target nvptx: device buffers, 4 launches timed with events, --out copied back"
rm -f "$T/log"
LD_LIBRARY_PATH="$T/fake" TILEC_CACHE_DIR="$T/cache" FAKE_CUDA_LOG="$T/log" FAKE_CUDA_LAUNCH=fill "$TILEC" run "$K" \
  -k copy_add_kernel --grid 3,3 in_desc="$T/m.npy:[8,16]" out_desc="$T/m.npy:[8,16]" M=19 N=37 --target nvptx \
  --out out_desc="$T/m2.npy" || fail "tilec run --target nvptx with tensor descriptors"
"$PY" - "$T" <<'EOF2' || fail "tilec run --target nvptx: descriptor parameters"
import sys, struct, numpy as np
t = sys.argv[1]
p = [l.split() for l in open(t + "/log") if l.startswith("param ")]
assert [q[2] for q in p] == ["80", "80", "4", "4"], p
base, s0, s1, _, _, st0, st1, _, _, pad = struct.unpack("<Q4q4qq", bytes.fromhex(p[0][3]))
assert (s0, s1, st0, st1, pad) == (19, 37, 37, 1, 0), (s0, s1, st0, st1, pad)
assert (np.load(t + "/m2.npy").view(np.uint8) == 0xA5).all()
EOF2
echo "ok: tilec run --target nvptx: descriptors as 80 bytes with a device base, --out from the device"
out=$(LD_LIBRARY_PATH="$T/fake" FAKE_CUDA_FAIL=init TILEC_CACHE_DIR="$T/cache" "${RUN[@]}" 2>&1) && fail "cuInit failing: exit 0"
grep -q 'the CUDA driver cannot start (cuInit' <<<"$out" || fail "cuInit failing: unclear message: $out"
if [ ! -e /dev/nvidia0 ]; then
  out=$(env -u LD_LIBRARY_PATH TILEC_CACHE_DIR="$T/cache" "${RUN[@]}" 2>&1) && fail "tilec run --target nvptx without a GPU: exit 0"
  grep -Eq 'no CUDA driver|cannot start|no CUDA device' <<<"$out" || fail "without a GPU: unclear message: $out"
  echo "ok: tilec run --target nvptx without a GPU: exit 1, $out"
fi
echo "nvptx_abi: ok"
