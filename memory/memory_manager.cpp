#include "rawgpu/memory/memory_manager.h"

#include <algorithm>

#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"

namespace rawgpu::memory {

namespace {
constexpr uint64_t kPage = 4096;
}

MemoryManager::~MemoryManager() = default;

Result<std::unique_ptr<MemoryManager>> MemoryManager::create(
    const MemoryManagerConfig& c, PhysicalMemory& memory, AddressAllocator<GpuVa>& va_allocator) {
  if (c.vram_size % kPage != 0 || c.boot_size % kPage != 0 || c.ptable_size % kPage != 0 ||
      c.reserved % kPage != 0 || c.boot_size == 0)
    return make_error(Errc::kInvalidArgument,
                      "memory manager sizes must be 4 KiB multiples (vram %s, boot %s, ptable %s, "
                      "reserved %s) and the boot pool nonempty",
                      hex(c.vram_size).c_str(), hex(c.boot_size).c_str(),
                      hex(c.ptable_size).c_str(), hex(c.reserved).c_str());
  const uint64_t fixed = c.boot_size + c.ptable_size + c.reserved;
  if (fixed < c.boot_size || fixed >= c.vram_size || c.vram_size > memory.size())
    return make_error(Errc::kInvalidArgument,
                      "VRAM of %s cannot hold boot (%s), page-table (%s) and reserved (%s) pools "
                      "plus a main pool (physical view: %s)",
                      format_bytes(c.vram_size).c_str(), format_bytes(c.boot_size).c_str(),
                      format_bytes(c.ptable_size).c_str(), format_bytes(c.reserved).c_str(),
                      format_bytes(memory.size()).c_str());
  if ((c.table_pages == nullptr) != (c.table_memory == nullptr))
    return make_error(Errc::kInvalidArgument,
                      "memory manager: table_pages and table_memory must be given together");
  std::unique_ptr<MemoryManager> mm(new MemoryManager());
  mm->mem_ = &memory;
  mm->va_ = &va_allocator;
  mm->booting_ = true;
  mm->boot_.emplace(RG_TRY(AddressAllocator<VramAddr>::create(VramAddr(0), c.boot_size, kPage)));
  if (c.ptable_size != 0)
    mm->ptable_.emplace(
        RG_TRY(AddressAllocator<VramAddr>::create(VramAddr(c.boot_size), c.ptable_size, kPage)));
  mm->main_.emplace(RG_TRY(AddressAllocator<VramAddr>::create(VramAddr(c.boot_size + c.ptable_size),
                                                              c.vram_size - fixed, kPage)));
  auto codec = make_codec(c.format);
  for (const LevelInfo& l : codec->levels())
    if (l.leaf) mm->max_leaf_span_ = std::max(mm->max_leaf_span_, l.span());
  // valloc chunk sizes: every power of two down to a page where fragments make them useful
  // (AMD), otherwise only the leaf spans (NV: 512 MiB, 2 MiB, 4 KiB).
  const bool frag = codec->has_fragment();
  const uint64_t big_span =
      c.big_pages && codec->big_page_shift() != 0 ? uint64_t{1} << codec->big_page_shift() : 0;
  for (uint64_t s = mm->max_leaf_span_; s >= kPage; s >>= 1) {
    bool is_leaf = false;
    for (const LevelInfo& l : codec->levels()) is_leaf |= l.leaf && l.span() == s;
    if (frag || is_leaf || s == big_span) mm->chunk_sizes_.push_back(s);
  }
  PhysicalMemory& table_memory = c.table_memory ? *c.table_memory : memory;
  TablePageSource& table_pages = c.table_pages ? *c.table_pages : *mm;
  mm->pt_ = RG_TRY_CTX(PageTable::create(std::move(codec), table_memory, table_pages, c.va_base),
                       "while creating the %s page table", format_name(c.format).data());
  if (big_span != 0) RG_TRY(mm->pt_->enable_big_pages());
  mm->booting_ = c.booting;
  return mm;
}

AddressAllocator<VramAddr>* MemoryManager::pool_of(VramAddr addr) {
  if (boot_->contains(addr)) return &*boot_;
  if (ptable_ && ptable_->contains(addr)) return &*ptable_;
  if (main_->contains(addr)) return &*main_;
  return nullptr;
}

Result<VramAddr> MemoryManager::palloc(uint64_t size, uint64_t align, bool zero) {
  if (size == 0) return make_error(Errc::kInvalidArgument, "palloc of zero bytes");
  const uint64_t bytes = RG_TRY(align_up(size, kPage));
  AddressAllocator<VramAddr>& pool = booting_ ? *boot_ : *main_;
  const VramAddr a = RG_TRY_CTX(pool.alloc(bytes, std::max(align, kPage)), "in the %s pool",
                                booting_ ? "boot" : "main");
  if (zero) mem_->zero(a, bytes);
  return a;
}

Status MemoryManager::pfree(VramAddr addr) {
  AddressAllocator<VramAddr>* pool = pool_of(addr);
  if (pool == nullptr)
    return make_error(Errc::kOutOfRange, "pfree of %s outside every VRAM pool",
                      addr.to_string().c_str());
  return pool->free(addr);
}

Result<VramAddr> MemoryManager::alloc_table_page() {
  AddressAllocator<VramAddr>& pool = booting_ ? *boot_ : (ptable_ ? *ptable_ : *main_);
  return pool.alloc(kPage, kPage).context("while allocating a page-table page");
}

void MemoryManager::free_table_page(VramAddr page) {
  AddressAllocator<VramAddr>* pool = pool_of(page);
  RG_CHECK(pool != nullptr && pool->free(page).ok(), "freeing page-table page %s",
           page.to_string().c_str());
}

uint64_t MemoryManager::chunk_align(uint64_t chunk) const {
  return std::min(chunk, max_leaf_span_);
}

Result<VirtMapping> MemoryManager::valloc(uint64_t size, uint64_t align, PageAttrs attrs,
                                          bool contiguous) {
  if (size == 0) return make_error(Errc::kInvalidArgument, "valloc of zero bytes");
  if (!is_pow2(align))
    return make_error(Errc::kInvalidArgument, "valloc alignment %s is not a power of two",
                      hex(align).c_str());
  if (attrs.aperture != Aperture::kVram)
    return make_error(Errc::kInvalidArgument,
                      "valloc allocates VRAM; map system memory with "
                      "map_range");
  VirtMapping vm;
  vm.size = RG_TRY(align_up(size, kPage));
  vm.attrs = attrs;
  const uint64_t va_align =
      std::max({align, kPage, std::min(uint64_t{1} << log2_floor(vm.size), max_leaf_span_)});
  vm.va = RG_TRY_CTX(va_->alloc(vm.size, va_align), "while allocating %s of GPU VA",
                     format_bytes(vm.size).c_str());
  std::vector<VramAddr> pieces;  // every palloc, for rollback (vm.chunks merges neighbours)
  auto release = [&]() {
    for (VramAddr p : pieces) RG_CHECK(pfree(p).ok());
    RG_CHECK(va_->free(vm.va).ok());
  };
  if (contiguous) {
    auto pa =
        vm.size > main_->size()
            ? Result<VramAddr>(make_error(Errc::kOutOfMemory, "larger than the main pool (%s)",
                                          format_bytes(main_->size()).c_str()))
            : palloc(vm.size, chunk_align(uint64_t{1} << log2_floor(vm.size)), false);
    if (!pa.ok()) {
      release();
      return std::move(pa).take_error().add_context(
          strformat("while allocating %s of contiguous VRAM", format_bytes(vm.size).c_str()));
    }
    pieces.push_back(*pa);
    vm.chunks.push_back({*pa, vm.size});
  } else {
    uint64_t rem = vm.size;
    size_t k = 0;
    while (rem > 0) {
      while (chunk_sizes_[k] > rem || chunk_sizes_[k] > main_->size()) ++k;
      const uint64_t sz = chunk_sizes_[k];
      auto pa = palloc(sz, chunk_align(sz), false);
      if (!pa.ok()) {
        if (!pa.error().is(Errc::kOutOfMemory) || k + 1 == chunk_sizes_.size()) {
          const uint64_t got = vm.size - rem;
          release();
          return std::move(pa).take_error().add_context(
              strformat("while allocating %s of VRAM for valloc (%s obtained before failing)",
                        format_bytes(vm.size).c_str(), format_bytes(got).c_str()));
        }
        ++k;  // this size is exhausted: try the next smaller one
        continue;
      }
      pieces.push_back(*pa);
      // Merge with the previous chunk when physically adjacent (fewer, longer runs).
      if (!vm.chunks.empty() && vm.chunks.back().end() == *pa)
        vm.chunks.back().size += sz;
      else
        vm.chunks.push_back({*pa, sz});
      rem -= sz;
    }
  }
  if (Status s = pt_->map(vm.va, vm.chunks, attrs); !s.ok()) {
    release();
    return std::move(s).take_error().add_context("while mapping a valloc");
  }
  return vm;
}

Status MemoryManager::vfree(const VirtMapping& vm) {
  RG_TRY_CTX(pt_->unmap(vm.va, vm.size), "while freeing the valloc at %s",
             vm.va.to_string().c_str());
  for (const auto& c : vm.chunks) {
    // Merged chunks were allocated piecewise: free each piece (they are pool allocations).
    uint64_t off = 0;
    while (off < c.size) {
      const VramAddr a = c.base + off;
      AddressAllocator<VramAddr>* pool = pool_of(a);
      RG_CHECK(pool != nullptr);
      const uint64_t sz = RG_TRY(pool->size_of(a));
      RG_TRY(pool->free(a));
      off += sz;
    }
  }
  return va_->free(vm.va);
}

}  // namespace rawgpu::memory
