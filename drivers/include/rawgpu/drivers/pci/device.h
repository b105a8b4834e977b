// The hardware seam: one PCI function as a driver sees it — configuration space, BARs mapped as
// MMIO windows, DMA memory at bus addresses, an interrupt, a function reset and a clock.
//
// Everything above this header (the AM driver, queues, the runtime) is the same code on a real
// GPU (VfioPciDevice, SysfsPciDevice) and on the simulated one (sim/): the simulator implements
// these interfaces the way the hardware behaves, so a driver that passes there did the real work.
//
// Threading: a PciDevice and its Mmio windows are used by one thread at a time unless an
// implementation says otherwise; register index/data pairs need the caller's lock anyway.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/base/poll.h"

namespace rawgpu::pci {

inline constexpr uint64_t kDmaPageSize = 4096;

// One BAR or a window of one. Offsets are bytes from the window's start; accesses must be
// naturally aligned and inside size() (a driver computes its offsets: an access outside is a
// programming error and aborts with the offset). Register windows never hand out direct()
// pointers, so every register access and doorbell write is observable (traced, simulated).
class Mmio {
 public:
  explicit Mmio(uint64_t size) : size_(size) {}
  virtual ~Mmio() = default;
  Mmio(const Mmio&) = delete;
  Mmio& operator=(const Mmio&) = delete;

  uint64_t size() const { return size_; }

  virtual uint32_t rd32(uint64_t off) = 0;
  virtual void wr32(uint64_t off, uint32_t value) = 0;
  // Two 32-bit accesses, low dword first, unless the window can do one 64-bit access.
  virtual uint64_t rd64(uint64_t off);
  virtual void wr64(uint64_t off, uint64_t value);
  // Bulk copies (VRAM through a BAR, firmware uploads); off and the length multiples of 4.
  virtual void read(uint64_t off, std::span<uint8_t> out);
  virtual void write(uint64_t off, std::span<const uint8_t> data);
  // A host pointer to [off, off + n) for side-effect-free memory (large-BAR VRAM), or nullptr
  // when the window has side effects or cannot be mapped directly.
  virtual uint8_t* direct(uint64_t off, uint64_t n);

 protected:
  // Aborts naming the window and offset when [off, off + n) is outside or misaligned.
  void check_access(uint64_t off, uint64_t n, uint64_t align) const;

 private:
  uint64_t size_;
};

// A 32-bit read of all ones from a register BAR: the device fell off the bus (surprise removal,
// a link in L1 on boards that do not wake it, a hung function) — not data. Drivers check reads
// that can never legitimately be 0xffffffff with this.
inline bool reads_all_ones(uint32_t v) { return v == 0xffffffffu; }
// kHardware: "DEVICE: REGISTER read 0xffffffff: the device is not responding ...".
Error fell_off_bus(std::string_view device, std::string_view what);

struct BarInfo {
  int index = 0;
  uint64_t bus_addr = 0;  // as assigned by firmware/OS (informational: the CPU maps it)
  uint64_t size = 0;      // 0: not implemented
  bool is_64bit = false;
  bool prefetchable = false;
  bool io = false;  // I/O space: not mappable
  bool mappable = false;
};

// Host memory the device reaches by DMA. `host` is page-aligned and stays valid until
// free_dma(); bus addresses are per 4 KiB page (an IOMMU mapping makes them contiguous, the
// no-IOMMU path gives physical pages). The device may only touch bus addresses that are mapped.
struct DmaBuffer {
  uint8_t* host = nullptr;
  uint64_t size = 0;  // a multiple of kDmaPageSize
  std::vector<uint64_t> bus_pages;

  uint64_t bus_addr(uint64_t off) const {
    return bus_pages[off / kDmaPageSize] + off % kDmaPageSize;
  }
  // The bus address of the first page when all pages are contiguous, else 0.
  uint64_t contiguous_bus_addr() const;
};

class PciDevice {
 public:
  virtual ~PciDevice() = default;
  PciDevice() = default;
  PciDevice(const PciDevice&) = delete;
  PciDevice& operator=(const PciDevice&) = delete;

  // "0000:03:00.0", or "sim:gfx1100" for a simulated function.
  virtual std::string name() const = 0;

  // Configuration space; width 1, 2 or 4 bytes at a naturally aligned offset below 4096.
  // kInvalidArgument for a bad width/offset, kIo (with the OS's reason) when the read fails,
  // kHardware for a short read.
  virtual Result<uint32_t> cfg_read(uint32_t off, unsigned width) = 0;
  virtual Status cfg_write(uint32_t off, unsigned width, uint32_t value) = 0;

  // BAR 0..5. kInvalidArgument for another index.
  virtual Result<BarInfo> bar(int index) = 0;
  // The whole BAR as a window, owned by the device and valid until it is closed or the BAR is
  // resized. kUnsupported for an I/O or unimplemented BAR.
  virtual Result<Mmio*> map_bar(int index) = 0;
  // Resizable BAR: sets BAR `index` to `size` bytes (a size the capability lists). Invalidates
  // the BAR's window. kUnsupported where the function or the OS cannot.
  virtual Status resize_bar(int index, uint64_t size);

  // DMA memory of at least `size` bytes (rounded up to 4 KiB pages), zeroed.
  virtual Result<DmaBuffer> alloc_dma(uint64_t size) = 0;
  // Maps host memory someone else owns (another device's DMA buffer, as a peer group shares
  // signal pages) for this function's DMA: `host` 4 KiB aligned, `size` a multiple of 4 KiB, the
  // memory outliving the mapping. free_dma() unmaps it and leaves the memory alone.
  // kUnsupported where the platform cannot (no IOMMU: pinning and translating memory rawgpu did
  // not allocate is not done; allocate it with alloc_dma instead).
  virtual Result<DmaBuffer> map_dma(uint8_t* host, uint64_t size);
  // kNotFound for a buffer this device did not allocate or map (or freed already).
  virtual Status free_dma(const DmaBuffer& buffer) = 0;

  // Waits for the function's interrupt (MSI vector 0). kTimeout after `timeout` on clock();
  // kUnsupported where interrupts are not set up (sysfs access).
  virtual Status wait_irq(Nanos timeout) = 0;
  // Function-level reset. Mappings of BARs stay valid; device state is gone.
  virtual Status reset() = 0;
  // Called by every driver wait loop: a CPU relax on hardware, a simulation step in sim/.
  virtual void poll() {}
  // Monotonic on hardware, virtual in the simulator; every driver timeout uses it.
  virtual Clock& clock() = 0;
};

}  // namespace rawgpu::pci
