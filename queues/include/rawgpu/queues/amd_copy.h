// Host<->device and device<->device copies on an SDMA copy queue.
//
// Host data travels through a ring of CPU-visible, GPU-mapped staging buffers: while the
// engine copies staging buffer i, the host fills (copy-in) or drains (copy-out) buffer i+1.
// Each staging buffer's reuse is tied to the fence value of the copy that last used it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/amd/device.h"
#include "rawgpu/queues/amd_sdma.h"
#include "rawgpu/queues/signal.h"

namespace rawgpu::queues::amd {

struct CopierConfig {
  uint64_t staging_bytes = 2ull << 20;  // per staging buffer
  uint32_t staging_count = 2;           // >= 1; 2+ pipelines host and engine
  uint64_t ring_bytes = 64 * 1024;
  uint64_t max_packet = 0;  // COPY_LINEAR bytes per packet (0 = hardware maximum)
  WaitOptions wait;
};

class Copier {
 public:
  static Result<std::unique_ptr<Copier>> create(drivers::amd::AmdDevice& device,
                                                SignalPool& signals,
                                                const CopierConfig& config = {});
  ~Copier();
  Copier(const Copier&) = delete;
  Copier& operator=(const Copier&) = delete;

  // Host -> GPU VA (any alignment, any size). Returns when the data has landed.
  Status copy_in(GpuVa dst, std::span<const uint8_t> src);
  // GPU VA -> host. Returns when `dst` holds the data.
  Status copy_out(std::span<uint8_t> dst, GpuVa src);
  // GPU VA -> GPU VA on the engine. Returns when done.
  Status copy(GpuVa dst, GpuVa src, uint64_t bytes);

  // Device timestamps: with them on, each copy_in / copy_out / copy brackets its copy packets
  // with SDMA TIMESTAMP (GET_GLOBAL) packets, read back by last_device_times() once it returned.
  // The span is the engine's: for a staged copy it includes the engine waiting on the host.
  Status set_timestamps(bool on);
  struct DeviceTimes {
    uint64_t start = 0, end = 0;  // GPU clock ticks
  };
  // The last completed copy's timestamps, or nothing (timestamps off, or no copy since).
  std::optional<DeviceTimes> last_device_times() const;

  CopyQueue& queue() { return *queue_; }
  const Signal& signal() const { return signal_; }
  // Last fence value submitted.
  uint32_t last_value() const { return value_; }

 private:
  Copier(drivers::amd::AmdDevice& device, SignalPool& signals, const CopierConfig& config)
      : device_(&device), signals_(&signals), config_(config) {}
  // Submits what is pending, fencing it with the next value; returns that value.
  Result<uint32_t> submit_fenced();
  Status wait_value(uint32_t value, const char* what);
  // Emits the start / end timestamp packet when timestamps are on.
  void stamp_start();
  void stamp_end();

  drivers::amd::AmdDevice* device_;
  SignalPool* signals_;
  CopierConfig config_;
  std::unique_ptr<CopyQueue> queue_;
  Signal signal_;
  uint32_t value_ = 0;
  bool stamps_ = false;
  bool stamped_ = false;  // the last copy carried timestamps
  Signal ts_start_, ts_end_;
  struct Staging {
    drivers::amd::DeviceBuffer buffer;
    uint32_t busy_until = 0;  // fence value after which the buffer is free
  };
  std::vector<Staging> staging_;
};

}  // namespace rawgpu::queues::amd
