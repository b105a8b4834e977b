#include "fake_pci.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace rawgpu::testing {
namespace fs = std::filesystem;

std::vector<uint8_t> FakePciFunction::config_space() const {
  std::vector<uint8_t> c(extended_config ? 4096 : 256);
  auto put16 = [&](int off, uint16_t v) {
    c[off] = static_cast<uint8_t>(v);
    c[off + 1] = static_cast<uint8_t>(v >> 8);
  };
  auto put32 = [&](int off, uint32_t v) {
    for (int i = 0; i < 4; ++i) c[off + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  put16(0x00, vendor);
  put16(0x02, device);
  put16(0x04, 0x0007);  // command: io, mem, bus master
  c[0x08] = revision;
  c[0x09] = static_cast<uint8_t>(class_code);
  c[0x0a] = static_cast<uint8_t>(class_code >> 8);
  c[0x0b] = static_cast<uint8_t>(class_code >> 16);
  c[0x0e] = 0x00;  // header type 0
  for (const auto& [index, value] : bar_registers) put32(0x10 + 4 * index, value);
  put16(0x2c, subsys_vendor);
  put16(0x2e, subsys_device);
  for (const auto& [off, bytes] : config_patches)
    for (size_t i = 0; i < bytes.size() && off + i < c.size(); ++i) c[off + i] = bytes[i];
  return c;
}

FakePciSystem::FakePciSystem(std::vector<FakePciFunction> functions) {
  std::string tmpl = (fs::temp_directory_path() / "rawgpu-fakepci-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  root_ = tmpl;
  std::ofstream dump(root_ / "lspci.dump");
  const fs::path devices = root_ / "sys/bus/pci/devices";
  fs::create_directories(devices);
  fs::create_directories(root_ / "sys/bus/pci/drivers");
  fs::create_directories(root_ / "sys/kernel/iommu_groups");
  std::ofstream(root_ / "sys/bus/pci/drivers_probe");
  add_driver("vfio-pci");  // the module is loaded
  for (const FakePciFunction& f : functions) {
    // lspci -xxx format: a header line with the address, then 16 bytes per line.
    dump << f.bdf << " Fake device\n";
    const auto cfg = f.config_space();
    for (size_t row = 0; row < cfg.size(); row += 16) {
      char line[80];
      int n = row < 256 ? std::snprintf(line, sizeof(line), "%02zx:", row)
                        : std::snprintf(line, sizeof(line), "%03zx:", row);
      for (int i = 0; i < 16; ++i)
        n += std::snprintf(line + n, sizeof(line) - n, " %02x", cfg[row + i]);
      dump << line << "\n";
    }
    dump << "\n";
    // As on Linux: the device directory lives under devices/, bus/pci/devices/BDF links to it,
    // so the relative driver and iommu_group links resolve.
    const fs::path dir = root_ / "sys/devices/pci0000:00" / f.bdf;
    fs::create_directories(dir);
    fs::create_directory_symlink("../../../devices/pci0000:00/" + f.bdf, devices / f.bdf);
    for (const char* attr : {"driver_override", "enable", "reset", "remove"})
      std::ofstream(dir / attr);
    {
      const auto bytes = f.config_space();
      std::ofstream(dir / "config", std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
    for (size_t i = 0; i < f.resources.size() && i < 6; ++i) {
      const auto& r = f.resources[i];
      if (r[1] == 0 || (r[2] & 0x200) == 0) continue;  // unused, or not memory
      std::ofstream(dir / ("resource" + std::to_string(i)));
      fs::resize_file(dir / ("resource" + std::to_string(i)), r[1] - r[0] + 1);
    }
    for (const auto& [bar, mask] : f.resize_masks) {
      char text[32];
      std::snprintf(text, sizeof text, "%016llx\n", static_cast<unsigned long long>(mask));
      std::ofstream(dir / ("resource" + std::to_string(bar) + "_resize")) << text;
    }
    if (!f.driver.empty()) {
      add_driver(f.driver);
      fs::create_directory_symlink("../../../bus/pci/drivers/" + f.driver, dir / "driver");
    }
    for (const std::string& node : f.drm_nodes) fs::create_directories(dir / "drm" / node);
    if (f.boot_vga) std::ofstream(dir / "boot_vga") << "1\n";
    if (f.iommu_group >= 0) {
      const std::string g = std::to_string(f.iommu_group);
      fs::create_directories(root_ / "sys/kernel/iommu_groups" / g);
      fs::create_directory_symlink("../../../kernel/iommu_groups/" + g, dir / "iommu_group");
      fs::create_directories(root_ / "sys/kernel/iommu_groups" / g / "devices");
      fs::create_directory_symlink("../../../../bus/pci/devices/" + f.bdf,
                                   root_ / "sys/kernel/iommu_groups" / g / "devices" / f.bdf);
    }
    if (!f.resources.empty()) {
      std::ofstream res(dir / "resource");
      for (const auto& r : f.resources) {
        char line[80];
        std::snprintf(line, sizeof(line), "0x%016llx 0x%016llx 0x%016llx\n",
                      static_cast<unsigned long long>(r[0]), static_cast<unsigned long long>(r[1]),
                      static_cast<unsigned long long>(r[2]));
        res << line;
      }
    }
  }
}

void FakePciSystem::add_driver(const std::string& name) {
  const fs::path d = root_ / "sys/bus/pci/drivers" / name;
  fs::create_directories(d);
  for (const char* attr : {"bind", "unbind", "new_id"})
    if (!fs::exists(d / attr)) std::ofstream(d / attr);
}

void FakePciSystem::add_process(int pid, const std::string& comm,
                                const std::vector<std::string>& open_files) {
  const fs::path p = root_ / "proc" / std::to_string(pid);
  fs::create_directories(p / "fd");
  std::ofstream(p / "comm") << comm << "\n";
  int fd = 3;
  for (const std::string& f : open_files) fs::create_symlink(f, p / "fd" / std::to_string(fd++));
}

FakePciSystem::~FakePciSystem() {
  std::error_code ec;
  fs::remove_all(root_, ec);
}

}  // namespace rawgpu::testing
