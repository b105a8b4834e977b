#!/usr/bin/env bash
# Device check of the NVIDIA kernel-driver (RM) path on a lent GPU (issue 18; nv.md §8), in two
# halves because the device machine can build nothing of rawgpu (no LLVM, no package registry):
#
#   scripts/device/nv_check.sh prepare [SM]   here: builds build/tools/nv_check (static: no
#       libLLVM, no shared libstdc++) and compiles every example kernel for SM (default sm_90)
#       with its inputs, host reference and launch description into .device/ (ignored by git).
#       Then call the device tool's run with carry [".device"] and the command below.
#   scripts/device/nv_check.sh run [SM]       on the device machine:
#       1. rawgpu's own path: .device/nv_check — RmGpu bring-up on the installed driver's branch,
#          VRAM mapped CPU VA == GPU VA, cubins loaded by rawgpu's loader, QMD launches with
#          64-bit releases, results against the host reference — with QMD V03, then V04 (which
#          layout the H200 accepts is what this decides), each followed by the launch + wait
#          latency through the RM path;
#       2. the reference: tools/cuda_check built there with the host compiler and run through
#          libcuda on the same files (cuLaunchKernel + cuCtxSynchronize times to compare).
# Prints one "nv_check: <step>: ok|FAILED" line per step; exit 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
MODE=${1:-}
SM=${2:-sm_90}
DEV=.device
case "$MODE" in
  prepare)
    set -e
    grep -qxF "/$DEV/" .git/info/exclude 2>/dev/null || echo "/$DEV/" >>.git/info/exclude
    if [ ! -f build/build.ninja ]; then
      scripts/setup-deps.sh && meson setup build -Ddebug_info=lines >/dev/null
    fi
    ninja -C build tools/nv_check tools/rawgpu >/dev/null
    rm -rf "$DEV" && mkdir -p "$DEV"
    cp build/tools/nv_check "$DEV/"
    build/tools/rawgpu compile --target "$SM" --all --data -o "$DEV/out" >/dev/null
    ls "$DEV/out/$SM"/*/launch.txt >/dev/null || { echo "no cubins: is ptxas installed?"; exit 1; }
    du -sh "$DEV"
    echo "now: device run, carry [\"$DEV\"], command: scripts/device/nv_check.sh run $SM"
    ;;
  run)
    fail=0
    step() {
      local name=$1
      shift
      echo "=== nv_check: $name"
      if timeout 240 "$@"; then echo "nv_check: $name: ok"; else echo "nv_check: $name: FAILED"; fail=1; fi
    }
    nvidia-smi -L 2>/dev/null || true
    cat /proc/driver/nvidia/version 2>/dev/null || true
    step "rawgpu RM path, QMD V03" "$DEV/nv_check" --qmd 3 "$DEV/out/$SM"
    step "rawgpu RM path, QMD V04" "$DEV/nv_check" --qmd 4 "$DEV/out/$SM"
    step "build cuda_check" g++ -std=c++20 -O2 -o /tmp/cuda_check tools/cuda_check/cuda_check.cpp \
      tools/cuda_check/launch_file.cpp -ldl
    step "libcuda reference (cuda_check)" /tmp/cuda_check "$DEV/out/$SM"
    exit $fail
    ;;
  *)
    echo "usage: scripts/device/nv_check.sh prepare|run [SM]" >&2
    exit 2
    ;;
esac
