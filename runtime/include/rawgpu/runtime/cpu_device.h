// "cpu": tensors in host memory, kernels compiled by compiler/cpu.h (LLVM ORC JIT, cached by
// the AST's structural hash). RAWGPU_BEAM=n picks each kernel's opts by BEAM search (once per
// kernel per process; the heuristic's opts seed the search, so it never ends slower).
#pragma once

#include <memory>

#include "rawgpu/compiler/cpu.h"
#include "rawgpu/runtime/device.h"

namespace rawgpu::runtime {

std::unique_ptr<Device> make_cpu_device();
// The CPU runtime behind "cpu" (statistics: compile-cache size and hits; threads). Created on
// first use with the LLVM pipeline level from RAWGPU_OPT_LEVEL (0..3, default 3).
compiler::CpuRuntime& cpu_runtime();

}  // namespace rawgpu::runtime
