// `rawgpu bind BDF --vfio` and `rawgpu release BDF`: hand a GPU (and the other functions of its
// IOMMU group) to vfio-pci, and give it back to the kernel's own drivers.
#include <llvm/Support/JSON.h>

#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/pci/takeover.h"

namespace rawgpu::tools {
namespace {

pci::SysfsOptions sysfs_options(const cli::Args& args) {
  pci::SysfsOptions o;
  if (auto root = args.get("sysfs-root")) o.sysfs_root = *root;
  if (auto proc = args.get("proc-root")) o.proc_root = *proc;
  return o;
}

std::vector<cli::Option> root_options() {
  return {
      {"sysfs-root", 0, "DIR", "sysfs to act on (tests)", "/sys"},
      {"proc-root", 0, "DIR", "procfs to find the GPU's users in (tests)", "/proc"},
      {"json", 'j', "", "print JSON", ""},
  };
}

}  // namespace

cli::Command bind_command() {
  cli::Command c;
  c.name = "bind";
  c.summary = "give a GPU to vfio-pci (its whole IOMMU group), so rawgpu can drive it";
  c.description =
      "Writes vfio-pci to the function's driver_override, unbinds its driver and asks the kernel\n"
      "to probe again, for the GPU and every other function of its IOMMU group (HDMI audio), so\n"
      "that the group is viable. Refuses while processes hold the GPU's DRM nodes (named) or when\n"
      "it drives the boot display, unless --force. On failure everything is given back. Needs\n"
      "root. `rawgpu release BDF` undoes it.";
  c.options = {{"vfio", 0, "", "bind to vfio-pci (the only binding there is; required)", ""},
               {"force", 'f', "", "bind even when the GPU is in use or drives the display", ""}};
  for (auto& o : root_options()) c.options.push_back(o);
  c.positionals = {{"BDF", "PCI address, e.g. 0000:03:00.0 or 03:00.0", true, false}};
  c.run = [](const cli::Args& args, cli::Io& io) {
    auto bdf = pci::Bdf::parse(args.positionals()[0]);
    if (!bdf) {
      io.err << "rawgpu bind: " << bdf.error().message() << "\n";
      return cli::kExitUsage;
    }
    if (!args.flag("vfio")) {
      io.err << "rawgpu bind: say --vfio (binding to vfio-pci is what rawgpu does)\n";
      return cli::kExitUsage;
    }
    pci::BindOptions bo;
    bo.force = args.flag("force");
    auto r = pci::bind_vfio(*bdf, sysfs_options(args), bo);
    if (!r) {
      io.err << "rawgpu bind: " << r.error().to_string() << "\n";
      return cli::kExitFailure;
    }
    if (args.flag("json")) {
      io.out << json_document("bind", [&](llvm::json::OStream& j) {
        j.attribute("bdf", bdf->to_string());
        j.attributeArray("bound", [&] {
          for (size_t i = 0; i < r->functions.size(); ++i)
            j.object([&] {
              j.attribute("bdf", r->functions[i]);
              if (r->previous[i].empty())
                j.attribute("previous_driver", nullptr);
              else
                j.attribute("previous_driver", r->previous[i]);
            });
        });
      });
    } else if (r->functions.empty()) {
      io.out << bdf->to_string() << " and its IOMMU group are bound to vfio-pci already\n";
    } else {
      for (size_t i = 0; i < r->functions.size(); ++i)
        io.out << strformat("%s: %s -> vfio-pci\n", r->functions[i].c_str(),
                            r->previous[i].empty() ? "no driver" : r->previous[i].c_str());
    }
    return cli::kExitOk;
  };
  return c;
}

cli::Command release_command() {
  cli::Command c;
  c.name = "release";
  c.summary = "give a GPU bound to vfio-pci back to the kernel's driver";
  c.description =
      "Clears driver_override, unbinds vfio-pci and asks the kernel to probe again, for the GPU\n"
      "and the other vfio-pci functions of its IOMMU group: the kernel binds the driver that\n"
      "matches each (amdgpu, nvidia, snd_hda_intel). Needs root.";
  c.options = root_options();
  c.positionals = {{"BDF", "PCI address, e.g. 0000:03:00.0 or 03:00.0", true, false}};
  c.run = [](const cli::Args& args, cli::Io& io) {
    auto bdf = pci::Bdf::parse(args.positionals()[0]);
    if (!bdf) {
      io.err << "rawgpu release: " << bdf.error().message() << "\n";
      return cli::kExitUsage;
    }
    const pci::SysfsOptions o = sysfs_options(args);
    if (Status st = pci::release(*bdf, o); !st.ok()) {
      io.err << "rawgpu release: " << st.error().to_string() << "\n";
      return cli::kExitFailure;
    }
    auto driver = pci::bound_driver(*bdf, o);
    const std::string now = driver ? *driver : std::string();
    if (args.flag("json")) {
      io.out << json_document("release", [&](llvm::json::OStream& j) {
        j.attribute("bdf", bdf->to_string());
        if (now.empty())
          j.attribute("driver", nullptr);
        else
          j.attribute("driver", now);
      });
    } else {
      io.out << strformat("%s: now %s\n", bdf->to_string().c_str(),
                          now.empty() ? "bound to no driver" : ("bound to " + now).c_str());
    }
    return cli::kExitOk;
  };
  return c;
}

}  // namespace rawgpu::tools
