// The PM4 compute queue end to end on both simulated GPUs (gfx1100, gfx1201) through the driver.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "rawgpu/base/shared_memory.h"
#include "rawgpu/queues/amd_pm4.h"
#include "rawgpu/queues/signal.h"
#include "rawgpu/sim/amd_gpu.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::queues::amd {
namespace {

using drivers::amd::BufferPlacement;

class QueueTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    gpu_ = std::move(sim::SimGpu::create(GetParam()).value());  // through the PCI seam
    gpu_->set_executor(&rec_);
    pool_ = std::make_unique<SignalPool>(*gpu_);
  }
  void TearDown() override {
    queue_.reset();
    pool_.reset();
  }
  ComputeQueue& queue(uint64_t ring = 64 * 1024) {
    if (!queue_) queue_ = std::move(ComputeQueue::create(*gpu_, ring).value());
    return *queue_;
  }
  WaitOptions manual(Nanos timeout) {
    WaitOptions o;
    o.timeout = timeout;
    o.clock = &clock_;
    return o;
  }
  Signal sig() { return pool_->alloc().value(); }

  std::unique_ptr<sim::SimGpu> gpu_;
  sim::RecordingExecutor rec_;
  std::unique_ptr<SignalPool> pool_;
  std::unique_ptr<ComputeQueue> queue_;
  ManualClock clock_;
};

TEST_P(QueueTest, SignalPoolHandsOutDistinct16ByteSlots) {
  std::set<uint64_t> vas;
  for (int i = 0; i < 257; ++i) {
    Signal s = sig();
    EXPECT_EQ(s.va().raw() % 16, 0u);
    EXPECT_EQ(s.value(), 0u);
    EXPECT_TRUE(vas.insert(s.va().raw()).second);
  }
  EXPECT_EQ(pool_->pages(), 2u);  // 256 signals per 4 KiB page
  Signal a = sig();
  a.set(99);
  pool_->release(a);
  Signal b = sig();
  EXPECT_EQ(b.va(), a.va());
  EXPECT_EQ(b.value(), 0u);  // reset on reuse
}

TEST_P(QueueTest, SignalIsWrittenByTheGpu) {
  Signal s = sig();
  ASSERT_TRUE(queue().signal(s, 7).submit());
  EXPECT_TRUE(wait_signal(*gpu_, s, 7, "s"));  // immediate without the device thread
  EXPECT_EQ(s.value(), 7u);
}

TEST_P(QueueTest, WaitOrdersSignals) {
  Signal gate = sig(), done = sig();
  ComputeQueue& q = queue();
  q.wait(gate, 2).signal(done, 1);
  ASSERT_TRUE(q.submit());
  EXPECT_EQ(done.value(), 0u);
  gate.set(1);
  gpu_->poll();
  EXPECT_EQ(done.value(), 0u);  // 1 < 2
  gate.set(2);
  ASSERT_TRUE(wait_signal(*gpu_, done, 1, "done", WaitOptions{}));
  EXPECT_EQ(done.value(), 1u);
}

TEST_P(QueueTest, TimestampWritesTheSignalsTimestampWord) {
  Signal a = sig(), b = sig();
  Signal done = sig();
  ASSERT_TRUE(queue().timestamp(a).timestamp(b).signal(done, 1).submit());
  ASSERT_TRUE(wait_signal(*gpu_, done, 1));
  EXPECT_GT(a.timestamp(), 0u);
  EXPECT_GT(b.timestamp(), a.timestamp());
  EXPECT_EQ(a.value(), 0u);
}

