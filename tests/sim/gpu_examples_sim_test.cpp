// The compiler's example kernels (compiler/gpu_examples.cpp) compiled with compile_gpu for
// gfx1100 and gfx1201, loaded with queues::amd::Program and dispatched by PM4 on sim::AmdGpu
// running the RDNA emulator (two host threads); slot 0 is compared with gpu_example_data's host
// reference within its tolerance. elementwise_n gets n as the scalar kernel argument after the
// buffers and its grid from launch_global (n = 1000: the last work-group is partly masked, and
// nothing past n may be written).
//
// Cost (GCC debugoptimized, CPU seconds of the emulating threads, printed in the `[ numerics ]`
// lines): 0.01-3 s per example and target, except attention, ~36 s: 24M wave instructions, most
// of them per-lane global loads whose address translation dominates the emulator's time. So
// attention runs on gfx1100 only (the other examples cover gfx1201's code generation of the
// same ops), and meson runs it as its own test (gpu-examples-sim-attention) in parallel with the
// rest; the whole file is ~45 CPU seconds in GCC, 3-5x that under ASan+UBSan.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "rawgpu/compiler/gpu.h"
#include "rawgpu/queues/amd_copy.h"
#include "rawgpu/queues/amd_pm4.h"
#include "rawgpu/queues/kernarg_arena.h"
#include "rawgpu/queues/program.h"
#include "rawgpu/queues/signal.h"
#include "rawgpu/sim/amd_gpu.h"
#include "rawgpu/sim/rdna.h"
#include "rdna_e2e_fixture.h"

namespace rawgpu::sim::rdna {
namespace {

using drivers::amd::DeviceBuffer;

struct Case {
  Target target;
  std::string example;
};
void PrintTo(const Case& c, std::ostream* os) { *os << target_name(c.target) << " " << c.example; }

class ExampleSim : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    Options o;
    o.threads = 2;
    testing::start_sim(GetParam().target, o, gpu_, emu_, queue_);
  }
  DeviceBuffer buffer(uint64_t bytes) { return testing::zeroed_buffer(*gpu_, bytes); }

