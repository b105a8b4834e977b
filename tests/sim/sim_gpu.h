// The simulated GPU as a driver sees it, for tests: the PCI function in bare mode
// (sim::AmdPciFunction) with drivers::amd::PciAmdDevice over it — page tables through BAR0, VM
// context / HQD / SDMA queues through BAR5, doorbells through BAR2, DMA memory. AmdDevice calls
// go to the driver; hw() and the helpers below reach the simulated hardware.
#pragma once

#include <memory>
#include <string>

#include "rawgpu/drivers/amd/pci_device.h"
#include "rawgpu/sim/amd_pci.h"

namespace rawgpu::sim::testing {

class SimGpu final : public drivers::amd::AmdDevice {
 public:
  static Result<std::unique_ptr<SimGpu>> create(uint32_t gc_version) {
    std::unique_ptr<SimGpu> g(new SimGpu());
    AmdPciConfig c;
    c.gpu.gc_version = gc_version;
    c.gpu.host_managed = false;
    g->fn_ = RG_TRY(AmdPciFunction::create(c));
    drivers::amd::PciAmdOptions o;
    o.diagnostics = [hw = &g->fn_->gpu()] { return hw->queue_errors(); };
    g->dev_ = RG_TRY(drivers::amd::PciAmdDevice::open(*g->fn_, o));
    return g;
  }
  AmdGpu& hw() { return fn_->gpu(); }
  AmdPciFunction& function() { return *fn_; }
  drivers::amd::PciAmdDevice& driver() { return *dev_; }
  uint32_t read_reg(uint32_t reg) const { return fn_->gpu().read_reg(reg); }
  void write_reg(uint32_t reg, uint32_t value) { fn_->gpu().write_reg(reg, value); }
  QueueStatus queue_status(uint32_t id) const { return fn_->gpu().queue_status(id); }
  QueueStatus copy_queue_status(uint32_t id) const { return fn_->gpu().copy_queue_status(id); }
  Result<uint32_t> read32(GpuVa va) { return fn_->gpu().read32(va); }
  Status write32(GpuVa va, uint32_t v) { return fn_->gpu().write32(va, v); }
  bool threaded() const { return fn_->gpu().threaded(); }
  memory::MemoryManager& memory_manager() { return dev_->memory_manager(); }
  void set_executor(DispatchExecutor* e) { fn_->gpu().set_executor(e); }

  std::string name() const override { return dev_->name(); }
  uint32_t gc_version() const override { return dev_->gc_version(); }
  Result<drivers::amd::DeviceBuffer> alloc(uint64_t size,
                                           drivers::amd::BufferPlacement placement) override {
    return dev_->alloc(size, placement);
  }
  Status free(const drivers::amd::DeviceBuffer& b) override { return dev_->free(b); }
  Result<drivers::amd::ComputeQueueDesc> create_compute_queue(uint64_t ring_bytes) override {
    return dev_->create_compute_queue(ring_bytes);
  }
  Result<drivers::amd::CopyQueueDesc> create_copy_queue(uint64_t ring_bytes) override {
    return dev_->create_copy_queue(ring_bytes);
  }
  void ring_doorbell(uint32_t index, uint64_t value) override { dev_->ring_doorbell(index, value); }
  void poll() override { dev_->poll(); }
  drivers::amd::FaultState fault_state() const override { return dev_->fault_state(); }

 private:
  SimGpu() = default;
  std::unique_ptr<AmdPciFunction> fn_;               // outlives the driver
  std::unique_ptr<drivers::amd::PciAmdDevice> dev_;  // destroyed first
};

}  // namespace rawgpu::sim::testing
