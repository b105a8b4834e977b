// What the hardware-command-queue core in queues/ (signals, timelines, host waits, kernarg
// arenas) needs from any GPU, AMD or NVIDIA: memory mapped for the GPU and the CPU at once, a
// poll hook that lets a simulated device make progress while the host waits, and the device's
// fault state for the errors of a wait that can never finish. drivers::amd::AmdDevice and
// nv::RmGpu implement it, so one SignalPool / Timeline / wait_signal / KernargArena serves both.
// Header-only, base/ types only.
#pragma once

#include <cstdint>
#include <string>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"

namespace rawgpu::drivers {

// What a CPU-visible mapping is for: signals are polled by the CPU (host memory is best),
// kernargs are read by the GPU (device memory where the CPU can write it).
enum class SharedUse : uint8_t { kSignals, kKernargs };

struct SharedMemory {
  GpuVa va;
  uint8_t* cpu = nullptr;
  uint64_t size = 0;
  uint64_t handle = 0;  // implementation-defined identity
};

struct HcqFault {
  bool queue_error = false;  // a queue or channel stopped: its signals can never arrive
  std::string description;   // empty when healthy
};

class HcqDevice {
 public:
  virtual ~HcqDevice() = default;
  virtual std::string name() const = 0;
  // `size` bytes (rounded up to the device's page) mapped at `va` for the GPU and at `cpu` for
  // the host.
  virtual Result<SharedMemory> alloc_shared(uint64_t size, SharedUse use) = 0;
  virtual Status free_shared(const SharedMemory& memory) = 0;
  // Called by host waits on every poll.
  virtual void poll() = 0;
  virtual HcqFault hcq_fault() const = 0;
};

}  // namespace rawgpu::drivers
