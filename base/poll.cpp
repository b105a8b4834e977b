#include "rawgpu/base/poll.h"

#include <algorithm>
#include <thread>

namespace rawgpu {

namespace {
class SteadyClock final : public Clock {
 public:
  Nanos now() override {
    return std::chrono::duration_cast<Nanos>(std::chrono::steady_clock::now().time_since_epoch());
  }
  void sleep_for(Nanos d) override { std::this_thread::sleep_for(d); }
};
}  // namespace

Clock& Clock::steady() {
  static SteadyClock clock;
  return clock;
}

std::string format_duration(Nanos d) {
  const double ns = static_cast<double>(d.count());
  if (ns < 1e3) return strformat("%.0f ns", ns);
  if (ns < 1e6) return strformat("%.1f us", ns / 1e3);
  if (ns < 1e9) return strformat("%.1f ms", ns / 1e6);
  return strformat("%.2f s", ns / 1e9);
}

Status poll_until(std::string_view what, FunctionRef<Result<bool>()> done,
                  const PollOptions& options, FunctionRef<std::string()> describe,
                  PollStats* stats) {
  Clock& clock = options.clock != nullptr ? *options.clock : Clock::steady();
  const Deadline deadline(options.timeout, clock);
  Nanos sleep = std::max(options.min_sleep, Nanos{1});
  uint64_t polls = 0;
  auto finish = [&] {
    if (stats != nullptr) *stats = PollStats{polls, deadline.elapsed()};
  };
  for (;;) {
    const bool expired = deadline.expired();  // sampled before the poll: one last try after it
    ++polls;
    Result<bool> r = done();
    if (!r.ok()) {
      finish();
      return std::move(r).take_error().with_context(
          strformat("while waiting for %.*s", static_cast<int>(what.size()), what.data()));
    }
    if (*r) {
      finish();
      return {};
    }
    if (expired) break;
    if (polls >= options.max_spin_polls || deadline.elapsed() >= options.spin) {
      clock.sleep_for(std::min(sleep, std::max(deadline.remaining(), Nanos{1})));
      sleep = std::min(sleep * 2, std::max(options.max_sleep, options.min_sleep));
    }
  }
  finish();
  std::string state = describe();
  return make_error(Errc::kTimeout, "timed out after %s (%llu polls) waiting for %.*s%s%s",
                    format_duration(deadline.elapsed()).c_str(),
                    static_cast<unsigned long long>(polls), static_cast<int>(what.size()),
                    what.data(), state.empty() ? "" : ": ", state.c_str());
}

}  // namespace rawgpu
