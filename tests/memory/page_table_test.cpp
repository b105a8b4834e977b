#include "rawgpu/memory/page_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "rawgpu/memory/memory_manager.h"

namespace rawgpu::memory {
namespace {

constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
constexpr uint64_t kPage = 4 * kKiB;

#define ASSERT_OK(expr)                                              \
  do {                                                               \
    auto r_ = (expr);                                                \
    ASSERT_TRUE(r_.ok()) << #expr << ": " << r_.error().to_string(); \
  } while (0)

// Table pages from a TLSF pool over [0, 64 MiB), with optional failure injection.
class PoolPages final : public TablePageSource {
 public:
  PoolPages() : pool_(*AddressAllocator<VramAddr>::create(VramAddr(0), 64 * kMiB, kPage)) {}
  Result<VramAddr> alloc_table_page() override {
    if (budget_ == 0) return make_error(Errc::kOutOfMemory, "test: table page budget exhausted");
    if (budget_ > 0) --budget_;
    return pool_.alloc(kPage, kPage);
  }
  void free_table_page(VramAddr page) override { ASSERT_TRUE(pool_.free(page).ok()); }
  void set_budget(int64_t pages) { budget_ = pages; }
  uint64_t used() const { return pool_.stats().used_blocks; }

 private:
  AddressAllocator<VramAddr> pool_;
  int64_t budget_ = -1;
};

struct Mapped {
  uint64_t va, size, pa;
  unsigned level, fragment;
  PageAttrs attrs;
};

class PageTableTest : public ::testing::TestWithParam<PageTableFormat> {
 protected:
  void SetUp() override {
    auto pt = PageTable::create(make_codec(GetParam()), vram_, pages_, GpuVa(kVaBase));
    ASSERT_TRUE(pt.ok()) << pt.error().to_string();
    pt_ = std::move(pt).take_value();
    pt_->set_invalidate_hook([this](GpuVa va, uint64_t size) { flushes_.push_back({va, size}); });
  }
  GpuVa va(uint64_t off) const { return GpuVa(kVaBase + off); }
  std::vector<Mapped> inspect(uint64_t off, uint64_t size) {
    std::vector<Mapped> out;
    Status s = pt_->inspect(va(off), size, [&](const MappedPage& m) {
      out.push_back({m.va.raw() - kVaBase, m.size, m.pa, m.level, m.fragment, m.attrs});
    });
    EXPECT_TRUE(s.ok()) << s.error().to_string();
    return out;
  }
  Status map1(uint64_t off, uint64_t pa, uint64_t size, PageAttrs a = {}) {
    const AddrRange<VramAddr> c{VramAddr(pa), size};
    return pt_->map(va(off), std::span(&c, 1), a);
  }
  // Everything the GPU can see: every table page's words.
  std::map<uint64_t, std::vector<uint64_t>> snapshot() {
    std::map<uint64_t, std::vector<uint64_t>> s;
    for (VramAddr p : pt_->table_pages()) {
      const uint64_t* w = vram_.words(p, kPage);
      s[p.raw()] = std::vector<uint64_t>(w, w + kPage / 8);
    }
    return s;
  }
  void expect_identity(uint64_t off, uint64_t size, uint64_t pa) {
    uint64_t covered = 0;
    for (const Mapped& m : inspect(off, size)) {
      EXPECT_EQ(m.pa, pa + (m.va - off)) << std::hex << "va " << m.va;
      covered += m.size;
    }
    EXPECT_EQ(covered, size);
  }
  void check() {
    Status s = pt_->check_invariants();
    ASSERT_TRUE(s.ok()) << s.error().to_string();
  }
  bool amd() const { return GetParam() <= PageTableFormat::kAmdGfx12; }
  unsigned pdb0() const { return pt_->codec().last_level() - 1; }  // the 2 MiB level

