// The simulated SDMA engine of sim::AmdGpu: copy queues with byte-counted ring pointers,
// processed on doorbell writes and poll() calls. Packet layouts come from the generated
// sdma_v6.h (upstream sdma_v6_0_0_pkt_open.h); ring rules from amd.md §9.3-§9.4.
#include <algorithm>
#include <cstring>

#include "rawgpu/autogen/amd/sdma_v6.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/shared_memory.h"
#include "sdma.h"

namespace rawgpu::sim {

namespace sd = autogen::amd::sdma_v6;

namespace {
constexpr uint64_t kPage = 4096;

const char* sdma_op_name(uint32_t op) {
  switch (op) {
    case sd::SDMA_OP_NOP: return "NOP";
    case sd::SDMA_OP_COPY: return "COPY";
    case sd::SDMA_OP_WRITE: return "WRITE";
    case sd::SDMA_OP_INDIRECT: return "INDIRECT";
    case sd::SDMA_OP_FENCE: return "FENCE";
    case sd::SDMA_OP_TRAP: return "TRAP";
    case sd::SDMA_OP_POLL_REGMEM: return "POLL_REGMEM";
    case sd::SDMA_OP_TIMESTAMP: return "TIMESTAMP";
    default: return "unknown";
  }
}

uint64_t field(std::span<const uint32_t> w, BitField f) { return get_bits(w, f); }
uint64_t addr64(std::span<const uint32_t> w, BitField lo, BitField hi) {
  return field(w, lo) | (field(w, hi) << 32);
}
}  // namespace

QueueStatus AmdGpu::copy_queue_status(uint32_t queue_id) const {
  Guard guard(this);
  RG_CHECK(queue_id < sdma_queues_.size());
  QueueStatus s = sdma_queues_[queue_id]->status;
  s.rptr = sdma_queues_[queue_id]->rptr;
  return s;
}

Status AmdGpu::copy(GpuVa dst, GpuVa src, uint64_t bytes) {
  Guard guard(this);
  uint64_t done = 0;
  while (done < bytes) {
    const uint64_t s = src.raw() + done, d = dst.raw() + done;
    const uint64_t n = std::min({bytes - done, kPage - s % kPage, kPage - d % kPage});
    uint8_t* from = RG_TRY(translate(GpuVa(s), false, false));
    uint8_t* to = RG_TRY(translate(GpuVa(d), true, false));
    std::memmove(to, from, n);  // both lie inside one 4 KiB page
    done += n;
  }
  return {};
}

void AmdGpu::run_sdma(SdmaQueue& q) {
  if ((sdma_engines_ & (1u << q.engine)) == 0) return;  // halted, or no firmware
  if ((sdma_wedged_ & (1u << q.engine)) != 0) return;   // stuck in a packet until a reset
  const uint64_t ring = q.ring_bytes;
  while (!q.status.stopped) {
    if (!q.in_ib) {
      if (q.rptr == q.doorbell_wptr) break;
      if (q.doorbell_wptr < q.rptr || q.doorbell_wptr - q.rptr > ring || q.doorbell_wptr % 4 != 0) {
        q.status.stopped = true;
        q.status.error = strformat(
            "wptr %llu bytes is not a dword count within one ring (%llu bytes) of rptr "
            "%llu",
            static_cast<unsigned long long>(q.doorbell_wptr), static_cast<unsigned long long>(ring),
            static_cast<unsigned long long>(q.rptr));
        break;
      }
    }
    if (!step_sdma(q)) break;
  }
  if (Status st = write64(q.rptr_report, q.rptr); !st && !q.status.stopped) {
    q.status.stopped = true;
    q.status.error = "read-pointer writeback: " + st.error().message();
  }
}

bool AmdGpu::step_sdma(SdmaQueue& q) {
  const uint64_t ring = q.ring_bytes;
  const bool in_ib = q.in_ib;
  // Dwords available to this packet: up to the IB end, or up to wptr and the ring end (SDMA
  // packets never straddle the end of the ring).
  const uint64_t avail =
      in_ib ? q.ib_size - q.ib_pos : std::min(q.doorbell_wptr - q.rptr, ring - q.rptr % ring) / 4;
  auto addr_of = [&](uint64_t i) -> GpuVa {
    if (in_ib) return q.ib_base + 4 * (q.ib_pos + i);
    return q.ring + (q.rptr % ring + 4 * i);
  };
  auto stop = [&](std::string why) {
    const std::string where =
        in_ib ? strformat("IB %s dword %u", hex(q.ib_base.raw()).c_str(), q.ib_pos)
              : strformat("ring byte %llu", static_cast<unsigned long long>(q.rptr));
    q.status.stopped = true;
    q.status.error = where + ": SDMA " + why;
    return false;
  };
  std::vector<uint32_t>& w = body_;
  // Reads dwords [w.size(), n) of the packet; false (queue stopped) if they are not there.
  auto fetch = [&](uint64_t n, const char* name) -> bool {
    if (n > avail) {
      stop(strformat("%s needs %llu dwords but only %llu %s", name,
                     static_cast<unsigned long long>(n), static_cast<unsigned long long>(avail),
                     in_ib ? "remain in the IB" : "were submitted before wptr or the ring end"));
      return false;
    }
    for (uint64_t i = w.size(); i < n; ++i) {
      auto d = read32(addr_of(i));
      if (!d) {
        stop(d.error().message());
        return false;
      }
      w.push_back(*d);
    }
    return true;
  };
  w.clear();
  if (!fetch(1, "a packet header")) return false;
  const uint32_t hdr = w[0];
  const uint32_t op = hdr & 0xff, sub = (hdr >> 8) & 0xff;
  auto bad_sub = [&]() {
    return stop(strformat("%s sub-op %u not supported (header %s)", sdma_op_name(op), sub,
                          hex(hdr).c_str()));
  };
  uint64_t total = 0;
  switch (op) {
    case sd::SDMA_OP_NOP: {
      if (sub != 0) return bad_sub();
      total = 1 + field(w, sd::NOP::HEADER_count);
      if (total > avail) {
        return stop(strformat("NOP skips %llu dwords but only %llu are there",
                              static_cast<unsigned long long>(total),
                              static_cast<unsigned long long>(avail)));
      }
      break;
    }
    case sd::SDMA_OP_COPY: {
      using C = sd::COPY_LINEAR;
      if (sub != sd::SDMA_SUBOP_COPY_LINEAR) return bad_sub();
      total = C::kDwords;
      if (!fetch(total, "COPY_LINEAR")) return false;
      const uint64_t bytes = field(w, C::COUNT_count) + 1;
      const GpuVa src(addr64(w, C::SRC_ADDR_LO_src_addr_31_0, C::SRC_ADDR_HI_src_addr_63_32));
      const GpuVa dst(addr64(w, C::DST_ADDR_LO_dst_addr_31_0, C::DST_ADDR_HI_dst_addr_63_32));
      if (Status st = copy(dst, src, bytes); !st) {
        return stop("COPY_LINEAR of " + format_bytes(bytes) + ": " + st.error().message());
      }
      clock_ += sdma_copy_ticks(bytes);
      break;
    }
    case sd::SDMA_OP_WRITE: {
      using W = sd::WRITE_UNTILED;
      if (sub != sd::SDMA_SUBOP_WRITE_LINEAR) return bad_sub();
      const uint32_t head = W::DATA0_data0.lo / 32;
      if (!fetch(head, "WRITE")) return false;
      const uint64_t count = field(w, W::DW_3_count) + 1;
      total = head + count;
      if (!fetch(total, "WRITE")) return false;
      const GpuVa dst(addr64(w, W::DST_ADDR_LO_dst_addr_31_0, W::DST_ADDR_HI_dst_addr_63_32));
      if (dst.raw() % 4) return stop("WRITE destination not dword aligned");
      for (uint64_t i = 0; i < count; ++i) {
        if (Status st = write32(dst + 4 * i, w[head + i]); !st) {
          return stop("WRITE: " + st.error().message());
        }
      }
      break;
    }
    case sd::SDMA_OP_INDIRECT: {
      using I = sd::INDIRECT;
      if (sub != 0) return bad_sub();
      total = I::kDwords;
      if (!fetch(total, "INDIRECT")) return false;
      if (in_ib) return stop("INDIRECT inside an indirect buffer");
      if ((q.rptr / 4 + total) % 8 != 0) {
        return stop("INDIRECT does not end on an 8-dword boundary of the ring");
      }
      const GpuVa base(addr64(w, I::BASE_LO_ib_base_31_0, I::BASE_HI_ib_base_63_32));
      if (base.raw() % 4) return stop("INDIRECT base not dword aligned");
      const uint32_t size = static_cast<uint32_t>(field(w, I::IB_SIZE_ib_size));
      q.rptr += 4 * total;
      ++q.status.packets;
      if (size != 0) {
        q.in_ib = true;
        q.ib_base = base;
        q.ib_pos = 0;
        q.ib_size = size;
      }
      return true;
    }
    case sd::SDMA_OP_FENCE: {
      using F = sd::FENCE;
      if (sub != 0) return bad_sub();
      total = F::kDwords;
      if (!fetch(total, "FENCE")) return false;
      const GpuVa dst(addr64(w, F::ADDR_LO_addr_31_0, F::ADDR_HI_addr_63_32));
      // Real hardware writes 32 bits (amd.md §9.3).
      if (Status st = write32(dst, static_cast<uint32_t>(field(w, F::DATA_data))); !st) {
        return stop("FENCE: " + st.error().message());
      }
      break;
    }
    case sd::SDMA_OP_TRAP: {
      if (sub != 0) return bad_sub();
      total = sd::TRAP::kDwords;
      if (!fetch(total, "TRAP")) return false;
      ++q.status.traps;
      break;
    }
    case sd::SDMA_OP_POLL_REGMEM: {
      using P = sd::POLL_REGMEM;
      if (sub != 0) return bad_sub();
      total = P::kDwords;
      if (!fetch(total, "POLL_REGMEM")) return false;
      const uint32_t fn = static_cast<uint32_t>(field(w, P::HEADER_func));
      if (field(w, P::HEADER_hdp_flush) != 0) break;  // HDP flush: no HDP in the simulator
      if (field(w, P::HEADER_mem_poll) == 0) {
        return stop("POLL_REGMEM on a register is not simulated");
      }
      if (fn > 6) return stop(strformat("POLL_REGMEM function %u invalid", fn));
      FaultRule rule;
      if (faults_ != nullptr && faults_->watches(FaultRule::Trigger::kSdmaPoll) &&
          faults_->fire(FaultRule::Trigger::kSdmaPoll, q.engine, &rule) &&
          rule.action == FaultRule::Action::kHang) {
        sdma_wedged_ |= 1u << q.engine;  // the engine never leaves this packet
        q.status.hung = q.status.waiting = true;
        return false;
      }
      auto v = read32(GpuVa(addr64(w, P::ADDR_LO_addr_31_0, P::ADDR_HI_addr_63_32)));
      if (!v) return stop("POLL_REGMEM: " + v.error().message());
      const uint32_t val = *v & static_cast<uint32_t>(field(w, P::MASK_mask));
      const uint32_t ref = static_cast<uint32_t>(field(w, P::VALUE_value));
      const std::optional<bool> cmp = wait_compare(fn, val, ref);
      if (!cmp) return stop(strformat("POLL_REGMEM function %u invalid", fn));
      if (!*cmp) {
        q.status.waiting = true;  // re-polled on the next doorbell or poll()
        return false;
      }
      q.status.waiting = false;
      break;
    }
    case sd::SDMA_OP_TIMESTAMP: {
      using T = sd::TIMESTAMP_GET_GLOBAL;
      if (sub != sd::SDMA_SUBOP_TIMESTAMP_GET_GLOBAL) return bad_sub();
      total = T::kDwords;
      if (!fetch(total, "TIMESTAMP")) return false;
      const GpuVa dst((field(w, T::WRITE_ADDR_LO_write_addr_31_3) << 3) |
                      (field(w, T::WRITE_ADDR_HI_write_addr_63_32) << 32));
      if (Status st = write64(dst, timestamp()); !st) {
        return stop("TIMESTAMP: " + st.error().message());
      }
      break;
    }
    default: return stop(strformat("unknown opcode %u (header %s)", op, hex(hdr).c_str()));
  }
  ++q.status.packets;
  if (in_ib) {
    q.ib_pos += static_cast<uint32_t>(total);
    if (q.ib_pos == q.ib_size) q.in_ib = false;
  } else {
    q.rptr += 4 * total;
  }
  return true;
}

}  // namespace rawgpu::sim
