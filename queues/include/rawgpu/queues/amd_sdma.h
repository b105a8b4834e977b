// AMD SDMA (6.x/7.x, GC 11/12) copy-queue encoders and the copy queue.
//
// Opcodes, sub-opcodes, packet sizes and every field position come from the generated
// sdma_v6.h (upstream sdma_v6_0_0_pkt_open.h); layouts and ring rules follow
// /work/shared/reference/amd.md §9.3-§9.4. SDMA rings count bytes and packets never straddle
// the ring end.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/amd/device.h"
#include "rawgpu/queues/cmd_builder.h"
#include "rawgpu/queues/signal.h"

namespace rawgpu::queues::amd {

// COPY_LINEAR carries bytes-1 in a 30-bit field on SDMA >= 5: at most 1 GiB per packet.
uint64_t sdma_copy_max_bytes();
inline constexpr uint32_t kSdmaCopyDwords = 7;

// POLL_REGMEM compare functions (same numbering as PM4 WAIT_REG_MEM; amd.md §9.3).
enum class SdmaPollFunc : uint32_t {
  kAlways = 0,
  kLess = 1,
  kLessEq = 2,
  kEq = 3,
  kNotEq = 4,
  kGreaterEq = 5,
  kGreater = 6
};

// One zero dword (NOP, count 0).
void sdma_nop(CmdBuilder& b);
// COPY_LINEAR packets for `bytes` (> 0) bytes, split at sdma_copy_max_bytes(). Returns the
// number of packets written.
// `max_packet` (default and upper bound: sdma_copy_max_bytes()) lets tests exercise the split
// with small sizes.
uint32_t sdma_copy_linear(CmdBuilder& b, GpuVa dst, GpuVa src, uint64_t bytes,
                          uint64_t max_packet = 0);
// FENCE: writes the 32-bit `value` to `addr` (dword aligned); returns the value's slot.
// MTYPE 3 as the reference design programs it on GC >= 10.
PatchSlot sdma_fence(CmdBuilder& b, GpuVa addr, uint32_t value);
// POLL_REGMEM on memory: waits until (mem & mask) fn ref; returns the reference's slot.
PatchSlot sdma_poll_regmem(CmdBuilder& b, GpuVa addr, uint32_t ref, uint32_t mask, SdmaPollFunc fn);
// POLL_REGMEM with HDP_FLUSH set (register form; the simulator treats it as done).
void sdma_hdp_flush(CmdBuilder& b);
// TIMESTAMP GET_GLOBAL: writes the 64-bit GPU clock to `addr` (8-byte aligned).
void sdma_timestamp(CmdBuilder& b, GpuVa addr);
// WRITE (linear, "untiled"): writes `values` (1..2^20 dwords) to `addr` (dword aligned).
void sdma_write_linear(CmdBuilder& b, GpuVa addr, std::span<const uint32_t> values);
// INDIRECT: runs `dwords` dwords at `addr`. The packet must END on an 8-dword boundary in the
// ring: leading NOPs are inserted so that it ends on a multiple of 8 dwords relative to the
// builder start (CopyQueue::submit places every submission at an 8-dword-aligned ring offset).
void sdma_indirect(CmdBuilder& b, GpuVa addr, uint32_t dwords);
// The most dwords one INDIRECT packet runs (its IB_SIZE field).
uint32_t sdma_indirect_max_dwords();
// TRAP with a 28-bit interrupt context.
void sdma_trap(CmdBuilder& b, uint32_t int_context);

// An SDMA copy queue on an AmdDevice. Ring pointers count bytes. Each submission starts at an
// 8-dword-aligned ring offset and never straddles the ring end: if it does not fit before the
// end, the tail is zero-filled (zero dwords are NOPs) and it starts at offset 0.
class CopyQueue {
 public:
  static Result<std::unique_ptr<CopyQueue>> create(drivers::amd::AmdDevice& device,
                                                   uint64_t ring_bytes = 64 * 1024);
  CmdBuilder& commands() { return cmds_; }

  CopyQueue& wait(const Signal& s, uint32_t value) {
    sdma_poll_regmem(cmds_, s.va(), value, 0xffffffffu, SdmaPollFunc::kGreaterEq);
    return *this;
  }
  CopyQueue& signal(const Signal& s, uint32_t value) {
    sdma_fence(cmds_, s.va(), value);
    return *this;
  }
  CopyQueue& timestamp(const Signal& s) {
    sdma_timestamp(cmds_, s.timestamp_va());
    return *this;
  }
  CopyQueue& copy(GpuVa dst, GpuVa src, uint64_t bytes) {
    sdma_copy_linear(cmds_, dst, src, bytes, max_packet_);
    return *this;
  }
  // Bytes per COPY_LINEAR packet (0 = the hardware maximum); lowered by tests.
  void set_max_copy_packet(uint64_t bytes) { max_packet_ = bytes; }

  // Copies the pending commands into the ring (padding as described above), waits through
  // the device's poll hook for space against rptr (kTimeout naming rptr/wptr and the device's
  // fault state), stores wptr (bytes) and rings the doorbell. kInvalidArgument if the
  // commands cannot fit the ring. Pending commands are kept on error.
  Status submit(Nanos timeout = default_wait_timeout(), Clock* clock = nullptr);

  uint64_t wptr() const { return wptr_; }
  const drivers::amd::CopyQueueDesc& desc() const { return desc_; }

 private:
  CopyQueue(drivers::amd::AmdDevice& device, drivers::amd::CopyQueueDesc desc)
      : device_(&device), desc_(desc) {}
  drivers::amd::AmdDevice* device_;
  drivers::amd::CopyQueueDesc desc_;
  CmdBuilder cmds_;
  uint64_t wptr_ = 0;  // bytes
  uint64_t max_packet_ = 0;
};

}  // namespace rawgpu::queues::amd
