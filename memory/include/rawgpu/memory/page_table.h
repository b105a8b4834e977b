// A multi-level GPU page table for any PteCodec format, written into a PhysicalMemory.
//
// The walker keeps a host-side shadow of the tree (child table per entry, a bitmap of leaf
// entries, a live-entry count per table), so it never has to read VRAM back to decide anything;
// the entries themselves are written through the PhysicalMemory view. inspect() and translate()
// read the real entries from memory and decode them through the codec, as the GPU would.
//
// Rules:
//  * Huge pages: a leaf at a level with span S is used only if the VA and the PA are both
//    S-aligned and the chunk still covers S bytes (the reference design skips the PA check).
//  * AMD fragment = the largest power of two dividing the VA offset, the run length and the PA
//    of the run (a run is the consecutive entries written for one physical chunk in one table).
//  * Errors leave the tables exactly as they were (strong guarantee): map checks the whole range
//    first and rolls back created tables when a table page cannot be allocated; unmap checks
//    that every page is mapped and that no huge page is cut before it changes anything.
//  * Tables that become empty on unmap are freed (never the root).
//  * After every successful map/unmap the TLB-invalidate hook runs with the changed VA range;
//    inside an invalidate batch (begin/end_invalidate_batch, InvalidateBatch) the changed ranges
//    are collected and the hook runs once per batch with the range covering all of them.
//  * Table pages live where the TablePageSource says (VRAM, or system memory: then the
//    PhysicalMemory view addresses that memory by bus address, e.g. SysmemTablePool).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/base/function_ref.h"
#include "rawgpu/memory/phys_memory.h"
#include "rawgpu/memory/pte_codec.h"

namespace rawgpu::memory {

// Where page-table pages come from (MemoryManager implements it with its TLSF pools).
class TablePageSource {
 public:
  virtual ~TablePageSource() = default;
  // A 4 KiB-aligned VRAM page of 4 KiB for a page table (need not be zeroed). For a source in
  // system memory the value is the page's bus address (the address the GPU walker uses).
  virtual Result<VramAddr> alloc_table_page() = 0;
  virtual void free_table_page(VramAddr page) = 0;
  // Where the pages are: VRAM (default) or system memory (snooped or not).
  virtual TableLocation table_location() const { return {}; }
};

// One leaf as found in memory (inspect/translate).
struct MappedPage {
  GpuVa va;            // start of the leaf's span
  uint64_t size = 0;   // the leaf's span (4 KiB, 2 MiB, ...)
  unsigned level = 0;  // table level holding the leaf
  uint64_t pa = 0;     // VRAM offset or bus address, per attrs.aperture
  PageAttrs attrs;
  unsigned fragment = 0;
  VramAddr table;      // the table page holding the entry
  unsigned index = 0;  // entry index in that table
};

struct PageTableStats {
  uint64_t tables = 0;        // including the root
  uint64_t leaf_entries = 0;  // valid leaves of any size
  uint64_t mapped_bytes = 0;
};

class PageTable {
 public:
  // `va_base` is the GPU VA the walker's index 0 corresponds to (AMD: the VM context start
  // address; NV: 0). The root table page is taken from `pages` now.
  static Result<std::unique_ptr<PageTable>> create(std::unique_ptr<PteCodec> codec,
                                                   PhysicalMemory& memory, TablePageSource& pages,
                                                   GpuVa va_base);
  ~PageTable();

  // Maps consecutive VA starting at `va` to the chunks in order. All addresses and sizes must be
  // page-aligned (4 KiB). attrs.aperture must be kVram for VRAM chunks and kSystem for bus ones;
  // kPeer takes VRAM chunks (offsets in the peer's VRAM, NVIDIA, peer_id 0..7) or bus chunks (a
  // peer's BAR, AMD), as codec().peer_by_bus_address() says; peer pages are never snooped.
  // Errors: kInvalidArgument (misaligned, empty, wrong aperture), kOutOfRange (outside the VA
  // range or the physical range the format can address), kAlreadyExists (any page of the range
  // is mapped), kOutOfMemory (no page for a new table). Unchanged on error.
  Status map(GpuVa va, std::span<const AddrRange<VramAddr>> chunks, const PageAttrs& attrs);
  Status map(GpuVa va, std::span<const AddrRange<BusAddr>> chunks, const PageAttrs& attrs);
  // Unmaps [va, va + size). Errors: kInvalidArgument (misaligned, or it would cut a huge page in
  // two), kOutOfRange, kNotFound (a page in the range is not mapped). Unchanged on error.
  Status unmap(GpuVa va, uint64_t size);

