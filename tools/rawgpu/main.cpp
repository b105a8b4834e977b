#include <iostream>
#include <string>
#include <vector>

#include "commands.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::vector<rawgpu::cli::Command> commands = rawgpu::tools::all_commands();
  rawgpu::cli::Io io{std::cout, std::cerr};
  rawgpu::cli::set_overview_epilogue(rawgpu::tools::environment_help());
  const int rc = rawgpu::cli::main("rawgpu", commands, args, io, rawgpu::tools::version_line());
  std::cout.flush();
  return rc;
}
