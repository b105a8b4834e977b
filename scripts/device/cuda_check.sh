#!/usr/bin/env bash
# Device check of GPU code generation on an NVIDIA GPU (issue 7): every example kernel compiled
# for SM (default sm_90: H100/H200) by `build/tools/rawgpu compile --data` (cubins need ptxas;
# --data adds the inputs, the host reference and launch.txt) and run through libcuda by
# build/tools/cuda_check (tools/cuda_check/cuda_check.cpp), slot 0 compared with the reference.
# Prints PASS/FAIL per kernel with errors and times; exit 1 on any failure.
# Usage: scripts/device/cuda_check.sh [SM] [OUTDIR]     (after scripts/test.sh or a build)
set -euo pipefail
cd "$(dirname "$0")/../.."
SM=${1:-sm_90}
OUT=${2:-/tmp/rawgpu-cuda-check}
ninja -C build tools/rawgpu tools/cuda_check >/dev/null
build/tools/rawgpu compile --target "$SM" --all --data -o "$OUT"
build/tools/cuda_check "$OUT/$SM"
