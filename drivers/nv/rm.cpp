#include "rawgpu/drivers/nv/rm.h"

#include <fcntl.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "rawgpu/autogen/nv/nv_ioctl_numbers.h"
#include "rawgpu/autogen/nv/nv_status.h"
#include "rawgpu/autogen/nv/uvm_ioctl.h"
#include "rawgpu/autogen/nv/uvm_ioctl_numbers.h"
#include "rawgpu/base/format.h"

namespace rawgpu::nv {

namespace rm = autogen::nv::rm;
namespace st = autogen::nv::status;
namespace nvio = autogen::nv::ioctl;
namespace uvm = autogen::nv::uvm;

namespace {

// RM copies alloc parameters of up to this size in and out (the largest class rawgpu allocates,
// NV_CHANNEL_ALLOC_PARAMS, is 368 bytes).
constexpr size_t kScratchBytes = 4096;
// RM asks callers to retry these.
constexpr int kRetries = 16;

bool is_retry(uint32_t status) {
  return status == st::NV_ERR_TIMEOUT_RETRY || status == st::NV_ERR_BUSY_RETRY;
}

// UVM_INITIALIZE's parameters live in uvm_linux_ioctl.h's conditional part: {u64 flags,
// NV_STATUS rmStatus}.
struct UvmInitializeParams {
  uint64_t flags;
  uint32_t rmStatus;
  uint32_t pad;
};

std::string errno_text(int err) { return strformat("%s (errno %d)", std::strerror(err), err); }

}  // namespace

Result<DriverVersion> parse_driver_version(std::string_view text) {
  DriverVersion v;
  v.text = std::string(text);
  uint32_t* parts[3] = {&v.major, &v.minor, &v.patch};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    auto [next, ec] = std::from_chars(p, end, *parts[i]);
    if (ec != std::errc() || next == p) break;
    p = next;
    if (i < 2) {
      if (p == end || *p != '.') {
        if (i == 1 && p == end) return v;  // "570.86" has no patch level
        break;
      }
      ++p;
    } else if (p == end) {
      return v;
    }
  }
  return make_error(Errc::kParse,
                    "NVIDIA driver version %s is not MAJOR.MINOR[.PATCH]: the build-version "
                    "control returned something rawgpu cannot read",
                    quote(text).c_str());
}

Result<const rm::BranchLayouts*> branch_layouts(const DriverVersion& v) {
  switch (v.major) {
    case 535: return &rm::kBranch535;
    case 570: return &rm::kBranch570;
    case 580:
      if (v.minor > 65 || (v.minor == 65 && v.patch >= 6)) return &rm::kBranch580;
      return &rm::kBranch580Early;
    default: break;
  }
  return Error(Errc::kUnsupported,
               strformat("NVIDIA driver %s is of a branch whose RM struct layouts rawgpu does not "
                         "know (it knows 535, 570 and 580)",
                         v.text.c_str()))
      .with_hint(
          "install a 535, 570 or 580 driver, or add the branch's layouts to "
          "autogen/include/rawgpu/autogen/nv/rm_abi.h (never guess them: RM reads and "
          "writes alloc parameters by its own sizes)");
}

std::string rm_status_name(uint32_t status) {
  const std::string_view name = st::name(status);
  if (name.empty()) return strformat("unknown NV_STATUS 0x%x", status);
  return strformat("%.*s (0x%x)", static_cast<int>(name.size()), name.data(), status);
}

Error rm_error(uint32_t status, const std::string& what) {
  Errc code = Errc::kIo;
  switch (status) {
    case st::NV_ERR_NO_MEMORY:
    case st::NV_ERR_INSUFFICIENT_RESOURCES: code = Errc::kOutOfMemory; break;
    case st::NV_ERR_INVALID_CLASS:
    case st::NV_ERR_NOT_SUPPORTED: code = Errc::kUnsupported; break;
    case st::NV_ERR_INSUFFICIENT_PERMISSIONS: code = Errc::kPermission; break;
    case st::NV_ERR_TIMEOUT:
    case st::NV_ERR_TIMEOUT_RETRY: code = Errc::kTimeout; break;
    case st::NV_ERR_INVALID_ARGUMENT:
    case st::NV_ERR_INVALID_PARAM_STRUCT:
    case st::NV_ERR_INVALID_OBJECT:
    case st::NV_ERR_INVALID_OBJECT_HANDLE:
    case st::NV_ERR_INVALID_OBJECT_PARENT:
    case st::NV_ERR_INVALID_LIMIT:
    case st::NV_ERR_INVALID_OFFSET:
    case st::NV_ERR_INVALID_ADDRESS: code = Errc::kInvalidArgument; break;
    case st::NV_ERR_IN_USE:
    case st::NV_ERR_STATE_IN_USE: code = Errc::kBusy; break;
    case st::NV_ERR_OBJECT_NOT_FOUND:
    case st::NV_ERR_GPU_UUID_NOT_FOUND: code = Errc::kNotFound; break;
    case st::NV_ERR_INSERT_DUPLICATE_NAME: code = Errc::kAlreadyExists; break;
    default: break;
  }
  return Error(code, strformat("%s: RM returned %s", what.c_str(), rm_status_name(status).c_str()));
}

