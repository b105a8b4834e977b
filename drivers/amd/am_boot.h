// The AM boot's internals (boot.h is the public face): the boot context every IP block works
// through, and the blocks. Private to drivers/amd: PciAmdDevice owns one AmBoot, which reaches
// the device's BARs, discovery, memory manager and GC register bases as its friend.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/base/poll.h"
#include "rawgpu/drivers/amd/boot.h"
#include "rawgpu/drivers/amd/discovery.h"
#include "rawgpu/drivers/amd/firmware.h"
#include "rawgpu/drivers/amd/ih.h"
#include "rawgpu/drivers/pci/device.h"

namespace rawgpu::drivers::amd {

class PciAmdDevice;
class AmBoot;

// A result's success or error, its value dropped.
template <class T>
Status as_status(Result<T> r) {
  if (!r) return std::move(r).take_error();
  return {};
}

// The register BAR as the boot and the device use it: counts accesses (the boot report's MMIO
// counts) and reaches registers beyond the BAR (MP1 of MP 14.0.x sits at dword 0xDC0000, past a
// 1 MiB BAR5) through the NBIO's BIF_BX_PF0_RSMU_INDEX (byte address) / _DATA pair, as amdgpu's
// indirect path does.
class CountingMmio final : public pci::Mmio {
 public:
  explicit CountingMmio(pci::Mmio& inner) : Mmio(uint64_t{1} << 34), inner_(inner) {}
  // Dword addresses of the index/data pair (from discovery); 0: no indirect path.
  void set_indirect(uint32_t index_reg, uint32_t data_reg) {
    index_ = uint64_t{index_reg} * 4;
    data_ = uint64_t{data_reg} * 4;
  }
  uint32_t rd32(uint64_t off) override {
    ++reads;
    if (off + 4 <= inner_.size()) return inner_.rd32(off);
    if (data_ == 0) return 0xffffffffu;
    ++writes;
    inner_.wr32(index_, static_cast<uint32_t>(off));
    return inner_.rd32(data_);
  }
  void wr32(uint64_t off, uint32_t v) override {
    ++writes;
    if (off + 4 <= inner_.size()) return inner_.wr32(off, v);
    if (data_ == 0) return;
    ++writes;
    inner_.wr32(index_, static_cast<uint32_t>(off));
    inner_.wr32(data_, v);
  }
  uint64_t reads = 0, writes = 0;

 private:
  pci::Mmio& inner_;
  uint64_t index_ = 0, data_ = 0;
};

// One IP block: software init (boot allocations, in the fixed order the blocks are walked in:
// the layout kBootLayoutVersion stands for), hardware init, fini at close.
class AmIp {
 public:
  explicit AmIp(AmBoot& boot) : b_(boot) {}
  virtual ~AmIp() = default;
  AmIp(const AmIp&) = delete;
  AmIp& operator=(const AmIp&) = delete;
  virtual const char* name() const = 0;
  virtual Status sw_init() { return {}; }
  // `warm`: a previous boot's state is valid (the block may skip what it finds done).
  virtual Status hw_init(bool warm) = 0;
  virtual void fini() {}

 protected:
  AmBoot& b_;
};

class AmBoot {
 public:
  AmBoot(PciAmdDevice& dev, BootOptions options);
  ~AmBoot();
  // The whole boot: software init, the warm check, cold (with a mode-1 reset first when the
  // firmware runs) or warm hardware init, the stamp. `report` is filled as steps complete, also
  // when one fails.
  Status run(BootReport& report);
  // At close: IP fini in reverse order and SCRATCH_REG6 = `error_state` (0: clean).
  void fini(uint32_t error_state);
  // Recovery: a mode-1 reset through the SMU, then every block's cold hardware init again
  // (the boot allocations and page tables stay where they are).
  Status reboot_after_mode1(BootReport& report);

  // ---- services for the IP blocks ----
  PciAmdDevice& dev;
  const BootOptions options;
  uint32_t rd(uint32_t reg);
  void wr(uint32_t reg, uint32_t value);
  // Register R of IP block `hw_id` (instance 0) at its discovery base.
  template <class R>
  Result<uint32_t> reg(uint16_t hw_id) const {
    const IpBlock* ip = RG_TRY(discovery().require(hw_id));
    return ip->reg<R>();
  }
  const Discovery& discovery() const;
  const IpBlock& ip(uint16_t hw_id) const;  // must exist (checked in the software init)
  Clock& clock();
  // Polls reg until (value & mask) == want, on the function's clock; kTimeout naming the
  // register, what it waited for and what it read, with `hint`.
  Status wait_reg(const char* what, uint32_t reg, uint32_t mask, uint32_t want, Nanos timeout,
                  const char* hint);
  void sleep(Nanos d);
  // A step of the report: runs `fn`, timing it and counting its MMIO accesses.
  Status step(const char* block, std::string name, const std::function<Status()>& fn);
  void skipped(const char* block, std::string name);
  // Boot-pool VRAM (deterministic addresses: the same on every boot of this layout). Staging
  // buffers and the TMR are not zeroed (`zero` false): 22 MiB of page faults per boot otherwise.
  Result<VramAddr> boot_alloc(uint64_t bytes, uint64_t align, bool zero = true);
  uint8_t* vram(VramAddr a);
  uint64_t mc(VramAddr a) const { return fb_base + a.raw(); }
  // HDP flush: CPU writes through BAR0 reach VRAM before the GPU reads them.
  Status hdp_flush();
  uint32_t gc_version() const;
  bool gc12() const { return gc_version() >= 120000; }

