// Taking a PCI function from its kernel driver and giving it back, through sysfs:
//
//   bind_vfio:  refuse when unsafe (processes hold the GPU's DRM nodes, it is the boot display),
//               write vfio-pci to driver_override, unbind the current driver, ask the kernel to
//               probe (drivers_probe), verify vfio-pci took it; the same for the other functions
//               of its IOMMU group that are bound to a driver (HDMI audio), so the group is viable.
//   release:    clear driver_override, unbind vfio-pci, drivers_probe: the kernel binds the
//               driver that matches the device (amdgpu, nvidia, snd_hda_intel) again.
//   DeviceLock: an flock on a per-device lock file, so two rawgpu processes never own one GPU.
//
// All through pci::Sys, so tests run it against a simulated sysfs (sim/fake_vfio.h).
#pragma once

#include <string>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/drivers/pci/device_info.h"
#include "rawgpu/drivers/pci/sys.h"

namespace rawgpu::pci {

struct SysfsOptions {
  Sys* sys = nullptr;  // nullptr: Sys::os()
  std::string sysfs_root = "/sys";
  std::string proc_root = "/proc";     // to name the processes that hold a GPU
  std::string lock_dir = "/run/lock";  // rawgpu-BDF.lock files
  std::string dev_root = "/dev";       // DRM nodes (/dev/dri)
};

// The driver bound to `bdf` ("" when none). kNotFound when the function does not exist.
Result<std::string> bound_driver(const Bdf& bdf, const SysfsOptions& options);

// Processes that have one of the function's DRM nodes (/dev/dri/cardN, renderDN) open, as
// "PID (COMM)". Processes this user may not inspect are not listed.
std::vector<std::string> drm_users(const Bdf& bdf, const SysfsOptions& options);

struct BindResult {
  std::vector<std::string> functions;  // what was (re)bound to vfio-pci, in order
  std::vector<std::string> previous;   // their previous drivers ("" for none)
};

struct BindOptions {
  bool force = false;  // bind even when processes hold the GPU or it drives the boot display
};

// kBusy (with the processes) when the GPU is in use, kPermission without write access to sysfs,
// kHardware when the kernel did not bind vfio-pci. On failure the functions are given back to
// the drivers they had.
Result<BindResult> bind_vfio(const Bdf& bdf, const SysfsOptions& options,
                             const BindOptions& bind = {});
// Gives `bdf` (and the other vfio-pci functions of its group) back to the kernel's drivers.
Status release(const Bdf& bdf, const SysfsOptions& options);

// An exclusive flock on LOCK_DIR/rawgpu-BDF.lock held for the object's lifetime; the file holds
// the owner's pid. kBusy naming that pid when another process holds it.
class DeviceLock {
 public:
  static Result<DeviceLock> acquire(const Bdf& bdf, const SysfsOptions& options);
  DeviceLock(DeviceLock&& o) noexcept : sys_(o.sys_), fd_(o.fd_) { o.fd_ = -1; }
  DeviceLock& operator=(DeviceLock&& o) noexcept;
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;
  ~DeviceLock();

 private:
  DeviceLock(Sys* sys, int fd) : sys_(sys), fd_(fd) {}
  Sys* sys_;
  int fd_;
};

}  // namespace rawgpu::pci
