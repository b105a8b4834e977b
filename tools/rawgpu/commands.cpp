#include "commands.h"

namespace rawgpu::tools {

// Every subcommand of `rawgpu`, in the order `rawgpu --help` lists them.
std::vector<cli::Command> all_commands() {
  return {
      list_command(),    version_command(), selfcheck_command(), bench_command(),
      compile_command(), demo_command(),    inspect_command(),
  };
}

}  // namespace rawgpu::tools
