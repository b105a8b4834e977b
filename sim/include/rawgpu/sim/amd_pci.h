// The simulated AMD GPU as a PCI function: what a driver sees of a Navi31 (1002:744c, gfx1100)
// or Navi48 (1002:7550, gfx1201) board through pci::PciDevice, the same interface VFIO and
// sysfs give on a real machine.
//
//  * Configuration space (4 KiB): the real vendor/device ids and class, BAR registers that
//    answer the write-ones sizing protocol, and the capability lists a driver walks: power
//    management, PCI Express (16 GT/s x16 endpoint, ASPM off), MSI; extended: a vendor-specific
//    header and Resizable BAR for BAR0. Writable fields are the command register, the BARs,
//    the interrupt line, MSI control/address/data, PCIe device/link control and the Resizable
//    BAR control (a size change resizes BAR0); everything else ignores writes.
//  * BAR0 (64-bit prefetchable): the VRAM aperture, 256 MiB at power-on, resizable up to the
//    VRAM size rounded up to a power of two; direct() pointers into the flat VRAM.
//  * BAR2 (64-bit prefetchable, 2 MiB): doorbells; a write at byte 8i rings doorbell i.
//  * BAR4: 256 bytes of I/O space (not mappable, as on the real boards).
//  * BAR5 (32-bit, 1 MiB): the register file; dword offset = register address. Untouched
//    registers read 0; never direct.
//  * DMA: alloc_dma() pages enter the GPU's IOVA map (bus addresses from 0x1_0000_0000); a GPU
//    access to any other bus address, or with Bus Master Enable off in the command register,
//    is a recorded DmaFault (AmdGpu::dma_faults) and a VM fault, never a host access.
//  * With Memory Space Enable off, BAR reads return all ones and writes are dropped, as a
//    function that does not decode its BARs behaves.
//  * A virtual clock: poll() advances it one 1 us quantum and lets the GPU run; waits on it are
//    deterministic and instant.
//  * MSI: raise_irq() (the interrupt source of later IP models) is delivered only while MSI is
//    enabled in config space; wait_irq() takes one pending interrupt.
//  * A trace of config, register, doorbell, DMA-map and reset accesses with upstream register
//    names (when enabled).
//
// Unconfirmed against a real board: the BAR5 size on Navi48, the values of the capability
// registers other than ids, link and Resizable BAR, and what doorbell reads return (0 here).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rawgpu/drivers/amd/registers.h"
#include "rawgpu/drivers/pci/device.h"
#include "rawgpu/sim/amd_gpu.h"
#include "rawgpu/sim/fault_plan.h"

namespace rawgpu::sim {

struct AmdPciConfig {
  AmdGpuConfig gpu;                   // profile (gc_version), VRAM size, threading
  uint64_t bar0_size = 256ull << 20;  // the VRAM aperture at power-on (a power of two, >= 256 MiB)
  bool trace = false;                 // record accesses (trace())
  // Fault-plan rules from RAWGPU_SIM_FAULTS (parse_fault_rules syntax; a malformed value makes
  // create() fail with the reason). Tests that build their own plan turn it off.
  bool faults_from_env = true;
};

// Config-space layout of the simulated function (offsets of the capabilities).
struct AmdPciLayout {
  static constexpr uint16_t kPm = 0x50;
  static constexpr uint16_t kPcie = 0x64;
  static constexpr uint16_t kMsi = 0xA0;
  static constexpr uint16_t kVendorExt = 0x100;
  static constexpr uint16_t kRebar = 0x200;
};

class AmdPciFunction final : public pci::PciDevice {
 public:
  static Result<std::unique_ptr<AmdPciFunction>> create(const AmdPciConfig& config = {});
  ~AmdPciFunction() override;

  std::string name() const override;  // "sim:gfx1100"
  Result<uint32_t> cfg_read(uint32_t off, unsigned width) override;
  Status cfg_write(uint32_t off, unsigned width, uint32_t value) override;
  Result<pci::BarInfo> bar(int index) override;
  Result<pci::Mmio*> map_bar(int index) override;
  Status resize_bar(int index, uint64_t size) override;
  Result<pci::DmaBuffer> alloc_dma(uint64_t size) override;
  // The caller's memory enters the IOVA map (a peer's signal page); free_dma leaves it alone.
  Result<pci::DmaBuffer> map_dma(uint8_t* host, uint64_t size) override;
  Status free_dma(const pci::DmaBuffer& buffer) override;
  Status wait_irq(Nanos timeout) override;
  Status reset() override;
  void poll() override;
  Clock& clock() override { return clock_; }

