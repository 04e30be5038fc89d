#!/usr/bin/env bash
# Fails when a C++ source of the repository differs from .clang-format, listing the files.
#   scripts/check-format.sh          check (what CI runs, as the CTest test test_format)
#   scripts/check-format.sh --fix    reformat them in place
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
# The tracked sources, or every source under the tree when this is not a git checkout.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
else
  mapfile -t files < <(find cli engine gui profiler tests benchmarks -name '*.cpp' -o -name '*.hpp' -o -name '*.h')
fi
if [[ "${1:-}" == "--fix" ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
# One clang-format run: it names each differing file in its warnings ("FILE:LINE:COL: warning").
mapfile -t bad < <(clang-format --dry-run "${files[@]}" 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning:.*/\1/p' | sort -u)
if ((${#bad[@]})); then
  echo "check-format: ${#bad[@]} file(s) differ from .clang-format (scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files match .clang-format"