  uint64_t fb_base = 0;  // MMMC_VM_FB_LOCATION_BASE << 24 (GMC)
  FirmwareSet firmware;  // loaded for cold boots
  BootReport* report = nullptr;
  CountingMmio* counter = nullptr;
  std::vector<std::unique_ptr<AmIp>> blocks;  // walk order
  class Psp* psp = nullptr;
  class Smu* smu = nullptr;
  class Gfx* gfx = nullptr;
  class Ih* ih = nullptr;
  class Sdma* sdma = nullptr;

 private:
  Status load_firmware();
  Status bring_up(bool warm);  // every block's hardware init, then the stamp
  Status warm_check(std::string& why);
  Status health_probe(std::string& why);
};

// ---- the blocks (am_psp.cpp, am_smu.cpp, am_gfx.cpp, am_boot.cpp) ----

class Soc final : public AmIp {
 public:
  using AmIp::AmIp;
  const char* name() const override { return "SOC"; }
  Status hw_init(bool warm) override;
};

class Gmc final : public AmIp {
 public:
  using AmIp::AmIp;
  const char* name() const override { return "GMC"; }
  Status hw_init(bool warm) override;
};

// The interrupt ring: 256 KiB of host DMA memory (MC_SPACE 2, bus addresses) with a write-
// pointer writeback word; scanned by PciAmdDevice on poll and fault queries.
class Ih final : public AmIp {
 public:
  using AmIp::AmIp;
  ~Ih() override;
  const char* name() const override { return "IH"; }
  Status hw_init(bool warm) override;
  void fini() override;
  // New entries since the last scan (8 dwords each), the read pointer written back.
  std::vector<IhEntry> scan();
  bool overflowed() const { return overflowed_; }

 private:
  std::optional<pci::DmaBuffer> ring_, wptr_;
  std::optional<IhRing> reader_;
  bool bad_wptr_ = false;
  uint32_t cntl_ = 0, base_ = 0, base_hi_ = 0, rptr_reg_ = 0, wptr_reg_ = 0, wptr_lo_ = 0,
           wptr_hi_ = 0;
  bool overflowed_ = false;
};

class Psp final : public AmIp {
 public:
  using AmIp::AmIp;
  const char* name() const override { return "PSP"; }
  Status sw_init() override;
  Status hw_init(bool warm) override;
  bool sos_alive();
  // One KM-ring command: the 1 KiB command buffer is filled by `fill` after the header; the
  // response's status must be 0. Returns the response's tmr_size.
  Result<uint32_t> command(uint32_t cmd_id, const char* what,
                           const std::function<void(uint8_t* cmd)>& fill);

 private:
  Status bootloader(const FirmwareBlob& blob);
  Status ring_create();
  Status load_ip_fw(const FirmwareBlob& blob);
  uint32_t r35_ = 0, r36_ = 0, r64_ = 0, r67_ = 0, r69_ = 0, r70_ = 0, r71_ = 0, r81_ = 0;
  VramAddr ring_, msg1_, cmd_, fence_, fw_, tmr_;
  uint32_t wptr_ = 0, fence_value_ = 0;
};

class Smu final : public AmIp {
 public:
  using AmIp::AmIp;
  const char* name() const override { return "SMU"; }
  Status sw_init() override;
  Status hw_init(bool warm) override;
  // One mailbox message: resp cleared, argument, message, response polled; any response other
  // than 1 (OK) is an error naming it, silence a kTimeout. Returns the argument register after.
  Result<uint32_t> message(uint32_t msg, uint32_t arg, const char* what, Nanos timeout);
  bool alive();  // GetSmuVersion answers within 100 ms
  Status mode1_reset();

 private:
  uint32_t msg_ = 0, arg_ = 0, resp_ = 0, dbg_msg_ = 0, dbg_arg_ = 0, dbg_resp_ = 0;
  bool debug_mode1_ = false;
  VramAddr table_;
};

class Gfx final : public AmIp {
 public:
  using AmIp::AmIp;
  const char* name() const override { return "GFX"; }
  Status hw_init(bool warm) override;
  // Dequeue every HQD, soft-reset the CP (GC < 12), configure and enable the MEC again.
  Status reset_mec();

 private:
  template <class GC>
  Status init(bool warm);
  template <class GC>
  Status configure_mec();
  template <class GC>
  Status enable_mec();
  template <class GC>
  Status reset_mec_t();
};

class Sdma final : public AmIp {
 public:
  using AmIp::AmIp;
  const char* name() const override { return "SDMA"; }
  Status hw_init(bool warm) override;
  // The recovery ladder's SDMA rung: both engines halted, GRBM_SOFT_RESET.SOFT_RESET_SDMA0/1
  // pulsed, then unhalted (their queues are gone; the rings are programmed again on create).
  Status reset_engines();

 private:
  void set_halt(bool halt);
  template <class GC>
  void pulse_soft_reset();
};

}  // namespace rawgpu::drivers::amd
