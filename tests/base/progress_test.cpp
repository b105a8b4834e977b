#include "rawgpu/base/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace rawgpu {
namespace {

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[256];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
  return s;
}

TEST(Progress, SilentWhenNotATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p("compiling", 3, f, /*terminal=*/false);
    EXPECT_FALSE(p.active());
    for (uint64_t i = 1; i <= 3; ++i) p.update(i, "gemm");
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(Progress, RedrawsOneLineAndClearsIt) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p("compiling", 2, f, /*terminal=*/true);
    p.update(1, "gemm for gfx1100");
    p.update(2, "conv");  // the last step is always drawn, throttling or not
  }
  const std::string s = contents(f);
  EXPECT_EQ(s.find('\n'), std::string::npos) << s;  // never scrolls
  EXPECT_NE(s.find("\r[1/2] compiling: gemm for gfx1100"), std::string::npos) << s;
  EXPECT_NE(s.find("\r[2/2] compiling: conv"), std::string::npos) << s;
  // The shorter second line pads over the first, and the destructor blanks the line.
  const std::string first = "[1/2] compiling: gemm for gfx1100";
  EXPECT_EQ(s.substr(s.size() - first.size() - 2), "\r" + std::string(first.size(), ' ') + "\r");
  std::fclose(f);
}

}  // namespace
}  // namespace rawgpu
