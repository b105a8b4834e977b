// The launch description cuda_check runs (DIR/<kernel>/launch.txt, written by
// `rawgpu compile --data`), parsed apart from libcuda so that it can be tested and fuzzed: the
// file is untrusted input (a user may edit it or point the harness at any directory).
//
// One directive per line ('#' comments, blank lines ignored):
//   kernel NAME                      entry point
//   binary FILE                      cubin, relative to the kernel's directory
//   grid X Y Z / block X Y Z         launch geometry (symbolic sizes already evaluated)
//   buffer SLOT DTYPE BYTES FILE     a kernel parameter (device pointer) with its initial bytes
//   scalar VALUE                     a 64-bit integer kernel parameter (after the buffers)
//   check SLOT FILE COUNT ATOL RTOL  float32 elements 0..COUNT-1 of SLOT against FILE within
//                                    |got - want| <= ATOL + RTOL * |want|
// Values are checked against what a CUDA launch accepts (grid x 1..2^31-1, y and z 1..65535;
// block x and y 1..1024, z 1..64, at most 1024 threads), sizes against kMaxLaunchFileBytes,
// and every check against a buffer that holds COUNT floats. Deliberately uses nothing of rawgpu
// (the harness checks our binaries with NVIDIA's loader only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace cuda_check {

inline constexpr size_t kMaxLaunchFileBytes = size_t{1} << 30;  // a binary, buffer or check file
inline constexpr size_t kMaxLaunchTextBytes = size_t{1} << 20;  // launch.txt itself
inline constexpr int kMaxSlots = 4096;

struct Buffer {
  int slot = 0;
  std::string dtype;
  size_t bytes = 0;
  std::vector<char> init;
  unsigned long long dev = 0;  // CUdeviceptr once allocated
};
struct Check {
  int slot = 0;
  std::vector<char> want;
  size_t count = 0;
  double atol = 0, rtol = 0;
};
struct Launch {
  std::string kernel;
  std::string error;  // empty when the description is usable; else what and where
  std::vector<char> binary;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::vector<Buffer> buffers;
  std::vector<long long> scalars;
  std::vector<Check> checks;
};

// Reads the file a directive names into `out` (at most `max_bytes`); on failure returns false
// and says why.
using ReadFile = std::function<bool(const std::string& name, size_t max_bytes,
                                    std::vector<char>& out, std::string& why)>;

// Parses the text of a launch.txt; Launch::error names the line and quotes (at most 80 bytes of)
// it. Stops at the first error.
Launch parse_launch(std::string_view text, const ReadFile& read);

// A ReadFile for files next to launch.txt in `dir`: regular files only, the OS's reason on
// failure, the size limit checked before reading.
bool read_file_in(const std::filesystem::path& dir, const std::string& name, size_t max_bytes,
                  std::vector<char>& out, std::string& why);
// Reads DIR/launch.txt (at most kMaxLaunchTextBytes) and parses it.
Launch parse_launch_dir(const std::filesystem::path& dir);

// `text` in single quotes, control and non-ASCII bytes escaped as \xNN, cut after about 80
// bytes of output (then its length is added).
std::string quote_line(std::string_view text);

}  // namespace cuda_check
