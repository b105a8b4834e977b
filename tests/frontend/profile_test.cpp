// Profiling through the Tensor API: every launch and copy is recorded; kernels and copies on the
// simulated GPUs carry device timestamps (RELEASE_MEM of the virtual clock around the dispatch,
// SDMA TIMESTAMP around a copy's packets), and the Chrome trace-event JSON parses and its
// durations are the device timestamps' differences.
#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>

#include <cmath>
#include <string>

#include "rawgpu/frontend/tensor.h"
#include "rawgpu/runtime/profile.h"
#include "rawgpu/runtime/sim_devices.h"

namespace rawgpu::frontend {
namespace {

using runtime::ProfileEvent;
using runtime::Profiler;

class Profile : public testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    static const bool registered = (runtime::register_sim_devices(), true);
    (void)registered;
    Profiler::get().clear();
    Profiler::get().enable(true);
  }
  void TearDown() override {
    Profiler::get().enable(false);
    Profiler::get().clear();
  }
};

std::vector<ProfileEvent> kernels(const std::vector<ProfileEvent>& all) {
  std::vector<ProfileEvent> k;
  for (const ProfileEvent& e : all)
    if (e.kind == "kernel") k.push_back(e);
  return k;
}

TEST_P(Profile, KernelsAndCopiesCarryDeviceTimeAndTheTraceMatchesIt) {
  const std::string dev = GetParam();
  const bool gpu = dev != "cpu";
  // A small and a large elementwise kernel: the large one does 256x the work.
  Tensor small = Tensor::arange(0, 256, 1, DType::kFloat32, dev);
  Tensor large = Tensor::arange(0, 65536, 1, DType::kFloat32, dev);
  ASSERT_TRUE(small.realize().ok());
  ASSERT_TRUE(large.realize().ok());
  Profiler::get().clear();
  auto rs = (small * 2.0 + 1.0).to_host<float>();
  ASSERT_TRUE(rs.ok()) << rs.error().to_string();
  auto rl = (large * 2.0 + 1.0).to_host<float>();
  ASSERT_TRUE(rl.ok()) << rl.error().to_string();
  EXPECT_EQ((*rl)[65535], 131071.0f);

  const std::vector<ProfileEvent> all = Profiler::get().events();
  const std::vector<ProfileEvent> ks = kernels(all);
  ASSERT_EQ(ks.size(), 2u);
  for (const ProfileEvent& k : ks) {
    EXPECT_EQ(k.device, dev);
    EXPECT_FALSE(k.name.empty());
    EXPECT_LE(k.host_start_ns, k.host_end_ns);
    EXPECT_EQ(k.has_device_time, gpu);
    if (gpu) {
      EXPECT_GT(k.device_end, k.device_start) << k.name;
      EXPECT_GT(k.grid[0] * k.local[0], 0u);
    }
  }
  if (gpu) {
    // The simulated clock moves with the work (deterministic), and in order on one queue.
    EXPECT_GT(ks[1].device_end - ks[1].device_start, ks[0].device_end - ks[0].device_start);
    EXPECT_GE(ks[1].device_start, ks[0].device_end);
    // Downloads carry SDMA timestamps; the simulated engine's clock moves with the bytes.
    std::vector<ProfileEvent> outs;
    for (const ProfileEvent& e : all)
      if (e.kind == "copy_out") {
        outs.push_back(e);
        EXPECT_EQ(e.queue, "copy");
        EXPECT_TRUE(e.has_device_time);
        EXPECT_GT(e.device_end, e.device_start);
      }
    ASSERT_EQ(outs.size(), 2u);
    EXPECT_EQ(outs[0].bytes, 256u * 4);
    EXPECT_EQ(outs[1].bytes, 65536u * 4);
    EXPECT_GT(outs[1].device_end - outs[1].device_start, outs[0].device_end - outs[0].device_start);
  }

  // The Chrome trace: one complete event per recorded event, durations from device time.
  auto parsed = llvm::json::parse(Profiler::get().chrome_trace());
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Array* evs = parsed->getAsObject()->getArray("traceEvents");
  ASSERT_NE(evs, nullptr);
  size_t complete = 0, kernel_events = 0, names = 0, copy_events = 0;
  for (const llvm::json::Value& v : *evs) {
    const llvm::json::Object& o = *v.getAsObject();
    const std::string ph = o.getString("ph").value_or("").str();
    if (ph == "M") {
      if (o.getString("name") == "process_name" && o.getObject("args")->getString("name") == dev)
        ++names;
      continue;
    }
    ASSERT_EQ(ph, "X");
    ++complete;
    if (gpu && o.getString("cat") == "copy_out") {
      // Copies: durations from their SDMA timestamps as well.
      const llvm::json::Object& args = *o.getObject("args");
      EXPECT_EQ(args.getBoolean("device_time"), true);
      const int64_t t0 = args.getInteger("device_start").value_or(-1);
      const int64_t t1 = args.getInteger("device_end").value_or(-1);
      ASSERT_GT(t1, t0);
      EXPECT_NEAR(o.getNumber("dur").value_or(-1), double(t1 - t0) * ks[0].device_tick_ns / 1000.0,
                  1e-9);
      ++copy_events;
    }
    if (o.getString("cat") != "kernel") continue;
    const ProfileEvent& k = ks[kernel_events++];
    EXPECT_EQ(o.getString("name").value_or("").str(), k.name);
    const llvm::json::Object& args = *o.getObject("args");
    EXPECT_EQ(args.getBoolean("device_time"), gpu);
    const double dur_us = o.getNumber("dur").value_or(-1);
    if (gpu) {
      EXPECT_EQ(args.getInteger("device_start"), static_cast<int64_t>(k.device_start));
      EXPECT_EQ(args.getInteger("device_end"), static_cast<int64_t>(k.device_end));
      const double want = double(k.device_end - k.device_start) * k.device_tick_ns / 1000.0;
      EXPECT_NEAR(dur_us, want, 1e-9) << k.name;
    } else {
      EXPECT_NEAR(dur_us, double(k.host_end_ns - k.host_start_ns) / 1000.0, 1e-6);
    }
    EXPECT_EQ(args.getArray("grid")->size(), 3u);
  }
  EXPECT_EQ(complete, all.size());
  EXPECT_EQ(kernel_events, ks.size());
  EXPECT_EQ(copy_events, gpu ? 2u : 0u);
  EXPECT_EQ(names, 1u);
}

TEST_P(Profile, NothingIsRecordedWhileDisabled) {
  Profiler::get().enable(false);
  Tensor t = Tensor::arange(0, 64, 1, DType::kFloat32, GetParam());
  auto r = (t + 1.0).to_host<float>();
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(Profiler::get().events().empty());
}

INSTANTIATE_TEST_SUITE_P(Devices, Profile, testing::Values("cpu", "sim:gfx1100", "sim:gfx1201"),
                         [](const testing::TestParamInfo<const char*>& i) {
                           std::string n = i.param;
                           for (char& c : n)
                             if (c == ':') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace rawgpu::frontend