  // Visits the valid leaves overlapping [va, va + size) in VA order, decoded from memory.
  Status inspect(GpuVa va, uint64_t size, FunctionRef<void(const MappedPage&)> visit) const;
  // Walks the tables in memory like the GPU's MMU: the leaf mapping `va`, or kNotFound.
  Result<MappedPage> translate(GpuVa va) const;

  // Called after every successful change with the VA range whose translations changed (once per
  // batch inside an invalidate batch).
  void set_invalidate_hook(std::function<void(GpuVa, uint64_t)> hook) { hook_ = std::move(hook); }
  // Invalidate batching (nestable): while a batch is open, changed ranges are collected instead
  // of invalidated; closing the outermost batch flushes. flush_invalidations() runs the hook now
  // (once, with the VA range covering every change since the last flush) if anything changed.
  void begin_invalidate_batch() { ++batch_depth_; }
  void end_invalidate_batch();
  void flush_invalidations();
  bool invalidation_pending() const { return dirty_hi_ > dirty_lo_; }
  // How many times the hook has run (tests, statistics).
  uint64_t invalidations() const { return invalidations_; }

  // NVIDIA big pages (64 KiB leaves in the big-page table of a dual PDE0 entry): off by default,
  // so 64 KiB-aligned runs keep being mapped (and unmappable) page by page. When on, map() uses
  // a 64 KiB leaf wherever VA and PA are 64 KiB aligned and the chunk covers 64 KiB (as for
  // huge pages, unmap can then not cut such a page). A dual PDE may point to a small-page table
  // and a big-page table at once; a 64 KiB block is mapped by one of them only. MappedPage
  // level of a big page: codec().last_level() + 1. Errors: kUnsupported without big pages.
  Status enable_big_pages(bool on = true);
  bool big_pages() const;

  const PteCodec& codec() const { return *codec_; }
  VramAddr root() const;
  GpuVa va_base() const { return va_base_; }
  uint64_t va_size() const { return uint64_t{1} << codec_->va_bits(); }
  PageTableStats stats() const;
  // Every table page currently in use (root first).
  std::vector<VramAddr> table_pages() const;
  // The shadow tree matches the entries in memory (decoded through the codec), live counts are
  // right, no non-root table is empty, leaves are aligned in VA and PA. kInternal on violation.
  Status check_invariants() const;

 private:
  struct Impl;
  explicit PageTable(std::unique_ptr<Impl> impl, std::unique_ptr<PteCodec> codec, GpuVa va_base);
  struct ChunkList {  // VRAM or bus chunks without copying them
    const AddrRange<VramAddr>* vram;
    const AddrRange<BusAddr>* bus;
    size_t n;
    AddrRange<uint64_t> operator[](size_t i) const {
      return vram ? AddrRange<uint64_t>{vram[i].base.raw(), vram[i].size}
                  : AddrRange<uint64_t>{bus[i].base.raw(), bus[i].size};
    }
  };
  Status map_raw(GpuVa va, const ChunkList& chunks, const PageAttrs& attrs);
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<PteCodec> codec_;
  GpuVa va_base_;
  std::function<void(GpuVa, uint64_t)> hook_;
  void changed(GpuVa va, uint64_t size);
  unsigned batch_depth_ = 0;
  uint64_t dirty_lo_ = 0, dirty_hi_ = 0;  // pending VA range [lo, hi) (empty: lo == hi)
  uint64_t invalidations_ = 0;
};

// Scoped invalidate batch: `{ InvalidateBatch b(pt); pt.map(...); pt.unmap(...); }` runs the
// TLB-invalidate hook once at the end of the scope.
class InvalidateBatch {
 public:
  explicit InvalidateBatch(PageTable& pt) : pt_(pt) { pt_.begin_invalidate_batch(); }
  ~InvalidateBatch() { pt_.end_invalidate_batch(); }
  InvalidateBatch(const InvalidateBatch&) = delete;
  InvalidateBatch& operator=(const InvalidateBatch&) = delete;

 private:
  PageTable& pt_;
};

}  // namespace rawgpu::memory
