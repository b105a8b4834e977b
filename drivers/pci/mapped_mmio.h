// An mmapped BAR (vfio region or sysfs resourceN) as an Mmio window; munmaps on destruction.
#pragma once

#include <cstring>

#include "rawgpu/drivers/pci/device.h"
#include "rawgpu/drivers/pci/sys.h"

namespace rawgpu::pci {

// One mmapped BAR. Register BARs are accessed through volatile pointers (one bus access each);
// prefetchable BARs (VRAM) also hand out direct pointers.
class MappedMmio final : public Mmio {
 public:
  MappedMmio(Sys& sys, uint8_t* base, uint64_t size, bool prefetchable)
      : Mmio(size), sys_(&sys), base_(base), prefetchable_(prefetchable) {}
  ~MappedMmio() override { sys_->munmap(base_, size()); }
  uint32_t rd32(uint64_t off) override {
    check_access(off, 4, 4);
    return *reinterpret_cast<volatile uint32_t*>(base_ + off);
  }
  void wr32(uint64_t off, uint32_t v) override {
    check_access(off, 4, 4);
    *reinterpret_cast<volatile uint32_t*>(base_ + off) = v;
  }
  uint64_t rd64(uint64_t off) override {
    check_access(off, 8, 8);
    return *reinterpret_cast<volatile uint64_t*>(base_ + off);
  }
  void wr64(uint64_t off, uint64_t v) override {
    check_access(off, 8, 8);
    *reinterpret_cast<volatile uint64_t*>(base_ + off) = v;
  }
  void read(uint64_t off, std::span<uint8_t> out) override {
    if (!prefetchable_) return Mmio::read(off, out);
    check_access(off, out.size(), 4);
    std::memcpy(out.data(), base_ + off, out.size());
  }
  void write(uint64_t off, std::span<const uint8_t> data) override {
    if (!prefetchable_) return Mmio::write(off, data);
    check_access(off, data.size(), 4);
    std::memcpy(base_ + off, data.data(), data.size());
  }
  uint8_t* direct(uint64_t off, uint64_t n) override {
    if (!prefetchable_) return nullptr;
    check_access(off, n, 1);
    return base_ + off;
  }

 private:
  Sys* sys_;
  uint8_t* base_;
  bool prefetchable_;
};

}  // namespace rawgpu::pci
