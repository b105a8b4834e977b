#include "rawgpu/base/parse.h"

#include <gtest/gtest.h>

namespace rawgpu {
namespace {

TEST(Parse, Integers) {
  EXPECT_EQ(*parse_u64("0"), 0u);
  EXPECT_EQ(*parse_u64(" 4096 "), 4096u);
  EXPECT_EQ(*parse_u64("0x1F"), 31u);
  EXPECT_EQ(*parse_u64("0o17"), 15u);
  EXPECT_EQ(*parse_u64("0b1010"), 10u);
  EXPECT_EQ(*parse_u64("1_000_000"), 1000000u);
  EXPECT_EQ(*parse_u64("0xffff'ffff"), 0xffffffffu);
  EXPECT_EQ(*parse_u64("18446744073709551615"), ~uint64_t{0});
}

TEST(Parse, IntegerErrors) {
  for (const char* bad : {"", " ", "0x", "-1", "12a", "0b102", "_1", "1_", "1__0", "0xg"}) {
    auto r = parse_u64(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code(), Errc::kParse) << bad;
  }
  auto big = parse_u64("18446744073709551616");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code(), Errc::kOverflow);
  // Untrusted bytes are escaped in messages.
  auto weird = parse_u64(std::string_view("1\x01\"", 3));
  ASSERT_FALSE(weird.ok());
  EXPECT_NE(weird.error().message().find("\\x01"), std::string::npos) << weird.error().message();
}

TEST(Parse, Sizes) {
  EXPECT_EQ(*parse_size("4096"), 4096u);
  EXPECT_EQ(*parse_size("4K"), 4096u);
  EXPECT_EQ(*parse_size("4kib"), 4096u);
  EXPECT_EQ(*parse_size("2M"), 2u << 20);
  EXPECT_EQ(*parse_size("16 GiB"), 16ull << 30);
  EXPECT_EQ(*parse_size("1TB"), 1ull << 40);
  EXPECT_EQ(*parse_size("3p"), 3ull << 50);
  EXPECT_EQ(*parse_size("0x1000"), 4096u);
  EXPECT_EQ(*parse_size("0x10 K"), 16u << 10);
  EXPECT_EQ(*parse_size("0xB"), 11u) << "hex digits are not units";
  EXPECT_EQ(*parse_size("12B"), 12u);
  EXPECT_EQ(*parse_size("15 EiB"), 15ull << 60);
  // Found by fuzz_parse: every exact format_bytes() output must parse back.
  EXPECT_EQ(*parse_size("4 EiB"), 4ull << 60);
}

TEST(Parse, SizeErrors) {
  EXPECT_EQ(parse_size("4X").error().code(), Errc::kParse);
  EXPECT_EQ(parse_size("GiB").error().code(), Errc::kParse);
  EXPECT_EQ(parse_size("16384P").error().code(), Errc::kOverflow);
  EXPECT_EQ(parse_size("16E").error().code(), Errc::kOverflow);
  EXPECT_EQ(*parse_size("16383P"), 16383ull << 50);
  // A value with no number at all names the whole value and what a size looks like (it used to
  // say 'got ""', quoting the empty number left after the unit was split off).
  auto abc = parse_size("abc");
  ASSERT_FALSE(abc.ok());
  EXPECT_NE(abc.error().message().find("got 'abc'"), std::string::npos) << abc.error().message();
  EXPECT_EQ(abc.error().message().find("\"\""), std::string::npos) << abc.error().message();
  auto r = parse_size("4 furlongs");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("unknown size unit 'furlongs'"), std::string::npos)
      << r.error().message();
}

}  // namespace
}  // namespace rawgpu
