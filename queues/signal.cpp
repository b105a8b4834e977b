#include "rawgpu/queues/signal.h"

#include <cstdlib>

#include "rawgpu/base/env.h"
#include "rawgpu/base/format.h"

namespace rawgpu::queues {

namespace {
constexpr uint64_t kPoolPage = 4096;
constexpr uint64_t kSignalBytes = 16;
}  // namespace

SignalPool::~SignalPool() {
  for (const auto& p : pages_) (void)device_->free_shared(p);
}

Result<Signal> SignalPool::alloc() {
  if (free_.empty()) {
    auto page = device_->alloc_shared(kPoolPage, drivers::SharedUse::kSignals);
    if (!page) return std::move(page).take_error().with_context("while growing the signal pool");
    pages_.push_back(*page);
    // Pushed high to low so that alloc() hands out low addresses first.
    for (uint64_t off = kPoolPage; off >= kSignalBytes; off -= kSignalBytes) {
      const uint64_t o = off - kSignalBytes;
      free_.emplace_back(reinterpret_cast<uint64_t*>(page->cpu + o), page->va + o);
    }
  }
  Signal s = free_.back();
  free_.pop_back();
  s.reset();
  return s;
}

void SignalPool::release(const Signal& signal) {
  RG_CHECK(signal.valid());
  free_.push_back(signal);
}

Nanos default_wait_timeout() {
  // A malformed value warns (naming the variable and the range) and the default applies.
  if (auto ms = env::read_u64("RAWGPU_WAIT_TIMEOUT_MS", 1, 24ull * 3600 * 1000))
    return std::chrono::milliseconds(*ms);
  return std::chrono::seconds(30);
}

Status wait_signal(drivers::HcqDevice& device, const Signal& signal, uint64_t value,
                   std::string_view what, const WaitOptions& options) {
  RG_CHECK(signal.valid());
  PollOptions po;
  po.timeout = options.timeout;
  po.clock = options.clock;
  bool faulted = false;
  auto done = [&]() -> bool {
    if (signal.value() >= value) return true;
    device.poll();
    if (signal.value() >= value) return true;
    if (options.fail_on_device_fault && device.hcq_fault().queue_error) faulted = true;
    return faulted;
  };
  auto describe = [&]() -> std::string {
    const drivers::HcqFault f = device.hcq_fault();
    return strformat("%.*s at GPU VA %s: expected >= %llu, actual %llu; device %s: %s",
                     static_cast<int>(what.size()), what.data(), hex(signal.va().raw()).c_str(),
                     static_cast<unsigned long long>(value),
                     static_cast<unsigned long long>(signal.value()), device.name().c_str(),
                     f.description.empty() ? "no fault recorded" : f.description.c_str());
  };
  const std::string label = strformat("%.*s >= %llu", static_cast<int>(what.size()), what.data(),
                                      static_cast<unsigned long long>(value));
  RG_TRY(poll_until(label, done, po, describe));
  if (faulted && signal.value() < value) {
    const drivers::HcqFault f = device.hcq_fault();
    return make_error(Errc::kHardware, "device fault while waiting for %s: device %s: %s",
                      label.c_str(), device.name().c_str(), f.description.c_str())
        .with_hint("the queue stopped and the signal can never arrive; see the fault above");
  }
  return {};
}

}  // namespace rawgpu::queues
