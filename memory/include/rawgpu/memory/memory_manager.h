// Per-device memory manager: physical VRAM pools, the page table, and virtual allocations.
//
// VRAM [0, vram_size - reserved) is split into TLSF pools, as in the reference design:
//   boot    [0, boot_size)                 deterministic allocations during bring-up (root page
//                                          table first); while booting every palloc comes from here
//   ptable  [boot_size, +ptable_size)      optional: page-table pages on small-BAR boards, so they
//                                          stay inside the CPU-visible window
//   main    the rest                       everything else (and page tables without a ptable pool)
// The GPU VA allocator is process-wide (shared by all devices, so a buffer has the same VA on
// every GPU) and is passed in; VAs are naturally aligned (largest power of two <= size, capped at
// the largest leaf span) so huge pages are possible.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/memory/page_table.h"
#include "rawgpu/memory/phys_memory.h"
#include "rawgpu/memory/pte_codec.h"
#include "rawgpu/memory/tlsf.h"

namespace rawgpu::memory {

struct MemoryManagerConfig {
  PageTableFormat format = PageTableFormat::kAmdGfx10;
  uint64_t vram_size = 0;
  uint64_t boot_size = 32ull << 20;
  uint64_t ptable_size = 0;  // 0: page tables come from the main pool
  uint64_t reserved = 0;     // bytes at the top of VRAM the manager never hands out
  GpuVa va_base;             // the VA of page-table index 0 (AMD VM context start; NV 0)
  bool booting = true;       // start in boot mode (root table and bring-up buffers)
  // Page tables outside the VRAM pools (e.g. a SysmemTablePool): both set, or neither. The
  // tables are then written through `table_memory` and their pages come from `table_pages`.
  TablePageSource* table_pages = nullptr;
  PhysicalMemory* table_memory = nullptr;
  // NVIDIA: map with 64 KiB big pages (PageTable::enable_big_pages) and let valloc take 64 KiB
  // chunks. Ignored by formats without big pages.
  bool big_pages = false;
};

// A virtual allocation: one VA range backed by physical chunks in order.
struct VirtMapping {
  GpuVa va;
  uint64_t size = 0;
  std::vector<AddrRange<VramAddr>> chunks;
  PageAttrs attrs;
};

class MemoryManager final : private TablePageSource {
 public:
  static Result<std::unique_ptr<MemoryManager>> create(const MemoryManagerConfig& config,
                                                       PhysicalMemory& memory,
                                                       AddressAllocator<GpuVa>& va_allocator);
  ~MemoryManager() override;

  // Leaves boot mode: from now on palloc uses the main pool (and table pages the ptable pool).
  void finish_boot() { booting_ = false; }
  bool booting() const { return booting_; }

  // Physical VRAM: size rounded up to 4 KiB; align a power of two (>= 4 KiB used).
  Result<VramAddr> palloc(uint64_t size, uint64_t align = 4096, bool zero = true);
  Status pfree(VramAddr addr);

  // Allocates VA + VRAM and maps it. Physical memory is taken greedily in power-of-two chunks,
  // largest first (each naturally aligned up to the largest leaf span, so huge pages and
  // fragments apply), falling back to smaller chunks when a size is exhausted; everything is
  // released again if it cannot be completed. `contiguous` takes one physical chunk.
  Result<VirtMapping> valloc(uint64_t size, uint64_t align = 4096, PageAttrs attrs = {},
                             bool contiguous = false);
  Status vfree(const VirtMapping& mapping);

  Status map_range(GpuVa va, std::span<const AddrRange<VramAddr>> chunks, const PageAttrs& attrs) {
    return pt_->map(va, chunks, attrs);
  }
  Status map_range(GpuVa va, std::span<const AddrRange<BusAddr>> chunks, const PageAttrs& attrs) {
    return pt_->map(va, chunks, attrs);
  }
  Status unmap_range(GpuVa va, uint64_t size) { return pt_->unmap(va, size); }
  void set_invalidate_hook(std::function<void(GpuVa, uint64_t)> hook) {
    pt_->set_invalidate_hook(std::move(hook));
  }
  // TLB-invalidate batching (see PageTable): e.g. around the vallocs/vfrees of one submission.
  void begin_invalidate_batch() { pt_->begin_invalidate_batch(); }
  void end_invalidate_batch() { pt_->end_invalidate_batch(); }
  void flush_invalidations() { pt_->flush_invalidations(); }

  PageTable& page_table() { return *pt_; }
  const PageTable& page_table() const { return *pt_; }
  const AddressAllocator<VramAddr>& boot_pool() const { return *boot_; }
  const AddressAllocator<VramAddr>* ptable_pool() const { return ptable_ ? &*ptable_ : nullptr; }
  const AddressAllocator<VramAddr>& main_pool() const { return *main_; }
  // Physical chunk sizes valloc tries, largest first.
  const std::vector<uint64_t>& chunk_sizes() const { return chunk_sizes_; }

 private:
  MemoryManager() = default;
  Result<VramAddr> alloc_table_page() override;
  void free_table_page(VramAddr page) override;
  AddressAllocator<VramAddr>* pool_of(VramAddr addr);
  uint64_t chunk_align(uint64_t chunk) const;

  PhysicalMemory* mem_ = nullptr;
  AddressAllocator<GpuVa>* va_ = nullptr;
  std::optional<AddressAllocator<VramAddr>> boot_, ptable_, main_;
  std::unique_ptr<PageTable> pt_;
  std::vector<uint64_t> chunk_sizes_;
  uint64_t max_leaf_span_ = 4096;
  bool booting_ = true;
};

}  // namespace rawgpu::memory
