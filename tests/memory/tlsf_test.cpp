#include "rawgpu/memory/tlsf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

namespace rawgpu::memory {
namespace {

Tlsf make(uint64_t size, uint64_t base = 0, uint64_t min_block = 16, unsigned sl = 16) {
  TlsfConfig c;
  c.base = base;
  c.size = size;
  c.min_block = min_block;
  c.sl_count = sl;
  auto t = Tlsf::create(c);
  EXPECT_TRUE(t.ok()) << t.error().to_string();
  return std::move(t).take_value();
}

#define ASSERT_INVARIANTS(t)                        \
  do {                                              \
    Status s_ = (t).check_invariants();             \
    ASSERT_TRUE(s_.ok()) << s_.error().to_string(); \
  } while (0)

// Regression (issue 15, since e6c8e80): the node array grew by exactly what each allocation
// needed, so it was reallocated and copied on every growth and an allocation cost time
// proportional to the live blocks (140 us per alloc at 160k live). Growth must be geometric.
TEST(Tlsf, NodePoolGrowsGeometrically) {
  Tlsf t = make(uint64_t{1} << 30, 0, 256);
  constexpr int kLive = 200000;
  for (int i = 0; i < kLive; ++i) ASSERT_TRUE(t.alloc(256, 256).ok()) << i;
  const TlsfPoolStats p = t.pool_stats();
  EXPECT_GE(p.nodes, uint64_t{kLive});
  EXPECT_GE(p.capacity, p.nodes);
  // Doubling from 64 reaches 200k in 12 steps; allow slack for the create() reservation.
  EXPECT_LE(p.reallocations, 24u) << "node array reallocated " << p.reallocations << " times";
  EXPECT_LE(p.capacity, 4 * p.nodes + 1024);  // and it does not over-reserve either
  ASSERT_INVARIANTS(t);
}

// --- Behaviours of the reference design's tests -----------------------------------------------

TEST(Tlsf, FirstAllocationAtOffsetZeroAndReuseAfterFree) {
  Tlsf t = make(1024);
  EXPECT_EQ(*t.alloc(32), 0u);
  EXPECT_EQ(*t.alloc(64), 32u);
  ASSERT_TRUE(t.free(0).ok());
  EXPECT_EQ(*t.alloc(32), 0u);
  ASSERT_INVARIANTS(t);
}

TEST(Tlsf, SizesRoundToMinBlock) {
  Tlsf t = make(1024);
  const uint64_t a = *t.alloc(20), b = *t.alloc(35);
  EXPECT_EQ(a % 16, 0u);
  EXPECT_EQ(b % 16, 0u);
  EXPECT_EQ(*t.size_of(a), 32u);
  EXPECT_EQ(*t.size_of(b), 48u);
  EXPECT_EQ(t.stats().used, 80u);
}

TEST(Tlsf, CoalescesBothSides) {
  Tlsf t = make(1024);
  const uint64_t a = *t.alloc(32), b = *t.alloc(32), c = *t.alloc(32);
  (void)*t.alloc(32);  // keeps the tail from merging
  ASSERT_TRUE(t.free(a).ok());
  ASSERT_TRUE(t.free(c).ok());
  EXPECT_EQ(t.stats().free_blocks, 3u);  // [a], [c], tail
  ASSERT_TRUE(t.free(b).ok());           // merges with a (left) and c (right)
  EXPECT_EQ(t.stats().free_blocks, 2u);
  EXPECT_EQ(*t.alloc(96), 0u);
  ASSERT_INVARIANTS(t);
}

TEST(Tlsf, SplitsBlocks) {
  Tlsf t = make(1024);
  const uint64_t a = *t.alloc(128);
  ASSERT_TRUE(t.free(a).ok());
  EXPECT_EQ(*t.alloc(32), a);
  EXPECT_EQ(*t.alloc(32), a + 32);
  ASSERT_INVARIANTS(t);
}

TEST(Tlsf, CustomBase) {
  Tlsf t = make(1024, 1024);
  EXPECT_EQ(*t.alloc(32), 1024u);
  EXPECT_EQ(*t.alloc(64), 1056u);
  EXPECT_TRUE(t.free(0).error().is(Errc::kOutOfRange));
}

TEST(Tlsf, Alignment) {
  Tlsf t = make(1 << 20);
  (void)*t.alloc(16);
  const uint64_t a = *t.alloc(100, 4096);
  EXPECT_EQ(a, 4096u);
  EXPECT_EQ(*t.alloc(3000), 16u);  // the 4080-byte gap in front stays usable
  const uint64_t big = *t.alloc(1, 1 << 19);
  EXPECT_EQ(big, 1u << 19);
  ASSERT_INVARIANTS(t);
}

// A gap in front of an aligned allocation that is at most the allocation's size stays inside its
// block as padding (no free block of its own, nothing to merge back on free); a larger gap
// becomes a free block (the Alignment test above).
TEST(Tlsf, SmallAlignmentGapBecomesPadding) {
  Tlsf t = make(1024);
  ASSERT_EQ(*t.alloc(16), 0u);
  const uint64_t a = *t.alloc(100, 64);  // 112 bytes at 64; the 48-byte gap [16, 64) is padding
  EXPECT_EQ(a, 64u);
  EXPECT_EQ(*t.size_of(a), 112u);
  TlsfStats s = t.stats();
  EXPECT_EQ(s.used, 128u);
  EXPECT_EQ(s.padding, 48u);
  EXPECT_EQ(s.free, 1024u - 176u);
  EXPECT_EQ(s.free_blocks, 1u);
  std::vector<std::pair<uint64_t, uint64_t>> blocks;
  t.for_each_block([&](uint64_t addr, uint64_t size, bool free) {
    if (!free) blocks.push_back({addr, size});
  });
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[1], std::make_pair(uint64_t{16}, uint64_t{160}));  // padding + allocation
  ASSERT_INVARIANTS(t);
  // The padding is neither free space nor an allocation start.
  auto inside = t.free(32);
  ASSERT_FALSE(inside.ok());
  EXPECT_TRUE(inside.error().is(Errc::kInvalidArgument));
  EXPECT_NE(inside.error().message().find("alignment padding"), std::string::npos)
      << inside.error().message();
  EXPECT_FALSE(t.is_allocated(16));
  ASSERT_TRUE(t.free(a).ok());
  s = t.stats();
  EXPECT_EQ(s.padding, 0u);
  EXPECT_EQ(s.free, 1024u - 16u);
  EXPECT_EQ(s.free_blocks, 1u);
  EXPECT_EQ(*t.alloc(32), 16u);  // the whole block, padding included, was returned
  ASSERT_INVARIANTS(t);
  // A gap larger than the allocation is split off as a free block: 16 bytes at 512 leave
  // [48, 512) free.
  const uint64_t b = *t.alloc(16, 512);
  EXPECT_EQ(b, 512u);
  EXPECT_EQ(t.stats().padding, 0u);
  EXPECT_EQ(*t.alloc(400), 48u);
  ASSERT_INVARIANTS(t);
}

// Padding is free space when a request needs it: an allocation that only fits once the padding
// is released gets it; one that does not fit even then fails and changes nothing.
TEST(Tlsf, PaddingIsReleasedWhenARequestNeedsIt) {
  Tlsf t = make(1024);
  ASSERT_EQ(*t.alloc(16), 0u);
  ASSERT_EQ(*t.alloc(100, 64), 64u);  // padding [16, 64)
  ASSERT_EQ(*t.alloc(1024 - 176), 176u);
  TlsfStats s = t.stats();
  EXPECT_EQ(s.free, 0u);
  EXPECT_EQ(s.padding, 48u);
  // 64 bytes fit nowhere, not even in the 48 bytes of padding: unchanged.
  auto r = t.alloc(64);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kOutOfMemory));
  EXPECT_EQ(t.stats().padding, 48u);
  EXPECT_EQ(t.stats().free_blocks, 0u);
  ASSERT_INVARIANTS(t);
  // 32 bytes fit in the padding.
  EXPECT_EQ(*t.alloc(32), 16u);
  s = t.stats();
  EXPECT_EQ(s.padding, 0u);
  EXPECT_EQ(s.free, 16u);  // [48, 64)
  EXPECT_EQ(s.free_blocks, 1u);
  ASSERT_INVARIANTS(t);
  EXPECT_EQ(*t.alloc(16, 16), 48u);
  ASSERT_INVARIANTS(t);
}

