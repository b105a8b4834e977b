// A one-line progress display for long work (compile --all, BEAM, big copies): on a terminal's
// stderr it redraws "\r[12/52] what: detail" at most every 100 ms and clears the line when done;
// when stderr is not a terminal (piped, redirected to a log, CI) it prints nothing at all.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace rawgpu {

class Progress {
 public:
  // total 0: the amount of work is not known ("[12] what: detail").
  explicit Progress(std::string what, uint64_t total = 0);
  // For tests: writes to `out` as if it were a terminal when `terminal` is true.
  Progress(std::string what, uint64_t total, std::FILE* out, bool terminal);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress();  // clears the line

  void update(uint64_t done, std::string_view detail = {});
  // Clears the line now (before printing results on stdout that share the terminal).
  void finish();
  bool active() const { return terminal_; }

  static bool stderr_is_terminal();

 private:
  std::string what_;
  uint64_t total_;
  std::FILE* out_;
  bool terminal_;
  bool drawn_ = false;
  size_t width_ = 0;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace rawgpu
