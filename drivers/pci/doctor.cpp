#include "rawgpu/drivers/pci/doctor.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rawgpu/base/format.h"
#include "rawgpu/drivers/pci/config_space.h"

namespace rawgpu::pci {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool nonempty_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec) && !fs::is_empty(p, ec);
}

std::string link_name(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_symlink(p, ec)) return "";
  return fs::read_symlink(p, ec).filename().string();
}

}  // namespace

std::string_view check_level_name(CheckLevel l) {
  switch (l) {
    case CheckLevel::kOk: return "ok";
    case CheckLevel::kInfo: return "info";
    case CheckLevel::kWarn: return "warn";
    case CheckLevel::kFail: return "fail";
  }
  return "?";
}

std::vector<CheckResult> host_checks(const DoctorOptions& o) {
  std::vector<CheckResult> out;
  const fs::path sys(o.sysfs_root), proc(o.proc_root), dev(o.dev_root);
  const std::string cmdline = slurp(proc / "cmdline");

  // The IOMMU: groups exist only when it is on (or in passthrough).
  if (nonempty_dir(sys / "kernel/iommu_groups")) {
    out.push_back({"iommu", CheckLevel::kOk,
                   cmdline.find("iommu=pt") != std::string::npos
                       ? "on, in passthrough mode for host devices (iommu=pt)"
                       : "on (IOMMU groups present)",
                   ""});
  } else {
    out.push_back({"iommu", CheckLevel::kWarn, "off: no IOMMU groups, so no VFIO",
                   "enable VT-d / AMD-Vi in the firmware setup and boot with intel_iommu=on or "
                   "amd_iommu=on (iommu=pt keeps host devices fast)"});
  }
  // vfio-pci: the module, and access to /dev/vfio.
  std::error_code ec;
  const bool vfio_loaded =
      fs::exists(sys / "module/vfio_pci", ec) || fs::exists(sys / "bus/pci/drivers/vfio-pci", ec);
  out.push_back(
      vfio_loaded ? CheckResult{"vfio-pci", CheckLevel::kOk, "loaded", ""}
                  : CheckResult{"vfio-pci", CheckLevel::kWarn, "not loaded", "modprobe vfio-pci"});
  const std::string noiommu = slurp(sys / "module/vfio/parameters/enable_unsafe_noiommu_mode");
  if (!noiommu.empty() && (noiommu[0] == 'Y' || noiommu[0] == '1'))
    out.push_back({"vfio-noiommu", CheckLevel::kWarn,
                   "vfio's unsafe no-IOMMU mode is enabled: devices bound now get no DMA "
                   "protection",
                   "echo N > /sys/module/vfio/parameters/enable_unsafe_noiommu_mode"});
  const fs::path container = dev / "vfio/vfio";
  if (!fs::exists(container, ec)) {
    out.push_back({"dev-vfio", CheckLevel::kWarn, container.string() + " does not exist",
                   "modprobe vfio-pci"});
  } else if (::access(container.c_str(), R_OK | W_OK) != 0) {
    out.push_back({"dev-vfio", CheckLevel::kWarn, container.string() + " is not writable by you",
                   "run as root, or add a udev rule giving your group /dev/vfio/*"});
  } else {
    out.push_back({"dev-vfio", CheckLevel::kOk, container.string() + " is accessible", ""});
  }
  const int euid = o.euid >= 0 ? o.euid : static_cast<int>(::geteuid());
  out.push_back(euid == 0
                    ? CheckResult{"root", CheckLevel::kOk, "running as root", ""}
                    : CheckResult{"root", CheckLevel::kInfo,
                                  "not root: binding devices, sysfs BAR access and full config "
                                  "space need root; VFIO needs only /dev/vfio access",
                                  ""});
  // Kernel lockdown forbids sysfs resource mmap and /dev/mem-like access.
  const std::string lockdown = slurp(sys / "kernel/security/lockdown");
  if (!lockdown.empty()) {
    const size_t a = lockdown.find('['), b = lockdown.find(']');
    const std::string mode =
        a != std::string::npos && b > a ? lockdown.substr(a + 1, b - a - 1) : lockdown;
    if (mode == "none")
      out.push_back({"lockdown", CheckLevel::kOk, "kernel lockdown off", ""});
    else
      out.push_back({"lockdown", CheckLevel::kWarn,
                     "kernel lockdown is '" + mode + "': sysfs BAR mmap is refused (VFIO works)",
                     "use VFIO; or boot without lockdown (Secure Boot enables it on some "
                     "distributions)"});
  }
  // Hugepages: pinned DMA memory in 2 MiB pages means fewer IOMMU entries.
  const std::string huge = slurp(sys / "kernel/mm/hugepages/hugepages-2048kB/nr_hugepages");
  if (!huge.empty()) {
    const long n = std::strtol(huge.c_str(), nullptr, 10);
    if (n > 0)
      out.push_back(
          {"hugepages", CheckLevel::kOk, strformat("%ld 2 MiB hugepages reserved", n), ""});
    else
      out.push_back({"hugepages", CheckLevel::kInfo,
                     "no 2 MiB hugepages reserved: DMA buffers use 4 KiB pages",
                     "echo 512 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"});
  }
  return out;
}

