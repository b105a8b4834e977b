// TLSF: a two-level segregated-fit allocator for address ranges rawgpu never dereferences
// (VRAM offsets, GPU virtual addresses, kernarg/command arenas, buffer plans).
//
// Free blocks are binned by size: the first level is floor(log2(size)), the second level splits
// each power-of-two range into `sl_count` equal sub-ranges. Two bitmaps (one word for the first
// level, one word per first level for the second) make "smallest non-empty bin at or above a
// size" a pair of find-first-set instructions, so alloc and free are O(1). All metadata (block
// nodes, bins, the address -> allocation index) lives in host memory outside the managed range.
//
// Sizes are rounded up to `min_block` (a power of two; default 256 B: GPU buffers are at least
// 256-byte aligned on both vendors, and 256 B granules keep a 2^48-byte range at 2^40 granules so
// every size class fits in 64-bit bitmaps). With the default 32 second-level bins, the worst-case
// internal fragmentation from binning is 1/32 = 3.125 % for blocks above 32 granules.
//
// Alignment: any power of two up to the range size. An aligned request first tries the head of
// the ordinary good-fit bin, then the bin that guarantees a fit after alignment (size + align -
// min_block), both O(1); only when both fail does it scan the candidate bins exhaustively, so an
// allocation fails only if no free block can hold it. In particular an exactly fitting, suitably
// aligned hole is always found (the reference design searches for size + align - 1 and so cannot
// use such holes). A gap in front of an aligned allocation that is at most the allocation's size
// stays inside its block as padding (TlsfStats::padding) instead of becoming a tiny free block;
// padding is released again when a request cannot be served otherwise.
//
// Errors are values; a failed call leaves the allocator unchanged. The one exception is host
// memory for the metadata: std::bad_alloc (also once 2^32 - 3 block descriptors, 128 GiB, would
// be live) is thrown before anything changes. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"

namespace rawgpu::memory {

struct TlsfConfig {
  uint64_t base = 0;         // first managed address; must be a multiple of min_block
  uint64_t size = 0;         // bytes managed; a multiple of min_block, base + size <= 2^64
  uint64_t min_block = 256;  // allocation granule, a power of two
  unsigned sl_count = 32;    // second-level bins per power of two: 2, 4, ..., 64
};

struct TlsfStats {
  uint64_t used = 0;          // bytes in allocated blocks (rounded to min_block)
  uint64_t free = 0;          // bytes in free blocks
  uint64_t padding = 0;       // alignment padding kept inside allocated blocks (used + padding +
                              // free = the range size)
  uint64_t largest_free = 0;  // the largest free block
  uint64_t used_blocks = 0;
  uint64_t free_blocks = 0;
  // 1 - largest_free / free: 0 when all free space is one block (or there is none).
  double fragmentation() const {
    return free == 0 ? 0.0 : 1.0 - static_cast<double>(largest_free) / static_cast<double>(free);
  }
};

// The address -> allocation index (an open-addressing hash table; for tests and tuning).
struct TlsfIndexStats {
  uint64_t entries = 0;    // live allocations
  uint64_t capacity = 0;   // slots (a power of two; entries <= capacity / 16)
  uint64_t max_probe = 0;  // the most slots a successful lookup inspects (1: no collision)
};

// The block-descriptor pool (for tests and tuning): its array grows geometrically, so the number
// of reallocations is logarithmic in the most blocks ever live.
struct TlsfPoolStats {
  uint64_t nodes = 0;          // descriptors in the array (live blocks plus spares)
  uint64_t capacity = 0;       // descriptors the array holds before it must grow
  uint64_t reallocations = 0;  // times the array was reallocated since create()
};

class Tlsf {
 public:
  static Result<Tlsf> create(const TlsfConfig& config);
  Tlsf(Tlsf&&) noexcept;
  Tlsf& operator=(Tlsf&&) noexcept;
  ~Tlsf();

  // Allocates `size` bytes (rounded up to min_block) at an address that is a multiple of `align`
  // (a power of two; values below min_block mean min_block). Errors: kInvalidArgument (zero
  // size, bad alignment), kOutOfMemory (no free block can hold it; the message names the largest
  // free block).
  //
  //
  // alloc and free are inline wrappers: the O(1) cases run out of line in alloc_fast/free_fast,
  // which return plain values in registers (no Result in memory, no Error destructor to run);
  // what they leave alone, with nothing changed (bad arguments, an unknown address, no bin that
  // guarantees a fit), runs again in alloc_full/free_full, which build the Result or Error.
  Result<uint64_t> alloc(uint64_t size, uint64_t align = 1) {
    const Fast r = alloc_fast(size, align);
    if (r.ok != 0) [[likely]]
      return r.addr;
    return alloc_full(size, align);
  }
  // Frees an allocation by its start address. Errors: kOutOfRange (outside the range),
  // kInvalidArgument (inside an allocation but not its start), kAlreadyExists (in free space:
  // double free or never allocated).
  Status free(uint64_t addr) {
    if (free_fast(addr)) [[likely]]
      return {};
    return free_full(addr);
  }
  // Size of the allocation starting at addr (the rounded size). kNotFound if none starts there.
  Result<uint64_t> size_of(uint64_t addr) const;
  bool is_allocated(uint64_t addr) const;

