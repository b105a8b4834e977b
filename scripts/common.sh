# Shared by scripts/main.sh and scripts/test.sh: install dependencies, configure and build.
# Usage: ensure_built BUILD_DIR [meson setup options...]; honours $CXX for the setup.
set -euo pipefail
RAWGPU_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

ensure_built() {
  local dir=$1
  shift
  cd "$RAWGPU_ROOT"
  "$RAWGPU_ROOT/scripts/setup-deps.sh"
  rm -f "$dir/meson-logs/summary.counts"  # written again by scripts/test-summary.py
  if [ ! -f "$dir/build.ninja" ]; then
    # Line-table debug info: backtraces and sanitizer reports keep file:line, and a clean build
    # compiles about a third faster than with full DWARF (meson setup --reconfigure
    # -Ddebug_info=full for a debugging session).
    meson setup "$dir" -Ddebug_info=lines "$@" >/dev/null ||
      { meson setup "$dir" -Ddebug_info=lines "$@"; return 1; }
  fi
  # Incremental: ninja re-runs meson itself when a meson.build changed.
  local t0 rc=0
  t0=$(date +%s)
  ninja -C "$dir" "${NINJA_TARGETS[@]}" >"$dir/ninja.log" 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then
    grep -v -E '^\[[0-9]+/[0-9]+\] ' "$dir/ninja.log" | tail -n 200
    echo "build: FAILED in $dir (full log: $dir/ninja.log)" >&2
    return $rc
  fi
  echo "build: $dir up to date ($(( $(date +%s) - t0 ))s)"
}
