// The simulated NVIDIA GPU's Host (PBDMA) and copy engine: doorbells, GP entries, method headers
// in every form, SET_OBJECT subchannel binding, Host semaphores (every acquire flavour, 32/64-bit
// payloads, timestamps, reductions), non-stalling interrupts, and copy-engine LAUNCH_DMA (pitch,
// multi-line, one/four-word semaphores, two-word payloads on c7b5+). Memory goes through the UVM
// mappings (translate); an unmapped access is an MMU fault that stops the channel and fills its
// error notifier (and is logged under RAWGPU_DEBUG=nv=1). Field positions come from the same
// generated class headers the driver uses.
#include <chrono>
#include <cstring>

#include "rawgpu/autogen/nv/clc56f.h"
#include "rawgpu/autogen/nv/clc6b5.h"
#include "rawgpu/autogen/nv/clc7b5.h"
#include "rawgpu/autogen/nv/clc86f.h"
#include "rawgpu/autogen/nv/compute_classes.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "state.h"

namespace rawgpu::sim {

namespace rm = autogen::nv::rm;
namespace h = autogen::nv::clc56f;
namespace h86 = autogen::nv::clc86f;
namespace ce = autogen::nv::clc7b5;

namespace {

// Robust-channel error codes RM writes into the notifier's info32 (nvrm's ROBUST_CHANNEL_*).
// Unconfirmed on hardware which one each failure reports.
constexpr uint32_t kRcGrException = 13;
constexpr uint32_t kRcMmuFault = 31;
constexpr uint32_t kRcPbdmaError = 32;
// Work one poll() may do per channel before yielding (a pushbuffer that loops forever cannot
// hang the host).
constexpr uint32_t kDwordBudget = 1u << 20;

uint32_t field(uint32_t w, BitField f) {
  return static_cast<uint32_t>(extract_bits(w, f.lo, f.width));
}

uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

bool is_copy_class(uint32_t c) {
  return c == rm::AMPERE_DMA_COPY_A || c == rm::AMPERE_DMA_COPY_B || c == rm::HOPPER_DMA_COPY_A;
}

}  // namespace

uint64_t SimNvKernel::nonstall_interrupts() const {
  uint64_t n = 0;
  for (const auto& [handle, o] : objects_) n += o->nonstall_interrupts;
  return n;
}

void SimNvKernel::write_register(volatile uint32_t* reg, uint32_t value) {
  *reg = value;
  const auto* p = reinterpret_cast<const volatile uint8_t*>(reg);
  for (const UsermodeMap& m : usermode_maps_) {
    if (p == m.cpu + 0x90) doorbells_.emplace_back(static_cast<uint32_t>(m.gpu), value);
  }
}

void SimNvKernel::poll() {
  auto ring = [&](uint32_t g, uint32_t token) {
    for (auto& [handle, o] : objects_) {
      if ((o->cls == rm::AMPERE_CHANNEL_GPFIFO_A || o->cls == rm::HOPPER_CHANNEL_GPFIFO_A) &&
          o->gpu == static_cast<int>(g) && o->token == token)
        o->rung = true;
    }
  };
  // Every doorbell write since the last poll (latched through write_register), then a plain
  // store to the register that bypassed it (the last value only, as memory keeps it).
  for (const auto& [g, token] : doorbells_) ring(g, token);
  doorbells_.clear();
  for (uint32_t g = 0; g < config_.gpus; ++g) {
    uint32_t token;
    std::memcpy(&token, usermode_view_[g] + 0x90, 4);
    if (token == 0) continue;
    // The doorbell is a write-only register: consume the write.
    std::memset(usermode_view_[g] + 0x90, 0, 4);
    ring(g, token);
  }
  for (auto& [handle, o] : objects_) {
    if (o->rung && !o->stopped) run_channel(*o);
  }
}

void SimNvKernel::channel_error(Object& ch, uint32_t rc_code, const std::string& what) {
  ch.stopped = true;
  const std::string line =
      strformat("channel 0x%x (chid %u): %s", ch.handle, ch.chid, what.c_str());
  channel_errors_.push_back(line);
  log("gpu error: " + line);
  RG_LOG("nv", 1, "simulated NVIDIA GPU: %s", line.c_str());
  // The notifier: {u64 timestamp, u32 info32, u16 info16, u16 status}; status 0xffff = error.
  auto it = objects_.find(ch.error_notifier);
  if (it == objects_.end()) return;
  Object& n = *it->second;
  uint8_t* p = n.host != nullptr ? n.host : n.view;
  if (p == nullptr || n.size < 16) return;
  const uint64_t ts = now_ns();
  const uint16_t info16 = static_cast<uint16_t>(ch.chid), status = 0xffff;
  std::memcpy(p, &ts, 8);
  std::memcpy(p + 8, &rc_code, 4);
  std::memcpy(p + 12, &info16, 2);
  std::memcpy(p + 14, &status, 2);
}

bool SimNvKernel::read_mem(Object& ch, uint64_t va, void* out, uint64_t n, const char* who) {
  auto p = translate(va, n);
  if (!p.ok()) {
    channel_error(ch, kRcMmuFault,
                  strformat("MMU fault: %s read of [%s, +%s) is not mapped", who, hex(va).c_str(),
                            hex(n).c_str()));
    return false;
  }
  std::memcpy(out, *p, n);
  return true;
}

bool SimNvKernel::write_mem(Object& ch, uint64_t va, const void* in, uint64_t n, const char* who) {
  auto p = translate(va, n);
  if (!p.ok()) {
    channel_error(ch, kRcMmuFault,
                  strformat("MMU fault: %s write of [%s, +%s) is not mapped", who, hex(va).c_str(),
                            hex(n).c_str()));
    return false;
  }
  std::memcpy(*p, in, n);
  return true;
}

void SimNvKernel::run_channel(Object& ch) {
  const bool hopper = ch.cls == rm::HOPPER_CHANNEL_GPFIFO_A;
  uint32_t budget = kDwordBudget;
  while (!ch.stopped && budget > 0) {
    uint32_t gp_put = 0;
    if (!read_mem(ch, ch.userd_va + 0x8c, &gp_put, 4, "USERD")) return;
    if (!ch.in_segment) {
      if (ch.gp_get % ch.entries == gp_put % ch.entries) {
        ch.rung = false;  // caught up: the next doorbell wakes it
        return;
      }
      uint64_t entry = 0;
      const uint64_t slot = ch.ring_va + uint64_t{ch.gp_get % ch.entries} * 8;
      if (!read_mem(ch, slot, &entry, 8, "GP entry")) return;
      const auto lo = static_cast<uint32_t>(entry), hi = static_cast<uint32_t>(entry >> 32);
      const uint32_t length = field(hi, h::NVC56F_GP_ENTRY1_LENGTH);
      if (length == 0) {
        const uint32_t opcode = field(hi, h::NVC56F_GP_ENTRY1_OPCODE);
        if (opcode == h86::NVC86F_GP_ENTRY1_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE && hopper) {
          ch.extended_base = field(lo, h86::NVC86F_GP_ENTRY0_PB_EXTENDED_BASE_OPERAND);
        } else if (opcode != h::NVC56F_GP_ENTRY1_OPCODE_NOP) {
          channel_error(
              ch, kRcPbdmaError,
              strformat("GP entry %u: control opcode %u is not supported", ch.gp_get, opcode));
          return;
        }
      } else {
        ch.pb_va = (uint64_t{ch.extended_base} << 40) |
                   (uint64_t{field(hi, h::NVC56F_GP_ENTRY1_GET_HI)} << 32) |
                   (uint64_t{field(lo, h::NVC56F_GP_ENTRY0_GET)} << 2);
        ch.pb_dwords = length;
        ch.pb_pos = 0;
        ch.hdr_left = 0;
        ch.in_segment = true;
      }
      if (!ch.in_segment) {
        ch.gp_get++;
        const uint32_t get = ch.gp_get % ch.entries;
        if (!write_mem(ch, ch.userd_va + 0x88, &get, 4, "USERD")) return;
        continue;
      }
    }
    // Methods of the current segment.
    while (ch.pb_pos < ch.pb_dwords || ch.hdr_left > 0) {
      if (budget-- == 0) return;
      if (ch.hdr_left == 0) {
        uint32_t w;
        if (!read_mem(ch, ch.pb_va + uint64_t{ch.pb_pos} * 4, &w, 4, "pushbuffer")) return;
        const uint32_t op = field(w, h::NVC56F_DMA_SEC_OP);
        const uint32_t subch = field(w, h::NVC56F_DMA_METHOD_SUBCHANNEL);
        const uint32_t mthd = field(w, h::NVC56F_DMA_METHOD_ADDRESS) * 4;
        const uint32_t count = field(w, h::NVC56F_DMA_METHOD_COUNT);
        switch (op) {
          case h::NVC56F_DMA_SEC_OP_IMMD_DATA_METHOD:
            if (!method(ch, subch, mthd, count)) return;  // blocked: retry this header
            ch.pb_pos++;
            continue;
          case h::NVC56F_DMA_SEC_OP_END_PB_SEGMENT: ch.pb_pos = ch.pb_dwords; continue;
          case h::NVC56F_DMA_SEC_OP_INC_METHOD:
          case h::NVC56F_DMA_SEC_OP_NON_INC_METHOD:
          case h::NVC56F_DMA_SEC_OP_ONE_INC:
            if (ch.pb_pos + 1 + count > ch.pb_dwords) {
              channel_error(
                  ch, kRcPbdmaError,
                  strformat("pushbuffer at %s: a header at dword %u wants %u data "
                            "dwords, the segment has %u more",
                            hex(ch.pb_va).c_str(), ch.pb_pos, count, ch.pb_dwords - ch.pb_pos - 1));
              return;
            }
            ch.hdr_op = op;
            ch.hdr_subch = subch;
            ch.hdr_method = mthd;
            ch.hdr_left = count;
            ch.pb_pos++;
            continue;
          default:
            channel_error(ch, kRcPbdmaError,
                          strformat("pushbuffer at %s dword %u: header 0x%08x has SEC_OP %u "
                                    "(legacy or reserved)",
                                    hex(ch.pb_va).c_str(), ch.pb_pos, w, op));
            return;
        }
      }
      uint32_t data;
      if (!read_mem(ch, ch.pb_va + uint64_t{ch.pb_pos} * 4, &data, 4, "pushbuffer")) return;
      if (!method(ch, ch.hdr_subch, ch.hdr_method, data)) return;  // blocked: retry this dword
      ch.pb_pos++;
      ch.hdr_left--;
      if (ch.hdr_op == h::NVC56F_DMA_SEC_OP_INC_METHOD) {
        ch.hdr_method += 4;
      } else if (ch.hdr_op == h::NVC56F_DMA_SEC_OP_ONE_INC) {
        ch.hdr_op = h::NVC56F_DMA_SEC_OP_NON_INC_METHOD;
        ch.hdr_method += 4;
      }
    }
    ch.in_segment = false;
    ch.gp_get++;
    const uint32_t get = ch.gp_get % ch.entries;
    if (!write_mem(ch, ch.userd_va + 0x88, &get, 4, "USERD")) return;
  }
}

bool SimNvKernel::method(Object& ch, uint32_t subch, uint32_t mthd, uint32_t data) {
  if (mthd == h::NVC56F_SET_OBJECT) {
    const uint32_t cls = field(data, h::NVC56F_SET_OBJECT_NVCLASS);
    if (cls != ch.engine_cls) {
      channel_error(ch, kRcPbdmaError,
                    strformat("SET_OBJECT of class 0x%x on subchannel %u: the channel's engine "
                              "object is 0x%x",
                              cls, subch, ch.engine_cls));
      return false;
    }
    for (uint32_t& b : ch.bound) {
      if (b == cls) b = 0;  // rebinding moves it
    }
    ch.bound[subch] = cls;
    return true;
  }
  if (mthd < 0x100) return host_method(ch, mthd, data);
  const uint32_t cls = ch.bound[subch];
  if (cls == 0) {
    channel_error(
        ch, kRcPbdmaError,
        strformat("method 0x%x on subchannel %u, which no SET_OBJECT bound", mthd, subch));
    return false;
  }
  if (ch.engine_methods.empty()) ch.engine_methods.assign(0x2000 / 4, 0);
  if (mthd >= 0x2000) {
    channel_error(ch, kRcGrException, strformat("method 0x%x of class 0x%x", mthd, cls));
    return false;
  }
  ch.engine_methods[mthd / 4] = data;
  if (is_copy_class(cls)) {
    if (mthd == ce::NVC7B5_LAUNCH_DMA) return copy_launch(ch, data);
    return true;
  }
  // Compute: SEND_SIGNALING_PCAS2_B with a scheduling action launches the QMD whose address
  // (>> 8) SEND_PCAS_A holds; an invalidate-only action launches nothing.
  namespace cc = autogen::nv::clc6c0;
  if (mthd == cc::NVC6C0_SEND_SIGNALING_PCAS2_B) {
    const uint32_t action = field(data, cc::NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION);
    if (action == 1) return true;  // INVALIDATE
    if (action != 2 && action != 3 && action != 9 && action != 0xa) {
      channel_error(ch, kRcGrException, strformat("SEND_SIGNALING_PCAS2_B action %u", action));
      return false;
    }
    return compute_launch(ch, uint64_t{ch.engine_methods[cc::NVC6C0_SEND_PCAS_A / 4]} << 8);
  }
  if (mthd == cc::NVC6C0_LAUNCH_DMA || mthd == cc::NVC6C0_LOAD_INLINE_QMD_DATA(0)) {
    channel_error(ch, kRcGrException,
                  strformat("compute method 0x%x (inline-to-memory / inline QMD) is not "
                            "simulated",
                            mthd));
    return false;
  }
  return true;
}

bool SimNvKernel::host_method(Object& ch, uint32_t mthd, uint32_t data) {
  const bool hopper = ch.cls == rm::HOPPER_CHANNEL_GPFIFO_A;
  switch (mthd) {
    case h::NVC56F_SEM_ADDR_LO: ch.sem_lo = data & ~3u; return true;
    case h::NVC56F_SEM_ADDR_HI:
      ch.sem_hi = hopper ? field(data, h86::NVC86F_SEM_ADDR_HI_OFFSET)
                         : field(data, h::NVC56F_SEM_ADDR_HI_OFFSET);
      return true;
    case h::NVC56F_SEM_PAYLOAD_LO: ch.sem_payload_lo = data; return true;
    case h::NVC56F_SEM_PAYLOAD_HI: ch.sem_payload_hi = data; return true;
    case h::NVC56F_SEM_EXECUTE: {
      const uint64_t va = (uint64_t{ch.sem_hi} << 32) | ch.sem_lo;
      const bool wide = field(data, h::NVC56F_SEM_EXECUTE_PAYLOAD_SIZE) ==
                        h::NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT;
      const uint64_t payload =
          wide ? (uint64_t{ch.sem_payload_hi} << 32) | ch.sem_payload_lo : ch.sem_payload_lo;
      const uint32_t op = field(data, h::NVC56F_SEM_EXECUTE_OPERATION);
      const uint64_t n = wide ? 8 : 4;
      uint64_t cur = 0;
      if (op != h::NVC56F_SEM_EXECUTE_OPERATION_RELEASE && !read_mem(ch, va, &cur, n, "semaphore"))
        return false;
      switch (op) {
        case h::NVC56F_SEM_EXECUTE_OPERATION_RELEASE: {
          if (!write_mem(ch, va, &payload, n, "semaphore release")) return false;
          if (field(data, h::NVC56F_SEM_EXECUTE_RELEASE_TIMESTAMP) != 0) {
            const uint64_t ts = now_ns();
            if (!write_mem(ch, va + 8, &ts, 8, "semaphore timestamp")) return false;
          }
          return true;
        }
        case h::NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE: return cur == payload;
        case h::NVC56F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ: return cur >= payload;
        case h::NVC56F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ:
          // Wrap-safe: the difference taken as a signed number of the payload's width.
          return wide ? static_cast<int64_t>(cur - payload) >= 0
                      : static_cast<int32_t>(static_cast<uint32_t>(cur) -
                                             static_cast<uint32_t>(payload)) >= 0;
        case h::NVC56F_SEM_EXECUTE_OPERATION_ACQ_AND: return (cur & payload) != 0;
        case h::NVC56F_SEM_EXECUTE_OPERATION_ACQ_NOR:
          return (cur | payload) != (wide ? ~0ull : 0xffffffffull);
        case h::NVC56F_SEM_EXECUTE_OPERATION_REDUCTION: {
          const uint32_t red = field(data, h::NVC56F_SEM_EXECUTE_REDUCTION);
          const bool is_signed = field(data, h::NVC56F_SEM_EXECUTE_REDUCTION_FORMAT) ==
                                 h::NVC56F_SEM_EXECUTE_REDUCTION_FORMAT_SIGNED;
          uint64_t r = cur;
          const uint64_t mask = wide ? ~0ull : 0xffffffffull;
          auto sgn = [&](uint64_t v) {
            return wide ? static_cast<int64_t>(v)
                        : static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v)));
          };
          switch (red) {
            case h::NVC56F_SEM_EXECUTE_REDUCTION_IMIN:
              r = is_signed ? (sgn(cur) < sgn(payload) ? cur : payload) : std::min(cur, payload);
              break;
            case h::NVC56F_SEM_EXECUTE_REDUCTION_IMAX:
              r = is_signed ? (sgn(cur) > sgn(payload) ? cur : payload) : std::max(cur, payload);
              break;
            case h::NVC56F_SEM_EXECUTE_REDUCTION_IAND: r = cur & payload; break;
            case h::NVC56F_SEM_EXECUTE_REDUCTION_IADD: r = cur + payload; break;
            case h::NVC56F_SEM_EXECUTE_REDUCTION_INC: r = cur >= payload ? 0 : cur + 1; break;
            case h::NVC56F_SEM_EXECUTE_REDUCTION_DEC:
              r = (cur == 0 || cur > payload) ? payload : cur - 1;
              break;
            default:
              if (red == 2)
                r = cur | payload;  // IOR
              else if (red == 4)
                r = cur ^ payload;  // IXOR
              else {
                channel_error(ch, kRcPbdmaError, strformat("semaphore reduction %u", red));
                return false;
              }
          }
          r &= mask;
          return write_mem(ch, va, &r, n, "semaphore reduction");
        }
        default:
          channel_error(ch, kRcPbdmaError, strformat("SEM_EXECUTE operation %u", op));
          return false;
      }
    }
    case h::NVC56F_NON_STALL_INTERRUPT: ch.nonstall_interrupts++; return true;
    case h::NVC56F_WFI:  // the simulator runs each channel's work in order: nothing is in flight
    case h::NVC56F_MEM_OP_A:
    case h::NVC56F_MEM_OP_B:
    case h::NVC56F_MEM_OP_C:
    case h::NVC56F_MEM_OP_D: return true;
    default:
      channel_error(ch, kRcPbdmaError, strformat("Host method 0x%x is not one rawgpu uses", mthd));
      return false;
  }
}

