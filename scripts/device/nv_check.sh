#!/usr/bin/env bash
# Device check of the NVIDIA kernel-driver (RM) path on a lent GPU (issue 18; nv.md §8), one run:
#   1. `rawgpu info nv:0`: driver version (the branch rawgpu selects), classes, SM, SM count.
#   2. `rawgpu demo --device nv:0` with QMD V03 and then V04 (RAWGPU_NV_QMD): bring-up, VRAM
#      mapped CPU VA == GPU VA, cubins loaded by rawgpu's loader, QMD launches, 64-bit releases,
#      results checked against the host. Which QMD layout the H200 accepts is what this decides.
#   3. scripts/device/cuda_check.sh: every example kernel through libcuda (the reference), with
#      cuLaunchKernel times to compare with rawgpu's.
# Prints one "nv_check: <step>: ok|FAILED" line per step; exit 1 if any failed. Needs ptxas.
# Usage: scripts/device/nv_check.sh [SM]        (SM default sm_90)
set -uo pipefail
cd "$(dirname "$0")/../.."
SM=${1:-sm_90}
fail=0
step() {
  local name=$1
  shift
  echo "=== nv_check: $name"
  if timeout 240 "$@"; then echo "nv_check: $name: ok"; else echo "nv_check: $name: FAILED"; fail=1; fi
}
if [ ! -f build/build.ninja ]; then
  scripts/setup-deps.sh && meson setup build -Ddebug_info=lines >/dev/null || exit 1
fi
ninja -C build tools/rawgpu tools/cuda_check >/dev/null || { echo "nv_check: build FAILED"; exit 1; }
nvidia-smi -L 2>/dev/null || true
cat /proc/driver/nvidia/version 2>/dev/null || true
step "info nv:0" build/tools/rawgpu info nv:0
step "info nv:0 --json" build/tools/rawgpu info nv:0 --json
step "demo nv:0 (QMD V03)" env RAWGPU_NV_QMD=3 RAWGPU_DEBUG=1,nv=2 build/tools/rawgpu demo --device nv:0
step "demo nv:0 (QMD V04)" env RAWGPU_NV_QMD=4 RAWGPU_DEBUG=1,nv=2 build/tools/rawgpu demo --device nv:0
step "cuda_check $SM (libcuda reference)" scripts/device/cuda_check.sh "$SM"
exit $fail
