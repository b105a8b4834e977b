// NVIDIA command submission (shared/reference/nv.md §3.1–3.5): method headers in every form,
// GP entries, Host semaphores, copy-engine copies and releases built into a pushbuffer, and a
// GPFIFO channel queue that copies pushbuffers into a ring below 2^40, publishes GP entries
// (never overrunning GPGet), stores GPPut and rings the usermode doorbell with the channel's
// work-submit token. Field positions come from the generated class headers (clc56f, clc86f,
// clc6b5, clc7b5, clc8b5).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "rawgpu/base/error.h"
#include "rawgpu/base/poll.h"
#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/queues/cmd_builder.h"
#include "rawgpu/queues/signal.h"

namespace rawgpu::queues {

// SEC_OP of a method header (bits 31:29).
enum class NvSecOp : uint32_t {
  kInc = 1,         // count dwords to method, method+4, ...
  kNonInc = 3,      // count dwords to the same method
  kImmediate = 4,   // 13-bit data in the header, no payload
  kOneInc = 5,      // first dword to method, the rest to method+4
  kEndSegment = 7,  // end of the pushbuffer segment
};
// A method header. `method` is the byte offset; `count` (or, for kImmediate, the data) must fit
// 13 bits and subchannel 3 bits: violations are programming errors (RG_CHECK).
uint32_t nv_method(NvSecOp op, uint32_t subchannel, uint32_t method, uint32_t count);

// Subchannel conventions (tinygrad's, kept): Host methods anywhere, compute on 1, copy on 4.
inline constexpr uint32_t kNvSubchCompute = 1;
inline constexpr uint32_t kNvSubchCopy = 4;

// A GP entry fetching `dwords` dwords at `va` (kOutOfRange beyond 40 bits or 2^21-1 dwords,
// kInvalidArgument unaligned or empty).
Result<uint64_t> nv_gp_entry(uint64_t va, uint32_t dwords, bool sync = false);
// A control entry (length 0) with the given opcode (0 NOP, 4 SET_PB_SEGMENT_EXTENDED_BASE...).
uint64_t nv_gp_control(uint32_t opcode, uint32_t operand = 0);

// Builds a pushbuffer for one channel class and its engine class.
class NvPushBuffer {
 public:
  NvPushBuffer(uint32_t gpfifo_class, uint32_t copy_class)
      : gpfifo_class_(gpfifo_class), copy_class_(copy_class) {}
  const CmdBuilder& cmds() const { return cmds_; }
  CmdBuilder& cmds() { return cmds_; }
  size_t size() const { return cmds_.size(); }
  void clear() { cmds_.clear(); }

  void inc(uint32_t subch, uint32_t method, std::initializer_list<uint32_t> values);
  void non_inc(uint32_t subch, uint32_t method, std::initializer_list<uint32_t> values);
  void immediate(uint32_t subch, uint32_t method, uint32_t data13);
  // SET_OBJECT: bind an engine class to a subchannel.
  void set_object(uint32_t subch, uint32_t cls);

  // Host semaphores. Ampere's c56f reaches only 40-bit semaphore addresses (kOutOfRange above).
  // Wait until the 64-bit value at va is >= value (wrap-safe circular compare).
  Status wait(uint64_t va, uint64_t value);
  // Write value (64-bit) and the global timer (ns) at va+8 after all prior work, then raise a
  // non-stalling interrupt.
  Status signal(uint64_t va, uint64_t value);
  // The same, returning the 64-bit patch slot of the payload (SEM_PAYLOAD_LO/HI) so a bound
  // pushbuffer can be given new values later.
  Result<PatchSlot> wait_slot(uint64_t va, uint64_t value);
  Result<PatchSlot> signal_slot(uint64_t va, uint64_t value);
  void wfi();

  // Copy engine (subchannel kNvSubchCopy): a linear copy, split into pieces of at most 2 GiB.
  Status copy(uint64_t dst, uint64_t src, uint64_t bytes);
  // A copy-engine semaphore release after the engine's prior work: 64-bit on c7b5/c8b5 (two-word
  // payload), 32-bit on c6b5 (value must fit).
  Status copy_signal(uint64_t va, uint64_t value);

 private:
  Status check_semaphore_va(uint64_t va) const;
  uint32_t gpfifo_class_;
  uint32_t copy_class_;
  CmdBuilder cmds_;
};

struct NvQueueStats {
  uint64_t submissions = 0;
  uint64_t dwords = 0;
};

// A GPFIFO channel: its ring and USERD in the (CPU-visible) GPFIFO area, a pushbuffer arena in
// CPU-visible memory below 2^40.
class NvChannelQueue {
 public:
  // `arena` must be CPU-visible and lie below 2^40; the queue does not own it.
  NvChannelQueue(nv::RmGpu& gpu, const nv::NvChannel& channel, const nv::NvMemory& arena);

  // Copies the pushbuffer into the arena, appends its GP entry, stores GPPut and rings the
  // doorbell. Waits (through Kernel::poll) for ring and arena space up to `timeout`; on
  // failure nothing is published and the pushbuffer is kept.
  Status submit(const NvPushBuffer& pb, Nanos timeout = std::chrono::seconds(5));
  // A GP entry fetching `dwords` dwords of a pushbuffer already in GPU memory at `va` (a bound
  // graph's), without copying it into the arena; waits for a free ring slot like submit().
  Status submit_indirect(uint64_t va, uint32_t dwords, Nanos timeout = std::chrono::seconds(5));
  uint32_t gp_put() const { return put_; }
  uint32_t gp_get() const;
  const NvQueueStats& stats() const { return stats_; }
  const nv::NvChannel& channel() const { return channel_; }

 private:
  // Appends the GP entry, stores GPPut and rings the doorbell.
  void publish(uint64_t entry, uint64_t arena_start, uint32_t dwords);
  nv::RmGpu& gpu_;
  nv::NvChannel channel_;
  nv::NvMemory arena_;
  uint64_t* ring_ = nullptr;            // CPU view of the GP entries
  volatile uint32_t* userd_ = nullptr;  // CPU view of USERD
  uint32_t put_ = 0;
  uint64_t arena_head_ = 0;  // bytes used, monotonically increasing
  // Arena bytes in use by each GP entry (to know when a slot's space is free again).
  std::vector<uint64_t> entry_start_;
  NvQueueStats stats_;
};

// Waits until the 64-bit value at `signal` (CPU-visible memory; CPU VA == GPU VA) is >= value:
// queues/signal.h's wait_signal with the GPU as the HCQ device (polls the kernel seam). kTimeout
// names what was awaited with the value seen; a channel that reported an error in its notifier
// makes the wait fail at once with kHardware and the decoded notifier.
Status nv_wait_value(nv::RmGpu& gpu, const volatile uint64_t* signal, uint64_t value,
                     std::string_view what, Nanos timeout = std::chrono::seconds(5));

}  // namespace rawgpu::queues
