#include "rawgpu/base/error.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>

namespace rawgpu {
namespace {

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return make_error(Errc::kParse, "'%c' is not a digit", c);
  return c - '0';
}

Result<int> sum_digits(std::string_view s) {
  int total = 0;
  for (char c : s)
    total +=
        RG_TRY_CTX(parse_digit(c), "while summing \"%.*s\"", static_cast<int>(s.size()), s.data());
  return total;
}

Status check_even(int v) {
  if (v % 2 != 0) return make_error(Errc::kInvalidArgument, "%d is odd", v).with_hint("use 2");
  return {};
}

Result<int> sum_even(std::string_view s) {
  const int v = RG_TRY(sum_digits(s));
  RG_TRY(check_even(v));
  return v;
}

TEST(Error, CodeMessageAndName) {
  Error e = make_error(Errc::kOutOfMemory, "need %d bytes", 64);
  EXPECT_EQ(e.code(), Errc::kOutOfMemory);
  EXPECT_TRUE(e.is(Errc::kOutOfMemory));
  EXPECT_EQ(e.message(), "need 64 bytes");
  EXPECT_EQ(errc_name(Errc::kOutOfMemory), "out_of_memory");
  EXPECT_EQ(e.to_string(), "need 64 bytes [out_of_memory]");
}

TEST(Error, EveryCodeHasADistinctName) {
  std::set<std::string_view> names;
  for (int c = static_cast<int>(Errc::kInvalidArgument); c <= static_cast<int>(Errc::kInternal);
       ++c) {
    const std::string_view n = errc_name(static_cast<Errc>(c));
    EXPECT_NE(n, "unknown") << c;
    EXPECT_TRUE(names.insert(n).second) << n;
  }
}

TEST(Error, ContextChainIsOutermostFirst) {
  Error e = make_error(Errc::kParse, "ucode_size 0x%x exceeds file size 0x%x", 0x5000, 0x4000);
  e.add_context("header v2.0");
  e.add_context("while loading gc_11_0_0_mec.bin");
  ASSERT_EQ(e.context().size(), 2u);
  EXPECT_EQ(e.context()[0], "while loading gc_11_0_0_mec.bin");
  EXPECT_EQ(e.context()[1], "header v2.0");
  EXPECT_EQ(e.to_string(),
            "while loading gc_11_0_0_mec.bin: header v2.0: ucode_size 0x5000 exceeds file size "
            "0x4000 [parse]");
}

TEST(Error, HintIsRendered) {
  Error e = Error(Errc::kBusy, "amdgpu is bound").with_hint("unbind it first");
  EXPECT_EQ(e.hint(), "unbind it first");
  EXPECT_EQ(e.to_string(), "amdgpu is bound [busy] (hint: unbind it first)");
}

TEST(Error, CopiesAreIndependent) {
  Error a(Errc::kIo, "read failed");
  Error b = a;
  b.add_context("outer");
  EXPECT_TRUE(a.context().empty());
  EXPECT_EQ(b.context().size(), 1u);
  a = b;
  EXPECT_EQ(a.context().size(), 1u);
}

TEST(Result, ValueAndError) {
  Result<int> ok = parse_digit('7');
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 7);
  EXPECT_EQ(ok.value_or(1), 7);
  Result<int> bad = parse_digit('x');
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(bad.error().code(), Errc::kParse);
  EXPECT_EQ(bad.value_or(-1), -1);
}

TEST(Result, TryPropagatesWithContext) {
  EXPECT_EQ(*sum_digits("123"), 6);
  Result<int> r = sum_digits("1x3");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kParse);
  EXPECT_EQ(r.error().to_string(), "while summing \"1x3\": 'x' is not a digit [parse]");
}

TEST(Result, TryOnStatus) {
  EXPECT_EQ(*sum_even("22"), 4);
  Result<int> odd = sum_even("21");
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(odd.error().hint(), "use 2");
  Result<int> bad = sum_even("2y");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), Errc::kParse);
}

TEST(Result, MoveOnlyValues) {
  auto make = [](bool fail) -> Result<std::unique_ptr<int>> {
    if (fail) return Error(Errc::kNotFound, "nothing");
    return std::make_unique<int>(42);
  };
  auto use = [&](bool fail) -> Result<int> {
    std::unique_ptr<int> p = RG_TRY(make(fail));
    return *p + 1;
  };
  EXPECT_EQ(*use(false), 43);
  EXPECT_TRUE(use(true).error().is(Errc::kNotFound));
  Result<std::unique_ptr<int>> r = make(false);
  std::unique_ptr<int> owned = std::move(r).take_value();
  EXPECT_EQ(*owned, 42);
}

TEST(Result, ContextOnlyOnFailure) {
  int calls = 0;
  auto line = [&] {
    ++calls;
    return std::string("expensive context");
  };
  Result<int> good = parse_digit('1').context(line);
  EXPECT_TRUE(good.ok());
  EXPECT_EQ(calls, 0);
  Result<int> bad = parse_digit('q').context(line);
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(bad.error().context().size(), 1u);
  Status st = Status(Error(Errc::kIo, "x")).context("outer");
  EXPECT_EQ(st.error().to_string(), "outer: x [io]");
}

TEST(ResultDeathTest, ValueOfFailedResultAborts) {
  Result<int> bad = parse_digit('z');
  EXPECT_DEATH((void)bad.value(), "value\\(\\) of a failed Result: 'z' is not a digit");
  Status st = Error(Errc::kIo, "disk on fire");
  EXPECT_DEATH(st.value(), "disk on fire");
}

TEST(CheckDeathTest, CheckAbortsWithMessage) {
  const int x = 3;
  EXPECT_DEATH(RG_CHECK(x == 4, "x was %d", x), "check failed: x == 4 x was 3");
  EXPECT_DEATH(RG_CHECK(x == 5), "check failed: x == 5");
}

}  // namespace
}  // namespace rawgpu
