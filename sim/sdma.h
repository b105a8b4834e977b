// Internal to sim/: the SDMA queue state of AmdGpu (shared by amd_gpu.cpp and sdma.cpp).
#pragma once

#include "rawgpu/sim/amd_gpu.h"

namespace rawgpu::sim {

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
