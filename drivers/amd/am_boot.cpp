// The AM boot's state machine (amd.md §6) and its small IP blocks: SOC, GMC (MM hub), IH, SDMA.
// PSP, SMU and GFX live in am_psp.cpp, am_smu.cpp and am_gfx.cpp.
#include "am_boot.h"

#include <bit>
#include <cstring>

#include "rawgpu/autogen/amd/hw_ip.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/autogen/amd/regs/mmhub_3_0_0.h"
#include "rawgpu/autogen/amd/regs/mmhub_4_1_0.h"
#include "rawgpu/autogen/amd/regs/nbif_6_3_1.h"
#include "rawgpu/autogen/amd/regs/nbio_4_3_0.h"
#include "rawgpu/autogen/amd/regs/osssys_6_0_0.h"
#include "rawgpu/autogen/amd/regs/osssys_7_0_0.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/base/shared_memory.h"
#include "rawgpu/drivers/amd/pci_device.h"

namespace rawgpu::drivers::amd {
namespace {

namespace hw = autogen::amd::hwid;
using gc11 = autogen::amd::gc_11_0_0;
using gc12 = autogen::amd::gc_12_0_0;
constexpr uint64_t kPage = 4096;

Nanos host_now() { return std::chrono::steady_clock::now().time_since_epoch(); }

}  // namespace

std::string_view boot_kind_name(BootKind kind) {
  switch (kind) {
    case BootKind::kCold: return "cold";
    case BootKind::kWarm: return "warm";
    case BootKind::kColdReset: return "cold after mode-1 reset";
  }
  return "?";
}

std::vector<BootStep> BootReport::per_block() const {
  std::vector<BootStep> out;
  for (const BootStep& s : steps) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const BootStep& b) { return b.block == s.block; });
    if (it == out.end()) {
      out.push_back(BootStep{s.block, s.block, {}, {}, 0, 0, true});
      it = out.end() - 1;
    }
    it->host += s.host;
    it->device += s.device;
    it->mmio_reads += s.mmio_reads;
    it->mmio_writes += s.mmio_writes;
    it->skipped = it->skipped && s.skipped;
  }
  return out;
}

std::string describe(const BootReport& r) {
  std::string out = strformat("%.*s boot: %s\n", int(boot_kind_name(r.kind).size()),
                              boot_kind_name(r.kind).data(), r.reason.c_str());
  for (const BootStep& s : r.steps) {
    if (s.skipped) {
      out += strformat("  %-5s %-34s skipped (warm)\n", s.block.c_str(), s.name.c_str());
      continue;
    }
    out +=
        strformat("  %-5s %-34s %9s host %9s device %5llu rd %5llu wr\n", s.block.c_str(),
                  s.name.c_str(), format_duration(s.host).c_str(),
                  format_duration(s.device).c_str(), static_cast<unsigned long long>(s.mmio_reads),
                  static_cast<unsigned long long>(s.mmio_writes));
  }
  out += strformat("  total %s host, %s device, %llu MMIO reads, %llu writes\n",
                   format_duration(r.host).c_str(), format_duration(r.device).c_str(),
                   static_cast<unsigned long long>(r.mmio_reads),
                   static_cast<unsigned long long>(r.mmio_writes));
  return out;
}

// ---- services ----------------------------------------------------------------------------------

AmBoot::AmBoot(PciAmdDevice& d, BootOptions o) : dev(d), options(std::move(o)) {
  // The walk order, which is also the order of the boot allocations.
  auto add = [&](auto block) {
    auto* raw = block.get();
    blocks.push_back(std::move(block));
    return raw;
  };
  add(std::make_unique<Soc>(*this));
  add(std::make_unique<Gmc>(*this));
  ih = add(std::make_unique<Ih>(*this));
  psp = add(std::make_unique<Psp>(*this));
  smu = add(std::make_unique<Smu>(*this));
  gfx = add(std::make_unique<Gfx>(*this));
  sdma = add(std::make_unique<Sdma>(*this));
}

