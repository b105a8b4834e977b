#!/usr/bin/env bash
# rawgpu's main job on this machine: installs what is missing, builds, then lists the GPUs and
# checks the installation, boots the simulated Navi31 with the AM driver (cold, then warm, each
# step with its time), and runs tensor programs (`rawgpu demo`) on that booted simulated GPU and
# on the CPU.
source "$(dirname "$0")/common.sh"
NINJA_TARGETS=(tools/rawgpu)
ensure_built build
build/tools/rawgpu list
echo
build/tools/rawgpu selfcheck
echo
echo "== the AM driver boots the simulated GPU (sim:gfx1100) over its PCI function"
build/tools/rawgpu boot sim:gfx1100 --twice
echo
echo "== tensor programs on the simulated GPU, booted by the AM driver"
build/tools/rawgpu demo --device sim:gfx1100
echo
echo "== tensor programs on the CPU"
build/tools/rawgpu demo
