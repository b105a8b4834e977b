// Golden traces: a test's recorded call sequence compared with a file checked in under
// tests/drivers/golden/, so that a reordered or added register/ioctl/sysfs step shows up in
// review. RAWGPU_UPDATE_GOLDEN=1 rewrites the file instead (then read the diff before committing).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#ifndef RAWGPU_GOLDEN_DIR
#error "RAWGPU_GOLDEN_DIR must name tests/drivers/golden in the source tree"
#endif

namespace rawgpu::testing {

inline ::testing::AssertionResult matches_golden(const std::string& name,
                                                 const std::string& actual) {
  const std::string path = std::string(RAWGPU_GOLDEN_DIR) + "/" + name;
  if (const char* u = std::getenv("RAWGPU_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return ::testing::AssertionSuccess() << "rewrote " << path;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return ::testing::AssertionFailure()
           << path << " is missing (RAWGPU_UPDATE_GOLDEN=1 writes it); the trace was:\n"
           << actual;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string want = ss.str();
  if (want == actual) return ::testing::AssertionSuccess();
  // The first differing line, with its number, then both traces.
  std::istringstream a(actual), w(want);
  std::string la, lw;
  int line = 1;
  while (true) {
    const bool ga = static_cast<bool>(std::getline(a, la));
    const bool gw = static_cast<bool>(std::getline(w, lw));
    if (!ga && !gw) break;
    if (!ga || !gw || la != lw)
      return ::testing::AssertionFailure()
             << path << " differs at line " << line << ":\n  golden: " << (gw ? lw : "<end>")
             << "\n  actual: " << (ga ? la : "<end>") << "\n(RAWGPU_UPDATE_GOLDEN=1 rewrites "
             << "it) actual trace:\n"
             << actual;
    ++line;
  }
  return ::testing::AssertionFailure() << path << " differs (line endings?)";
}

}  // namespace rawgpu::testing