  TlsfStats stats() const;
  TlsfIndexStats index_stats() const;  // O(capacity)
  TlsfPoolStats pool_stats() const;
  uint64_t base() const;
  uint64_t size() const;
  uint64_t min_block() const;

  // Full structural check (O(blocks + bins)): blocks tile the range exactly, no two adjacent free
  // blocks, free-list membership matches the free flags and each block sits in the bin its size
  // maps to, bitmaps match list emptiness, allocations are aligned as requested, the address
  // index matches the allocated blocks. kInternal naming the first violation.
  Status check_invariants() const;

  // Visits every block in address order (tests, dumps). An allocated block's range includes the
  // padding in front of its allocation.
  template <class F>
  void for_each_block(F&& f) const {
    for_each_block_impl([](void* ctx, uint64_t addr, uint64_t size,
                           bool free) { (*static_cast<F*>(ctx))(addr, size, free); },
                        &f);
  }

 private:
  struct Impl;
  explicit Tlsf(std::unique_ptr<Impl> impl);
  // The hot paths. A failed fast call (ok == 0, false) has changed nothing; the full call then
  // does the whole request again, slow paths and errors included.
  struct Fast {
    uint64_t addr;
    uint64_t ok;  // 16 bytes, trivially copyable: returned in two registers
  };
  Fast alloc_fast(uint64_t size, uint64_t align);
  Result<uint64_t> alloc_full(uint64_t size, uint64_t align);
  bool free_fast(uint64_t addr);
  Status free_full(uint64_t addr);
  void for_each_block_impl(void (*cb)(void*, uint64_t, uint64_t, bool), void* ctx) const;
  std::unique_ptr<Impl> impl_;
};

// A Tlsf over one address space: the same allocator with strong address types at the API.
template <class A>
class AddressAllocator {
 public:
  static Result<AddressAllocator> create(A base, uint64_t size, uint64_t min_block = 256,
                                         unsigned sl_count = 32) {
    TlsfConfig c;
    c.base = base.raw();
    c.size = size;
    c.min_block = min_block;
    c.sl_count = sl_count;
    auto t = RG_TRY(Tlsf::create(c));
    return AddressAllocator(std::move(t));
  }
  Result<A> alloc(uint64_t size, uint64_t align = 1) { return A(RG_TRY(tlsf_.alloc(size, align))); }
  Status free(A addr) { return tlsf_.free(addr.raw()); }
  Result<uint64_t> size_of(A addr) const { return tlsf_.size_of(addr.raw()); }
  bool contains(A addr) const {
    return addr.raw() >= tlsf_.base() && addr.raw() - tlsf_.base() < tlsf_.size();
  }
  A base() const { return A(tlsf_.base()); }
  uint64_t size() const { return tlsf_.size(); }
  TlsfStats stats() const { return tlsf_.stats(); }
  Status check_invariants() const { return tlsf_.check_invariants(); }
  Tlsf& raw() { return tlsf_; }
  const Tlsf& raw() const { return tlsf_; }

 private:
  explicit AddressAllocator(Tlsf t) : tlsf_(std::move(t)) {}
  Tlsf tlsf_;
};

// Bump allocator with wrap-around for rings (kernargs, command buffers, bridge SRAM): hands out
// consecutive ranges and, with wrap enabled, restarts at the beginning when the next range does
// not fit. It does not know when the consumer is done with old ranges; the caller sizes the ring
// (or waits) so that wrapped allocations never overwrite live data.
class BumpAllocator {
 public:
  // Errors: kInvalidArgument for a zero size, kOverflow if base + size wraps 2^64.
  static Result<BumpAllocator> create(uint64_t base, uint64_t size, bool wrap = true);

  // Errors: kInvalidArgument (zero size, alignment not a power of two), kOutOfMemory (does not fit
  // even in an empty ring, or the ring is full and wrap is off). Unchanged on error.
  Result<uint64_t> alloc(uint64_t size, uint64_t align = 1);
  void reset() { offset_ = 0; }

  uint64_t base() const { return base_; }
  uint64_t size() const { return size_; }
  uint64_t offset() const { return offset_; }  // next free offset from base
  uint64_t wraps() const { return wraps_; }    // how many times allocation restarted at base

 private:
  BumpAllocator(uint64_t base, uint64_t size, bool wrap) : base_(base), size_(size), wrap_(wrap) {}
  // First aligned offset >= from at which `size` bytes fit, or UINT64_MAX.
  uint64_t fit_at(uint64_t from, uint64_t size, uint64_t align) const;
  uint64_t base_;
  uint64_t size_;
  bool wrap_;
  uint64_t offset_ = 0;
  uint64_t wraps_ = 0;
};

}  // namespace rawgpu::memory
