#include "rawgpu/queues/amd_sdma.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "rawgpu/autogen/amd/sdma_v6.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/shared_memory.h"
#include "ring_space.h"

namespace rawgpu::queues::amd {

namespace sd = autogen::amd::sdma_v6;

namespace {
constexpr uint32_t lo32(uint64_t v) { return static_cast<uint32_t>(v); }
constexpr uint32_t hi32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

// A packet of P::kDwords dwords assembled field by field from the generated definitions.
template <class P, size_t N = P::kDwords>
struct Packet {
  std::array<uint32_t, N> w{};
  Packet& set(BitField f, uint64_t v) {
    set_bits(std::span<uint32_t>(w), f, v);
    return *this;
  }
  // Appends the first `n` dwords; returns the builder offset of dword 0.
  uint32_t emit(CmdBuilder& b, size_t n = N) const {
    const uint32_t at = static_cast<uint32_t>(b.size());
    for (size_t i = 0; i < n; ++i) b.push(w[i]);
    return at;
  }
};

constexpr uint32_t kFenceMtype = 3;  // the reference design's MTYPE on GC >= 10 (amd.md §9.3)
constexpr uint32_t kPollInterval = 4;
constexpr uint32_t kPollRetry = 0xfff;
constexpr uint64_t kSubmitAlign = 32;  // bytes: every submission starts 8-dword aligned
}  // namespace

uint64_t sdma_copy_max_bytes() { return sd::COPY_LINEAR::COUNT_count.max_value() + 1; }

void sdma_nop(CmdBuilder& b) {
  Packet<sd::NOP> p;
  p.set(sd::NOP::HEADER_op, sd::SDMA_OP_NOP).set(sd::NOP::HEADER_count, 0);
  p.emit(b, 1);
}

uint32_t sdma_copy_linear(CmdBuilder& b, GpuVa dst, GpuVa src, uint64_t bytes,
                          uint64_t max_packet) {
  RG_CHECK(bytes > 0, "SDMA copy of 0 bytes");
  RG_CHECK(max_packet <= sdma_copy_max_bytes(), "COPY_LINEAR packets carry at most 1 GiB");
  const uint64_t max = max_packet ? max_packet : sdma_copy_max_bytes();
  uint32_t packets = 0;
  for (uint64_t off = 0; off < bytes; off += max, ++packets) {
    const uint64_t n = std::min(max, bytes - off);
    using C = sd::COPY_LINEAR;
    Packet<C> p;
    p.set(C::HEADER_op, sd::SDMA_OP_COPY)
        .set(C::HEADER_sub_op, sd::SDMA_SUBOP_COPY_LINEAR)
        .set(C::COUNT_count, n - 1)
        .set(C::SRC_ADDR_LO_src_addr_31_0, lo32(src.raw() + off))
        .set(C::SRC_ADDR_HI_src_addr_63_32, hi32(src.raw() + off))
        .set(C::DST_ADDR_LO_dst_addr_31_0, lo32(dst.raw() + off))
        .set(C::DST_ADDR_HI_dst_addr_63_32, hi32(dst.raw() + off));
    p.emit(b);
  }
  return packets;
}

PatchSlot sdma_fence(CmdBuilder& b, GpuVa addr, uint32_t value) {
  RG_CHECK(addr.raw() % 4 == 0, "FENCE address %s not dword aligned", hex(addr.raw()).c_str());
  using F = sd::FENCE;
  Packet<F> p;
  p.set(F::HEADER_op, sd::SDMA_OP_FENCE)
      .set(F::HEADER_mtype, kFenceMtype)
      .set(F::ADDR_LO_addr_31_0, lo32(addr.raw()))
      .set(F::ADDR_HI_addr_63_32, hi32(addr.raw()))
      .set(F::DATA_data, value);
  const uint32_t at = p.emit(b);
  return PatchSlot{at + F::DATA_data.lo / 32, 1};
}

PatchSlot sdma_poll_regmem(CmdBuilder& b, GpuVa addr, uint32_t ref, uint32_t mask,
                           SdmaPollFunc fn) {
  RG_CHECK(addr.raw() % 4 == 0, "POLL_REGMEM address %s not dword aligned",
           hex(addr.raw()).c_str());
  using P = sd::POLL_REGMEM;
  Packet<P> p;
  p.set(P::HEADER_op, sd::SDMA_OP_POLL_REGMEM)
      .set(P::HEADER_func, static_cast<uint32_t>(fn))
      .set(P::HEADER_mem_poll, 1)
      .set(P::ADDR_LO_addr_31_0, lo32(addr.raw()))
      .set(P::ADDR_HI_addr_63_32, hi32(addr.raw()))
      .set(P::VALUE_value, ref)
      .set(P::MASK_mask, mask)
      .set(P::DW5_interval, kPollInterval)
      .set(P::DW5_retry_count, kPollRetry);
  const uint32_t at = p.emit(b);
  return PatchSlot{at + P::VALUE_value.lo / 32, 1};
}

void sdma_hdp_flush(CmdBuilder& b) {
  using P = sd::POLL_REGMEM;
  Packet<P> p;
  p.set(P::HEADER_op, sd::SDMA_OP_POLL_REGMEM)
      .set(P::HEADER_func, static_cast<uint32_t>(SdmaPollFunc::kEq))
      .set(P::HEADER_hdp_flush, 1)
      .set(P::DW5_interval, kPollInterval)
      .set(P::DW5_retry_count, kPollRetry);
  p.emit(b);
}

void sdma_timestamp(CmdBuilder& b, GpuVa addr) {
  RG_CHECK(addr.raw() % 8 == 0, "TIMESTAMP address %s not 8-byte aligned", hex(addr.raw()).c_str());
  using T = sd::TIMESTAMP_GET_GLOBAL;
  Packet<T> p;
  p.set(T::HEADER_op, sd::SDMA_OP_TIMESTAMP)
      .set(T::HEADER_sub_op, sd::SDMA_SUBOP_TIMESTAMP_GET_GLOBAL)
      .set(T::WRITE_ADDR_LO_write_addr_31_3, lo32(addr.raw()) >> 3)
      .set(T::WRITE_ADDR_HI_write_addr_63_32, hi32(addr.raw()));
  p.emit(b);
}

void sdma_write_linear(CmdBuilder& b, GpuVa addr, std::span<const uint32_t> values) {
  using W = sd::WRITE_UNTILED;
  RG_CHECK(addr.raw() % 4 == 0 && !values.empty() &&
           values.size() - 1 <= W::DW_3_count.max_value());
  Packet<W> p;
  p.set(W::HEADER_op, sd::SDMA_OP_WRITE)
      .set(W::HEADER_sub_op, sd::SDMA_SUBOP_WRITE_LINEAR)
      .set(W::DST_ADDR_LO_dst_addr_31_0, lo32(addr.raw()))
      .set(W::DST_ADDR_HI_dst_addr_63_32, hi32(addr.raw()))
      .set(W::DW_3_count, values.size() - 1);
  p.emit(b, W::DATA0_data0.lo / 32);
  for (uint32_t v : values) b.push(v);
}

void sdma_indirect(CmdBuilder& b, GpuVa addr, uint32_t dwords) {
  using I = sd::INDIRECT;
  RG_CHECK(addr.raw() % 4 == 0 && dwords > 0 && dwords <= I::IB_SIZE_ib_size.max_value());
  while ((b.size() + I::kDwords) % 8 != 0) sdma_nop(b);
  Packet<I> p;
  p.set(I::HEADER_op, sd::SDMA_OP_INDIRECT)
      .set(I::BASE_LO_ib_base_31_0, lo32(addr.raw()))
      .set(I::BASE_HI_ib_base_63_32, hi32(addr.raw()))
      .set(I::IB_SIZE_ib_size, dwords);
  p.emit(b);
}

uint32_t sdma_indirect_max_dwords() {
  return static_cast<uint32_t>(sd::INDIRECT::IB_SIZE_ib_size.max_value());
}

void sdma_trap(CmdBuilder& b, uint32_t int_context) {
  using T = sd::TRAP;
  RG_CHECK(int_context <= T::INT_CONTEXT_int_context.max_value());
  Packet<T> p;
  p.set(T::HEADER_op, sd::SDMA_OP_TRAP).set(T::INT_CONTEXT_int_context, int_context);
  p.emit(b);
}

Result<std::unique_ptr<CopyQueue>> CopyQueue::create(drivers::amd::AmdDevice& device,
                                                     uint64_t ring_bytes) {
  auto desc = device.create_copy_queue(ring_bytes);
  if (!desc) return std::move(desc).take_error().with_context("while creating an SDMA copy queue");
  return std::unique_ptr<CopyQueue>(new CopyQueue(device, *desc));
}

Status CopyQueue::submit(Nanos timeout, Clock* clock) {
  if (cmds_.empty()) return {};
  while ((cmds_.size() * 4) % kSubmitAlign != 0) sdma_nop(cmds_);  // keep wptr 8-dword aligned
  const uint64_t n = cmds_.size() * 4;
  const uint64_t ring = desc_.ring.size;
  const uint64_t pos = wptr_ % ring;
  // Packets never straddle the end: a submission that does not fit before it starts at 0.
  const uint64_t skip = pos + n > ring ? ring - pos : 0;
  const uint64_t total = skip + n;
  const RingSpace space{device_, desc_.rptr, ring, "bytes", "copy ring space"};
  RG_TRY(check_fits(space, n));
  RG_TRY(wait_for_space(space, wptr_, total, timeout, clock));
  uint8_t* base = desc_.ring.cpu;
  if (skip) std::memset(base + pos, 0, skip);  // zero dwords are NOPs
  std::memcpy(base + (pos + skip) % ring, cmds_.dwords().data(), n);
  wptr_ += total;
  store_release(desc_.wptr, wptr_);  // the ring contents before it
  device_->ring_doorbell(desc_.doorbell, wptr_);
  cmds_.clear();
  return {};
}

}  // namespace rawgpu::queues::amd
