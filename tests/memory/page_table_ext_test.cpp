// Page tables in system memory, peer apertures, batched TLB invalidation.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "rawgpu/memory/memory_manager.h"
#include "rawgpu/memory/page_table.h"
#include "rawgpu/memory/sysmem_tables.h"

namespace rawgpu::memory {
namespace {

constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
constexpr uint64_t kPage = 4 * kKiB;
constexpr uint64_t kVaBase = 0x200000000000;
using Kind = DecodedEntry::Kind;

#define ASSERT_OK(expr)                                              \
  do {                                                               \
    auto r_ = (expr);                                                \
    ASSERT_TRUE(r_.ok()) << #expr << ": " << r_.error().to_string(); \
  } while (0)

bool is_amd(PageTableFormat f) { return f <= PageTableFormat::kAmdGfx12; }

// A 4 KiB-aligned host buffer standing in for DMA memory at an arbitrary bus address.
struct HostBuffer {
  explicit HostBuffer(uint64_t size) : words(size / 8 + kPage / 8) {}
  CpuAddr cpu() {
    const uint64_t p = CpuAddr::from(words.data()).raw();
    return CpuAddr((p + kPage - 1) & ~(kPage - 1));
  }
  std::vector<uint64_t> words;
};

class SysmemTablesTest : public ::testing::TestWithParam<std::tuple<PageTableFormat, bool>> {
 protected:
  void SetUp() override {
    auto pool = SysmemTablePool::create(buf_.cpu(), BusAddr(kBus), 8 * kMiB, snooped());
    ASSERT_TRUE(pool.ok()) << pool.error().to_string();
    pool_ = std::move(pool).take_value();
    auto pt = PageTable::create(make_codec(format()), *pool_, *pool_, GpuVa(kVaBase));
    ASSERT_TRUE(pt.ok()) << pt.error().to_string();
    pt_ = std::move(pt).take_value();
  }
  PageTableFormat format() const { return std::get<0>(GetParam()); }
  bool snooped() const { return std::get<1>(GetParam()); }
  void check() {
    Status s = pt_->check_invariants();
    ASSERT_TRUE(s.ok()) << s.error().to_string();
  }
  static constexpr uint64_t kBus = 0x7f0000000000;  // a bus address far from any VRAM offset
  HostBuffer buf_{8 * kMiB};
  std::unique_ptr<SysmemTablePool> pool_;
  std::unique_ptr<PageTable> pt_;
};

TEST_P(SysmemTablesTest, TablesLiveInSystemMemoryAndDecodeSo) {
  EXPECT_EQ(pt_->root().raw(), kBus);  // the first page of the pool
  EXPECT_EQ(pool_->pages_in_use(), 1u);
  std::mt19937_64 rng(7);
  std::map<uint64_t, uint64_t> model;  // va page -> pa
  for (int i = 0; i < 64; ++i) {
    const uint64_t va = (rng() % (4 * kGiB / kPage)) * kPage;
    const uint64_t pa = (rng() % (1 * kGiB / kPage)) * kPage;
    if (model.count(va)) continue;
    const AddrRange<VramAddr> c{VramAddr(pa), kPage};
    ASSERT_OK(pt_->map(GpuVa(kVaBase + va), std::span(&c, 1), {}));
    model[va] = pa;
  }
  // One 2 MiB-aligned run that becomes a huge leaf.
  const AddrRange<VramAddr> big{VramAddr(2 * kGiB), 2 * kMiB};
  ASSERT_OK(pt_->map(GpuVa(kVaBase + 6 * kGiB), std::span(&big, 1), {}));
  check();
  EXPECT_GT(pool_->pages_in_use(), 3u);
  // Every PDE in every table points into the pool with the system aperture and the snoop flag.
  const auto& codec = pt_->codec();
  for (VramAddr page : pt_->table_pages()) {
    EXPECT_GE(page.raw(), kBus);
    EXPECT_LT(page.raw(), kBus + 8 * kMiB);
  }
  unsigned tables_seen = 0;
  std::vector<std::pair<VramAddr, unsigned>> todo{{pt_->root(), 0u}};
  while (!todo.empty()) {
    auto [table, level] = todo.back();
    todo.pop_back();
    const LevelInfo& l = codec.levels()[level];
    for (unsigned i = 0; i < l.entries; ++i) {
      const DecodedEntry d =
          codec.decode(level, pool_->words(table + uint64_t{i} * l.entry_bytes, l.entry_bytes));
      if (d.kind != Kind::kTable) continue;
      ++tables_seen;
      EXPECT_EQ(d.attrs.aperture, Aperture::kSystem);
      EXPECT_EQ(d.attrs.snooped, snooped());
      todo.push_back({VramAddr(d.addr), level + 1});
    }
  }
  EXPECT_EQ(tables_seen + 1, pt_->table_pages().size());
  // translate() walks the system-memory tables like the MMU.
  for (auto [va, pa] : model) {
    auto m = pt_->translate(GpuVa(kVaBase + va));
    ASSERT_TRUE(m.ok()) << m.error().to_string();
    EXPECT_EQ(m->pa, pa);
    EXPECT_EQ(m->attrs.aperture, Aperture::kVram);
  }
  auto h = pt_->translate(GpuVa(kVaBase + 6 * kGiB + 12345 * 8));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->size, 2 * kMiB);
  // Unmapping everything returns every page but the root to the pool.
  for (auto [va, pa] : model) ASSERT_OK(pt_->unmap(GpuVa(kVaBase + va), kPage));
  ASSERT_OK(pt_->unmap(GpuVa(kVaBase + 6 * kGiB), 2 * kMiB));
  check();
  EXPECT_EQ(pool_->pages_in_use(), 1u);
}

TEST_P(SysmemTablesTest, PoolExhaustionRollsBack) {
  // 8 MiB = 2048 pages; scattered 4 KiB maps 1 GiB apart need a new PDB1/PDE0 + PTB chain each.
  uint64_t mapped = 0;
  Status last;
  for (uint64_t i = 0; i < 4096; ++i) {
    const AddrRange<VramAddr> c{VramAddr(0), kPage};
    last = pt_->map(GpuVa(kVaBase + i * kGiB), std::span(&c, 1), {});
    if (!last.ok()) break;
    ++mapped;
  }
  ASSERT_FALSE(last.ok());
  EXPECT_TRUE(last.error().is(Errc::kOutOfMemory)) << last.error().to_string();
  check();
  EXPECT_GT(mapped, 100u);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, SysmemTablesTest,
    ::testing::Combine(::testing::Values(PageTableFormat::kAmdGfx9, PageTableFormat::kAmdGfx10,
                                         PageTableFormat::kAmdGfx12, PageTableFormat::kNvMmuV2,
                                         PageTableFormat::kNvMmuV3),
                       ::testing::Bool()),
    [](const auto& info) {
      std::string n(format_name(std::get<0>(info.param)));
      for (char& ch : n)
        if (ch == '-') ch = '_';
      return n + (std::get<1>(info.param) ? "_snooped" : "_uncached");
    });

TEST(SysmemTablePool, BadArguments) {
  HostBuffer b(64 * kKiB);
  EXPECT_TRUE(SysmemTablePool::create(b.cpu(), BusAddr(0x1000), 0, true)
                  .error()
                  .is(Errc::kInvalidArgument));
  EXPECT_TRUE(SysmemTablePool::create(b.cpu(), BusAddr(0x1800), 8192, true)
                  .error()
                  .is(Errc::kInvalidArgument));
  EXPECT_TRUE(SysmemTablePool::create(b.cpu(), BusAddr(0xfffffffffffff000ull), 8192, true)
                  .error()
                  .is(Errc::kOverflow));
}

// A table source that claims to live in a peer's memory is refused.
class PeerPages final : public TablePageSource {
 public:
  Result<VramAddr> alloc_table_page() override { return VramAddr(0); }
  void free_table_page(VramAddr) override {}
  TableLocation table_location() const override { return {Aperture::kPeer, false}; }
};

TEST(SysmemTablePool, TablesCannotLiveInPeerMemory) {
  SparseVram vram(kGiB);
  PeerPages pages;
  auto pt = PageTable::create(make_codec(PageTableFormat::kNvMmuV3), vram, pages, GpuVa(0));
  ASSERT_FALSE(pt.ok());
  EXPECT_TRUE(pt.error().is(Errc::kInvalidArgument));
}

// MemoryManager with its page tables in system memory: VRAM pools hold only data.
TEST(SysmemTablePool, MemoryManagerUsesIt) {
  HostBuffer buf(4 * kMiB);
  auto pool = *SysmemTablePool::create(buf.cpu(), BusAddr(0x40000000), 4 * kMiB, true);
  SparseVram vram(4 * kGiB);
  auto va = *AddressAllocator<GpuVa>::create(GpuVa(kVaBase), 1ull << 40, kPage);
  MemoryManagerConfig c;
  c.format = PageTableFormat::kAmdGfx12;
  c.vram_size = 4 * kGiB;
  c.va_base = GpuVa(kVaBase);
  c.table_pages = pool.get();
  c.table_memory = pool.get();
  auto mm = MemoryManager::create(c, vram, va);
  ASSERT_TRUE(mm.ok()) << mm.error().to_string();
  (*mm)->finish_boot();
  EXPECT_EQ((*mm)->boot_pool().stats().used, 0u);  // the root went to system memory
  auto m = (*mm)->valloc(5 * kMiB + 12 * kKiB);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_GT(pool->pages_in_use(), 1u);
  EXPECT_EQ(vram.touched_pages(), 0u);  // no table was written into VRAM
  auto t = (*mm)->page_table().translate(m->va + 5 * kMiB);
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  ASSERT_OK((*mm)->vfree(*m));
  EXPECT_EQ(pool->pages_in_use(), 1u);
  ASSERT_OK((*mm)->page_table().check_invariants());

  c.table_memory = nullptr;  // one without the other
  EXPECT_TRUE(MemoryManager::create(c, vram, va).error().is(Errc::kInvalidArgument));
}

// ---- peer apertures ----

class PoolPages final : public TablePageSource {
 public:
  PoolPages() : pool_(*AddressAllocator<VramAddr>::create(VramAddr(0), 64 * kMiB, kPage)) {}
  Result<VramAddr> alloc_table_page() override { return pool_.alloc(kPage, kPage); }
  void free_table_page(VramAddr page) override { EXPECT_TRUE(pool_.free(page).ok()); }

