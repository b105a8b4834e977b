#include "rawgpu/drivers/pci/device.h"

#include <cstring>

#include "rawgpu/base/format.h"

namespace rawgpu::pci {

void Mmio::check_access(uint64_t off, uint64_t n, uint64_t align) const {
  RG_CHECK(off % align == 0 && n <= size_ && off <= size_ - n,
           "MMIO access of %llu bytes at 0x%llx: outside the %llu-byte window or misaligned",
           static_cast<unsigned long long>(n), static_cast<unsigned long long>(off),
           static_cast<unsigned long long>(size_));
}

uint64_t Mmio::rd64(uint64_t off) {
  check_access(off, 8, 4);
  const uint64_t lo = rd32(off);
  return lo | (uint64_t{rd32(off + 4)} << 32);
}

void Mmio::wr64(uint64_t off, uint64_t value) {
  check_access(off, 8, 4);
  wr32(off, static_cast<uint32_t>(value));
  wr32(off + 4, static_cast<uint32_t>(value >> 32));
}

void Mmio::read(uint64_t off, std::span<uint8_t> out) {
  check_access(off, out.size(), 4);
  RG_CHECK(out.size() % 4 == 0, "MMIO bulk read of %zu bytes: not whole dwords", out.size());
  for (size_t i = 0; i < out.size(); i += 4) {
    const uint32_t v = rd32(off + i);
    std::memcpy(out.data() + i, &v, 4);
  }
}

void Mmio::write(uint64_t off, std::span<const uint8_t> data) {
  check_access(off, data.size(), 4);
  RG_CHECK(data.size() % 4 == 0, "MMIO bulk write of %zu bytes: not whole dwords", data.size());
  for (size_t i = 0; i < data.size(); i += 4) {
    uint32_t v;
    std::memcpy(&v, data.data() + i, 4);
    wr32(off + i, v);
  }
}

uint8_t* Mmio::direct(uint64_t, uint64_t) { return nullptr; }

Error fell_off_bus(std::string_view device, std::string_view what) {
  return std::move(
      make_error(Errc::kHardware,
                 "%.*s: %.*s read 0xffffffff: the device is not responding (fell off the bus, "
                 "powered down, or its link is stuck in a low-power state)",
                 static_cast<int>(device.size()), device.data(), static_cast<int>(what.size()),
                 what.data())
          .with_hint("check `lspci -vv` for the device and its link; disable ASPM on the path to "
                     "the root port (pcie_aspm=off) and reset the device"));
}

uint64_t DmaBuffer::contiguous_bus_addr() const {
  if (bus_pages.empty()) return 0;
  for (size_t i = 1; i < bus_pages.size(); ++i)
    if (bus_pages[i] != bus_pages[0] + i * kDmaPageSize) return 0;
  return bus_pages[0];
}

Status PciDevice::resize_bar(int index, uint64_t size) {
  return make_error(Errc::kUnsupported, "%s: resizing BAR%d to %s is not supported here",
                    name().c_str(), index, format_bytes(size).c_str());
}

Result<DmaBuffer> PciDevice::map_dma(uint8_t*, uint64_t size) {
  return std::move(make_error(Errc::kUnsupported,
                              "%s: mapping %s of memory it did not allocate for DMA is not "
                              "supported here",
                              name().c_str(), format_bytes(size).c_str())
                       .with_hint("allocate the memory with alloc_dma on this device"));
}

}  // namespace rawgpu::pci
