// rawgpu's environment variables: one registry (what `rawgpu --help` lists; a test checks that
// every RAWGPU_* variable the tree reads is in it) and readers that say when a value is malformed
// instead of silently falling back to the default.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace rawgpu::env {

struct Variable {
  std::string_view name;    // "RAWGPU_BEAM"
  std::string_view values;  // "N", "0|1", "DIR"
  std::string_view help;    // one line
};

std::span<const Variable> variables();

// The value of an unsigned integer variable in [min, max] (parse.h syntax: decimal, 0x..),
// nullopt when unset or empty. A malformed or out-of-range value is reported once per variable
// as a warning on stderr naming the variable, the value and the accepted range, then treated as
// unset.
std::optional<uint64_t> read_u64(const char* name, uint64_t min, uint64_t max);
// "1" is true, "0" false; unset or empty is `fallback`; anything else warns once and is
// `fallback`.
bool read_flag(const char* name, bool fallback = false);

}  // namespace rawgpu::env