std::vector<CheckResult> device_checks(const DeviceInfo& d, const DoctorOptions& o) {
  std::vector<CheckResult> out;
  const std::string bdf = d.bdf.to_string();
  if (d.driver == "vfio-pci")
    out.push_back({"driver", CheckLevel::kOk, "bound to vfio-pci: rawgpu can open it", ""});
  else if (d.driver.empty())
    out.push_back(
        {"driver", CheckLevel::kInfo, "no driver bound", "rawgpu bind " + bdf + " --vfio"});
  else
    out.push_back({"driver", CheckLevel::kInfo, "bound to " + d.driver,
                   "rawgpu bind " + bdf + " --vfio (takes it from " + d.driver + ")"});

  if (!d.iommu_group) {
    out.push_back({"iommu-group", CheckLevel::kWarn, "no IOMMU group (the IOMMU is off)",
                   "enable the IOMMU (see the host checks)"});
  } else {
    std::string others;
    const fs::path devices = fs::path(o.sysfs_root) / "bus/pci/devices";
    for (const std::string& m : d.iommu_group_devices) {
      const std::string drv = link_name(devices / m / "driver");
      if (!drv.empty() && drv != "vfio-pci")
        others += (others.empty() ? "" : ", ") + m + " (" + drv + ")";
    }
    if (others.empty())
      out.push_back({"iommu-group", CheckLevel::kOk,
                     strformat("group %d: %zu other function(s), none bound to another driver",
                               *d.iommu_group, d.iommu_group_devices.size()),
                     ""});
    else
      out.push_back(
          {"iommu-group", CheckLevel::kWarn,
           strformat("group %d is not viable for VFIO while %s", *d.iommu_group, others.c_str()),
           "rawgpu bind " + bdf + " --vfio binds the whole group"});
  }

  if (d.config_bytes <= 64) {
    out.push_back({"capabilities", CheckLevel::kInfo,
                   "configuration space beyond 64 bytes needs root: link, ASPM and resizable "
                   "BAR not checked",
                   "run as root"});
    return out;
  }
  // BAR0 (VRAM on AMD, and on NVIDIA BAR1 is the VRAM aperture).
  const int vram_bar = d.is_nvidia() ? 1 : 0;
  uint64_t vram_bar_size = 0;
  for (const Bar& b : d.bars)
    if (b.index == vram_bar) vram_bar_size = b.size;
  const ResizableBarInfo* rebar = nullptr;
  for (const ResizableBarInfo& r : d.resizable_bars)
    if (r.bar == vram_bar) rebar = &r;
  if (d.is_candidate_gpu() && vram_bar_size > 0) {
    const uint64_t largest = rebar && !rebar->sizes.empty() ? rebar->sizes.back() : 0;
    if (vram_bar_size >= (uint64_t{1} << 30))
      out.push_back(
          {"bar", CheckLevel::kOk,
           strformat("BAR%d is %s (large BAR)", vram_bar, format_bytes(vram_bar_size).c_str()),
           ""});
    else if (largest > vram_bar_size)
      out.push_back({"bar", CheckLevel::kInfo,
                     strformat("BAR%d is %s, resizable up to %s", vram_bar,
                               format_bytes(vram_bar_size).c_str(), format_bytes(largest).c_str()),
                     "rawgpu resizes it when it takes the device (needs no driver bound)"});
    else
      out.push_back({"bar", CheckLevel::kWarn,
                     strformat("BAR%d is %s and not resizable: VRAM is reached through a small "
                               "window",
                               vram_bar, format_bytes(vram_bar_size).c_str()),
                     "enable Resizable BAR and Above 4G Decoding in the firmware setup"});
  }
  if (d.link) {
    const PcieLink& l = *d.link;
    if (l.aspm_l1 || l.aspm_l0s)
      out.push_back({"aspm", CheckLevel::kWarn,
                     std::string("ASPM ") + (l.aspm_l0s ? "L0s " : "") + (l.aspm_l1 ? "L1 " : "") +
                         "enabled on the link: in L1 some boards return all ones for register "
                         "reads",
                     "boot with pcie_aspm=off, or clear ASPM in Link Control of every bridge up "
                     "to the root port (setpci)"});
    else
      out.push_back({"aspm", CheckLevel::kOk, "ASPM off on the link", ""});
    if (l.downgraded())
      out.push_back(
          {"link", CheckLevel::kWarn,
           strformat("trained at %s x%u, capable of %s x%u", link_speed_name(l.speed).c_str(),
                     l.width, link_speed_name(l.max_speed).c_str(), l.max_width),
           "reseat the card or check the slot/riser (a USB4 bridge is x4 by design)"});
    else
      out.push_back({"link", CheckLevel::kOk,
                     strformat("%s x%u", link_speed_name(l.speed).c_str(), l.width), ""});
  }
  if (!d.msi && !d.msix)
    out.push_back({"msi", CheckLevel::kWarn, "no MSI or MSI-X capability: no interrupts",
                   "drivers poll instead"});
  return out;
}

}  // namespace rawgpu::pci