AmBoot::~AmBoot() = default;

uint32_t AmBoot::rd(uint32_t reg) { return dev.regs_->rd32(uint64_t{reg} * 4); }
void AmBoot::wr(uint32_t reg, uint32_t value) { dev.regs_->wr32(uint64_t{reg} * 4, value); }
const Discovery& AmBoot::discovery() const { return dev.discovery_; }
const IpBlock& AmBoot::ip(uint16_t hw_id) const { return *dev.discovery_.find(hw_id); }
Clock& AmBoot::clock() { return dev.dev_.clock(); }
uint32_t AmBoot::gc_version() const { return dev.gc_version_; }
void AmBoot::sleep(Nanos d) { clock().sleep_for(d); }

Status AmBoot::wait_reg(const char* what, uint32_t reg, uint32_t mask, uint32_t want, Nanos timeout,
                        const char* hint) {
  PollOptions po;
  po.timeout = timeout;
  po.clock = &clock();
  uint32_t v = 0;
  Status st = poll_until(
      what,
      [&]() -> Result<bool> {
        v = rd(reg);
        if (pci::reads_all_ones(v) && mask != 0xffffffffu)
          return pci::fell_off_bus(dev.name_, what);
        return (v & mask) == want;
      },
      po,
      [&] {
        return strformat("register 0x%x & 0x%08x should be 0x%08x, read 0x%08x", reg, mask, want,
                         v);
      });
  if (!st && hint != nullptr) return std::move(st).take_error().with_hint(hint);
  return st;
}

Status AmBoot::step(const char* block, std::string name, const std::function<Status()>& fn) {
  BootStep s;
  s.block = block;
  s.name = std::move(name);
  const uint64_t r0 = counter->reads, w0 = counter->writes;
  const Nanos h0 = host_now(), d0 = clock().now();
  Status st = fn();
  s.host = host_now() - h0;
  s.device = clock().now() - d0;
  s.mmio_reads = counter->reads - r0;
  s.mmio_writes = counter->writes - w0;
  const std::string context = strformat("boot step %s: %s", block, s.name.c_str());
  if (report != nullptr) {
    report->steps.push_back(std::move(s));
    if (options.progress) options.progress(report->steps.back());
  }
  if (!st) return std::move(st).take_error().with_context(context);
  return {};
}

void AmBoot::skipped(const char* block, std::string name) {
  if (report == nullptr) return;
  BootStep s;
  s.block = block;
  s.name = std::move(name);
  s.skipped = true;
  report->steps.push_back(s);
  if (options.progress) options.progress(report->steps.back());
}

Result<VramAddr> AmBoot::boot_alloc(uint64_t bytes, uint64_t align, bool zero) {
  if (!dev.mm_->booting())
    return make_error(Errc::kInternal, "boot allocation of %s after the boot pool closed",
                      format_bytes(bytes).c_str());
  return dev.mm_->palloc(bytes, align, zero);
}

uint8_t* AmBoot::vram(VramAddr a) { return dev.vram_bar_->direct(a.raw(), 1); }

Status AmBoot::hdp_flush() {
  wr(dev.hdp_flush_req_, 1);
  PollOptions po;
  po.timeout = std::chrono::milliseconds(100);
  po.clock = &clock();
  uint32_t done = 0;
  return poll_until(
      "the HDP flush (BIF_BX_PF0_GPU_HDP_FLUSH_DONE bit 0)",
      [&]() -> Result<bool> {
        done = rd(dev.hdp_flush_done_);
        if (pci::reads_all_ones(done)) return pci::fell_off_bus(dev.name_, "HDP_FLUSH_DONE");
        return (done & 1) != 0;
      },
      po, [&] { return strformat("DONE = 0x%08x", done); });
}

// ---- the state machine -------------------------------------------------------------------------

