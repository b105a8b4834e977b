// Private to compiler/: the LLVM back end's target hooks and the code generator's entry point.
// Includes LLVM headers: only the LLVM .cpp files of this library include it.
#pragma once

#include <llvm/IR/CallingConv.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <span>
#include <string>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/linearize.h"

namespace rawgpu::compiler::llvmgen {

// What differs between targets. The code generator asks these instead of testing the target.
class TargetHooks {
 public:
  virtual ~TargetHooks() = default;
  virtual std::string_view name() const = 0;
  virtual std::string triple() const = 0;
  virtual std::string data_layout() const = 0;
  // Address space of kernel buffers (global memory) and of accumulators (private memory).
  virtual unsigned global_address_space() const = 0;
  virtual unsigned private_address_space() const = 0;
  // Hardware launch ids (workitem/workgroup along dim); null where the target has none (CPU).
  virtual llvm::Value* thread_id(llvm::IRBuilder<>& b, int dim) const = 0;
  virtual llvm::Value* block_id(llvm::IRBuilder<>& b, int dim) const = 0;
  virtual Status barrier(llvm::IRBuilder<>& b) const = 0;
  // Calling convention of the kernel entry.
  virtual llvm::CallingConv::ID kernel_calling_conv() const = 0;
  // A unary float math op (EXP2, LOG2, SIN, SQRT) on x; the CPU uses LLVM intrinsics (lowered to
  // libm calls or instructions), GPU targets may substitute polynomial approximations.
  virtual llvm::Value* math(llvm::IRBuilder<>& b, Op op, llvm::Value* x) const = 0;

  // GPU targets: the kernel entry is the typed function itself (buffers as global pointers,
  // then the variables as i64, in Program order), not the CPU's uniform wrapper.
  virtual bool is_gpu() const { return false; }
  // Address space of local (LDS/shared) buffers, module-level arrays.
  virtual unsigned local_address_space() const { return 3; }
  // Target attributes/metadata on the GPU kernel entry; `max_threads` is the work-group size.
  virtual void annotate_kernel(llvm::Function&, uint32_t /*max_threads*/) const {}
  // One tensor-core instruction (tensor_core.h; `kind` is a TcKind): `a` and `bv` are the lane's
  // A and B elements (half or bfloat scalars, in fragment order), `acc` the <c_elems x float>
  // accumulator; returns the product accumulated onto `acc`. Null: not on this target.
  virtual llvm::Value* mma(llvm::IRBuilder<>& /*b*/, int /*kind*/, DType /*in*/,
                           std::span<llvm::Value* const> /*a*/,
                           std::span<llvm::Value* const> /*bv*/, llvm::Value* /*acc*/) const {
    return nullptr;
  }
};

// The host CPU (the process's own triple and data layout).
std::unique_ptr<TargetHooks> make_host_target(std::string triple, std::string data_layout);

// GPU targets (llvm_codegen.cpp). `gpu` is the processor ("gfx1100", "sm_80"); the data layout
// comes from the TargetMachine.
std::unique_ptr<TargetHooks> make_amdgpu_target(std::string gpu, std::string data_layout);
std::unique_ptr<TargetHooks> make_nvptx_target(std::string gpu, std::string data_layout);

// Entry ABI of every CPU kernel (the uniform wrapper):
//   void <name>(void** buffers, const int64_t* vars, int64_t thread, int64_t nthreads)
// buffers by slot, vars in Program::vars order; thread/nthreads split Program::parallel_loop.
inline constexpr const char* kEntryAbi = "void(void**, const int64_t*, int64_t, int64_t)";

Result<std::unique_ptr<llvm::Module>> generate(const Program& p, const TargetHooks& target,
                                               llvm::LLVMContext& ctx,
                                               const std::string& entry_name,
                                               uint32_t max_threads = 1);

}  // namespace rawgpu::compiler::llvmgen
