// NVIDIA 64 KiB big pages: the big-page half of dual PDE0 entries, 64 KiB leaves next to 4 KiB
// ones under the same PDE0 entry, and a randomized model test.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "rawgpu/memory/memory_manager.h"
#include "rawgpu/memory/page_table.h"

namespace rawgpu::memory {
namespace {

constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
constexpr uint64_t kPage = 4 * kKiB, kBig = 64 * kKiB;
constexpr uint64_t kVaBase = 0x200000000000;
using Kind = DecodedEntry::Kind;

#define ASSERT_OK(expr)                                              \
  do {                                                               \
    auto r_ = (expr);                                                \
    ASSERT_TRUE(r_.ok()) << #expr << ": " << r_.error().to_string(); \
  } while (0)

class PoolPages final : public TablePageSource {
 public:
  PoolPages() : pool_(*AddressAllocator<VramAddr>::create(VramAddr(0), 64 * kMiB, kPage)) {}
  Result<VramAddr> alloc_table_page() override {
    if (budget_ == 0) return make_error(Errc::kOutOfMemory, "test: table page budget exhausted");
    if (budget_ > 0) --budget_;
    return pool_.alloc(kPage, kPage);
  }
  void free_table_page(VramAddr page) override { EXPECT_TRUE(pool_.free(page).ok()); }
  uint64_t used() const { return pool_.stats().used_blocks; }
  void set_budget(int64_t b) { budget_ = b; }

 private:
  AddressAllocator<VramAddr> pool_;
  int64_t budget_ = -1;
};

struct Page {
  uint64_t va, size, pa;
  unsigned level;
  PageAttrs attrs;
};

class BigPagesTest : public ::testing::TestWithParam<PageTableFormat> {
 protected:
  void SetUp() override {
    pt_ = std::move(PageTable::create(make_codec(GetParam()), vram_, pages_, GpuVa(kVaBase)))
              .take_value();
    ASSERT_OK(pt_->enable_big_pages());
  }
  Status map1(uint64_t off, uint64_t pa, uint64_t size, PageAttrs a = {}) {
    const AddrRange<VramAddr> c{VramAddr(pa), size};
    return pt_->map(GpuVa(kVaBase + off), std::span(&c, 1), a);
  }
  Status unmap(uint64_t off, uint64_t size) { return pt_->unmap(GpuVa(kVaBase + off), size); }
  std::vector<Page> inspect(uint64_t off, uint64_t size) {
    std::vector<Page> out;
    EXPECT_TRUE(pt_->inspect(GpuVa(kVaBase + off), size,
                             [&](const MappedPage& m) {
                               out.push_back(
                                   {m.va.raw() - kVaBase, m.size, m.pa, m.level, m.attrs});
                             })
                    .ok());
    return out;
  }
  void check() {
    Status s = pt_->check_invariants();
    ASSERT_TRUE(s.ok()) << s.error().to_string();
  }
  std::map<uint64_t, std::vector<uint64_t>> snapshot() {
    std::map<uint64_t, std::vector<uint64_t>> s;
    for (VramAddr p : pt_->table_pages()) {
      const uint64_t* w = vram_.words(p, kPage);
      s[p.raw()] = std::vector<uint64_t>(w, w + kPage / 8);
    }
    return s;
  }
  unsigned big_level() const { return pt_->codec().last_level() + 1; }
  unsigned pde0() const { return pt_->codec().last_level() - 1; }

