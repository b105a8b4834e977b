#include "rawgpu/base/parse.h"

#include <cctype>

#include "rawgpu/base/format.h"

namespace rawgpu {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

bool ieq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

Result<uint64_t> parse_u64(std::string_view text) {
  const std::string_view s = trim(text);
  std::string_view digits = s;
  unsigned base = 10;
  if (digits.size() > 2 && digits[0] == '0') {
    const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(digits[1])));
    if (p == 'x') base = 16;
    if (p == 'o') base = 8;
    if (p == 'b') base = 2;
    if (base != 10) digits.remove_prefix(2);
  }
  if (digits.empty())
    return make_error(Errc::kParse, "expected an unsigned integer, got %s", quote(text).c_str());
  uint64_t value = 0;
  bool prev_digit = false;
  for (size_t i = 0; i < digits.size(); ++i) {
    const char c = digits[i];
    if (c == '_' || c == '\'') {
      // Separators only between two digits.
      if (!prev_digit || i + 1 == digits.size())
        return make_error(Errc::kParse, "misplaced digit separator in %s", quote(text).c_str());
      prev_digit = false;
      continue;
    }
    const int d = digit_value(c);
    if (d >= static_cast<int>(base))
      return make_error(Errc::kParse, "invalid base-%u digit '%c' in %s", base,
                        std::isprint(static_cast<unsigned char>(c)) ? c : '?', quote(text).c_str());
    if (__builtin_mul_overflow(value, base, &value) ||
        __builtin_add_overflow(value, static_cast<uint64_t>(d), &value))
      return make_error(Errc::kOverflow, "%s does not fit in 64 bits", quote(text).c_str());
    prev_digit = true;
  }
  return value;
}

Result<uint64_t> parse_size(std::string_view text) {
  std::string_view s = trim(text);
  // Split number and unit: the unit is the trailing run of letters, unless the number is hex
  // (then 'b'..'f' are digits and a unit needs a space: "0x10 K").
  size_t split = s.size();
  const bool is_hex = s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (is_hex) {
    const size_t sp = s.find(' ');
    split = sp == std::string_view::npos ? s.size() : sp;
  } else {
    while (split > 0 && std::isalpha(static_cast<unsigned char>(s[split - 1]))) --split;
  }
  const std::string_view unit = trim(s.substr(split));
  if (trim(s.substr(0, split)).empty())
    return make_error(Errc::kParse,
                      "expected a size (a number with an optional unit: 4096, 0x1000, 2MiB), "
                      "got %s",
                      quote(text).c_str());
  const uint64_t number =
      RG_TRY(parse_u64(s.substr(0, split)).context("while parsing size " + quote(text)));
  struct Unit {
    const char* names[3];
    unsigned shift;
  };
  static constexpr Unit kUnits[] = {
      {{"", "b", nullptr}, 0},  {{"k", "kb", "kib"}, 10}, {{"m", "mb", "mib"}, 20},
      {{"g", "gb", "gib"}, 30}, {{"t", "tb", "tib"}, 40}, {{"p", "pb", "pib"}, 50},
      {{"e", "eb", "eib"}, 60},
  };
  for (const Unit& u : kUnits) {
    for (const char* name : u.names) {
      if (name == nullptr || !ieq(unit, name)) continue;
      if (u.shift != 0 && (number >> (64 - u.shift)) != 0)
        return make_error(Errc::kOverflow, "size %s does not fit in 64 bits", quote(text).c_str());
      return number << u.shift;
    }
  }
  return make_error(Errc::kParse,
                    "unknown size unit %s in %s (use B, KiB, MiB, GiB, TiB, PiB, EiB)",
                    quote(unit).c_str(), quote(text).c_str());
}

}  // namespace rawgpu
