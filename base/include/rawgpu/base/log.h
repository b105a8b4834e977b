// Logging with levels and per-subsystem tags.
//
// Levels: 0 = errors and warnings (always shown), 1 = info (device found, firmware loaded),
// 2 = per operation (kernel launches with timings), 3 = detail (allocations, mappings),
// 4 = dumps (generated IR, command streams), 5 = traces (every register access, rewrite hits).
//
// Controlled by RAWGPU_DEBUG: a global level, optionally followed by per-tag levels:
//   RAWGPU_DEBUG=2            everything up to level 2
//   RAWGPU_DEBUG=1,pci=5,mmu=3
// Messages go to stderr as "rawgpu[tag] message", or to a sink installed by tests.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rawgpu/base/error.h"

namespace rawgpu::log {

constexpr int kMaxLevel = 5;

struct Config {
  int global_level = 0;
  std::vector<std::pair<std::string, int>> tag_levels;  // overrides, later entries win
  std::vector<std::string> unknown_tags;                // tags no subsystem logs under
  int max_level() const;                                // the highest level anything is enabled at
};

// The tags rawgpu's subsystems log under, with what each covers (`rawgpu --help` lists them;
// a test checks every tag used in the tree is here).
struct Tag {
  std::string_view name;
  std::string_view covers;
};
std::span<const Tag> known_tags();
bool is_known_tag(std::string_view tag);

// Parses a RAWGPU_DEBUG value. Levels are 0..5; tags are [a-z0-9_.-]+. A well-formed tag that is
// not in known_tags() is kept (it costs nothing) and also listed in Config::unknown_tags.
Result<Config> parse_config(std::string_view spec);

// Replaces the active configuration (tests; tools with a --debug flag).
void set_config(Config config);
// (Re)reads RAWGPU_DEBUG; a malformed value is reported once as a warning and ignored, and each
// unknown tag is named in a warning that lists the known ones.
void configure_from_env();
const Config& config();

bool enabled_slow(std::string_view tag, int level);
// Fast check used by RG_LOG before any formatting happens.
inline bool enabled(std::string_view tag, int level) {
  extern int g_max_level;
  return level <= 0 || (level <= g_max_level && enabled_slow(tag, level));
}

using Sink = std::function<void(std::string_view tag, int level, std::string_view message)>;
// Installs a sink (nullptr restores stderr). Returns the previous sink.
Sink set_sink(Sink sink);

void write(std::string_view tag, int level, std::string_view message);
[[gnu::format(printf, 3, 4)]] void writef(std::string_view tag, int level, const char* fmt, ...);

}  // namespace rawgpu::log

// RG_LOG(tag, level, fmt, ...): arguments are only evaluated when the level is enabled.
#define RG_LOG(tag, level, ...)                           \
  do {                                                    \
    if (::rawgpu::log::enabled((tag), (level)))           \
      ::rawgpu::log::writef((tag), (level), __VA_ARGS__); \
  } while (0)
#define RG_WARN(tag, ...) RG_LOG(tag, 0, __VA_ARGS__)
