// BEAM search on the simulated RDNA3 GPU (sim:gfx1100): candidates compiled for gfx1100 and
// timed through the device's queue with the emulator's cost model; the kernel the search
// chooses, run through the Tensor API with RAWGPU_BEAM set (answered from the disk cache the
// search wrote), computes exactly what the unoptimized kernel computes. Kept small: an 8x16 @
// 16x8 matmul, a handful of actions, width 2, two rounds, a budget.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "../test_seed.h"
#include "rawgpu/compiler/opt.h"
#include "rawgpu/compiler/search.h"
#include "rawgpu/frontend/tensor.h"
#include "rawgpu/runtime/amd_device.h"
#include "rawgpu/runtime/sim_devices.h"

namespace rawgpu::frontend {
namespace {

using namespace ::rawgpu::runtime;  // the simulated devices and the AMD back end

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

// The opt lists the GPU BEAM search of `rawgpu demo` found faulting on sim:gfx1100 (issue 6),
// applied through a BEAM cache entry to every kernel of the demo's MLP (32x64 -> 128 -> 128 -> 10,
// relu) and conv block (2x3x16x16, conv 3->8 3x3 + bias + relu, 2x2 max pool) that takes them:
// the results equal the default compile's exactly (dyadic inputs, exact sums), on both
// simulated GPUs. The root causes were in the emulator: v_writelane_b32 (LLVM's SGPR spills to
// VGPR lanes, in these heavily unrolled kernels) lost its lane select, and gfx12's
// s_max_num_f32 (a uniform relu) was not implemented.
struct FaultCase {
  const char* what;
  std::vector<Opt> opts;
};
const std::vector<FaultCase>& fault_cases() {
  static const std::vector<FaultCase> c = {
      {"UNROLL 2 0, LOCAL 0 32, UPCAST 1 4",
       {{OptOp::kUnroll, 2, 0}, {OptOp::kLocal, 0, 32}, {OptOp::kUpcast, 1, 4}}},
      {"UNROLL 2 4, UNROLL 2 0, LOCAL 1 32, UPCAST 0 4",
       {{OptOp::kUnroll, 2, 4},
        {OptOp::kUnroll, 2, 0},
        {OptOp::kLocal, 1, 32},
        {OptOp::kUpcast, 0, 4}}},
      {"UNROLL 2 4, UNROLL 2 0, LOCAL 1 32, UPCAST 0 2",
       {{OptOp::kUnroll, 2, 4},
        {OptOp::kUnroll, 2, 0},
        {OptOp::kLocal, 1, 32},
        {OptOp::kUpcast, 0, 2}}},
      {"UNROLL 2 4, UNROLL 2 0, NOLOCALS",
       {{OptOp::kUnroll, 2, 4}, {OptOp::kUnroll, 2, 0}, {OptOp::kNoLocals, 0, 0}}},
  };
  return c;
}

Tensor dyadic_on(std::vector<int64_t> shape, int salt, const char* device) {
  size_t n = 1;
  for (int64_t d : shape) n *= size_t(d);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(int((i * 7 + size_t(salt)) % 17) - 8) / 4.0f;
  return Tensor::from(v, shape, DType::kFloat32, device);
}

// The demo's MLP and conv block on `device` with dyadic weights.
std::vector<Tensor> demo_programs(const char* device) {
  const int64_t dims[] = {64, 128, 128, 10};
  Tensor h = dyadic_on({32, dims[0]}, 3, device);
  for (int l = 0; l < 3; ++l) {
    Tensor w = dyadic_on({dims[l], dims[l + 1]}, 11 + l, device) * 0.125;
    Tensor b = dyadic_on({dims[l + 1]}, 5 + l, device);
    h = h.matmul(w) + b;
    if (l < 2) h = h.relu();
  }
  Tensor cx = dyadic_on({2, 3, 16, 16}, 2, device);
  Tensor cw = dyadic_on({8, 3, 3, 3}, 9, device) * 0.25;
  Tensor cb = dyadic_on({8}, 4, device);
  Tensor conv = cx.conv2d(cw, &cb, {1, 1}, {1, 1}).relu().max_pool2d({2, 2});
  return {h, conv};
}

std::vector<std::vector<float>> to_host_all(std::vector<Tensor> ts) {
  std::vector<std::vector<float>> out;
  for (Tensor& t : ts) {
    auto r = t.to_host<float>();
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    if (!r.ok()) return {};
    out.push_back(std::move(r).take_value());
  }
  return out;
}

class SimFaultOpts : public ::testing::TestWithParam<std::tuple<const char*, size_t>> {};

TEST_P(SimFaultOpts, DemoKernelsMatchTheDefaultCompile) {
  const char* device = std::get<0>(GetParam());
  const FaultCase& fc = fault_cases()[std::get<1>(GetParam())];
  SCOPED_TRACE(fc.what);
  register_sim_devices();  // fresh devices: a fault in an earlier case does not leak in
  ::unsetenv("RAWGPU_BEAM");
  const auto plain = to_host_all(demo_programs(device));
  ASSERT_EQ(plain.size(), 2u);

  const fs::path dir = fs::temp_directory_path() / ("rawgpu-sim-fault-" + std::to_string(getpid()) +
                                                    "-" + std::to_string(std::get<1>(GetParam())));
  fs::remove_all(dir);
  Device* dev = get_device(device).value();
  auto backend = amd_beam_backend(*dev);
  ASSERT_TRUE(backend.ok()) << backend.error().to_string();
  compiler::BeamCache cache(dir.string(), (*backend)->device(), 2);
  std::vector<Tensor> ys = demo_programs(device);
  auto sched = schedule_tensors(ys);
  ASSERT_TRUE(sched.ok()) << sched.error().to_string();
  int applied = 0;
  for (const auto& k : sched->kernels) {
    auto ok = compiler::OptKernel::create(k.ast);
    const bool takes = ok.ok() && ok->apply_all(fc.opts).ok();
    // The other kernels: an entry without opts, so that nothing is searched.
    ASSERT_TRUE(cache.store(k.ast->hash(), takes ? fc.opts : std::vector<Opt>{}, 1.0).ok());
    applied += takes ? 1 : 0;
  }
  ASSERT_GT(applied, 0) << fc.what << " applies to no kernel of the demo";
  ::setenv("RAWGPU_CACHE_DIR", dir.c_str(), 1);
  ::setenv("RAWGPU_BEAM", "2", 1);
  const compiler::BeamStats s0 = compiler::beam_stats();
  const auto beamed = to_host_all(ys);
  const compiler::BeamStats s1 = compiler::beam_stats();
  ::unsetenv("RAWGPU_BEAM");
  ::unsetenv("RAWGPU_CACHE_DIR");
  fs::remove_all(dir);
  ASSERT_EQ(beamed.size(), 2u);
  EXPECT_EQ(beamed[0], plain[0]) << "MLP";
  EXPECT_EQ(beamed[1], plain[1]) << "conv block";
  EXPECT_EQ(s1.searches, s0.searches);  // every kernel came from the cache
  EXPECT_GE(s1.cache_hits, s0.cache_hits + uint64_t(applied));
}

INSTANTIATE_TEST_SUITE_P(Demo, SimFaultOpts,
                         ::testing::Combine(::testing::Values("sim:gfx1100", "sim:gfx1201"),
                                            ::testing::Values(size_t(0), size_t(1), size_t(2),
                                                              size_t(3))));

// Random GPU opt sequences (the GPU BEAM actions plus NOLOCALS, three steps) on small kernels
// (matmul + relu, a row sum, a 3x3 conv), run on both simulated GPUs through BEAM cache
// entries: every sequence that applies computes exactly what the default compile computes, and
// every refused opt is a typed KernelOptError. RAWGPU_TEST_SEED replays a failure.
std::vector<Tensor> small_programs(const char* device) {
  Tensor a = dyadic_on({8, 16}, 1, device), b = dyadic_on({16, 8}, 5, device);
  Tensor x = dyadic_on({1, 2, 8, 8}, 2, device), w = dyadic_on({4, 2, 3, 3}, 7, device);
  return {a.matmul(b).relu(), a.sum({1}), x.conv2d(w, nullptr, {1, 1}, {1, 1})};
}

TEST(SimOpt, RandomGpuOptSequencesMatchTheDefaultCompile) {
  const uint64_t seed = rawgpu::test_util::test_seed();
  SCOPED_TRACE("RAWGPU_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<Opt> actions = compiler::gpu_beam_actions();
  actions.push_back({OptOp::kNoLocals, 0, 0});
  for (const char* device : {"sim:gfx1100", "sim:gfx1201"}) {
    SCOPED_TRACE(device);
    register_sim_devices();
    ::unsetenv("RAWGPU_BEAM");
    const auto plain = to_host_all(small_programs(device));
    ASSERT_EQ(plain.size(), 3u);
    Device* dev = get_device(device).value();
    auto backend = amd_beam_backend(*dev);
    ASSERT_TRUE(backend.ok()) << backend.error().to_string();
    const fs::path dir =
        fs::temp_directory_path() / ("rawgpu-sim-random-" + std::to_string(getpid()));
    int applied = 0;
    // Each sequence under its own BEAM width: the device's compile cache is per width.
    for (int width = 1; width <= 4; ++width) {
      fs::remove_all(dir);
      compiler::BeamCache cache(dir.string(), (*backend)->device(), width);
      std::vector<Tensor> ys = small_programs(device);
      auto sched = schedule_tensors(ys);
      ASSERT_TRUE(sched.ok()) << sched.error().to_string();
      std::string desc;
      for (const auto& k : sched->kernels) {
        auto kk = compiler::OptKernel::create(k.ast);
        ASSERT_TRUE(kk.ok()) << kk.error().to_string();
        for (int step = 0; step < 3; ++step) {
          const Opt o = actions[rng() % actions.size()];
          const std::string before = kk->to_string();
          auto st = kk->apply(o);
          if (!st.ok()) {
            EXPECT_TRUE(compiler::kernel_opt_errc(st.error()).has_value())
                << st.error().to_string();
            EXPECT_EQ(kk->to_string(), before);
          }
        }
        desc += "{";
        for (const Opt& o : kk->applied()) desc += "[" + o.to_string() + "]";
        desc += "}";
        applied += int(kk->applied().size());
        ASSERT_TRUE(cache.store(k.ast->hash(), kk->applied(), 1.0).ok());
      }
      SCOPED_TRACE(desc);
      ::setenv("RAWGPU_CACHE_DIR", dir.c_str(), 1);
      ::setenv("RAWGPU_BEAM", std::to_string(width).c_str(), 1);
      const compiler::BeamStats s0 = compiler::beam_stats();
      const auto got = to_host_all(ys);
      const compiler::BeamStats s1 = compiler::beam_stats();
      ::unsetenv("RAWGPU_BEAM");
      ::unsetenv("RAWGPU_CACHE_DIR");
      EXPECT_EQ(s1.searches, s0.searches);
      ASSERT_EQ(got.size(), 3u);
      for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], plain[i]) << "program " << i;
    }
    fs::remove_all(dir);
    EXPECT_GT(applied, 0);
  }
}

TEST(SimBeam, CpuDeviceHasNoAmdBackend) {
  Device* cpu = get_device("cpu").value();
  auto b = amd_beam_backend(*cpu);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code(), Errc::kInvalidArgument);
}

}  // namespace
}  // namespace rawgpu::frontend