TEST(Tlsf, ExhaustionReportsLargestFreeBlock) {
  Tlsf t = make(1024);
  auto r = t.alloc(2048);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kOutOfMemory));
  EXPECT_NE(r.error().message().find("largest free block is 1 KiB"), std::string::npos)
      << r.error().message();
  for (int i = 0; i < 4; ++i) (void)*t.alloc(256);
  EXPECT_TRUE(t.alloc(16).error().is(Errc::kOutOfMemory));
  EXPECT_EQ(t.stats().free, 0u);
}

TEST(Tlsf, ErrorsLeaveStateUnchanged) {
  Tlsf t = make(4096);
  const uint64_t a = *t.alloc(64);
  const uint64_t b = *t.alloc(64);
  ASSERT_TRUE(t.free(b).ok());
  auto before = t.stats();
  EXPECT_TRUE(t.alloc(0).error().is(Errc::kInvalidArgument));
  EXPECT_TRUE(t.alloc(16, 3).error().is(Errc::kInvalidArgument));
  EXPECT_TRUE(t.alloc(16, 0).error().is(Errc::kInvalidArgument));
  EXPECT_TRUE(t.alloc(16, 8192).error().is(Errc::kInvalidArgument));
  EXPECT_TRUE(t.alloc(8192).error().is(Errc::kOutOfMemory));
  EXPECT_TRUE(t.free(a + 16).error().is(Errc::kInvalidArgument));  // inside an allocation
  EXPECT_TRUE(t.free(b).error().is(Errc::kAlreadyExists));         // double free
  EXPECT_TRUE(t.free(4096).error().is(Errc::kOutOfRange));
  EXPECT_TRUE(t.size_of(b).error().is(Errc::kNotFound));
  auto after = t.stats();
  EXPECT_EQ(before.used, after.used);
  EXPECT_EQ(before.free_blocks, after.free_blocks);
  EXPECT_EQ(before.used_blocks, after.used_blocks);
  EXPECT_EQ(before.padding, after.padding);
  ASSERT_INVARIANTS(t);
  EXPECT_EQ(*t.size_of(a), 64u);
}