  static constexpr uint64_t kVaBase = 0x200000000000;
  SparseVram vram_{64 * kGiB};
  PoolPages pages_;
  std::unique_ptr<PageTable> pt_;
  std::vector<std::pair<GpuVa, uint64_t>> flushes_;
};

// The reference design's walker cases: map (va -> pa = va), inspect covers exactly the range
// with the right addresses, unmap clears it and frees every table but the root.
TEST_P(PageTableTest, WalkerCases) {
  const std::pair<uint64_t, uint64_t> cases[] = {
      {0x10000, 0x3000},   {0x11000, 0x300000},    {0x10000, 0x2000},   {0x11000, 0x5000},
      {0x2000000, 0x2000}, {0x4000000, 0x4000000}, {0x38000, 0x303000}, {0x8000, 0x1000}};
  for (auto [off, size] : cases) {
    ASSERT_OK(map1(off, off, size));
    expect_identity(off, size, off);
    check();
    ASSERT_OK(pt_->unmap(va(off), size));
    EXPECT_TRUE(inspect(0, 1 * kGiB).empty());
    EXPECT_EQ(pt_->stats().tables, 1u) << "tables leaked after unmapping " << std::hex << off;
    check();
  }
  EXPECT_EQ(pages_.used(), 1u);
}

TEST_P(PageTableTest, HugePagesNeedVaAndPaAlignment) {
  // VA and PA 2 MiB-aligned: one 2 MiB leaf.
  ASSERT_OK(map1(2 * kMiB, 6 * kMiB, 2 * kMiB));
  auto m = inspect(2 * kMiB, 2 * kMiB);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].size, 2 * kMiB);
  EXPECT_EQ(m[0].level, pdb0());
  // VA aligned, PA only 4 KiB-aligned: 512 small pages (the reference would emit a 2 MiB leaf
  // and the hardware would drop the low PA bits).
  ASSERT_OK(map1(8 * kMiB, 6 * kMiB + 2 * kMiB + kPage, 2 * kMiB));
  m = inspect(8 * kMiB, 2 * kMiB);
  ASSERT_EQ(m.size(), 512u);
  for (const Mapped& x : m) EXPECT_EQ(x.size, kPage);
  expect_identity(8 * kMiB, 2 * kMiB, 8 * kMiB + kPage);
  // 1 GiB VA, PA only 2 MiB-aligned: 2 MiB leaves (AMD would otherwise use a 1 GiB PDB1 leaf,
  // NV a 512 MiB PDE1 leaf).
  ASSERT_OK(map1(1 * kGiB, 2 * kGiB + 2 * kMiB, 1 * kGiB));
  m = inspect(1 * kGiB, 1 * kGiB);
  ASSERT_EQ(m.size(), 512u);
  for (const Mapped& x : m) EXPECT_EQ(x.size, 2 * kMiB);
  // Fully aligned 1 GiB: the biggest leaf the format has.
  ASSERT_OK(map1(4 * kGiB, 8 * kGiB, 1 * kGiB));
  m = inspect(4 * kGiB, 1 * kGiB);
  ASSERT_EQ(m.size(), amd() ? 1u : 2u);
  EXPECT_EQ(m[0].size, amd() ? 1 * kGiB : 512 * kMiB);
  check();
}

TEST_P(PageTableTest, MixedSmallAndHugeInEitherOrder) {
  // 4 KiB page next to a 2 MiB page, then the other order in another 2 MiB region.
  ASSERT_OK(map1(0x10000, 0x10000, kPage));
  ASSERT_OK(map1(0x200000, 0x400000, 2 * kMiB));
  ASSERT_OK(map1(0x600000, 0x800000, 2 * kMiB));
  ASSERT_OK(map1(0x800000 + 0x3000, 0x3000, kPage));
  EXPECT_EQ(inspect(0, 16 * kMiB).size(), 4u);
  check();
  ASSERT_OK(pt_->unmap(va(0x200000), 2 * kMiB));
  ASSERT_OK(pt_->unmap(va(0x10000), kPage));
  ASSERT_OK(pt_->unmap(va(0x803000), kPage));
  ASSERT_OK(pt_->unmap(va(0x600000), 2 * kMiB));
  EXPECT_EQ(pt_->stats().tables, 1u);
  // Map the 4 KiB neighbour of a not-aligned 2 MiB range (reference test_map_notaligned).
  ASSERT_OK(map1(0x10000, 0x10000, kPage));
  ASSERT_OK(map1(0x11000, 0x11000, 2 * kMiB));
  ASSERT_OK(pt_->unmap(va(0x11000), 2 * kMiB));
  ASSERT_OK(pt_->unmap(va(0x10000), kPage));
  EXPECT_EQ(pt_->stats().tables, 1u);
  check();
}

