#include "pagemap.h"

#include <fcntl.h>

#include <cstring>

#include "rawgpu/drivers/pci/device.h"

namespace rawgpu::pci {

Pagemap::~Pagemap() {
  if (fd_ >= 0) sys_->close(fd_);
}

Result<std::vector<uint64_t>> Pagemap::physical_pages(const std::string& who, const uint8_t* host,
                                                      uint64_t size) {
  if (fd_ < 0) {
    const int fd = sys_->open("/proc/self/pagemap", O_RDONLY);
    if (fd < 0)
      return make_error(Errc::kIo, "%s: opening /proc/self/pagemap: %s", who.c_str(),
                        std::strerror(-fd));
    fd_ = fd;
  }
  const uint64_t pages = size / kDmaPageSize;
  std::vector<uint64_t> entries(pages), out(pages);
  const off_t at = static_cast<off_t>(reinterpret_cast<uintptr_t>(host) / kDmaPageSize * 8);
  const ssize_t n = sys_->pread(fd_, entries.data(), pages * 8, at);
  if (n < 0)
    return make_error(Errc::kIo, "%s: reading /proc/self/pagemap: %s", who.c_str(),
                      std::strerror(static_cast<int>(-n)));
  if (static_cast<uint64_t>(n) != pages * 8)
    return make_error(Errc::kIo, "%s: short read of /proc/self/pagemap", who.c_str());
  for (uint64_t i = 0; i < pages; ++i) {
    const uint64_t pfn = entries[i] & ((uint64_t{1} << 55) - 1);
    if (!(entries[i] >> 63) || pfn == 0)
      return std::move(make_error(Errc::kPermission,
                                  "%s: /proc/self/pagemap gives no physical address for a DMA page",
                                  who.c_str())
                           .with_hint("DMA without an IOMMU needs CAP_SYS_ADMIN (run as root)"));
    out[i] = pfn * kDmaPageSize;
  }
  return out;
}

}  // namespace rawgpu::pci
