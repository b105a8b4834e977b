// The RM client of the NVIDIA kernel-driver path: /dev/nvidiactl and /dev/nvidia-uvm opened, a
// root client allocated, the driver's full version string read through
// SYSTEM_GET_BUILD_VERSION_V2 and the struct layouts of that branch selected before any other
// call (an unknown branch is refused, never guessed), UVM initialised; then RM alloc / control /
// free with both error channels checked (the ioctl's return and the RM status, decoded by name).
//
// Alloc parameters go through a zeroed 4 KiB scratch block: RM copies in and out the size of its
// own per-class table, not the caller's, so a struct that grew in a newer driver reads zeros and
// writes into the scratch block instead of past the caller's struct.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/autogen/nv/nv_ioctl.h"
#include "rawgpu/autogen/nv/rm_abi.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/nv/kernel.h"

namespace rawgpu::nv {

struct DriverVersion {
  std::string text;  // "580.65.06" as the driver reports it
  uint32_t major = 0, minor = 0, patch = 0;
};
// "535.261.03" -> {535, 261, 3}; kParse for anything else.
Result<DriverVersion> parse_driver_version(std::string_view text);
// The struct layouts of a driver version: 535.x, 570.x, 580.x (before and from 580.65.06).
// kUnsupported naming the version for any other branch.
Result<const autogen::nv::rm::BranchLayouts*> branch_layouts(const DriverVersion& v);

// "NV_ERR_INVALID_CLASS (0x22)" or "unknown NV_STATUS 0x1234".
std::string rm_status_name(uint32_t status);
// A typed error for a failed RM call: code chosen from the status, message names the call.
Error rm_error(uint32_t status, const std::string& what);

struct RmOptions {
  std::string ctl_path = "/dev/nvidiactl";
  std::string uvm_path = "/dev/nvidia-uvm";
  std::string gpu_path_prefix = "/dev/nvidia";  // + minor number
  // Use these layouts instead of the ones the version selects (tests of the wrong-layout path).
  const autogen::nv::rm::BranchLayouts* force_layouts = nullptr;
};

class Rm {
 public:
  // Opens the driver's nodes and the root client. kNotFound when /dev/nvidiactl does not exist
  // (no NVIDIA kernel driver), kPermission when it cannot be opened, kUnsupported for an
  // unknown driver branch.
  static Result<std::unique_ptr<Rm>> open(Kernel& kernel, const RmOptions& options = {});
  ~Rm();
  Rm(const Rm&) = delete;
  Rm& operator=(const Rm&) = delete;

  Kernel& kernel() { return kernel_; }
  const RmOptions& options() const { return options_; }
  int ctl_fd() const { return ctl_fd_; }
  int uvm_fd() const { return uvm_fd_; }
  uint32_t root() const { return root_; }
  const DriverVersion& version() const { return version_; }
  const autogen::nv::rm::BranchLayouts& layouts() const { return *layouts_; }

  // NV_ESC_RM_ALLOC of `cls` under `parent`. `params` (may be empty) is copied into the scratch
  // block and copied back after the call. `handle` 0 lets RM choose. Returns the new handle.
  Result<uint32_t> alloc(uint32_t parent, uint32_t cls, std::span<uint8_t> params = {},
                         uint32_t handle = 0);
  template <class T>
  Result<uint32_t> alloc_with(uint32_t parent, uint32_t cls, T& params, uint32_t handle = 0) {
    return alloc(parent, cls, std::span<uint8_t>(reinterpret_cast<uint8_t*>(&params), sizeof(T)),
                 handle);
  }
  // NV_ESC_RM_CONTROL; `size` must be the control's exact size.
  Status control(uint32_t object, uint32_t cmd, void* params, uint32_t size);
  // The same, returning RM's status (NV_OK = 0) instead of turning it into an error.
  Result<uint32_t> control_status(uint32_t object, uint32_t cmd, void* params, uint32_t size);
  // NV_ESC_RM_FREE.
  Status free(uint32_t parent, uint32_t object);
  // A frontend ioctl (escape `nr`, `size` bytes) on `fd`; -errno becomes kIo naming `what`.
  Status frontend(int fd, uint32_t nr, void* params, uint32_t size, const char* what);
  // A UVM ioctl; checks the return and the rmStatus word at `status_offset`.
  Status uvm(unsigned long cmd, void* params, size_t status_offset, const char* what);

  // NV_ESC_CARD_INFO: the valid entries.
  Result<std::vector<autogen::nv::ioctl::nv_ioctl_card_info>> cards();
  // Opens /dev/nvidia<minor>, registers it with the ctl fd and (550+) waits for the adapter.
  Result<int> open_gpu_fd(uint32_t minor);
  // A client-chosen handle (for memory objects whose handle is provided by the caller).
  uint32_t new_handle() { return next_handle_++; }

 private:
  Rm(Kernel& kernel, const RmOptions& options) : kernel_(kernel), options_(options) {}
  Status read_version();

  Kernel& kernel_;
  RmOptions options_;
  int ctl_fd_ = -1;
  int uvm_fd_ = -1;
  int uvm_mm_fd_ = -1;
  uint32_t root_ = 0;
  DriverVersion version_;
  const autogen::nv::rm::BranchLayouts* layouts_ = nullptr;
  std::vector<uint8_t> scratch_;
  uint32_t next_handle_ = 0xcf000000;
};

}  // namespace rawgpu::nv
