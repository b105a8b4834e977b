// Fuzz target for memory/: arbitrary operation sequences on a TLSF allocator and on a page table
// (any of the five formats). Beyond "no crash": every answer is checked against a reference
// model, errors must carry the documented codes, failed calls must change nothing, and the
// structural invariant checkers must pass after every operation.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "rawgpu/memory/memory_manager.h"
#include "rawgpu/memory/page_table.h"
#include "rawgpu/memory/tlsf.h"

namespace {

using namespace rawgpu;
using namespace rawgpu::memory;

void require(bool cond, const char* what) {
  if (!cond) {
    std::fprintf(stderr, "fuzz_memory invariant violated: %s\n", what);
    std::abort();
  }
}

class Input {
 public:
  Input(const uint8_t* d, size_t n) : d_(d), n_(n) {}
  bool empty() const { return i_ >= n_; }
  uint8_t u8() { return i_ < n_ ? d_[i_++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }

 private:
  const uint8_t* d_;
  size_t n_;
  size_t i_ = 0;
};

void fuzz_tlsf(Input& in) {
  TlsfConfig c;
  c.min_block = uint64_t{1} << (in.u8() % 9);  // 1 B .. 256 B
  c.sl_count = 2u << (in.u8() % 6);            // 2 .. 64
  c.size = c.min_block * (1 + in.u16() % 4096);
  c.base = c.min_block * in.u16();
  auto created = Tlsf::create(c);
  require(created.ok(), "valid TLSF config rejected");
  Tlsf t = std::move(created).take_value();
  std::map<uint64_t, uint64_t> live;
  for (int ops = 0; ops < 400 && !in.empty(); ++ops) {
    const uint8_t op = in.u8();
    if (op % 4 != 0 || live.empty()) {
      const uint64_t size = in.u16() % (c.size + c.size / 4 + 2);
      const unsigned align_shift = in.u8() % 24;
      const uint64_t align =
          (op & 0x80) ? (uint64_t{1} << align_shift) + (op & 1) : uint64_t{1} << align_shift;
      const auto before = t.stats();
      auto a = t.alloc(size, align);
      if (a.ok()) {
        const uint64_t bytes = *t.size_of(*a);
        require(size > 0 && bytes >= size && bytes - size < c.min_block, "allocation size");
        require(*a % std::max(align, c.min_block) == 0, "allocation alignment");
        require(*a >= c.base && *a - c.base + bytes <= c.size, "allocation inside the range");
        auto next = live.lower_bound(*a);
        require(next == live.end() || next->first >= *a + bytes, "overlaps the next allocation");
        require(next == live.begin() || std::prev(next)->first + std::prev(next)->second <= *a,
                "overlaps the previous allocation");
        live[*a] = bytes;
      } else {
        const auto after = t.stats();
        require(before.used == after.used && before.free_blocks == after.free_blocks &&
                    before.padding == after.padding,
                "failed alloc changed the allocator");
        require(a.error().is(Errc::kOutOfMemory) || a.error().is(Errc::kInvalidArgument),
                "alloc error code");
      }
    } else {
      auto it = live.begin();
      std::advance(it, in.u16() % live.size());
      if (op & 0x10) {
        // Interior or out-of-range frees must fail and change nothing.
        const uint64_t probe = it->first + (in.u8() % 8) * c.min_block;
        if (probe != it->first && probe - it->first < it->second)
          require(t.free(probe).error().is(Errc::kInvalidArgument), "free of an interior address");
      } else {
        require(t.free(it->first).ok(), "free of a live allocation");
        require(t.free(it->first).error().is(Errc::kAlreadyExists) ||
                    t.free(it->first).error().is(Errc::kInvalidArgument),
                "double free");
        live.erase(it);
      }
    }
    require(t.check_invariants().ok(), "TLSF invariants");
  }
}

class FuzzPages final : public TablePageSource {
 public:
  FuzzPages() : pool_(*AddressAllocator<VramAddr>::create(VramAddr(0), 1 << 20, 4096)) {}
  Result<VramAddr> alloc_table_page() override { return pool_.alloc(4096, 4096); }
  void free_table_page(VramAddr p) override { require(pool_.free(p).ok(), "table page free"); }

