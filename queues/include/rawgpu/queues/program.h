// A loaded AMD code object: the image uploaded to GPU memory through the copy engine, one
// kernel's entry address, its parsed descriptor and its kernarg size/layout, and the exec
// parameters derived from them (amd.md §10.1-§10.3).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/amd/code_object.h"
#include "rawgpu/drivers/amd/device.h"
#include "rawgpu/queues/amd_copy.h"
#include "rawgpu/queues/amd_pm4.h"
#include "rawgpu/queues/kernarg_arena.h"

namespace rawgpu::queues::amd {

// HSA kernel dispatch packet (64 bytes, HSA runtime spec): placed after the kernel arguments
// when the kernel asks for the dispatch pointer.
inline constexpr uint32_t kDispatchPacketBytes = 64;

class Program {
 public:
  // Parses `code_object`, checks that it targets the device's generation, uploads the image to
  // VRAM through `copier` and selects `kernel`. Errors: the parser's (kParse/kUnsupported),
  // kNotFound for a missing kernel, kUnsupported for a generation mismatch or user SGPRs this
  // loader does not provide (private segment buffer, queue ptr, dispatch id, flat scratch init),
  // kInvalidArgument for an LDS request above 64 KiB.
  static Result<std::unique_ptr<Program>> load(drivers::amd::AmdDevice& device, Copier& copier,
                                               std::span<const uint8_t> code_object,
                                               std::string_view kernel);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  const drivers::amd::CodeObjectKernel& kernel() const { return kernel_; }
  const drivers::amd::KernelDescriptor& descriptor() const { return kernel_.descriptor; }
  GpuVa base() const { return image_.va; }
  GpuVa entry() const { return image_.va + kernel_.code_va; }
  GpuVa descriptor_va() const { return image_.va + kernel_.descriptor_va; }
  uint64_t image_size() const { return image_size_; }
  // Kernel argument bytes and layout (from the metadata note).
  uint32_t kernarg_size() const { return kernel_.descriptor.kernarg_size; }
  const std::vector<drivers::amd::KernelArg>& args() const { return kernel_.metadata.args; }
  // Bytes to allocate per launch: kernargs rounded to 16, plus the dispatch packet if used.
  uint64_t kernarg_alloc_size() const;
  bool wants_dispatch_ptr() const { return kernel_.descriptor.properties.dispatch_ptr; }

  // ExecParams for a launch with kernel arguments at `kernargs` (which must hold
  // kernarg_alloc_size() bytes; the dispatch packet is written there if the kernel wants it):
  // entry, RSRC1 (+PRIV on GC 11), RSRC2 (+LDS granules of 512 B), RSRC3, wave32 and the user
  // SGPRs in ABI order (dispatch ptr, kernarg ptr), padded with zeros to RSRC2.USER_SGPR.
  ExecParams exec_params(const Kernargs& kernargs, std::array<uint32_t, 3> grid,
                         std::array<uint32_t, 3> workgroup) const;

 private:
  Program(drivers::amd::AmdDevice& device) : device_(&device) {}
  drivers::amd::AmdDevice* device_;
  drivers::amd::DeviceBuffer image_;
  uint64_t image_size_ = 0;
  drivers::amd::CodeObjectKernel kernel_;
  GcGen gen_ = GcGen::kGfx11;
};

}  // namespace rawgpu::queues::amd
