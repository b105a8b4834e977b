// PCI enumeration: what `rawgpu list` shows, and how the drivers find their devices.
//
// Enumeration goes through libpci (IDs, class, names from pci.ids, BAR addresses) and sysfs
// (bound kernel driver, IOMMU group, BAR sizes from `resource`). Both sources are
// configurable so tests can run it on a libpci config-space dump and a fake sysfs tree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"

namespace rawgpu::pci {

inline constexpr uint16_t kVendorAmd = 0x1002;
inline constexpr uint16_t kVendorNvidia = 0x10de;

// Domain:bus:device.function, e.g. 0000:03:00.0.
struct Bdf {
  uint32_t domain = 0;
  uint8_t bus = 0;
  uint8_t device = 0;    // 0..31
  uint8_t function = 0;  // 0..7

  std::string to_string() const;
  // Accepts "0000:03:00.0" and the short "03:00.0" (domain 0).
  static Result<Bdf> parse(std::string_view text);
  friend auto operator<=>(const Bdf&, const Bdf&) = default;
};

struct Bar {
  int index = 0;         // BAR register index 0..5 (a 64-bit BAR occupies index and index+1)
  uint64_t address = 0;  // bus address as assigned by the firmware/OS
  uint64_t size = 0;
  bool io = false;  // I/O space rather than memory
  bool is_64bit = false;
  bool prefetchable = false;
};

enum class GpuFamily {
  kUnknown,
  kAmdRdna3,
  kAmdRdna4,
  kAmdCdna3,
  kNvAmpere,
  kNvAda,
  kNvHopper,
};

// A GPU rawgpu knows by PCI ID. The authoritative identification happens when the driver opens
// the device (AMD IP discovery, NVIDIA PMC_BOOT_42); this table is what `list` can say early.
struct KnownGpu {
  uint16_t vendor;
  uint16_t device;
  const char* chip;    // "Navi31", "GH100"
  const char* target;  // LLVM / ptxas target: "gfx1100", "sm_90"
  GpuFamily family;
};

// Looks a GPU up by PCI ID; nullptr if rawgpu does not know it.
const KnownGpu* find_known_gpu(uint16_t vendor, uint16_t device);
std::span<const KnownGpu> known_gpus();
std::string_view family_name(GpuFamily f);

// The function's PCI Express link (from its PCIe capability).
struct PcieLink {
  uint8_t speed = 0, max_speed = 0;        // speed codes (1 = 2.5 GT/s ... 6 = 64 GT/s)
  uint8_t width = 0, max_width = 0;        // lanes
  bool aspm_l0s = false, aspm_l1 = false;  // enabled in Link Control
  bool downgraded() const { return speed < max_speed || width < max_width; }
};

struct ResizableBarInfo {
  int bar = 0;
  std::vector<uint64_t> sizes;  // supported, bytes
  uint64_t current = 0;
};

struct DeviceInfo {
  Bdf bdf;
  uint16_t vendor_id = 0;
  uint16_t device_id = 0;
  uint16_t subsystem_vendor_id = 0;
  uint16_t subsystem_id = 0;
  uint8_t revision = 0;
  uint32_t class_code = 0;  // 24 bits: base class, subclass, programming interface
  std::string vendor_name;  // from pci.ids, empty if unknown
  std::string device_name;
  std::string class_name;
  std::string driver;  // bound kernel driver ("amdgpu", "nvidia", "vfio-pci"), empty if none
  std::optional<int> iommu_group;
  std::vector<Bar> bars;  // implemented BARs only
  const KnownGpu* known = nullptr;
  // From configuration space, as far as it could be read: 64 bytes without root (then no
  // capabilities), 256 or 4096 with.
  uint32_t config_bytes = 0;
  std::optional<PcieLink> link;
  std::vector<ResizableBarInfo> resizable_bars;
  bool msi = false, msix = false;
  // The other functions in its IOMMU group (sysfs), sorted.
  std::vector<std::string> iommu_group_devices;

  uint8_t base_class() const { return static_cast<uint8_t>(class_code >> 16); }
  bool is_display() const { return base_class() == 0x03; }
  bool is_amd() const { return vendor_id == kVendorAmd; }
  bool is_nvidia() const { return vendor_id == kVendorNvidia; }
  // An AMD or NVIDIA display controller: something rawgpu could drive.
  bool is_candidate_gpu() const { return is_display() && (is_amd() || is_nvidia()); }
};

struct EnumerateOptions {
  // Root of the sysfs tree; tests point this at a fake tree. Empty: "/sys" when enumerating the
  // live system, and no sysfs at all with a libpci dump (a dump describes another machine: its
  // devices get no driver, IOMMU group or sysfs BAR sizes unless a sysfs tree is given too).
  std::string sysfs_root;
  // If set, libpci reads config space from this `lspci -x`-style dump instead of the system.
  std::string libpci_dump;
  // pci.ids location override; empty = libpci's default.
  std::string pci_ids;
  // Only display-class devices (base class 0x03).
  bool display_only = true;
};

// Enumerates PCI devices sorted by BDF. A machine without PCI access (no sysfs, a container)
// is an error; a machine without GPUs is an empty list. A dump or sysfs root that is missing, of
// the wrong kind (a directory given as the dump) or unreadable is an error that says which
// (kNotFound, kInvalidArgument, kPermission, or kIo with the OS's reason).
Result<std::vector<DeviceInfo>> enumerate(const EnumerateOptions& options = {});

}  // namespace rawgpu::pci
