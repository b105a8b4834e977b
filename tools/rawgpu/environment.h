// What the environment offers rawgpu: optional tools and firmware packages.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rawgpu::tools {

struct FoundTool {
  std::string path;
  std::string version;  // first line that carries a version, or empty
};

// ptxas from $PATH or /usr/local/cuda/bin (optional: NVPTX cubins need it).
std::optional<FoundTool> find_ptxas();

struct FirmwareSet {
  std::string name;                  // "amdgpu gfx1100"
  std::string package;               // Debian package that ships it
  std::vector<std::string> files;    // files looked for (first existing variant reported)
  std::vector<std::string> missing;  // subset of files not found
};

// Firmware rawgpu's drivers need, per supported chip, and whether it is installed under root.
std::vector<FirmwareSet> check_firmware(const std::string& root = "/lib/firmware");

// LLVM version and the targets the linked LLVM was built with.
std::string llvm_version();
std::vector<std::string> llvm_built_targets();
// Registers LLVM's target infos and looks up the triples rawgpu emits code for; returns the
// missing ones (empty = all present).
std::vector<std::string> llvm_missing_targets();

}  // namespace rawgpu::tools
