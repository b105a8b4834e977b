// Helpers for generated packet definitions (PM4, SDMA, NVIDIA methods).
#pragma once

#include <cstdint>

#include "rawgpu/base/bits.h"

namespace rawgpu::autogen {

// A field that an upstream helper macro places with `(x) << shift`, optionally masked to
// `width` bits first (`((x) & mask) << shift`). width == 0: the upstream macro does not bound
// the value, so neither does this helper (the caller owns the range).
struct ShiftField {
  uint8_t shift = 0;
  uint8_t width = 0;

  constexpr uint32_t operator()(uint64_t v) const {
    if (width != 0) RG_ASSERT(fits_bits(v, width));
    return static_cast<uint32_t>(v << shift);
  }
  // Decodes the field from a dword; only meaningful for bounded fields.
  constexpr uint32_t get(uint32_t dw) const {
    RG_ASSERT(width != 0);
    return static_cast<uint32_t>(extract_bits(dw, shift, width));
  }
};

}  // namespace rawgpu::autogen