  // The simulated hardware behind the function (tests, tools and fault injection; the AM
  // driver itself reaches it only through the PCI function).
  AmdGpu& gpu() { return *gpu_; }
  // Raises MSI vector 0: pending until a wait_irq() takes it; lost while MSI is disabled.
  void raise_irq();
  uint64_t pending_irqs() const { return pending_irqs_; }
  // One line per access, in order: "cfg wr16 0x004 = 0x0006", "BAR5 rd32 0x0056c0
  // GCVM_L2_PROTECTION_FAULT_STATUS -> 0x00000000", "BAR2 wr64 0x000018 doorbell 3 = 0x40",
  // "dma map 0x100000000 +0x2000", "function reset".
  const std::vector<std::string>& trace() const { return trace_; }
  void clear_trace() { trace_.clear(); }
  bool tracing() const { return config_.trace; }
  void note(std::string line) {
    if (config_.trace) trace_.push_back(std::move(line));
  }
  // The fault plan (fault_plan.h) of the function and its GPU: rules apply in the order added
  // (the first that fires wins), armed against this function's virtual clock.
  void add_fault(const FaultRule& rule) { plan_.add(rule); }
  void clear_faults() { plan_.clear(); }
  // How many accesses fault rules have changed so far, and what they did.
  uint64_t faults_fired() const { return plan_.fired(); }
  std::vector<std::string> fault_log() const { return plan_.log(); }
  // Whether the command register decodes memory (BAR accesses) / allows bus mastering (DMA).
  bool memory_enabled() const;
  bool bus_master() const;

 private:
  class VirtualClock final : public Clock {
   public:
    explicit VirtualClock(AmdPciFunction& f) : f_(f) {}
    Nanos now() override { return Nanos(now_.load(std::memory_order_acquire)); }
    void sleep_for(Nanos d) override;
    void advance(Nanos d) { now_.fetch_add(d.count(), std::memory_order_acq_rel); }

   private:
    AmdPciFunction& f_;
    std::atomic<int64_t> now_{0};  // ns; read by the fault plan from the GPU's device thread
  };
  class VramWindow;
  class DoorbellWindow;
  class RegisterWindow;

  explicit AmdPciFunction(const AmdPciConfig& config);
  // The first rule that fires for this access, or nullptr (counts the access for every rule
  // that matches it). The pointer is valid until the next call (host-side accesses only).
  const FaultRule* fault_for(FaultRule::Trigger trigger, uint32_t target);
  void build_config_space();
  uint64_t bar_size(int index) const;
  uint16_t cfg16(uint32_t off) const;
  uint32_t cfg32(uint32_t off) const;
  void put16(uint32_t off, uint16_t v);
  void put32(uint32_t off, uint32_t v);
  Status write_bar_register(int index, uint32_t value);
  Status set_bar0_size(uint64_t size);

  AmdPciConfig config_;
  std::unique_ptr<AmdGpu> gpu_;
  drivers::amd::Discovery discovery_;  // parsed for trace names (when tracing)
  std::unique_ptr<drivers::amd::RegisterMap> names_;
  std::vector<uint8_t> cfg_;  // 4096 bytes
  uint64_t bar0_size_ = 0;
  uint64_t bar0_max_ = 0;
  std::unique_ptr<pci::Mmio> windows_[6];
  std::vector<std::unique_ptr<pci::Mmio>> retired_;  // windows invalidated by a resize
  struct Dma {
    std::unique_ptr<uint8_t[]> storage;  // null for map_dma (the caller's memory)
    uint64_t bus = 0;
  };
  std::map<uintptr_t, Dma> dma_;  // by host address of the buffer's first page
  // Enters [host, host + bytes) into the GPU's IOVA map and dma_ (traced "dma map ...").
  Result<pci::DmaBuffer> enter_dma(uint8_t* host, uint64_t bytes, Dma d, const char* note_suffix);
  uint64_t pending_irqs_ = 0;
  VirtualClock clock_{*this};
  std::vector<std::string> trace_;
  FaultPlan plan_{&clock_};
  FaultRule fired_;  // fault_for's last firing
};

}  // namespace rawgpu::sim
