#include <libusb.h>
// libpci 3.9 headers declare C functions without extern "C".
extern "C" {
#include <pci/pci.h>
}

#include <llvm/Support/JSON.h>

#include <sstream>

#include "commands.h"
#include "environment.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "version.h"

namespace rawgpu::tools {

std::string version_line() {
  std::ostringstream os;
  os << "rawgpu " << RAWGPU_VERSION << " (C++" << __cplusplus / 100 % 100 << ", "
#if defined(__clang__)
     << "clang " << __clang_major__ << "." << __clang_minor__ << "." << __clang_patchlevel__
#else
     << "gcc " << __GNUC__ << "." << __GNUC_MINOR__ << "." << __GNUC_PATCHLEVEL__
#endif
#ifdef NDEBUG
     << ", release"
#else
     << ", assertions on"
#endif
     << ")";
  return os.str();
}

cli::Command version_command() {
  cli::Command c;
  c.name = "version";
  c.summary = "print versions of rawgpu, LLVM and the optional tools found";
  c.description =
      "Prints rawgpu's version and build, the LLVM it links and its targets, libpci and libusb\n"
      "versions, and which optional tools (ptxas) and firmware packages are present.";
  c.options = {{"json", 'j', "", "print JSON", ""}};
  c.run = [](const cli::Args& args, cli::Io& io) {
    const libusb_version* uv = libusb_get_version();
    const std::string libpci = strformat("%d.%d.%d", PCI_LIB_VERSION >> 16,
                                         (PCI_LIB_VERSION >> 8) & 0xff, PCI_LIB_VERSION & 0xff);
    const std::string libusb = strformat("%u.%u.%u", uv->major, uv->minor, uv->micro);
    const auto ptxas = find_ptxas();
    const std::vector<FirmwareSet> firmware = check_firmware();
    auto firmware_state = [](const FirmwareSet& s) -> std::string {
      if (s.missing.empty()) return "present";
      if (s.missing.size() == s.files.size()) return "not installed";
      return "incomplete";
    };
    if (args.flag("json")) {
      io.out << json_document("version", [&](llvm::json::OStream& j) {
        j.attribute("rawgpu", RAWGPU_VERSION);
        j.attribute("build", version_line());
        j.attribute("llvm", llvm_version());
        j.attributeArray("llvm_targets", [&] {
          for (const std::string& t : llvm_built_targets()) j.value(t);
        });
        j.attribute("libpci", libpci);
        j.attribute("libusb", libusb);
        if (ptxas)
          j.attributeObject("ptxas", [&] {
            j.attribute("path", ptxas->path);
            j.attribute("version", ptxas->version);
          });
        else
          j.attribute("ptxas", nullptr);
        j.attributeArray("firmware", [&] {
          for (const FirmwareSet& s : firmware)
            j.object([&] {
              j.attribute("name", s.name);
              j.attribute("package", s.package);
              j.attribute("state", firmware_state(s));
              if (!s.missing.empty()) j.attribute("first_missing", s.missing.front());
            });
        });
      });
      return cli::kExitOk;
    }
    io.out << version_line() << "\n";
    std::string targets;
    for (const std::string& t : llvm_built_targets()) targets += (targets.empty() ? "" : " ") + t;
    io.out << "LLVM " << llvm_version() << " (targets: " << targets << ")\n";
    io.out << "libpci " << libpci << "\n";
    io.out << "libusb " << libusb << "\n";
    if (ptxas)
      io.out << "ptxas: " << ptxas->path
             << (ptxas->version.empty() ? "" : " (" + ptxas->version + ")") << "\n";
    else
      io.out << "ptxas: not found (NVPTX output stays PTX; install CUDA or nvidia-cuda-toolkit)\n";
    for (const FirmwareSet& s : firmware) {
      io.out << "firmware " << s.name << ": ";
      const std::string state = firmware_state(s);
      if (state == "present")
        io.out << "present\n";
      else if (state == "not installed")
        io.out << "not installed (Debian package " << s.package << ")\n";
      else
        io.out << "incomplete, missing " << s.missing.front() << " (Debian package " << s.package
               << ")\n";
    }
    return cli::kExitOk;
  };
  return c;
}

}  // namespace rawgpu::tools