TEST(Tlsf, BadConfigs) {
  TlsfConfig c;
  c.size = 4096;
  c.min_block = 24;
  EXPECT_TRUE(Tlsf::create(c).error().is(Errc::kInvalidArgument));
  c.min_block = 256;
  c.sl_count = 128;
  EXPECT_TRUE(Tlsf::create(c).error().is(Errc::kInvalidArgument));
  c.sl_count = 32;
  c.size = 1000;
  EXPECT_TRUE(Tlsf::create(c).error().is(Errc::kInvalidArgument));
  c.size = 4096;
  c.base = ~uint64_t{0} - 1023;  // 2^64 - 1024: base + 4096 wraps
  EXPECT_TRUE(Tlsf::create(c).error().is(Errc::kOverflow));
  c.size = 1024;  // ends exactly at 2^64: fine
  auto t = Tlsf::create(c);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t->alloc(1024), ~uint64_t{0} - 1023);
}

TEST(Tlsf, HugeRanges) {
  // 2^48 bytes of VA with 4 KiB granules; 2^62 with the default granule.
  Tlsf t = make(uint64_t{1} << 48, uint64_t{1} << 45, 4096, 32);
  const uint64_t a = *t.alloc(uint64_t{1} << 40, uint64_t{1} << 40);
  EXPECT_EQ(a % (uint64_t{1} << 40), 0u);
  EXPECT_EQ(*t.alloc(uint64_t{1} << 47), (uint64_t{1} << 45) + (uint64_t{1} << 40));
  ASSERT_INVARIANTS(t);
  Tlsf big = make(uint64_t{1} << 62, 0, 256, 32);
  EXPECT_EQ(*big.alloc((uint64_t{1} << 62) - 256), 0u);
  EXPECT_TRUE(big.alloc(512).error().is(Errc::kOutOfMemory));
}

