// The register file of sim::AmdGpu and the registers with side effects: the HDP flush, VM
// context 0 (GCVM_CONTEXT0_*: the MMU walks from the base they hold), compute HQDs (CP_HQD_* /
// CP_MQD_*, banked by GRBM_GFX_CNTL; writing CP_HQD_ACTIVE 1 starts the selected queue from
// them) and the SDMA engines' queue 0 (SDMAn_QUEUE0_*; RB_ENABLE starts it). Offsets and fields
// come from the generated gc_11_0_0 / gc_12_0_0 tables.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/autogen/amd/regs/nbif_6_3_1.h"
#include "rawgpu/autogen/amd/regs/nbio_4_3_0.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/sim/sim_bases.h"
#include "sdma.h"

namespace rawgpu::sim {
namespace {

using gc11 = autogen::amd::gc_11_0_0;
using gc12 = autogen::amd::gc_12_0_0;

// GC registers at the boards' GC segment bases (sim_bases.h).
template <class R>
constexpr uint32_t addr() {
  return bases::kGc[R::kInfo.base_idx] + R::kInfo.offset;
}
// The HDP flush request/done registers at the NBIO/NBIF bases (the same in both versions).
using HdpReq = autogen::amd::nbio_4_3_0::BIF_BX_PF0_GPU_HDP_FLUSH_REQ;
using HdpDone = autogen::amd::nbio_4_3_0::BIF_BX_PF0_GPU_HDP_FLUSH_DONE;
static_assert(HdpReq::kInfo.offset ==
              autogen::amd::nbif_6_3_1::BIF_BX_PF0_GPU_HDP_FLUSH_REQ::kInfo.offset);
constexpr uint32_t kHdpFlushReq = bases::kNbio[HdpReq::kInfo.base_idx] + HdpReq::kInfo.offset;
constexpr uint32_t kHdpFlushDone = bases::kNbio[HdpDone::kInfo.base_idx] + HdpDone::kInfo.offset;

// The banked HQD registers: CP_MQD_BASE_ADDR .. CP_HQD_DEQUEUE_STATUS (the same in both).
constexpr uint32_t kHqdFirst = addr<gc11::CP_MQD_BASE_ADDR>();
constexpr uint32_t kHqdLast = addr<gc11::CP_HQD_DEQUEUE_STATUS>();
static_assert(kHqdFirst == addr<gc12::CP_MQD_BASE_ADDR>() &&
              kHqdLast == addr<gc12::CP_HQD_DEQUEUE_STATUS>());
static_assert(addr<gc11::GRBM_GFX_CNTL>() == addr<gc12::GRBM_GFX_CNTL>());
constexpr uint32_t kGrbmGfxCntl = addr<gc11::GRBM_GFX_CNTL>();
constexpr uint64_t kMaxRing = 1ull << 30;

// One SDMA engine's queue-0 register of the profile.
template <class R0, class R1>
constexpr uint32_t sdma(unsigned engine) {
  return engine == 0 ? addr<R0>() : addr<R1>();
}

}  // namespace

uint32_t AmdGpu::hqd_selection() const {
  const uint32_t v = reg_or_zero(kGrbmGfxCntl);
  using G = gc11::GRBM_GFX_CNTL;  // the same fields in gc_12_0_0
  return (G::MEID.get(v) << 16) | (G::PIPEID.get(v) << 8) | G::QUEUEID.get(v);
}

uint32_t AmdGpu::reg_or_zero(uint32_t reg) const {
  auto it = regs_.find(reg);
  return it == regs_.end() ? 0 : it->second;
}

bool AmdGpu::mm_window(uint64_t& addr) const {
  const uint32_t index = reg_or_zero(kMmIndex);
  addr = (index & 0x7fffffffu) | (uint64_t{reg_or_zero(kMmIndexHi)} << 31);
  return (index & 0x80000000u) != 0;
}

uint32_t AmdGpu::read_reg(uint32_t reg) const {
  Guard guard(this);
  if (reg == kRsmuData) {  // registers past BAR5: the index holds the byte address
    const uint32_t target = reg_or_zero(kRsmuIndex) / 4;
    return target == kRsmuData ? 0 : read_reg(target);
  }
  if (reg == kMmData) {
    uint64_t a = 0;
    if (mm_window(a)) {
      uint32_t v = 0;  // beyond VRAM: reads 0
      if (a % 4 == 0 && a + 4 <= config_.vram_size) std::memcpy(&v, vram_base_ + a, 4);
      return v;
    }
    return a / 4 == kMmData ? 0 : read_reg(static_cast<uint32_t>(a / 4));
  }
  if (reg >= kHqdFirst && reg <= kHqdLast) {
    auto it = hqd_regs_.find((uint64_t{hqd_selection()} << 32) | reg);
    return it == hqd_regs_.end() ? 0 : it->second;
  }
  return reg_or_zero(reg);
}

void AmdGpu::write_reg(uint32_t reg, uint32_t value) {
  Guard guard(this);
  if (reg == kRsmuData) {
    const uint32_t target = reg_or_zero(kRsmuIndex) / 4;
    if (target != kRsmuData) write_reg(target, value);
    return;
  }
  if (reg == kMmData) {
    uint64_t a = 0;
    if (mm_window(a)) {
      if (a % 4 == 0 && a + 4 <= config_.vram_size) std::memcpy(vram_base_ + a, &value, 4);
    } else if (a / 4 != kMmData) {
      write_reg(static_cast<uint32_t>(a / 4), value);
    }
    return;
  }
  if (reg >= kHqdFirst && reg <= kHqdLast)
    hqd_regs_[(uint64_t{hqd_selection()} << 32) | reg] = value;
  else
    regs_[reg] = value;
  if (config_.gc_version >= 120000)
    on_register_write<gc12>(reg, value);
  else
    on_register_write<gc11>(reg, value);
}

template <class GC>
void AmdGpu::on_register_write(uint32_t reg, uint32_t value) {
  if (on_boot_register_write<GC>(reg, value)) return;
  if (reg == addr<typename GC::GCMC_VM_MX_L1_TLB_CNTL>() ||
      reg == addr<typename GC::GCVM_L2_CNTL>()) {
    vm_.hub_on =
        GC::GCMC_VM_MX_L1_TLB_CNTL::ENABLE_L1_TLB.get(
            reg_or_zero(addr<typename GC::GCMC_VM_MX_L1_TLB_CNTL>())) &&
        GC::GCVM_L2_CNTL::ENABLE_L2_CACHE.get(reg_or_zero(addr<typename GC::GCVM_L2_CNTL>()));
    return;
  }
  if (reg == addr<typename GC::GCVM_L2_PROTECTION_FAULT_CNTL>()) {
    // CLEAR_PROTECTION_FAULT_STATUS_ADDR: unlatch; the next fault latches again.
    if (GC::GCVM_L2_PROTECTION_FAULT_CNTL::CLEAR_PROTECTION_FAULT_STATUS_ADDR.get(value)) {
      fault_status_ = 0;
      fault_addr_page_ = 0;
      fault_text_.clear();
      using St = std::conditional_t<std::is_same_v<GC, gc12>,
                                    typename gc12::GCVM_L2_PROTECTION_FAULT_STATUS_LO32,
                                    typename gc11::GCVM_L2_PROTECTION_FAULT_STATUS>;
      regs_[addr<St>()] = 0;
      regs_[addr<typename GC::GCVM_L2_PROTECTION_FAULT_ADDR_LO32>()] = 0;
      regs_[addr<typename GC::GCVM_L2_PROTECTION_FAULT_ADDR_HI32>()] = 0;
    }
    return;
  }
  if (reg == kHdpFlushReq) {
    regs_[kHdpFlushDone] |= value;  // the flush completes at once
    return;
  }
  if (reg == addr<typename GC::CP_HQD_ACTIVE>()) {
    const uint32_t sel = hqd_selection();
    if (GC::CP_HQD_ACTIVE::ACTIVE.get(value)) {
      activate_hqd<GC>(sel);
    } else if (auto it = hqd_queue_.find(sel); it != hqd_queue_.end()) {
      queues_[it->second]->active = false;  // dequeued
      hqd_queue_.erase(it);
    }
    return;
  }
  if (reg == addr<typename GC::GCVM_INVALIDATE_ENG17_REQ>()) {
    using Req = typename GC::GCVM_INVALIDATE_ENG17_REQ;
    using Ack = typename GC::GCVM_INVALIDATE_ENG17_ACK;
    const uint32_t vmids = Req::PER_VMID_INVALIDATE_REQ.get(value);
    if (vmids & 1u) snapshot_page_tables();  // VMID 0: the only context modelled
    regs_[addr<Ack>()] = Ack::encode(Ack::PER_VMID_INVALIDATE_ACK(vmids));  // done at once
    return;
  }
  for (unsigned e = 0; e < 2; ++e) {
    if (reg == sdma<typename GC::SDMA0_QUEUE0_RB_CNTL, typename GC::SDMA1_QUEUE0_RB_CNTL>(e)) {
      sdma_rb_cntl<GC>(e, value);
      return;
    }
  }
  using Cntl = typename GC::GCVM_CONTEXT0_CNTL;
  const uint32_t vm_regs[] = {
      addr<Cntl>(),
      addr<typename GC::GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32>(),
      addr<typename GC::GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32>(),
      addr<typename GC::GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32>(),
      addr<typename GC::GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_HI32>(),
      addr<typename GC::GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_LO32>(),
      addr<typename GC::GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_HI32>(),
  };
  if (std::find(std::begin(vm_regs), std::end(vm_regs), reg) == std::end(vm_regs)) return;
  auto pair = [&](uint32_t lo, uint32_t hi) {
    return uint64_t{reg_or_zero(lo)} | (uint64_t{reg_or_zero(hi)} << 32);
  };
  const uint32_t cntl = reg_or_zero(vm_regs[0]);
  const uint64_t base = pair(vm_regs[1], vm_regs[2]);
  vm_.enabled = Cntl::ENABLE_CONTEXT.get(cntl) != 0;
  vm_.depth = Cntl::PAGE_TABLE_DEPTH.get(cntl);
  vm_.block_size = Cntl::PAGE_TABLE_BLOCK_SIZE.get(cntl);
  vm_.base_valid = (base & 1) != 0;         // PDE valid bit
  vm_.root = base & 0x0000fffffffff000ull;  // page-directory address, bits 47:12
  vm_.start = (pair(vm_regs[3], vm_regs[4]) & 0xfffffffffull) << 12;  // 4 KiB pages, 36 bits
  vm_.last = ((pair(vm_regs[5], vm_regs[6]) & 0xfffffffffull) << 12) | 0xfff;
}

template <class GC>
void AmdGpu::activate_hqd(uint32_t sel) {
  auto hqd = [&](uint32_t reg) {
    auto it = hqd_regs_.find((uint64_t{sel} << 32) | reg);
    return it == hqd_regs_.end() ? uint64_t{0} : uint64_t{it->second};
  };
  using Ctl = typename GC::CP_HQD_PQ_CONTROL;
  using Db = typename GC::CP_HQD_PQ_DOORBELL_CONTROL;
  QueueProgram p;
  p.ring = GpuVa((hqd(addr<typename GC::CP_HQD_PQ_BASE>()) |
                  (hqd(addr<typename GC::CP_HQD_PQ_BASE_HI>()) << 32))
                 << 8);
  const uint32_t ctl = static_cast<uint32_t>(hqd(addr<Ctl>()));
  // 2^(QUEUE_SIZE+1) dwords; the 6-bit field can ask for more than 64 bits can hold (0: refused
  // below as out of range).
  const uint32_t qs = Ctl::QUEUE_SIZE.get(ctl);
  p.ring_bytes = qs + 3 < 64 ? 4ull << (qs + 1) : 0;
  p.rptr_report = GpuVa((hqd(addr<typename GC::CP_HQD_PQ_RPTR_REPORT_ADDR>()) & ~uint64_t{3}) |
                        (hqd(addr<typename GC::CP_HQD_PQ_RPTR_REPORT_ADDR_HI>()) << 32));
  const uint32_t db = static_cast<uint32_t>(hqd(addr<Db>()));
  const uint32_t db_dword = Db::DOORBELL_OFFSET.get(db);
  p.doorbell = db_dword / 2;
  const unsigned me = sel >> 16;
  if (me != 1 && me != 2)
    p.error = strformat(
        "CP_HQD_ACTIVE with GRBM_GFX_CNTL.MEID %u: compute queues are on the "
        "MEC (ME 1 or 2)",
        me);
  else if (!Db::DOORBELL_EN.get(db))
    p.error =
        "CP_HQD_ACTIVE with CP_HQD_PQ_DOORBELL_CONTROL.DOORBELL_EN 0: only doorbell-driven "
        "queues are simulated";
  else if (db_dword % 2 != 0)
    p.error = strformat("CP_HQD_PQ_DOORBELL_CONTROL.DOORBELL_OFFSET %u is not a 64-bit doorbell",
                        db_dword);
  else if (p.ring_bytes < 4096 || p.ring_bytes > kMaxRing)
    p.error = strformat("CP_HQD_PQ_CONTROL.QUEUE_SIZE %u: a ring of %s is outside 4 KiB..1 GiB",
                        Ctl::QUEUE_SIZE.get(ctl), format_bytes(p.ring_bytes).c_str());
  if (auto it = hqd_queue_.find(sel); it != hqd_queue_.end()) queues_[it->second]->active = false;
  hqd_queue_[sel] = start_compute_queue(std::move(p));
  Queue& nq = *queues_[hqd_queue_[sel]];
  nq.pipe = (sel >> 8) & 3;
  nq.ring_id = ((sel & 7) << 4) | ((me & 3) << 2) | nq.pipe;
}

template <class GC>
void AmdGpu::sdma_rb_cntl(unsigned e, uint32_t value) {
  using Cntl = typename GC::SDMA0_QUEUE0_RB_CNTL;
  if (sdma_queue_[e] != ~0u) {
    sdma_queues_[sdma_queue_[e]]->active = false;
    sdma_queue_[e] = ~0u;
  }
  if (!Cntl::RB_ENABLE.get(value)) return;
  auto reg = [&](uint32_t a) { return uint64_t{reg_or_zero(a)}; };
  QueueProgram p;
  p.ring = GpuVa(
      (reg(sdma<typename GC::SDMA0_QUEUE0_RB_BASE, typename GC::SDMA1_QUEUE0_RB_BASE>(e)) |
       (reg(sdma<typename GC::SDMA0_QUEUE0_RB_BASE_HI, typename GC::SDMA1_QUEUE0_RB_BASE_HI>(e))
        << 32))
      << 8);
  p.ring_bytes = 4ull << Cntl::RB_SIZE.get(value);  // 2^RB_SIZE dwords
  p.rptr_report = GpuVa((reg(sdma<typename GC::SDMA0_QUEUE0_RB_RPTR_ADDR_LO,
                                  typename GC::SDMA1_QUEUE0_RB_RPTR_ADDR_LO>(e)) &
                         ~uint64_t{3}) |
                        (reg(sdma<typename GC::SDMA0_QUEUE0_RB_RPTR_ADDR_HI,
                                  typename GC::SDMA1_QUEUE0_RB_RPTR_ADDR_HI>(e))
                         << 32));
  using Db = typename GC::SDMA0_QUEUE0_DOORBELL;
  using DbOff = typename GC::SDMA0_QUEUE0_DOORBELL_OFFSET;
  const uint32_t db = static_cast<uint32_t>(reg(sdma<Db, typename GC::SDMA1_QUEUE0_DOORBELL>(e)));
  const uint32_t db_dword = DbOff::OFFSET.get(
      static_cast<uint32_t>(reg(sdma<DbOff, typename GC::SDMA1_QUEUE0_DOORBELL_OFFSET>(e))));
  p.doorbell = db_dword / 2;
  if (!Cntl::RPTR_WRITEBACK_ENABLE.get(value))
    p.error = strformat(
        "SDMA%u_QUEUE0_RB_CNTL.RPTR_WRITEBACK_ENABLE 0: the simulated engine "
        "reports its read pointer only by writeback",
        e);
  else if (!Db::ENABLE.get(db))
    p.error = strformat(
        "SDMA%u_QUEUE0_DOORBELL.ENABLE 0: only doorbell-driven queues are "
        "simulated",
        e);
  else if (db_dword % 2 != 0)
    p.error = strformat("SDMA%u_QUEUE0_DOORBELL_OFFSET %u is not a 64-bit doorbell", e, db_dword);
  else if (p.ring_bytes < 4096 || p.ring_bytes > kMaxRing)
    p.error = strformat("SDMA%u_QUEUE0_RB_CNTL.RB_SIZE %u: a ring of %s is outside 4 KiB..1 GiB", e,
                        Cntl::RB_SIZE.get(value), format_bytes(p.ring_bytes).c_str());
  sdma_queue_[e] = start_copy_queue(std::move(p));
  sdma_queues_[sdma_queue_[e]]->engine = e;
}

uint32_t AmdGpu::start_compute_queue(QueueProgram p) {
  auto q = std::make_unique<Queue>();
  q->ring = p.ring;
  q->ring_bytes = p.ring_bytes;
  q->doorbell = p.doorbell;
  q->id = static_cast<uint32_t>(queues_.size());
  q->rptr_report = p.rptr_report;
  if (!p.error.empty()) {
    q->status.stopped = true;
    q->status.error = std::move(p.error);
  }
  queues_.push_back(std::move(q));
  return queues_.back()->id;
}

uint32_t AmdGpu::start_copy_queue(QueueProgram p) {
  auto q = std::make_unique<SdmaQueue>();
  q->ring = p.ring;
  q->ring_bytes = p.ring_bytes;
  q->doorbell = p.doorbell;
  q->id = static_cast<uint32_t>(sdma_queues_.size());
  q->rptr_report = p.rptr_report;
  if (!p.error.empty()) {
    q->status.stopped = true;
    q->status.error = std::move(p.error);
  }
  sdma_queues_.push_back(std::move(q));
  return sdma_queues_.back()->id;
}

}  // namespace rawgpu::sim
