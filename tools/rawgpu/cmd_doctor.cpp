// `rawgpu doctor [BDF]`: the host and per-GPU checks of drivers/pci/doctor.h with what to do
// about each — the IOMMU, vfio-pci, /dev/vfio, root, lockdown, hugepages; the driver, IOMMU
// group, BAR size, ASPM and link of each GPU.
#include <llvm/Support/JSON.h>

#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/pci/doctor.h"

namespace rawgpu::tools {
namespace {

void print_checks(std::ostream& os, const std::vector<pci::CheckResult>& checks) {
  for (const pci::CheckResult& c : checks) {
    os << strformat("  [%-4s] %-13s %s\n", std::string(pci::check_level_name(c.level)).c_str(),
                    c.name.c_str(), c.detail.c_str());
    if (!c.fix.empty()) os << "                       -> " << c.fix << "\n";
  }
}

void json_checks(llvm::json::OStream& j, const std::vector<pci::CheckResult>& checks) {
  j.attributeArray("checks", [&] {
    for (const pci::CheckResult& c : checks)
      j.object([&] {
        j.attribute("name", c.name);
        j.attribute("level", std::string(pci::check_level_name(c.level)));
        j.attribute("detail", c.detail);
        if (c.fix.empty())
          j.attribute("fix", nullptr);
        else
          j.attribute("fix", c.fix);
      });
  });
}

}  // namespace

cli::Command doctor_command() {
  cli::Command c;
  c.name = "doctor";
  c.summary = "check what stands between this machine and driving its GPUs (IOMMU, VFIO, BARs)";
  c.description =
      "Host checks (IOMMU, vfio-pci, /dev/vfio access, root, kernel lockdown, hugepages) and,\n"
      "for every AMD/NVIDIA GPU or the one given, its driver, IOMMU group viability, BAR size\n"
      "and resizable BAR, ASPM and the trained link — each with what to do. Exit 1 when a check\n"
      "fails or BDF is not a GPU here.";
  c.options = {
      {"json", 'j', "", "print JSON", ""},
      {"sysfs-root", 0, "DIR", "sysfs to inspect (tests)", "/sys"},
      {"proc-root", 0, "DIR", "procfs to inspect (tests)", "/proc"},
      {"dev-root", 0, "DIR", "/dev to inspect (tests)", "/dev"},
      {"libpci-dump", 0, "FILE", "config space from an `lspci -xxx` dump (tests)", ""},
  };
  c.positionals = {{"BDF", "only this GPU (e.g. 0000:03:00.0)", false, false}};
  c.run = [](const cli::Args& args, cli::Io& io) {
    std::optional<pci::Bdf> only;
    if (!args.positionals().empty()) {
      auto b = pci::Bdf::parse(args.positionals()[0]);
      if (!b) {
        io.err << "rawgpu doctor: " << b.error().message() << "\n";
        return cli::kExitUsage;
      }
      only = *b;
    }
    pci::DoctorOptions o;
    o.sysfs_root = *args.get("sysfs-root");
    o.proc_root = *args.get("proc-root");
    o.dev_root = *args.get("dev-root");
    pci::EnumerateOptions eo;
    eo.sysfs_root = o.sysfs_root;
    eo.libpci_dump = args.get("libpci-dump").value_or("");
    auto devices = pci::enumerate(eo);
    if (!devices) {
      io.err << "rawgpu doctor: " << devices.error().to_string() << "\n";
      return cli::kExitFailure;
    }
    const std::vector<pci::CheckResult> host = pci::host_checks(o);
    std::vector<std::pair<const pci::DeviceInfo*, std::vector<pci::CheckResult>>> per_device;
    for (const pci::DeviceInfo& d : *devices) {
      if (!d.is_candidate_gpu() || (only && d.bdf != *only)) continue;
      per_device.emplace_back(&d, pci::device_checks(d, o));
    }
    if (only && per_device.empty()) {
      io.err << "rawgpu doctor: " << only->to_string()
             << " is not an AMD or NVIDIA GPU on this machine (`rawgpu list` shows them)\n";
      return cli::kExitFailure;
    }
    bool failed = false;
    for (const auto& c : host) failed |= c.level == pci::CheckLevel::kFail;
    for (const auto& [d, checks] : per_device)
      for (const auto& c : checks) failed |= c.level == pci::CheckLevel::kFail;
    if (args.flag("json")) {
      io.out << json_document("doctor", [&](llvm::json::OStream& j) {
        j.attributeObject("host", [&] { json_checks(j, host); });
        j.attributeArray("devices", [&] {
          for (const auto& [d, checks] : per_device)
            j.object([&] {
              j.attribute("bdf", d->bdf.to_string());
              json_checks(j, checks);
            });
        });
        j.attribute("ok", !failed);
      });
    } else {
      io.out << "host\n";
      print_checks(io.out, host);
      for (const auto& [d, checks] : per_device) {
        io.out << d->bdf.to_string() << "  " << strformat("%04x:%04x", d->vendor_id, d->device_id)
               << "  " << (d->device_name.empty() ? "GPU" : d->device_name) << "\n";
        print_checks(io.out, checks);
      }
      if (per_device.empty()) io.out << "no AMD or NVIDIA GPU on this machine\n";
    }
    return failed ? cli::kExitFailure : cli::kExitOk;
  };
  return c;
}

}  // namespace rawgpu::tools