// The reference design searches for size + align - 1 and so cannot use an exactly fitting,
// aligned hole: 2 MiB at 2 MiB alignment must come from a free 2 MiB-aligned 2 MiB block.
TEST(Tlsf, AlignedRequestUsesExactlyFittingHole) {
  constexpr uint64_t kM2 = 2 << 20;
  Tlsf t = make(16 * kM2, 0, 4096, 32);
  std::vector<uint64_t> blocks;
  for (int i = 0; i < 16; ++i) blocks.push_back(*t.alloc(kM2, kM2));
  ASSERT_TRUE(t.free(blocks[5]).ok());
  ASSERT_TRUE(t.free(blocks[11]).ok());
  const uint64_t x = *t.alloc(kM2, kM2), y = *t.alloc(kM2, kM2);
  EXPECT_EQ(std::min(x, y), blocks[5]);
  EXPECT_EQ(std::max(x, y), blocks[11]);
  EXPECT_TRUE(t.alloc(kM2, kM2).error().is(Errc::kOutOfMemory));
  ASSERT_INVARIANTS(t);
}

TEST(Tlsf, AlignedRequestScansCandidatesWhenNothingSurelyFits) {
  // 64 free 8 KiB holes: one 8 KiB-aligned (freed first, so last in its free list), the others
  // at 4 KiB mod 8 KiB. Nothing is large enough to surely fit 8 KiB at 8 KiB alignment, and the
  // head of the bin does not fit: the exhaustive pass must find the aligned hole.
  Tlsf t = make(uint64_t{1} << 22, 0, 4096, 32);
  const uint64_t aligned_hole = *t.alloc(8192);
  ASSERT_EQ(aligned_hole, 0u);
  (void)*t.alloc(4096);
  std::vector<uint64_t> holes;
  for (int i = 0; i < 63; ++i) {
    holes.push_back(*t.alloc(8192));
    (void)*t.alloc(8192);
  }
  (void)*t.alloc(t.stats().largest_free);  // no large free block left
  ASSERT_TRUE(t.free(aligned_hole).ok());
  for (uint64_t h : holes) {
    ASSERT_EQ(h % 8192, 4096u);
    ASSERT_TRUE(t.free(h).ok());
  }
  EXPECT_EQ(*t.alloc(8192, 8192), aligned_hole);
  EXPECT_TRUE(t.alloc(8192, 8192).error().is(Errc::kOutOfMemory));
  // 4 KiB at 8 KiB alignment fits in the second half of any odd hole.
  const uint64_t a = *t.alloc(4096, 8192);
  EXPECT_EQ(a % 8192, 0u);
  ASSERT_INVARIANTS(t);
}

TEST(Tlsf, StatsAndFragmentation) {
  Tlsf t = make(1024);
  EXPECT_EQ(t.stats().fragmentation(), 0.0);
  const uint64_t a = *t.alloc(256), b = *t.alloc(256), c = *t.alloc(256);
  (void)b;
  ASSERT_TRUE(t.free(a).ok());
  ASSERT_TRUE(t.free(c).ok());
  // free: [0,256) and [512,1024) -> largest 512 of 768.
  const TlsfStats s = t.stats();
  EXPECT_EQ(s.used, 256u);
  EXPECT_EQ(s.free, 768u);
  EXPECT_EQ(s.largest_free, 512u);
  EXPECT_EQ(s.used_blocks, 1u);
  EXPECT_EQ(s.free_blocks, 2u);
  EXPECT_DOUBLE_EQ(s.fragmentation(), 1.0 - 512.0 / 768.0);
}

TEST(Tlsf, InvariantCheckerDetectsNothingOnFreshAndFull) {
  Tlsf t = make(256, 0, 16, 2);
  ASSERT_INVARIANTS(t);
  for (int i = 0; i < 16; ++i) (void)*t.alloc(16);
  ASSERT_INVARIANTS(t);
  int blocks = 0;
  t.for_each_block([&](uint64_t addr, uint64_t size, bool free) {
    EXPECT_EQ(addr, uint64_t(blocks) * 16);
    EXPECT_EQ(size, 16u);
    EXPECT_FALSE(free);
    ++blocks;
  });
  EXPECT_EQ(blocks, 16);
}

TEST(Tlsf, TypedAddressAllocator) {
  auto va = AddressAllocator<GpuVa>::create(GpuVa(0x200000000000), uint64_t{1} << 44, 4096);
  ASSERT_TRUE(va.ok());
  auto a = va->alloc(2 << 20, 2 << 20);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, GpuVa(0x200000000000));
  EXPECT_TRUE(va->contains(*a));
  EXPECT_FALSE(va->contains(GpuVa(0x100000000000)));
  EXPECT_EQ(*va->size_of(*a), 2u << 20);
  EXPECT_TRUE(va->free(*a).ok());
  EXPECT_TRUE(va->free(*a).error().is(Errc::kAlreadyExists));
}