 private:
  AddressAllocator<VramAddr> pool_;  // 256 table pages: running out is part of the fuzzing
};

void fuzz_page_table(Input& in) {
  constexpr uint64_t kPage = 4096;
  const uint8_t fb = in.u8();
  const auto format = static_cast<PageTableFormat>(fb % 5);
  SparseVram vram(uint64_t{1} << 36);
  FuzzPages pages;
  auto created = PageTable::create(make_codec(format), vram, pages, GpuVa(0));
  require(created.ok(), "page table creation");
  PageTable& pt = **created;
  // NVIDIA 64 KiB big pages on request; an invalidate batch around everything on request.
  if (fb & 0x80)
    require(pt.enable_big_pages().ok() == (format >= PageTableFormat::kNvMmuV2), "big pages");
  const bool batched = (fb & 0x40) != 0;
  uint64_t hook_calls = 0;
  pt.set_invalidate_hook([&](GpuVa, uint64_t) { ++hook_calls; });
  if (batched) pt.begin_invalidate_batch();
  std::map<uint64_t, uint64_t> model;                         // VA page -> PA page
  const uint64_t window = uint64_t{1} << (24 + in.u8() % 8);  // 16 MiB .. 2 GiB of VA
  for (int ops = 0; ops < 64 && !in.empty(); ++ops) {
    const uint8_t op = in.u8();
    const uint64_t unit = (op & 0x40) ? (2u << 20) : kPage;
    const uint64_t va = (in.u16() * unit) % window;
    const uint64_t size = (1 + in.u8() % 24) * ((op & 0x20) ? unit : kPage);
    if (op % 3 != 0) {
      std::vector<AddrRange<VramAddr>> chunks;
      uint64_t left = size;
      while (left > 0) {
        const uint64_t n = std::min<uint64_t>(left, (1 + in.u8() % 64) * kPage);
        const uint8_t pu = in.u8();
        const uint64_t pa_unit = (pu & 1) ? (2u << 20) : (pu & 2) ? (64u << 10) : kPage;
        chunks.push_back({VramAddr((in.u16() % 1024) * pa_unit), n});
        left -= n;
      }
      bool free_range = true;
      for (uint64_t p = va; p < va + size; p += kPage) free_range &= model.count(p) == 0;
      const auto stats = pt.stats();
      Status s = pt.map(GpuVa(va), chunks, {});
      if (s.ok()) {
        require(free_range, "map over a mapped page succeeded");
        uint64_t v = va;
        for (const auto& c : chunks)
          for (uint64_t p = 0; p < c.size; p += kPage, v += kPage) model[v] = c.base.raw() + p;
      } else {
        require(!free_range || s.error().is(Errc::kOutOfMemory) || s.error().is(Errc::kOutOfRange),
                "map of a free range failed without a reason");
        const auto after = pt.stats();
        require(after.tables == stats.tables && after.leaf_entries == stats.leaf_entries,
                "failed map changed the tables");
      }
    } else {
      bool all_mapped = true;
      for (uint64_t p = va; p < va + size; p += kPage) all_mapped &= model.count(p) != 0;
      Status s = pt.unmap(GpuVa(va), size);
      if (s.ok()) {
        require(all_mapped, "unmap of an unmapped page succeeded");
        for (uint64_t p = va; p < va + size; p += kPage) model.erase(p);
      } else {
        require(
            !all_mapped || s.error().is(Errc::kInvalidArgument) || s.error().is(Errc::kOutOfRange),
            "unmap of a mapped range failed without a reason");
      }
    }
    require(pt.check_invariants().ok(), "page-table invariants");
    size_t seen = 0;
    bool agree = true;
    (void)pt.inspect(GpuVa(0), window + (64u << 20), [&](const MappedPage& m) {
      for (uint64_t p = 0; p < m.size; p += kPage, ++seen) {
        auto it = model.find(m.va.raw() + p);
        agree &= it != model.end() && it->second == m.pa + p;
      }
    });
    require(agree && seen == model.size(), "decoded tables disagree with the model");
    require(!batched || hook_calls == 0, "invalidation inside a batch");
  }
  if (batched) {
    const bool pending = pt.invalidation_pending();
    pt.end_invalidate_batch();
    require(hook_calls == (pending ? 1u : 0u), "one invalidation per batch");
  }
}

// The memory manager: valloc/vfree/palloc/pfree on a small VRAM, checking that every valloc is
// mapped exactly as its chunks say and that everything is released again.
void fuzz_memory_manager(Input& in) {
  constexpr uint64_t kMiB = 1 << 20, kPage = 4096;
  SparseVram vram(uint64_t{1} << 34);
  auto va = AddressAllocator<GpuVa>::create(GpuVa(0x200000000000), uint64_t{1} << 40, kPage);
  require(va.ok(), "VA allocator");
  MemoryManagerConfig c;
  c.format = static_cast<PageTableFormat>(in.u8() % 5);
  c.vram_size = (40 + in.u8() % 64) * kMiB;
  const uint8_t flags = in.u8();
  c.ptable_size = (flags & 1) ? 4 * kMiB : 0;
  c.big_pages = (flags & 2) != 0;
  c.va_base = GpuVa(0x200000000000);
  auto created = MemoryManager::create(c, vram, *va);
  require(created.ok(), "memory manager creation");
  MemoryManager& mm = **created;
  mm.finish_boot();
  std::vector<VirtMapping> vms;
  std::vector<VramAddr> pas;
  for (int ops = 0; ops < 48 && !in.empty(); ++ops) {
    const uint8_t op = in.u8();
    if (op % 4 == 0 && !vms.empty()) {
      const size_t i = in.u8() % vms.size();
      require(mm.vfree(vms[i]).ok(), "vfree of a live valloc");
      vms.erase(vms.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (op % 4 == 1) {
      auto p = mm.palloc((1 + in.u8()) * kPage, kPage << (in.u8() % 10), false);
      if (p.ok())
        pas.push_back(*p);
      else
        require(p.error().is(Errc::kOutOfMemory), "palloc error code");
    } else if (op % 4 == 2 && !pas.empty()) {
      const size_t i = in.u8() % pas.size();
      require(mm.pfree(pas[i]).ok(), "pfree of a live palloc");
      pas.erase(pas.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      const uint64_t size = (op & 0x80) ? (1 + in.u8() % 24) * kMiB : (1 + in.u16() % 2048) * kPage;
      auto v = mm.valloc(size, kPage, {}, (op & 0x40) != 0);
      if (!v.ok()) {
        require(v.error().is(Errc::kOutOfMemory), "valloc error code");
        continue;
      }
      uint64_t total = 0;
      for (const auto& ch : v->chunks) total += ch.size;
      require(total == v->size && v->size >= size, "valloc chunks cover the mapping");
      // Spot-check translations at chunk boundaries.
      uint64_t off = 0;
      for (const auto& ch : v->chunks) {
        auto t = mm.page_table().translate(v->va + off);
        require(t.ok() && t->pa + (v->va.raw() + off - t->va.raw()) == ch.base.raw(),
                "valloc translation");
        off += ch.size;
      }
      vms.push_back(std::move(*v));
    }
    require(mm.page_table().check_invariants().ok(), "page-table invariants (manager)");
  }
  for (const auto& v : vms) require(mm.vfree(v).ok(), "final vfree");
  for (VramAddr p : pas) require(mm.pfree(p).ok(), "final pfree");
  require(mm.main_pool().stats().used_blocks == 0 && mm.page_table().stats().tables == 1,
          "everything released");
  require(va->stats().used == 0, "VA released");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  switch (in.u8() % 3) {
    case 0: fuzz_tlsf(in); break;
    case 1: fuzz_page_table(in); break;
    default: fuzz_memory_manager(in); break;
  }
  return 0;
}