  std::unique_ptr<SimGpu> gpu_;
  std::unique_ptr<Emulator> emu_;
  std::unique_ptr<queues::amd::ComputeQueue> queue_;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// User + system CPU seconds of this process (all threads).
double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// Input seed for gpu_example_data: RAWGPU_EXAMPLE_SEED, else 1 (the tolerances are derived
// bounds, not fitted to one seed).
uint64_t example_seed() {
  const char* s = std::getenv("RAWGPU_EXAMPLE_SEED");
  return s ? std::strtoull(s, nullptr, 0) : 1;
}

TEST_P(ExampleSim, MatchesHostReference) {
  const Case& tc = GetParam();
  const std::string& name = tc.example;
  const auto t0 = std::chrono::steady_clock::now();
  compiler::Context ctx;
  auto ex = compiler::gpu_example(ctx, name);
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  auto target = compiler::gpu_target(target_name(tc.target));
  ASSERT_TRUE(target.ok()) << target.error().to_string();
  auto spec = compiler::compile_gpu(ex->sink, name, *target, ex->options);
  ASSERT_TRUE(spec.ok()) << spec.error().to_string();
  auto data = compiler::gpu_example_data(name, example_seed());
  ASSERT_TRUE(data.ok()) << data.error().to_string();
  const double compile_ms = ms_since(t0);

  queues::SignalPool pool(*gpu_);
  auto copier = queues::amd::Copier::create(*gpu_, pool);
  ASSERT_TRUE(copier.ok()) << copier.error().to_string();
  auto prog = queues::amd::Program::load(*gpu_, **copier, spec->binary, name);
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  auto arena = queues::KernargArena::create(*gpu_, 64 * 1024);
  ASSERT_TRUE(arena.ok()) << arena.error().to_string();

  // Buffers by slot with their initial bytes (slot 0 zeroed).
  std::vector<DeviceBuffer> bufs;
  for (const auto& bytes : data->buffers) {
    bufs.push_back(buffer(bytes.size()));
    std::memcpy(bufs.back().cpu, bytes.data(), bytes.size());
  }
  ASSERT_EQ(bufs.size(), spec->program.buffers.size());
  ASSERT_EQ(data->var_values.size(), spec->vars.size());

  // Explicit kernel arguments in order: one 8-byte pointer per buffer slot, then one 8-byte
  // integer per variable (ProgramSpec::vars order; i64 parameters in the generated kernel).
  const queues::Signal done = pool.alloc().value();
  queues::Kernargs ka = (*arena)->alloc((*prog)->kernarg_alloc_size(), done, 1).value();
  std::memset(ka.cpu, 0, ka.size);
  size_t ai = 0;
  for (const auto& arg : (*prog)->args()) {
    if (arg.hidden()) continue;
    ASSERT_EQ(arg.size, 8u) << "argument " << ai << " (" << arg.value_kind << ")";
    if (ai < bufs.size()) {
      EXPECT_EQ(arg.value_kind, "global_buffer") << "argument " << ai;
      const uint64_t va = bufs[ai].va.raw();
      std::memcpy(ka.cpu + arg.offset, &va, 8);
    } else {
      ASSERT_LT(ai - bufs.size(), data->var_values.size()) << "argument " << ai;
      EXPECT_EQ(arg.value_kind, "by_value") << "argument " << ai;
      const int64_t v = data->var_values[ai - bufs.size()];
      std::memcpy(ka.cpu + arg.offset, &v, 8);
    }
    ++ai;
  }
  ASSERT_EQ(ai, bufs.size() + data->var_values.size());

  auto groups = compiler::launch_global(*spec, data->var_values);
  ASSERT_TRUE(groups.ok()) << groups.error().to_string();
  std::array<uint32_t, 3> grid{}, local{};
  for (size_t d = 0; d < 3; ++d) {
    grid[d] = uint32_t((*groups)[d]);
    local[d] = uint32_t(spec->gpu.local[d]);
  }
  const auto t1 = std::chrono::steady_clock::now();
  const double cpu1 = cpu_seconds();
  ASSERT_TRUE(queue_->exec((*prog)->exec_params(ka, grid, local)).ok());
  queue_->signal(done, 1);
  const Status sub = queue_->submit();
  ASSERT_TRUE(sub.ok()) << sub.error().to_string();
  const Status st = queues::wait_signal(*gpu_, done, 1, name);
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  const double run_ms = ms_since(t1), run_cpu_s = cpu_seconds() - cpu1;

  const auto& out = bufs[0];
  const auto c = compiler::check_gpu_example(
      *data, std::span<const uint8_t>(out.cpu, data->buffers[0].size()));
  EXPECT_TRUE(c.ok()) << name << " on " << target_name(tc.target)
                      << ", RAWGPU_EXAMPLE_SEED=" << example_seed() << ": " << c.summary();
  std::printf(
      "[ numerics ] %s %s seed %llu: compile %.0f ms, emulate %.0f ms wall / %.2f s CPU (%llu wave "
      "instructions); %s\n",
      target_name(tc.target), name.c_str(), static_cast<unsigned long long>(example_seed()),
      compile_ms, run_ms, run_cpu_s, static_cast<unsigned long long>(emu_->stats().instructions),
      c.summary().c_str());
  if (name == "elementwise_n") {  // the masked tail of the last work-group writes nothing
    ASSERT_GT(uint64_t(grid[0]) * local[0], data->expected_count);
    for (size_t i = data->expected_count * 4; i < data->buffers[0].size(); ++i)
      ASSERT_EQ(out.cpu[i], 0) << "byte " << i << " past n written";
  }
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (Target t : {Target::kGfx1100, Target::kGfx1201})
    for (std::string_view e : compiler::gpu_example_names())
      if (e != "attention" || t == Target::kGfx1100) v.push_back({t, std::string(e)});  // cost
  return v;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleSim, ::testing::ValuesIn(cases()), [](const auto& info) {
  return std::string(target_name(info.param.target)) + "_" + info.param.example;
});

}  // namespace
}  // namespace rawgpu::sim::rdna