Status AmBoot::warm_check(std::string& why) {
  using R7 = gc11::SCRATCH_REG7;  // the same offsets in gc_12_0_0
  using R6 = gc11::SCRATCH_REG6;
  static_assert(R7::kInfo.offset == gc12::SCRATCH_REG7::kInfo.offset &&
                R6::kInfo.offset == gc12::SCRATCH_REG6::kInfo.offset);
  const uint32_t stamp = rd(dev.gc<R7>()), running = rd(dev.gc<R6>());
  const uint32_t fault = gc12() ? rd(dev.gc<gc12::GCVM_L2_PROTECTION_FAULT_STATUS_LO32>())
                                : rd(dev.gc<gc11::GCVM_L2_PROTECTION_FAULT_STATUS>());
  if (stamp != kBootMagic) {
    why = stamp == 0 ? "SCRATCH_REG7 is 0: no previous rawgpu boot"
                     : strformat("SCRATCH_REG7 is 0x%08x, not this layout's boot stamp 0x%08x",
                                 stamp, kBootMagic);
    return make_error(Errc::kNotFound, "%s", why.c_str());
  }
  if (running != 0) {
    why = strformat("SCRATCH_REG6 is %u: the previous rawgpu process did not finish cleanly",
                    running);
    return make_error(Errc::kNotFound, "%s", why.c_str());
  }
  if (fault != 0) {
    why = strformat("a VM fault is latched (status 0x%08x)", fault);
    return make_error(Errc::kNotFound, "%s", why.c_str());
  }
  return health_probe(why);
}

Status AmBoot::health_probe(std::string& why) {
  if (!psp->sos_alive()) {
    why = "the PSP's sOS is not running (C2PMSG_81 = 0)";
    return make_error(Errc::kNotFound, "%s", why.c_str());
  }
  if (!smu->alive()) {
    why = "the SMU does not answer GetSmuVersion";
    return make_error(Errc::kNotFound, "%s", why.c_str());
  }
  return {};
}

Status AmBoot::run(BootReport& r) {
  report = &r;
  r = BootReport{};
  const uint64_t r0 = counter->reads, w0 = counter->writes;
  const Nanos h0 = host_now(), d0 = clock().now();
  auto finish = [&] {
    r.host = host_now() - h0;
    r.device = clock().now() - d0;
    r.mmio_reads = counter->reads - r0;
    r.mmio_writes = counter->writes - w0;
  };
  Status st = [&]() -> Status {
    for (auto& b : blocks) RG_TRY_CTX(b->sw_init(), "%s software init", b->name());
    std::string why;
    bool warm = false;
    if (options.force_reset) {
      why = "a reset was asked for";
    } else if (warm_check(why)) {
      warm = true;
      why = "SCRATCH_REG7 holds the boot stamp, the previous process finished, PSP and SMU answer";
    }
    r.reason = why;
    r.kind = warm ? BootKind::kWarm : BootKind::kCold;
    if (!warm && psp->sos_alive()) {
      // The firmware runs but its state is not one this boot can reuse: reset the ASIC through
      // the SMU. A silent SMU cannot reset it; the boot then reuses the running sOS and loads
      // everything again through its ring (the SMU image first), which fails at the SMU step
      // with a timeout if the SMU stays dead, never hangs.
      if (smu->alive()) {
        r.kind = BootKind::kColdReset;
        RG_TRY(step("SMU", "mode-1 reset", [&] { return smu->mode1_reset(); }));
      } else {
        r.reason +=
            "; the sOS runs but the SMU does not answer: no mode-1 reset, the sOS is "
            "reused";
      }
    }
    return bring_up(warm);
  }();
  finish();
  report = nullptr;
  return st;
}

