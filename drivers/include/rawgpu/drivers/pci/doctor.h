// What stands between this machine and driving a GPU from userspace, as checks a user can act
// on: the IOMMU, vfio-pci, /dev/vfio access, root, kernel lockdown, hugepages (host), and per
// device its driver, IOMMU group viability, BAR size and resizable BAR, ASPM, the trained link.
// `rawgpu doctor [BDF]` and `rawgpu selfcheck` print them.
#pragma once

#include <string>
#include <vector>

#include "rawgpu/drivers/pci/device_info.h"

namespace rawgpu::pci {

enum class CheckLevel { kOk, kInfo, kWarn, kFail };
std::string_view check_level_name(CheckLevel l);  // "ok", "info", "warn", "fail"

struct CheckResult {
  std::string name;  // "iommu", "vfio-pci", "aspm", ...
  CheckLevel level = CheckLevel::kOk;
  std::string detail;  // what was found
  std::string fix;     // what to do (empty when nothing is needed)
};

struct DoctorOptions {
  std::string sysfs_root = "/sys";
  std::string proc_root = "/proc";
  std::string dev_root = "/dev";
  int euid = -1;  // -1: geteuid()
};

std::vector<CheckResult> host_checks(const DoctorOptions& options);
// Checks of one enumerated device (with sysfs details and, as root, capabilities).
std::vector<CheckResult> device_checks(const DeviceInfo& device, const DoctorOptions& options);

}  // namespace rawgpu::pci
