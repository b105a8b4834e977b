// Internal to sim/: the queue state of AmdGpu (shared by amd_gpu.cpp, sdma.cpp and
// amd_regs.cpp).
#pragma once

#include <optional>

#include "rawgpu/autogen/amd/pm4_nvd.h"
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

constexpr uint32_t kShWindow =
    autogen::amd::pm4_nvd::PACKET3_SET_SH_REG_END - autogen::amd::pm4_nvd::PACKET3_SET_SH_REG_START;
constexpr uint32_t kUconfigWindow = autogen::amd::pm4_nvd::PACKET3_SET_UCONFIG_REG_END -
                                    autogen::amd::pm4_nvd::PACKET3_SET_UCONFIG_REG_START;

// The modelled duration of a COPY_LINEAR of `bytes`, in 100 MHz GPU-clock ticks: 32 GB/s (the
// order of a PCIe 4.0 x16 link, 320 bytes per 10 ns tick), at least one tick. A deterministic
// model, so SDMA TIMESTAMPs around a copy measure something; not a measured engine rate.
inline uint64_t sdma_copy_ticks(uint64_t bytes) { return bytes / 320 + 1; }

// A compute queue, as its HQD registers programmed it.
struct AmdGpu::Queue {
  uint32_t id = 0;       // activation order (queue_status)
  unsigned pipe = 0;     // MEC pipe (GRBM_GFX_CNTL.PIPEID at activation): runs while it is active
  uint32_t ring_id = 0;  // the IH ring_id of its interrupts: queue [6:4], me [3:2], pipe [1:0]
  // The interrupt a stop raises: CP_BAD_OPCODE (183) unless the stop set another (SQ 239 for
  // a wave error, with its SOC21 context words).
  uint32_t stop_source = 183;
  std::array<uint32_t, 2> stop_ctx{};
  GpuVa ring;
  uint64_t ring_bytes = 0;
  uint32_t doorbell = 0;
  GpuVa rptr_report;   // the engine writes its read pointer here (CP_HQD_PQ_RPTR_REPORT_ADDR)
  bool active = true;  // false once dequeued (CP_HQD_ACTIVE 0): doorbells are ignored
  uint64_t rptr = 0;
  uint64_t doorbell_wptr = 0;
  struct Frame {
    GpuVa base;
    uint32_t pos = 0;
    uint32_t size = 0;
  };
  std::vector<Frame> ibs;
  std::array<uint32_t, kShWindow> sh{};
  std::array<uint32_t, kUconfigWindow> uconfig{};
  QueueStatus status;
};

// An SDMA queue 0 of an engine, as its SDMAn_QUEUE0_* registers programmed it.
struct AmdGpu::SdmaQueue {
  uint32_t id = 0;
  unsigned engine = 0;  // runs while the engine is unhalted with its firmware
  GpuVa ring;
  uint64_t ring_bytes = 0;  // bytes
  uint32_t doorbell = 0;
  GpuVa rptr_report;  // SDMAn_QUEUE0_RB_RPTR_ADDR
  bool active = true;
  uint64_t rptr = 0;  // bytes
  uint64_t doorbell_wptr = 0;
  // The INDIRECT buffer being executed (SDMA has one IB level).
  bool in_ib = false;
  GpuVa ib_base;
  uint32_t ib_pos = 0, ib_size = 0;  // dwords
  QueueStatus status;
};

}  // namespace rawgpu::sim