Status AmBoot::load_firmware() {
  if (!firmware.files.empty()) return {};
  return step("PSP", "firmware files", [&]() -> Status {
    AmFirmwareIps ips;
    ips.mp0 = ip(hw::MP0_HWID).version;
    ips.mp1 = ip(hw::MP1_HWID).version;
    ips.sdma0 = ip(hw::SDMA0_HWID).version;
    ips.gc = ip(hw::GC_HWID).version;
    const FirmwareLoader loader =
        options.firmware_dirs.empty() ? FirmwareLoader() : FirmwareLoader(options.firmware_dirs);
    firmware = RG_TRY(load_am_firmware(loader, ips));
    if (report != nullptr)
      for (const LoadedFirmware& f : firmware.files) {
        FirmwareImage img;
        img.name = f.image.name;
        img.path = f.image.path;
        img.compressed = f.image.compressed;
        img.file_bytes = f.image.file_bytes;
        img.sha256 = f.image.sha256;
        report->firmware.push_back(std::move(img));
      }
    return {};
  });
}

Status AmBoot::bring_up(bool warm) {
  if (!warm) RG_TRY(load_firmware());
  for (auto& b : blocks) RG_TRY(b->hw_init(warm));
  // The stamp: a later process may warm-boot over this state once this one finished.
  return step("GFX", "boot stamp", [&]() -> Status {
    wr(dev.gc<gc11::SCRATCH_REG7>(), kBootMagic);
    wr(dev.gc<gc11::SCRATCH_REG6>(), 1);  // running; fini writes the error state
    return {};
  });
}

Status AmBoot::reboot_after_mode1(BootReport& r) {
  report = &r;
  r = BootReport{};
  r.kind = BootKind::kColdReset;
  r.reason = "recovery";
  Status st = [&]() -> Status {
    if (!smu->alive())
      return make_error(Errc::kHardware, "the SMU does not answer: no mode-1 reset is possible");
    RG_TRY(step("SMU", "mode-1 reset", [&] { return smu->mode1_reset(); }));
    return bring_up(false);
  }();
  report = nullptr;
  return st;
}

void AmBoot::fini(uint32_t error_state) {
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) (*it)->fini();
  wr(dev.gc<gc11::SCRATCH_REG6>(), error_state);
}

// ---- SOC ---------------------------------------------------------------------------------------

Status Soc::hw_init(bool) {
  return b_.step("SOC", "doorbell aperture", [&]() -> Status {
    using Aper = autogen::amd::nbio_4_3_0::RCC_DEV0_EPF0_RCC_DOORBELL_APER_EN;
    static_assert(Aper::kInfo.offset ==
                  autogen::amd::nbif_6_3_1::RCC_DEV0_EPF0_RCC_DOORBELL_APER_EN::kInfo.offset);
    b_.wr(RG_TRY(b_.reg<Aper>(hw::NBIF_HWID)), 1);
    return {};
  });
}

// ---- GMC: where the framebuffer sits (the GC hub is programmed by GFX after the RLC) ----------

Status Gmc::hw_init(bool) {
  return b_.step("GMC", "framebuffer location", [&]() -> Status {
    const IpBlock& mm = b_.ip(hw::MMHUB_HWID);
    const uint32_t base =
        b_.rd(mm.version.major >= 4
                  ? RG_TRY(mm.reg<autogen::amd::mmhub_4_1_0::MMMC_VM_FB_LOCATION_BASE>())
                  : RG_TRY(mm.reg<autogen::amd::mmhub_3_0_0::MMMC_VM_FB_LOCATION_BASE>()));
    const uint32_t top =
        b_.rd(mm.version.major >= 4
                  ? RG_TRY(mm.reg<autogen::amd::mmhub_4_1_0::MMMC_VM_FB_LOCATION_TOP>())
                  : RG_TRY(mm.reg<autogen::amd::mmhub_3_0_0::MMMC_VM_FB_LOCATION_TOP>()));
    const uint64_t fb = uint64_t{base & 0xffffff} << 24;
    const uint64_t end = (uint64_t{top & 0xffffff} << 24) | 0xffffff;
    if (pci::reads_all_ones(base) || end < fb || end - fb + 1 < b_.dev.vram_size_)
      return make_error(Errc::kHardware,
                        "MMMC_VM_FB_LOCATION_BASE/TOP read 0x%x/0x%x: a framebuffer of %s at %s "
                        "cannot hold the %s of VRAM",
                        base, top, format_bytes(end >= fb ? end - fb + 1 : 0).c_str(),
                        hex(fb).c_str(), format_bytes(b_.dev.vram_size_).c_str());
    b_.fb_base = fb;
    return {};
  });
}

