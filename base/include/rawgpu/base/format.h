// String formatting helpers shared by errors, logs and tools (GCC 12 has no std::format).
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace rawgpu {

// printf into a std::string; the compiler checks the arguments against the format.
[[gnu::format(printf, 1, 2)]] std::string strformat(const char* fmt, ...);
std::string vstrformat(const char* fmt, va_list args);

// "0x00001000" style: value in hex with at least `digits` digits.
std::string hex(uint64_t value, int digits = 0);

// Human-readable byte count: exact in the largest unit that divides it when that takes at most
// four digits ("256 MiB", "1536 MiB", "1000 B"), otherwise two decimals ("1.00 GiB").
std::string format_bytes(uint64_t bytes);

// Longest prefix of untrusted text quote() copies into a message, in input bytes.
inline constexpr size_t kMaxQuotedBytes = 80;

// Untrusted text (a trace line, an ELF name, a command-line value) for an error message:
// 'text' with \\, \' and non-printable bytes escaped (\n, \t, \xNN); text longer than
// max_bytes is cut and marked: 'first 80 bytes'... (1234 bytes). So a corrupt file can put
// neither control characters nor megabytes of text into a message.
std::string quote(std::string_view text, size_t max_bytes = kMaxQuotedBytes);

struct HexdumpOptions {
  uint64_t base = 0;  // address printed for the first byte
  size_t bytes_per_line = 16;
  bool ascii = true;            // append a |....| column
  size_t max_bytes = SIZE_MAX;  // truncate long buffers ("... N more bytes")
};

// Classic hex dump, one line per row:
//   00001000: 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10  |................|
std::string hexdump(std::span<const uint8_t> bytes, const HexdumpOptions& options = {});

// 32-bit word dump for command streams and register blocks:
//   00000010: 00000000 c0032200 00000001 ...
std::string hexdump_words(std::span<const uint32_t> words, uint64_t base = 0,
                          size_t words_per_line = 8);

}  // namespace rawgpu
