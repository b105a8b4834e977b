// The simulated GPU's boot-time engines, answering a driver's boot at register level
// (emulation.md §2.4–2.7, §2.11; amd.md §7):
//
//  * PSP (MP0 mailbox): the bootloader takes components through C2PMSG_35/36 (ready bit 31),
//    and starts the sOS once SYS_DRV and SOS arrived (C2PMSG_81 then reads the sOS version);
//    the sOS creates the KM ring from C2PMSG_69/70/71 on C2PMSG_64 = 2 << 16 and executes the
//    64-byte frames up to each C2PMSG_67 write: it reads the 1 KiB command buffer, writes the
//    response status (and LOAD_TOC's tmr_size), then the fence value. LOAD_TOC, SETUP_TMR,
//    LOAD_IP_FW and AUTOLOAD_RLC are modelled with the ordering rules the real sOS enforces as
//    amd.md describes them (SMU firmware before the TMR, the TMR before other IP firmware, the
//    GC images before AUTOLOAD_RLC; on the gfx1201 board's MP0 14.0.3 the bootloader sets the
//    TMR up itself and SETUP_TMR is refused); anything else answers a non-zero status.
//  * SMU (MP1 mailbox 66/82/90, debug 75/53/54): answers only once its firmware was loaded
//    through the PSP; GetSmuVersion, the driver table address, EnableAllSmuFeatures, DPM level
//    queries and soft limits, Mode1Reset (13.0.x) and the debug mailbox's mode-1 reset.
//  * RLC: BOOTLOAD_COMPLETE after AUTOLOAD_RLC. MEC pipes run compute queues only while
//    CP_MEC_RS64_CNTL has them active, out of reset and the MEC not halted (and the RLC has
//    loaded the MEC); SDMA engines run only unhalted (F32_CNTL / MCU_CNTL) with their firmware.
//  * IH (OSSSYS IH_RB_*): a ring in host memory (MC_SPACE 2, bus addresses) or VRAM (MC_SPACE 4)
//    that VM faults and queue errors write 8-dword entries into, with write-pointer writeback
//    and overflow; each entry raises the interrupt hook.
//
// Unconfirmed against hardware: the sOS and SMU version numbers, the status codes of refused
// commands (GlobalPlatform TEE error codes here), the sim's TOC tmr_size (4 MiB; real TOCs ask
// for up to 19 MiB), the IH client of SQ interrupts, and how long each step takes.
#include <algorithm>
#include <cstring>

#include "rawgpu/autogen/amd/psp_gfx_if.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/autogen/amd/regs/mmhub_3_0_0.h"
#include "rawgpu/autogen/amd/regs/mmhub_4_1_0.h"
#include "rawgpu/autogen/amd/regs/mp_13_0_0.h"
#include "rawgpu/autogen/amd/regs/mp_14_0_2.h"
#include "rawgpu/autogen/amd/regs/osssys_6_0_0.h"
#include "rawgpu/autogen/amd/regs/osssys_7_0_0.h"
#include "rawgpu/autogen/amd/smu_v13_0_0_ppsmc.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/shared_memory.h"
#include "rawgpu/drivers/amd/discovery.h"
#include "rawgpu/sim/amd_gpu.h"
#include "rawgpu/sim/discovery_table.h"
#include "sdma.h"