// ---- IH ----------------------------------------------------------------------------------------

namespace {
constexpr uint64_t kIhRingBytes = 256 << 10;
}

Ih::~Ih() = default;

Status Ih::hw_init(bool) {
  return b_.step("IH", "interrupt ring", [&]() -> Status {
    const IpBlock& oss = b_.ip(hw::OSSSYS_HWID);
    using O6 = autogen::amd::osssys_6_0_0;
    using O7 = autogen::amd::osssys_7_0_0;
    const bool v7 = oss.version.major >= 7;
    cntl_ = v7 ? RG_TRY(oss.reg<O7::IH_RB_CNTL>()) : RG_TRY(oss.reg<O6::IH_RB_CNTL>());
    base_ = v7 ? RG_TRY(oss.reg<O7::IH_RB_BASE>()) : RG_TRY(oss.reg<O6::IH_RB_BASE>());
    base_hi_ = v7 ? RG_TRY(oss.reg<O7::IH_RB_BASE_HI>()) : RG_TRY(oss.reg<O6::IH_RB_BASE_HI>());
    rptr_reg_ = v7 ? RG_TRY(oss.reg<O7::IH_RB_RPTR>()) : RG_TRY(oss.reg<O6::IH_RB_RPTR>());
    wptr_reg_ = v7 ? RG_TRY(oss.reg<O7::IH_RB_WPTR>()) : RG_TRY(oss.reg<O6::IH_RB_WPTR>());
    wptr_lo_ =
        v7 ? RG_TRY(oss.reg<O7::IH_RB_WPTR_ADDR_LO>()) : RG_TRY(oss.reg<O6::IH_RB_WPTR_ADDR_LO>());
    wptr_hi_ =
        v7 ? RG_TRY(oss.reg<O7::IH_RB_WPTR_ADDR_HI>()) : RG_TRY(oss.reg<O6::IH_RB_WPTR_ADDR_HI>());
    // Host memory: the ring (and its write-pointer word) by bus address, snooped.
    if (!ring_) ring_ = RG_TRY(b_.dev.dev_.alloc_dma(kIhRingBytes));
    if (!wptr_) wptr_ = RG_TRY(b_.dev.dev_.alloc_dma(kPage));
    if (ring_->bus_pages.size() * kPage != kIhRingBytes)
      return make_error(Errc::kInternal, "IH ring DMA buffer has %zu pages",
                        ring_->bus_pages.size());
    for (size_t i = 1; i < ring_->bus_pages.size(); ++i)
      if (ring_->bus_pages[i] != ring_->bus_pages[0] + i * kPage)
        return make_error(Errc::kUnsupported,
                          "the IH ring's host memory is not contiguous in bus addresses (no IOMMU "
                          "to make it so): the IH needs one contiguous ring");
    std::memset(ring_->host, 0, kIhRingBytes);
    std::memset(wptr_->host, 0, kPage);
    const uint64_t bus = ring_->bus_pages[0], wb = wptr_->bus_pages[0];
    using C = O6::IH_RB_CNTL;  // the same fields in osssys_7_0_0
    b_.wr(cntl_, 0);           // disabled while programmed
    b_.wr(base_, static_cast<uint32_t>(bus >> 8));
    b_.wr(base_hi_, static_cast<uint32_t>(bus >> 40));
    b_.wr(wptr_lo_, static_cast<uint32_t>(wb));
    b_.wr(wptr_hi_, static_cast<uint32_t>(wb >> 32));
    b_.wr(rptr_reg_, 0);
    b_.wr(wptr_reg_, 0);
    reader_ = RG_TRY(IhRing::create(std::span<const uint8_t>(ring_->host, kIhRingBytes)));
    const unsigned order = static_cast<unsigned>(std::countr_zero(kIhRingBytes / 4));
    b_.wr(cntl_, C::encode(C::RB_ENABLE(1) | C::RB_SIZE(order) | C::WPTR_WRITEBACK_ENABLE(1) |
                           C::WPTR_OVERFLOW_ENABLE(1) | C::ENABLE_INTR(1) | C::MC_SNOOP(1) |
                           C::RPTR_REARM(1) | C::MC_SPACE(2)));
    return {};
  });
}

