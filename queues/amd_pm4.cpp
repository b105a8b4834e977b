#include "rawgpu/queues/amd_pm4.h"

#include <cstring>

#include "rawgpu/autogen/amd/kfd_pm4_headers_ai.h"
#include "rawgpu/autogen/amd/pm4_nvd.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/autogen/amd/regs/nbif_6_3_1.h"
#include "rawgpu/autogen/amd/regs/nbio_4_3_0.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/shared_memory.h"
#include "ring_space.h"

namespace rawgpu::queues::amd {

namespace pm4 = autogen::amd::pm4_nvd;
namespace kfd = autogen::amd::kfd_pm4_ai;
using gc = autogen::amd::gc_11_0_0;

namespace {
// The 8-dword SET_SH at COMPUTE_START_X (amd.md §9.2 step 6) relies on this register order.
static_assert(gc::COMPUTE_NUM_THREAD_X::kInfo.offset == gc::COMPUTE_START_X::kInfo.offset + 3);
static_assert(gc::COMPUTE_PERFCOUNT_ENABLE::kInfo.offset == gc::COMPUTE_START_X::kInfo.offset + 7);
static_assert(gc::COMPUTE_PGM_RSRC2::kInfo.offset == gc::COMPUTE_PGM_RSRC1::kInfo.offset + 1);
static_assert(gc::COMPUTE_PGM_HI::kInfo.offset == gc::COMPUTE_PGM_LO::kInfo.offset + 1);
static_assert(gc::COMPUTE_RESTART_Z::kInfo.offset == gc::COMPUTE_RESTART_X::kInfo.offset + 2);
static_assert(gc::COMPUTE_DISPATCH_SCRATCH_BASE_HI::kInfo.offset ==
              gc::COMPUTE_DISPATCH_SCRATCH_BASE_LO::kInfo.offset + 1);
static_assert(gc::COMPUTE_USER_DATA_15::kInfo.offset == gc::COMPUTE_USER_DATA_0::kInfo.offset + 15);
// exec() uses the GC 11 offsets for GC 12 too: the compute registers did not move.
using gc12 = autogen::amd::gc_12_0_0;
static_assert(gc12::COMPUTE_PGM_LO::kInfo.offset == gc::COMPUTE_PGM_LO::kInfo.offset);
static_assert(gc12::COMPUTE_PGM_RSRC1::kInfo.offset == gc::COMPUTE_PGM_RSRC1::kInfo.offset);
static_assert(gc12::COMPUTE_PGM_RSRC3::kInfo.offset == gc::COMPUTE_PGM_RSRC3::kInfo.offset);
static_assert(gc12::COMPUTE_TMPRING_SIZE::kInfo.offset == gc::COMPUTE_TMPRING_SIZE::kInfo.offset);
static_assert(gc12::COMPUTE_DISPATCH_SCRATCH_BASE_LO::kInfo.offset ==
              gc::COMPUTE_DISPATCH_SCRATCH_BASE_LO::kInfo.offset);
static_assert(gc12::COMPUTE_RESTART_X::kInfo.offset == gc::COMPUTE_RESTART_X::kInfo.offset);
static_assert(gc12::COMPUTE_USER_DATA_0::kInfo.offset == gc::COMPUTE_USER_DATA_0::kInfo.offset);
static_assert(gc12::COMPUTE_RESOURCE_LIMITS::kInfo.offset ==
              gc::COMPUTE_RESOURCE_LIMITS::kInfo.offset);
static_assert(gc12::COMPUTE_START_X::kInfo.offset == gc::COMPUTE_START_X::kInfo.offset);
static_assert(gc12::COMPUTE_NUM_THREAD_X::kInfo.offset == gc::COMPUTE_NUM_THREAD_X::kInfo.offset);
// The HDP flush registers are the same in NBIO 4.3 (gfx1100) and NBIF 6.3.1 (gfx1201).
using nbio = autogen::amd::nbio_4_3_0;
using nbif = autogen::amd::nbif_6_3_1;
static_assert(nbio::BIF_BX_PF0_GPU_HDP_FLUSH_REQ::kInfo.offset ==
                  nbif::BIF_BX_PF0_GPU_HDP_FLUSH_REQ::kInfo.offset &&
              nbio::BIF_BX_PF0_GPU_HDP_FLUSH_REQ::kInfo.base_idx == 2 &&
              nbif::BIF_BX_PF0_GPU_HDP_FLUSH_REQ::kInfo.base_idx == 2);
static_assert(nbio::BIF_BX_PF0_GPU_HDP_FLUSH_DONE::kInfo.offset ==
                  nbif::BIF_BX_PF0_GPU_HDP_FLUSH_DONE::kInfo.offset &&
              nbio::BIF_BX_PF0_GPU_HDP_FLUSH_DONE::kInfo.base_idx == 2);

constexpr uint32_t lo32(uint64_t v) { return static_cast<uint32_t>(v); }
constexpr uint32_t hi32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
}  // namespace

uint32_t pm4_header(uint32_t opcode, uint32_t body_dwords) {
  RG_CHECK(body_dwords >= 1 && body_dwords <= 0x4000, "PM4 body of %u dwords", body_dwords);
  RG_CHECK(opcode <= 0xff);
  return (pm4::PACKET_TYPE3 << 30) | ((body_dwords - 1) << 16) | (opcode << 8);
}

Result<GcGen> gc_gen(uint32_t gc_version) {
  if (gc_version >= 110000 && gc_version < 120000) return GcGen::kGfx11;
  if (gc_version >= 120000 && gc_version < 130000) return GcGen::kGfx12;
  return make_error(Errc::kUnsupported,
                    "GC %u.%u.%u: the PM4 encoders support GC 11 and GC 12 only",
                    gc_version / 10000, gc_version / 100 % 100, gc_version % 100);
}

uint32_t hdp_flush_req_reg() {
  return kNbioSeg2Base + nbio::BIF_BX_PF0_GPU_HDP_FLUSH_REQ::kInfo.offset;
}
uint32_t hdp_flush_done_reg() {
  return kNbioSeg2Base + nbio::BIF_BX_PF0_GPU_HDP_FLUSH_DONE::kInfo.offset;
}

uint32_t gcr_exec_invalidate(GcGen gen) {
  return pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLM_INV(1) |
         pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLK_INV(1) |
         pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLV_INV(1) |
         (gen == GcGen::kGfx11 ? pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GL1_INV(1) : 0);
}

uint32_t gcr_full(GcGen gen) {
  return (gen == GcGen::kGfx11 ? pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GL1_INV(1) : 0) |
         pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLI_INV(1) |
         pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLM_WB(1) |
         pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLM_INV(1) |
         pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLK_WB(1) |
         pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLK_INV(1) |
         pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLV_INV(1) |
         pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GL2_INV(1) | pm4::PACKET3_ACQUIRE_MEM_GCR_CNTL_GL2_WB(1);
}

uint32_t release_mem_flush_flags(GcGen gen) {
  return pm4::PACKET3_RELEASE_MEM_GCR_GLM_WB | pm4::PACKET3_RELEASE_MEM_GCR_GLM_INV |
         pm4::PACKET3_RELEASE_MEM_GCR_GLV_INV |
         (gen == GcGen::kGfx11 ? pm4::PACKET3_RELEASE_MEM_GCR_GL1_INV : 0) |
         pm4::PACKET3_RELEASE_MEM_GCR_GL2_INV | pm4::PACKET3_RELEASE_MEM_GCR_GL2_WB |
         pm4::PACKET3_RELEASE_MEM_GCR_SEQ;
}

void nop(CmdBuilder& b, uint32_t body_dwords) {
  b.push(pm4_header(pm4::PACKET3_NOP, body_dwords));
  for (uint32_t i = 0; i < body_dwords; ++i) b.push(0);
}

PatchSlot wait_reg_mem(CmdBuilder& b, GpuVa addr, uint32_t ref, uint32_t mask, WaitFunc fn) {
  RG_CHECK(addr.raw() % 4 == 0, "WAIT_REG_MEM address %s not dword aligned",
           hex(addr.raw()).c_str());
  b.push(pm4_header(pm4::PACKET3_WAIT_REG_MEM, 6));
  b.push(pm4::WAIT_REG_MEM_FUNCTION(static_cast<uint32_t>(fn)) | pm4::WAIT_REG_MEM_MEM_SPACE(1) |
         pm4::WAIT_REG_MEM_OPERATION(0) | pm4::WAIT_REG_MEM_ENGINE(0));
  b.push(lo32(addr.raw()));
  b.push(hi32(addr.raw()));
  const PatchSlot s = b.slot32(ref);
  b.push(mask);
  b.push(4);  // poll interval (amd.md §9.1)
  return s;
}

PatchSlot release_mem(CmdBuilder& b, GpuVa addr, uint32_t flags, uint32_t data_sel, uint64_t data,
                      bool slot64) {
  b.push(pm4_header(pm4::PACKET3_RELEASE_MEM, 7));
  b.push(pm4::PACKET3_RELEASE_MEM_EVENT_TYPE(kfd::CACHE_FLUSH_AND_INV_TS_EVENT) |
         pm4::PACKET3_RELEASE_MEM_EVENT_INDEX(kfd::event_index__mec_release_mem__end_of_pipe) |
         flags);
  b.push(pm4::PACKET3_RELEASE_MEM_DATA_SEL(data_sel) |
         pm4::PACKET3_RELEASE_MEM_INT_SEL(kfd::int_sel__mec_release_mem__none) |
         pm4::PACKET3_RELEASE_MEM_DST_SEL(kfd::dst_sel__mec_release_mem__memory_controller));
  b.push(lo32(addr.raw()));
  b.push(hi32(addr.raw()));
  PatchSlot s;
  if (slot64) {
    s = b.slot64(data);
  } else {
    s = b.slot32(lo32(data));
    b.push(0);
  }
  b.push(0);  // int_ctxid
  return s;
}

void wait_reg(CmdBuilder& b, uint32_t reg, uint32_t ref, uint32_t mask, WaitFunc fn) {
  b.push(pm4_header(pm4::PACKET3_WAIT_REG_MEM, 6));
  b.push(pm4::WAIT_REG_MEM_FUNCTION(static_cast<uint32_t>(fn)) | pm4::WAIT_REG_MEM_MEM_SPACE(0) |
         pm4::WAIT_REG_MEM_OPERATION(0) | pm4::WAIT_REG_MEM_ENGINE(0));
  b.push(reg);
  b.push(0);
  b.push(ref);
  b.push(mask);
  b.push(4);
}

void write_wait_reg(CmdBuilder& b, uint32_t write_reg, uint32_t wait_reg, uint32_t ref,
                    uint32_t mask, WaitFunc fn, uint32_t poll_interval) {
  b.push(pm4_header(pm4::PACKET3_WAIT_REG_MEM, 6));
  b.push(pm4::WAIT_REG_MEM_FUNCTION(static_cast<uint32_t>(fn)) | pm4::WAIT_REG_MEM_MEM_SPACE(0) |
         pm4::WAIT_REG_MEM_OPERATION(1) | pm4::WAIT_REG_MEM_ENGINE(0));
  b.push(write_reg);
  b.push(wait_reg);
  b.push(ref);
  b.push(mask);
  b.push(poll_interval);
}

void hdp_flush(CmdBuilder& b) {
  write_wait_reg(b, hdp_flush_req_reg(), hdp_flush_done_reg(), kHdpFlushCpBit, kHdpFlushCpBit,
                 WaitFunc::kEq, 0x20);
}

void copy_data(CmdBuilder& b, bool dst_memory, uint64_t dst, CopySel src_sel, uint64_t src,
               bool bit64) {
  if (dst_memory) RG_CHECK(dst % (bit64 ? 8 : 4) == 0, "COPY_DATA destination misaligned");
  b.push(pm4_header(pm4::PACKET3_COPY_DATA, 5));
  b.push(static_cast<uint32_t>(src_sel) | ((dst_memory ? kCopyDataDstMemory : 0) << 8) |
         ((bit64 ? 1u : 0u) << 16) | (1u << 20));
  b.push(lo32(src));
  b.push(hi32(src));
  b.push(lo32(dst));
  b.push(hi32(dst));
}

PatchSlot release_mem_signal(CmdBuilder& b, GpuVa addr, uint32_t value, bool cache_flush) {
  RG_CHECK(addr.raw() % 4 == 0);
  return release_mem(b, addr, cache_flush ? release_mem_flush_flags() : 0,
                     kfd::data_sel__mec_release_mem__send_32_bit_low, value, false);
}

PatchSlot release_mem_write64(CmdBuilder& b, GpuVa addr, uint64_t value) {
  RG_CHECK(addr.raw() % 8 == 0);
  return release_mem(b, addr, 0, kfd::data_sel__mec_release_mem__send_64_bit_data, value, true);
}

void release_mem_timestamp(CmdBuilder& b, GpuVa addr) {
  RG_CHECK(addr.raw() % 8 == 0);
  (void)release_mem(b, addr, 0, kfd::data_sel__mec_release_mem__send_gpu_clock_counter, 0, false);
}

void acquire_mem(CmdBuilder& b, uint32_t gcr_cntl) {
  b.push(pm4_header(pm4::PACKET3_ACQUIRE_MEM, 7));
  b.push(0);           // CP_COHER_CNTL (unused on GC >= 10)
  b.push(0xffffffff);  // COHER_SIZE: the whole address space
  b.push(0x00ffffff);  // COHER_SIZE_HI (24 bits)
  b.push(0);           // COHER_BASE
  b.push(0);           // COHER_BASE_HI
  b.push(0x0a);        // poll interval
  b.push(gcr_cntl);
}

void set_sh_reg(CmdBuilder& b, uint32_t seg0_offset, std::span<const uint32_t> values) {
  const uint32_t abs = seg0_offset + drivers::amd::kGc11Seg0Base;
  RG_CHECK(
      abs >= pm4::PACKET3_SET_SH_REG_START && abs + values.size() <= pm4::PACKET3_SET_SH_REG_END,
      "register 0x%x outside the SH window", abs);
  RG_CHECK(!values.empty());
  b.push(pm4_header(pm4::PACKET3_SET_SH_REG, static_cast<uint32_t>(values.size() + 1)));
  b.push(abs - pm4::PACKET3_SET_SH_REG_START);
  for (uint32_t v : values) b.push(v);
}

void event_write(CmdBuilder& b, uint32_t type, uint32_t index) {
  b.push(pm4_header(pm4::PACKET3_EVENT_WRITE, 1));
  b.push(pm4::EVENT_TYPE(type) | pm4::EVENT_INDEX(index));
}

void indirect_buffer(CmdBuilder& b, GpuVa addr, uint32_t dwords) {
  RG_CHECK(addr.raw() % 4 == 0 && dwords > 0 && dwords <= kPm4IndirectMaxDwords,
           "INDIRECT_BUFFER of %u dwords at %s", dwords, hex(addr.raw()).c_str());
  b.push(pm4_header(pm4::PACKET3_INDIRECT_BUFFER, 3));
  b.push(lo32(addr.raw()));
  b.push(hi32(addr.raw()));
  b.push(dwords | pm4::INDIRECT_BUFFER_VALID);
}

void write_data(CmdBuilder& b, GpuVa addr, std::span<const uint32_t> values) {
  RG_CHECK(addr.raw() % 4 == 0 && !values.empty());
  b.push(pm4_header(pm4::PACKET3_WRITE_DATA, static_cast<uint32_t>(values.size() + 3)));
  b.push(pm4::WRITE_DATA_DST_SEL(kfd::dst_sel___write_data__memory) | pm4::WR_CONFIRM);
  b.push(lo32(addr.raw()));
  b.push(hi32(addr.raw()));
  for (uint32_t v : values) b.push(v);
}

Result<ExecSlots> exec(CmdBuilder& b, const ExecParams& p) {
  if (p.code.raw() % 256) {
    return make_error(Errc::kInvalidArgument, "kernel entry %s is not 256-byte aligned",
                      hex(p.code.raw()).c_str());
  }
  if (p.scratch.raw() % 256) {
    return make_error(Errc::kInvalidArgument, "scratch base %s is not 256-byte aligned",
                      hex(p.scratch.raw()).c_str());
  }
  const uint32_t sgprs = gc::COMPUTE_PGM_RSRC2::USER_SGPR.get(p.rsrc2);
  if (p.user_data_count != sgprs || p.user_data_count > p.user_data.size()) {
    return make_error(Errc::kInvalidArgument,
                      "%u user-data dwords given but RSRC2.USER_SGPR says %u", p.user_data_count,
                      sgprs);
  }
  for (int i = 0; i < 3; ++i) {
    if (p.grid[i] == 0 || p.workgroup[i] == 0) {
      return make_error(Errc::kInvalidArgument, "dimension %d of the grid or workgroup is 0", i);
    }
  }
  const size_t start = b.size();
  acquire_mem(b, gcr_exec_invalidate(p.gen));
  const uint64_t code = p.code.raw() >> 8;
  const uint32_t pgm[] = {lo32(code), hi32(code)};
  set_sh_reg(b, gc::COMPUTE_PGM_LO::kInfo.offset, pgm);
  const uint32_t rsrc12[] = {p.rsrc1, p.rsrc2};
  set_sh_reg(b, gc::COMPUTE_PGM_RSRC1::kInfo.offset, rsrc12);
  set_sh_reg(b, gc::COMPUTE_PGM_RSRC3::kInfo.offset, std::span(&p.rsrc3, 1));
  set_sh_reg(b, gc::COMPUTE_TMPRING_SIZE::kInfo.offset, std::span(&p.tmpring_size, 1));
  if (p.scratch.raw() != 0) {
    const uint64_t s = p.scratch.raw() >> 8;
    const uint32_t sb[] = {lo32(s), hi32(s)};
    set_sh_reg(b, gc::COMPUTE_DISPATCH_SCRATCH_BASE_LO::kInfo.offset, sb);
  }
  const uint32_t restart[] = {0, 0, 0};
  set_sh_reg(b, gc::COMPUTE_RESTART_X::kInfo.offset, restart);
  ExecSlots slots;
  if (p.user_data_count > 0) {
    set_sh_reg(b, gc::COMPUTE_USER_DATA_0::kInfo.offset,
               std::span(p.user_data.data(), p.user_data_count));
    slots.user_data = PatchSlot{static_cast<uint32_t>(b.size() - p.user_data_count), 1};
  }
  const uint32_t limits = 0;
  set_sh_reg(b, gc::COMPUTE_RESOURCE_LIMITS::kInfo.offset, std::span(&limits, 1));
  const uint32_t dims[] = {0, 0, 0, p.workgroup[0], p.workgroup[1], p.workgroup[2], 0, 0};
  set_sh_reg(b, gc::COMPUTE_START_X::kInfo.offset, dims);
  b.push(pm4_header(pm4::PACKET3_DISPATCH_DIRECT, 4));
  for (int i = 0; i < 3; ++i) slots.grid[i] = b.slot32(p.grid[i]);
  b.push((gc::COMPUTE_DISPATCH_INITIATOR::COMPUTE_SHADER_EN(1) |
          gc::COMPUTE_DISPATCH_INITIATOR::FORCE_START_AT_000(1) |
          gc::COMPUTE_DISPATCH_INITIATOR::CS_W32_EN(p.wave32 ? 1 : 0))
             .value);
  event_write(b, kEventCsPartialFlush, kEventIndexCsPartialFlush);
  (void)start;
  return slots;
}

Result<std::unique_ptr<ComputeQueue>> ComputeQueue::create(drivers::amd::AmdDevice& device,
                                                           uint64_t ring_bytes) {
  const GcGen gen = RG_TRY(gc_gen(device.gc_version()));
  auto desc = device.create_compute_queue(ring_bytes);
  if (!desc) return std::move(desc).take_error().with_context("while creating a PM4 compute queue");
  return std::unique_ptr<ComputeQueue>(new ComputeQueue(device, *desc, gen));
}

Status ComputeQueue::submit(Nanos timeout, Clock* clock) {
  const uint64_t n = cmds_.size();
  if (n == 0) return {};
  const uint64_t ring_dw = desc_.ring.size / 4;
  const RingSpace space{device_, desc_.rptr, ring_dw, "dwords", "compute ring space"};
  RG_TRY(check_fits(space, n));
  RG_TRY(wait_for_space(space, wptr_, n, timeout, clock));
  uint32_t* ring = reinterpret_cast<uint32_t*>(desc_.ring.cpu);
  const uint64_t pos = wptr_ % ring_dw;
  const uint64_t first = std::min(n, ring_dw - pos);
  const uint32_t* src = cmds_.dwords().data();
  std::memcpy(ring + pos, src, first * 4);
  if (first < n) std::memcpy(ring, src + first, (n - first) * 4);  // PM4 packets may straddle
  wptr_ += n;
  store_release(desc_.wptr, wptr_);  // the ring contents before it
  device_->ring_doorbell(desc_.doorbell, wptr_);
  cmds_.clear();
  return {};
}

}  // namespace rawgpu::queues::amd