TEST_P(PageTableTest, OverlapsAreErrorsAndChangeNothing) {
  for (auto [off, size] : {std::pair<uint64_t, uint64_t>{0x10000, 0x3000},
                           {0x1000000, 0x1000000},
                           {0x12000, 0x4000}}) {
    ASSERT_OK(map1(off, off, size));
    const auto before = snapshot();
    const uint64_t pages_before = pages_.used();
    const size_t flushes = flushes_.size();
    for (auto [o, s] : {std::pair<uint64_t, uint64_t>{off, 0x1000},
                        {off, 0x100000},
                        {off + 0x1000, 0x1000},
                        {off + 0x2000, 0x100000},
                        {off - 0x1000, 0x2000}}) {
      Status st = map1(o, 0x7000000, s);
      ASSERT_FALSE(st.ok());
      EXPECT_TRUE(st.error().is(Errc::kAlreadyExists)) << st.error().to_string();
    }
    EXPECT_EQ(snapshot(), before);
    EXPECT_EQ(pages_.used(), pages_before);
    EXPECT_EQ(flushes_.size(), flushes) << "no TLB invalidation for a failed map";
    ASSERT_OK(pt_->unmap(va(off), size));
    // Now it maps, with the chunks' addresses (two chunks).
    const AddrRange<VramAddr> chunks[] = {{VramAddr(0xdead0000), 0x1000},
                                          {VramAddr(0xdead1000), 0xff000}};
    ASSERT_OK(pt_->map(va(off + 0x2000), chunks, {}));
    expect_identity(off + 0x2000, 0x100000, 0xdead0000);
    ASSERT_OK(pt_->unmap(va(off + 0x2000), 0x100000));
  }
  EXPECT_EQ(pt_->stats().tables, 1u);
}

TEST_P(PageTableTest, BadUnmaps) {
  Status s = pt_->unmap(va(0x10000), 0x3000);
  EXPECT_TRUE(s.error().is(Errc::kNotFound)) << s.error().to_string();
  ASSERT_OK(map1(0x10000, 0x10000, 0x3000));
  ASSERT_OK(pt_->unmap(va(0x10000), 0x3000));
  EXPECT_TRUE(pt_->unmap(va(0x10000), 0x3000).error().is(Errc::kNotFound));  // twice
  // Partially mapped range: nothing is unmapped.
  ASSERT_OK(map1(0x10000, 0x10000, 0x2000));
  const auto before = snapshot();
  s = pt_->unmap(va(0x10000), 0x3000);
  EXPECT_TRUE(s.error().is(Errc::kNotFound));
  EXPECT_NE(s.error().message().find("0x200000012000"), std::string::npos) << s.error().message();
  EXPECT_EQ(snapshot(), before);
  // Cutting a huge page in two is refused.
  ASSERT_OK(map1(2 * kMiB, 2 * kMiB, 2 * kMiB));
  const auto before2 = snapshot();
  s = pt_->unmap(va(2 * kMiB), kPage);
  EXPECT_TRUE(s.error().is(Errc::kInvalidArgument)) << s.error().to_string();
  EXPECT_NE(s.error().message().find("split the 2 MiB page"), std::string::npos);
  EXPECT_EQ(snapshot(), before2);
  EXPECT_TRUE(pt_->unmap(va(0x10001), 0x1000).error().is(Errc::kInvalidArgument));
  EXPECT_TRUE(pt_->unmap(va(0x10000), 0).error().is(Errc::kInvalidArgument));
  check();
}

