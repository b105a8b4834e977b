#include <llvm/Support/JSON.h>

#include <sstream>

#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/pci/config_space.h"

namespace rawgpu::tools {

namespace {

std::string bar_text(const pci::Bar& b) {
  std::string kind = b.io ? "io" : (b.is_64bit ? "mem64" : "mem32");
  if (b.prefetchable) kind += " pref";
  return strformat("BAR%d %s %s @ %s", b.index, format_bytes(b.size).c_str(), kind.c_str(),
                   hex(b.address).c_str());
}

// How rawgpu can reach the function today, most direct first. Names only access paths that
// exist in this build: VFIO (bound now, or after `rawgpu bind`), the nvidia kernel driver's RM
// interface, sysfs resource files (root, no DMA protection).
std::vector<std::string> access_paths(const pci::DeviceInfo& d) {
  std::vector<std::string> a;
  if (d.driver == "vfio-pci")
    a.push_back("vfio");
  else if (d.iommu_group)
    a.push_back("vfio-after-bind");
  if (d.driver == "nvidia") a.push_back("nvidia-rm");
  a.push_back("sysfs");
  return a;
}

std::string link_text(const pci::PcieLink& l) {
  std::string s = strformat("link %s x%u", pci::link_speed_name(l.speed).c_str(), l.width);
  if (l.downgraded())
    s += strformat(" (capable of %s x%u: trained below it)",
                   pci::link_speed_name(l.max_speed).c_str(), l.max_width);
  if (l.aspm_l1 || l.aspm_l0s)
    s += strformat(
        "; ASPM %s%s%s on (a link in L1 can make register reads return all ones: "
        "pcie_aspm=off)",
        l.aspm_l0s ? "L0s" : "", l.aspm_l0s && l.aspm_l1 ? "+" : "", l.aspm_l1 ? "L1" : "");
  return s;
}

}  // namespace

std::string render_devices_text(const std::vector<pci::DeviceInfo>& devices, bool display_only) {
  std::ostringstream os;
  size_t gpus = 0;
  for (const pci::DeviceInfo& d : devices) {
    if (d.is_candidate_gpu()) ++gpus;
    os << d.bdf.to_string() << "  " << strformat("%04x:%04x", d.vendor_id, d.device_id) << "  "
       << (d.vendor_name.empty() ? "unknown vendor" : d.vendor_name) << " "
       << (d.device_name.empty() ? "unknown device" : d.device_name) << "\n";
    os << "    class " << strformat("%06x", d.class_code)
       << (d.class_name.empty() ? "" : " (" + d.class_name + ")")
       << strformat("  rev %02x", d.revision)
       << "  driver: " << (d.driver.empty() ? "none" : d.driver)
       << "  iommu group: " << (d.iommu_group ? std::to_string(*d.iommu_group) : "none") << "\n";
    if (d.known != nullptr) {
      os << "    rawgpu: known " << d.known->chip << " " << d.known->target << " ("
         << pci::family_name(d.known->family) << ")\n";
    } else if (d.is_candidate_gpu()) {
      os << "    rawgpu: " << (d.is_amd() ? "AMD" : "NVIDIA")
         << " GPU not in rawgpu's table (identified when opened)\n";
    }
    for (const pci::Bar& b : d.bars) os << "    " << bar_text(b) << "\n";
    if (d.link) os << "    " << link_text(*d.link) << "\n";
    for (const pci::ResizableBarInfo& r : d.resizable_bars)
      os << strformat("    resizable BAR%d: %s now, %s..%s\n", r.bar,
                      format_bytes(r.current).c_str(),
                      r.sizes.empty() ? "?" : format_bytes(r.sizes.front()).c_str(),
                      r.sizes.empty() ? "?" : format_bytes(r.sizes.back()).c_str());
    if (!d.iommu_group_devices.empty()) {
      os << "    iommu group " << *d.iommu_group << " also holds";
      for (const std::string& m : d.iommu_group_devices) os << " " << m;
      os << "\n";
    }
    if (d.is_candidate_gpu()) {
      os << "    access:";
      for (const std::string& a : access_paths(d)) os << " " << a;
      if (d.config_bytes > 0 && d.config_bytes <= 64) os << "  (capabilities need root)";
      os << "\n";
    }
  }
  if (gpus == 0) {
    os << "No AMD or NVIDIA GPU found (" << devices.size()
       << (display_only ? " PCI display device(s)" : " PCI device(s)")
       << "). rawgpu's tests run against the simulated GPUs in sim/.\n";
  } else {
    os << gpus << " AMD/NVIDIA GPU(s) found.\n";
  }
  return os.str();
}

std::string render_devices_json(const std::vector<pci::DeviceInfo>& devices) {
  size_t gpus = 0;
  return json_document("list", [&](llvm::json::OStream& j) {
    j.attributeArray("devices", [&] {
      for (const pci::DeviceInfo& d : devices) {
        if (d.is_candidate_gpu()) ++gpus;
        j.object([&] {
          j.attribute("bdf", d.bdf.to_string());
          j.attribute("vendor_id", strformat("0x%04x", d.vendor_id));
          j.attribute("device_id", strformat("0x%04x", d.device_id));
          j.attribute("subsystem_vendor_id", strformat("0x%04x", d.subsystem_vendor_id));
          j.attribute("subsystem_id", strformat("0x%04x", d.subsystem_id));
          j.attribute("revision", d.revision);
          j.attribute("class", strformat("0x%06x", d.class_code));
          j.attribute("vendor", d.vendor_name);
          j.attribute("device", d.device_name);
          j.attribute("class_name", d.class_name);
          if (d.driver.empty())
            j.attribute("driver", nullptr);
          else
            j.attribute("driver", d.driver);
          if (d.iommu_group)
            j.attribute("iommu_group", *d.iommu_group);
          else
            j.attribute("iommu_group", nullptr);
          j.attributeArray("bars", [&] {
            for (const pci::Bar& b : d.bars) {
              j.object([&] {
                j.attribute("index", b.index);
                j.attribute("address", hex(b.address));
                j.attribute("size", static_cast<int64_t>(b.size));
                j.attribute("io", b.io);
                j.attribute("is_64bit", b.is_64bit);
                j.attribute("prefetchable", b.prefetchable);
              });
            }
          });
          j.attribute("gpu", d.is_candidate_gpu());
          j.attribute("config_bytes", static_cast<int64_t>(d.config_bytes));
          if (d.link) {
            j.attributeObject("link", [&] {
              auto gts = [](uint8_t c) -> llvm::json::Value {
                if (auto g = pci::link_speed_gts(c)) return *g;
                return nullptr;
              };
              j.attribute("speed_gts", gts(d.link->speed));
              j.attribute("width", d.link->width);
              j.attribute("max_speed_gts", gts(d.link->max_speed));
              j.attribute("max_width", d.link->max_width);
              j.attribute("downgraded", d.link->downgraded());
              j.attribute("aspm_l0s", d.link->aspm_l0s);
              j.attribute("aspm_l1", d.link->aspm_l1);
            });
          } else {
            j.attribute("link", nullptr);
          }
          j.attributeArray("resizable_bars", [&] {
            for (const pci::ResizableBarInfo& r : d.resizable_bars)
              j.object([&] {
                j.attribute("bar", r.bar);
                j.attribute("current", static_cast<int64_t>(r.current));
                j.attributeArray("sizes", [&] {
                  for (uint64_t sz : r.sizes) j.value(static_cast<int64_t>(sz));
                });
              });
          });
          j.attribute("msi", d.msi);
          j.attribute("msix", d.msix);
          j.attributeArray("iommu_group_devices", [&] {
            for (const std::string& m : d.iommu_group_devices) j.value(m);
          });
          j.attributeArray("access", [&] {
            for (const std::string& a : access_paths(d)) j.value(a);
          });
          if (d.known != nullptr) {
            j.attributeObject("rawgpu", [&] {
              j.attribute("chip", d.known->chip);
              j.attribute("target", d.known->target);
              j.attribute("family", std::string(pci::family_name(d.known->family)));
            });
          } else {
            j.attribute("rawgpu", nullptr);
          }
        });
      }
    });
    j.attribute("gpu_count", static_cast<int64_t>(gpus));
  });
}

cli::Command list_command() {
  cli::Command c;
  c.name = "list";
  c.summary = "list PCI GPUs (IDs, names, driver, IOMMU group, BARs)";
  c.description =
      "Enumerates PCI display-class devices through libpci and sysfs, and marks the AMD and\n"
      "NVIDIA GPUs rawgpu knows. Prints a clear line when there are none. Exit code 0 unless\n"
      "PCI enumeration itself fails.";
  c.options = {
      {"json", 'j', "", "print JSON instead of text", ""},
      {"all", 'a', "", "include every PCI device, not only display controllers", ""},
      {"sysfs-root", 0, "DIR",
       "read sysfs from DIR (debugging, tests); default /sys, and none with --libpci-dump", ""},
      {"libpci-dump", 0, "FILE",
       "read config space from an `lspci -xxx` dump (debugging, tests); the devices then get "
       "driver, IOMMU group and BAR sizes only from --sysfs-root, never from this machine",
       ""},
  };
  c.run = [](const cli::Args& args, cli::Io& io) {
    pci::EnumerateOptions opts;
    opts.sysfs_root = args.get("sysfs-root").value_or("");
    opts.libpci_dump = args.get("libpci-dump").value_or("");
    opts.display_only = !args.flag("all");
    auto devices = pci::enumerate(opts);
    if (!devices.ok()) {
      io.err << "rawgpu list: " << devices.error().to_string() << "\n";
      return cli::kExitFailure;
    }
    io.out << (args.flag("json") ? render_devices_json(*devices)
                                 : render_devices_text(*devices, opts.display_only));
    return cli::kExitOk;
  };
  return c;
}

}  // namespace rawgpu::tools
