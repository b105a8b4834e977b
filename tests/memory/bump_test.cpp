#include <gtest/gtest.h>

#include "rawgpu/memory/tlsf.h"

namespace rawgpu::memory {
namespace {

TEST(Bump, ConsecutiveAlignedRanges) {
  auto b = BumpAllocator::create(0x1000, 0x100);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b->alloc(0x10), 0x1000u);
  EXPECT_EQ(*b->alloc(0x8), 0x1010u);
  EXPECT_EQ(*b->alloc(0x10, 0x40), 0x1040u);  // absolute alignment
  EXPECT_EQ(b->offset(), 0x50u);
  EXPECT_EQ(b->wraps(), 0u);
}

TEST(Bump, WrapsToTheStart) {
  auto b = BumpAllocator::create(0x1000, 0x100);
  EXPECT_EQ(*b->alloc(0xc0), 0x1000u);
  EXPECT_EQ(*b->alloc(0x40), 0x10c0u);  // exactly fills the ring
  EXPECT_EQ(*b->alloc(0x20), 0x1000u);  // wraps
  EXPECT_EQ(b->wraps(), 1u);
  EXPECT_EQ(*b->alloc(0xe0), 0x1020u);
  EXPECT_EQ(*b->alloc(0x1), 0x1000u);
  EXPECT_EQ(b->wraps(), 2u);
}

TEST(Bump, Errors) {
  EXPECT_TRUE(BumpAllocator::create(0, 0).error().is(Errc::kInvalidArgument));
  EXPECT_TRUE(BumpAllocator::create(~uint64_t{0} - 15, 32).error().is(Errc::kOverflow));
  auto b = BumpAllocator::create(0x1000, 0x100);
  (void)*b->alloc(0x30);
  EXPECT_TRUE(b->alloc(0).error().is(Errc::kInvalidArgument));
  EXPECT_TRUE(b->alloc(8, 12).error().is(Errc::kInvalidArgument));
  auto too_big = b->alloc(0x101);
  ASSERT_FALSE(too_big.ok());
  EXPECT_TRUE(too_big.error().is(Errc::kOutOfMemory));
  // Alignment larger than the ring from an unaligned base: nothing fits.
  EXPECT_TRUE(b->alloc(0x10, 0x2000).error().is(Errc::kOutOfMemory));
  EXPECT_EQ(b->offset(), 0x30u);  // unchanged by the failures
  EXPECT_EQ(b->wraps(), 0u);
}

TEST(Bump, NoWrapReportsFull) {
  auto b = BumpAllocator::create(0, 0x100, /*wrap=*/false);
  EXPECT_EQ(*b->alloc(0x100), 0u);
  auto r = b->alloc(1);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kOutOfMemory));
  EXPECT_NE(r.error().message().find("full"), std::string::npos);
  b->reset();
  EXPECT_EQ(*b->alloc(0x10), 0u);
}

}  // namespace
}  // namespace rawgpu::memory