TEST_P(PageTableTest, BadMaps) {
  EXPECT_TRUE(map1(0x1001, 0, kPage).error().is(Errc::kInvalidArgument));
  EXPECT_TRUE(map1(0x1000, 0x800, kPage).error().is(Errc::kInvalidArgument));
  EXPECT_TRUE(map1(0x1000, 0, 0x1800).error().is(Errc::kInvalidArgument));
  EXPECT_TRUE(map1(0x1000, 0, 0).error().is(Errc::kInvalidArgument));
  const AddrRange<VramAddr> c{VramAddr(0), kPage};
  EXPECT_TRUE(pt_->map(GpuVa(kVaBase - kPage), std::span(&c, 1), {}).error().is(Errc::kOutOfRange));
  EXPECT_TRUE(
      pt_->map(va(pt_->va_size() - kPage), std::span(&c, 2 - 1), {}).ok());  // the last page
  EXPECT_TRUE(map1(pt_->va_size(), 0, kPage).error().is(Errc::kOutOfRange));
  const uint64_t limit = pt_->codec().phys_limit(Aperture::kVram);
  Status s = map1(0x1000, limit - kPage, 2 * kPage);
  EXPECT_TRUE(s.error().is(Errc::kOutOfRange)) << s.error().to_string();
  PageAttrs sys;
  sys.aperture = Aperture::kSystem;
  EXPECT_TRUE(map1(0x1000, 0, kPage, sys).error().is(Errc::kInvalidArgument));
  const AddrRange<BusAddr> b{BusAddr(0x1000), kPage};
  EXPECT_TRUE(pt_->map(va(0x1000), std::span(&b, 1), {}).error().is(Errc::kInvalidArgument));
  ASSERT_OK(pt_->map(va(0x1000), std::span(&b, 1), sys));
  auto t = pt_->translate(va(0x1234));
  ASSERT_OK(t);
  EXPECT_EQ(t->pa, 0x1000u);
  EXPECT_EQ(t->attrs.aperture, Aperture::kSystem);
  check();
}

// Partially mapped 2 MiB regions free their page table on unmap, so a later 2 MiB leaf fits
// (reference test_free_pt). The same physical page is mapped many times (aliasing is allowed).
TEST_P(PageTableTest, EmptyTablesAreFreedSoHugeMapsSucceedLater) {
  const uint64_t base = 16 * kMiB;
  for (uint64_t front : {uint64_t{0}, uint64_t{0x3000}, uint64_t{0x10000}}) {
    std::vector<AddrRange<VramAddr>> chunks((2 * kMiB - front) / kPage, {VramAddr(0x10000), kPage});
    ASSERT_OK(pt_->map(va(base + front), chunks, {}));
    ASSERT_OK(pt_->unmap(va(base + front), 2 * kMiB - front));
    ASSERT_OK(map1(base, 0x200000, 2 * kMiB));
    EXPECT_EQ(inspect(base, 2 * kMiB).size(), 1u);
    ASSERT_OK(pt_->unmap(va(base), 2 * kMiB));
  }
  for (uint64_t back : {uint64_t{0x1000}, uint64_t{0x20000}}) {
    std::vector<AddrRange<VramAddr>> chunks((2 * kMiB - back) / kPage, {VramAddr(0x10000), kPage});
    ASSERT_OK(pt_->map(va(base), chunks, {}));
    ASSERT_OK(pt_->unmap(va(base), 2 * kMiB - back));
    ASSERT_OK(map1(base, 0x200000, 2 * kMiB));
    ASSERT_OK(pt_->unmap(va(base), 2 * kMiB));
  }
  EXPECT_EQ(pt_->stats().tables, 1u);
  check();
}

// The reference walker stops descending after a huge page at the start of an unmap range and
// leaks the tables below the rest of the range.
TEST_P(PageTableTest, UnmapStartingWithHugePageFreesEverything) {
  const AddrRange<VramAddr> chunks[] = {{VramAddr(0x400000), 2 * kMiB},
                                        {VramAddr(0x1000), 3 * kPage},
                                        {VramAddr(0x800000), 2 * kMiB}};
  ASSERT_OK(pt_->map(va(0x200000), chunks, {}));
  auto m = inspect(0x200000, 4 * kMiB + 3 * kPage);
  ASSERT_EQ(m.size(), 1u + 3u + 512u);  // the last chunk starts at an unaligned VA
  EXPECT_EQ(m[0].size, 2 * kMiB);
  EXPECT_GT(pt_->stats().tables, 3u);
  ASSERT_OK(pt_->unmap(va(0x200000), 4 * kMiB + 3 * kPage));
  EXPECT_EQ(pt_->stats().tables, 1u);
  EXPECT_EQ(pages_.used(), 1u);
  check();
}

