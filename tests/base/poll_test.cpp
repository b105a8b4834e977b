#include "rawgpu/base/poll.h"

#include <gtest/gtest.h>

namespace rawgpu {
namespace {

using namespace std::chrono_literals;

PollOptions manual(ManualClock& clock, Nanos timeout) {
  PollOptions o;
  o.timeout = timeout;
  o.clock = &clock;
  return o;
}

TEST(Poll, ReturnsAsSoonAsThePredicateHolds) {
  ManualClock clock;
  int calls = 0;
  PollStats stats;
  Status st = poll_until(
      "three calls", [&] { return ++calls == 3; }, manual(clock, 1s), [] { return std::string(); },
      &stats);
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(stats.polls, 3u);
}

TEST(Poll, TimesOutWithDiagnostic) {
  ManualClock clock;
  uint32_t reg = 0x80000000;
  Status st = poll_until(
      "MP0_C2PMSG_64 bit 31 to clear", [&] { return (reg & 0x80000000u) == 0; },
      manual(clock, 100ms), [&] { return strformat("MP0_C2PMSG_64 = 0x%08x", reg); });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), Errc::kTimeout);
  const std::string msg = st.error().message();
  EXPECT_NE(msg.find("timed out after 100.0 ms"), std::string::npos) << msg;
  EXPECT_NE(msg.find("waiting for MP0_C2PMSG_64 bit 31 to clear: MP0_C2PMSG_64 = 0x80000000"),
            std::string::npos)
      << msg;
  // The manual clock only advanced by sleeping, exactly to the deadline.
  EXPECT_EQ(clock.now(), Nanos(100ms));
}

TEST(Poll, BackoffIsBoundedByMaxSleepAndDeadline) {
  ManualClock clock;
  PollOptions o = manual(clock, 50ms);
  o.spin = 0ns;
  o.min_sleep = 1us;
  o.max_sleep = 1ms;
  PollStats stats;
  Status st = poll_until("never", [] { return false; }, o, [] { return std::string(); }, &stats);
  ASSERT_FALSE(st.ok());
  // Exponential backoff from 1 us reaches 1 ms after ~10 doublings, then 1 ms steps: about 50
  // sleeps for 50 ms. Without the cap it would be ~16; without backoff 50000.
  EXPECT_GE(clock.sleeps(), 45u);
  EXPECT_LE(clock.sleeps(), 70u);
  EXPECT_EQ(clock.now(), Nanos(50ms)) << "never sleeps past the deadline";
}

TEST(Poll, PollsOnceMoreAfterTheDeadline) {
  // A scheduler hiccup: the condition became true while we were asleep past the deadline.
  ManualClock clock;
  PollOptions o = manual(clock, 10ms);
  Status st = poll_until("late success", [&] { return clock.now() >= Nanos(10ms); }, o);
  EXPECT_TRUE(st.ok()) << st.error().to_string();
}

TEST(Poll, ZeroTimeoutStillPollsOnce) {
  ManualClock clock;
  int calls = 0;
  EXPECT_TRUE(poll_until("immediately true", [&] { return ++calls > 0; }, manual(clock, 0ns)).ok());
  EXPECT_EQ(calls, 1);
}

TEST(Poll, PredicateErrorsPropagateWithContext) {
  ManualClock clock;
  Status st = poll_until("the fence", FunctionRef<Result<bool>()>([]() -> Result<bool> {
                           return make_error(Errc::kIo, "USB transfer failed");
                         }),
                         manual(clock, 1s));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), Errc::kIo);
  EXPECT_EQ(st.error().to_string(), "while waiting for the fence: USB transfer failed [io]");
}

TEST(Poll, SpinsWithoutSleepingOnAFrozenClock) {
  // With a clock that never moves on its own, spinning is bounded by max_spin_polls.
  ManualClock clock;
  PollOptions o = manual(clock, 1ms);
  o.spin = 1s;
  o.max_spin_polls = 10;
  PollStats stats;
  Status st = poll_until("never", [] { return false; }, o, [] { return std::string(); }, &stats);
  ASSERT_FALSE(st.ok());
  EXPECT_GE(stats.polls, 10u);
}

TEST(Poll, SteadyClockWaitsRealTime) {
  PollOptions o;
  o.timeout = 2ms;
  const auto start = std::chrono::steady_clock::now();
  Status st = poll_until("never", [] { return false; }, o);
  EXPECT_FALSE(st.ok());
  EXPECT_GE(std::chrono::steady_clock::now() - start, 2ms);
}

TEST(Deadline, Remaining) {
  ManualClock clock;
  Deadline d(5ms, clock);
  EXPECT_FALSE(d.expired());
  clock.advance(3ms);
  EXPECT_EQ(d.remaining(), Nanos(2ms));
  clock.advance(3ms);
  EXPECT_TRUE(d.expired());
  EXPECT_EQ(d.remaining(), Nanos(0));
}

TEST(FormatDuration, Units) {
  EXPECT_EQ(format_duration(Nanos(999)), "999 ns");
  EXPECT_EQ(format_duration(Nanos(1500)), "1.5 us");
  EXPECT_EQ(format_duration(Nanos(2'500'000)), "2.5 ms");
  EXPECT_EQ(format_duration(Nanos(3'000'000'000)), "3.00 s");
}

}  // namespace
}  // namespace rawgpu
