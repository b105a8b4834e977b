// Internal state of the simulated NVIDIA driver, shared by sim/nv/rm.cpp (the RM object model)
// and sim/nv/engine.cpp (Host and the copy engine).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "rawgpu/sim/nv_rm.h"

namespace rawgpu::sim {

struct SimNvKernel::Object {
  uint32_t handle = 0, parent = 0, cls = 0, client = 0;
  int gpu = -1;  // which GPU (device and everything under it)
  // memory objects
  uint64_t size = 0;
  int memfd = -1;
  uint8_t* view = nullptr;  // the simulator's mapping of VRAM (memfd)
  uint8_t* host = nullptr;  // OS-descriptor memory: the process's own pages
  // channels
  uint32_t chid = 0, token = 0, entries = 0, engine_cls = 0;
  uint64_t ring_va = 0, userd_va = 0;
  uint32_t error_notifier = 0;  // hObjectError
  // TSG
  bool scheduled = false;
  // Execution state of a channel (sim/nv/engine.cpp).
  bool rung = false;     // its token was written to the doorbell since GPGet caught up
  bool stopped = false;  // a channel error stopped it
  uint32_t gp_get = 0;
  bool in_segment = false;
  uint64_t pb_va = 0;
  uint32_t pb_dwords = 0, pb_pos = 0;
  uint32_t extended_base = 0;  // c86f SET_PB_SEGMENT_EXTENDED_BASE (address bits 63:40)
  // The method header being executed: operation, subchannel, method, dwords left.
  uint32_t hdr_op = 0, hdr_subch = 0, hdr_method = 0, hdr_left = 0;
  uint32_t bound[8] = {};
  uint32_t sem_lo = 0, sem_hi = 0, sem_payload_lo = 0, sem_payload_hi = 0;
  uint64_t nonstall_interrupts = 0;
  std::vector<uint32_t> engine_methods;  // copy/compute method state, by method / 4
  // DMA mappings made through this virtual-memory object: va -> (memory, length)
  struct Dma {
    uint64_t va, length;
    uint32_t memory;
  };
  std::vector<Dma> dma;
};

struct SimNvKernel::Fd {
  enum Kind { kCtl, kGpu, kUvm } kind = kCtl;
  uint32_t minor = 0;
  bool registered = false;  // /dev/nvidiaN: NV_ESC_REGISTER_FD done
  bool uvm_initialized = false;
  struct Pending {
    uint32_t memory;
    uint64_t length;
  };
  std::optional<Pending> pending_map;  // from NV_ESC_RM_MAP_MEMORY, consumed by mmap
};

struct SimNvKernel::Range {
  uint64_t base = 0, length = 0;
  bool channel = false;
  // The memory mapped into the range (UVM_MAP_EXTERNAL_ALLOCATION), 0 if none yet.
  uint32_t memory = 0;
  uint64_t memory_offset = 0;
};

}  // namespace rawgpu::sim
