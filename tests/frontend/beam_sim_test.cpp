// BEAM search on the simulated RDNA3 GPU (sim:gfx1100): candidates compiled for gfx1100 and
// timed through the device's queue with the emulator's cost model; the kernel the search
// chooses, run through the Tensor API with RAWGPU_BEAM set (answered from the disk cache the
// search wrote), computes exactly what the unoptimized kernel computes. Kept small: an 8x16 @
// 16x8 matmul, a handful of actions, width 2, two rounds, a budget.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "rawgpu/compiler/opt.h"
#include "rawgpu/compiler/search.h"
#include "rawgpu/frontend/amd_device.h"
#include "rawgpu/frontend/sim_devices.h"
#include "rawgpu/frontend/tensor.h"

namespace rawgpu::frontend {
namespace {

namespace fs = std::filesystem;
using compiler::BeamOptions;
using compiler::Opt;
using compiler::OptOp;

constexpr const char* kDevice = "sim:gfx1100";

Tensor dyadic(std::vector<int64_t> shape, int salt) {
  std::vector<float> v(size_t(shape[0] * shape[1]));
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(int((i * 7 + size_t(salt)) % 17) - 8) / 4.0f;
  return Tensor::from(v, shape, DType::kFloat32, kDevice);
}

TEST(SimBeam, MatmulSearchOnGfx1100ChoosesAKernelWithIdenticalResults) {
  register_sim_devices();
  Device* dev = get_device(kDevice).value();
  const fs::path dir = fs::temp_directory_path() / ("rawgpu-sim-beam-" + std::to_string(getpid()));
  fs::remove_all(dir);
  ::unsetenv("RAWGPU_BEAM");

  Tensor a = dyadic({8, 16}, 1), b = dyadic({16, 8}, 5);
  ASSERT_TRUE(a.realize().ok() && b.realize().ok());
  auto plain = a.matmul(b).to_host<float>();  // the default compile (no search)
  ASSERT_TRUE(plain.ok()) << plain.error().to_string();

  // The kernel the frontend runs for the matmul.
  Tensor mm = a.matmul(b);
  auto sched = schedule_tensors(std::span<const Tensor>(&mm, 1));
  ASSERT_TRUE(sched.ok()) << sched.error().to_string();
  ASSERT_EQ(sched->kernels.size(), 1u);
  const compiler::Ref sink = sched->kernels[0].ast;

  auto backend = amd_beam_backend(*dev);
  ASSERT_TRUE(backend.ok()) << backend.error().to_string();
  EXPECT_TRUE((*backend)->deterministic());  // the emulator's cost model
  BeamOptions o;
  o.width = 2;
  o.max_rounds = 2;
  o.budget_s = 120;  // a bound for a very slow machine; the search takes seconds
  o.cache_dir = dir.string();
  o.actions = {{OptOp::kLocal, 0, 4},    {OptOp::kLocal, 1, 8}, {OptOp::kUpcast, 0, 2},
               {OptOp::kUnroll, 2, 4},   {OptOp::kGroup, 2, 8}, {OptOp::kGroupTop, 2, 8},
               {OptOp::kNoLocals, 0, 0}, {OptOp::kUpcast, 5, 2}};  // the last: no axis 5
  const compiler::BeamStats s0 = compiler::beam_stats();
  auto r = compiler::beam_search(sink, **backend, o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(r->budget_exhausted);
  EXPECT_GT(r->candidates, 3);
  EXPECT_GT(r->illegal, 0);
  EXPECT_GT(r->base_us, 0);
  EXPECT_LE(r->best_us, r->base_us);
  EXPECT_EQ(compiler::beam_stats().searches, s0.searches + 1);
  // The cost model is deterministic: the same search again (no cache) measures the same.
  BeamOptions o2 = o;
  o2.use_cache = false;
  auto r2 = compiler::beam_search(sink, **backend, o2);
  ASSERT_TRUE(r2.ok()) << r2.error().to_string();
  EXPECT_EQ(r2->opts, r->opts);
  EXPECT_EQ(r2->best_us, r->best_us);
  EXPECT_EQ(r2->base_us, r->base_us);

  // The Tensor API with RAWGPU_BEAM=2: the cached choice (no new search), identical results.
  ::setenv("RAWGPU_CACHE_DIR", dir.c_str(), 1);
  ::setenv("RAWGPU_BEAM", "2", 1);
  const compiler::BeamStats s1 = compiler::beam_stats();
  Tensor a2 = dyadic({8, 16}, 1), b2 = dyadic({16, 8}, 5);
  auto beamed = a2.matmul(b2).to_host<float>();
  const compiler::BeamStats s2 = compiler::beam_stats();
  ::unsetenv("RAWGPU_BEAM");
  ::unsetenv("RAWGPU_CACHE_DIR");
  fs::remove_all(dir);
  ASSERT_TRUE(beamed.ok()) << beamed.error().to_string();
  EXPECT_EQ(*beamed, *plain);
  EXPECT_EQ(s2.searches, s1.searches);
  EXPECT_GE(s2.cache_hits, s1.cache_hits + 1);
}

TEST(SimBeam, CpuDeviceHasNoAmdBackend) {
  Device* cpu = get_device("cpu").value();
  auto b = amd_beam_backend(*cpu);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code(), Errc::kInvalidArgument);
}

}  // namespace
}  // namespace rawgpu::frontend
