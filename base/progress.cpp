#include "rawgpu/base/progress.h"

#include <unistd.h>

#include <algorithm>

namespace rawgpu {

bool Progress::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string what, uint64_t total)
    : Progress(std::move(what), total, stderr, stderr_is_terminal()) {}

Progress::Progress(std::string what, uint64_t total, std::FILE* out, bool terminal)
    : what_(std::move(what)), total_(total), out_(out), terminal_(terminal) {}

Progress::~Progress() { finish(); }

void Progress::update(uint64_t done, std::string_view detail) {
  if (!terminal_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100) && done != total_) return;
  last_ = now;
  std::string line = total_ != 0 ? "[" + std::to_string(done) + "/" + std::to_string(total_) + "] "
                                 : "[" + std::to_string(done) + "] ";
  line += what_;
  if (!detail.empty()) line += ": " + std::string(detail);
  if (line.size() > 100) line.resize(100);
  const size_t pad = width_ > line.size() ? width_ - line.size() : 0;
  std::fprintf(out_, "\r%s%*s", line.c_str(), static_cast<int>(pad), "");
  std::fflush(out_);
  width_ = std::max(width_, line.size());
  drawn_ = true;
}

void Progress::finish() {
  if (!terminal_ || !drawn_) return;
  std::fprintf(out_, "\r%*s\r", static_cast<int>(width_), "");
  std::fflush(out_);
  drawn_ = false;
  width_ = 0;
}

}  // namespace rawgpu
