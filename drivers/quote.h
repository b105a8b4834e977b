// Quoting untrusted names (ELF section, symbol and kernel names) in error messages: printable,
// escaped, and bounded, so a corrupt file cannot put control characters or megabytes of text into
// a message. Internal to drivers/ (a shared helper may replace it in base/format.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rawgpu::drivers::detail {

// Longest prefix of an untrusted name quoted in a message, in input bytes.
inline constexpr size_t kMaxQuotedBytes = 80;

// 'name' with \\, \' and non-printable bytes escaped (\n, \t, \xNN); a name longer than
// kMaxQuotedBytes is cut and marked: 'first 80 bytes'... (1234 bytes).
inline std::string quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  const size_t n = s.size() < kMaxQuotedBytes ? s.size() : kMaxQuotedBytes;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += char(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += char(c);
    }
  }
  out += '\'';
  if (n < s.size()) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

}  // namespace rawgpu::drivers::detail
