// Page tables in system memory: a pool of 4 KiB table pages inside one DMA buffer that both the
// CPU (through a mapping) and the GPU (through its bus address) can reach. It is at once the
// TablePageSource (pages are handed out by bus address, from a TLSF over the buffer) and the
// PhysicalMemory view the page table writes through (addressed by bus address, like the GPU's
// walker). PDEs pointing to these tables use the system aperture: NVIDIA SYSTEM_COHERENT /
// SYSTEM_NON_COHERENT, AMD SYSTEM plus SNOOPED when the buffer is CPU-cache coherent.
//
// Used where VRAM is not CPU-writable or not yet up (small-BAR boards during bring-up, USB
// bridges) or for APU-style setups; see memory/README.md.
#pragma once

#include <cstdint>
#include <memory>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/memory/page_table.h"
#include "rawgpu/memory/phys_memory.h"
#include "rawgpu/memory/tlsf.h"

namespace rawgpu::memory {

class SysmemTablePool final : public PhysicalMemory, public TablePageSource {
 public:
  // `cpu` maps `size` bytes whose device address is `bus`. Both 4 KiB aligned, size a nonzero
  // multiple of 4 KiB. `snooped`: the GPU's accesses are coherent with the CPU caches.
  // Errors: kInvalidArgument (alignment, size), kOverflow (bus + size wraps).
  static Result<std::unique_ptr<SysmemTablePool>> create(CpuAddr cpu, BusAddr bus, uint64_t size,
                                                         bool snooped);

  // PhysicalMemory: addresses are bus addresses in [bus, bus + size); size() is the exclusive end.
  uint64_t size() const override { return bus_.raw() + size_; }
  uint64_t* words(VramAddr bus_addr, uint64_t bytes) override;
  void zero(VramAddr bus_addr, uint64_t bytes) override;
  void flush() override;

  // TablePageSource: 4 KiB pages by bus address.
  Result<VramAddr> alloc_table_page() override;
  void free_table_page(VramAddr page) override;
  TableLocation table_location() const override { return {Aperture::kSystem, snooped_}; }

  BusAddr bus_base() const { return bus_; }
  uint64_t pool_size() const { return size_; }
  uint64_t pages_in_use() const { return pool_.stats().used_blocks; }

 private:
  SysmemTablePool(CpuAddr cpu, BusAddr bus, uint64_t size, bool snooped, Tlsf pool)
      : cpu_(cpu), bus_(bus), size_(size), snooped_(snooped), pool_(std::move(pool)) {}
  CpuAddr cpu_;
  BusAddr bus_;
  uint64_t size_;
  bool snooped_;
  Tlsf pool_;
};

}  // namespace rawgpu::memory
