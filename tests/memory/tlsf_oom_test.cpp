// A host allocation failure inside Tlsf::alloc leaves the allocator exactly as it was. Its own
// executable: it replaces the global operator new (plain malloc, except one armed request
// size, which throws std::bad_alloc once), which would otherwise apply to every other test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <vector>

#include "rawgpu/memory/tlsf.h"

namespace {
size_t g_fail_size = 0;  // 0: never fail; else the next request of exactly this size throws
}  // namespace

void* operator new(size_t n) {
  if (g_fail_size != 0 && n == g_fail_size) {
    g_fail_size = 0;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace rawgpu::memory {
namespace {

// The address index grows (a new table of twice the slots) when an allocation passes its load
// limit; that growth is the allocation a request may need besides the node pool. It must
// happen before the request changes any block, bin or counter.
TEST(TlsfOom, FailedIndexGrowthChangesNothing) {
  TlsfConfig c;
  c.base = 0x100000;
  c.size = uint64_t{1} << 30;
  c.min_block = 256;
  auto made = Tlsf::create(c);
  ASSERT_TRUE(made.ok()) << made.error().to_string();
  Tlsf t = std::move(made).take_value();
  std::vector<uint64_t> live;
  // Fill the index up to its load limit (the next allocation must grow it), with a free gap
  // in between so that the failing request splits a block and pads it.
  while (t.index_stats().entries < t.index_stats().capacity / 16) {
    auto a = t.alloc(256 * (1 + live.size() % 3), 256);
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    live.push_back(*a);
  }
  ASSERT_TRUE(t.free(live[1]).ok());
  live.erase(live.begin() + 1);
  auto a = t.alloc(256);
  ASSERT_TRUE(a.ok());
  live.push_back(*a);
  ASSERT_EQ(t.index_stats().entries, t.index_stats().capacity / 16);

  const TlsfStats before = t.stats();
  const TlsfIndexStats index_before = t.index_stats();
  std::vector<std::pair<uint64_t, uint64_t>> blocks_before;
  t.for_each_block(
      [&](uint64_t addr, uint64_t size, bool) { blocks_before.push_back({addr, size}); });

  g_fail_size = 2 * index_before.capacity * sizeof(uint32_t);  // the grown table
  EXPECT_THROW((void)t.alloc(512, 1024), std::bad_alloc);
  ASSERT_EQ(g_fail_size, 0u) << "the index did not try to grow";

  Status s = t.check_invariants();
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  const TlsfStats after = t.stats();
  EXPECT_EQ(after.used, before.used);
  EXPECT_EQ(after.free, before.free);
  EXPECT_EQ(after.padding, before.padding);
  EXPECT_EQ(after.largest_free, before.largest_free);
  EXPECT_EQ(after.used_blocks, before.used_blocks);
  EXPECT_EQ(after.free_blocks, before.free_blocks);
  EXPECT_EQ(t.index_stats().entries, index_before.entries);
  EXPECT_EQ(t.index_stats().capacity, index_before.capacity);
  std::vector<std::pair<uint64_t, uint64_t>> blocks_after;
  t.for_each_block(
      [&](uint64_t addr, uint64_t size, bool) { blocks_after.push_back({addr, size}); });
  EXPECT_EQ(blocks_after, blocks_before);
  for (uint64_t x : live) EXPECT_TRUE(t.is_allocated(x)) << x;

  // The same request succeeds afterwards, and everything frees.
  auto again = t.alloc(512, 1024);
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  live.push_back(*again);
  for (uint64_t x : live) ASSERT_TRUE(t.free(x).ok()) << x;
  s = t.check_invariants();
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(t.stats().used, 0u);
}

}  // namespace
}  // namespace rawgpu::memory