std::vector<IhEntry> Ih::scan() {
  if (!ring_ || !wptr_ || !reader_) return {};
  // The GPU's writeback (no MMIO read), acquired: the entries before it are visible.
  const uint32_t w = load_acquire(reinterpret_cast<const volatile uint32_t*>(wptr_->host));
  auto r = reader_->read(w);
  if (!r) {
    // A write pointer the IH cannot produce: note it once, keep the ring as it was.
    if (!bad_wptr_) RG_LOG("amd", 0, "%s: %s", b_.dev.name().c_str(), r.error().message().c_str());
    bad_wptr_ = true;
    return {};
  }
  if (r->overflow) overflowed_ = true;  // entries were lost after these
  if (!r->entries.empty()) b_.wr(rptr_reg_, reader_->rptr_register());  // bytes (amd.md §7.3)
  return std::move(r->entries);
}

void Ih::fini() {
  // The ring is host memory this process frees: the IH must stop writing there first.
  if (cntl_ != 0) b_.wr(cntl_, 0);
  if (ring_) (void)b_.dev.dev_.free_dma(*ring_);
  if (wptr_) (void)b_.dev.dev_.free_dma(*wptr_);
  ring_.reset();
  wptr_.reset();
  reader_.reset();
}

// ---- SDMA --------------------------------------------------------------------------------------

void Sdma::set_halt(bool halt) {
  const uint32_t h = halt ? 1 : 0;
  if (b_.gc12()) {
    using M0 = gc12::SDMA0_MCU_CNTL;
    using M1 = gc12::SDMA1_MCU_CNTL;
    b_.wr(b_.dev.gc<M0>(), M0::update(b_.rd(b_.dev.gc<M0>()), M0::HALT(h)));
    b_.wr(b_.dev.gc<M1>(), M1::update(b_.rd(b_.dev.gc<M1>()), M1::HALT(h)));
  } else {
    using F0 = gc11::SDMA0_F32_CNTL;
    using F1 = gc11::SDMA1_F32_CNTL;
    b_.wr(b_.dev.gc<F0>(), F0::update(b_.rd(b_.dev.gc<F0>()), F0::HALT(h)));
    b_.wr(b_.dev.gc<F1>(), F1::update(b_.rd(b_.dev.gc<F1>()), F1::HALT(h)));
  }
}

Status Sdma::hw_init(bool) {
  return b_.step("SDMA", "engines unhalted", [&]() -> Status {
    set_halt(false);
    return {};
  });
}

// GRBM_SOFT_RESET.SOFT_RESET_SDMA0/1: set, read back (posts the write), hold 50 us, clear.
template <class GC>
void Sdma::pulse_soft_reset() {
  using R = typename GC::GRBM_SOFT_RESET;
  const uint32_t reg = b_.dev.gc<R>();
  b_.wr(reg, R::encode(R::SOFT_RESET_SDMA0(1) | R::SOFT_RESET_SDMA1(1)));
  (void)b_.rd(reg);
  b_.sleep(std::chrono::microseconds(50));
  b_.wr(reg, 0);
  (void)b_.rd(reg);
}

Status Sdma::reset_engines() {
  set_halt(true);
  if (b_.gc12())
    pulse_soft_reset<gc12>();
  else
    pulse_soft_reset<gc11>();
  set_halt(false);
  return {};
}

}  // namespace rawgpu::drivers::amd
