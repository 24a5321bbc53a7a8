#!/usr/bin/env bash
# Installs every Debian (bookworm) package tilec needs to build, test, run the demo and
# the benchmarks. Idempotent: when everything is present it only checks and returns.
# The AArch64 cross test (tests/cross/aarch64_test.sh) also needs qemu-user and arm64
# multiarch libraries; those are installed on a best-effort basis: where they cannot be
# installed the test is skipped with the reason, and the rest of setup still succeeds.
set -euo pipefail

PKGS=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22
  libomp-22-dev libsleef-dev check cmake ninja-build pkg-config
  clang-format-22              # the C formatting check (scripts/check_format.sh, ctest lint.format)
  libxxhash-dev                # XXH3-128 for the JIT cache's keys and checksums (driver/jit.c; header only)
  python3 python3-numpy
  python3-dev python3-venv python3-pip
  libclang-rt-22-dev
  gdb linux-perf
  libgomp1                     # GNU OpenMP, PyTorch's: launches share its team (unit.test_launcher_gomp)
  openmpi-bin libopenmpi-dev   # examples/mpi_matmul and its test examples.mpi
)
# Cross-testing for AArch64: qemu, lld, and the arm64 C library, crt files and SLEEF.
CROSS_PKGS=(qemu-user lld-22 libc6:arm64 libc6-dev:arm64 libgcc-12-dev:arm64 libsleef3:arm64 libsleef-dev:arm64)
# Debian's arm64 OpenMP runtime conflicts with the host's libomp-22-dev when installed, so
# its libomp.so.5 is extracted here instead (the aarch64 toolchain file searches this path).
ARM64_OMP_DIR=/usr/local/lib/aarch64-linux-gnu
ARM64_OMP_PKG=libomp5-14:arm64

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=()
for p in "${PKGS[@]}"; do installed "$p" || missing+=("$p"); done
cross_missing=()
for p in "${CROSS_PKGS[@]}"; do installed "$p" || cross_missing+=("$p"); done

# lit ships in llvm-22-tools as a Python module; the `lit` driver is checked separately.
if [ ${#missing[@]} -eq 0 ] && [ ${#cross_missing[@]} -eq 0 ] && [ -e "$ARM64_OMP_DIR/libomp.so.5" ]; then
  echo "setup: all $((${#PKGS[@]} + ${#CROSS_PKGS[@]})) packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO=sudo; else
    echo "setup: need root to install: ${missing[*]} ${cross_missing[*]}" >&2; exit 1; fi
fi
export DEBIAN_FRONTEND=noninteractive

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cross_setup() {
  if [ "$(dpkg --print-architecture)" != amd64 ]; then
    echo "setup: not an amd64 machine; the aarch64 cross test is for x86-64 hosts"; return 0; fi
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64 || return 1
    $SUDO apt-get update -qq || return 1
  fi
  if [ ${#cross_missing[@]} -gt 0 ]; then
    echo "setup: installing ${cross_missing[*]}"
    $SUDO apt-get install -y -qq --no-install-recommends "${cross_missing[@]}" || return 1
  fi
  if [ ! -e "$ARM64_OMP_DIR/libomp.so.5" ]; then
    local tmp
    tmp=$(mktemp -d)
    chmod 777 "$tmp" # apt's download runs as the _apt user
    (cd "$tmp" && apt-get download -qq "$ARM64_OMP_PKG" && dpkg-deb -x ./*.deb root) || { rm -rf "$tmp"; return 1; }
    $SUDO mkdir -p "$ARM64_OMP_DIR"
    $SUDO cp "$(find "$tmp/root" -name 'libomp.so.5' | head -1)" "$ARM64_OMP_DIR/libomp.so.5"
    rm -rf "$tmp"
    echo "setup: extracted $ARM64_OMP_PKG's libomp.so.5 into $ARM64_OMP_DIR"
  fi
}
if ! cross_setup; then
  echo "setup: warning: the arm64 cross-testing packages could not be installed;" \
       "the cross.aarch64 test will be skipped" >&2
fi
echo "setup: done"
