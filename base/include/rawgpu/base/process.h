// Finding and running external programs (ptxas, llvm tools) without a shell.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"

namespace rawgpu {

// Looks `name` up in $PATH, then in `extra_dirs`; returns the absolute path of the first
// executable regular file found.
std::optional<std::string> find_executable(std::string_view name,
                                           const std::vector<std::string>& extra_dirs = {});

struct CommandResult {
  int exit_code = -1;  // -1 if killed by a signal
  int signal = 0;
  std::string output;  // stdout and stderr, interleaved, truncated at max_output bytes
};

struct CommandOptions {
  std::chrono::milliseconds timeout{10000};
  size_t max_output = 1 << 20;
};

// Runs argv[0] (a path) with arguments, capturing output. Errors: kInvalidArgument for an empty
// argv, kIo if the program cannot be started, kTimeout if it runs past the timeout (it is
// killed). A nonzero exit is not an error: inspect exit_code.
Result<CommandResult> run_command(const std::vector<std::string>& argv,
                                  const CommandOptions& options = {});

}  // namespace rawgpu