bool SimNvKernel::copy_launch(Object& ch, uint32_t launch) {
  const auto& m = ch.engine_methods;
  const uint32_t cls = ch.engine_cls;
  const uint32_t upper_mask = cls == rm::HOPPER_DMA_COPY_A ? 0x1ffffff : 0x1ffff;
  auto reg = [&](uint32_t method) { return m[method / 4]; };
  const uint32_t transfer = field(launch, ce::NVC7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE);
  if (transfer != 0) {
    if (field(launch, ce::NVC7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT) !=
            ce::NVC7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH ||
        field(launch, ce::NVC7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT) !=
            ce::NVC7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH) {
      channel_error(ch, kRcGrException, "copy engine: block-linear layouts are not simulated");
      return false;
    }
    const uint64_t src = (uint64_t{reg(ce::NVC7B5_OFFSET_IN_UPPER) & upper_mask} << 32) |
                         reg(ce::NVC7B5_OFFSET_IN_LOWER);
    const uint64_t dst = (uint64_t{reg(ce::NVC7B5_OFFSET_OUT_UPPER) & upper_mask} << 32) |
                         reg(ce::NVC7B5_OFFSET_OUT_LOWER);
    const uint64_t len = reg(ce::NVC7B5_LINE_LENGTH_IN);
    const bool multi = field(launch, ce::NVC7B5_LAUNCH_DMA_MULTI_LINE_ENABLE) != 0;
    const uint64_t lines = multi ? reg(ce::NVC7B5_LINE_COUNT) : 1;
    const uint64_t pitch_in = multi ? reg(ce::NVC7B5_PITCH_IN) : 0;
    const uint64_t pitch_out = multi ? reg(ce::NVC7B5_PITCH_OUT) : 0;
    for (uint64_t l = 0; l < lines; ++l) {
      auto s = translate(src + l * pitch_in, len);
      if (!s.ok()) {
        channel_error(ch, kRcMmuFault,
                      strformat("MMU fault: copy-engine read of [%s, +%s) is not mapped",
                                hex(src + l * pitch_in).c_str(), hex(len).c_str()));
        return false;
      }
      auto d = translate(dst + l * pitch_out, len);
      if (!d.ok()) {
        channel_error(ch, kRcMmuFault,
                      strformat("MMU fault: copy-engine write of [%s, +%s) is not mapped",
                                hex(dst + l * pitch_out).c_str(), hex(len).c_str()));
        return false;
      }
      std::memmove(*d, *s, len);
    }
  }
  const uint32_t sem = field(launch, ce::NVC7B5_LAUNCH_DMA_SEMAPHORE_TYPE);
  if (sem != 0) {
    const uint64_t va = (uint64_t{reg(ce::NVC7B5_SET_SEMAPHORE_A) & upper_mask} << 32) |
                        reg(ce::NVC7B5_SET_SEMAPHORE_B);
    const bool two_word = cls != rm::AMPERE_DMA_COPY_A &&
                          field(launch, ce::NVC7B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE) != 0;
    const uint64_t payload = two_word
                                 ? (uint64_t{reg(ce::NVC7B5_SET_SEMAPHORE_PAYLOAD_UPPER)} << 32) |
                                       reg(ce::NVC7B5_SET_SEMAPHORE_PAYLOAD)
                                 : reg(ce::NVC7B5_SET_SEMAPHORE_PAYLOAD);
    if (field(launch, ce::NVC7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_ENABLE) != 0) {
      channel_error(ch, kRcGrException, "copy engine: semaphore reductions are not simulated");
      return false;
    }
    if (!write_mem(ch, va, &payload, two_word ? 8 : 4, "copy-engine semaphore")) return false;
    if (sem == ce::NVC7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD_SEMAPHORE) {
      const uint64_t ts = now_ns();
      if (!write_mem(ch, va + 8, &ts, 8, "copy-engine semaphore timestamp")) return false;
    }
  }
  return true;
}

}  // namespace rawgpu::sim