Result<std::unique_ptr<Rm>> Rm::open(Kernel& kernel, const RmOptions& options) {
  std::unique_ptr<Rm> r(new Rm(kernel, options));
  r->scratch_.assign(kScratchBytes, 0);
  r->ctl_fd_ = kernel.open(options.ctl_path, O_RDWR | O_CLOEXEC);
  if (r->ctl_fd_ < 0) {
    const int err = -r->ctl_fd_;
    Error e(err == ENOENT                     ? Errc::kNotFound
            : (err == EACCES || err == EPERM) ? Errc::kPermission
                                              : Errc::kIo,
            strformat("%s: %s", options.ctl_path.c_str(), errno_text(err).c_str()));
    if (err == ENOENT) {
      return std::move(e).with_hint("the NVIDIA kernel driver (nvidia.ko) is not loaded");
    }
    return e;
  }
  r->root_ = RG_TRY_CTX(r->alloc(0, rm::NV01_ROOT_CLIENT), "allocating the RM root client");
  RG_TRY(r->read_version());
  if (options.force_layouts != nullptr) r->layouts_ = options.force_layouts;

  r->uvm_fd_ = kernel.open(options.uvm_path, O_RDWR | O_CLOEXEC);
  if (r->uvm_fd_ < 0) {
    return make_error(Errc::kIo, "%s: %s (is nvidia-uvm.ko loaded?)", options.uvm_path.c_str(),
                      errno_text(-r->uvm_fd_).c_str());
  }
  UvmInitializeParams init{};
  RG_TRY(r->uvm(uvm::UVM_INITIALIZE, &init, offsetof(UvmInitializeParams, rmStatus),
                "UVM_INITIALIZE"));
  r->uvm_mm_fd_ = kernel.open(options.uvm_path, O_RDWR | O_CLOEXEC);
  if (r->uvm_mm_fd_ >= 0) {
    // "Already initialised" answers are expected here (CUDA ignores them too): the call only
    // ties the second fd's mm to the first.
    uvm::UVM_MM_INITIALIZE_PARAMS mm{};
    mm.uvmFd = r->uvm_fd_;
    (void)kernel.ioctl(r->uvm_mm_fd_, uvm::UVM_MM_INITIALIZE, &mm);
  }
  return r;
}

Rm::~Rm() {
  if (root_ != 0) (void)free(0, root_);
  if (uvm_mm_fd_ >= 0) kernel_.close(uvm_mm_fd_);
  if (uvm_fd_ >= 0) kernel_.close(uvm_fd_);
  if (ctl_fd_ >= 0) kernel_.close(ctl_fd_);
}

Status Rm::read_version() {
  // The control is size-checked and grew in 560: ask with the new size first.
  std::vector<char> buf(rm::kBuildVersionV2Size, 0);
  const uint32_t status =
      RG_TRY_CTX(control_status(root_, rm::NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2, buf.data(),
                                rm::kBuildVersionV2Size),
                 "reading the NVIDIA driver version");
  if (status == st::NV_ERR_INVALID_PARAM_STRUCT) {
    // 535-555 export the three-string form.
    std::fill(buf.begin(), buf.end(), 0);
    RG_TRY_CTX(control(root_, rm::NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2, buf.data(),
                       rm::kBuildVersionV2SizeBefore560),
               "reading the NVIDIA driver version (pre-560 form)");
  } else if (status != st::NV_OK) {
    return rm_error(status, "reading the NVIDIA driver version (SYSTEM_GET_BUILD_VERSION_V2)");
  }
  const size_t len = strnlen(buf.data(), rm::kBuildVersionStringLength);
  version_ = RG_TRY(parse_driver_version(std::string_view(buf.data(), len)));
  layouts_ = RG_TRY(branch_layouts(version_));
  return {};
}

Result<uint32_t> Rm::alloc(uint32_t parent, uint32_t cls, std::span<uint8_t> params,
                           uint32_t handle) {
  if (params.size() > scratch_.size()) {
    return make_error(Errc::kInternal, "alloc parameters of class 0x%x are %zu bytes (> %zu)", cls,
                      params.size(), scratch_.size());
  }
  for (int attempt = 0;; ++attempt) {
    std::fill(scratch_.begin(), scratch_.end(), 0);
    if (!params.empty()) std::memcpy(scratch_.data(), params.data(), params.size());
    rm::NVOS21_PARAMETERS p{};
    p.hRoot = parent == 0 ? 0 : root_;
    p.hObjectParent = parent;
    p.hObjectNew = handle;
    p.hClass = cls;
    p.pAllocParms = params.empty() ? 0 : reinterpret_cast<uintptr_t>(scratch_.data());
    p.paramsSize = static_cast<uint32_t>(params.size());
    const int rc = kernel_.ioctl(ctl_fd_, rm::ioctl_cmd(rm::NV_ESC_RM_ALLOC, sizeof(p)), &p);
    if (rc < 0) {
      return make_error(Errc::kIo, "NV_ESC_RM_ALLOC of class 0x%x under 0x%x: %s", cls, parent,
                        errno_text(-rc).c_str());
    }
    if (is_retry(p.status) && attempt < kRetries) continue;
    if (p.status != st::NV_OK) {
      return rm_error(p.status, strformat("allocating class 0x%x under object 0x%x", cls, parent));
    }
    if (!params.empty()) std::memcpy(params.data(), scratch_.data(), params.size());
    return p.hObjectNew;
  }
}