TEST_P(QueueTest, TimelineLaunchesDispatchInOrder) {
  Timeline tl(sig(), sig());
  ComputeQueue& q = queue();
  auto kernargs = gpu_->alloc(4096, BufferPlacement::kHost).value();
  ExecParams p;
  p.code = GpuVa(0x7000000100);
  p.rsrc2 = 2u << 1;
  p.user_data_count = 2;
  p.user_data[0] = static_cast<uint32_t>(kernargs.va.raw());
  p.user_data[1] = static_cast<uint32_t>(kernargs.va.raw() >> 32);
  p.workgroup = {64, 1, 1};
  for (uint32_t i = 0; i < 10; ++i) {
    q.wait(tl.wait_signal(), tl.wait_value()).memory_barrier();
    auto slots = q.exec(p);
    ASSERT_TRUE(slots);
    q.commands().patch(slots->grid[0], 100 + i);  // known only at submit time
    q.signal(tl.signal(), tl.next());
    ASSERT_TRUE(q.submit());
    tl.advance();
  }
  ASSERT_TRUE(wait_signal(*gpu_, tl.last_signal(), tl.last_value(), "timeline", WaitOptions{}));
  EXPECT_EQ(tl.signal().value(), 10u);
  ASSERT_EQ(rec_.states.size(), 10u);
  for (uint32_t i = 0; i < 10; ++i) {
    const sim::DispatchState& s = rec_.states[i];
    EXPECT_EQ(s.grid[0], 100 + i);
    EXPECT_EQ(s.grid[1], 1u);
    EXPECT_EQ(s.program, GpuVa(0x7000000100));
    EXPECT_EQ(s.workgroup[0], 64u);
    ASSERT_EQ(s.user_data.size(), 2u);
    EXPECT_EQ(s.user_data[0] | (uint64_t{s.user_data[1]} << 32), kernargs.va.raw());
    EXPECT_TRUE(s.wave32);
  }
  ASSERT_TRUE(gpu_->free(kernargs));
}

// >= 100k submissions through a 4 KiB ring (1024 dwords). Each submission is 15 dwords
// (wait + signal), which does not divide 1024, so packets straddle the ring end regularly.
TEST_P(QueueTest, RingWrapsUnderLoad) {
  Timeline tl(sig(), sig());
  ComputeQueue& q = queue(4096);
  // 100k deterministic; 20k with the device thread (each submission is a thread hand-off).
  const uint32_t kSubmissions = gpu_->threaded() ? 20'000 : 100'000;
  for (uint32_t i = 0; i < kSubmissions; ++i) {
    q.wait(tl.wait_signal(), tl.wait_value()).signal(tl.signal(), tl.next());
    ASSERT_TRUE(q.submit()) << "submission " << i;
    tl.advance();
  }
  ASSERT_TRUE(wait_signal(*gpu_, tl.last_signal(), tl.last_value()));
  EXPECT_EQ(tl.signal().value(), kSubmissions);
  EXPECT_EQ(q.wptr(), uint64_t{kSubmissions} * 15);
  // With the device thread, rptr is published just after the last packet.
  ASSERT_TRUE(poll_until("rptr", [&] {
    gpu_->poll();
    return load_acquire(q.desc().rptr) == q.wptr();
  }));
  EXPECT_FALSE(gpu_->fault_state().queue_error);
}

// Past 2^31 the timeline swaps to its shadow signal and restarts at 1; the first submission
// after the swap waits on the old signal's last value, so ordering holds across the swap.
TEST_P(QueueTest, TimelineWrapsToTheShadowSignal) {
  Signal main = sig(), shadow = sig();
  main.set(Timeline::kWrapAt - 3);  // as if 2^31 - 3 submissions had completed
  shadow.set(12345);                // stale value from an earlier epoch
  Timeline tl(main, shadow, Timeline::kWrapAt - 2);
  ComputeQueue& q = queue();
  Signal gate = sig();
  // The first submission is held back by a gate, so everything after it must wait too.
  q.wait(gate, 1);
  for (int i = 0; i < 4; ++i) {
    q.wait(tl.wait_signal(), tl.wait_value()).signal(tl.signal(), tl.next());
    ASSERT_TRUE(q.submit());
    tl.advance();
  }
  EXPECT_EQ(tl.swaps(), 1u);
  EXPECT_EQ(tl.signal().va(), shadow.va());
  EXPECT_EQ(tl.last_value(), 2u);  // signaled kWrapAt-2, kWrapAt-1 on main, then 1, 2 on shadow
  EXPECT_EQ(shadow.value(), 0u);   // reset by the swap, not yet signaled
  EXPECT_EQ(main.value(), Timeline::kWrapAt - 3);
  gate.set(1);
  ASSERT_TRUE(wait_signal(*gpu_, tl.last_signal(), tl.last_value(), "timeline", WaitOptions{}));
  EXPECT_EQ(main.value(), Timeline::kWrapAt - 1);
  EXPECT_EQ(shadow.value(), 2u);
}

