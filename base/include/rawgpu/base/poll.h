// Deadline-based polling. Every wait on hardware in rawgpu goes through poll_until(): it spins
// briefly, then sleeps with exponential backoff, and on expiry returns Errc::kTimeout with a
// message saying what was awaited, for how long, and the last observed state.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "rawgpu/base/error.h"
#include "rawgpu/base/function_ref.h"

namespace rawgpu {

using Nanos = std::chrono::nanoseconds;

// Time source for polling. The default is std::chrono::steady_clock; tests and simulators
// install a manual clock so timeouts are deterministic and instant.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual Nanos now() = 0;
  virtual void sleep_for(Nanos d) = 0;
  static Clock& steady();
};

// A clock that only moves when slept on or advanced: sleep_for(d) advances time by d.
class ManualClock final : public Clock {
 public:
  Nanos now() override { return now_; }
  void sleep_for(Nanos d) override {
    now_ += d;
    ++sleeps_;
  }
  void advance(Nanos d) { now_ += d; }
  uint64_t sleeps() const { return sleeps_; }

 private:
  Nanos now_{0};
  uint64_t sleeps_ = 0;
};

class Deadline {
 public:
  Deadline(Nanos timeout, Clock& clock = Clock::steady())
      : clock_(&clock), start_(clock.now()), timeout_(timeout) {}
  bool expired() const { return elapsed() >= timeout_; }
  Nanos elapsed() const { return clock_->now() - start_; }
  Nanos remaining() const {
    const Nanos e = elapsed();
    return e >= timeout_ ? Nanos{0} : timeout_ - e;
  }
  Nanos timeout() const { return timeout_; }
  Clock& clock() const { return *clock_; }

 private:
  Clock* clock_;
  Nanos start_;
  Nanos timeout_;
};

struct PollOptions {
  Nanos timeout = std::chrono::seconds(1);
  Nanos spin = std::chrono::microseconds(20);  // busy-poll this long before sleeping...
  uint64_t max_spin_polls = 1000;              // ...or this many times, whichever is first
  Nanos min_sleep = std::chrono::microseconds(1);
  Nanos max_sleep = std::chrono::milliseconds(1);
  Clock* clock = nullptr;  // nullptr = Clock::steady()
};

struct PollStats {
  uint64_t polls = 0;
  Nanos waited{0};
};

// Polls `done` until it returns true, returns an error, or the deadline passes. The predicate
// is always evaluated once more after the deadline, so a slow scheduler never causes a false
// timeout. On timeout the error reads
//   "timed out after 100.0 ms (1234 polls) waiting for <what>: <describe()>"
// `describe` reports the current state (e.g. the register value) and is only called on timeout.
Status poll_until(
    std::string_view what, FunctionRef<Result<bool>()> done, const PollOptions& options = {},
    FunctionRef<std::string()> describe = [] { return std::string(); }, PollStats* stats = nullptr);

// Convenience for infallible predicates.
template <class Pred>
  requires std::is_invocable_r_v<bool, Pred&>
Status poll_until(
    std::string_view what, Pred&& done, const PollOptions& options = {},
    FunctionRef<std::string()> describe = [] { return std::string(); },
    PollStats* stats = nullptr) {
  auto wrapped = [&]() -> Result<bool> { return static_cast<bool>(done()); };
  return poll_until(what, FunctionRef<Result<bool>()>(wrapped), options, describe, stats);
}

std::string format_duration(Nanos d);

}  // namespace rawgpu
