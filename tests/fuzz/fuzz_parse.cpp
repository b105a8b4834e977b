// Fuzz target for base/'s text parsers (sizes, integers, RAWGPU_DEBUG specs, PCI addresses).
// Invariants beyond "no crash": successful parses round-trip through the formatters.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/base/parse.h"
#include "rawgpu/drivers/pci/device_info.h"

namespace {
void require(bool cond, const char* what) {
  if (!cond) {
    __builtin_printf("fuzz_parse invariant violated: %s\n", what);
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rawgpu;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (auto v = parse_u64(text); v.ok()) {
    auto again = parse_u64(std::to_string(*v));
    require(again.ok() && *again == *v, "parse_u64 decimal round trip");
    auto hexed = parse_u64(hex(*v));
    require(hexed.ok() && *hexed == *v, "parse_u64 hex round trip");
  } else {
    require(v.error().is(Errc::kParse) || v.error().is(Errc::kOverflow), "parse_u64 error code");
  }

  if (auto s = parse_size(text); s.ok()) {
    const std::string formatted = format_bytes(*s);
    if (formatted.find('.') == std::string::npos) {  // exact formats must parse back
      auto back = parse_size(formatted);
      require(back.ok() && *back == *s, "format_bytes/parse_size round trip");
    }
  }

  if (auto c = log::parse_config(text); c.ok()) {
    require(c->global_level >= 0 && c->global_level <= log::kMaxLevel, "log level range");
    for (const auto& [tag, level] : c->tag_levels)
      require(!tag.empty() && level >= 0 && level <= log::kMaxLevel, "tag level range");
  }

  if (auto b = pci::Bdf::parse(text); b.ok()) {
    auto again = pci::Bdf::parse(b->to_string());
    require(again.ok() && *again == *b, "Bdf round trip");
  }
  return 0;
}
