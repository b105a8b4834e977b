// VfioPciDevice: a PCI function owned through vfio-pci (the default real back end).
//
// open() does what a VFIO user must, in the kernel's order: a container (/dev/vfio/vfio, API
// version, the type1v2 IOMMU extension), the function's IOMMU group (/dev/vfio/N; viable only
// when every device in it is bound to vfio-pci or no driver — the error names the others),
// group → container, the IOMMU type, the usable IOVA ranges (VFIO_IOMMU_GET_INFO capability
// chain), the device fd, its regions (config space, BAR0..5) and, when asked, MSI through an
// eventfd. DMA memory is pinned host pages mapped at IOVAs from a TLSF over the usable range,
// one VFIO_IOMMU_MAP_DMA per buffer. Destruction unwinds everything: IRQs off, DMA unmapped,
// BARs unmapped, fds closed — also when open() fails midway.
//
// No-IOMMU mode (vfio's enable_unsafe_noiommu_mode, /dev/vfio/noiommu-N, physical addresses
// from /proc/self/pagemap) only when VfioOptions::allow_no_iommu is set (the CLI's --no-iommu or
// RAWGPU_VFIO_NOIOMMU=1), with a warning: DMA is then unprotected (the device can write
// anywhere in host memory).
//
// All OS access goes through pci::Sys (sys.h): tests run this code against a fake kernel.
#pragma once

#include <memory>
#include <string>

#include "rawgpu/drivers/pci/device.h"
#include "rawgpu/drivers/pci/device_info.h"
#include "rawgpu/drivers/pci/sys.h"

namespace rawgpu::pci {

struct VfioOptions {
  Sys* sys = nullptr;               // nullptr: Sys::os()
  Clock* clock = nullptr;           // nullptr: Clock::steady()
  std::string sysfs_root = "/sys";  // for the IOMMU group and its members
  std::string dev_root = "/dev";    // for /dev/vfio
  bool interrupts = true;           // MSI vector 0 through an eventfd
  bool allow_no_iommu = false;      // see above; off by default
  // IOVA space for DMA: the first usable range the IOMMU reports at or above this address.
  uint64_t iova_base = uint64_t{1} << 32;
};

class VfioPciDevice final : public PciDevice {
 public:
  // Errors name the device and the step, with what to do: kNotFound (no such function, no
  // /dev/vfio), kPermission (not root / no access to the group, group not viable), kBusy (the
  // group or device is open elsewhere, bound to another driver), kUnsupported (no type1v2
  // IOMMU and no-IOMMU not allowed), kIo with the OS's reason otherwise.
  static Result<std::unique_ptr<VfioPciDevice>> open(const Bdf& bdf, const VfioOptions& options);
  ~VfioPciDevice() override;

  std::string name() const override;
  Result<uint32_t> cfg_read(uint32_t off, unsigned width) override;
  Status cfg_write(uint32_t off, unsigned width, uint32_t value) override;
  Result<BarInfo> bar(int index) override;
  Result<Mmio*> map_bar(int index) override;
  Result<DmaBuffer> alloc_dma(uint64_t size) override;
  // IOMMU mode only (one MAP_DMA ioctl); no-IOMMU mode refuses (kUnsupported).
  Result<DmaBuffer> map_dma(uint8_t* host, uint64_t size) override;
  Status free_dma(const DmaBuffer& buffer) override;
  Status wait_irq(Nanos timeout) override;
  Status reset() override;
  Clock& clock() override;

  bool no_iommu() const;
  // IOMMU map/unmap ioctls issued so far (a DMA buffer costs one of each, whatever its size).
  uint64_t dma_ioctls() const;

  struct State;

 private:
  explicit VfioPciDevice(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace rawgpu::pci
