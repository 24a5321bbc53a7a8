#!/usr/bin/env bash
# tests/e2e/tutorial_checks.sh — the tutorial kernels (examples/) on odd sizes (cut tiles,
# wrapped rows) under every checked mode at once: --check-bounds, --check-nan and
# --check-races must not report anything on these correct kernels, and --reference must
# find the optimized build equal to the plain one. The outputs are then compared with
# numpy. Usage: tutorial_checks.sh TILEC PYTHON ROOT. Prints "N passed, M failed".
set -euo pipefail
TILEC="$1"
PY="$2"
ROOT="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
# `tilec run` caches compiled kernels: a cache of its own keeps the run from reading or filling
# the user's (~/.cache/tilec).
export TILEC_CACHE_DIR="$work/cache"
"$PY" - <<'PY'
import numpy as np
r = np.random.default_rng(7)
np.save("x.npy", r.standard_normal(1000).astype(np.float32))
np.save("y.npy", r.standard_normal(1000).astype(np.float32))
np.save("o.npy", np.zeros(1000, np.float32))
np.save("s_in.npy", (3 * r.standard_normal((37, 1000))).astype(np.float32))
np.save("s_out.npy", np.zeros((37, 1000), np.float32))
np.save("ln_x.npy", r.standard_normal((19, 700)).astype(np.float32))
np.save("ln_y.npy", np.zeros((19, 700), np.float32))
np.save("ln_w.npy", r.standard_normal(700).astype(np.float32))
np.save("ln_b.npy", r.standard_normal(700).astype(np.float32))
np.save("a.npy", r.standard_normal((67, 83)).astype(np.float32))
np.save("b.npy", r.standard_normal((83, 45)).astype(np.float32))
np.save("c.npy", np.zeros((67, 45), np.float32))
PY
pass=0
fail=0
CHECKS=(--check-bounds --check-nan --check-races --reference)
check() { # name command...
  local name="$1"
  shift
  if "$@" > out.txt 2> err.txt && grep -q "elements agree" out.txt; then
    echo "ok   $name"
    pass=$((pass + 1))
  else
    echo "FAIL $name: $(head -n 3 err.txt)"
    fail=$((fail + 1))
  fi
}
E="$ROOT/examples"
check vector_add "$TILEC" run "$E/vector_add/add.py" -k add_kernel --grid 8 x_ptr=x.npy y_ptr=y.npy \
  output_ptr=o.npy n_elements=1000 BLOCK_SIZE=128 --out output_ptr=add.npy "${CHECKS[@]}"
check softmax "$TILEC" run "$E/softmax/softmax.py" -k softmax_kernel --grid 37 out_ptr=s_out.npy in_ptr=s_in.npy \
  in_row_stride=1000 out_row_stride=1000 n_cols=1000 BLOCK=1024 --out out_ptr=softmax.npy "${CHECKS[@]}"
check layer_norm "$TILEC" run "$E/layer_norm/layer_norm.py" -k layer_norm_kernel --grid 19 x_ptr=ln_x.npy \
  y_ptr=ln_y.npy w_ptr=ln_w.npy b_ptr=ln_b.npy row_stride=700 N=700 eps=1e-5 BLOCK=256 \
  --out y_ptr=layer_norm.npy "${CHECKS[@]}"
# the same kernel launched with a wrong output stride: every row lands on row 0
if "$TILEC" run "$E/softmax/softmax.py" -k softmax_kernel --grid 37 out_ptr=s_out.npy in_ptr=s_in.npy \
  in_row_stride=1000 out_row_stride=0 n_cols=1000 BLOCK=1024 --check-races --serial 2> err.txt > out.txt ||
  ! grep -q "write-write race on 'out_ptr' element 0: program (1, 0, 0)" err.txt; then
  echo "FAIL softmax_wrong_stride: race not reported: $(head -n 1 err.txt)"
  fail=$((fail + 1))
else
  echo "ok   softmax_wrong_stride"
  pass=$((pass + 1))
fi
# cdiv(67, 32) * cdiv(45, 32) = 3 * 2 programs
check matmul "$TILEC" run "$E/matmul/matmul.py" -k matmul_kernel --grid 6 a_ptr=a.npy b_ptr=b.npy c_ptr=c.npy \
  M=67 N=45 K=83 stride_am=83 stride_ak=1 stride_bk=45 stride_bn=1 stride_cm=45 stride_cn=1 \
  BM=32 BN=32 BK=16 GROUP_M=2 --out c_ptr=matmul.npy "${CHECKS[@]}"
if "$PY" - <<'PY'
import numpy as np
ok = True
def close(name, got, want, tol):
    global ok
    err = np.max(np.abs(got.astype(np.float64) - want) / (1 + np.abs(want)))
    print(("ok   " if err <= tol else "FAIL ") + name + " vs numpy (max rel err %.2g)" % err)
    ok = ok and err <= tol
x, y = np.load("x.npy"), np.load("y.npy")
close("vector_add", np.load("add.npy"), x.astype(np.float64) + y, 1e-6)
s = np.load("s_in.npy").astype(np.float64)
e = np.exp(s - s.max(axis=1, keepdims=True))
close("softmax", np.load("softmax.npy"), e / e.sum(axis=1, keepdims=True), 1e-5)
lx = np.load("ln_x.npy").astype(np.float64)
ln = (lx - lx.mean(1, keepdims=True)) / np.sqrt(lx.var(1, keepdims=True) + 1e-5)
close("layer_norm", np.load("layer_norm.npy"), ln * np.load("ln_w.npy") + np.load("ln_b.npy"), 1e-4)
close("matmul", np.load("matmul.npy"), np.load("a.npy").astype(np.float64) @ np.load("b.npy"), 1e-4)
raise SystemExit(0 if ok else 1)
PY
then pass=$((pass + 1)); else fail=$((fail + 1)); fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
