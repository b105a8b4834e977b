#include "rawgpu/runtime/profile.h"

#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>
#include <cstdlib>
#include <map>

#include "rawgpu/base/file.h"
#include "rawgpu/base/log.h"

namespace rawgpu::runtime {
namespace {

const auto kStart = std::chrono::steady_clock::now();

}  // namespace

Profiler::Profiler() {
  if (const char* path = std::getenv("RAWGPU_TRACE"); path && *path) {
    enabled_ = true;
    static std::string out = path;
    std::atexit([] {
      if (Status st = Profiler::get().write_chrome_trace(out); !st.ok())
        RG_WARN("runtime", "RAWGPU_TRACE: %s", st.error().to_string().c_str());
    });
  }
}

Profiler& Profiler::get() {
  static Profiler* p = new Profiler();  // never destroyed: the atexit writer uses it
  return *p;
}

uint64_t Profiler::now_ns() const {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now() - kStart)
                                   .count());
}

void Profiler::record(ProfileEvent e) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  events_.push_back(std::move(e));
}

std::vector<ProfileEvent> Profiler::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

void Profiler::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  events_.clear();
}

std::string Profiler::chrome_trace() const {
  const std::vector<ProfileEvent> evs = events();
  std::map<std::string, int> pids;
  std::map<std::pair<int, std::string>, int> tids;
  // Device time on the host axis: each device's first timed event is placed at its host start.
  std::map<std::string, double> offset_ns;
  for (const ProfileEvent& e : evs) {
    if (!pids.count(e.device)) pids.emplace(e.device, static_cast<int>(pids.size()) + 1);
    const int pid = pids[e.device];
    if (!tids.count({pid, e.queue}))
      tids.emplace(std::make_pair(pid, e.queue), static_cast<int>(tids.size()) + 1);
    if (e.has_device_time && !offset_ns.count(e.device))
      offset_ns[e.device] = static_cast<double>(e.host_start_ns) -
                            static_cast<double>(e.device_start) * e.device_tick_ns;
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::json::OStream j(os, 1);
  j.object([&] {
    j.attribute("displayTimeUnit", "ns");
    j.attributeArray("traceEvents", [&] {
      for (const auto& [dev, pid] : pids)
        j.object([&] {
          j.attribute("name", "process_name");
          j.attribute("ph", "M");
          j.attribute("pid", pid);
          j.attributeObject("args", [&] { j.attribute("name", dev); });
        });
      for (const auto& [key, tid] : tids)
        j.object([&] {
          j.attribute("name", "thread_name");
          j.attribute("ph", "M");
          j.attribute("pid", key.first);
          j.attribute("tid", tid);
          j.attributeObject("args", [&] { j.attribute("name", key.second); });
        });
      for (const ProfileEvent& e : evs) {
        const int pid = pids.at(e.device);
        double ts_ns, dur_ns;
        if (e.has_device_time) {
          ts_ns = offset_ns.at(e.device) + static_cast<double>(e.device_start) * e.device_tick_ns;
          dur_ns = static_cast<double>(e.device_end - e.device_start) * e.device_tick_ns;
        } else {
          ts_ns = static_cast<double>(e.host_start_ns);
          dur_ns = static_cast<double>(e.host_end_ns - e.host_start_ns);
        }
        j.object([&] {
          j.attribute("name", e.name.empty() ? e.kind : e.name);
          j.attribute("cat", e.kind);
          j.attribute("ph", "X");
          j.attribute("pid", pid);
          j.attribute("tid", tids.at({pid, e.queue}));
          j.attribute("ts", ts_ns / 1000.0);  // microseconds
          j.attribute("dur", dur_ns / 1000.0);
          j.attributeObject("args", [&] {
            j.attribute("device_time", e.has_device_time);
            if (e.has_device_time) {
              j.attribute("device_start", static_cast<int64_t>(e.device_start));
              j.attribute("device_end", static_cast<int64_t>(e.device_end));
              j.attribute("device_tick_ns", e.device_tick_ns);
            }
            j.attribute("host_enqueue_us", static_cast<double>(e.host_start_ns) / 1000.0);
            j.attribute("host_done_us", static_cast<double>(e.host_end_ns) / 1000.0);
            if (e.kind == "kernel") {
              j.attributeArray("grid", [&] {
                for (uint32_t g : e.grid) j.value(static_cast<int64_t>(g));
              });
              j.attributeArray("local", [&] {
                for (uint32_t l : e.local) j.value(static_cast<int64_t>(l));
              });
            } else {
              j.attribute("bytes", static_cast<int64_t>(e.bytes));
            }
          });
        });
      }
    });
  });
  os.flush();
  return out;
}

Status Profiler::write_chrome_trace(const std::string& path) const {
  return write_file(path, chrome_trace());
}

}  // namespace rawgpu::runtime
