#!/usr/bin/env bash
# scripts/check_format.sh [--fix] — every C source and header of the tree (git ls-files
# '*.c' '*.h') formatted as .clang-format says, checked with clang-format 22 (the version
# scripts/setup.sh installs: other versions format some constructs differently). Prints the
# files that differ and exits 1; --fix rewrites them in place. ctest runs it as lint.format.
# Exits 77 (ctest: skipped) when clang-format-22 is not installed.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
CF=${CLANG_FORMAT:-$(command -v clang-format-22 || true)}
if [ -z "$CF" ]; then
  echo "check_format.sh: clang-format-22 not installed (scripts/setup.sh installs it): not checked"
  exit 77
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.c' '*.h')
else
  mapfile -t files < <(find . \( -name '*.c' -o -name '*.h' \) -not -path './build*' | sed 's|^\./||' | sort)
fi
if [ "${1:-}" = "--fix" ]; then
  "$CF" -i "${files[@]}"
  echo "check_format.sh: formatted ${#files[@]} files"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$CF" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  printf 'not formatted as .clang-format says (scripts/check_format.sh --fix):\n' >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check_format.sh: ${#files[@]} files formatted"
