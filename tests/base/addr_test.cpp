#include "rawgpu/base/addr.h"

#include <gtest/gtest.h>

#include <type_traits>
#include <unordered_set>

namespace rawgpu {
namespace {

// --- Compile-time guarantees: address spaces never mix implicitly. ---------------------------
// (tests/compile_fail/ additionally checks that such code is rejected by the compiler.)
template <class A, class B>
concept Addable = requires(A a, B b) { a + b; };
template <class A, class B>
concept Subtractable = requires(A a, B b) { a - b; };
template <class A, class B>
concept Comparable = requires(A a, B b) { a == b; };

static_assert(!std::is_convertible_v<GpuVa, VramAddr>);
static_assert(!std::is_convertible_v<VramAddr, BusAddr>);
static_assert(!std::is_convertible_v<BusAddr, GpuVa>);
static_assert(!std::is_convertible_v<uint64_t, GpuVa>, "integers need an explicit constructor");
static_assert(!std::is_convertible_v<GpuVa, uint64_t>, "use raw() to get the number out");
static_assert(!Addable<GpuVa, GpuVa>, "adding two addresses is meaningless");
static_assert(!Addable<GpuVa, VramAddr>);
static_assert(Addable<GpuVa, uint64_t>);
static_assert(!Subtractable<GpuVa, VramAddr>);
static_assert(Subtractable<GpuVa, GpuVa>);
static_assert(std::is_same_v<decltype(GpuVa{} - GpuVa{}), uint64_t>);
static_assert(std::is_same_v<decltype(GpuVa{} + uint64_t{1}), GpuVa>);
static_assert(!Comparable<GpuVa, VramAddr>);
static_assert(!Comparable<GpuVa, uint64_t>);
static_assert(Comparable<BusAddr, BusAddr>);
static_assert(sizeof(GpuVa) == 8 && std::is_trivially_copyable_v<GpuVa>);
static_assert(GpuVa(0x1000) + 0x20 == GpuVa(0x1020));

TEST(Address, Arithmetic) {
  VramAddr a(0x10000);
  VramAddr b = a + 0x2000;
  EXPECT_EQ(b.raw(), 0x12000u);
  EXPECT_EQ(b - a, 0x2000u);
  b -= 0x1000;
  EXPECT_EQ(b, VramAddr(0x11000));
  EXPECT_LT(a, b);
  EXPECT_TRUE(a.is_aligned(0x10000));
  EXPECT_FALSE(b.is_aligned(0x10000));
  EXPECT_EQ(b.align_down(0x10000), a);
  EXPECT_EQ(*b.align_up(0x10000), VramAddr(0x20000));
  EXPECT_EQ(GpuVa(0x1234).to_string(), "gpuva:0x1234");
}

TEST(Address, CheckedOperationsReportOverflow) {
  GpuVa top(~uint64_t{0} - 0xfff);
  auto r = top.checked_add(0x1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kOverflow);
  EXPECT_NE(r.error().to_string().find("gpuva"), std::string::npos) << r.error().to_string();
  EXPECT_TRUE(top.checked_add(0xfff).ok());
  auto up = GpuVa(~uint64_t{0} - 1).align_up(0x1000);
  ASSERT_FALSE(up.ok());
  EXPECT_EQ(up.error().code(), Errc::kOverflow);
  EXPECT_EQ(GpuVa(1).align_up(3).error().code(), Errc::kInvalidArgument);
}

TEST(Address, CpuAddrRoundTripsPointers) {
  int x = 5;
  CpuAddr p = CpuAddr::from(&x);
  EXPECT_EQ(p.as<int>(), &x);
  CpuAddr q = p + sizeof(int);
  EXPECT_EQ(q - p, sizeof(int));
}

TEST(Address, Hashable) {
  std::unordered_set<GpuVa> s{GpuVa(1), GpuVa(2), GpuVa(1)};
  EXPECT_EQ(s.size(), 2u);
}

TEST(AddrRange, ContainsAndOverlaps) {
  using R = AddrRange<GpuVa>;
  R r{GpuVa(0x1000), 0x1000};
  EXPECT_TRUE(r.contains(GpuVa(0x1000)));
  EXPECT_TRUE(r.contains(GpuVa(0x1fff)));
  EXPECT_FALSE(r.contains(GpuVa(0x2000)));
  EXPECT_FALSE(r.contains(GpuVa(0xfff)));
  EXPECT_TRUE(r.contains(R{GpuVa(0x1800), 0x800}));
  EXPECT_FALSE(r.contains(R{GpuVa(0x1800), 0x801}));
  EXPECT_TRUE(r.overlaps(R{GpuVa(0x1fff), 1}));
  EXPECT_FALSE(r.overlaps(R{GpuVa(0x2000), 0x1000}));
  EXPECT_FALSE(r.overlaps(R{GpuVa(0x0), 0x1000}));
  EXPECT_TRUE(r.overlaps(R{GpuVa(0x0), 0x1001}));
  EXPECT_FALSE(r.overlaps(R{GpuVa(0x1800), 0}));
}

TEST(AddrRange, RangeEndingAtTopOfAddressSpace) {
  using R = AddrRange<GpuVa>;
  const uint64_t top = ~uint64_t{0};
  R high{GpuVa(top - 0xfff), 0x1000};  // [2^64 - 4096, 2^64): end() wraps to 0
  EXPECT_TRUE(high.contains(GpuVa(top)));
  EXPECT_TRUE(high.overlaps(R{GpuVa(top), 1}));
  EXPECT_TRUE((R{GpuVa(top), 1}.overlaps(high)));
  EXPECT_FALSE(high.overlaps(R{GpuVa(0), 0x1000}));
  EXPECT_TRUE(high.contains(R{GpuVa(top - 0xff), 0x100}));
  EXPECT_FALSE(high.contains(R{GpuVa(top - 0xff), 0x101}));
}

}  // namespace
}  // namespace rawgpu
