// Private to compiler/: the host-CPU JIT (ORC LLJIT). No LLVM types in this header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/linearize.h"

namespace rawgpu::compiler {

// The uniform kernel entry (see llvm_target.h).
using KernelEntry = void (*)(void** buffers, const int64_t* vars, int64_t thread, int64_t nthreads);

class CpuJit {
 public:
  // opt_level 0..3 (the LLVM new-pass-manager default pipelines O0..O3).
  static Result<std::unique_ptr<CpuJit>> create(int opt_level);
  ~CpuJit();
  CpuJit(const CpuJit&) = delete;
  CpuJit& operator=(const CpuJit&) = delete;

  // Generates, optimises and links `p` as the function `name` (unique per JIT). RAWGPU_DEBUG
  // llvm=4 logs the optimised IR. Not thread-safe: one compiling thread per JIT.
  // `times`, when given, receives the seconds spent building the LLVM IR (llvmgen::generate)
  // and in LLVM itself (the pass pipeline plus machine code and linking).
  // Equivalent to link(compile_object(p, name, 0, times)).
  struct Times {
    double ir_s = 0, codegen_s = 0;
    // CPU seconds of the compiling thread in compile_object (independent of how many workers
    // share the cores, unlike the wall-clock figures above).
    double cpu_s = 0;
  };
  Result<KernelEntry> compile(const Program& p, const std::string& name, Times* times = nullptr);

  // The two halves of compile(), for compiling several kernels at once:
  // compile_object builds the module in its own LLVMContext, runs the pass pipeline and emits a
  // relocatable object with the target machine of `slot` (0..kMaxSlots-1, created on first use).
  // Thread-safe for distinct slots; it only reads `p` (and its IR nodes, which no thread may
  // create or mutate meanwhile). link adds the object to the JIT and resolves `name`: one
  // thread at a time, like compile().
  static constexpr int kMaxSlots = 16;
  struct Object {
    std::string name;
    std::string bytes;  // the relocatable object file
  };
  Result<Object> compile_object(const Program& p, const std::string& name, int slot,
                                Times* times = nullptr);
  Result<KernelEntry> link(Object obj, Times* times = nullptr);

  std::string triple() const;
  std::string host_cpu() const;  // LLVM's name of the host CPU ("znver3", "skylake-avx512")

 private:
  struct Impl;
  explicit CpuJit(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rawgpu::compiler