// --- The address index (open addressing, backward-shift deletion) ------------------------------

// Many live allocations: the index grows through several rehashes, stays within its load limit,
// finds every allocation, and deleting in random order (backward shifts across wrapped probe
// chains) loses none of the others.
TEST(TlsfIndex, GrowsAndDeletesUnderManyLiveBlocks) {
  Tlsf t = make(uint64_t{1} << 26, 0x100000, 16, 32);
  EXPECT_EQ(t.index_stats().entries, 0u);
  const uint64_t initial_capacity = t.index_stats().capacity;
  std::mt19937_64 rng(7);
  std::vector<std::pair<uint64_t, uint64_t>> live;  // addr, rounded size
  constexpr int kBlocks = 60000;
  for (int k = 0; k < kBlocks; ++k) {
    const uint64_t size = 16 * (1 + rng() % 16);
    const uint64_t align = uint64_t{16} << (rng() % 4);
    auto a = t.alloc(size, align);
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    live.push_back({*a, size});
    if (k % 10000 == 0) {
      const TlsfIndexStats s = t.index_stats();
      EXPECT_EQ(s.entries, live.size());
      EXPECT_LE(s.entries * 16, s.capacity);
    }
  }
  const TlsfIndexStats grown = t.index_stats();
  EXPECT_EQ(grown.entries, uint64_t{kBlocks});
  EXPECT_GE(grown.capacity, uint64_t{kBlocks} * 16);
  EXPECT_GT(grown.capacity, initial_capacity);
  // Fibonacci hashing of these addresses keeps probe chains short even with 60000 entries.
  EXPECT_LE(grown.max_probe, 8u) << "capacity " << grown.capacity;
  std::printf("%llu entries, capacity %llu, max probe %llu\n",
              static_cast<unsigned long long>(grown.entries),
              static_cast<unsigned long long>(grown.capacity),
              static_cast<unsigned long long>(grown.max_probe));
  ASSERT_INVARIANTS(t);
  for (const auto& [a, size] : live) ASSERT_EQ(*t.size_of(a), size);
  // Free a random half, checking that every survivor is still found.
  std::shuffle(live.begin(), live.end(), rng);
  for (int k = 0; k < kBlocks / 2; ++k) {
    ASSERT_TRUE(t.free(live.back().first).ok());
    ASSERT_FALSE(t.is_allocated(live.back().first));
    live.pop_back();
  }
  for (const auto& [a, size] : live) ASSERT_EQ(*t.size_of(a), size) << a;
  ASSERT_INVARIANTS(t);
  for (const auto& [a, size] : live) ASSERT_TRUE(t.free(a).ok());
  EXPECT_EQ(t.index_stats().entries, 0u);
  EXPECT_EQ(t.stats().free_blocks, 1u);
  ASSERT_INVARIANTS(t);
}

// Addresses with many trailing zero bits (2 MiB and 64 GiB aligned blocks in a 2^48 range, the
// GPU VA case) must not collide in the index: its hash uses the high bits of a multiplication.
TEST(TlsfIndex, AlignedAddressesKeepProbeChainsShort) {
  for (const uint64_t step : {uint64_t{2} << 20, uint64_t{64} << 30}) {
    Tlsf t = make(uint64_t{1} << 48, uint64_t{1} << 47, 4096, 32);
    std::vector<uint64_t> addrs;
    const int n = step == (uint64_t{2} << 20) ? 20000 : 4000;
    for (int k = 0; k < n; ++k) {
      auto a = t.alloc(step, step);
      ASSERT_TRUE(a.ok()) << a.error().to_string();
      ASSERT_EQ(*a % step, 0u);
      addrs.push_back(*a);
    }
    const TlsfIndexStats s = t.index_stats();
    EXPECT_EQ(s.entries, uint64_t(n));
    EXPECT_LE(s.max_probe, 4u) << "step " << step;
    std::printf("step %llu: %llu entries, capacity %llu, max probe %llu\n",
                static_cast<unsigned long long>(step), static_cast<unsigned long long>(s.entries),
                static_cast<unsigned long long>(s.capacity),
                static_cast<unsigned long long>(s.max_probe));
    // Every other block freed and the rest still found: deletions inside probe chains.
    for (size_t k = 0; k < addrs.size(); k += 2) ASSERT_TRUE(t.free(addrs[k]).ok());
    for (size_t k = 1; k < addrs.size(); k += 2) ASSERT_TRUE(t.is_allocated(addrs[k]));
    for (size_t k = 0; k < 64; k += 2) {  // (the error path walks the blocks: a few suffice)
      ASSERT_TRUE(t.free(addrs[k]).error().is(Errc::kAlreadyExists));
    }
    ASSERT_INVARIANTS(t);
  }
}

