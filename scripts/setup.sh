#!/usr/bin/env bash
# Installs every Debian (bookworm) package tilec needs to build, test, run the demo and
# the benchmarks. Idempotent: when everything is present it only checks and returns.
set -euo pipefail

PKGS=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22
  libomp-22-dev libsleef-dev check cmake ninja-build pkg-config
  python3 python3-numpy
  libclang-rt-22-dev
  gdb linux-perf
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# lit ships in llvm-22-tools as a Python module; the `lit` driver is checked separately.
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PKGS[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO=sudo; else
    echo "setup: need root to install: ${missing[*]}" >&2; exit 1; fi
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
