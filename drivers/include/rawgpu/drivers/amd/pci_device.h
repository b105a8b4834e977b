// drivers::amd::PciAmdDevice: the AMD device seam (device.h) implemented over a PCI function
// (drivers/pci/device.h), booted by this driver (the AM boot, boot.h) from whatever state it
// finds. Everything goes
// through the function's BARs, config space and DMA memory, so the same code drives a real board
// once it is booted:
//
//  * Open: enable memory decode and bus mastering, wait for the firmware, read the VRAM size,
//    resize BAR0 over all of VRAM when it is smaller (Resizable BAR), and identify the GPU from
//    its IP discovery table (discover.h): the GC version and register bases come from there,
//    never from the PCI id. Map BAR0/2/5. The top 64 MiB of VRAM (the firmware's: discovery
//    table, TMR) is never allocated.
//  * Memory: rawgpu's MemoryManager builds the page tables in VRAM through BAR0; VM context 0
//    is programmed through BAR5 (GCVM_CONTEXT0_*: base, start, end, then enable). Host buffers
//    are DMA memory of the function (IOMMU-mapped under VFIO) mapped at their bus addresses.
//  * Compute queues: an MQD (v11/v12_compute_mqd) in host memory and the HQD registers
//    programmed through BAR5 under GRBM_GFX_CNTL's me 1 / pipe / queue selection, CP_HQD_ACTIVE
//    last; doorbells are 64-bit writes into BAR2.
//  * Copy queues: SDMA engine 0 and 1, queue 0 (SDMAn_QUEUE0_* registers, RB_ENABLE last).
//  * Faults: the GCVM L2 protection-fault registers decoded, plus the interrupt ring's entries
//    (ih.h) scanned on poll and fault queries; a queue's stop is still detected through an
//    optional diagnostics hook (the simulator's) and the latched fault registers.
//  * recover(): the recovery ladder (queue reset, MEC reset, SDMA engine reset, mode-1 reset,
//    function reset).
//
//  * Page-table changes are followed by an HDP flush and a GC-hub TLB invalidation (flush_tlb);
//    the simulated GPU translates only through the tables as they were at the last
//    invalidation, so a forgotten flush is a VM fault there, as a stale TLB would be.
//
// Open boots the GPU first (boot.h): cold, warm or after a mode-1 reset, through the IP blocks
// SOC, GMC, IH, PSP, SMU, GFX and SDMA; the boot report says what it did.
//
// Not yet: small-BAR VRAM access for buffers (discovery reads through MM_INDEX/MM_DATA), the
// MM hub (no MM hub client is used), batching the flush per submission, MES.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rawgpu/base/poll.h"
#include "rawgpu/drivers/amd/boot.h"
#include "rawgpu/drivers/amd/device.h"
#include "rawgpu/drivers/amd/discovery.h"
#include "rawgpu/drivers/pci/device.h"
#include "rawgpu/memory/memory_manager.h"

namespace rawgpu::drivers::amd {

struct PciAmdOptions {
  // Device name (AmdDevice::name); empty: the function's name.
  std::string name;
  // The decoded reason a queue stopped, where the platform can say (the simulator's queue
  // state; on hardware the interrupt ring, decoded by the driver itself). Empty: healthy.
  std::function<std::string()> diagnostics;
  // The boot (boot.h): firmware directories, forced reset, progress.
  BootOptions boot;
};

class AmBoot;
class CountingMmio;

// One rung of the recovery ladder (PciAmdDevice::recover) and what came of it.
struct RecoveryRung {
  std::string name;  // "queue reset", "MEC reset", "mode-1 reset", "function reset"
  bool recovered = false;
  std::string detail;  // why the probe (or the rung itself) failed; empty when recovered
};

class PciAmdDevice final : public AmdDevice {
 public:
  // `dev` must outlive the device. Errors name the step: kUnsupported (an unknown GPU, a BAR0
  // that cannot cover VRAM), kHardware (a register read of all ones, no VRAM size), and the
  // function's own errors.
  static Result<std::unique_ptr<PciAmdDevice>> open(pci::PciDevice& dev,
                                                    const PciAmdOptions& options = {});
  ~PciAmdDevice() override;

  std::string name() const override { return name_; }
  uint32_t gc_version() const override { return gc_version_; }
  Result<DeviceBuffer> alloc(uint64_t size, BufferPlacement placement) override;
  Status free(const DeviceBuffer& buffer) override;
  Result<ComputeQueueDesc> create_compute_queue(uint64_t ring_bytes) override;
  Result<CopyQueueDesc> create_copy_queue(uint64_t ring_bytes) override;
  void ring_doorbell(uint32_t index, uint64_t value) override;
  void poll() override { dev_.poll(); }
  FaultState fault_state() const override;
  // Maps host memory owned elsewhere (another device's signal page, as a peer group shares
  // them; 4 KiB aligned, a multiple of 4 KiB, outliving the mapping) into this device's VA
  // space through the function's DMA map (pci::PciDevice::map_dma). free() unmaps it.
  Result<DeviceBuffer> map_external(uint8_t* host, uint64_t size);

