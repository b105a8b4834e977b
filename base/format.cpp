#include "rawgpu/base/format.h"

#include <algorithm>
#include <cstdio>

namespace rawgpu {

std::string vstrformat(const char* fmt, va_list args) {
  char stack[256];
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(stack, sizeof(stack), fmt, copy);
  va_end(copy);
  if (n < 0) return std::string("<format error: ") + fmt + ">";
  if (static_cast<size_t>(n) < sizeof(stack)) return std::string(stack, static_cast<size_t>(n));
  std::string out(static_cast<size_t>(n), '\0');
  std::vsnprintf(out.data(), out.size() + 1, fmt, args);
  return out;
}

std::string strformat(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string out = vstrformat(fmt, args);
  va_end(args);
  return out;
}

std::string hex(uint64_t value, int digits) {
  return strformat("0x%0*llx", std::clamp(digits, 0, 16), static_cast<unsigned long long>(value));
}

std::string quote(std::string_view s, size_t max_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  const size_t n = s.size() < max_bytes ? s.size() : max_bytes;
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

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  uint64_t whole = bytes;
  while (whole >= 1024 && (whole % 1024) == 0) {
    whole /= 1024;
    ++unit;
  }
  // Exact in its largest whole unit and short enough to read ("1536 MiB"): print it exactly.
  if (whole < 10240)
    return strformat("%llu %s", static_cast<unsigned long long>(whole), kUnits[unit]);
  // Not exact at a small unit: show two decimals at the largest unit below the value.
  double v = static_cast<double>(bytes);
  unit = 0;
  while (v >= 1024.0 && unit < 6) {
    v /= 1024.0;
    ++unit;
  }
  return strformat("%.2f %s", v, kUnits[unit]);
}

std::string hexdump(std::span<const uint8_t> bytes, const HexdumpOptions& options) {
  const size_t per_line = std::max<size_t>(1, options.bytes_per_line);
  const size_t shown = std::min(bytes.size(), options.max_bytes);
  std::string out;
  out.reserve((shown / per_line + 1) * (per_line * 4 + 16));
  for (size_t off = 0; off < shown; off += per_line) {
    const size_t n = std::min(per_line, shown - off);
    out += strformat("%08llx:", static_cast<unsigned long long>(options.base + off));
    for (size_t i = 0; i < per_line; ++i) {
      if (i < n)
        out += strformat(" %02x", bytes[off + i]);
      else
        out += "   ";
    }
    if (options.ascii) {
      out += "  |";
      for (size_t i = 0; i < n; ++i) {
        const uint8_t c = bytes[off + i];
        out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '.';
      }
      out += "|";
    }
    out += "\n";
  }
  if (shown < bytes.size()) out += strformat("... %zu more bytes\n", bytes.size() - shown);
  return out;
}

std::string hexdump_words(std::span<const uint32_t> words, uint64_t base, size_t words_per_line) {
  const size_t per_line = std::max<size_t>(1, words_per_line);
  std::string out;
  for (size_t i = 0; i < words.size(); i += per_line) {
    out += strformat("%08llx:", static_cast<unsigned long long>(base + i * 4));
    for (size_t j = i; j < std::min(words.size(), i + per_line); ++j)
      out += strformat(" %08x", words[j]);
    out += "\n";
  }
  return out;
}

}  // namespace rawgpu
