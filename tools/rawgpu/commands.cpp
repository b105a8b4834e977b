#include "commands.h"

#include "rawgpu/base/env.h"
#include "rawgpu/base/log.h"

namespace rawgpu::tools {

// Every subcommand of `rawgpu`, in the order `rawgpu --help` lists them.
std::vector<cli::Command> all_commands() {
  return {
      list_command(),   version_command(), selfcheck_command(),  doctor_command(),
      bench_command(),  compile_command(), demo_command(),       inspect_command(),
      bind_command(),   release_command(), info_command(),       regs_command(),
      fwinfo_command(), boot_command(),    trace_boot_command(),
  };
}

std::string environment_help() {
  std::string s = "\nenvironment:\n";
  for (const env::Variable& v : env::variables()) {
    std::string left = std::string(v.name) + "=" + std::string(v.values);
    s += "  " + left + std::string(left.size() < 30 ? 30 - left.size() : 1, ' ') +
         std::string(v.help) + "\n";
  }
  s += "\nRAWGPU_DEBUG tags:\n";
  for (const log::Tag& t : log::known_tags())
    s += "  " + std::string(t.name) +
         std::string(t.name.size() < 10 ? 10 - t.name.size() : 1, ' ') + std::string(t.covers) +
         "\n";
  s += "Example: RAWGPU_DEBUG=2, or RAWGPU_DEBUG=1,pci=5,mmu=3\n";
  s += "\nexit status: 0 success, 1 the work failed, 2 bad command line (nothing was done).\n";
  return s;
}

}  // namespace rawgpu::tools
