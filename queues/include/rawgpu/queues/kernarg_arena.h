// A kernarg arena (any HCQ device: AMD kernargs, NVIDIA constant banks and QMDs): a CPU-visible,
// GPU-mapped buffer handed out by memory/'s wrap-around
// BumpAllocator at 16-byte (HSA kernarg) alignment. Every allocation names the signal value
// that marks its last use; an allocation that would land on a range still in flight waits (via
// the device's poll hook) for that value first, so in-flight arguments are never overwritten
// (amd.md §9.5 rawgpu rule).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/hcq_device.h"
#include "rawgpu/memory/tlsf.h"
#include "rawgpu/queues/signal.h"

namespace rawgpu::queues {

struct Kernargs {
  uint8_t* cpu = nullptr;
  GpuVa va;
  uint64_t size = 0;
};

class KernargArena {
 public:
  static constexpr uint64_t kAlign = 16;
  static Result<std::unique_ptr<KernargArena>> create(drivers::HcqDevice& device,
                                                      uint64_t bytes = 16ull << 20);
  ~KernargArena();
  KernargArena(const KernargArena&) = delete;
  KernargArena& operator=(const KernargArena&) = delete;

  // `bytes` (> 0, <= the arena) at `align` (a power of two >= 16: NVIDIA QMDs need 256), free
  // again once done.value() >= done_value. Waits for older allocations it would overwrite
  // (kTimeout naming the signal if they never complete; the arena is unchanged then).
  Result<Kernargs> alloc(uint64_t bytes, const Signal& done, uint64_t done_value,
                         const WaitOptions& wait = {}, uint64_t align = kAlign);

  uint64_t size() const { return buffer_.size; }
  GpuVa va() const { return buffer_.va; }
  size_t in_flight() const { return live_.size(); }
  uint64_t wraps() const { return bump_.wraps(); }
  uint64_t waits() const { return waits_; }  // allocations that had to wait for the GPU

 private:
  KernargArena(drivers::HcqDevice& device, drivers::SharedMemory buffer, memory::BumpAllocator bump)
      : device_(&device), buffer_(buffer), bump_(bump) {}
  struct Live {
    uint64_t begin, end;  // offsets
    uint64_t lap;         // the bump allocator's wrap count when allocated
    Signal done;
    uint64_t value;
  };
  drivers::HcqDevice* device_;
  drivers::SharedMemory buffer_;
  memory::BumpAllocator bump_;
  std::deque<Live> live_;  // in allocation order
  uint64_t waits_ = 0;
};

}  // namespace rawgpu::queues