// --- Model-based randomized test ------------------------------------------------------------

// Live ranges in a std::map; every TLSF answer is checked against it. An allocation may fail
// only if no gap between live allocations can hold it at the requested alignment (alignment
// padding the allocator keeps in front of allocations counts as such a gap: it is released when
// a request needs it). blocks() checks the padding: each allocated block (for_each_block) holds
// exactly one live allocation, its padding is in front, below the allocation's alignment and at
// most the allocation's size.
class TlsfModel {
 public:
  TlsfModel(uint64_t base, uint64_t size, uint64_t granule)
      : base_(base), size_(size), granule_(granule) {}
  // Verifies the allocated blocks against the live allocations; returns the total padding.
  uint64_t padding(const Tlsf& t) const {
    uint64_t padding = 0, blocks = 0;
    t.for_each_block([&](uint64_t start, uint64_t len, bool free) {
      if (free) return;
      ++blocks;
      auto it = live_.lower_bound(start);
      EXPECT_TRUE(it != live_.end()) << "allocated block " << start << " holds no allocation";
      if (it == live_.end()) return;
      const uint64_t a = it->first, bytes = it->second, pad = a - start;
      EXPECT_EQ(start + len, a + bytes)
          << "block " << start << " + " << len << " vs allocation " << a << " + " << bytes;
      EXPECT_LT(pad, align_.at(a)) << "padding in front of " << a;
      EXPECT_LE(pad, bytes) << "padding in front of " << a;
      padding += pad;
    });
    EXPECT_EQ(blocks, live_.size());
    return padding;
  }
  bool can_fit(uint64_t bytes, uint64_t align) const {
    uint64_t cursor = base_;
    auto fits = [&](uint64_t lo, uint64_t hi) {
      const uint64_t a = (lo + align - 1) / align * align;
      return a >= lo && a <= hi && hi - a >= bytes;
    };
    for (const auto& [start, sz] : live_) {
      if (fits(cursor, start)) return true;
      cursor = start + sz;
    }
    return fits(cursor, base_ + size_);
  }
  bool overlaps(uint64_t addr, uint64_t bytes) const {
    auto it = live_.upper_bound(addr);
    if (it != live_.end() && it->first < addr + bytes) return true;
    if (it != live_.begin() && std::prev(it)->first + std::prev(it)->second > addr) return true;
    return false;
  }
  std::map<uint64_t, uint64_t> live_;
  std::map<uint64_t, uint64_t> align_;
  uint64_t base_, size_, granule_;
};

