// Internal to sim/: the SDMA queue state of AmdGpu (shared by amd_gpu.cpp and sdma.cpp).
#pragma once

#include <optional>

#include "rawgpu/sim/amd_gpu.h"

namespace rawgpu::sim {

// The compare function of PM4 WAIT_REG_MEM and SDMA POLL_REGMEM (same 3-bit encoding in both:
// 0 always, 1 <, 2 <=, 3 ==, 4 !=, 5 >=, 6 >) applied to the masked value; nullopt for 7, which
// neither engine defines (the caller stops the queue naming the packet).
inline std::optional<bool> wait_compare(uint32_t fn, uint32_t val, uint32_t ref) {
  switch (fn) {
    case 0: return true;
    case 1: return val < ref;
    case 2: return val <= ref;
    case 3: return val == ref;
    case 4: return val != ref;
    case 5: return val >= ref;
    case 6: return val > ref;
    default: return std::nullopt;
  }
}

struct AmdGpu::SdmaQueue {
  drivers::amd::CopyQueueDesc desc;
  drivers::amd::DeviceBuffer ptrs;
  uint64_t rptr = 0;  // bytes
  uint64_t doorbell_wptr = 0;
  // The INDIRECT buffer being executed (SDMA has one IB level).
  bool in_ib = false;
  GpuVa ib_base;
  uint32_t ib_pos = 0, ib_size = 0;  // dwords
  QueueStatus status;
};

}  // namespace rawgpu::sim
