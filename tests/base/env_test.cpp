#include "rawgpu/base/env.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <set>
#include <string>

namespace rawgpu {
namespace {

class EnvTest : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv("RAWGPU_TEST_U64");
    unsetenv("RAWGPU_TEST_FLAG");
  }
};

TEST_F(EnvTest, ReadU64AcceptsOnlyValuesInRange) {
  unsetenv("RAWGPU_TEST_U64");
  EXPECT_FALSE(env::read_u64("RAWGPU_TEST_U64", 1, 256).has_value());
  setenv("RAWGPU_TEST_U64", "", 1);
  EXPECT_FALSE(env::read_u64("RAWGPU_TEST_U64", 1, 256).has_value());
  setenv("RAWGPU_TEST_U64", "8", 1);
  EXPECT_EQ(env::read_u64("RAWGPU_TEST_U64", 1, 256), 8u);
  setenv("RAWGPU_TEST_U64", "0x10", 1);
  EXPECT_EQ(env::read_u64("RAWGPU_TEST_U64", 1, 256), 16u);
  for (const char* bad : {"0", "257", "-1", "4x", "abc", "18446744073709551616"}) {
    setenv("RAWGPU_TEST_U64", bad, 1);
    testing::internal::CaptureStderr();
    EXPECT_FALSE(env::read_u64("RAWGPU_TEST_U64", 1, 256).has_value()) << bad;
    testing::internal::GetCapturedStderr();
  }
}

TEST_F(EnvTest, MalformedValueWarnsOnceNamingTheVariable) {
  setenv("RAWGPU_TEST_FLAG", "yes", 1);
  testing::internal::CaptureStderr();
  EXPECT_TRUE(env::read_flag("RAWGPU_TEST_FLAG", true));
  EXPECT_FALSE(env::read_flag("RAWGPU_TEST_FLAG", false));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("RAWGPU_TEST_FLAG='yes'"), std::string::npos) << err;
  EXPECT_NE(err.find("expected 0 or 1"), std::string::npos) << err;
  EXPECT_EQ(err.find("RAWGPU_TEST_FLAG", err.find("RAWGPU_TEST_FLAG") + 1), std::string::npos)
      << "warned twice: " << err;
  setenv("RAWGPU_TEST_FLAG", "1", 1);
  EXPECT_TRUE(env::read_flag("RAWGPU_TEST_FLAG"));
  setenv("RAWGPU_TEST_FLAG", "0", 1);
  EXPECT_FALSE(env::read_flag("RAWGPU_TEST_FLAG", true));
}

TEST_F(EnvTest, RegistryNamesAreUniqueAndDocumented) {
  std::set<std::string> names;
  for (const env::Variable& v : env::variables()) {
    EXPECT_TRUE(names.insert(std::string(v.name)).second) << v.name;
    EXPECT_EQ(v.name.rfind("RAWGPU_", 0), 0u) << v.name;
    EXPECT_FALSE(v.values.empty()) << v.name;
    EXPECT_FALSE(v.help.empty()) << v.name;
  }
}

}  // namespace
}  // namespace rawgpu
