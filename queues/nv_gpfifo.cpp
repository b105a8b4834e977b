#include "rawgpu/queues/nv_gpfifo.h"

#include "rawgpu/base/barrier.h"

#include <atomic>
#include <cstring>

#include "rawgpu/autogen/nv/clc56f.h"
#include "rawgpu/autogen/nv/clc6b5.h"
#include "rawgpu/autogen/nv/clc7b5.h"
#include "rawgpu/autogen/nv/clc86f.h"
#include "rawgpu/autogen/nv/rm_abi.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"

namespace rawgpu::queues {

namespace h = autogen::nv::clc56f;
namespace h86 = autogen::nv::clc86f;
namespace ce = autogen::nv::clc7b5;
namespace ce6 = autogen::nv::clc6b5;
namespace rm = autogen::nv::rm;

namespace {

constexpr uint64_t kLimit40 = 1ull << 40;
constexpr uint64_t kMaxCopyPiece = 1ull << 31;  // LINE_LENGTH_IN is 32 bits; 2 GiB pieces

uint32_t put_field(uint32_t word, BitField f, uint64_t v) {
  return static_cast<uint32_t>(deposit_bits(word, f.lo, f.width, v));
}

uint32_t sem_execute(uint32_t op, bool payload64, bool timestamp, bool wfi) {
  uint32_t w = 0;
  w = put_field(w, h::NVC56F_SEM_EXECUTE_OPERATION, op);
  w = put_field(w, h::NVC56F_SEM_EXECUTE_PAYLOAD_SIZE,
                payload64 ? h::NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT
                          : h::NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_32BIT);
  w = put_field(w, h::NVC56F_SEM_EXECUTE_RELEASE_TIMESTAMP, timestamp ? 1 : 0);
  w = put_field(w, h::NVC56F_SEM_EXECUTE_RELEASE_WFI, wfi ? 1 : 0);
  return w;
}

}  // namespace

uint32_t nv_method(NvSecOp op, uint32_t subchannel, uint32_t method, uint32_t count) {
  RG_CHECK(subchannel < 8, "subchannel %u", subchannel);
  RG_CHECK(method % 4 == 0 && method / 4 <= h::NVC56F_DMA_METHOD_ADDRESS.max_value(), "method 0x%x",
           method);
  RG_CHECK(count <= h::NVC56F_DMA_METHOD_COUNT.max_value(), "count %u", count);
  uint32_t w = 0;
  w = put_field(w, h::NVC56F_DMA_SEC_OP, static_cast<uint32_t>(op));
  w = put_field(w, h::NVC56F_DMA_METHOD_COUNT, count);  // IMMD_DATA shares bits 28:16
  w = put_field(w, h::NVC56F_DMA_METHOD_SUBCHANNEL, subchannel);
  w = put_field(w, h::NVC56F_DMA_METHOD_ADDRESS, method / 4);
  return w;
}

Result<uint64_t> nv_gp_entry(uint64_t va, uint32_t dwords, bool sync) {
  if (dwords == 0 || va % 4 != 0) {
    return make_error(Errc::kInvalidArgument, "GP entry for %u dwords at %s", dwords,
                      hex(va).c_str());
  }
  if (va + uint64_t{dwords} * 4 > kLimit40) {
    return make_error(Errc::kOutOfRange,
                      "pushbuffer at %s + %u dwords is above 2^40: GP entries carry 40 address "
                      "bits",
                      hex(va).c_str(), dwords);
  }
  if (dwords > h::NVC56F_GP_ENTRY1_LENGTH.max_value()) {
    return make_error(Errc::kOutOfRange, "pushbuffer of %u dwords exceeds a GP entry's %llu",
                      dwords,
                      static_cast<unsigned long long>(h::NVC56F_GP_ENTRY1_LENGTH.max_value()));
  }
  uint32_t lo = 0, hi = 0;
  lo = put_field(lo, h::NVC56F_GP_ENTRY0_GET, (va & 0xffffffffu) >> 2);
  lo = put_field(lo, h::NVC56F_GP_ENTRY0_FETCH, h::NVC56F_GP_ENTRY0_FETCH_UNCONDITIONAL);
  hi = put_field(hi, h::NVC56F_GP_ENTRY1_GET_HI, va >> 32);
  hi = put_field(hi, h::NVC56F_GP_ENTRY1_LEVEL, h::NVC56F_GP_ENTRY1_LEVEL_MAIN);
  hi = put_field(hi, h::NVC56F_GP_ENTRY1_LENGTH, dwords);
  hi = put_field(hi, h::NVC56F_GP_ENTRY1_SYNC,
                 sync ? h::NVC56F_GP_ENTRY1_SYNC_WAIT : h::NVC56F_GP_ENTRY1_SYNC_PROCEED);
  return (uint64_t{hi} << 32) | lo;
}

uint64_t nv_gp_control(uint32_t opcode, uint32_t operand) {
  const uint32_t hi = put_field(0, h::NVC56F_GP_ENTRY1_OPCODE, opcode);
  return (uint64_t{hi} << 32) | operand;
}

void NvPushBuffer::inc(uint32_t subch, uint32_t method, std::initializer_list<uint32_t> values) {
  cmds_.push(nv_method(NvSecOp::kInc, subch, method, static_cast<uint32_t>(values.size())));
  for (uint32_t v : values) cmds_.push(v);
}

void NvPushBuffer::non_inc(uint32_t subch, uint32_t method,
                           std::initializer_list<uint32_t> values) {
  cmds_.push(nv_method(NvSecOp::kNonInc, subch, method, static_cast<uint32_t>(values.size())));
  for (uint32_t v : values) cmds_.push(v);
}

void NvPushBuffer::immediate(uint32_t subch, uint32_t method, uint32_t data13) {
  cmds_.push(nv_method(NvSecOp::kImmediate, subch, method, data13));
}

void NvPushBuffer::set_object(uint32_t subch, uint32_t cls) {
  inc(subch, h::NVC56F_SET_OBJECT, {put_field(0, h::NVC56F_SET_OBJECT_NVCLASS, cls)});
}

Status NvPushBuffer::check_semaphore_va(uint64_t va) const {
  if (va % 8 != 0) {
    return make_error(Errc::kInvalidArgument, "semaphore at %s is not 8-byte aligned",
                      hex(va).c_str());
  }
  const unsigned hi_bits = gpfifo_class_ == rm::HOPPER_CHANNEL_GPFIFO_A
                               ? h86::NVC86F_SEM_ADDR_HI_OFFSET.width
                               : h::NVC56F_SEM_ADDR_HI_OFFSET.width;
  if ((va >> 32) > low_mask(hi_bits)) {
    return make_error(Errc::kOutOfRange,
                      "semaphore at %s is beyond the %u address bits class 0x%x can reach",
                      hex(va).c_str(), 32 + hi_bits, gpfifo_class_);
  }
  return {};
}

Status NvPushBuffer::wait(uint64_t va, uint64_t value) {
  RG_TRY(check_semaphore_va(va));
  inc(0, h::NVC56F_SEM_ADDR_LO,
      {static_cast<uint32_t>(va), static_cast<uint32_t>(va >> 32), static_cast<uint32_t>(value),
       static_cast<uint32_t>(value >> 32),
       sem_execute(h::NVC56F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ, true, false, false)});
  return {};
}

Status NvPushBuffer::signal(uint64_t va, uint64_t value) {
  RG_TRY(check_semaphore_va(va));
  inc(0, h::NVC56F_SEM_ADDR_LO,
      {static_cast<uint32_t>(va), static_cast<uint32_t>(va >> 32), static_cast<uint32_t>(value),
       static_cast<uint32_t>(value >> 32),
       sem_execute(h::NVC56F_SEM_EXECUTE_OPERATION_RELEASE, true, true, true)});
  inc(0, h::NVC56F_NON_STALL_INTERRUPT, {0});
  return {};
}

// The semaphore block is one incrementing method: header, ADDR_LO, ADDR_HI, PAYLOAD_LO,
// PAYLOAD_HI, EXECUTE; the payload starts 3 dwords after the header.
Result<PatchSlot> NvPushBuffer::wait_slot(uint64_t va, uint64_t value) {
  const auto at = static_cast<uint32_t>(cmds_.size());
  RG_TRY(wait(va, value));
  return PatchSlot{at + 3, 2};
}

Result<PatchSlot> NvPushBuffer::signal_slot(uint64_t va, uint64_t value) {
  const auto at = static_cast<uint32_t>(cmds_.size());
  RG_TRY(signal(va, value));
  return PatchSlot{at + 3, 2};
}

void NvPushBuffer::wfi() { immediate(0, h::NVC56F_WFI, 0); }

Status NvPushBuffer::copy(uint64_t dst, uint64_t src, uint64_t bytes) {
  const unsigned upper_bits = copy_class_ == rm::HOPPER_DMA_COPY_A ? 25 : 17;
  const uint64_t limit = 1ull << (32 + upper_bits);
  if (dst + bytes > limit || src + bytes > limit || dst + bytes < dst || src + bytes < src) {
    return make_error(Errc::kOutOfRange,
                      "copy of %s from %s to %s leaves the %u-bit range of "
                      "class 0x%x",
                      format_bytes(bytes).c_str(), hex(src).c_str(), hex(dst).c_str(),
                      32 + upper_bits, copy_class_);
  }
  uint32_t launch = 0;
  launch = put_field(launch, ce::NVC7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE,
                     ce::NVC7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED);
  launch = put_field(launch, ce::NVC7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT,
                     ce::NVC7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH);
  launch = put_field(launch, ce::NVC7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT,
                     ce::NVC7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH);
  for (uint64_t off = 0; off < bytes; off += kMaxCopyPiece) {
    const uint64_t n = std::min(kMaxCopyPiece, bytes - off);
    const uint64_t s = src + off, d = dst + off;
    inc(kNvSubchCopy, ce::NVC7B5_OFFSET_IN_UPPER,
        {static_cast<uint32_t>(s >> 32), static_cast<uint32_t>(s), static_cast<uint32_t>(d >> 32),
         static_cast<uint32_t>(d)});
    inc(kNvSubchCopy, ce::NVC7B5_LINE_LENGTH_IN, {static_cast<uint32_t>(n)});
    inc(kNvSubchCopy, ce::NVC7B5_LAUNCH_DMA, {launch});
  }
  return {};
}

Status NvPushBuffer::copy_signal(uint64_t va, uint64_t value) {
  const bool wide = copy_class_ != rm::AMPERE_DMA_COPY_A;
  if (!wide && value > 0xffffffffu) {
    return make_error(Errc::kOutOfRange,
                      "class 0x%x releases 32-bit semaphores: value 0x%llx does not fit",
                      copy_class_, static_cast<unsigned long long>(value));
  }
  const unsigned upper_bits = copy_class_ == rm::HOPPER_DMA_COPY_A ? 25 : 17;
  if (va % 8 != 0 || (va >> 32) > low_mask(upper_bits)) {
    return make_error(Errc::kOutOfRange, "copy-engine semaphore at %s", hex(va).c_str());
  }
  uint32_t launch = 0;
  launch = put_field(launch, ce::NVC7B5_LAUNCH_DMA_FLUSH_ENABLE, 1);
  launch = put_field(launch, ce::NVC7B5_LAUNCH_DMA_SEMAPHORE_TYPE,
                     ce::NVC7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD_SEMAPHORE);
  if (wide) {
    launch = put_field(launch, ce::NVC7B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE,
                       ce::NVC7B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE_TWO_WORD);
    inc(kNvSubchCopy, ce::NVC7B5_SET_SEMAPHORE_A,
        {static_cast<uint32_t>(va >> 32), static_cast<uint32_t>(va), static_cast<uint32_t>(value),
         static_cast<uint32_t>(value >> 32)});
  } else {
    inc(kNvSubchCopy, ce6::NVC6B5_SET_SEMAPHORE_A,
        {static_cast<uint32_t>(va >> 32), static_cast<uint32_t>(va), static_cast<uint32_t>(value)});
  }
  inc(kNvSubchCopy, ce::NVC7B5_LAUNCH_DMA, {launch});
  return {};
}

NvChannelQueue::NvChannelQueue(nv::RmGpu& gpu, const nv::NvChannel& channel,
                               const nv::NvMemory& arena)
    : gpu_(gpu), channel_(channel), arena_(arena), entry_start_(channel.entries, 0) {
  const nv::NvMemory& area = gpu.gpfifo_area();
  RG_CHECK(area.cpu_visible && arena.cpu_visible, "GPFIFO area and arena must be CPU-visible");
  ring_ = reinterpret_cast<uint64_t*>(area.cpu() + (channel.ring_va - area.va));
  userd_ = reinterpret_cast<volatile uint32_t*>(area.cpu() + (channel.userd_va - area.va));
}

uint32_t NvChannelQueue::gp_get() const {
  return std::atomic_ref<const uint32_t>(const_cast<const uint32_t&>(userd_[0x88 / 4]))
      .load(std::memory_order_acquire);
}

Status NvChannelQueue::submit(const NvPushBuffer& pb, Nanos timeout) {
  const auto dw = pb.cmds().dwords();
  if (dw.empty()) return {};
  const uint64_t bytes = dw.size() * 4;
  if (bytes > arena_.size / 2) {
    return make_error(Errc::kInvalidArgument, "a pushbuffer of %s does not fit the %s arena",
                      format_bytes(bytes).c_str(), format_bytes(arena_.size).c_str());
  }
  const uint32_t n = channel_.entries;
  // Place the pushbuffer contiguously in the arena (wrapping to its start when it would not fit
  // before the end).
  uint64_t pos = arena_head_ % arena_.size;
  uint64_t start = arena_head_;
  if (pos + bytes > arena_.size) start += arena_.size - pos;
  const uint64_t end = start + bytes;
  // Free ring slot and arena bytes: everything GPGet has passed is done with.
  PollOptions po;
  po.timeout = timeout;
  auto oldest_live_end = [&]() -> uint64_t {
    // The arena bytes still in use begin where the oldest unfetched entry's pushbuffer began;
    // entry_start_ of the slot GPGet points at bounds it from above.
    return entry_start_[gp_get() % n];
  };
  auto has_space = [&] {
    const uint32_t get = gp_get();
    const bool ring_ok = (put_ + 1) % n != get % n;
    // Bytes from the oldest in-flight pushbuffer to the new end must fit.
    const bool idle = get % n == put_;
    const uint64_t live_from = idle ? end - bytes : oldest_live_end();
    return ring_ok && (idle || end - live_from <= arena_.size);
  };
  // The fast path reads GPGet only; the kernel seam is polled (the simulated GPU runs) only
  // while the ring or the arena is full.
  if (!has_space()) {
    RG_TRY_CTX(
        poll_until(
            "GPFIFO ring and pushbuffer arena space",
            [&] {
              gpu_.rm().kernel().poll();
              return has_space();
            },
            po, [&] { return strformat("GPPut %u, GPGet %u, %u entries", put_, gp_get(), n); }),
        "submitting to channel 0x%x", channel_.handle);
  }
  const uint64_t va = arena_.va + start % arena_.size;
  const uint64_t entry = RG_TRY(nv_gp_entry(va, static_cast<uint32_t>(dw.size())));
  std::memcpy(arena_.cpu() + start % arena_.size, dw.data(), bytes);
  arena_head_ = end;
  publish(entry, start, static_cast<uint32_t>(dw.size()));
  return {};
}

void NvChannelQueue::publish(uint64_t entry, uint64_t arena_start, uint32_t dwords) {
  entry_start_[put_] = arena_start;  // where this entry's arena bytes (if any) begin
  ring_[put_] = entry;
  put_ = (put_ + 1) % channel_.entries;
  store_fence();  // the pushbuffer and the GP entry before GPPut
  std::atomic_ref<uint32_t>(const_cast<uint32_t&>(userd_[0x8c / 4]))
      .store(put_, std::memory_order_release);
  gpu_.ring_doorbell(channel_);  // fences GPPut before the doorbell
  stats_.submissions++;
  stats_.dwords += dwords;
}

Status NvChannelQueue::submit_indirect(uint64_t va, uint32_t dwords, Nanos timeout) {
  const uint64_t entry = RG_TRY(nv_gp_entry(va, dwords));
  const uint32_t n = channel_.entries;
  if ((put_ + 1) % n == gp_get() % n) {
    PollOptions po;
    po.timeout = timeout;
    RG_TRY_CTX(
        poll_until(
            "GPFIFO ring space",
            [&] {
              gpu_.rm().kernel().poll();
              return (put_ + 1) % n != gp_get() % n;
            },
            po, [&] { return strformat("GPPut %u, GPGet %u, %u entries", put_, gp_get(), n); }),
        "submitting to channel 0x%x", channel_.handle);
  }
  publish(entry, arena_head_, dwords);  // no arena bytes: the pushbuffer is elsewhere
  return {};
}

Status nv_wait_value(nv::RmGpu& gpu, const volatile uint64_t* signal, uint64_t value,
                     std::string_view what, Nanos timeout) {
  // CPU VA == GPU VA on this path: the pointer is the signal's GPU address too.
  const auto addr = reinterpret_cast<uintptr_t>(signal);
  const Signal s(reinterpret_cast<uint64_t*>(addr), GpuVa(addr));
  WaitOptions o;
  o.timeout = timeout;
  return wait_signal(gpu, s, value, what, o);
}

}  // namespace rawgpu::queues
