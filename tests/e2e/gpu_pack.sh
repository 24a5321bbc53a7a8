#!/usr/bin/env bash
# tests/e2e/gpu_pack.sh BUILD_DIR — the GPU pack without a GPU: `scripts/gpu_check.sh --pack`
# of a few families (results by reference, by a check function, func cases with printed
# output, tensor descriptors), moved elsewhere, then `--run` from the pack alone against the
# stand-in libcuda.so.1 (tests/e2e/fake_cuda.c: host memory as device memory, a launch that
# computes nothing). Checks the layout, that every library the pack's binaries need resolves
# inside it with LD_LIBRARY_PATH the pack's lib/ only, the no-GPU exit (2), the chip chosen
# for a device, each launch in its own process with the packed library, and the comparison:
# a result equal to the expectation passes, others fail with the suite's messages. Whether
# the kernels compute the right values on a GPU only a GPU can say.
set -euo pipefail
BUILD=$1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
CC=${CC:-$(command -v clang-22 || command -v cc)}
PY=/usr/bin/python3
# softmax's exp needs NVIDIA's libdevice when packing (tilec looks where this does)
ld=
for f in "${TILEC_LIBDEVICE:-}" "${CUDA_HOME:-/nonexistent}/nvvm/libdevice/libdevice.10.bc" /usr/local/cuda/nvvm/libdevice/libdevice.10.bc \
  /usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc /usr/lib/cuda/nvvm/libdevice/libdevice.10.bc; do
  [ -n "$f" ] && [ -f "$f" ] && ld=$f && break
done
[ -n "$ld" ] || { echo "e2e.gpu_pack: skipped: no libdevice (TILEC_LIBDEVICE, CUDA_HOME, /usr/local/cuda)"; exit 77; }
mkdir -p "$T/fake"
"$CC" -std=c17 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden "$ROOT/tests/e2e/fake_cuda.c" -o "$T/fake/libcuda.so.1"

FAMS=softmax,dropout,debug,descriptors
out=$("$ROOT/scripts/gpu_check.sh" --pack "$T/p0" --only "$FAMS" -j 2 "$BUILD") || fail "--pack: $out"
echo "$out" | tail -n 4
grep -Eq "^packed [0-9]+ cases \(1 check, [0-9]+ func, [0-9]+ ref\) of 4 families into $T/p0 for sm_80,sm_90" <<<"$out" ||
  fail "--pack summary: $out"
grep -Eq '^size: [0-9.]+ MB' <<<"$out" || fail "--pack prints no size: $out"
# the pack refuses to overwrite a folder that is not a pack
mkdir "$T/other" && touch "$T/other/keep"
"$ROOT/scripts/gpu_check.sh" --pack "$T/other" --only softmax "$BUILD" >/dev/null 2>&1 && fail "--pack over a non-pack folder"
[ -e "$T/other/keep" ] || fail "--pack removed a folder that is not a pack"

# moved: nothing may refer to where it was written
mv "$T/p0" "$T/pack"
P=$T/pack
for f in pack.json run.py gpu_check.sh bin/tilec-exec lib/libtilec-runtime.so.0 lang/harness.py lang/debug/cases.py; do
  [ -e "$P/$f" ] || fail "the pack lacks $f"
done
"$PY" - "$P" <<'EOF' || fail "pack layout"
import gzip, json, os, re, subprocess, sys, tempfile
p = sys.argv[1]
m = json.load(open(p + "/pack.json"))
assert m["archs"] == ["sm_80", "sm_90"] and m["families"] == ["debug", "descriptors", "dropout", "softmax"], m["archs"]
names = [e["name"] for e in m["cases"]]
assert len(names) == len(set(names))
kinds = {e["kind"] for e in m["cases"]}
assert kinds == {"ref", "check", "func"}, kinds
left = {e["name"]: e["why"] for e in m["left_out"]}
assert "diagnostics" in left["static_assert_fails"] and "while compiling" in left["static_print_output"], left
calls = [c for e in m["cases"] for c in (e["calls"] if e["kind"] == "func" else [e["call"]])]
for c in calls:
    assert set(c["libs"]) == {"sm_80", "sm_90"}, c
    for lib in c["libs"].values():
        assert os.path.isfile(os.path.join(p, lib + ".gz")), lib
for e in m["cases"]:
    for k in ("inputs", "expected"):
        if k in e:
            assert os.path.isfile(os.path.join(p, e[k])), e[k]
desc = [c for c in calls if c["kernel"] == "copy_add_kernel"]
assert desc and any(re.match(r"^in_desc=\{DIR\}/in_desc\.npy:\[\d+,\d+\]$", t) for t in desc[0]["argv"]), desc[:1]
# with the pack's lib/ as the only search path, every library resolves inside the pack (or is glibc's)
env = dict(os.environ, LD_LIBRARY_PATH=p + "/lib")
tmp = tempfile.mkdtemp()
files = [p + "/bin/tilec-exec"] + [p + "/lib/" + f for f in os.listdir(p + "/lib")]
for k in m["libraries"]:  # the kernel libraries, as the runner unpacks them
    files.append(os.path.join(tmp, os.path.basename(k)))
    with gzip.open(os.path.join(p, k + ".gz")) as f, open(files[-1], "wb") as g:
        g.write(f.read())
