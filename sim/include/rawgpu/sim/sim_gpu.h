// A simulated AMD GPU with its driver loaded: the PCI function (sim::AmdPciFunction, bare
// hardware) and drivers::amd::PciAmdDevice over it, which puts page tables in VRAM through
// BAR0, programs the VM context, HQDs and SDMA queues through BAR5 and rings doorbells through
// BAR2, with host buffers in the function's DMA memory. This is the only way to get an
// AmdDevice on the simulator: the AmdDevice calls go to the driver, never into the simulator.
// hw() and the helpers below reach the simulated hardware (tests, benchmarks, fuzzers, and the
// runtime's simulated devices).
//
// Header-only so that the simulator library itself never depends on a driver: whoever pairs
// them (runtime/sim, tests, tools) compiles this.
#pragma once

#include <memory>
#include <string>

#include "rawgpu/drivers/amd/pci_device.h"
#include "rawgpu/sim/amd_pci.h"
#include "rawgpu/sim/firmware_images.h"

namespace rawgpu::sim {

// Driver options for a simulated function: its hardware's queue diagnostics and the simulated
// board's firmware package (firmware_images.h) as the firmware directory.
inline Result<drivers::amd::PciAmdOptions> sim_driver_options(AmdPciFunction& fn,
                                                              const std::string& name = {}) {
  drivers::amd::PciAmdOptions o;
  o.name = name;
  o.diagnostics = [hw = &fn.gpu()] { return hw->queue_errors(); };
  o.boot.firmware_dirs = {RG_TRY(sim_firmware_dir())};
  return o;
}

class SimGpu final : public drivers::amd::AmdDevice {
 public:
  // Powers the function on and opens the driver on it (kind and VRAM size from `config.gpu`).
  // `name`: the device name the driver reports (empty: the function's, "sim:gfx1100").
  static Result<std::unique_ptr<SimGpu>> create(const AmdPciConfig& config,
                                                const std::string& name = {}) {
    std::unique_ptr<SimGpu> g(new SimGpu());
    g->fn_ = RG_TRY(AmdPciFunction::create(config));
    // The driver boots the function and identifies the GPU from the discovery table it leaves
    // in VRAM.
    drivers::amd::PciAmdOptions o = RG_TRY(sim_driver_options(*g->fn_, name));
    g->dev_ = RG_TRY(drivers::amd::PciAmdDevice::open(*g->fn_, o));
    return g;
  }
  // A default function of GC version `gc_version` (110000 gfx1100, 120001 gfx1201).
  static Result<std::unique_ptr<SimGpu>> create(uint32_t gc_version = 110000) {
    AmdPciConfig c;
    c.gpu.gc_version = gc_version;
    return create(c);
  }
  // The simulated device `name` ("sim:gfx1100", "sim:gfx1201").
  static Result<std::unique_ptr<SimGpu>> create(std::string_view name) {
    AmdPciConfig c;
    c.gpu = RG_TRY(parse_sim_device(name));
    return create(c, std::string(name));
  }

  AmdGpu& hw() { return fn_->gpu(); }
  const AmdGpu& hw() const { return fn_->gpu(); }
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
  // A peer's host memory (e.g. its signal page) mapped into this device's VA space.
  Result<drivers::amd::DeviceBuffer> map_external(uint8_t* host, uint64_t size) {
    return dev_->map_external(host, size);
  }

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

}  // namespace rawgpu::sim
