#include "rawgpu/cli.h"

#include <algorithm>
#include <sstream>

#include "rawgpu/base/parse.h"

namespace rawgpu::cli {

bool Args::flag(std::string_view name) const { return values_.find(name) != values_.end(); }

std::optional<std::string> Args::get(std::string_view name) const {
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  if (auto it = defaults_.find(name); it != defaults_.end() && !it->second.empty())
    return it->second;
  return std::nullopt;
}

Result<uint64_t> Args::get_u64(std::string_view name) const {
  auto v = get(name);
  if (!v)
    return make_error(Errc::kNotFound, "option --%.*s was not given", static_cast<int>(name.size()),
                      name.data());
  return parse_u64(*v).context(strformat("in --%.*s", static_cast<int>(name.size()), name.data()));
}

Result<uint64_t> Args::get_size(std::string_view name) const {
  auto v = get(name);
  if (!v)
    return make_error(Errc::kNotFound, "option --%.*s was not given", static_cast<int>(name.size()),
                      name.data());
  return parse_size(*v).context(strformat("in --%.*s", static_cast<int>(name.size()), name.data()));
}

Result<uint64_t> Args::get_u64_in(std::string_view name, uint64_t min, uint64_t max) const {
  const uint64_t v = RG_TRY(get_u64(name));
  if (v < min || v > max)
    return make_error(Errc::kInvalidArgument, "--%.*s %llu is out of range: expected %llu..%llu",
                      static_cast<int>(name.size()), name.data(),
                      static_cast<unsigned long long>(v), static_cast<unsigned long long>(min),
                      static_cast<unsigned long long>(max));
  return v;
}

struct Parser {
  static Result<Args> run(const Command& cmd, std::span<const std::string> argv) {
    Args args;
    for (const Option& o : cmd.options)
      if (!o.default_value.empty()) args.defaults_[o.name] = o.default_value;
    auto find_long = [&](std::string_view n) -> const Option* {
      for (const Option& o : cmd.options)
        if (o.name == n) return &o;
      return nullptr;
    };
    auto find_short = [&](char c) -> const Option* {
      for (const Option& o : cmd.options)
        if (o.short_name != 0 && o.short_name == c) return &o;
      return nullptr;
    };
    bool only_positionals = false;
    for (size_t i = 0; i < argv.size(); ++i) {
      const std::string& a = argv[i];
      if (only_positionals || a.size() < 2 || a[0] != '-') {
        args.positionals_.push_back(a);
        continue;
      }
      if (a == "--") {
        only_positionals = true;
        continue;
      }
      if (a == "--help" || a == "-h") {
        args.help_ = true;
        continue;
      }
      const Option* opt = nullptr;
      std::optional<std::string> inline_value;
      if (a.rfind("--", 0) == 0) {
        std::string_view body = std::string_view(a).substr(2);
        const size_t eq = body.find('=');
        if (eq != std::string_view::npos) {
          inline_value = std::string(body.substr(eq + 1));
          body = body.substr(0, eq);
        }
        opt = find_long(body);
      } else if (a.size() == 2) {
        opt = find_short(a[1]);
      }
      if (opt == nullptr)
        return make_error(Errc::kInvalidArgument, "unknown option '%s' for '%s'", a.c_str(),
                          cmd.name.c_str());
      if (opt->metavar.empty()) {
        if (inline_value)
          return make_error(Errc::kInvalidArgument, "option --%s takes no value",
                            opt->name.c_str());
        args.values_[opt->name] = "1";
        continue;
      }
      if (!inline_value) {
        if (i + 1 >= argv.size())
          return make_error(Errc::kInvalidArgument, "option --%s needs a value (%s)",
                            opt->name.c_str(), opt->metavar.c_str());
        inline_value = argv[++i];
      }
      args.values_[opt->name] = *inline_value;
    }
    if (args.help_) return args;
    // Positional arity.
    size_t required = 0;
    bool repeated = false;
    for (const Positional& p : cmd.positionals) {
      required += p.required ? 1 : 0;
      repeated = repeated || p.repeated;
    }
    if (args.positionals_.size() < required)
      return make_error(Errc::kInvalidArgument, "'%s' needs %zu argument(s), got %zu",
                        cmd.name.c_str(), required, args.positionals_.size());
    if (!repeated && args.positionals_.size() > cmd.positionals.size())
      return make_error(Errc::kInvalidArgument, "unexpected argument '%s' for '%s'",
                        args.positionals_[cmd.positionals.size()].c_str(), cmd.name.c_str());
    return args;
  }
};

Result<Args> parse(const Command& command, std::span<const std::string> argv) {
  return Parser::run(command, argv);
}

namespace {

std::string& epilogue() {
  static std::string text;
  return text;
}

std::string pad(std::string_view s, size_t width) {
  return std::string(s.size() < width ? width - s.size() : 1, ' ');
}

void list_subcommands(std::ostream& os, const Command& command) {
  os << "\ncommands:\n";
  for (const Command& c : command.subcommands)
    os << "  " << c.name << pad(c.name, 12) << c.summary << "\n";
}

const Command* find_in(std::span<const Command> commands, std::string_view name) {
  for (const Command& c : commands)
    if (c.name == name) return &c;
  return nullptr;
}

std::string names_of(std::span<const Command> commands) {
  std::string s;
  for (size_t i = 0; i < commands.size(); ++i)
    s += (i == 0 ? "" : i + 1 == commands.size() ? " or " : ", ") + commands[i].name;
  return s;
}

// `parent` is "rawgpu" or "rawgpu bench"; argv starts after the command's own name.
int run_command(const std::string& parent, const Command& c, std::span<const std::string> argv,
                Io& io) {
  const std::string path = parent + " " + c.name;
  if (!c.subcommands.empty()) {
    if (argv.empty()) {
      io.err << path << ": which one? (" << names_of(c.subcommands) << ")\n\n" << usage(parent, c);
      return kExitUsage;
    }
    if (argv[0] == "--help" || argv[0] == "-h") {
      io.out << usage(parent, c);
      return kExitOk;
    }
    const Command* sub = find_in(c.subcommands, argv[0]);
    if (sub == nullptr) {
      io.err << path << ": unknown " << c.name << " command '" << argv[0] << "' (expected "
             << names_of(c.subcommands) << ")\n"
             << "Run '" << path << " --help' for usage.\n";
      return kExitUsage;
    }
    return run_command(path, *sub, argv.subspan(1), io);
  }
  auto args = parse(c, argv);
  if (!args.ok()) {
    io.err << path << ": " << args.error().message() << "\n"
           << "Run '" << path << " --help' for usage.\n";
    return kExitUsage;
  }
  if (args->help_requested()) {
    io.out << usage(parent, c);
    return kExitOk;
  }
  return c.run(*args, io);
}

}  // namespace

void set_overview_epilogue(std::string text) { epilogue() = std::move(text); }

std::string usage(std::string_view program, const Command& command) {
  std::ostringstream os;
  const std::string path = std::string(program) + " " + command.name;
  os << "usage: " << path;
  if (!command.subcommands.empty()) {
    os << " COMMAND [options]\n\n" << command.summary << "\n";
    if (!command.description.empty()) os << "\n" << command.description << "\n";
    list_subcommands(os, command);
    os << "\nRun '" << path << " COMMAND --help' for a command's options.\n";
    return os.str();
  }
  if (!command.options.empty()) os << " [options]";
  for (const Positional& p : command.positionals) {
    os << " " << (p.required ? "" : "[") << p.name << (p.repeated ? "..." : "")
       << (p.required ? "" : "]");
  }
  os << "\n\n" << command.summary << "\n";
  if (!command.description.empty()) os << "\n" << command.description << "\n";
  if (!command.positionals.empty()) {
    os << "\narguments:\n";
    for (const Positional& p : command.positionals)
      os << "  " << p.name << pad(p.name, 22) << p.help << "\n";
  }
  os << "\noptions:\n";
  std::vector<Option> all = command.options;
  all.push_back(Option{"help", 'h', "", "show this help", ""});
  for (const Option& o : all) {
    std::string left = o.short_name != 0 ? std::string("-") + o.short_name + ", " : "    ";
    left += "--" + o.name;
    if (!o.metavar.empty()) left += " " + o.metavar;
    os << "  " << left << pad(left, 24) << o.help;
    if (!o.default_value.empty()) os << " (default: " << o.default_value << ")";
    os << "\n";
  }
  return os.str();
}

std::string overview(std::string_view program, std::span<const Command> commands) {
  std::ostringstream os;
  os << "usage: " << program << " COMMAND [options]\n"
     << "       " << program << " --version\n\n"
     << "rawgpu: userspace GPU drivers and a tensor compiler.\n\ncommands:\n";
  for (const Command& c : commands) {
    os << "  " << c.name << pad(c.name, 12) << c.summary << "\n";
    for (const Command& s : c.subcommands)
      os << "    " << s.name << pad(s.name, 10) << s.summary << "\n";
  }
  os << "  help        show help for a command\n\n"
     << "Run '" << program << " COMMAND --help' for a command's options.\n";
  os << epilogue();
  return os.str();
}

int main(std::string_view program, std::span<const Command> commands,
         std::span<const std::string> argv, Io& io, std::string_view version_line) {
  const std::string prog(program);
  if (argv.empty()) {
    io.err << overview(program, commands);
    return kExitUsage;
  }
  const std::string& name = argv[0];
  if (name == "--help" || name == "-h") {
    io.out << overview(program, commands);
    return kExitOk;
  }
  if (name == "--version" || name == "-V") {
    if (argv.size() > 1) {
      io.err << prog << ": --version takes no arguments\n";
      return kExitUsage;
    }
    io.out << version_line << (version_line.empty() || version_line.back() == '\n' ? "" : "\n");
    return kExitOk;
  }
  if (name == "help") {
    if (argv.size() == 1) {
      io.out << overview(program, commands);
      return kExitOk;
    }
    const Command* c = find_in(commands, argv[1]);
    std::string parent = prog;
    for (size_t i = 2; c != nullptr && i < argv.size(); ++i) {
      parent += " " + c->name;
      c = find_in(c->subcommands, argv[i]);
    }
    if (c == nullptr) {
      std::string asked;
      for (size_t i = 1; i < argv.size(); ++i) asked += (i > 1 ? " " : "") + argv[i];
      io.err << prog << ": unknown command '" << asked << "'\n";
      return kExitUsage;
    }
    io.out << usage(parent, *c);
    return kExitOk;
  }
  const Command* c = find_in(commands, name);
  if (c == nullptr) {
    io.err << prog << ": unknown command '" << name << "'\n\n" << overview(program, commands);
    return kExitUsage;
  }
  return run_command(prog, *c, argv.subspan(1), io);
}

}  // namespace rawgpu::cli
