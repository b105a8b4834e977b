// Strong address types.
//
// A GPU driver juggles several address spaces that are all "a 64-bit number": offsets into VRAM,
// addresses the GPU's memory controller / the PCIe bus uses (MC addresses, IOVAs, DMA
// addresses), GPU virtual addresses, and CPU pointers. Mixing them is a classic source of bugs
// that only show up as GPU page faults. Each space gets its own type here; converting between
// them is always explicit (raw() out, explicit constructor in), and arithmetic is limited to
// what makes sense: address + size, address - address (same space) = size.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <string>

#include "rawgpu/base/bits.h"
#include "rawgpu/base/error.h"
#include "rawgpu/base/format.h"

namespace rawgpu {

template <class Space>
class Address {
 public:
  constexpr Address() = default;
  constexpr explicit Address(uint64_t raw) : raw_(raw) {}

  constexpr uint64_t raw() const { return raw_; }
  constexpr bool is_null() const { return raw_ == 0; }

  // Offsets and sizes are plain integers. Unchecked (wraps like the hardware would); use
  // checked_add where the inputs are untrusted.
  constexpr Address operator+(uint64_t offset) const { return Address(raw_ + offset); }
  constexpr Address operator-(uint64_t offset) const { return Address(raw_ - offset); }
  constexpr Address& operator+=(uint64_t offset) {
    raw_ += offset;
    return *this;
  }
  constexpr Address& operator-=(uint64_t offset) {
    raw_ -= offset;
    return *this;
  }
  // Distance between two addresses of the same space.
  constexpr uint64_t operator-(Address other) const { return raw_ - other.raw_; }

  constexpr auto operator<=>(const Address&) const = default;

  constexpr bool is_aligned(uint64_t align) const { return rawgpu::is_aligned(raw_, align); }
  constexpr Address align_down(uint64_t align) const {
    return Address(align_down_pow2(raw_, align));
  }
  Result<Address> align_up(uint64_t align) const {
    return Address(RG_TRY(rawgpu::align_up(raw_, align)));
  }
  Result<Address> checked_add(uint64_t offset) const {
    return Address(RG_TRY(rawgpu::checked_add(raw_, offset).context([&] {
      return strformat("%s %s + 0x%llx", Space::kName, hex(raw_).c_str(),
                       static_cast<unsigned long long>(offset));
    })));
  }

  static constexpr const char* space_name() { return Space::kName; }
  std::string to_string() const { return std::string(Space::kName) + ":" + hex(raw_); }

 private:
  uint64_t raw_ = 0;
};

namespace space {
struct Vram {
  static constexpr const char* kName = "vram";  // physical offset into the GPU's local memory
};
struct Bus {
  static constexpr const char* kName = "bus";  // MC / PCIe bus / IOMMU (DMA) address
};
struct GpuVirtual {
  static constexpr const char* kName = "gpuva";  // GPU virtual address (through GPU page tables)
};
struct Cpu {
  static constexpr const char* kName = "cpu";  // CPU virtual address in this process
};
}  // namespace space

using VramAddr = Address<space::Vram>;
using BusAddr = Address<space::Bus>;
using GpuVa = Address<space::GpuVirtual>;

// A CPU pointer as an address (e.g. a mapped BAR or a pinned host buffer). Converts to and from
// real pointers explicitly.
class CpuAddr : public Address<space::Cpu> {
 public:
  using Address<space::Cpu>::Address;
  constexpr CpuAddr(Address<space::Cpu> a) : Address<space::Cpu>(a) {}  // NOLINT
  static CpuAddr from(const volatile void* p) {
    return CpuAddr(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)));
  }
  template <class T = void>
  T* as() const {
    return reinterpret_cast<T*>(static_cast<uintptr_t>(raw()));
  }
};

// A half-open range [base, base + size) in one address space.
template <class A>
struct AddrRange {
  A base{};
  uint64_t size = 0;

  constexpr A end() const { return base + size; }
  constexpr bool empty() const { return size == 0; }
  constexpr bool contains(A a) const { return a >= base && (a - base) < size; }
  constexpr bool contains(const AddrRange& r) const {
    return r.base >= base && r.size <= size && (r.base - base) <= size - r.size;
  }
  // Wrap-safe: a range may end exactly at 2^64.
  constexpr bool overlaps(const AddrRange& r) const {
    if (size == 0 || r.size == 0) return false;
    return r.base >= base ? (r.base - base) < size : (base - r.base) < r.size;
  }
  friend constexpr bool operator==(const AddrRange&, const AddrRange&) = default;
};

}  // namespace rawgpu

template <class Space>
struct std::hash<rawgpu::Address<Space>> {
  size_t operator()(const rawgpu::Address<Space>& a) const noexcept {
    return std::hash<uint64_t>()(a.raw());
  }
};