 private:
  AddressAllocator<VramAddr> pool_;
};

class PeerTest : public ::testing::TestWithParam<PageTableFormat> {
 protected:
  void SetUp() override {
    pt_ = std::move(PageTable::create(make_codec(GetParam()), vram_, pages_, GpuVa(kVaBase)))
              .take_value();
  }
  SparseVram vram_{64 * kGiB};
  PoolPages pages_;
  std::unique_ptr<PageTable> pt_;
};

TEST_P(PeerTest, PeerPagesRoundTrip) {
  const bool amd = is_amd(GetParam());
  EXPECT_EQ(pt_->codec().peer_by_bus_address(), amd);
  PageAttrs a;
  a.aperture = Aperture::kPeer;
  a.peer_id = amd ? 0 : 5;
  a.writable = false;
  const uint64_t pa = 0x1234000000;  // a 4 KiB-aligned offset in the peer (or its BAR)
  if (amd) {
    const AddrRange<BusAddr> c{BusAddr(pa), 4 * kMiB};
    ASSERT_OK(pt_->map(GpuVa(kVaBase + 2 * kMiB), std::span(&c, 1), a));
  } else {
    const AddrRange<VramAddr> c{VramAddr(pa), 4 * kMiB};
    ASSERT_OK(pt_->map(GpuVa(kVaBase + 2 * kMiB), std::span(&c, 1), a));
  }
  ASSERT_OK(pt_->check_invariants());
  uint64_t covered = 0;
  ASSERT_OK(pt_->inspect(GpuVa(kVaBase), 8 * kMiB, [&](const MappedPage& m) {
    EXPECT_EQ(m.pa, pa + (m.va.raw() - kVaBase - 2 * kMiB));
    // AMD reaches peers through the system aperture: the entry decodes as system memory.
    EXPECT_EQ(m.attrs.aperture, amd ? Aperture::kSystem : Aperture::kPeer);
    EXPECT_EQ(m.attrs.peer_id, a.peer_id);
    EXPECT_FALSE(m.attrs.snooped);
    EXPECT_FALSE(m.attrs.writable);
    covered += m.size;
  }));
  EXPECT_EQ(covered, 4 * kMiB);
  ASSERT_OK(pt_->unmap(GpuVa(kVaBase + 2 * kMiB), 4 * kMiB));
  ASSERT_OK(pt_->check_invariants());
}

TEST_P(PeerTest, BadPeerMaps) {
  const bool amd = is_amd(GetParam());
  PageAttrs a;
  a.aperture = Aperture::kPeer;
  const AddrRange<VramAddr> v{VramAddr(0x100000), kPage};
  const AddrRange<BusAddr> b{BusAddr(0x100000), kPage};
  const GpuVa va(kVaBase);
  // The wrong kind of chunk for the vendor.
  if (amd)
    EXPECT_TRUE(pt_->map(va, std::span(&v, 1), a).error().is(Errc::kInvalidArgument));
  else
    EXPECT_TRUE(pt_->map(va, std::span(&b, 1), a).error().is(Errc::kInvalidArgument));
  auto map_ok_kind = [&](const PageAttrs& at) {
    return amd ? pt_->map(va, std::span(&b, 1), at) : pt_->map(va, std::span(&v, 1), at);
  };
  PageAttrs s = a;
  s.snooped = true;  // peers are never snooped
  EXPECT_TRUE(map_ok_kind(s).error().is(Errc::kInvalidArgument));
  PageAttrs p = a;
  p.peer_id = 8;  // three bits
  EXPECT_TRUE(map_ok_kind(p).error().is(Errc::kInvalidArgument));
  PageAttrs local;
  local.peer_id = 1;  // a peer id on local memory
  EXPECT_TRUE(pt_->map(va, std::span(&v, 1), local).error().is(Errc::kInvalidArgument));
  if (!amd) {
    // Beyond the peer address field (v2: ADDRESS_VID 32:8, v3: ADDRESS_PEER 51:12).
    const AddrRange<VramAddr> far{VramAddr(pt_->codec().phys_limit(Aperture::kPeer)), kPage};
    EXPECT_TRUE(pt_->map(va, std::span(&far, 1), a).error().is(Errc::kOutOfRange));
  }
  EXPECT_EQ(pt_->stats().tables, 1u);
  EXPECT_EQ(pt_->invalidations(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Formats, PeerTest,
                         ::testing::Values(PageTableFormat::kAmdGfx9, PageTableFormat::kAmdGfx10,
                                           PageTableFormat::kAmdGfx12, PageTableFormat::kNvMmuV2,
                                           PageTableFormat::kNvMmuV3),
                         [](const auto& info) {
                           std::string n(format_name(info.param));
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// ---- batched TLB invalidation ----

struct Flushes {
  std::vector<std::pair<uint64_t, uint64_t>> calls;  // (va, size)
  void attach(PageTable& pt) {
    pt.set_invalidate_hook([this](GpuVa va, uint64_t size) { calls.push_back({va.raw(), size}); });
  }
};

TEST(InvalidateBatch, OneInvalidationPerBatchCoveringEveryChange) {
  SparseVram vram(16 * kGiB);
  PoolPages pages;
  auto pt = std::move(PageTable::create(make_codec(PageTableFormat::kAmdGfx10), vram, pages,
                                        GpuVa(kVaBase)))
                .take_value();
  Flushes f;
  f.attach(*pt);
  auto map = [&](uint64_t off, uint64_t size) {
    const AddrRange<VramAddr> c{VramAddr(off), size};
    return pt->map(GpuVa(kVaBase + off), std::span(&c, 1), {});
  };
  // Unbatched: one call per change, with exactly its range.
  ASSERT_OK(map(0x100000, kPage));
  ASSERT_EQ(f.calls.size(), 1u);
  EXPECT_EQ(f.calls[0], std::make_pair(kVaBase + 0x100000, kPage));
  f.calls.clear();
  {
    InvalidateBatch batch(*pt);
    for (uint64_t i = 0; i < 10; ++i) ASSERT_OK(map(0x200000 + i * 0x10000, kPage));
    for (uint64_t i = 0; i < 5; ++i)
      ASSERT_OK(pt->unmap(GpuVa(kVaBase + 0x200000 + i * 0x10000), kPage));
    ASSERT_OK(pt->unmap(GpuVa(kVaBase + 0x100000), kPage));
    // A failed call changes nothing and records nothing.
    EXPECT_FALSE(map(0x290000, kPage).ok());  // overlaps the 10th page
    EXPECT_FALSE(pt->unmap(GpuVa(kVaBase + 0x700000), kPage).ok());
    EXPECT_TRUE(f.calls.empty());
    EXPECT_TRUE(pt->invalidation_pending());
    {
      InvalidateBatch inner(*pt);  // nested: still one flush at the outermost end
      ASSERT_OK(map(0x800000, 2 * kMiB));
    }
    EXPECT_TRUE(f.calls.empty());
  }
  ASSERT_EQ(f.calls.size(), 1u);
  EXPECT_EQ(f.calls[0], std::make_pair(kVaBase + 0x100000, uint64_t{0xa00000 - 0x100000}));
  EXPECT_FALSE(pt->invalidation_pending());
  // An explicit flush in the middle of a batch, and a batch without changes.
  f.calls.clear();
  pt->begin_invalidate_batch();
  ASSERT_OK(pt->unmap(GpuVa(kVaBase + 0x800000), 2 * kMiB));
  pt->flush_invalidations();
  pt->flush_invalidations();  // nothing new: no call
  ASSERT_OK(pt->unmap(GpuVa(kVaBase + 0x250000), kPage));
  pt->end_invalidate_batch();
  ASSERT_EQ(f.calls.size(), 2u);
  EXPECT_EQ(f.calls[0], std::make_pair(kVaBase + 0x800000, 2 * kMiB));
  EXPECT_EQ(f.calls[1], std::make_pair(kVaBase + 0x250000, kPage));
  {
    InvalidateBatch empty(*pt);
  }
  EXPECT_EQ(f.calls.size(), 2u);
  EXPECT_EQ(pt->invalidations(), 4u);  // 1 unbatched + 1 batch + 2 in the last batch
}

TEST(InvalidateBatch, MemoryManagerBatchesVallocAndVfree) {
  SparseVram vram(4 * kGiB);
  auto va = *AddressAllocator<GpuVa>::create(GpuVa(kVaBase), 1ull << 40, kPage);
  MemoryManagerConfig c;
  c.format = PageTableFormat::kNvMmuV3;
  c.vram_size = 4 * kGiB;
  c.va_base = GpuVa(kVaBase);
  auto mm = std::move(*MemoryManager::create(c, vram, va));
  mm->finish_boot();
  unsigned calls = 0;
  mm->set_invalidate_hook([&](GpuVa, uint64_t) { ++calls; });
  std::vector<VirtMapping> maps;
  mm->begin_invalidate_batch();
  for (int i = 0; i < 20; ++i) maps.push_back(*mm->valloc((i + 1) * 64 * kKiB));
  for (int i = 0; i < 10; ++i) ASSERT_OK(mm->vfree(maps[i]));
  EXPECT_EQ(calls, 0u);
  mm->end_invalidate_batch();
  EXPECT_EQ(calls, 1u);
  for (int i = 10; i < 20; ++i) ASSERT_OK(mm->vfree(maps[i]));
  EXPECT_EQ(calls, 11u);  // unbatched again: one per vfree
}

}  // namespace
}  // namespace rawgpu::memory

namespace rawgpu::memory {
namespace {

// AMD PDEs of system-memory tables: VALID | SYSTEM (bit 1) | SNOOPED (bit 2) for coherent memory
// (Linux amdgpu_vm.h AMDGPU_PTE_SYSTEM / AMDGPU_PTE_SNOOPED; gfx9 keeps its BFS / TF bits).
TEST(PteCodecExt, AmdSystemMemoryPdes) {
  const uint64_t child = 0x0000123456789000ull;
  for (auto f :
       {PageTableFormat::kAmdGfx9, PageTableFormat::kAmdGfx10, PageTableFormat::kAmdGfx12}) {
    auto c = make_codec(f);
    for (unsigned level = 0; level < 3; ++level) {
      uint64_t vram = 0, sys = 0, snoop = 0;
      c->encode_table(level, VramAddr(child), &vram);
      c->encode_table_in(level, child, {Aperture::kSystem, false}, &sys);
      c->encode_table_in(level, child, {Aperture::kSystem, true}, &snoop);
      EXPECT_EQ(sys, vram | 0x2) << format_name(f) << " level " << level;
      EXPECT_EQ(snoop, vram | 0x6) << format_name(f) << " level " << level;
      const DecodedEntry d = c->decode(level, &snoop);
      EXPECT_EQ(d.kind, DecodedEntry::Kind::kTable);
      EXPECT_EQ(d.addr, child);
      EXPECT_EQ(d.attrs.aperture, Aperture::kSystem);
      EXPECT_TRUE(d.attrs.snooped);
    }
    // A peer leaf: SYSTEM without SNOOPED, at the peer's bus address.
    PageAttrs a;
    a.aperture = Aperture::kPeer;
    uint64_t e = 0, s = 0;
    c->encode_leaves(3, 0x4000000000ull, 1, a, 0, &e);
    a.aperture = Aperture::kSystem;
    c->encode_leaves(3, 0x4000000000ull, 1, a, 0, &s);
    EXPECT_EQ(e, s);
    EXPECT_EQ(e & 0x6, 0x2u);
  }
}

}  // namespace
}  // namespace rawgpu::memory
