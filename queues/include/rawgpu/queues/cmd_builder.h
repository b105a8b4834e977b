// A command builder: appends command dwords and records patch slots for values only known at
// submit time (timeline values, buffer addresses, grid sizes, scalar kernel arguments).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rawgpu/base/error.h"

namespace rawgpu::queues {

// A 1- or 2-dword hole in a command buffer. 64-bit slots are lo, hi.
struct PatchSlot {
  uint32_t offset = 0;  // dword index in the builder
  uint8_t dwords = 0;   // 1 or 2; 0 = no slot
  bool valid() const { return dwords != 0; }
};

class CmdBuilder {
 public:
  CmdBuilder() { dw_.reserve(256); }
  void clear() { dw_.clear(); }
  // Drops the dwords from `n` on (patch slots past `n` become invalid).
  void truncate(size_t n) {
    RG_CHECK(n <= dw_.size(), "truncating %zu dwords to %zu", dw_.size(), n);
    dw_.resize(n);
  }
  size_t size() const { return dw_.size(); }
  bool empty() const { return dw_.empty(); }
  std::span<const uint32_t> dwords() const { return dw_; }
  uint32_t operator[](size_t i) const { return dw_[i]; }

  void push(uint32_t v) { dw_.push_back(v); }
  void push64(uint64_t v) {
    dw_.push_back(static_cast<uint32_t>(v));
    dw_.push_back(static_cast<uint32_t>(v >> 32));
  }
  PatchSlot slot32(uint32_t initial = 0) {
    PatchSlot s{static_cast<uint32_t>(dw_.size()), 1};
    push(initial);
    return s;
  }
  PatchSlot slot64(uint64_t initial = 0) {
    PatchSlot s{static_cast<uint32_t>(dw_.size()), 2};
    push64(initial);
    return s;
  }
  // Rewrites a slot. A slot outside the buffer or a value too wide for a 32-bit slot is a
  // programming error.
  void patch(PatchSlot s, uint64_t v) {
    RG_CHECK(s.valid() && s.offset + s.dwords <= dw_.size(), "patch slot %u+%u outside %zu dwords",
             s.offset, unsigned{s.dwords}, dw_.size());
    if (s.dwords == 1) {
      RG_CHECK(v <= 0xffffffffu, "value 0x%llx does not fit a 32-bit slot",
               static_cast<unsigned long long>(v));
      dw_[s.offset] = static_cast<uint32_t>(v);
    } else {
      dw_[s.offset] = static_cast<uint32_t>(v);
      dw_[s.offset + 1] = static_cast<uint32_t>(v >> 32);
    }
  }

 private:
  std::vector<uint32_t> dw_;
};

}  // namespace rawgpu::queues
