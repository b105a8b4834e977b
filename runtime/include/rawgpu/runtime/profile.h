// Profiling: every kernel launch and copy the devices run, with host enqueue/completion times
// and, where the device gives them, device timestamps (RELEASE_MEM of the GPU clock around the
// dispatch: on the simulated GPU a deterministic virtual clock). RAWGPU_TRACE=FILE records
// from the start and writes Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing) at
// exit; `rawgpu demo --trace FILE` does the same for one run.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "rawgpu/base/error.h"

namespace rawgpu::runtime {

struct ProfileEvent {
  std::string device;                           // "sim:gfx1100"
  std::string queue;                            // "compute", "copy"
  std::string kind;                             // "kernel", "copy_in", "copy_out"
  std::string name;                             // kernel name, or empty for copies
  uint64_t host_start_ns = 0, host_end_ns = 0;  // steady clock, from the profiler's start
  bool has_device_time = false;
  uint64_t device_start = 0, device_end = 0;  // device clock ticks
  double device_tick_ns = 0;                  // ns per tick
  std::array<uint32_t, 3> grid{}, local{};    // kernels
  uint64_t bytes = 0;                         // copies
};

// Process-wide (one trace file per process, like the environment variable that asks for it).
// Recording is off unless enabled (RAWGPU_TRACE, or enable()); record() is thread-safe.
class Profiler {
 public:
  static Profiler& get();
  bool enabled() const { return enabled_; }
  void enable(bool on) { enabled_ = on; }
  void record(ProfileEvent e);
  std::vector<ProfileEvent> events() const;
  void clear();
  uint64_t now_ns() const;  // host time on the profiler's clock
  // Chrome trace-event JSON of the events: one process per device, one thread per queue,
  // complete ("X") events. Timestamps are device time where the event has it (aligned to the
  // host time of the device's first such event), else host time.
  std::string chrome_trace() const;
  Status write_chrome_trace(const std::string& path) const;

 private:
  Profiler();
  std::atomic<bool> enabled_{false};
  mutable std::mutex mu_;
  std::vector<ProfileEvent> events_;
};

}  // namespace rawgpu::runtime
