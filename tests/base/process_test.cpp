#include "rawgpu/base/process.h"

#include <gtest/gtest.h>

namespace rawgpu {
namespace {

TEST(Process, FindsExecutables) {
  auto sh = find_executable("sh");
  ASSERT_TRUE(sh.has_value());
  EXPECT_EQ(sh->front(), '/');
  EXPECT_FALSE(find_executable("rawgpu-no-such-program-xyz").has_value());
  EXPECT_FALSE(find_executable("").has_value());
  EXPECT_EQ(find_executable("/bin/sh"), std::optional<std::string>("/bin/sh"));
}

TEST(Process, CapturesOutputAndExitCode) {
  auto r = run_command({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_NE(r->output.find("out\n"), std::string::npos);
  EXPECT_NE(r->output.find("err\n"), std::string::npos);
}

TEST(Process, TruncatesOutput) {
  CommandOptions o;
  o.max_output = 10;
  auto r = run_command({"/bin/sh", "-c", "yes | head -c 100000"}, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->output.size(), 10u);
  EXPECT_EQ(r->exit_code, 0);
}

TEST(Process, Errors) {
  auto missing = run_command({"/nonexistent/program"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), Errc::kIo);
  EXPECT_EQ(run_command({}).error().code(), Errc::kInvalidArgument);
  CommandOptions o;
  o.timeout = std::chrono::milliseconds(100);
  auto slow = run_command({"/bin/sleep", "10"}, o);
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.error().code(), Errc::kTimeout);
}

TEST(Process, ReportsSignals) {
  auto r = run_command({"/bin/sh", "-c", "kill -9 $$"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, -1);
  EXPECT_EQ(r->signal, 9);
}

}  // namespace
}  // namespace rawgpu
