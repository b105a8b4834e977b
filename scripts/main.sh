#!/usr/bin/env bash
# rawgpu's main job on this machine: installs what is missing, builds, then lists the GPUs and
# checks the installation, then runs tensor programs on the CPU (`rawgpu demo`).
source "$(dirname "$0")/common.sh"
NINJA_TARGETS=(tools/rawgpu)
ensure_built build
build/tools/rawgpu list
echo
build/tools/rawgpu selfcheck
echo
build/tools/rawgpu demo