TEST_P(PageTableTest, RollsBackWhenTablePagesRunOut) {
  ASSERT_OK(map1(0, 0, kPage));
  const auto before = snapshot();
  const uint64_t used = pages_.used();
  // Mapping at 3 GiB + scattered pages in 8 different 2 MiB regions needs new tables.
  std::vector<AddrRange<VramAddr>> chunks(8 * 512, {VramAddr(0x5000), kPage});
  for (int budget = 0; budget < 6; ++budget) {
    pages_.set_budget(budget);
    Status s = pt_->map(va(3 * kGiB), chunks, {});
    ASSERT_FALSE(s.ok()) << "budget " << budget;
    EXPECT_TRUE(s.error().is(Errc::kOutOfMemory)) << s.error().to_string();
    EXPECT_EQ(snapshot(), before) << "budget " << budget;
    EXPECT_EQ(pages_.used(), used);
    check();
  }
  pages_.set_budget(-1);
  ASSERT_OK(pt_->map(va(3 * kGiB), chunks, {}));
  check();
}

TEST_P(PageTableTest, InvalidateHookSeesEveryChange) {
  ASSERT_OK(map1(0x10000, 0x10000, 0x3000));
  ASSERT_OK(pt_->unmap(va(0x10000), 0x3000));
  ASSERT_EQ(flushes_.size(), 2u);
  EXPECT_EQ(flushes_[0].first, va(0x10000));
  EXPECT_EQ(flushes_[0].second, 0x3000u);
  EXPECT_EQ(flushes_[1].first, va(0x10000));
  EXPECT_FALSE(pt_->unmap(va(0x10000), 0x3000).ok());
  EXPECT_EQ(flushes_.size(), 2u);
}

TEST_P(PageTableTest, TranslateWalksMemoryLikeTheMmu) {
  PageAttrs a;
  a.uncached = true;
  a.writable = false;
  ASSERT_OK(map1(6 * kMiB, 10 * kMiB, 2 * kMiB, a));
  ASSERT_OK(map1(0x3000, 0x77000, kPage));
  auto t = pt_->translate(va(6 * kMiB + 0x1234));
  ASSERT_OK(t);
  EXPECT_EQ(t->va, va(6 * kMiB));
  EXPECT_EQ(t->size, 2 * kMiB);
  EXPECT_EQ(t->pa, 10 * kMiB);
  EXPECT_TRUE(t->attrs.uncached);
  EXPECT_FALSE(t->attrs.writable);
  t = pt_->translate(va(0x3fff));
  ASSERT_OK(t);
  EXPECT_EQ(t->pa, 0x77000u);
  EXPECT_EQ(t->size, kPage);
  EXPECT_TRUE(pt_->translate(va(0x4000)).error().is(Errc::kNotFound));
  EXPECT_TRUE(pt_->translate(va(1 * kGiB)).error().is(Errc::kNotFound));
}

// AMD fragments: the largest power of two dividing the VA offset, the run length and the PA.
class AmdPageTableTest : public PageTableTest {};
TEST_P(AmdPageTableTest, FragmentRules) {
  const std::pair<uint64_t, uint64_t> cases[] = {
      {0x0, 0x1000},      {0x1000, 0x2000},      {0x1000, 0x3000},     {0x2000, 0x2000},
      {0x4000, 0x8000},   {0x8000, 0x4000},      {0x10000, 0x4000},    {0x0, 0x4000},
      {0x10000, 0x40000}, {0x10001000, 0x40000}, {0x100001000, 0x3000}};
  for (auto [off, size] : cases) {
    ASSERT_OK(map1(off, off, size));
    for (const Mapped& m : inspect(off, size)) {
      const uint64_t f = uint64_t{1} << (m.fragment + 12);
      EXPECT_EQ(off % f, 0u) << std::hex << off << " " << size;
      EXPECT_EQ(size % f, 0u) << std::hex << off << " " << size;
      EXPECT_TRUE(off % (2 * f) != 0 || size % (2 * f) != 0) << std::hex << off << " " << size;
    }
    ASSERT_OK(pt_->unmap(va(off), size));
  }
  // The PA caps the fragment: VA 64 KiB-aligned but PA only 4 KiB-aligned -> fragment 0.
  ASSERT_OK(map1(0x40000, 0x41000, 0x10000));
  for (const Mapped& m : inspect(0x40000, 0x10000)) EXPECT_EQ(m.fragment, 0u);
  ASSERT_OK(map1(0x80000, 0x90000, 0x10000));
  for (const Mapped& m : inspect(0x80000, 0x10000)) EXPECT_EQ(m.fragment, 4u);
  // A 2 MiB-aligned 4 MiB run of 2 MiB leaves claims 4 MiB.
  ASSERT_OK(map1(4 * kMiB, 8 * kMiB, 4 * kMiB));
  for (const Mapped& m : inspect(4 * kMiB, 4 * kMiB)) EXPECT_EQ(m.fragment, 10u);
}

