// A small command-line parser for the `rawgpu` tool: subcommands, each with its own options and
// --help. (LLVM's cl:: library registers options globally, so every linked library's options
// would leak into every subcommand's help; this keeps options local and testable.)
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"

namespace rawgpu::cli {

struct Option {
  std::string name;     // long name without dashes: "json" -> --json
  char short_name = 0;  // optional: 'j' -> -j
  std::string metavar;  // empty: a boolean flag; otherwise the option takes a value
  std::string help;
  std::string default_value;  // shown in help; returned by Args::get when not given
};

struct Positional {
  std::string name;
  std::string help;
  bool required = true;
  bool repeated = false;  // swallows the remaining positionals
};

class Args {
 public:
  bool flag(std::string_view name) const;
  // The option's value, its default, or nullopt.
  std::optional<std::string> get(std::string_view name) const;
  Result<uint64_t> get_u64(std::string_view name) const;
  Result<uint64_t> get_size(std::string_view name) const;  // accepts units: 16GiB
  // get_u64 that also rejects values outside [min, max], naming the option and the range (a
  // usage error: report it with kExitUsage before doing any work).
  Result<uint64_t> get_u64_in(std::string_view name, uint64_t min, uint64_t max) const;
  const std::vector<std::string>& positionals() const { return positionals_; }
  bool help_requested() const { return help_; }

 private:
  friend struct Parser;
  std::map<std::string, std::string, std::less<>> values_;  // flags store "1"
  std::map<std::string, std::string, std::less<>> defaults_;
  std::vector<std::string> positionals_;
  bool help_ = false;
};

struct Io {
  std::ostream& out;
  std::ostream& err;
};

struct Command {
  std::string name;
  std::string summary;      // one line, for the command list
  std::string description;  // paragraphs for `rawgpu NAME --help`
  std::vector<Option> options;
  std::vector<Positional> positionals;
  // Returns the process exit code: 0 success, 1 runtime failure, 2 usage error (a bad value found
  // while validating the arguments, before any work starts).
  std::function<int(const Args&, Io&)> run;
  // A command with subcommands (`rawgpu bench tlsf`) has no options or run of its own: its first
  // argument names the subcommand, which parses the rest with its own options and help.
  std::vector<Command> subcommands;
};

// Exit codes, the same for every command (the conventions of the LLVM tools and nvidia-smi).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the work was attempted and failed
inline constexpr int kExitUsage = 2;    // bad command line; nothing was done

// Parses argv (without the program and command names). Errors are kInvalidArgument with a
// message naming the offending argument.
Result<Args> parse(const Command& command, std::span<const std::string> argv);

// `program` is the full command path for usage lines: "rawgpu bench".
std::string usage(std::string_view program, const Command& command);
std::string overview(std::string_view program, std::span<const Command> commands);
// Extra text at the end of `rawgpu --help` (the environment variables); set by the tool.
void set_overview_epilogue(std::string text);

// Dispatches: `prog CMD [SUB] [args]`, `prog help [CMD [SUB]]`, `prog --help`, `prog CMD --help`,
// `prog --version` (prints `version_line`). Exit codes: the command's, or kExitUsage.
int main(std::string_view program, std::span<const Command> commands,
         std::span<const std::string> argv, Io& io, std::string_view version_line = {});

}  // namespace rawgpu::cli