Result<uint32_t> Rm::control_status(uint32_t object, uint32_t cmd, void* params, uint32_t size) {
  for (int attempt = 0;; ++attempt) {
    rm::NVOS54_PARAMETERS p{};
    p.hClient = root_;
    p.hObject = object;
    p.cmd = cmd;
    p.params = reinterpret_cast<uintptr_t>(params);
    p.paramsSize = size;
    const int rc = kernel_.ioctl(ctl_fd_, rm::ioctl_cmd(rm::NV_ESC_RM_CONTROL, sizeof(p)), &p);
    if (rc < 0) {
      return make_error(Errc::kIo, "NV_ESC_RM_CONTROL 0x%x on object 0x%x: %s", cmd, object,
                        errno_text(-rc).c_str());
    }
    if (is_retry(p.status) && attempt < kRetries) continue;
    return p.status;
  }
}

Status Rm::control(uint32_t object, uint32_t cmd, void* params, uint32_t size) {
  const uint32_t status = RG_TRY(control_status(object, cmd, params, size));
  if (status != st::NV_OK) {
    return rm_error(status, strformat("control 0x%x (%u bytes) on object 0x%x", cmd, size, object));
  }
  return {};
}

Status Rm::free(uint32_t parent, uint32_t object) {
  rm::NVOS00_PARAMETERS p{};
  p.hRoot = root_;
  p.hObjectParent = parent;
  p.hObjectOld = object;
  const int rc = kernel_.ioctl(ctl_fd_, rm::ioctl_cmd(rm::NV_ESC_RM_FREE, sizeof(p)), &p);
  if (rc < 0) {
    return make_error(Errc::kIo, "NV_ESC_RM_FREE of object 0x%x: %s", object,
                      errno_text(-rc).c_str());
  }
  if (p.status != st::NV_OK) return rm_error(p.status, strformat("freeing object 0x%x", object));
  if (object == root_) root_ = 0;
  return {};
}

Status Rm::frontend(int fd, uint32_t nr, void* params, uint32_t size, const char* what) {
  const int rc = kernel_.ioctl(fd, rm::ioctl_cmd(nr, size), params);
  if (rc < 0) return make_error(Errc::kIo, "%s: %s", what, errno_text(-rc).c_str());
  return {};
}

Status Rm::uvm(unsigned long cmd, void* params, size_t status_offset, const char* what) {
  const int rc = kernel_.ioctl(uvm_fd_, cmd, params);
  if (rc < 0) return make_error(Errc::kIo, "%s: %s", what, errno_text(-rc).c_str());
  uint32_t status = 0;
  std::memcpy(&status, static_cast<uint8_t*>(params) + status_offset, sizeof(status));
  if (status != st::NV_OK) return rm_error(status, what);
  return {};
}

Result<std::vector<nvio::nv_ioctl_card_info>> Rm::cards() {
  constexpr uint32_t kSlots = 64;
  std::vector<nvio::nv_ioctl_card_info> all(kSlots);
  RG_TRY(frontend(ctl_fd_, nvio::NV_ESC_CARD_INFO, all.data(),
                  static_cast<uint32_t>(all.size() * sizeof(all[0])), "NV_ESC_CARD_INFO"));
  std::vector<nvio::nv_ioctl_card_info> valid;
  for (const auto& c : all) {
    if (c.valid) valid.push_back(c);
  }
  return valid;
}

Result<int> Rm::open_gpu_fd(uint32_t minor) {
  const std::string path = options_.gpu_path_prefix + std::to_string(minor);
  const int fd = kernel_.open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return make_error(Errc::kIo, "%s: %s", path.c_str(), errno_text(-fd).c_str());
  nvio::nv_ioctl_register_fd reg{ctl_fd_};
  Status s = frontend(fd, nvio::NV_ESC_REGISTER_FD, &reg, sizeof(reg), "NV_ESC_REGISTER_FD");
  if (s.ok() && layouts_->wait_open_complete) {
    // 550+: the open may return before the adapter is up.
    rm::nv_ioctl_wait_open_complete w{};
    s = frontend(fd, rm::NV_ESC_WAIT_OPEN_COMPLETE, &w, sizeof(w), "NV_ESC_WAIT_OPEN_COMPLETE");
    if (s.ok() && (w.rc != 0 || w.adapterStatus != 0)) {
      s = make_error(Errc::kHardware, "%s: the adapter did not come up (rc %d, adapter status %s)",
                     path.c_str(), w.rc, rm_status_name(w.adapterStatus).c_str());
    }
  }
  if (!s.ok()) {
    kernel_.close(fd);
    return std::move(s).take_error().with_context(path);
  }
  return fd;
}

}  // namespace rawgpu::nv
