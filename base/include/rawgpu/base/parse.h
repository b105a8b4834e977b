// Parsers for small user-supplied strings (sizes, integers). Untrusted input: every failure is a
// typed Errc::kParse / kOverflow error naming the offending text.
#pragma once

#include <cstdint>
#include <string_view>

#include "rawgpu/base/error.h"

namespace rawgpu {

// Unsigned integer in decimal, hex (0x...), octal (0o...) or binary (0b...); '_' and '\''
// separators are allowed between digits.
Result<uint64_t> parse_u64(std::string_view text);

// A size: an integer as above, optionally followed by a unit: B, K/KB/KiB, M/MB/MiB, G/GB/GiB,
// T/TB/TiB, P/PB/PiB, E/EB/EiB (all binary, case-insensitive), e.g. "4096", "0x1000", "2M", "16
// GiB".
Result<uint64_t> parse_size(std::string_view text);

}  // namespace rawgpu
