#!/usr/bin/env bash
# clang-format (19) over every C++ file git knows. --check: report files that differ, exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
CF=$(command -v clang-format-19 || true)
[ -n "$CF" ] || { echo "format: clang-format-19 not installed (scripts/setup-deps.sh)" >&2; exit 1; }
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.h' '*.cpp' | grep -v '^autogen/generated/' || true)
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    "$CF" --style=file "$f" | cmp -s - "$f" || bad+=("$f")
  done
  if [ ${#bad[@]} -ne 0 ]; then
    printf 'format: %s needs clang-format\n' "${bad[@]}"
    echo "format: run scripts/format.sh to fix"
    exit 1
  fi
  echo "format: ${#files[@]} files clean"
else
  "$CF" --style=file -i "${files[@]}"
fi
