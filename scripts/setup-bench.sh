#!/usr/bin/env bash
# scripts/setup-bench.sh — installs the Debian (bookworm) packages only the benchmarks need:
# the peers (OpenBLAS, PoCL + OpenCL headers/ICD loader, numpy) and matplotlib for the chart.
# Idempotent: when everything is present it only checks and returns.
set -euo pipefail

PKGS=(
  libopenblas-dev            # cblas_sgemm peer; openblas_get_corename()
  pocl-opencl-icd            # PoCL CPU device, the "GPU-style kernels on CPU" peer
  ocl-icd-opencl-dev         # libOpenCL.so for linking the PoCL driver
  opencl-headers             # CL/cl.h
  clinfo                     # shows the PoCL device in the report's machine section
  python3-numpy              # numpy peer (run with /usr/bin/python3)
  python3-matplotlib         # bench/chart.png
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-bench: all ${#PKGS[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO=sudo; else
    echo "setup-bench: need root to install: ${missing[*]}" >&2; exit 1; fi
fi

echo "setup-bench: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup-bench: done"
