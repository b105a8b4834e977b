// The device layer under the Tensor API: a Device allocates buffers, copies host data in and
// out, and compiles and runs the fused kernels the scheduler makes. Devices are found by name
// through the registry (registry.h): "cpu" is built in (LLVM ORC JIT, cpu_device.h);
// amd_device.h is the back end over the AMD device seam (simulated or real); sim_devices.h
// registers the simulated gfx1100/gfx1201 devices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/dtype.h"
#include "rawgpu/compiler/ir.h"

namespace rawgpu::runtime {

// `count` elements of `dtype` in a device's memory.
class Buffer {
 public:
  Buffer(compiler::DType dtype, size_t count) : dtype_(dtype), count_(count) {}
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  compiler::DType dtype() const { return dtype_; }
  size_t count() const { return count_; }
  size_t nbytes() const { return count_ * size_t(compiler::itemsize(dtype_)); }
  // Exactly nbytes() bytes, else kInvalidArgument (nothing copied).
  virtual Status copy_in(std::span<const std::byte> bytes) = 0;
  virtual Status copy_out(std::span<std::byte> bytes) const = 0;

 private:
  compiler::DType dtype_;
  size_t count_;
};

// Where a kernel sits in the schedule being run (progress displays, BEAM).
struct RunContext {
  size_t kernel_index = 0;
  size_t kernel_count = 0;
};

// A device: runs schedules. Implementations register a factory by name (registry.h).
class Device {
 public:
  virtual ~Device() = default;
  virtual std::string_view name() const = 0;
  // A buffer of `count` elements (contents unspecified until written).
  virtual Result<std::shared_ptr<Buffer>> alloc(compiler::DType dtype, size_t count) = 0;
  // `count` elements at byte `offset` of `base` (an arena of intermediates); keeps base alive.
  virtual Result<std::shared_ptr<Buffer>> view(const std::shared_ptr<Buffer>& base, size_t offset,
                                               compiler::DType dtype, size_t count) = 0;
  // Compiles (cached by the AST's structural hash) and runs one scheduled kernel; `args` in the
  // kernel's buffer-slot order (slot 0 is the output). Returns when the results are written.
  virtual Status run(compiler::Ref ast, std::span<Buffer* const> args,
                     const RunContext& context) = 0;
  // Compile-cache statistics (programs compiled, launches that found theirs cached).
  virtual size_t cache_size() const = 0;
  virtual uint64_t cache_hits() const = 0;
};

}  // namespace rawgpu::runtime