void run_model(uint64_t seed, int ops, int check_every, unsigned sl = 32) {
  constexpr uint64_t kBase = 0x10000, kSize = 1 << 20, kGranule = 256;
  Tlsf t = make(kSize, kBase, kGranule, sl);
  TlsfModel model(kBase, kSize, kGranule);
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> live;
  uint64_t allocs = 0, failures = 0, frees = 0, bad = 0, double_frees = 0, total_padding = 0;
  for (int op = 0; op < ops; ++op) {
    const unsigned r = rng() % 100;
    if (r < 52 || live.empty()) {
      uint64_t size;
      const unsigned k = rng() % 10;
      if (k < 6)
        size = 1 + rng() % 2048;
      else if (k < 9)
        size = 1 + rng() % 32768;
      else
        size = 1 + rng() % 200000;
      const uint64_t align = uint64_t{1} << (rng() % 10 < 7 ? rng() % 9 : rng() % 18);
      const uint64_t bytes = (size + kGranule - 1) / kGranule * kGranule;
      auto a = t.alloc(size, align);
      if (a.ok()) {
        ++allocs;
        ASSERT_EQ(*a % std::max(align, kGranule), 0u) << "op " << op;
        ASSERT_GE(*a, kBase);
        ASSERT_LE(*a + bytes, kBase + kSize);
        ASSERT_FALSE(model.overlaps(*a, bytes)) << "op " << op << " addr " << *a;
        ASSERT_EQ(*t.size_of(*a), bytes);
        model.live_[*a] = bytes;
        model.align_[*a] = std::max(align, kGranule);
        live.push_back(*a);
      } else {
        ++failures;
        ASSERT_TRUE(a.error().is(Errc::kOutOfMemory)) << a.error().to_string();
        ASSERT_FALSE(model.can_fit(bytes, std::max(align, kGranule)))
            << "op " << op << ": TLSF refused " << bytes << " aligned " << align
            << " although a gap fits";
      }
    } else if (r < 97) {
      const size_t i = rng() % live.size();
      const uint64_t a = live[i];
      live[i] = live.back();
      live.pop_back();
      ASSERT_TRUE(t.free(a).ok()) << "op " << op;
      model.live_.erase(a);
      model.align_.erase(a);
      ++frees;
      if (rng() % 16 == 0) {  // a double free right away: the block is free space now
        ++double_frees;
        const uint64_t used = t.stats().used;
        ASSERT_TRUE(t.free(a).error().is(Errc::kAlreadyExists)) << "op " << op;
        ASSERT_EQ(t.stats().used, used);
      }
    } else {
      // Invalid operations: must fail with the right code and change nothing.
      ++bad;
      const uint64_t a = live[rng() % live.size()];
      if (model.live_[a] > kGranule) {
        ASSERT_TRUE(t.free(a + kGranule).error().is(Errc::kInvalidArgument));
      }
      ASSERT_TRUE(t.alloc(0).error().is(Errc::kInvalidArgument));
      ASSERT_TRUE(t.alloc(64, 96).error().is(Errc::kInvalidArgument));
      ASSERT_TRUE(t.free(kBase + kSize).error().is(Errc::kOutOfRange));
      ASSERT_TRUE(t.free(kBase - kGranule).error().is(Errc::kOutOfRange));
    }
    if (check_every > 0 && op % check_every == 0) ASSERT_INVARIANTS(t);
    if (op % 4096 == 0) {
      uint64_t used = 0;
      for (const auto& [s, sz] : model.live_) used += sz;
      ASSERT_EQ(t.stats().used, used);
      ASSERT_EQ(t.stats().used_blocks, model.live_.size());
      const uint64_t padding = model.padding(t);
      ASSERT_EQ(t.stats().padding, padding);
      ASSERT_EQ(t.stats().used + t.stats().padding + t.stats().free, kSize);
      total_padding += padding;
    }
  }
  ASSERT_INVARIANTS(t);
  // Both outcomes and both operations were exercised substantially.
  EXPECT_GT(allocs, uint64_t(ops) / 4);
  EXPECT_GT(frees, uint64_t(ops) / 4);
  EXPECT_GT(failures, 100u);
  EXPECT_GT(bad, 100u);
  EXPECT_GT(double_frees, 100u);
  EXPECT_GT(total_padding, 0u);  // the padding rule was exercised
  for (uint64_t a : live) ASSERT_TRUE(t.free(a).ok());
  EXPECT_EQ(t.stats().free_blocks, 1u);
  EXPECT_EQ(t.stats().largest_free, kSize);
}

#ifdef NDEBUG
constexpr int kCheckEvery = 61;  // release builds sample the invariant checker
#else
constexpr int kCheckEvery = 1;  // every operation where assertions are on
#endif

TEST(TlsfModel, MillionRandomOperations) { run_model(1, 1'000'000, kCheckEvery); }
TEST(TlsfModel, OtherSeeds) {
  for (uint64_t seed = 2; seed < 6; ++seed) run_model(seed, 50'000, 1);
}
// The other second-level counts take their own instantiations of the allocator's fast paths.
TEST(TlsfModel, SixtyFourAndSixteenSecondLevelBins) {
  run_model(7, 50'000, 1, 64);
  run_model(8, 50'000, 1, 16);
}

}  // namespace
}  // namespace rawgpu::memory
