// Fuzz target for cuda_check's launch description (tools/cuda_check/launch_file.h). Files named
// "N.bin" hold N bytes (N < 4096); others do not exist. Invariants beyond "no crash": an accepted
// description is launchable as CUDA would require (geometry in range, every check backed by a
// buffer holding COUNT floats and a reference file of COUNT floats, initial bytes matching each
// buffer's size), and errors stay short.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "launch_file.h"

namespace {
void require(bool cond, const char* what) {
  if (!cond) {
    __builtin_printf("fuzz_cuda_launch invariant violated: %s\n", what);
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cuda_check;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto read = [](const std::string& name, size_t max, std::vector<char>& out, std::string& why) {
    if (name.size() < 5 || name.size() > 8 || name.compare(name.size() - 4, 4, ".bin") != 0) {
      why = "No such file or directory";
      return false;
    }
    size_t n = 0;
    for (size_t i = 0; i + 4 < name.size(); ++i) {
      if (name[i] < '0' || name[i] > '9') {
        why = "No such file or directory";
        return false;
      }
      n = n * 10 + static_cast<size_t>(name[i] - '0');
    }
    if (n > max) {
      why = "too large";
      return false;
    }
    out.assign(n, '\x01');
    return true;
  };
  const Launch l = parse_launch(text, read);
  require(l.error.size() < 400, "error message bounded");
  if (!l.error.empty()) return 0;
  require(!l.kernel.empty() && !l.binary.empty() && !l.checks.empty(), "required directives");
  for (int i = 0; i < 3; ++i) require(l.grid[i] >= 1 && l.block[i] >= 1, "geometry >= 1");
  require(l.grid[0] <= 0x7fffffffu && l.grid[1] <= 65535 && l.grid[2] <= 65535, "grid range");
  require(uint64_t{l.block[0]} * l.block[1] * l.block[2] <= 1024 && l.block[2] <= 64,
          "block range");
  for (const Buffer& b : l.buffers) require(b.init.size() == b.bytes, "buffer initial bytes");
  for (const Check& c : l.checks) {
    require(c.want.size() / 4 == c.count && c.want.size() % 4 == 0, "reference holds COUNT floats");
    bool backed = false;
    for (const Buffer& b : l.buffers) backed |= b.slot == c.slot && b.bytes / 4 >= c.count;
    require(backed, "check backed by a large enough buffer");
  }
  return 0;
}