// Random map/unmap sequences against a reference VA -> PA page map; every entry is decoded
// back from memory (inspect) and the tables are checked structurally.
TEST_P(PageTableTest, RandomAgainstModel) {
  std::mt19937_64 rng(static_cast<uint64_t>(GetParam()) + 7);
  struct Region {
    uint64_t off, size;
  };
  std::vector<Region> live;
  std::map<uint64_t, std::pair<uint64_t, PageAttrs>> model;  // VA page -> PA page
  const uint64_t kArena = 64 * kMiB;
  auto free_at = [&](uint64_t off, uint64_t size) {
    for (uint64_t p = off; p < off + size; p += kPage)
      if (model.count(p)) return false;
    return true;
  };
  for (int op = 0; op < 1500; ++op) {
    if (rng() % 3 != 0 || live.empty()) {
      const uint64_t size =
          (rng() % 4 == 0) ? (1 + rng() % 3) * 2 * kMiB : (1 + rng() % 64) * kPage;
      const uint64_t align = rng() % 3 == 0 ? 2 * kMiB : kPage;
      const uint64_t off = (rng() % (kArena / align)) * align;
      if (off + size > kArena) continue;
      std::vector<AddrRange<VramAddr>> chunks;
      PageAttrs a;
      a.uncached = rng() % 2;
      a.writable = rng() % 4 != 0;
      uint64_t left = size;
      while (left > 0) {
        const uint64_t n = std::min(left, (1 + rng() % 600) * kPage);
        const uint64_t pa_align = rng() % 2 ? 2 * kMiB : kPage;
        chunks.push_back({VramAddr((rng() % 4096) * pa_align), n});
        left -= n;
      }
      const bool expect_ok = free_at(off, size);
      const auto before = expect_ok ? decltype(snapshot()){} : snapshot();
      Status s = pt_->map(va(off), chunks, a);
      ASSERT_EQ(s.ok(), expect_ok) << (s.ok() ? "" : s.error().to_string());
      if (!s.ok()) {
        ASSERT_TRUE(s.error().is(Errc::kAlreadyExists));
        ASSERT_EQ(snapshot(), before);
        continue;
      }
      uint64_t v = off;
      for (const auto& c : chunks) {
        for (uint64_t p = 0; p < c.size; p += kPage) model[v + p] = {c.base.raw() + p, a};
        v += c.size;
      }
      live.push_back({off, size});
    } else {
      const size_t i = rng() % live.size();
      Region r = live[i];
      live[i] = live.back();
      live.pop_back();
      ASSERT_OK(pt_->unmap(va(r.off), r.size));
      for (uint64_t p = r.off; p < r.off + r.size; p += kPage) model.erase(p);
      ASSERT_TRUE(pt_->unmap(va(r.off), r.size).error().is(Errc::kNotFound));
    }
    if (op % 50 == 0 || op > 1450) {
      size_t pages = 0;
      for (const Mapped& m : inspect(0, kArena)) {
        for (uint64_t p = 0; p < m.size; p += kPage) {
          auto it = model.find(m.va + p);
          ASSERT_NE(it, model.end()) << std::hex << "stray mapping at " << m.va + p;
          ASSERT_EQ(it->second.first, m.pa + p) << std::hex << "va " << m.va + p;
          ASSERT_EQ(it->second.second, m.attrs);
          ++pages;
        }
        ASSERT_EQ(m.pa % m.size, 0u);
        ASSERT_EQ(m.va % m.size, 0u);
      }
      ASSERT_EQ(pages, model.size());
      check();
    }
  }
  for (const Region& r : live) ASSERT_OK(pt_->unmap(va(r.off), r.size));
  EXPECT_EQ(pt_->stats().tables, 1u);
  EXPECT_EQ(pages_.used(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Formats, PageTableTest,
                         ::testing::Values(PageTableFormat::kAmdGfx9, PageTableFormat::kAmdGfx10,
                                           PageTableFormat::kAmdGfx12, PageTableFormat::kNvMmuV2,
                                           PageTableFormat::kNvMmuV3),
                         [](const auto& info) {
                           std::string n(format_name(info.param));
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

INSTANTIATE_TEST_SUITE_P(Formats, AmdPageTableTest,
                         ::testing::Values(PageTableFormat::kAmdGfx9, PageTableFormat::kAmdGfx10,
                                           PageTableFormat::kAmdGfx12),
                         [](const auto& info) { return std::string(format_name(info.param)); });

// --- MemoryManager ----------------------------------------------------------------------------

class MemoryManagerTest : public ::testing::Test {
 protected:
  void make(PageTableFormat f, uint64_t vram = 4 * kGiB, uint64_t ptable = 0) {
    MemoryManagerConfig c;
    c.format = f;
    c.vram_size = vram;
    c.ptable_size = ptable;
    c.va_base = GpuVa(0x200000000000);
    auto mm = MemoryManager::create(c, vram_, va_);
    ASSERT_TRUE(mm.ok()) << mm.error().to_string();
    mm_ = std::move(mm).take_value();
  }
  SparseVram vram_{64 * kGiB};
  AddressAllocator<GpuVa> va_ =
      *AddressAllocator<GpuVa>::create(GpuVa(0x200000000000), uint64_t{1} << 44, kPage);
  std::unique_ptr<MemoryManager> mm_;
};

TEST_F(MemoryManagerTest, BootPoolThenMainPool) {
  make(PageTableFormat::kAmdGfx10, 4 * kGiB, 8 * kMiB);
  EXPECT_EQ(mm_->page_table().root(), VramAddr(0));  // the first boot allocation
  auto a = mm_->palloc(256 * kKiB);
  ASSERT_OK(a);
  EXPECT_LT(a->raw(), 32 * kMiB);
  mm_->finish_boot();
  auto b = mm_->palloc(kPage);
  ASSERT_OK(b);
  EXPECT_GE(b->raw(), 40 * kMiB);  // after boot (32 MiB) and ptable (8 MiB)
  auto v = mm_->valloc(kPage);
  ASSERT_OK(v);
  // Its page tables came from the ptable pool.
  for (VramAddr p : mm_->page_table().table_pages())
    if (p != VramAddr(0)) {
      EXPECT_TRUE(p.raw() >= 32 * kMiB && p.raw() < 40 * kMiB) << p.to_string();
    }
  ASSERT_OK(mm_->vfree(*v));
  ASSERT_OK(mm_->pfree(*a));
  ASSERT_OK(mm_->pfree(*b));
  EXPECT_TRUE(mm_->pfree(*b).error().is(Errc::kAlreadyExists));
  EXPECT_TRUE(mm_->pfree(VramAddr(8 * kGiB)).error().is(Errc::kOutOfRange));
}

TEST_F(MemoryManagerTest, VallocUsesHugePagesAndNaturalAlignment) {
  for (auto f : {PageTableFormat::kAmdGfx12, PageTableFormat::kNvMmuV3}) {
    make(f);
    mm_->finish_boot();
    auto v = mm_->valloc(1 * kGiB);
    ASSERT_OK(v);
    EXPECT_TRUE(v->va.is_aligned(f == PageTableFormat::kNvMmuV3 ? 512 * kMiB : 1 * kGiB));
    size_t leaves = 0;
    uint64_t biggest = 0;
    ASSERT_OK(mm_->page_table().inspect(v->va, v->size, [&](const MappedPage& m) {
      ++leaves;
      biggest = std::max(biggest, m.size);
    }));
    EXPECT_LE(leaves, 512u);
    EXPECT_GE(biggest, 2 * kMiB);
    ASSERT_OK(mm_->vfree(*v));
    EXPECT_EQ(mm_->main_pool().stats().used, 0u);
    EXPECT_EQ(mm_->page_table().stats().tables, 1u);
    mm_.reset();
  }
}

TEST_F(MemoryManagerTest, VallocUsesExactAlignedHolesInsteadOfSmallChunks) {
  make(PageTableFormat::kNvMmuV2, 64 * kMiB + 32 * kMiB);
  mm_->finish_boot();
  // Fill the 64 MiB main pool with 2 MiB chunks, free every other one: only exact, aligned
  // 2 MiB holes remain.
  std::vector<VramAddr> chunks;
  while (true) {
    auto p = mm_->palloc(2 * kMiB, 2 * kMiB, false);
    if (!p.ok()) break;
    chunks.push_back(*p);
  }
  ASSERT_GE(chunks.size(), 30u);
  for (size_t i = 0; i < chunks.size(); i += 2) ASSERT_OK(mm_->pfree(chunks[i]));
  auto v = mm_->valloc(8 * kMiB);
  ASSERT_OK(v);
  EXPECT_EQ(v->chunks.size(), 4u);  // four 2 MiB holes, not 2048 pages
  size_t leaves = 0;
  ASSERT_OK(mm_->page_table().inspect(v->va, v->size, [&](const MappedPage&) { ++leaves; }));
  EXPECT_EQ(leaves, 4u);
  ASSERT_OK(mm_->vfree(*v));
}

TEST_F(MemoryManagerTest, VallocRollsBackOnOutOfMemory) {
  make(PageTableFormat::kAmdGfx10, 64 * kMiB);
  mm_->finish_boot();
  const auto before = mm_->main_pool().stats();
  const auto va_before = va_.stats();
  auto v = mm_->valloc(64 * kMiB);
  ASSERT_FALSE(v.ok());
  EXPECT_TRUE(v.error().is(Errc::kOutOfMemory)) << v.error().to_string();
  EXPECT_EQ(mm_->main_pool().stats().used, before.used);
  EXPECT_EQ(va_.stats().used, va_before.used);
  EXPECT_EQ(mm_->page_table().stats().tables, 1u);
  // Smaller chunks are used when the big sizes are gone: 24 MiB out of a fragmented pool.
  auto a = mm_->valloc(8 * kMiB);
  ASSERT_OK(a);
  auto b = mm_->valloc(20 * kMiB);
  ASSERT_OK(b);
  ASSERT_OK(mm_->vfree(*a));
  ASSERT_OK(mm_->vfree(*b));
  EXPECT_TRUE(mm_->valloc(0).error().is(Errc::kInvalidArgument));
}

TEST_F(MemoryManagerTest, RandomVallocVfree) {
  make(PageTableFormat::kAmdGfx9, 512 * kMiB);
  mm_->finish_boot();
  std::mt19937_64 rng(3);
  std::vector<VirtMapping> live;
  for (int op = 0; op < 400; ++op) {
    if (rng() % 2 || live.empty()) {
      const uint64_t size = (rng() % 5 == 0) ? (1 + rng() % 40) * kMiB : (1 + rng() % 300) * kPage;
      auto v = mm_->valloc(size, kPage, {}, rng() % 8 == 0);
      if (!v.ok()) {
        ASSERT_TRUE(v.error().is(Errc::kOutOfMemory)) << v.error().to_string();
        continue;
      }
      // Decode every leaf and compare with the chunks.
      std::vector<std::pair<uint64_t, uint64_t>> expect;  // page va -> pa
      uint64_t off = 0;
      for (const auto& c : v->chunks)
        for (uint64_t p = 0; p < c.size; p += kPage, off += kPage)
          expect.push_back({v->va.raw() + off, c.base.raw() + p});
      size_t i = 0;
      ASSERT_OK(mm_->page_table().inspect(v->va, v->size, [&](const MappedPage& m) {
        for (uint64_t p = 0; p < m.size; p += kPage, ++i) {
          ASSERT_LT(i, expect.size());
          EXPECT_EQ(m.va.raw() + p, expect[i].first);
          EXPECT_EQ(m.pa + p, expect[i].second);
        }
      }));
      EXPECT_EQ(i, expect.size());
      live.push_back(std::move(*v));
    } else {
      const size_t i = rng() % live.size();
      ASSERT_OK(mm_->vfree(live[i]));
      live[i] = std::move(live.back());
      live.pop_back();
    }
  }
  Status s = mm_->page_table().check_invariants();
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  for (const auto& v : live) ASSERT_OK(mm_->vfree(v));
  EXPECT_EQ(mm_->main_pool().stats().used, 0u);
  EXPECT_EQ(va_.stats().used, 0u);
  EXPECT_EQ(mm_->page_table().stats().tables, 1u);
}

}  // namespace
}  // namespace rawgpu::memory
