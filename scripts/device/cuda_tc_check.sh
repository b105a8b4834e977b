#!/usr/bin/env bash
# Device check of the tensor-core and symbolic-launch-size code generation on an NVIDIA GPU:
# compiles matmul_tc, matmul_tc_bf16 and elementwise_n for SM (default sm_90: H100/H200) with
# build/tools/rawgpu (needs ptxas for the cubins), builds the driver-API harness
# (scripts/device/cuda_tc_check.cpp, libcuda through dlopen) and runs it. Prints PASS/FAIL per
# kernel; exit 1 on any failure. Usage: scripts/device/cuda_tc_check.sh [SM] [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
SM=${1:-sm_90}
OUT=${2:-/tmp/rawgpu-tc-check}
mkdir -p "$OUT"
for ex in matmul_tc matmul_tc_bf16 elementwise_n; do
  build/tools/rawgpu compile --target "$SM" --example "$ex" -o "$OUT"
done
${CXX:-g++} -std=c++20 -O2 -Wall -Wextra scripts/device/cuda_tc_check.cpp -o "$OUT/cuda_tc_check" -ldl
"$OUT/cuda_tc_check" "$OUT/$SM"
