// Private to compiler/: LLVM code generation for device targets (AMDGPU, NVPTX) and host
// objects, behind an interface without LLVM types (gpu_llvm.cpp is the LLVM translation unit).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/linearize.h"

namespace rawgpu::compiler::gpullvm {

enum class Kind : uint8_t { kAmdgpu, kNvptx, kHost };

struct Output {
  std::string ir;               // optimised LLVM IR (text)
  std::string assembly;         // AMDGPU/host assembly, or the PTX
  std::vector<uint8_t> object;  // relocatable ELF (AMDGPU, host); empty for NVPTX
  double ir_ms = 0, opt_ms = 0, codegen_ms = 0;
};

// IRBuilder (llvm_codegen.cpp) -> new-PM O`opt_level` pipeline -> assembly and object. `gpu` is
// the processor (gfx1100, sm_80) or empty for the host. max_threads: the work-group size.
Result<Output> compile(const Program& p, Kind kind, const std::string& gpu, const std::string& name,
                       uint32_t max_threads, int opt_level);

// Links a relocatable AMDGPU object into a code object with lld in-process
// (`ld.lld -shared`), through a private temporary directory. Serialised (lld is not
// reentrant).
Result<std::vector<uint8_t>> lld_link_amdgpu(const std::vector<uint8_t>& object);

}  // namespace rawgpu::compiler::gpullvm
