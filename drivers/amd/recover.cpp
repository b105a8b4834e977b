// PciAmdDevice's recovery ladder (issue 17 §5, amd.md §10.4): after a fault or a hang, each rung
// is tried only when the one before did not bring the device back, and "back" means a probe
// compute queue and each SDMA engine execute a packet within 100 ms of the function's clock:
//   1. queue reset: every HQD dequeued (waves reset), the SDMA rings stopped, the VM fault latch
//      cleared;
//   2. MEC reset: the CP soft-reset (GC 11) and the MEC's pipes restarted;
//   3. SDMA engine reset: both engines halted, soft-reset through GRBM_SOFT_RESET and restarted;
//   4. mode-1 reset through the SMU, then every IP block's cold hardware init again;
//   5. PCI function reset, then rung 4 again.
// Every queue is gone afterwards (create new ones); buffers and their mappings stay.
#include <chrono>
#include <cstring>

#include "am_boot.h"
#include "rawgpu/autogen/amd/pm4_nvd.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/autogen/amd/sdma_v6.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/base/shared_memory.h"
#include "rawgpu/drivers/amd/pci_device.h"

namespace rawgpu::drivers::amd {
namespace {

using gc11 = autogen::amd::gc_11_0_0;
using gc12 = autogen::amd::gc_12_0_0;
namespace pm4 = autogen::amd::pm4_nvd;
namespace sd = autogen::amd::sdma_v6;
constexpr uint32_t kProbeValue = 0x9e0bead5u;
constexpr unsigned kSdmaEngines = 2;  // GC 11 and 12 parts: two engines, queue 0 each

}  // namespace

template <class GC>
void PciAmdDevice::drop_queues() {
  using Sel = typename GC::GRBM_GFX_CNTL;
  for (uint32_t slot = 0; slot < compute_queues_; ++slot) {
    wreg(gc<Sel>(), Sel::encode(Sel::MEID(1) | Sel::PIPEID(slot / 8) | Sel::QUEUEID(slot % 8)));
    wreg(gc<typename GC::CP_HQD_DEQUEUE_REQUEST>(), 2);  // reset the queue's waves
    wreg(gc<typename GC::SPI_COMPUTE_QUEUE_RESET>(), 1);
    wreg(gc<typename GC::CP_HQD_ACTIVE>(), 0);
  }
  wreg(gc<Sel>(), 0);
  for (unsigned e = 0; e < copy_queues_; ++e)
    wreg(sdma<typename GC::SDMA0_QUEUE0_RB_CNTL, typename GC::SDMA1_QUEUE0_RB_CNTL>(e), 0);
  compute_queues_ = copy_queues_ = 0;
  using F = typename GC::GCVM_L2_PROTECTION_FAULT_CNTL;
  wreg(gc<F>(), F::update(rreg(gc<F>()), F::CLEAR_PROTECTION_FAULT_STATUS_ADDR(1)));
}

Status PciAmdDevice::probe() {
  if (!probe_buf_.valid()) probe_buf_ = RG_TRY(alloc(4096, BufferPlacement::kHost));
  std::memset(probe_buf_.cpu, 0, 16);
  auto* words = reinterpret_cast<const volatile uint32_t*>(probe_buf_.cpu);
  const GpuVa dst = probe_buf_.va;
  // A WRITE_DATA through a compute queue (word 0) and a FENCE through each SDMA engine's queue 0
  // (words 1 and 2). Every queue is dropped again afterwards, answered or not.
  ComputeQueueDesc q;
  CopyQueueDesc copies[kSdmaEngines];
  unsigned engines = 0;
  auto submit = [&]() -> Status {
    q = RG_TRY(create_compute_queue(4096));
    const uint32_t pkt[] = {(3u << 30) | (3u << 16) | (pm4::PACKET3_WRITE_DATA << 8),
                            pm4::WRITE_DATA_DST_SEL(5), static_cast<uint32_t>(dst.raw()),
                            static_cast<uint32_t>(dst.raw() >> 32), kProbeValue};
    std::memcpy(q.ring.cpu, pkt, sizeof pkt);
    *q.wptr = 5;
    ring_doorbell(q.doorbell, 5);
    for (; engines < kSdmaEngines; ++engines) {
      CopyQueueDesc& c = copies[engines];
      c = RG_TRY(create_copy_queue(4096));
      using F = sd::FENCE;
      const uint64_t at = dst.raw() + 4 * (1 + engines);
      uint32_t fence[F::kDwords] = {};
      const std::span<uint32_t> w(fence);
      set_bits(w, F::HEADER_op, sd::SDMA_OP_FENCE);
      set_bits(w, F::ADDR_LO_addr_31_0, static_cast<uint32_t>(at));
      set_bits(w, F::ADDR_HI_addr_63_32, at >> 32);
      set_bits(w, F::DATA_data, kProbeValue + 1 + engines);
      std::memcpy(c.ring.cpu, fence, sizeof fence);
      *c.wptr = sizeof fence;
      ring_doorbell(c.doorbell, sizeof fence);
    }
    return {};
  };
  auto answered = [&](unsigned i) {  // acquire the rptr first: the write before it is visible
    if (i == 0) return load_acquire(q.rptr) == 5 && load_acquire(&words[0]) == kProbeValue;
    return load_acquire(copies[i - 1].rptr) == 4 * sd::FENCE::kDwords &&
           load_acquire(&words[i]) == kProbeValue + i;
  };
  Status st = submit();
  if (st) {
    PollOptions po;
    po.timeout = std::chrono::milliseconds(100);
    po.clock = &dev_.clock();
    st = poll_until(
        "the probe queues (a compute WRITE_DATA, an SDMA FENCE per engine)",
        [&] {
          dev_.poll();
          for (unsigned i = 0; i <= kSdmaEngines; ++i)
            if (!answered(i)) return false;
          return true;
        },
        po,
        [&] {
          std::string s;
          for (unsigned i = 0; i <= kSdmaEngines; ++i) {
            if (answered(i)) continue;
            s += s.empty() ? "" : "; ";
            s += i == 0 ? strformat("compute: rptr %llu", (unsigned long long)load_acquire(q.rptr))
                        : strformat("SDMA%u: rptr %llu bytes", i - 1,
                                    (unsigned long long)load_acquire(copies[i - 1].rptr));
          }
          return "no answer from " + s;
        });
  }
  if (gc_version_ >= 120000)
    drop_queues<gc12>();
  else
    drop_queues<gc11>();
  return st;
}

Result<std::vector<RecoveryRung>> PciAmdDevice::recover() {
  std::vector<RecoveryRung> rungs;
  auto attempt = [&](const char* name, const std::function<Status()>& fix) {
    RecoveryRung r;
    r.name = name;
    Status st = fix();
    if (st) st = probe();
    r.recovered = st.ok();
    if (!st) r.detail = st.error().to_string();
    RG_LOG("amd", 1, "%s: recovery rung %s: %s", name_.c_str(), name,
           r.recovered ? "the device answers" : r.detail.c_str());
    rungs.push_back(std::move(r));
    return rungs.back().recovered;
  };
  scan_interrupts();
  const bool g12 = gc_version_ >= 120000;
  auto drop = [&]() -> Status {
    if (g12)
      drop_queues<gc12>();
    else
      drop_queues<gc11>();
    return {};
  };
  if (attempt("queue reset", drop)) return rungs;
  if (attempt("MEC reset", [&]() -> Status {
        RG_TRY(drop());
        return boot_->gfx->reset_mec();
      }))
    return rungs;
  auto reboot = [&]() -> Status {
    RG_TRY(drop());
    BootReport r;
    Status st = boot_->reboot_after_mode1(r);
    if (st) boot_report_ = std::move(r);
    return st;
  };
  if (attempt("SDMA engine reset", [&]() -> Status {
        RG_TRY(drop());
        return boot_->sdma->reset_engines();
      }))
    return rungs;
  if (attempt("mode-1 reset", reboot)) return rungs;
  if (attempt("function reset", [&]() -> Status {
        RG_TRY(dev_.reset());
        const uint32_t cmd = RG_TRY(dev_.cfg_read(0x04, 2));
        RG_TRY(dev_.cfg_write(0x04, 2, cmd | 0x6));
        return reboot();
      }))
    return rungs;
  std::string what;
  for (const RecoveryRung& r : rungs)
    what += strformat("\n  %s: %s", r.name.c_str(), r.detail.c_str());
  return make_error(Errc::kHardware, "%s did not recover after every rung of the ladder:%s",
                    name_.c_str(), what.c_str())
      .with_hint(
          "power-cycle the machine (or the USB4 enclosure); `rawgpu doctor` checks the link");
}

}  // namespace rawgpu::drivers::amd
