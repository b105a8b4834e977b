#include <libusb.h>
// libpci 3.9 headers declare C functions without extern "C".
extern "C" {
#include <pci/pci.h>
}

#include <sstream>

#include "commands.h"
#include "environment.h"
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
  c.run = [](const cli::Args&, cli::Io& io) {
    io.out << version_line() << "\n";
    std::string targets;
    for (const std::string& t : llvm_built_targets()) targets += (targets.empty() ? "" : " ") + t;
    io.out << "LLVM " << llvm_version() << " (targets: " << targets << ")\n";
    io.out << strformat("libpci %d.%d.%d\n", PCI_LIB_VERSION >> 16, (PCI_LIB_VERSION >> 8) & 0xff,
                        PCI_LIB_VERSION & 0xff);
    const libusb_version* uv = libusb_get_version();
    io.out << strformat("libusb %u.%u.%u\n", uv->major, uv->minor, uv->micro);
    if (auto ptxas = find_ptxas())
      io.out << "ptxas: " << ptxas->path
             << (ptxas->version.empty() ? "" : " (" + ptxas->version + ")") << "\n";
    else
      io.out << "ptxas: not found (NVPTX output stays PTX; install CUDA or nvidia-cuda-toolkit)\n";
    for (const FirmwareSet& s : check_firmware()) {
      io.out << "firmware " << s.name << ": ";
      if (s.missing.empty())
        io.out << "present\n";
      else if (s.missing.size() == s.files.size())
        io.out << "not installed (Debian package " << s.package << ")\n";
      else
        io.out << "incomplete, missing " << s.missing.front() << " (Debian package " << s.package
               << ")\n";
    }
    return 0;
  };
  return c;
}

}  // namespace rawgpu::tools
