// A view of physical GPU memory for the page-table manager: page tables are written through it.
// Real devices implement it over a CPU mapping of VRAM (a BAR, or the page-table window of a
// small-BAR board); tests and the simulator use SparseVram.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"

namespace rawgpu::memory {

class PhysicalMemory {
 public:
  virtual ~PhysicalMemory() = default;
  virtual uint64_t size() const = 0;
  // CPU pointer to the 64-bit words of [addr, addr + bytes). Precondition: 8-byte aligned,
  // inside size(), and not crossing a 4 KiB boundary (page tables are 4 KiB pages). The pointer
  // stays valid for the lifetime of the view.
  virtual uint64_t* words(VramAddr addr, uint64_t bytes) = 0;
  // Zero-fills [addr, addr + bytes) (any size, 4 KiB-aligned).
  virtual void zero(VramAddr addr, uint64_t bytes) = 0;
  // Makes CPU writes visible to the GPU's page walker (write-combining flush / HDP flush).
  virtual void flush() {}
};

// VRAM through a CPU mapping of all of it (a large BAR, or a host buffer standing in for it).
class MappedVram final : public PhysicalMemory {
 public:
  MappedVram(CpuAddr base, uint64_t size) : base_(base), size_(size) {}
  uint64_t size() const override { return size_; }
  uint64_t* words(VramAddr addr, uint64_t bytes) override;
  void zero(VramAddr addr, uint64_t bytes) override;
  void flush() override;

 private:
  CpuAddr base_;
  uint64_t size_;
};

// Simulated VRAM of any size (16 GiB and more) whose 4 KiB pages are allocated on first touch.
class SparseVram final : public PhysicalMemory {
 public:
  explicit SparseVram(uint64_t size) : size_(size) {}
  uint64_t size() const override { return size_; }
  uint64_t* words(VramAddr addr, uint64_t bytes) override;
  void zero(VramAddr addr, uint64_t bytes) override;
  // Reads a word without allocating (0 for untouched pages).
  uint64_t read64(VramAddr addr) const;
  size_t touched_pages() const { return pages_.size(); }

 private:
  uint64_t size_;
  std::unordered_map<uint64_t, std::unique_ptr<uint64_t[]>> pages_;
};

}  // namespace rawgpu::memory
