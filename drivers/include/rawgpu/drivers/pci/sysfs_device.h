// SysfsPciDevice: a PCI function reached through its sysfs files — `config`, `resourceN`
// (mmapped BARs), `resourceN_resize`, `enable`, `reset`, `remove` — without vfio-pci. The way
// tinygrad's AM driver runs; rawgpu's default is VFIO (vfio.h), because here:
//   - there is no interrupt (wait_irq is kUnsupported: drivers poll), and
//   - DMA gets no IOMMU protection: the device is given physical addresses (from
//     /proc/self/pagemap, root only) and can reach all host memory. alloc_dma therefore needs
//     SysfsDeviceOptions::allow_unprotected_dma, and the IOMMU must be off or in passthrough.
//
// open() takes the function over: the per-device lock (DeviceLock), a refusal while processes
// hold its DRM nodes, unbinding its kernel driver, removing its sibling functions (HDMI audio,
// which would otherwise keep the device's power state), and enabling it. Everything through
// pci::Sys, so tests run it against a fake sysfs tree.
#pragma once

#include <memory>

#include "rawgpu/drivers/pci/device.h"
#include "rawgpu/drivers/pci/takeover.h"

namespace rawgpu::pci {

struct SysfsDeviceOptions {
  SysfsOptions sysfs;
  Clock* clock = nullptr;  // nullptr: Clock::steady()
  bool allow_unprotected_dma = false;
  bool force = false;  // take the GPU even while processes hold it
};

class SysfsPciDevice final : public PciDevice {
 public:
  static Result<std::unique_ptr<SysfsPciDevice>> open(const Bdf& bdf,
                                                      const SysfsDeviceOptions& options);
  ~SysfsPciDevice() override;

  std::string name() const override;
  Result<uint32_t> cfg_read(uint32_t off, unsigned width) override;
  Status cfg_write(uint32_t off, unsigned width, uint32_t value) override;
  Result<BarInfo> bar(int index) override;
  Result<Mmio*> map_bar(int index) override;
  // Writes the size's index to resourceN_resize (the kernel reassigns the BAR). Needs no driver
  // bound and the BAR unmapped: its window is dropped first.
  Status resize_bar(int index, uint64_t size) override;
  Result<DmaBuffer> alloc_dma(uint64_t size) override;
  Status free_dma(const DmaBuffer& buffer) override;
  Status wait_irq(Nanos timeout) override;
  Status reset() override;
  Clock& clock() override;

  // The driver that was bound when open() took the device ("" for none).
  const std::string& previous_driver() const;

  struct State;

 private:
  explicit SysfsPciDevice(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace rawgpu::pci