  // Makes page-table writes visible to the GPU: an HDP flush (CPU writes through BAR0 reach
  // VRAM), then a GC-hub TLB invalidation of VMID 0 on engine 17 (GCVM_INVALIDATE_ENG17_REQ,
  // waiting for its ACK on the function's clock, 100 ms). alloc, map_external and free call it
  // after changing the tables; kTimeout naming the register when the GPU never acknowledges.
  Status flush_tlb();
  uint64_t vram_size() const { return vram_size_; }
  // The IP discovery table the device was identified from, and its LLVM target ("gfx1100").
  const Discovery& discovery() const { return discovery_; }
  const std::string& target() const { return target_; }
  memory::MemoryManager& memory_manager() { return *mm_; }
  pci::PciDevice& pci() { return dev_; }
  // What the boot at open did (kind, steps with their times and MMIO counts, firmware).
  const BootReport& boot_report() const { return boot_report_; }
  // The decoded interrupt-ring entries seen so far that report errors (VM faults, bad packets,
  // wave errors), oldest first (the first 64), and how many entries were seen in all.
  const std::vector<std::string>& interrupt_errors() const { return ih_errors_; }
  uint64_t interrupts() const { return ih_entries_; }
  // After a fault or a hang: walks the recovery ladder (queue reset, MEC reset, SDMA engine
  // reset, mode-1 reset, function reset), each rung only when the one before did not make the
  // probe queues (a compute queue, each SDMA engine) execute a packet within 100 ms. Every queue
  // is gone afterwards (create new ones); buffers and their mappings stay. The rungs tried, the
  // last one recovered; kHardware when none did.
  Result<std::vector<RecoveryRung>> recover();

 private:
  struct Allocation {
    std::optional<pci::DmaBuffer> dma;
    std::optional<memory::VirtMapping> vram;
    GpuVa va;
    uint64_t size = 0;
  };
  friend class AmBoot;
  friend class Gmc;
  friend class Gfx;
  friend class Ih;
  friend class Psp;
  friend class Smu;
  friend class Sdma;
  PciAmdDevice(pci::PciDevice& dev, PciAmdOptions options);
  // Reads new interrupt-ring entries and records the errors among them.
  void scan_interrupts() const;
  // Recovery (recover.cpp): dequeue every queue and clear the fault latch; a queue that must run.
  template <class GC>
  void drop_queues();
  Status probe();
  Status init();
  uint32_t rreg(uint32_t reg) const { return regs_->rd32(uint64_t{reg} * 4); }
  // The MMIO dword address of GC register R (bases from discovery); SDMA queue registers of
  // GC 11/12 are in the GC table and segments too.
  template <class R>
  uint32_t gc() const {
    static_assert(R::kInfo.base_idx < 2, "the driver checks GC segments 0 and 1 at open");
    return gc_bases_[R::kInfo.base_idx] + R::kInfo.offset;
  }
  template <class R0, class R1>
  uint32_t sdma(unsigned engine) const {
    return engine == 0 ? gc<R0>() : gc<R1>();
  }
  void wreg(uint32_t reg, uint32_t value) { regs_->wr32(uint64_t{reg} * 4, value); }
  template <class GC>
  void program_vm(uint64_t root, GpuVa start, uint64_t size);
  template <class GC, class Mqd>
  Status program_hqd(uint32_t slot, const DeviceBuffer& ring, const DeviceBuffer& ptrs,
                     const DeviceBuffer& mqd, uint32_t doorbell);
  template <class GC>
  void program_sdma(unsigned engine, const DeviceBuffer& ring, const DeviceBuffer& ptrs,
                    uint32_t doorbell);
  template <class GC>
  FaultState read_fault() const;
  template <class GC>
  Status invalidate_tlb(const PollOptions& po);
  Status flush_tlb_now();
  Status free_allocation(Allocation& a);
  // DMA memory mapped at a fresh VA through the system aperture (consumes `dma`: freed on error).
  Result<DeviceBuffer> map_host(pci::DmaBuffer dma);
  // Host buffers of these sizes, all or none (a failure frees the ones made). Queue memory
  // (rings, pointer pages, MQDs) lives until close, with every other allocation.
  Status alloc_all(std::initializer_list<uint64_t> sizes, std::vector<DeviceBuffer>& out);

  pci::PciDevice& dev_;
  PciAmdOptions options_;
  std::string name_;
  uint32_t gc_version_ = 0;
  std::string target_;
  Discovery discovery_;
  std::array<uint32_t, 16> gc_bases_{};
  uint32_t hdp_flush_req_ = 0, hdp_flush_done_ = 0;  // NBIO/NBIF, from discovery
  bool batch_flush_ = false;  // closing: flush_tlb() defers to one flush at the end
  uint64_t vram_size_ = 0;
  pci::Mmio* vram_bar_ = nullptr;
  pci::Mmio* doorbells_ = nullptr;
  pci::Mmio* regs_ = nullptr;
  std::unique_ptr<memory::PhysicalMemory> vram_;
  std::unique_ptr<memory::AddressAllocator<GpuVa>> va_;
  std::unique_ptr<memory::MemoryManager> mm_;
  std::map<uint64_t, Allocation> allocations_;  // by handle
  uint64_t next_handle_ = 1;
  uint32_t compute_queues_ = 0, copy_queues_ = 0;
  GpuVa va_base_;
  uint64_t va_size_ = 0;
  std::unique_ptr<CountingMmio> counted_;  // BAR5 with access counts (the boot report)
  std::unique_ptr<AmBoot> boot_;
  BootReport boot_report_;
  bool booted_ = false;  // the boot at open completed
  mutable std::vector<std::string> ih_errors_;
  mutable uint64_t ih_entries_ = 0;
  DeviceBuffer probe_buf_;  // the recovery probe's target
};

}  // namespace rawgpu::drivers::amd
