// Physical addresses of host pages from /proc/self/pagemap, for DMA without an IOMMU (VFIO's
// no-IOMMU mode, sysfs access): the device is then handed physical addresses, which only root
// can read (the PFN field reads 0 otherwise).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/drivers/pci/sys.h"

namespace rawgpu::pci {

class Pagemap {
 public:
  explicit Pagemap(Sys& sys) : sys_(&sys) {}
  ~Pagemap();
  Pagemap(const Pagemap&) = delete;
  Pagemap& operator=(const Pagemap&) = delete;
  // The physical address of each 4 KiB page of [host, host + size). The pages must be resident
  // (touched) and locked. kPermission without root, kIo for read failures. `who` starts errors.
  Result<std::vector<uint64_t>> physical_pages(const std::string& who, const uint8_t* host,
                                               uint64_t size);

 private:
  Sys* sys_;
  int fd_ = -1;
};

}  // namespace rawgpu::pci
