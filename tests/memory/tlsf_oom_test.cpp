// A host allocation failure inside Tlsf::alloc leaves the allocator exactly as it was. Its own
// executable: it replaces the global operator new (plain malloc, except one armed request
// size, which throws std::bad_alloc once), which would otherwise apply to every other test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <tuple>
#include <utility>
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

// Everything observable about an allocator's state.
struct Snapshot {
  std::vector<std::tuple<uint64_t, uint64_t, bool>> blocks;
  uint64_t used, free, padding, largest_free, used_blocks, free_blocks, entries, capacity;
  bool operator==(const Snapshot&) const = default;
};
Snapshot snapshot(const Tlsf& t) {
  Snapshot s{};
  t.for_each_block(
      [&](uint64_t addr, uint64_t size, bool free) { s.blocks.emplace_back(addr, size, free); });
  const TlsfStats st = t.stats();
  s.used = st.used, s.free = st.free, s.padding = st.padding, s.largest_free = st.largest_free;
  s.used_blocks = st.used_blocks, s.free_blocks = st.free_blocks;
  s.entries = t.index_stats().entries, s.capacity = t.index_stats().capacity;
  return s;
}

// Runs t.alloc(size, align) with the next host allocation of `fail_size` bytes failing; true if
// alloc threw std::bad_alloc and that allocation was the one that failed. Disarms either way.
bool alloc_fails_with_bad_alloc(Tlsf& t, uint64_t size, uint64_t align, size_t fail_size) {
  g_fail_size = fail_size;
  bool threw = false;
  try {
    (void)t.alloc(size, align);
  } catch (const std::bad_alloc&) {
    threw = true;
  }
  const bool tripped = g_fail_size == 0;
  g_fail_size = 0;
  return threw && tripped;
}

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

  const Snapshot before = snapshot(t);
  // The grown table: the only host allocation of that size the request makes.
  ASSERT_TRUE(alloc_fails_with_bad_alloc(t, 512, 1024, 2 * before.capacity * sizeof(uint32_t)));
  Status s = t.check_invariants();
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_TRUE(snapshot(t) == before);
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

// Out of free blocks, alloc releases the alignment padding kept in front of allocations and
// allocates again; that path, too, reserves what it needs before it releases anything.
TEST(TlsfOom, FailedGrowthWhileReleasingPaddingChangesNothing) {
  TlsfConfig c;
  c.base = 0;
  c.size = 8192;
  c.min_block = 256;
  auto made = Tlsf::create(c);
  ASSERT_TRUE(made.ok()) << made.error().to_string();
  Tlsf t = std::move(made).take_value();
  // Four times: 256 bytes, then 1024 at a 1024 alignment (768 bytes of padding kept in front).
  // The range is then full, and the index holds 8 entries: at its load limit.
  std::vector<uint64_t> live;
  for (int k = 0; k < 4; ++k) {
    for (auto [size, align] : {std::pair<uint64_t, uint64_t>{256, 256}, {1024, 1024}}) {
      auto a = t.alloc(size, align);
      ASSERT_TRUE(a.ok()) << a.error().to_string();
      live.push_back(*a);
    }
  }
  ASSERT_EQ(t.stats().free, 0u);
  ASSERT_EQ(t.stats().padding, 4u * 768);
  ASSERT_EQ(t.index_stats().entries, t.index_stats().capacity / 16);

  const Snapshot before = snapshot(t);
  ASSERT_TRUE(alloc_fails_with_bad_alloc(t, 768, 256, 2 * before.capacity * sizeof(uint32_t)));
  Status s = t.check_invariants();
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_TRUE(snapshot(t) == before) << "padding released or blocks changed";

  auto again = t.alloc(768, 256);  // fits once the padding is released
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(t.stats().padding, 0u);
  live.push_back(*again);
  for (uint64_t x : live) ASSERT_TRUE(t.free(x).ok()) << x;
  s = t.check_invariants();
  ASSERT_TRUE(s.ok()) << s.error().to_string();
}

}  // namespace
}  // namespace rawgpu::memory
