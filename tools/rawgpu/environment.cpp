#include "environment.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>

#include <filesystem>

#include "rawgpu/base/process.h"

namespace rawgpu::tools {

std::optional<FoundTool> find_ptxas() {
  auto path = find_executable("ptxas", {"/usr/local/cuda/bin"});
  if (!path) return std::nullopt;
  FoundTool tool{*path, ""};
  auto r = run_command({*path, "--version"}, CommandOptions{std::chrono::milliseconds(5000)});
  if (r.ok() && r->exit_code == 0) {
    // The line naming the release: "Cuda compilation tools, release 13.0, V13.0.88".
    std::string_view out = r->output;
    while (!out.empty()) {
      const size_t nl = out.find('\n');
      const std::string_view line = out.substr(0, nl);
      if (line.find("release") != std::string_view::npos) {
        tool.version = std::string(line);
        break;
      }
      if (nl == std::string_view::npos) break;
      out.remove_prefix(nl + 1);
    }
  }
  return tool;
}

std::vector<FirmwareSet> check_firmware(const std::string& root) {
  namespace fs = std::filesystem;
  // The files each driver path loads first; the full lists live with the drivers.
  std::vector<FirmwareSet> sets = {
      {"amdgpu gfx1100 (Navi31)",
       "firmware-amd-graphics",
       {"amdgpu/psp_13_0_0_sos.bin", "amdgpu/smu_13_0_0.bin", "amdgpu/gc_11_0_0_mec.bin",
        "amdgpu/sdma_6_0_0.bin"},
       {}},
      {"amdgpu gfx1201 (Navi48)",
       "firmware-amd-graphics",
       {"amdgpu/psp_14_0_3_sos.bin", "amdgpu/smu_14_0_3.bin", "amdgpu/gc_12_0_1_mec.bin",
        "amdgpu/sdma_7_0_1.bin"},
       {}},
      {"amdgpu gfx942 (MI300X)",
       "firmware-amd-graphics",
       {"amdgpu/psp_13_0_6_sos.bin", "amdgpu/gc_9_4_3_mec.bin", "amdgpu/sdma_4_4_2.bin"},
       {}},
      {"nvidia GSP-RM 535.113.01 (ga102/ad102)",
       "firmware-nvidia-graphics",
       {"nvidia/ga102/gsp/gsp-535.113.01.bin", "nvidia/ad102/gsp/gsp-535.113.01.bin",
        "nvidia/ga102/gsp/booter_load-535.113.01.bin"},
       {}},
  };
  for (FirmwareSet& s : sets) {
    for (const std::string& f : s.files) {
      std::error_code ec;
      const fs::path p = fs::path(root) / f;
      // Newer firmware packages compress files; any variant counts.
      const bool present = fs::exists(p, ec) || fs::exists(p.string() + ".zst", ec) ||
                           fs::exists(p.string() + ".xz", ec);
      if (!present) s.missing.push_back(f);
    }
  }
  return sets;
}

std::string llvm_version() { return LLVM_VERSION_STRING; }

std::vector<std::string> llvm_built_targets() {
  return {
#define LLVM_TARGET(name) #name,
#include <llvm/Config/Targets.def>
  };
}

std::vector<std::string> llvm_missing_targets() {
  llvm::InitializeAllTargetInfos();
  std::vector<std::string> missing;
  for (const char* triple :
       {"amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda", "x86_64-unknown-linux-gnu"}) {
    std::string err;
    if (llvm::TargetRegistry::lookupTarget(triple, err) == nullptr) missing.push_back(triple);
  }
  return missing;
}

}  // namespace rawgpu::tools