libs = set()
for f in files:
    for line in subprocess.run(["ldd", f], env=env, capture_output=True, text=True).stdout.splitlines():
        mm = re.match(r"^\s*(\S+) => (\S+)", line)
        if mm:
            libs.add(mm.group(1))
            assert mm.group(2) != "not", line
            assert os.path.realpath(mm.group(2)).startswith(os.path.realpath(p) + "/") or \
                mm.group(1) in ("libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1"), (f, line)
assert "libtilec-runtime.so.0" in libs and "libcuda.so.1" not in libs, libs  # the driver is dlopen'ed
print("ok: layout, %d cases, %d left out, %d libraries; ldd inside the pack: %s" % (
    len(names), len(left), len(m["libraries"]), " ".join(sorted(libs))))
EOF

# no driver, a driver that cannot start: exit 2 and why
set +e
out=$(env -i PATH=/usr/bin:/bin "$P/gpu_check.sh" --run "$P" 2>&1); rc=$?
set -e
[ $rc = 2 ] || fail "--run without a driver: exit $rc: $out"
grep -q '^no GPU: no CUDA driver' <<<"$out" || fail "--run without a driver: $out"
echo "ok: no driver: exit 2, $(head -n 1 <<<"$out")"
set +e
out=$(env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$T/fake" FAKE_CUDA_FAIL=init "$P/gpu_check.sh" --run "$P" 2>&1); rc=$?
set -e
[ $rc = 2 ] && grep -q '^no GPU: the CUDA driver cannot start' <<<"$out" || fail "--run, cuInit failing: exit $rc: $out"

# results the fake gives back: every buffer as it went in (the fake runs no kernel). Make one
# ref case expect exactly that, so it must pass, and one func launch differ from its library.
"$PY" - "$P" <<'EOF'
import json, sys
import numpy as np
p = sys.argv[1]
m = json.load(open(p + "/pack.json"))
e = next(e for e in m["cases"] if e["name"] == "fused_softmax_7x33")
with np.load(p + "/" + e["inputs"]) as z:
    np.savez_compressed(p + "/" + e["expected"], out_ptr=z["out_ptr"])
f = next(e for e in m["cases"] if e["name"] == "device_print_2d_idx")
f["calls"][0]["scalars"]["M"] = "3"  # a constexpr: compiled into the library
json.dump(m, open(p + "/pack.json", "w"))
EOF
set +e
out=$(env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$T/fake" FAKE_CUDA_LOG="$T/log" "$P/gpu_check.sh" --run "$P" -j 3 2>&1); rc=$?
set -e
[ $rc = 1 ] || fail "--run on the fake: exit $rc, expected 1: $out"
n=$("$PY" -c 'import json,sys; m=json.load(open(sys.argv[1])); print(len(m["cases"]), len(m["left_out"]))' "$P/pack.json")
read -r ncases nleft <<<"$n"
grep -q "^GPU: fake GPU (tests/e2e/fake_cuda.c) (sm_90): the pack's sm_90 libraries" <<<"$out" || fail "chip: $out"
[[ "$(tail -n 2 <<<"$out" | head -n 1)" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ $nleft\ left\ out$ ]] &&
  [ $((BASH_REMATCH[1] + BASH_REMATCH[2])) = "$ncases" ] && [ "${BASH_REMATCH[2]}" -gt 0 ] || fail "summary: $out"
grep -q '^PASS fused_softmax_7x33$' "$P/gpu_check.log" || fail "the case whose expectation the fake meets did not pass: $out"
grep -q '^FAIL fused_softmax_33x7: out_ptr\[0,0\]: got 9.0, expected ' <<<"$out" || fail "ref comparison: $out"
grep -q '^FAIL dropout_p0.3: keep rate 0.0000, expected 0.70' <<<"$out" || fail "check function: $out"
grep -q '^FAIL device_print_1d_scalar_grid3x2: printed lines differ' <<<"$out" || fail "func case (printed output): $out"
grep -q '^FAIL device_print_2d_idx: .*argument M is 2 here, 3 in the pack' <<<"$out" || fail "func launch not the packed one: $out"
grep -q '^FAIL arg_copy_add_19x37_b8x16_float32: out_desc\[0,0\]: got 0.0' <<<"$out" || fail "descriptor case: $out"
[ -s "$P/gpu_check.log" ] && grep -q '^LEFT-OUT static_print_output' "$P/gpu_check.log" || fail "full log"
# every launch ran the sm_90 library (a cubin the fake refuses, then its PTX), one per packed call
launches=$(grep -c '^launch ' "$T/log")
want=$("$PY" -c 'import json,sys; m=json.load(open(sys.argv[1])); print(sum(len(e["calls"]) if e["kind"]=="func" else 1 for e in m["cases"]) - 1)' "$P/pack.json")
[ "$launches" = "$want" ] || fail "$launches launches on the fake, expected $want (all but the mismatched one)"
[ "$(grep '^module ' "$T/log" | sort -u)" = "module sm_90" ] || fail "modules: $(grep '^module ' "$T/log" | sort | uniq -c)"
echo "ok: --run on the fake: $(tail -n 2 <<<"$out" | head -n 1), $launches launches of sm_90 code"

# data through the device buffers: FAKE_CUDA_LAUNCH=fill writes 0xA5 into each buffer a
# parameter names; a case expecting those bytes passes
"$PY" - "$P" <<'EOF'
import json, sys
import numpy as np
p = sys.argv[1]
e = next(e for e in json.load(open(p + "/pack.json"))["cases"] if e["name"] == "online_softmax_5x7")
with np.load(p + "/" + e["inputs"]) as z:
    o = z["out_ptr"]
np.savez_compressed(p + "/" + e["expected"], out_ptr=np.full(o.nbytes, 0xA5, np.uint8).view(o.dtype).reshape(o.shape))
EOF
for cc in 86:sm_80 89:sm_80 120:sm_90 100:sm_90; do
  rm -f "$T/log"
  set +e
  out=$(env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$T/fake" FAKE_CUDA_LOG="$T/log" FAKE_CUDA_LAUNCH=fill FAKE_CUDA_CC=${cc%:*} \
    "$P/gpu_check.sh" --run "$P" --only softmax 2>&1); rc=$?
  set -e
  [ $rc = 1 ] || fail "cc ${cc%:*}: exit $rc: $out"
  grep -q "^PASS online_softmax_5x7" "$P/gpu_check.log" || fail "fill: the 0xA5 bytes did not come back: $out"
  [ "$(grep '^module ' "$T/log" | sort -u)" = "module ${cc#*:}" ] || fail "cc ${cc%:*}: ran $(grep '^module ' "$T/log" | sort -u)"
done
echo "ok: device buffers come back; sm_86/89 run the sm_80 library, sm_100/120 the sm_90 one"
set +e
out=$(env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$T/fake" FAKE_CUDA_CC=75 "$P/gpu_check.sh" --run "$P" 2>&1); rc=$?
set -e
[ $rc = 2 ] && grep -q 'the pack has code for sm_80, sm_90 only, this GPU is sm_75' <<<"$out" || fail "sm_75: exit $rc: $out"
# an architecture-specific library (sm_90a: wgmma) runs on its own chip only, and is preferred there
"$PY" - "$P" <<'EOF' || fail "choose_arch with sm_90a"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("packrun", sys.argv[1] + "/run.py")
r = importlib.util.module_from_spec(spec)
spec.loader.exec_module(r)
c = r.choose_arch
assert c(["sm_80", "sm_90", "sm_90a"], 9, 0) == ("sm_90a", "its cubin"), c(["sm_80", "sm_90", "sm_90a"], 9, 0)
assert c(["sm_80", "sm_90a"], 10, 0) == ("sm_80", "its PTX, compiled by the driver"), c(["sm_80", "sm_90a"], 10, 0)
assert c(["sm_90a"], 12, 0)[0] is None and c(["sm_90a"], 8, 9)[0] is None
assert c(["sm_80", "sm_90"], 9, 0) == ("sm_90", "its cubin")
EOF
echo "ok: sm_90a libraries run on sm_90 chips only"
# the cases are built for what the GPU computes, not for this host's CPU: an fp32 attention's
# tolerance is tf32's, bf16x3's reference drops the middle parts' product (tests/lang/dot)
"$ROOT/scripts/gpu_check.sh" --pack "$T/pc" --arch sm_90 --only attention --case h3_l7_d16 "$BUILD" >/dev/null ||
  fail "--pack of an attention case"
"$ROOT/scripts/gpu_check.sh" --pack "$T/pd" --arch sm_90 --only dot --case dot_precision_parts_bf16x3 "$BUILD" >/dev/null ||
  fail "--pack of dot_precision_parts_bf16x3"
"$PY" - "$T/pc" "$T/pd" <<'EOF' || fail "the pack's cases are not nvptx's"
import json, sys
import numpy as np
e = json.load(open(sys.argv[1] + "/pack.json"))["cases"]
assert [(c["name"], c["rtol"]) for c in e] == [("attn_fwd_h3_l7_d16", 5e-3)], [(c["name"], c["rtol"]) for c in e]
e = json.load(open(sys.argv[2] + "/pack.json"))["cases"][0]
with np.load(sys.argv[2] + "/" + e["expected"]) as z:
    assert (z["c_ptr"] == np.float32(17 + 2.0 ** -5)).all(), z["c_ptr"][0, 0]
EOF
echo "ok: the packed cases hold nvptx's tolerances and references"
echo "gpu_pack: ok"