  SparseVram vram_{64 * kGiB};
  PoolPages pages_;
  std::unique_ptr<PageTable> pt_;
};

TEST_P(BigPagesTest, AlignedRunsBecome64KiBPages) {
  const auto& c = pt_->codec();
  EXPECT_EQ(c.big_page_shift(), 16u);
  // 64 KiB-aligned VA and PA, 192 KiB: three big pages.
  ASSERT_OK(map1(2 * kMiB + kBig, 0x40000000 + kBig, 3 * kBig));
  check();
  auto m = inspect(0, 8 * kMiB);
  ASSERT_EQ(m.size(), 3u);
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_EQ(m[i].va, 2 * kMiB + (i + 1) * kBig);
    EXPECT_EQ(m[i].size, kBig);
    EXPECT_EQ(m[i].pa, 0x40000000 + (i + 1) * kBig);
    EXPECT_EQ(m[i].level, big_level());
  }
  // The walk the MMU does: the dual PDE's big half -> big-page table -> PTE.
  auto t = pt_->translate(GpuVa(kVaBase + 2 * kMiB + 2 * kBig + 0x1234));
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  EXPECT_EQ(t->size, kBig);
  EXPECT_EQ(t->pa, 0x40000000u + 2 * kBig);
  EXPECT_EQ(t->index, 2u);
  uint64_t pte = 0;
  c.encode_big_leaves(0x40000000 + 2 * kBig, 1, {}, &pte);
  EXPECT_EQ(*vram_.words(t->table + 2 * 8, 8), pte);
  EXPECT_EQ(c.decode(c.last_level(), &pte).addr, 0x40000000u + 2 * kBig);
  // A PA that is only 4 KiB aligned, or a short run, stays on 4 KiB pages.
  ASSERT_OK(map1(4 * kMiB, 0x50001000, kBig));
  ASSERT_OK(map1(6 * kMiB, 0x60000000, kBig - kPage));
  EXPECT_EQ(inspect(4 * kMiB, kBig).size(), 16u);
  EXPECT_EQ(inspect(6 * kMiB, kBig).size(), 15u);
  // Unmap may not cut a big page; whole pages go and every table but the root is freed.
  EXPECT_TRUE(unmap(2 * kMiB + kBig, kPage).error().is(Errc::kInvalidArgument));
  EXPECT_TRUE(unmap(2 * kMiB + kBig + kBig / 2, kBig).error().is(Errc::kInvalidArgument));
  check();
  ASSERT_OK(unmap(2 * kMiB + kBig, 3 * kBig));
  ASSERT_OK(unmap(4 * kMiB, kBig));
  ASSERT_OK(unmap(6 * kMiB, kBig - kPage));
  check();
  EXPECT_EQ(pt_->stats().tables, 1u);
  EXPECT_EQ(pages_.used(), 1u);
}

TEST_P(BigPagesTest, BothHalvesOfADualPde) {
  const auto& c = pt_->codec();
  // Block 0 of the 2 MiB region as a big page, block 1 as 4 KiB pages, a 4 KiB page in block 5.
  ASSERT_OK(map1(0, 0x10000000, kBig));
  ASSERT_OK(map1(kBig, 0x20001000, kBig));
  ASSERT_OK(map1(5 * kBig + 3 * kPage, 0x30000000, kPage));
  check();
  auto m = inspect(0, 2 * kMiB);
  ASSERT_EQ(m.size(), 1u + 16u + 1u);
  EXPECT_EQ(m[0].size, kBig);
  for (size_t i = 1; i < m.size(); ++i) EXPECT_EQ(m[i].size, kPage);
  for (size_t i = 1; i < m.size(); ++i) EXPECT_GT(m[i].va, m[i - 1].va);  // VA order
  // Both halves present in the PDE0 entry.
  auto t0 = pt_->translate(GpuVa(kVaBase + 100));
  auto t1 = pt_->translate(GpuVa(kVaBase + kBig + 100));
  ASSERT_TRUE(t0.ok() && t1.ok());
  EXPECT_EQ(t0->size, kBig);
  EXPECT_EQ(t1->size, kPage);
  EXPECT_TRUE(pt_->translate(GpuVa(kVaBase + 3 * kBig)).error().is(Errc::kNotFound));
  // A map overlapping the big page fails and changes nothing.
  const auto before = snapshot();
  EXPECT_TRUE(map1(kBig - kPage, 0, 2 * kPage).error().is(Errc::kAlreadyExists));
  EXPECT_EQ(snapshot(), before);
  // One unmap across both kinds.
  ASSERT_OK(unmap(0, 2 * kBig));
  check();
  // Big half gone, small half still points to the 4 KiB table holding block 5's page.
  VramAddr pde_table = pt_->root();
  for (unsigned l = 0; l < pde0(); ++l) {
    const DecodedEntry d = c.decode(l, vram_.words(pde_table, 16));
    ASSERT_EQ(d.kind, Kind::kTable);
    pde_table = VramAddr(d.addr);
  }
  const uint64_t* w = vram_.words(pde_table, 16);
  EXPECT_EQ(c.decode_big_table(pde0(), w).kind, Kind::kInvalid);
  EXPECT_EQ(c.decode(pde0(), w).kind, Kind::kTable);
  ASSERT_OK(unmap(5 * kBig + 3 * kPage, kPage));
  check();
  EXPECT_EQ(pages_.used(), 1u);
}

TEST_P(BigPagesTest, RollbackWhenTheBigTableCannotBeAllocated) {
  ASSERT_OK(map1(0, 0x1000, kPage));  // root .. PT exist now
  const auto before = snapshot();
  pages_.set_budget(0);
  // 4 KiB page + big page in the same region: the big-page table is the one new table.
  const AddrRange<VramAddr> chunks[] = {{VramAddr(0x2000), 15 * kPage}, {VramAddr(0x100000), kBig}};
  Status s = pt_->map(GpuVa(kVaBase + kPage), chunks, {});
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.error().is(Errc::kOutOfMemory));
  EXPECT_EQ(snapshot(), before);
  check();
  pages_.set_budget(-1);
  ASSERT_OK(pt_->map(GpuVa(kVaBase + kPage), chunks, {}));
  check();
}

