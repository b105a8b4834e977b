// Builds libpci config-space dumps and fake sysfs trees for enumeration tests.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace rawgpu::testing {

struct FakePciFunction {
  std::string bdf;  // "0000:03:00.0"
  uint16_t vendor = 0, device = 0;
  uint32_t class_code = 0;  // 24-bit
  uint8_t revision = 0;
  uint16_t subsys_vendor = 0, subsys_device = 0;
  // (register index, raw 32-bit BAR register value)
  std::vector<std::pair<int, uint32_t>> bar_registers;
  // sysfs extras (written only to the fake sysfs tree)
  std::string driver;  // empty: none bound
  int iommu_group = -1;
  std::vector<std::array<uint64_t, 3>> resources;  // start, end, flags per BAR line
  std::vector<std::string> drm_nodes;              // "card0", "renderD128"
  // Bytes written over the generated header (capabilities), and a 4096-byte (extended) space.
  std::vector<std::pair<int, std::vector<uint8_t>>> config_patches;
  bool extended_config = false;
  // sysfs resourceN_resize contents (bit n: 2^n MiB supported), per BAR.
  std::vector<std::pair<int, uint64_t>> resize_masks;
  bool boot_vga = false;

  std::vector<uint8_t> config_space() const;  // 256 or 4096 bytes
};

// A temporary directory with a libpci dump file and a sysfs tree; removed on destruction.
class FakePciSystem {
 public:
  explicit FakePciSystem(std::vector<FakePciFunction> functions);
  ~FakePciSystem();
  std::string dump_path() const { return (root_ / "lspci.dump").string(); }
  std::string sysfs_root() const { return (root_ / "sys").string(); }
  // An empty directory for a fake /dev.
  std::string dev_root() const { return (root_ / "dev").string(); }
  const std::filesystem::path& root() const { return root_; }
  std::string proc_root() const { return (root_ / "proc").string(); }
  // A loaded driver: sys/bus/pci/drivers/NAME with its bind/unbind attributes.
  void add_driver(const std::string& name);
  // A process (proc/PID/comm, fd/N links to `open_files`).
  void add_process(int pid, const std::string& comm, const std::vector<std::string>& open_files);

 private:
  std::filesystem::path root_;
};

}  // namespace rawgpu::testing