TEST_P(QueueTest, WaitThatNeverCompletesTimesOutWithDiagnostics) {
  Signal never = sig(), done = sig();
  ComputeQueue& q = queue();
  q.wait(never, 1).signal(done, 1);
  ASSERT_TRUE(q.submit());
  auto st = wait_signal(*gpu_, done, 1, "kernel done", manual(std::chrono::milliseconds(100)));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), Errc::kTimeout);
  const std::string msg = st.error().to_string();
  EXPECT_NE(msg.find("kernel done >= 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected >= 1, actual 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("device " + gpu_->name() + ": no fault recorded"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GPU VA 0x"), std::string::npos) << msg;
  EXPECT_TRUE(poll_until("queue blocked", [&] {  // the device thread may not be there yet
    gpu_->poll();
    return gpu_->queue_status(q.desc().id).waiting;
  }));
}

TEST_P(QueueTest, FaultIsReportedByTheTimedOutWait) {
  Signal done = sig();
  ComputeQueue& q = queue();
  const GpuVa unmapped(done.va().raw() + 0x100000);
  release_mem_signal(q.commands(), unmapped, 1);
  q.signal(done, 1);
  ASSERT_TRUE(q.submit());
  // (With the device thread the fault lands asynchronously: wait for it in real time first.)
  ASSERT_TRUE(poll_until("queue fault", [&] {
    gpu_->poll();
    return gpu_->fault_state().queue_error;
  }));
  auto st = wait_signal(*gpu_, done, 1, "done", manual(std::chrono::milliseconds(10)));
  ASSERT_FALSE(st);
  const std::string msg = st.error().to_string();
  EXPECT_NE(msg.find("VM fault at"), std::string::npos) << msg;
  EXPECT_NE(msg.find("page not mapped, write"), std::string::npos) << msg;
  EXPECT_NE(msg.find("queue 0 stopped: ring dword 0: RELEASE_MEM"), std::string::npos) << msg;
}

TEST_P(QueueTest, SubmissionLargerThanTheRingIsRejectedUnchanged) {
  ComputeQueue& q = queue(4096);
  nop(q.commands(), 1025);
  const size_t n = q.commands().size();  // > 1024 ring dwords
  const uint64_t wptr = q.wptr();
  auto st = q.submit();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), Errc::kInvalidArgument);
  EXPECT_NE(st.error().to_string().find(std::to_string(n) +
                                        " command dwords do not fit a ring of 1024 dwords"),
            std::string::npos)
      << st.error().to_string();
  EXPECT_EQ(q.wptr(), wptr);
  EXPECT_EQ(q.commands().size(), n);
}

TEST_P(QueueTest, FullRingTimesOutAndKeepsTheCommands) {
  Signal never = sig(), s = sig();
  ComputeQueue& q = queue(4096);
  q.wait(never, 1);
  ASSERT_TRUE(q.submit());
  // 7 dwords are stuck in the ring; fill the rest, then one more signal cannot fit.
  nop(q.commands(), 1024 - 7 - 1);
  ASSERT_TRUE(q.submit());
  q.signal(s, 1);
  auto st = q.submit(std::chrono::milliseconds(5), &clock_);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), Errc::kTimeout);
  EXPECT_NE(st.error().to_string().find("rptr 0, wptr 1024, 8 dwords to write"), std::string::npos)
      << st.error().to_string();
  EXPECT_EQ(q.commands().size(), 8u);
  never.set(1);  // the GPU drains the ring; the retry succeeds
  ASSERT_TRUE(q.submit());
  ASSERT_TRUE(wait_signal(*gpu_, s, 1));
}

TEST_P(QueueTest, OversizedSubmissionIsRejected) {
  ComputeQueue& q = queue(4096);
  nop(q.commands(), 1024);
  auto st = q.submit();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(q.wptr(), 0u);
}

TEST(WaitTimeout, DefaultComesFromTheEnvironment) {
  ::unsetenv("RAWGPU_WAIT_TIMEOUT_MS");
  EXPECT_EQ(default_wait_timeout(), std::chrono::seconds(30));
  ::setenv("RAWGPU_WAIT_TIMEOUT_MS", "250", 1);
  EXPECT_EQ(default_wait_timeout(), std::chrono::milliseconds(250));
  ::setenv("RAWGPU_WAIT_TIMEOUT_MS", "soon", 1);
  EXPECT_EQ(default_wait_timeout(), std::chrono::seconds(30));
  ::unsetenv("RAWGPU_WAIT_TIMEOUT_MS");
}

INSTANTIATE_TEST_SUITE_P(Profiles, QueueTest, ::testing::Values(110000u, 120001u),
                         [](const ::testing::TestParamInfo<uint32_t>& i) {
                           return std::string(i.param == 110000 ? "gfx1100" : "gfx1201");
                         });

}  // namespace
}  // namespace rawgpu::queues::amd