TEST_P(BigPagesTest, RandomAgainstModel) {
  std::mt19937_64 rng(static_cast<uint64_t>(GetParam()) * 31 + 5);
  const uint64_t kArena = 8 * kMiB;  // four PDE0 entries: big and small pages share them
  std::map<uint64_t, std::pair<uint64_t, PageAttrs>> model;  // VA page -> PA page
  struct Region {
    uint64_t off, size;
  };
  std::vector<Region> live;
  auto free_at = [&](uint64_t off, uint64_t size) {
    for (uint64_t p = off; p < off + size; p += kPage)
      if (model.count(p)) return false;
    return true;
  };
  unsigned big_seen = 0, refused_cuts = 0;
  for (int op = 0; op < 2500; ++op) {
    const unsigned r = static_cast<unsigned>(rng() % 10);
    if (r < 6 || live.empty()) {
      const uint64_t align = rng() % 2 ? kBig : kPage;
      const uint64_t size = (1 + rng() % 40) * (rng() % 3 ? kPage : kBig);
      const uint64_t off = (rng() % (kArena / align)) * align;
      if (off + size > kArena) continue;
      std::vector<AddrRange<VramAddr>> chunks;
      PageAttrs a;
      a.writable = rng() % 3 != 0;
      for (uint64_t left = size; left > 0;) {
        const uint64_t n = std::min(left, (1 + rng() % 24) * kPage);
        chunks.push_back({VramAddr((rng() % 65536) * (rng() % 2 ? kBig : kPage)), n});
        left -= n;
      }
      const bool expect_ok = free_at(off, size);
      const auto before = expect_ok ? decltype(snapshot()){} : snapshot();
      Status s = pt_->map(GpuVa(kVaBase + off), chunks, a);
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
    } else if (r < 9) {
      const size_t i = rng() % live.size();
      const Region g = live[i];
      live[i] = live.back();
      live.pop_back();
      ASSERT_OK(unmap(g.off, g.size));
      for (uint64_t p = g.off; p < g.off + g.size; p += kPage) model.erase(p);
    } else {
      // A partial unmap of a live region: fine unless it cuts a big page (then nothing changes).
      const Region g = live[rng() % live.size()];
      const uint64_t n = g.size / kPage;
      if (n < 2) continue;
      const uint64_t first = rng() % (n - 1);
      const uint64_t lo = g.off + first * kPage;
      const uint64_t len = (1 + rng() % (n - first - 1)) * kPage;
      bool cuts = false;
      for (const Page& p : inspect(lo, len))
        if (p.va < lo || p.va + p.size > lo + len) cuts = true;
      const auto before = snapshot();
      Status s = unmap(lo, len);
      if (cuts) {
        ASSERT_FALSE(s.ok());
        ASSERT_TRUE(s.error().is(Errc::kInvalidArgument)) << s.error().to_string();
        ASSERT_EQ(snapshot(), before);
        ++refused_cuts;
        continue;
      }
      ASSERT_OK(s);
      for (uint64_t p = lo; p < lo + len; p += kPage) model.erase(p);
      // The region now has holes: forget it and unmap its remaining pieces one page at a time
      // later (model-driven cleanup below).
      for (size_t k = 0; k < live.size(); ++k)
        if (live[k].off == g.off && live[k].size == g.size) {
          live[k] = live.back();
          live.pop_back();
          break;
        }
      std::vector<uint64_t> rest;
      for (uint64_t p = g.off; p < g.off + g.size; p += kPage)
        if (model.count(p)) rest.push_back(p);
      // Re-register the surviving runs as regions (split at big-page boundaries they keep).
      for (size_t k = 0; k < rest.size();) {
        size_t e = k + 1;
        while (e < rest.size() && rest[e] == rest[e - 1] + kPage) ++e;
        live.push_back({rest[k], (e - k) * kPage});
        k = e;
      }
    }
    // Model check: every page, PA, attributes; leaves aligned in VA and PA.
    size_t pages = 0;
    for (const Page& p : inspect(0, kArena)) {
      if (p.size == kBig) ++big_seen;
      ASSERT_EQ(p.va % p.size, 0u);
      ASSERT_EQ(p.pa % p.size, 0u);
      for (uint64_t q = 0; q < p.size; q += kPage) {
        auto it = model.find(p.va + q);
        ASSERT_NE(it, model.end()) << std::hex << "stray mapping at " << p.va + q;
        ASSERT_EQ(it->second.first, p.pa + q) << std::hex << "va " << p.va + q;
        ASSERT_EQ(it->second.second, p.attrs);
        ++pages;
      }
    }
    ASSERT_EQ(pages, model.size());
    const uint64_t probe = (rng() % (kArena / kPage)) * kPage + rng() % kPage;
    auto t = pt_->translate(GpuVa(kVaBase + probe));
    auto it = model.find(probe & ~(kPage - 1));
    ASSERT_EQ(t.ok(), it != model.end());
    if (t.ok()) {
      ASSERT_EQ(t->pa + (probe & (t->size - 1)), it->second.first + probe % kPage);
    }
    if (op % 10 == 0) check();
  }
  EXPECT_GT(big_seen, 100u);
  EXPECT_GE(refused_cuts, 3u);
  for (const Region& g : live) ASSERT_OK(unmap(g.off, g.size));
  check();
  EXPECT_EQ(pt_->stats().tables, 1u);
  EXPECT_EQ(pages_.used(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Nv, BigPagesTest,
                         ::testing::Values(PageTableFormat::kNvMmuV2, PageTableFormat::kNvMmuV3),
                         [](const auto& info) {
                           return info.param == PageTableFormat::kNvMmuV2 ? "v2" : "v3";
                         });

TEST(BigPages, OffByDefaultAndNotOnAmd) {
  SparseVram vram(4 * kGiB);
  PoolPages pages;
  auto pt =
      std::move(PageTable::create(make_codec(PageTableFormat::kNvMmuV3), vram, pages, GpuVa(0)))
          .take_value();
  EXPECT_FALSE(pt->big_pages());
  const AddrRange<VramAddr> c{VramAddr(0x100000), kBig};
  ASSERT_OK(pt->map(GpuVa(0x200000), std::span(&c, 1), {}));
  unsigned n = 0;
  ASSERT_OK(pt->inspect(GpuVa(0), 4 * kMiB, [&](const MappedPage& m) {
    EXPECT_EQ(m.size, kPage);
    ++n;
  }));
  EXPECT_EQ(n, 16u);
  ASSERT_OK(pt->unmap(GpuVa(0x200000 + kPage), kPage));  // still page by page
  PoolPages p2;
  auto amd =
      std::move(PageTable::create(make_codec(PageTableFormat::kAmdGfx12), vram, p2, GpuVa(0)))
          .take_value();
  EXPECT_TRUE(amd->enable_big_pages().error().is(Errc::kUnsupported));
}

TEST(BigPages, MemoryManagerVallocUses64KiBChunks) {
  SparseVram vram(4 * kGiB);
  auto va = *AddressAllocator<GpuVa>::create(GpuVa(kVaBase), 1ull << 40, kPage);
  MemoryManagerConfig c;
  c.format = PageTableFormat::kNvMmuV2;
  c.vram_size = 4 * kGiB;
  c.va_base = GpuVa(kVaBase);
  c.big_pages = true;
  auto mm = std::move(*MemoryManager::create(c, vram, va));
  mm->finish_boot();
  EXPECT_EQ(mm->chunk_sizes(), (std::vector<uint64_t>{512 * kMiB, 2 * kMiB, kBig, kPage}));
  auto m = mm->valloc(3 * kBig + kPage, kBig);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  std::map<uint64_t, unsigned> sizes;
  ASSERT_OK(
      mm->page_table().inspect(m->va, m->size, [&](const MappedPage& p) { ++sizes[p.size]; }));
  EXPECT_EQ(sizes[kBig], 3u);
  EXPECT_EQ(sizes[kPage], 1u);
  ASSERT_OK(mm->vfree(*m));
  ASSERT_OK(mm->page_table().check_invariants());
}

}  // namespace
}  // namespace rawgpu::memory
