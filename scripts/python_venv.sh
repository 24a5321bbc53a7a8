#!/usr/bin/env bash
# scripts/python_venv.sh — creates (once) and updates the venv the Python tests and
# benchmarks use, installs tilec into it with `pip install .`, and prints its path.
# The venv is ${TILEC_VENV:-$HOME/.cache/tilec/venv}: fresh clones on one machine reuse it
# (torch alone is ~4 GB). Needs python3-venv and python3-dev (scripts/setup.sh).
# --no-torch: only what tilec itself needs (numpy, the build backend) — scripts/demo.sh.
set -euo pipefail
WANT="numpy pytest pytest_timeout scikit_build_core torch"
PIP_PKGS=(numpy pytest pytest-timeout "scikit-build-core>=0.10" torch)
if [ "${1:-}" = --no-torch ]; then
  WANT="numpy scikit_build_core"
  PIP_PKGS=(numpy "scikit-build-core>=0.10")
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${TILEC_VENV:-$HOME/.cache/tilec/venv}
PY=${TILEC_PYTHON:-/usr/bin/python3}

if [ ! -x "$VENV/bin/python" ]; then
  echo "python_venv: creating $VENV" >&2
  mkdir -p "$(dirname "$VENV")"
  "$PY" -m venv "$VENV" >&2
fi
# What the build and the tests need; pip skips what is installed already.
# Exit status 3: the dependencies could not be installed (no network, no PyPI): callers may
# skip the Python tests; a failing build of tilec itself below is an ordinary failure.
if ! "$VENV/bin/python" -c "import ${WANT// /, }" 2>/dev/null; then
  "$VENV/bin/pip" install -q --upgrade pip >&2 || true
  "$VENV/bin/pip" install -q "${PIP_PKGS[@]}" >&2 || exit 3
fi
# The package itself, built from this tree (build dir build/python-<tag>: incremental).
"$VENV/bin/pip" install -q --no-build-isolation "$ROOT" >&2
echo "$VENV"
