#include "rawgpu/base/log.h"

#include <gtest/gtest.h>

#include <vector>

namespace rawgpu {
namespace {

struct Captured {
  std::string tag;
  int level;
  std::string message;
};

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = log::config();
    previous_ = log::set_sink([this](std::string_view tag, int level, std::string_view msg) {
      lines_.push_back({std::string(tag), level, std::string(msg)});
    });
  }
  void TearDown() override {
    log::set_sink(previous_);
    log::set_config(saved_);
  }
  std::vector<Captured> lines_;
  log::Config saved_;
  log::Sink previous_;
};

TEST_F(LogTest, ParseConfig) {
  auto c = log::parse_config("2,pci=5, mmu=0");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->global_level, 2);
  ASSERT_EQ(c->tag_levels.size(), 2u);
  EXPECT_EQ(c->tag_levels[0], (std::pair<std::string, int>("pci", 5)));
  EXPECT_EQ(c->max_level(), 5);
  EXPECT_EQ(log::parse_config("")->global_level, 0);
  EXPECT_EQ(log::parse_config("pci=3")->global_level, 0);
}

TEST_F(LogTest, UnknownTagsAreNamed) {
  auto c = log::parse_config("1,pci=5,pcie=2,beam=1,pcie=3,gpu=1");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->unknown_tags, (std::vector<std::string>{"pcie", "gpu"}));
  EXPECT_EQ(c->tag_levels.size(), 5u);  // still applied: an unknown tag costs nothing
  EXPECT_TRUE(log::parse_config("2,pci=1,mmu=3,beam=2")->unknown_tags.empty());
  EXPECT_TRUE(log::is_known_tag("pci"));
  EXPECT_FALSE(log::is_known_tag("pcie"));
  for (const log::Tag& t : log::known_tags()) {
    EXPECT_TRUE(log::parse_config(std::string(t.name) + "=1").ok()) << t.name;
    EXPECT_FALSE(t.covers.empty()) << t.name;
  }
}

TEST_F(LogTest, ParseConfigErrors) {
  for (const char* bad : {"6", "x", "1,2", "=3", "pci=", "pci=9", "PCI=1", "a b=1", "pci=-1"}) {
    auto c = log::parse_config(bad);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.error().code(), Errc::kParse) << bad;
  }
}

TEST_F(LogTest, LevelsAndTags) {
  log::set_config(*log::parse_config("1,pci=4,mmu=0"));
  RG_LOG("pci", 4, "config read %d", 7);
  RG_LOG("pci", 5, "too verbose");
  RG_LOG("queue", 1, "info");
  RG_LOG("queue", 2, "too verbose");
  RG_LOG("mmu", 1, "disabled for this tag");
  RG_WARN("mmu", "warnings always show");
  ASSERT_EQ(lines_.size(), 3u);
  EXPECT_EQ(lines_[0].tag, "pci");
  EXPECT_EQ(lines_[0].message, "config read 7");
  EXPECT_EQ(lines_[1].tag, "queue");
  EXPECT_EQ(lines_[2].level, 0);
  EXPECT_EQ(lines_[2].message, "warnings always show");
}

TEST_F(LogTest, ArgumentsAreNotEvaluatedWhenDisabled) {
  log::set_config(log::Config{});
  int evaluated = 0;
  auto side_effect = [&] { return ++evaluated; };
  RG_LOG("pci", 3, "%d", side_effect());
  EXPECT_EQ(evaluated, 0);
  log::set_config(*log::parse_config("3"));
  RG_LOG("pci", 3, "%d", side_effect());
  EXPECT_EQ(evaluated, 1);
}

TEST_F(LogTest, EnvironmentVariable) {
  ::setenv("RAWGPU_DEBUG", "2,usb=5", 1);
  log::configure_from_env();
  EXPECT_TRUE(log::enabled("usb", 5));
  EXPECT_TRUE(log::enabled("pci", 2));
  EXPECT_FALSE(log::enabled("pci", 3));
  ::setenv("RAWGPU_DEBUG", "garbage", 1);
  log::configure_from_env();  // warns on stderr, falls back to defaults
  EXPECT_FALSE(log::enabled("usb", 1));
  ::unsetenv("RAWGPU_DEBUG");
}

}  // namespace
}  // namespace rawgpu