namespace rawgpu::sim {
namespace {

namespace psp = autogen::amd::psp;
namespace ppsmc = autogen::amd::smu_v13_0_0;  // the message ids used here are the same in 14.0.2
using gc11 = autogen::amd::gc_11_0_0;
using gc12 = autogen::amd::gc_12_0_0;
using mp13 = autogen::amd::mp_13_0_0;
using mp14 = autogen::amd::mp_14_0_2;

template <class R, size_t N>
constexpr uint32_t at(const std::array<uint32_t, N>& bases) {
  return bases[R::kInfo.base_idx] + R::kInfo.offset;
}
template <class R>
constexpr uint32_t gc_reg() {
  return at<R>(bases::kGc);
}

// MP0 (PSP) mailbox: MP0_SMN_C2PMSG_n on 13.0, MPASP_SMN_C2PMSG_n on 14.0, same offsets.
template <class A, class B>
constexpr bool same_offset() {
  return A::kInfo.offset == B::kInfo.offset && A::kInfo.base_idx == B::kInfo.base_idx;
}
static_assert(same_offset<mp13::MP0_SMN_C2PMSG_35, mp14::MPASP_SMN_C2PMSG_35>() &&
              same_offset<mp13::MP0_SMN_C2PMSG_64, mp14::MPASP_SMN_C2PMSG_64>() &&
              same_offset<mp13::MP0_SMN_C2PMSG_67, mp14::MPASP_SMN_C2PMSG_67>() &&
              same_offset<mp13::MP0_SMN_C2PMSG_81, mp14::MPASP_SMN_C2PMSG_81>());
constexpr uint32_t kPsp35 = at<mp13::MP0_SMN_C2PMSG_35>(bases::kMp);
constexpr uint32_t kPsp36 = at<mp13::MP0_SMN_C2PMSG_36>(bases::kMp);
constexpr uint32_t kPsp64 = at<mp13::MP0_SMN_C2PMSG_64>(bases::kMp);
constexpr uint32_t kPsp67 = at<mp13::MP0_SMN_C2PMSG_67>(bases::kMp);
constexpr uint32_t kPsp69 = at<mp13::MP0_SMN_C2PMSG_69>(bases::kMp);
constexpr uint32_t kPsp70 = at<mp13::MP0_SMN_C2PMSG_70>(bases::kMp);
constexpr uint32_t kPsp71 = at<mp13::MP0_SMN_C2PMSG_71>(bases::kMp);
constexpr uint32_t kPsp81 = at<mp13::MP0_SMN_C2PMSG_81>(bases::kMp);

// Per-profile blocks: the SMU mailbox (MP1 13.0.0 / 14.0.x), the MM hub, OSSSYS.
template <class GC>
struct Blocks;
template <>
struct Blocks<gc11> {
  using Msg = mp13::MP1_SMN_C2PMSG_66;
  using Arg = mp13::MP1_SMN_C2PMSG_82;
  using Resp = mp13::MP1_SMN_C2PMSG_90;
  using DbgMsg = mp13::MP1_SMN_C2PMSG_75;
  using DbgArg = mp13::MP1_SMN_C2PMSG_53;
  using DbgResp = mp13::MP1_SMN_C2PMSG_54;
  using Mm = autogen::amd::mmhub_3_0_0;
  using Oss = autogen::amd::osssys_6_0_0;
  using Sdma0Halt = gc11::SDMA0_F32_CNTL;
  using Sdma1Halt = gc11::SDMA1_F32_CNTL;
  static constexpr bool kMode1Message = true;  // 13.0.0 has a regular Mode1Reset
};
template <>
struct Blocks<gc12> {
  using Msg = mp14::MP1_SMN_C2PMSG_66;
  using Arg = mp14::MP1_SMN_C2PMSG_82;
  using Resp = mp14::MP1_SMN_C2PMSG_90;
  using DbgMsg = mp14::MP1_SMN_C2PMSG_75;
  using DbgArg = mp14::MP1_SMN_C2PMSG_53;
  using DbgResp = mp14::MP1_SMN_C2PMSG_54;
  using Mm = autogen::amd::mmhub_4_1_0;
  using Oss = autogen::amd::osssys_7_0_0;
  using Sdma0Halt = gc12::SDMA0_MCU_CNTL;
  using Sdma1Halt = gc12::SDMA1_MCU_CNTL;
  static constexpr bool kMode1Message = false;  // 14.0.x resets through the debug mailbox
};

// PSP bootloader commands (C2PMSG_35, amd.md §7.4).
constexpr uint32_t kBlSysDrv = 0x10000, kBlSos = 0x20000, kBlKdb = 0x80000;
constexpr uint32_t kBlKnown[] = {0x10000, 0x20000, 0x80000, 0xB0000,   0xC0000,
                                 0xD0000, 0xE0000, 0xF0000, 0x10000000};
constexpr uint32_t kReady = 0x80000000u;  // C2PMSG_35 / C2PMSG_64 response bit
constexpr uint32_t kSosVersion = 0x00300d2au;
constexpr uint32_t kSmuVersion = 0x004e3a00u;
constexpr uint32_t kTocTmrSize = 4u << 20;
// Status codes of refused commands (GlobalPlatform TEE client API error codes).
constexpr uint32_t kTeeBadParameters = 0xFFFF0006u, kTeeBadState = 0xFFFF0007u,
                   kTeeNotSupported = 0xFFFF000Au;
constexpr uint32_t kSmuOk = 1, kSmuUnknown = 0xFE, kSmuPrereq = 0xFD;
constexpr uint32_t kDebugMode1Reset = 2;

bool has(const std::vector<uint32_t>& v, uint32_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

// ---- power-on ----------------------------------------------------------------------------------

void AmdGpu::boot_power_on() {
  const bool g12 = config_.gc_version >= 120000;
  // The PSP bootloader is ready for its first component; a running sOS (a function reset does
  // not reach the PSP) keeps answering.
  regs_[kPsp35] = boot_.sos_alive ? 0 : kReady;
  if (boot_.sos_alive) {
    regs_[kPsp81] = kSosVersion;
    regs_[kPsp64] = kReady;
  }
  // The framebuffer's place in the MC address space, as the firmware set it (MM hub and GC
  // hub copies; 16 MiB units).
  const uint32_t fb_lo = static_cast<uint32_t>(kFbBase >> 24);
  const uint32_t fb_hi = static_cast<uint32_t>((kFbBase + config_.vram_size - 1) >> 24);
  if (g12) {
    regs_[at<Blocks<gc12>::Mm::MMMC_VM_FB_LOCATION_BASE>(bases::kMmhub)] = fb_lo;
    regs_[at<Blocks<gc12>::Mm::MMMC_VM_FB_LOCATION_TOP>(bases::kMmhub)] = fb_hi;
    regs_[gc_reg<gc12::GCMC_VM_FB_LOCATION_BASE>()] = fb_lo;
    regs_[gc_reg<gc12::GCMC_VM_FB_LOCATION_TOP>()] = fb_hi;
    regs_[gc_reg<gc12::SDMA0_MCU_CNTL>()] =
        gc12::SDMA0_MCU_CNTL::encode(gc12::SDMA0_MCU_CNTL::HALT(1));
    regs_[gc_reg<gc12::SDMA1_MCU_CNTL>()] =
        gc12::SDMA1_MCU_CNTL::encode(gc12::SDMA1_MCU_CNTL::HALT(1));
  } else {
    regs_[at<Blocks<gc11>::Mm::MMMC_VM_FB_LOCATION_BASE>(bases::kMmhub)] = fb_lo;
    regs_[at<Blocks<gc11>::Mm::MMMC_VM_FB_LOCATION_TOP>(bases::kMmhub)] = fb_hi;
    regs_[gc_reg<gc11::GCMC_VM_FB_LOCATION_BASE>()] = fb_lo;
    regs_[gc_reg<gc11::GCMC_VM_FB_LOCATION_TOP>()] = fb_hi;
    regs_[gc_reg<gc11::SDMA0_F32_CNTL>()] =
        gc11::SDMA0_F32_CNTL::encode(gc11::SDMA0_F32_CNTL::HALT(1));
    regs_[gc_reg<gc11::SDMA1_F32_CNTL>()] =
        gc11::SDMA1_F32_CNTL::encode(gc11::SDMA1_F32_CNTL::HALT(1));
  }
  // The MEC comes out of reset halted (RS64: CP_MEC_RS64_CNTL.MEC_HALT).
  regs_[gc_reg<gc11::CP_MEC_RS64_CNTL>()] =
      gc11::CP_MEC_RS64_CNTL::encode(gc11::CP_MEC_RS64_CNTL::MEC_HALT(1));
  static_assert(same_offset<gc11::CP_MEC_RS64_CNTL, gc12::CP_MEC_RS64_CNTL>());
  ih_ = {};
  psp_rptr_ = 0;
  update_engine_gates();
}

void AmdGpu::mode1_reset() {
  Guard guard(this);
  ++boot_.mode1_resets;
  const bool smu = boot_.smu_running;
  const uint64_t resets = boot_.mode1_resets, cmds = boot_.psp_commands, msgs = boot_.smu_messages;
  std::vector<std::string> errors = std::move(boot_.errors);
  boot_ = {};
  boot_.smu_running = smu;  // the SMU performed the reset and keeps running
  boot_.mode1_resets = resets;
  boot_.psp_commands = cmds;
  boot_.smu_messages = msgs;
  boot_.errors = std::move(errors);
  const bool bm = bus_master_;
  function_reset();  // engines, registers, queues, VM context 0
  bus_master_ = bm;  // config space is the function's, not the ASIC's
  // The PSP's mailboxes too: the bootloader answers again, no sOS, no ring.
  std::erase_if(regs_, [](const auto& kv) {
    return kv.first >= bases::kMp[0] && kv.first < bases::kMp[0] + 0x400;
  });
  regs_[kIfwiStatus] = 0x80000000u;  // the firmware's init is done again
  boot_power_on();
  std::memcpy(vram_base_ + config_.vram_size - drivers::amd::kDiscoveryOffsetFromTop,
              discovery_.data(), discovery_.size());
}

BootStatus AmdGpu::boot_status() const {
  Guard guard(this);
  return boot_;
}

IhStatus AmdGpu::ih_status() const {
  Guard guard(this);
  return ih_;
}

void AmdGpu::boot_error(std::string what) {
  if (boot_.errors.size() < 64) boot_.errors.push_back(std::move(what));
}

uint8_t* AmdGpu::mc_to_host(uint64_t mc, uint64_t bytes) {
  if (mc < kFbBase || bytes > config_.vram_size || mc - kFbBase > config_.vram_size - bytes)
    return nullptr;
  return vram_base_ + (mc - kFbBase);
}

void AmdGpu::update_engine_gates() {
  using C = gc11::CP_MEC_RS64_CNTL;
  const uint32_t cntl = reg_or_zero(gc_reg<C>());
  mec_pipes_ = 0;
  if (boot_.rlc_autoload && !C::MEC_HALT.get(cntl)) {
    const uint32_t active[] = {C::MEC_PIPE0_ACTIVE.get(cntl), C::MEC_PIPE1_ACTIVE.get(cntl),
                               C::MEC_PIPE2_ACTIVE.get(cntl), C::MEC_PIPE3_ACTIVE.get(cntl)};
    const uint32_t reset[] = {C::MEC_PIPE0_RESET.get(cntl), C::MEC_PIPE1_RESET.get(cntl),
                              C::MEC_PIPE2_RESET.get(cntl), C::MEC_PIPE3_RESET.get(cntl)};
    for (unsigned p = 0; p < 4; ++p)
      if (active[p] && !reset[p]) mec_pipes_ |= 1u << p;
  }
  sdma_engines_ = 0;
  const bool g12 = config_.gc_version >= 120000;
  const bool fw =
      has(boot_.ip_fw, psp::GFX_FW_TYPE_SDMA_UCODE_TH0) || has(boot_.ip_fw, psp::GFX_FW_TYPE_SDMA0);
  for (unsigned e = 0; e < 2; ++e) {
    const uint32_t v =
        g12 ? reg_or_zero(e == 0 ? gc_reg<gc12::SDMA0_MCU_CNTL>() : gc_reg<gc12::SDMA1_MCU_CNTL>())
            : reg_or_zero(e == 0 ? gc_reg<gc11::SDMA0_F32_CNTL>() : gc_reg<gc11::SDMA1_F32_CNTL>());
    if (fw && (v & 1u) == 0) sdma_engines_ |= 1u << e;  // HALT is bit 0 in both
  }
}

template <class GC>
void AmdGpu::sdma_soft_reset(uint32_t engines) {
  using B = Blocks<GC>;
  if (engines == 0) return;
  for (unsigned e = 0; e < 2; ++e) {
    if ((engines & (1u << e)) == 0) continue;
    sdma_wedged_ &= ~(1u << e);
    for (auto& q : sdma_queues_) {
      if (!q->active || q->engine != e) continue;
      q->active = false;
      q->status.stopped = true;
      q->status.hung = q->status.waiting = false;
      q->status.error = "deactivated by an SDMA soft reset";
    }
    sdma_queue_[e] = ~0u;
    // Out of reset the engine's microcontroller is halted (bit 0 of F32_CNTL / MCU_CNTL).
    regs_[e == 0 ? gc_reg<typename B::Sdma0Halt>() : gc_reg<typename B::Sdma1Halt>()] |= 1u;
  }
  update_engine_gates();
}

// ---- register side effects ---------------------------------------------------------------------

template <class GC>
bool AmdGpu::on_boot_register_write(uint32_t reg, uint32_t value) {
  using B = Blocks<GC>;
  if (reg == kPsp35) {
    psp_bootloader(value);
  } else if (reg == kPsp64) {
    psp_ring_control(value);
  } else if (reg == kPsp67) {
    psp_submit(value);
  } else if (reg == at<typename B::Msg>(bases::kMp)) {
    smu_message(value, false);
  } else if (reg == at<typename B::DbgMsg>(bases::kMp)) {
    smu_message(value, true);
  } else if (reg == gc_reg<typename GC::CP_MEC_RS64_CNTL>() ||
             reg == gc_reg<typename B::Sdma0Halt>() || reg == gc_reg<typename B::Sdma1Halt>()) {
    update_engine_gates();
  } else if (reg == at<typename B::Oss::IH_RB_CNTL>(bases::kOsssys)) {
    ih_configure();
  } else if (reg == gc_reg<typename GC::GRBM_SOFT_RESET>()) {
    using R = typename GC::GRBM_SOFT_RESET;
    sdma_soft_reset<GC>((R::SOFT_RESET_SDMA0.get(value) ? 1u : 0u) |
                        (R::SOFT_RESET_SDMA1.get(value) ? 2u : 0u));
  } else {
    return false;
  }
  return true;
}
template bool AmdGpu::on_boot_register_write<gc11>(uint32_t, uint32_t);
template bool AmdGpu::on_boot_register_write<gc12>(uint32_t, uint32_t);

// ---- PSP ---------------------------------------------------------------------------------------

void AmdGpu::psp_bootloader(uint32_t command) {
  if (boot_.sos_alive) {
    boot_error(strformat("PSP bootloader command 0x%x while the sOS runs: ignored", command));
    regs_[kPsp35] = 0;
    return;
  }
  regs_[kPsp35] = kReady;  // the component is taken at once
  if (std::find(std::begin(kBlKnown), std::end(kBlKnown), command) == std::end(kBlKnown)) {
    boot_error(strformat("PSP bootloader: unknown command 0x%x", command));
    regs_[kPsp35] = kReady | 0xffff;
    return;
  }
  const uint64_t msg1 = uint64_t{reg_or_zero(kPsp36)} << 20;
  if (mc_to_host(msg1, 1u << 20) == nullptr) {
    boot_error(
        strformat("PSP bootloader command 0x%x: C2PMSG_36 points at MC %s, outside the "
                  "framebuffer",
                  command, hex(msg1).c_str()));
    regs_[kPsp35] = kReady | 0xffff;
    return;
  }
  boot_.bootloader.push_back(command);
  if (command != kBlSos) return;
  // The sOS starts only with the system driver (and the key database) loaded before it.
  if (!has(boot_.bootloader, kBlSysDrv) || !has(boot_.bootloader, kBlKdb)) {
    boot_error("PSP bootloader: SOS without SYS_DRV and KDB before it: the sOS does not start");
    return;
  }
  boot_.sos_alive = true;
  regs_[kPsp81] = kSosVersion;
  regs_[kPsp64] = kReady;
}

void AmdGpu::psp_ring_control(uint32_t command) {
  if (!boot_.sos_alive) {
    boot_error(strformat("C2PMSG_64 command 0x%x with no sOS running: no answer", command));
    return;
  }
  const uint32_t id = command & psp::GFX_CMD_ID_MASK;
  if (id == psp::GFX_CTRL_CMD_ID_DESTROY_RINGS) {
    boot_.km_ring = false;
    regs_[kPsp64] = kReady;
    return;
  }
  if (id != psp::GFX_CTRL_CMD_ID_INIT_GPCOM_RING) {
    boot_error(strformat("C2PMSG_64: unsupported ring command 0x%x", command));
    regs_[kPsp64] = kReady | 0xffff;
    return;
  }
  const uint64_t mc = reg_or_zero(kPsp69) | (uint64_t{reg_or_zero(kPsp70)} << 32);
  const uint32_t bytes = reg_or_zero(kPsp71);
  if (bytes < 4096 || bytes % 64 != 0 || mc % 4096 != 0 || mc_to_host(mc, bytes) == nullptr) {
    boot_error(
        strformat("PSP KM ring at MC %s, %u bytes: not a 4 KiB-aligned ring of 64-byte "
                  "frames in the framebuffer",
                  hex(mc).c_str(), bytes));
    regs_[kPsp64] = kReady | (kTeeBadParameters & 0xffff);
    return;
  }
  boot_.km_ring = true;
  psp_ring_mc_ = mc;
  psp_ring_bytes_ = bytes;  // latched: later C2PMSG_69..71 writes do not move the live ring
  psp_rptr_ = 0;
  regs_[kPsp64] = kReady;
}

void AmdGpu::psp_submit(uint32_t wptr) {
  if (!boot_.sos_alive || !boot_.km_ring) {
    boot_error("C2PMSG_67 write with no KM ring: ignored");
    return;
  }
  const uint64_t ring_mc = psp_ring_mc_;
  const uint32_t ring_dw = psp_ring_bytes_ / 4;  // >= 1024: checked at creation
  constexpr uint32_t kFrameDw = sizeof(psp::psp_gfx_rb_frame) / 4;
  static_assert(sizeof(psp::psp_gfx_rb_frame) == 64);
  if (wptr % kFrameDw != 0) {
    boot_error(strformat("C2PMSG_67 = %u: not a whole number of 16-dword frames", wptr));
    return;
  }
  wptr %= ring_dw;
  for (uint32_t guard = 0; psp_rptr_ != wptr && guard < ring_dw / kFrameDw; ++guard) {
    psp::psp_gfx_rb_frame f{};
    uint8_t* frame = mc_to_host(ring_mc + psp_rptr_ * 4, sizeof f);
    psp_rptr_ = (psp_rptr_ + kFrameDw) % ring_dw;
    if (frame == nullptr) break;
    std::memcpy(&f, frame, sizeof f);
    const uint64_t cmd = f.cmd_buf_addr_lo | (uint64_t{f.cmd_buf_addr_hi} << 32);
    const uint64_t fence = f.fence_addr_lo | (uint64_t{f.fence_addr_hi} << 32);
    ++boot_.psp_commands;
    (void)psp_execute(cmd);
    if (uint8_t* fp = mc_to_host(fence, 4))
      std::memcpy(fp, &f.fence_value, 4);
    else
      boot_error(strformat("PSP frame fence at MC %s: outside the framebuffer (not written)",
                           hex(fence).c_str()));
  }
}

uint32_t AmdGpu::psp_execute(uint64_t cmd_mc) {
  uint8_t* p = mc_to_host(cmd_mc, sizeof(psp::psp_gfx_cmd_resp));
  if (p == nullptr) {
    boot_error(strformat("PSP frame: command buffer at MC %s is outside the framebuffer",
                         hex(cmd_mc).c_str()));
    return kTeeBadParameters;
  }
  psp::psp_gfx_cmd_resp c;
  std::memcpy(&c, p, sizeof c);
  uint32_t status = 0;
  auto refuse = [&](uint32_t code, std::string why) {
    boot_error(strformat("PSP command 0x%x: %s", c.cmd_id, why.c_str()));
    status = code;
  };
  FaultRule rule;
  if (faults_ != nullptr && faults_->watches(FaultRule::Trigger::kPspCommand) &&
      faults_->fire(FaultRule::Trigger::kPspCommand, c.cmd_id, &rule) &&
      rule.action == FaultRule::Action::kFail) {
    refuse(rule.value, "refused by the fault plan");
  } else {
    switch (c.cmd_id) {
      case psp::GFX_CMD_ID_LOAD_TOC: {
        const auto& t = c.cmd.cmd_load_toc;
        const uint64_t mc = t.toc_phy_addr_lo | (uint64_t{t.toc_phy_addr_hi} << 32);
        if (t.toc_size == 0 || mc_to_host(mc, t.toc_size) == nullptr) {
          refuse(kTeeBadParameters, "LOAD_TOC: the TOC is not in the framebuffer");
          break;
        }
        boot_.toc = true;
        c.resp.tmr_size = kTocTmrSize;
        break;
      }
      case psp::GFX_CMD_ID_SETUP_TMR: {
        const auto& t = c.cmd.cmd_setup_tmr;
        const uint64_t mc = t.buf_phy_addr_lo | (uint64_t{t.buf_phy_addr_hi} << 32);
        if (config_.gc_version >= 120000) {
          refuse(kTeeBadState, "SETUP_TMR on MP0 14.0.x, whose TMR the bootloader set up");
        } else if (!has(boot_.ip_fw, psp::GFX_FW_TYPE_SMU)) {
          refuse(kTeeBadState,
                 "SETUP_TMR before the SMU firmware (LOAD_IP_FW SMU must come first)");
        } else if (boot_.toc && t.buf_size < kTocTmrSize) {
          refuse(kTeeBadParameters,
                 strformat("SETUP_TMR of %u bytes: the TOC asked for %u", t.buf_size, kTocTmrSize));
        } else if (mc % (1u << 20) != 0 || mc_to_host(mc, t.buf_size) == nullptr) {
          refuse(kTeeBadParameters, "SETUP_TMR: not a 1 MiB-aligned framebuffer region");
        } else {
          boot_.tmr_mc = mc;
          boot_.tmr_bytes = t.buf_size;
        }
        break;
      }
      case psp::GFX_CMD_ID_LOAD_IP_FW: {
        const auto& l = c.cmd.cmd_load_ip_fw;
        const uint64_t mc = l.fw_phy_addr_lo | (uint64_t{l.fw_phy_addr_hi} << 32);
        const uint32_t type = static_cast<uint32_t>(l.fw_type);
        if (l.fw_size == 0 || mc_to_host(mc, l.fw_size) == nullptr) {
          refuse(kTeeBadParameters, "LOAD_IP_FW: the image is not in the framebuffer");
        } else if (type != psp::GFX_FW_TYPE_SMU && boot_.tmr_mc == 0 &&
                   config_.gc_version < 120000) {  // 14.0.x: a boot-time TMR
          refuse(kTeeBadState, strformat("LOAD_IP_FW type %u before SETUP_TMR", type));
        } else {
          boot_.ip_fw.push_back(type);
          if (type == psp::GFX_FW_TYPE_SMU) boot_.smu_running = true;
          update_engine_gates();
        }
        break;
      }
      case psp::GFX_CMD_ID_AUTOLOAD_RLC: {
        const bool g12 = config_.gc_version >= 120000;
        std::vector<uint32_t> need = {psp::GFX_FW_TYPE_RLC_G, psp::GFX_FW_TYPE_RS64_MEC,
                                      psp::GFX_FW_TYPE_IMU_I, psp::GFX_FW_TYPE_IMU_D};
        if (g12) {
          need.push_back(psp::GFX_FW_TYPE_RS64_PFP);
          need.push_back(psp::GFX_FW_TYPE_RS64_ME);
        }
        std::string missing;
        for (uint32_t t : need)
          if (!has(boot_.ip_fw, t)) missing += strformat(" %u", t);
        if (!missing.empty()) {
          refuse(kTeeBadState,
                 "AUTOLOAD_RLC without the GC images (LOAD_IP_FW types" + missing + " missing)");
          break;
        }
        boot_.rlc_autoload = true;
        using S11 = gc11::RLC_RLCS_BOOTLOAD_STATUS;
        using S12 = gc12::RLC_RLCS_BOOTLOAD_STATUS;
        if (g12)
          regs_[gc_reg<S12>()] = S12::encode(S12::BOOTLOAD_COMPLETE(1) | S12::GFX_INIT_DONE(1));
        else
          regs_[gc_reg<S11>()] = S11::encode(S11::BOOTLOAD_COMPLETE(1) | S11::GFX_INIT_DONE(1));
        update_engine_gates();
        break;
      }
      default: refuse(kTeeNotSupported, "not supported by the simulated sOS"); break;
    }
  }
  c.resp.status = status;
  // Only the response is written back (the command part stays as the driver wrote it).
  std::memcpy(p + offsetof(psp::psp_gfx_cmd_resp, resp), &c.resp, sizeof c.resp);
  return status;
}

// ---- SMU ---------------------------------------------------------------------------------------

void AmdGpu::smu_message(uint32_t msg, bool debug) {
  const bool g12 = config_.gc_version >= 120000;
  const uint32_t arg_reg =
      g12 ? at<Blocks<gc12>::Arg>(bases::kMp) : at<Blocks<gc11>::Arg>(bases::kMp);
  const uint32_t resp_reg =
      g12 ? at<Blocks<gc12>::Resp>(bases::kMp) : at<Blocks<gc11>::Resp>(bases::kMp);
  const uint32_t dbg_resp =
      g12 ? at<Blocks<gc12>::DbgResp>(bases::kMp) : at<Blocks<gc11>::DbgResp>(bases::kMp);
  if (!boot_.smu_running) return;  // no firmware: nobody answers
  ++boot_.smu_messages;
  FaultRule rule;
  if (faults_ != nullptr && faults_->watches(FaultRule::Trigger::kSmuMessage) &&
      faults_->fire(FaultRule::Trigger::kSmuMessage, msg, &rule)) {
    if (rule.action == FaultRule::Action::kFail) regs_[debug ? dbg_resp : resp_reg] = rule.value;
    return;  // kDrop: silence
  }
  if (debug) {
    if (msg == kDebugMode1Reset) {
      mode1_reset();
      regs_[dbg_resp] = kSmuOk;
    } else {
      regs_[dbg_resp] = kSmuUnknown;
    }
    return;
  }
  const uint32_t arg = reg_or_zero(arg_reg);
  uint32_t resp = kSmuOk;
  switch (msg) {
    case ppsmc::PPSMC_MSG_GetSmuVersion: regs_[arg_reg] = kSmuVersion; break;
    case ppsmc::PPSMC_MSG_SetDriverDramAddrHigh:
      boot_.smu_driver_table = (boot_.smu_driver_table & 0xffffffffu) | (uint64_t{arg} << 32);
      break;
    case ppsmc::PPSMC_MSG_SetDriverDramAddrLow:
      boot_.smu_driver_table = (boot_.smu_driver_table & ~uint64_t{0xffffffffu}) | arg;
      break;
    case ppsmc::PPSMC_MSG_EnableAllSmuFeatures:
      if (boot_.smu_driver_table == 0 || mc_to_host(boot_.smu_driver_table, 16384) == nullptr)
        resp = kSmuPrereq;  // the driver table must be in place first
      else
        boot_.smu_features = true;
      break;
    case ppsmc::PPSMC_MSG_GetDpmFreqByIndex: {
      // Four levels per clock; (clk << 16) | 0xff asks for the count.
      const uint32_t clk = arg >> 16, idx = arg & 0xffff;
      if (idx == 0xff)
        regs_[arg_reg] = 4;
      else if (idx < 4)
        regs_[arg_reg] = 500 + 250 * idx + 100 * (clk & 7);
      else
        resp = 0xFF;
      break;
    }
    case ppsmc::PPSMC_MSG_SetSoftMinByFreq:
    case ppsmc::PPSMC_MSG_SetSoftMaxByFreq:
      if (!boot_.smu_features) resp = kSmuPrereq;
      break;
    default:
      const bool mode1 = g12 ? Blocks<gc12>::kMode1Message : Blocks<gc11>::kMode1Message;
      if (mode1 && msg == ppsmc::PPSMC_MSG_Mode1Reset) {
        mode1_reset();
      } else {
        resp = kSmuUnknown;
      }
      break;
  }
  regs_[resp_reg] = resp;
}

// ---- IH ----------------------------------------------------------------------------------------

void AmdGpu::ih_configure() {
  using Oss = autogen::amd::osssys_6_0_0;  // IH_RB_CNTL has the same fields in 7.0.0
  using Oss7 = autogen::amd::osssys_7_0_0;
  const bool g12 = config_.gc_version >= 120000;
  auto reg = [&](uint32_t a) { return uint64_t{reg_or_zero(a)}; };
  const uint32_t cntl = static_cast<uint32_t>(
      reg(g12 ? at<Oss7::IH_RB_CNTL>(bases::kOsssys) : at<Oss::IH_RB_CNTL>(bases::kOsssys)));
  using C = Oss::IH_RB_CNTL;
  const uint64_t base = g12 ? reg(at<Oss7::IH_RB_BASE>(bases::kOsssys)) |
                                  (reg(at<Oss7::IH_RB_BASE_HI>(bases::kOsssys)) << 32)
                            : reg(at<Oss::IH_RB_BASE>(bases::kOsssys)) |
                                  (reg(at<Oss::IH_RB_BASE_HI>(bases::kOsssys)) << 32);
  const bool was = ih_.enabled;
  ih_.enabled = C::RB_ENABLE.get(cntl) != 0;
  ih_.base = base << 8;
  ih_.bus = C::MC_SPACE.get(cntl) == 2;
  ih_.bytes = 4ull << C::RB_SIZE.get(cntl);
  if (ih_.enabled && !was) ih_.wptr = 0;
  if (C::WPTR_OVERFLOW_CLEAR.get(cntl)) {
    const uint32_t w =
        g12 ? at<Oss7::IH_RB_WPTR>(bases::kOsssys) : at<Oss::IH_RB_WPTR>(bases::kOsssys);
    regs_[w] &= ~1u;  // RB_OVERFLOW
  }
}

void AmdGpu::ih_post(uint32_t client, uint32_t source, uint32_t ring_id, uint32_t vmid,
                     std::array<uint32_t, 4> ctx) {
  using Oss = autogen::amd::osssys_6_0_0;
  using Oss7 = autogen::amd::osssys_7_0_0;
  const bool g12 = config_.gc_version >= 120000;
  const uint32_t wreg =
      g12 ? at<Oss7::IH_RB_WPTR>(bases::kOsssys) : at<Oss::IH_RB_WPTR>(bases::kOsssys);
  const uint32_t rreg =
      g12 ? at<Oss7::IH_RB_RPTR>(bases::kOsssys) : at<Oss::IH_RB_RPTR>(bases::kOsssys);
  const uint32_t waddr_lo = g12 ? at<Oss7::IH_RB_WPTR_ADDR_LO>(bases::kOsssys)
                                : at<Oss::IH_RB_WPTR_ADDR_LO>(bases::kOsssys);
  const uint32_t waddr_hi = g12 ? at<Oss7::IH_RB_WPTR_ADDR_HI>(bases::kOsssys)
                                : at<Oss::IH_RB_WPTR_ADDR_HI>(bases::kOsssys);
  constexpr uint64_t kEntry = 32;
  if (!ih_.enabled || ih_.bytes < kEntry || ih_.bytes > (1ull << 30)) {
    ++ih_.dropped;
    return;
  }
  const uint64_t rptr = (reg_or_zero(rreg) & 0x3fffcu) % ih_.bytes;
  if ((ih_.wptr + kEntry) % ih_.bytes == rptr) {  // full: the entry is lost, overflow flagged
    regs_[wreg] |= 1u;
    ++ih_.dropped;
    return;
  }
  auto host = [&](uint64_t addr, uint64_t bytes) -> uint8_t* {
    if (!ih_.bus) return mc_to_host(addr, bytes);
    if (!bus_master_) return nullptr;
    Leaf l;
    l.attrs.aperture = memory::Aperture::kSystem;
    return backing(l, addr, bytes);
  };
  uint32_t e[8];
  e[0] = (client & 0xff) | ((source & 0xff) << 8) | ((ring_id & 0xff) << 16) | ((vmid & 0xf) << 24);
  const uint64_t ts = clock_;
  e[1] = static_cast<uint32_t>(ts);
  e[2] = static_cast<uint32_t>(ts >> 32) & 0xffff;
  e[3] = 0;  // pasid 0, node 0
  for (unsigned i = 0; i < 4; ++i) e[4 + i] = ctx[i];
  uint8_t* dst = host(ih_.base + ih_.wptr, kEntry);
  if (dst == nullptr) {
    if (ih_.bus)
      record_dma_fault(ih_.base + ih_.wptr, true,
                       bus_master_ ? "IH ring write to an unmapped bus address"
                                   : "IH ring write with bus mastering disabled");
    ++ih_.dropped;
    return;
  }
  std::memcpy(dst, e, kEntry);
  ih_.wptr = (ih_.wptr + kEntry) % ih_.bytes;
  ++ih_.written;
  regs_[wreg] = static_cast<uint32_t>(ih_.wptr) | (regs_[wreg] & 1u);
  // Write-pointer writeback (the driver reads it from memory instead of over MMIO).
  const uint64_t wb = reg_or_zero(waddr_lo) | (uint64_t{reg_or_zero(waddr_hi)} << 32);
  if (wb != 0) {
    if (uint8_t* w = host(wb, 4); w != nullptr && reinterpret_cast<uintptr_t>(w) % 4 == 0) {
      // Released after the entry: a host that reads this word with acquire sees the entry.
      store_release(reinterpret_cast<volatile uint32_t*>(w), regs_[wreg]);
    }
  }
  if (irq_hook_) irq_hook_();
}

}  // namespace rawgpu::sim
