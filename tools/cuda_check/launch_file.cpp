#include "launch_file.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>

namespace cuda_check {
namespace {

// Whitespace-separated fields of one line (the '#' comment already removed).
std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> f;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) f.push_back(line.substr(i, j - i));
    i = j;
  }
  return f;
}

// Decimal integers only: no sign for unsigned values (">> unsigned" took "-1" as 4294967295).
template <class T>
bool integer(std::string_view text, T& out) {
  if (text.empty()) return false;
  if constexpr (std::is_unsigned_v<T>) {
    if (text[0] == '-' || text[0] == '+') return false;
  }
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool real(std::string_view text, double& out) {
  const std::string s(text);  // from_chars for double is not in GCC 12's libstdc++ for all modes
  char* end = nullptr;
  errno = 0;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size() && errno == 0 && std::isfinite(out) && out >= 0;
}

}  // namespace

std::string quote_line(std::string_view text) {
  constexpr size_t kMax = 80;
  std::string out = "'";
  size_t i = 0;
  for (; i < text.size() && out.size() <= kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  out += '\'';
  if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

Launch parse_launch(std::string_view text, const ReadFile& read) {
  Launch l;
  size_t no = 0;
  while (!text.empty() && l.error.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view whole = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++no;
    const std::string where = "launch.txt:" + std::to_string(no) + ": ";
    auto fail = [&](const std::string& what) {
      l.error = where + what + " in " + quote_line(whole);
    };
    std::string_view line = whole;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    const std::vector<std::string_view> f = fields(line);
    if (f.empty()) continue;
    const std::string_view key = f[0];
    auto want_fields = [&](size_t n, const char* form) {
      if (f.size() == n) return true;
      fail(std::string("expected '") + form + "'");
      return false;
    };
    auto load = [&](std::string_view name, size_t max, std::vector<char>& out) {
      std::string why;
      if (read(std::string(name), max, out, why)) return true;
      l.error = where + "cannot read " + quote_line(name) + ": " + why;
      return false;
    };
    auto slot = [&](std::string_view t, int& out) {
      if (integer(t, out) && out >= 0 && out < kMaxSlots) return true;
      fail("slot " + quote_line(t) + " is not in 0.." + std::to_string(kMaxSlots - 1));
      return false;
    };
    if (key == "kernel") {
      if (want_fields(2, "kernel NAME")) l.kernel = std::string(f[1]);
    } else if (key == "binary") {
      if (want_fields(2, "binary FILE") && load(f[1], kMaxLaunchFileBytes, l.binary) &&
          l.binary.empty())
        l.error = where + "binary " + quote_line(f[1]) + " is empty";
    } else if (key == "grid" || key == "block") {
      const bool grid = key == "grid";
      if (!want_fields(4, grid ? "grid X Y Z" : "block X Y Z")) continue;
      unsigned* d = grid ? l.grid : l.block;
      const uint64_t max[3] = {grid ? 0x7fffffffu : 1024u, grid ? 65535u : 1024u,
                               grid ? 65535u : 64u};
      for (int i = 0; i < 3 && l.error.empty(); ++i) {
        uint64_t v = 0;
        if (!integer(f[1 + i], v) || v < 1 || v > max[i])
          fail(std::string(key) + " " + "xyz"[i] + " must be 1.." + std::to_string(max[i]) +
               ", got " + quote_line(f[1 + i]));
        else
          d[i] = static_cast<unsigned>(v);
      }
      if (!grid && l.error.empty() && uint64_t{d[0]} * d[1] * d[2] > 1024)
        fail("a block holds at most 1024 threads");
    } else if (key == "buffer") {
      if (!want_fields(5, "buffer SLOT DTYPE BYTES FILE")) continue;
      Buffer b;
      if (!slot(f[1], b.slot)) continue;
      b.dtype = std::string(f[2]);
      if (!integer(f[3], b.bytes) || b.bytes > kMaxLaunchFileBytes) {
        fail("buffer size must be 0.." + std::to_string(kMaxLaunchFileBytes) + " bytes, got " +
             quote_line(f[3]));
        continue;
      }
      for (const Buffer& o : l.buffers)
        if (o.slot == b.slot) fail("slot " + std::to_string(b.slot) + " has a buffer already");
      if (!l.error.empty() || !load(f[4], b.bytes, b.init)) continue;
      if (b.init.size() != b.bytes)
        l.error = where + "buffer file " + quote_line(f[4]) + " holds " +
                  std::to_string(b.init.size()) + " bytes, not " + std::to_string(b.bytes);
      l.buffers.push_back(std::move(b));
    } else if (key == "scalar") {
      long long v = 0;
      if (!want_fields(2, "scalar VALUE")) continue;
      if (!integer(f[1], v))
        fail("scalar must be a 64-bit integer, got " + quote_line(f[1]));
      else
        l.scalars.push_back(v);
    } else if (key == "check") {
      if (!want_fields(6, "check SLOT FILE COUNT ATOL RTOL")) continue;
      Check c;
      if (!slot(f[1], c.slot)) continue;
      // COUNT floats must fit a file of at most kMaxLaunchFileBytes: no count * 4 overflow.
      if (!integer(f[3], c.count) || c.count > kMaxLaunchFileBytes / 4) {
        fail("check count must be 0.." + std::to_string(kMaxLaunchFileBytes / 4) + ", got " +
             quote_line(f[3]));
        continue;
      }
      if (!real(f[4], c.atol) || !real(f[5], c.rtol)) {
        fail("tolerances must be finite and >= 0");
        continue;
      }
      if (!load(f[2], c.count * 4, c.want)) continue;
      if (c.want.size() != c.count * 4)
        l.error = where + "check file " + quote_line(f[2]) + " does not hold " +
                  std::to_string(c.count) + " floats";
      l.checks.push_back(std::move(c));
    } else {
      fail("unknown directive");
    }
  }
  if (l.error.empty() && (l.kernel.empty() || l.binary.empty() || l.checks.empty()))
    l.error = "launch.txt needs kernel, binary and check lines";
  for (const Check& c : l.checks) {
    bool found = false;
    for (const Buffer& b : l.buffers)
      if (b.slot == c.slot) found = c.count <= b.bytes / 4;
    if (!found && l.error.empty())
      l.error = "check of slot " + std::to_string(c.slot) + " has no buffer that large";
  }
  return l;
}

bool read_file_in(const std::filesystem::path& dir, const std::string& name, size_t max_bytes,
                  std::vector<char>& out, std::string& why) {
  namespace fs = std::filesystem;
  const fs::path p = dir / name;
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (ec) {
    why = ec.message();
    return false;
  }
  if (!fs::is_regular_file(st)) {
    why = fs::is_directory(st) ? "is a directory" : "is not a regular file";
    return false;
  }
  const uintmax_t size = fs::file_size(p, ec);
  if (ec) {
    why = ec.message();
    return false;
  }
  if (size > max_bytes) {
    why = std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) + " expected";
    return false;
  }
  std::ifstream f(p, std::ios::binary);
  if (!f) {
    why = std::strerror(errno);
    return false;
  }
  out.resize(static_cast<size_t>(size));
  if (size > 0 && !f.read(out.data(), static_cast<std::streamsize>(size))) {
    why = "read failed";
    return false;
  }
  return true;
}

Launch parse_launch_dir(const std::filesystem::path& dir) {
  std::vector<char> text;
  std::string why;
  if (!read_file_in(dir, "launch.txt", kMaxLaunchTextBytes, text, why)) {
    Launch l;
    l.error = "launch.txt: " + why;
    return l;
  }
  return parse_launch(std::string_view(text.data(), text.size()),
                      [&](const std::string& name, size_t max, std::vector<char>& out,
                          std::string& w) { return read_file_in(dir, name, max, out, w); });
}

}  // namespace cuda_check
