// sysfs text parsers: strict about the formats Linux prints, bounded in what they accept.
#include "rawgpu/drivers/pci/sysfs_text.h"

#include "rawgpu/base/format.h"
#include "rawgpu/drivers/pci/config_space.h"

namespace rawgpu::pci {

namespace {

// Calls `line(number, text)` for each line (1-based; a final newline does not start another
// line). Stops at the first error, or with kParse once more than `max_lines` lines are seen.
template <class F>
Status for_each_line(std::string_view text, size_t max_lines, const char* what, F&& line) {
  size_t number = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view l = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (++number > max_lines)
      return make_error(Errc::kParse, "%s has more than %zu lines", what, max_lines);
    RG_TRY(line(number, l));
  }
  return ok_status();
}

bool is_space(char c) { return c == ' ' || c == '\t'; }

// Splits on blanks into at most `max` tokens; returns the count, or max + 1 if there are more.
size_t split_blanks(std::string_view s, std::string_view* out, size_t max) {
  size_t n = 0;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i == s.size()) break;
    size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    if (n == max) return max + 1;
    out[n++] = s.substr(i, j - i);
    i = j;
  }
  return n;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// 1..max_digits hex digits, nothing else.
std::optional<uint64_t> parse_hex_digits(std::string_view s, size_t max_digits) {
  if (s.empty() || s.size() > max_digits) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    const int d = hex_digit(c);
    if (d < 0) return std::nullopt;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

std::optional<uint64_t> parse_prefixed_hex(std::string_view s) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
  return parse_hex_digits(s.substr(2), 16);
}

bool valid_key(std::string_view k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

Result<PciId> parse_pci_id(const Uevent& u, const char* key) {
  const std::string* v = u.find(key);
  if (v == nullptr) return make_error(Errc::kNotFound, "uevent has no %s line", key);
  const size_t colon = v->find(':');
  std::optional<uint64_t> vendor, device;
  if (colon == 4 && v->size() == 9) {
    vendor = parse_hex_digits(std::string_view(*v).substr(0, 4), 4);
    device = parse_hex_digits(std::string_view(*v).substr(5), 4);
  }
  if (!vendor || !device)
    return make_error(Errc::kParse, "uevent %s=%s is not VVVV:DDDD (hex), e.g. 1002:744C", key,
                      quote(*v).c_str());
  return PciId{static_cast<uint16_t>(*vendor), static_cast<uint16_t>(*device)};
}

}  // namespace

Result<std::vector<ResourceRegion>> parse_resource(std::string_view text) {
  std::vector<ResourceRegion> out;
  RG_TRY(for_each_line(
      text, kMaxResourceLines, "sysfs resource",
      [&](size_t number, std::string_view line) -> Status {
        std::string_view tok[3];
        const size_t n = split_blanks(line, tok, 3);
        std::optional<uint64_t> v[3];
        if (n == 3)
          for (int i = 0; i < 3; ++i) v[i] = parse_prefixed_hex(tok[i]);
        if (n != 3 || !v[0] || !v[1] || !v[2])
          return make_error(Errc::kParse,
                            "sysfs resource line %zu is not \"start end flags\" (three 0x-prefixed "
                            "hex numbers): %s",
                            number, quote(line).c_str());
        ResourceRegion r;
        r.index = static_cast<int>(number - 1);
        r.start = *v[0];
        r.end = *v[1];
        r.flags = *v[2];
        if (r.used() && r.end < r.start)
          return make_error(
              Errc::kParse, "sysfs resource line %zu: end 0x%llx lies before start 0x%llx", number,
              static_cast<unsigned long long>(r.end), static_cast<unsigned long long>(r.start));
        out.push_back(r);
        return ok_status();
      }));
  return out;
}

const std::string* Uevent::find(std::string_view key) const {
  for (const auto& [k, v] : entries)
    if (k == key) return &v;
  return nullptr;
}

std::optional<std::string> Uevent::driver() const {
  const std::string* v = find("DRIVER");
  if (v == nullptr) return std::nullopt;
  return *v;
}

Result<PciId> Uevent::pci_id() const { return parse_pci_id(*this, "PCI_ID"); }
Result<PciId> Uevent::subsystem_id() const { return parse_pci_id(*this, "PCI_SUBSYS_ID"); }

Result<Bdf> Uevent::slot_name() const {
  const std::string* v = find("PCI_SLOT_NAME");
  if (v == nullptr) return make_error(Errc::kNotFound, "uevent has no PCI_SLOT_NAME line");
  return Bdf::parse(*v).context("in uevent PCI_SLOT_NAME");
}

Result<Uevent> parse_uevent(std::string_view text) {
  Uevent u;
  std::vector<size_t> lines;  // line number of each entry, for the duplicate message
  RG_TRY(for_each_line(
      text, kMaxUeventLines, "sysfs uevent", [&](size_t number, std::string_view line) -> Status {
        const size_t eq = line.find('=');
        if (eq == std::string_view::npos)
          return make_error(Errc::kParse, "sysfs uevent line %zu is not KEY=VALUE: %s", number,
                            quote(line).c_str());
        const std::string_view key = line.substr(0, eq);
        if (!valid_key(key))
          return make_error(Errc::kParse, "sysfs uevent line %zu: key %s is not [A-Z0-9_]+", number,
                            quote(key).c_str());
        for (size_t i = 0; i < u.entries.size(); ++i)
          if (u.entries[i].first == key)
            return make_error(Errc::kParse, "sysfs uevent line %zu: key %s already set on line %zu",
                              number, u.entries[i].first.c_str(), lines[i]);
        u.entries.emplace_back(std::string(key), std::string(line.substr(eq + 1)));
        lines.push_back(number);
        return ok_status();
      }));
  return u;
}

std::vector<uint64_t> ResizeSupport::sizes() const { return rebar_sizes_from_mask(mask); }

Result<ResizeSupport> parse_resize(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && (is_space(s.back()) || s.back() == '\n')) s.remove_suffix(1);
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  std::string_view digits = s;
  if (digits.size() >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
    digits.remove_prefix(2);
  const std::optional<uint64_t> v = parse_hex_digits(digits, 16);
  if (!v)
    return make_error(Errc::kParse,
                      "sysfs resize %s is not a hex mask of at most 16 digits (bit n = 2^n MiB)",
                      quote(text).c_str());
  if ((*v >> (kRebarMaxSizeCode + 1)) != 0)
    return make_error(Errc::kParse,
                      "sysfs resize mask 0x%llx has bits above 43: sizes beyond 8 EiB",
                      static_cast<unsigned long long>(*v));
  return ResizeSupport{*v};
}

}  // namespace rawgpu::pci
