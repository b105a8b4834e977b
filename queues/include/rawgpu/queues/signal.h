// Signals, signal pools, the per-device timeline and host-side waits, for any device of the
// HCQ seam (drivers/hcq_device.h: AMD and NVIDIA alike).
//
// A Signal is a 16-byte slot in a CPU-visible, GPU-mapped page: u64 value at +0 and u64
// timestamp at +8 (amd.md §9.5; the four-word NVIDIA semaphore release writes the same). The
// AMD GPU writes values as 32 bits (RELEASE_MEM data_sel 1) and compares them as 32 bits
// (WAIT_REG_MEM), so timeline values stay below 2^31 on every device.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/base/poll.h"
#include "rawgpu/drivers/hcq_device.h"

namespace rawgpu::queues {

class Signal {
 public:
  Signal() = default;
  Signal(uint64_t* cpu, GpuVa va) : cpu_(cpu), va_(va) {}
  bool valid() const { return cpu_ != nullptr; }
  uint64_t value() const {
    return std::atomic_ref<uint64_t>(cpu_[0]).load(std::memory_order_acquire);
  }
  void set(uint64_t v) { std::atomic_ref<uint64_t>(cpu_[0]).store(v, std::memory_order_release); }
  uint64_t timestamp() const {
    return std::atomic_ref<uint64_t>(cpu_[1]).load(std::memory_order_acquire);
  }
  void reset() {
    set(0);
    std::atomic_ref<uint64_t>(cpu_[1]).store(0, std::memory_order_release);
  }
  GpuVa va() const { return va_; }
  GpuVa timestamp_va() const { return va_ + 8; }
  // The host address of the value word (to map the signal's page into another device).
  uint64_t* cpu() const { return cpu_; }

 private:
  uint64_t* cpu_ = nullptr;
  GpuVa va_;
};

// Hands out 16-byte signals from 4 KiB host pages allocated on the device.
class SignalPool {
 public:
  explicit SignalPool(drivers::HcqDevice& device) : device_(&device) {}
  ~SignalPool();
  SignalPool(const SignalPool&) = delete;
  SignalPool& operator=(const SignalPool&) = delete;

  // A signal with value 0 and timestamp 0.
  Result<Signal> alloc();
  void release(const Signal& signal);
  size_t pages() const { return pages_.size(); }

 private:
  drivers::HcqDevice* device_;
  std::vector<drivers::SharedMemory> pages_;
  std::vector<Signal> free_;
};

// The default host wait timeout: RAWGPU_WAIT_TIMEOUT_MS if set (and valid), else 30 s.
Nanos default_wait_timeout();

struct WaitOptions {
  Nanos timeout = default_wait_timeout();
  Clock* clock = nullptr;  // nullptr = steady clock
  // Stop waiting as soon as the device reports a stopped queue (a GPU fault, a bad packet):
  // the signal can then never arrive.
  bool fail_on_device_fault = true;
};

// Waits until signal.value() >= value, calling device.poll() on every poll. On timeout:
// kTimeout naming `what`, the signal's VA, the expected and actual values and the device's
// fault state. When a device queue stopped first (fail_on_device_fault): kHardware with the
// device's fault description (VM fault address and status, the stopped queue's reason, e.g. the
// kernel, PC and lane of an emulated memory fault).
Status wait_signal(drivers::HcqDevice& device, const Signal& signal, uint64_t value,
                   std::string_view what = "signal", const WaitOptions& options = {});

// A per-device timeline: every submission waits on the previous submission's value and
// signals the next one. Values stay below 2^31 (the GPU writes and compares 32 bits): when the
// timeline reaches 2^31 it swaps to its shadow signal and restarts at 1; the first submission
// after the swap waits on the old signal's last value (amd.md §9.5).
class Timeline {
 public:
  static constexpr uint32_t kWrapAt = 1u << 31;
  // `first` is the first value signaled (tests start near kWrapAt to exercise the swap).
  Timeline(Signal signal, Signal shadow, uint32_t first = 1)
      : signal_(signal),
        shadow_(shadow),
        next_(first),
        wait_signal_(signal),
        wait_value_(first - 1) {
    RG_CHECK(first >= 1 && first < kWrapAt);
  }
  // What the next submission signals.
  const Signal& signal() const { return signal_; }
  uint32_t next() const { return next_; }
  // What the next submission waits on (the previous submission's signal and value).
  const Signal& wait_signal() const { return wait_signal_; }
  uint32_t wait_value() const { return wait_value_; }
  // The signal and value of the last submission (for host waits).
  const Signal& last_signal() const { return wait_signal_; }
  uint32_t last_value() const { return wait_value_; }
  // Called after a submission that signaled next() on signal().
  void advance() {
    wait_signal_ = signal_;
    wait_value_ = next_;
    if (++next_ == kWrapAt) {
      std::swap(signal_, shadow_);
      signal_.reset();  // the old shadow's last value was reached before 2^31 more submissions
      next_ = 1;
      ++swaps_;
    }
  }
  uint64_t swaps() const { return swaps_; }

 private:
  Signal signal_, shadow_;
  uint32_t next_;
  Signal wait_signal_;
  uint32_t wait_value_;
  uint64_t swaps_ = 0;
};

}  // namespace rawgpu::queues
