// The GFX block of the AM boot (amd.md §7.2, §7.6): wait for the RLC autoload, bring up the GC
// hub (AGP off, system aperture over the framebuffer, L1 TLB and L2, VM context 0 on the
// memory manager's page tables, TLB invalidation), point the RS64 MEC's pipes (and on GC 12 the
// PFP/ME) at their firmware entry points, set the SH_MEM apertures for every VMID and the MEC
// doorbell range, and enable the MEC. Warm boots and recovery reset the MEC instead.
#include "am_boot.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/amd/pci_device.h"

namespace rawgpu::drivers::amd {
namespace {

using gc11 = autogen::amd::gc_11_0_0;
using gc12 = autogen::amd::gc_12_0_0;
using std::chrono::milliseconds;
using std::chrono::seconds;
constexpr unsigned kMecPipes = 4;  // ME 1 pipes 0..3 (PciAmdDevice's 32 HQD slots)

}  // namespace

Status Gfx::hw_init(bool warm) { return b_.gc12() ? init<gc12>(warm) : init<gc11>(warm); }
Status Gfx::reset_mec() { return b_.gc12() ? reset_mec_t<gc12>() : reset_mec_t<gc11>(); }

template <class GC>
Status Gfx::init(bool warm) {
  PciAmdDevice& d = b_.dev;
  RG_TRY(b_.step("GFX", "RLC autoload", [&]() -> Status {
    using S = typename GC::RLC_RLCS_BOOTLOAD_STATUS;
    RG_TRY(b_.wait_reg("the CP idle (CP_STAT == 0)", d.gc<typename GC::CP_STAT>(), 0xffffffffu, 0,
                       seconds(1), "the CP stays busy: try `rawgpu boot DEV --reset`"));
    const uint32_t bit = S::encode(S::BOOTLOAD_COMPLETE(1));
    return b_.wait_reg("the RLC autoload (RLC_RLCS_BOOTLOAD_STATUS.BOOTLOAD_COMPLETE)", d.gc<S>(),
                       bit, bit, seconds(1),
                       "the RLC did not finish loading the GC firmware: check the gc_* files, "
                       "then `rawgpu boot DEV --reset`");
  }));
  RG_TRY(b_.step("GFX", "GC hub and VM context 0", [&]() -> Status {
    const uint64_t fb = b_.fb_base, fb_end = b_.fb_base + d.vram_size_ - 1;
    b_.wr(d.gc<typename GC::GCMC_VM_AGP_BASE>(), 0);  // AGP closed: BOT above TOP
    b_.wr(d.gc<typename GC::GCMC_VM_AGP_BOT>(), 0xffffff);
    b_.wr(d.gc<typename GC::GCMC_VM_AGP_TOP>(), 0);
    b_.wr(d.gc<typename GC::GCMC_VM_SYSTEM_APERTURE_LOW_ADDR>(), static_cast<uint32_t>(fb >> 18));
    b_.wr(d.gc<typename GC::GCMC_VM_SYSTEM_APERTURE_HIGH_ADDR>(),
          static_cast<uint32_t>(fb_end >> 18));
    using Tlb = typename GC::GCMC_VM_MX_L1_TLB_CNTL;
    b_.wr(d.gc<Tlb>(), Tlb::encode(Tlb::ENABLE_L1_TLB(1) | Tlb::SYSTEM_ACCESS_MODE(3) |
                                   Tlb::ENABLE_ADVANCED_DRIVER_MODEL(1) | Tlb::MTYPE(3)));
    using L2 = typename GC::GCVM_L2_CNTL;
    b_.wr(d.gc<L2>(),
          L2::encode(L2::ENABLE_L2_CACHE(1) | L2::ENABLE_DEFAULT_PAGE_OUT_TO_SYSTEM_MEMORY(1)));
    d.template program_vm<GC>(d.mm_->page_table().root().raw(), d.va_base_, d.va_size_);
    return d.flush_tlb_now();
  }));
  if (warm) return b_.step("GFX", "MEC reset", [&] { return reset_mec_t<GC>(); });
  RG_TRY(b_.step("GFX", "MEC program counters", [&] { return configure_mec<GC>(); }));
  RG_TRY(b_.step("GFX", "SH_MEM apertures and doorbell range", [&]() -> Status {
    using Sel = typename GC::GRBM_GFX_CNTL;
    using Cfg = typename GC::SH_MEM_CONFIG;
    using Bases = typename GC::SH_MEM_BASES;
    for (uint32_t vmid = 0; vmid < 16; ++vmid) {
      b_.wr(d.gc<Sel>(), Sel::encode(Sel::VMID(vmid)));
      b_.wr(d.gc<Cfg>(), Cfg::encode(Cfg::ADDRESS_MODE(1) | Cfg::ALIGNMENT_MODE(3) |
                                     Cfg::INITIAL_INST_PREFETCH(3)));
      // LDS at 1 << 48, scratch at 2 << 48 (bits 63:48 of the apertures), as KFD places them.
      b_.wr(d.gc<Bases>(), Bases::encode(Bases::SHARED_BASE(1) | Bases::PRIVATE_BASE(2)));
    }
    b_.wr(d.gc<Sel>(), 0);
    using Lo = typename GC::CP_MEC_DOORBELL_RANGE_LOWER;
    using Hi = typename GC::CP_MEC_DOORBELL_RANGE_UPPER;
    b_.wr(d.gc<Lo>(), 0);
    b_.wr(d.gc<Hi>(), Hi::encode(Hi::DOORBELL_RANGE_UPPER(0xf8 >> 2)));
    return {};
  }));
  return b_.step("GFX", "MEC enable", [&] { return enable_mec<GC>(); });
}

template <class GC>
Status Gfx::configure_mec() {
  PciAmdDevice& d = b_.dev;
  const LoadedFirmware* mec = b_.firmware.find(FirmwareKind::kGfxMec);
  if (mec == nullptr || !mec->info.entry_point)
    return make_error(Errc::kUnsupported,
                      "the MEC firmware has no RS64 entry point: this driver starts RS64 MECs "
                      "(GC 11 and 12) only");
  using Sel = typename GC::GRBM_GFX_CNTL;
  if constexpr (std::is_same_v<GC, gc12>) {
    // GC 12: the graphics PFP and ME too (their images came through the PSP).
    for (FirmwareKind k : {FirmwareKind::kGfxPfp, FirmwareKind::kGfxMe}) {
      const LoadedFirmware* f = b_.firmware.find(k);
      if (f == nullptr || !f->info.entry_point) continue;
      const uint64_t start = *f->info.entry_point >> 2;
      b_.wr(d.gc<Sel>(), Sel::encode(Sel::MEID(0) | Sel::PIPEID(0)));
      if (k == FirmwareKind::kGfxPfp) {
        b_.wr(d.gc<typename GC::CP_PFP_PRGRM_CNTR_START>(), static_cast<uint32_t>(start));
        b_.wr(d.gc<typename GC::CP_PFP_PRGRM_CNTR_START_HI>(), static_cast<uint32_t>(start >> 32));
      } else {
        b_.wr(d.gc<typename GC::CP_ME_PRGRM_CNTR_START>(), static_cast<uint32_t>(start));
        b_.wr(d.gc<typename GC::CP_ME_PRGRM_CNTR_START_HI>(), static_cast<uint32_t>(start >> 32));
      }
    }
    using Me = typename GC::CP_ME_CNTL;
    const uint32_t me = b_.rd(d.gc<Me>());
    b_.wr(d.gc<Me>(), Me::update(me, Me::PFP_PIPE0_RESET(1) | Me::ME_PIPE0_RESET(1)));
    b_.wr(d.gc<Me>(), Me::update(me, Me::PFP_PIPE0_RESET(0) | Me::ME_PIPE0_RESET(0)));
  }
  const uint64_t start = *mec->info.entry_point >> 2;
  for (unsigned pipe = 0; pipe < kMecPipes; ++pipe) {
    b_.wr(d.gc<Sel>(), Sel::encode(Sel::MEID(1) | Sel::PIPEID(pipe)));
    b_.wr(d.gc<typename GC::CP_MEC_RS64_PRGRM_CNTR_START>(), static_cast<uint32_t>(start));
    b_.wr(d.gc<typename GC::CP_MEC_RS64_PRGRM_CNTR_START_HI>(), static_cast<uint32_t>(start >> 32));
  }
  b_.wr(d.gc<Sel>(), 0);
  using C = typename GC::CP_MEC_RS64_CNTL;
  b_.wr(d.gc<C>(), C::encode(C::MEC_HALT(1) | C::MEC_PIPE0_RESET(1) | C::MEC_PIPE1_RESET(1) |
                             C::MEC_PIPE2_RESET(1) | C::MEC_PIPE3_RESET(1)));
  return {};
}

template <class GC>
Status Gfx::enable_mec() {
  using C = typename GC::CP_MEC_RS64_CNTL;
  b_.wr(b_.dev.gc<C>(), C::encode(C::MEC_PIPE0_ACTIVE(1) | C::MEC_PIPE1_ACTIVE(1) |
                                  C::MEC_PIPE2_ACTIVE(1) | C::MEC_PIPE3_ACTIVE(1)));
  b_.sleep(milliseconds(50));
  return {};
}

template <class GC>
Status Gfx::reset_mec_t() {
  PciAmdDevice& d = b_.dev;
  using Sel = typename GC::GRBM_GFX_CNTL;
  // Every HQD still active: dequeue (reset its waves), then wait for it to go inactive.
  for (unsigned pipe = 0; pipe < kMecPipes; ++pipe) {
    for (unsigned q = 0; q < 8; ++q) {
      b_.wr(d.gc<Sel>(), Sel::encode(Sel::MEID(1) | Sel::PIPEID(pipe) | Sel::QUEUEID(q)));
      if ((b_.rd(d.gc<typename GC::CP_HQD_ACTIVE>()) & 1) == 0) continue;
      b_.wr(d.gc<typename GC::CP_HQD_DEQUEUE_REQUEST>(), 2);
      b_.wr(d.gc<typename GC::SPI_COMPUTE_QUEUE_RESET>(), 1);
      b_.wr(d.gc<typename GC::CP_HQD_ACTIVE>(), 0);
    }
  }
  b_.wr(d.gc<Sel>(), 0);
  if constexpr (std::is_same_v<GC, gc11>) {
    using R = typename GC::GRBM_SOFT_RESET;
    b_.wr(d.gc<R>(), R::encode(R::SOFT_RESET_CP(1) | R::SOFT_RESET_CPC(1)));
    b_.sleep(milliseconds(50));
    b_.wr(d.gc<R>(), 0);
  }
  using C = typename GC::CP_MEC_RS64_CNTL;
  b_.wr(d.gc<C>(), C::encode(C::MEC_HALT(1) | C::MEC_PIPE0_RESET(1) | C::MEC_PIPE1_RESET(1) |
                             C::MEC_PIPE2_RESET(1) | C::MEC_PIPE3_RESET(1)));
  return enable_mec<GC>();
}

}  // namespace rawgpu::drivers::amd
