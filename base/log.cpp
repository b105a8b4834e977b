#include "rawgpu/base/log.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "rawgpu/base/parse.h"

namespace rawgpu::log {

int g_max_level = 0;

namespace {

struct State {
  std::mutex mu;
  Config config;
  Sink sink;
};

State& state() {
  static State* s = [] {
    auto* st = new State();  // leaked on purpose: usable from static destructors
    return st;
  }();
  return *s;
}

bool valid_tag_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

Result<int> parse_level(std::string_view text, std::string_view item) {
  auto level = parse_u64(text);
  if (!level.ok() || *level > static_cast<uint64_t>(kMaxLevel))
    return make_error(Errc::kParse, "bad level in '%.*s': expected 0..%d",
                      static_cast<int>(item.size()), item.data(), kMaxLevel);
  return static_cast<int>(*level);
}

// Runs once before main (and again whenever configure_from_env is called).
[[maybe_unused]] const bool g_env_loaded = [] {
  configure_from_env();
  return true;
}();

constexpr Tag kTags[] = {
    {"amd", "the AMD driver and the simulated AMD GPU's device side"},
    {"beam", "BEAM kernel-opt search: candidates, timings, cache hits"},
    {"compiler", "scheduling, kernels compiled, compile times"},
    {"emu", "the RDNA wave emulator"},
    {"llvm", "generated LLVM IR and target code (level 4)"},
    {"mmu", "page tables: maps, unmaps, TLB invalidations"},
    {"nv", "the NVIDIA kernel-driver path and the simulated NVIDIA GPU (channel errors)"},
    {"pci", "PCI enumeration and device access"},
    {"rewrite", "rewrite-engine pattern hits (level 5)"},
    {"runtime", "the device layer: devices started, profiling"},
    {"schedule", "the scheduler's kernel boundaries"},
};

}  // namespace

std::span<const Tag> known_tags() { return kTags; }

bool is_known_tag(std::string_view tag) {
  for (const Tag& t : kTags)
    if (t.name == tag) return true;
  return false;
}

int Config::max_level() const {
  int m = global_level;
  for (const auto& [tag, level] : tag_levels) m = std::max(m, level);
  return m;
}

Result<Config> parse_config(std::string_view spec) {
  Config c;
  bool have_global = false;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string_view::npos) comma = spec.size();
    std::string_view item = spec.substr(pos, comma - pos);
    pos = comma + 1;
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) {
      if (comma == spec.size()) break;
      continue;
    }
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      if (have_global)
        return make_error(Errc::kParse, "RAWGPU_DEBUG has two global levels ('%.*s')",
                          static_cast<int>(item.size()), item.data());
      c.global_level = RG_TRY(parse_level(item, item));
      have_global = true;
      continue;
    }
    const std::string_view tag = item.substr(0, eq);
    if (tag.empty())
      return make_error(Errc::kParse, "empty tag in RAWGPU_DEBUG item '%.*s'",
                        static_cast<int>(item.size()), item.data());
    for (char ch : tag)
      if (!valid_tag_char(ch))
        return make_error(Errc::kParse,
                          "bad tag in RAWGPU_DEBUG item '%.*s': tags are lower-case [a-z0-9_.-]",
                          static_cast<int>(item.size()), item.data());
    const int level = RG_TRY(parse_level(item.substr(eq + 1), item));
    c.tag_levels.emplace_back(std::string(tag), level);
    if (!is_known_tag(tag) &&
        std::find(c.unknown_tags.begin(), c.unknown_tags.end(), tag) == c.unknown_tags.end())
      c.unknown_tags.emplace_back(tag);
  }
  return c;
}

void set_config(Config config) {
  State& s = state();
  std::lock_guard lock(s.mu);
  s.config = std::move(config);
  g_max_level = s.config.max_level();
}

void configure_from_env() {
  const char* env = std::getenv("RAWGPU_DEBUG");
  if (env == nullptr) {
    set_config(Config{});
    return;
  }
  auto parsed = parse_config(env);
  if (!parsed.ok()) {
    std::fprintf(stderr, "rawgpu[log] warning: ignoring RAWGPU_DEBUG: %s\n",
                 parsed.error().to_string().c_str());
    set_config(Config{});
    return;
  }
  if (!parsed->unknown_tags.empty()) {
    std::string known;
    for (const Tag& t : kTags) known += (known.empty() ? "" : ", ") + std::string(t.name);
    for (const std::string& t : parsed->unknown_tags)
      std::fprintf(stderr,
                   "rawgpu[log] warning: RAWGPU_DEBUG names tag '%s', which nothing logs under "
                   "(known tags: %s)\n",
                   t.c_str(), known.c_str());
  }
  set_config(std::move(parsed).take_value());
}

const Config& config() { return state().config; }

bool enabled_slow(std::string_view tag, int level) {
  State& s = state();
  std::lock_guard lock(s.mu);
  int effective = s.config.global_level;
  for (const auto& [t, l] : s.config.tag_levels)
    if (t == tag) effective = l;
  return level <= effective;
}

Sink set_sink(Sink sink) {
  State& s = state();
  std::lock_guard lock(s.mu);
  std::swap(s.sink, sink);
  return sink;
}

void write(std::string_view tag, int level, std::string_view message) {
  State& s = state();
  std::lock_guard lock(s.mu);
  if (s.sink) {
    s.sink(tag, level, message);
    return;
  }
  std::fprintf(stderr, "rawgpu[%.*s]%s %.*s\n", static_cast<int>(tag.size()), tag.data(),
               level <= 0 ? " warning:" : "", static_cast<int>(message.size()), message.data());
}

void writef(std::string_view tag, int level, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string message = vstrformat(fmt, args);
  va_end(args);
  write(tag, level, message);
}

}  // namespace rawgpu::log
