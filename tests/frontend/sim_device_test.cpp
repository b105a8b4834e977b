// The Tensor API on the simulated AMD GPUs: data round trips through VRAM and the copy engine,
// the compile cache, device mismatches, per-opcode counters, and emulator / queue failures
// surfacing as typed errors on the tensor.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>

#include "rawgpu/frontend/tensor.h"
#include "rawgpu/runtime/amd_device.h"
#include "rawgpu/runtime/sim_devices.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::frontend {
namespace {

using namespace ::rawgpu::runtime;  // the simulated devices and the AMD back end

class SimDevice : public testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    static const bool registered = (register_sim_devices(), true);
    (void)registered;
  }
};

TEST_P(SimDevice, DataRoundTripsThroughVram) {
  std::vector<float> v(3000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i) * 0.5f - 7;
  Tensor t = Tensor::from(v, {3000}, DType::kFloat32, GetParam());
  ASSERT_TRUE(t.ok()) << t.status().error().to_string();
  EXPECT_EQ(t.device(), GetParam());
  auto back = t.to_host<float>();
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, v);
  // Across devices: cpu -> sim -> cpu.
  Tensor c = t.to("cpu");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.device(), "cpu");
  auto cb = (c * 2.0).to(GetParam()).to_host<float>();
  ASSERT_TRUE(cb.ok()) << cb.error().to_string();
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ((*cb)[i], v[i] * 2) << i;
}

TEST_P(SimDevice, KernelsRunAndCompiledProgramsAreReused) {
  Device* dev = get_device(GetParam()).value();
  Tensor a = Tensor::arange(0, 64, 1, DType::kFloat32, GetParam()).reshape({8, 8});
  ASSERT_TRUE(a.realize().ok());  // a buffer, so b's identical kernel can share the program
  auto r1 = (a * 3.0 + 1.0).sum({1}).to_host<float>();
  ASSERT_TRUE(r1.ok()) << r1.error().to_string();
  for (int i = 0; i < 8; ++i) EXPECT_EQ((*r1)[size_t(i)], float(3 * (8 * i * 8 + 28) + 8)) << i;
  const size_t size = dev->cache_size();
  const uint64_t hits = dev->cache_hits();
  Tensor b = Tensor::arange(100, 164, 1, DType::kFloat32, GetParam()).reshape({8, 8});
  ASSERT_TRUE(b.realize().ok());
  const size_t size_b = dev->cache_size();
  auto r2 = (b * 3.0 + 1.0).sum({1}).to_host<float>();  // same kernel, other buffers
  ASSERT_TRUE(r2.ok()) << r2.error().to_string();
  EXPECT_EQ(dev->cache_size(), size_b);
  EXPECT_GT(dev->cache_hits(), hits);
  EXPECT_GE(size_b, size);
}

TEST_P(SimDevice, MixingDevicesIsATypedError) {
  Tensor a = Tensor::ones({4}, DType::kFloat32, GetParam());
  Tensor b = Tensor::ones({4}, DType::kFloat32, "cpu");
  Tensor c = a + b;
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().error().message().find("device"), std::string::npos)
      << c.status().error().to_string();
}

TEST_P(SimDevice, OpcodeCountersCountExecutedInstructions) {
  ASSERT_TRUE(get_device(GetParam()).ok());
  sim::rdna::Emulator* emu = sim_emulator(GetParam());
  ASSERT_NE(emu, nullptr);
  emu->reset_opcode_hits();
  emu->options().count_opcodes = true;
  const uint64_t before = emu->stats().instructions;
  auto r = (Tensor::full({100}, 2, DType::kFloat32, GetParam()).sqrt()).to_host<float>();
  emu->options().count_opcodes = false;
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const uint64_t executed = emu->stats().instructions - before;
  uint64_t counted = 0, endpgm = 0;
  for (const auto& h : emu->opcode_hits()) {
    counted += h.count;
    if (std::string_view(h.info->mnemonic) == "s_endpgm") endpgm = h.count;
  }
  EXPECT_GT(executed, 0u);
  EXPECT_GE(counted, executed);  // VOPD pairs count both halves
  EXPECT_GE(endpgm, 4u);         // 100 threads: at least 4 waves ended
}

INSTANTIATE_TEST_SUITE_P(Targets, SimDevice, testing::Values("sim:gfx1100", "sim:gfx1201"),
                         [](const auto& i) { return std::string(i.param).substr(4); });

// Registers `name`: a gfx1100 simulated GPU with the emulator, adjusted by `tweak` first.
void register_adjusted(const std::string& name,
                       std::function<void(sim::SimGpu&, sim::rdna::Emulator&)> tweak) {
  register_device(name, [name, tweak]() -> Result<std::unique_ptr<Device>> {
    std::shared_ptr<sim::SimGpu> gpu = RG_TRY(sim::SimGpu::create());
    auto emu = std::make_shared<sim::rdna::Emulator>(gpu->hw(), sim::rdna::Target::kGfx1100);
    gpu->set_executor(emu.get());
    tweak(*gpu, *emu);
    AmdDeviceConfig c;
    c.name = name;
    c.target = "gfx1100";
    c.device = gpu;
    c.keep_alive = emu;
    return make_amd_device(std::move(c));
  });
}

// An emulator failure (here: the instruction budget) stops the queue; the tensor gets a typed
// error naming it, later work on the device gets the same error, nothing aborts.
TEST(SimDeviceErrors, EmulatorFailureIsATypedErrorOnTheTensor) {
  register_adjusted("sim:tiny-budget",
                    [](sim::SimGpu&, sim::rdna::Emulator& e) { e.options().max_instructions = 5; });
  Tensor a = Tensor::full({64}, 3, DType::kFloat32, "sim:tiny-budget");
  auto r = (a * a).exp().to_host<float>();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kHardware)) << r.error().to_string();
  EXPECT_NE(r.error().to_string().find("instruction budget"), std::string::npos)
      << r.error().to_string();
  auto again = Tensor::full({4}, 1, DType::kFloat32, "sim:tiny-budget").to_host<float>();
  EXPECT_FALSE(again.ok());
}

// A kernel that never completes (the fault plan hangs its dispatch): the tensor gets a typed
// timeout naming the kernel within RAWGPU_WAIT_TIMEOUT_MS, nothing blocks forever.
TEST(SimDeviceErrors, HungKernelIsATimeoutNamingTheKernel) {
  register_adjusted("sim:hung", [](sim::SimGpu& g, sim::rdna::Emulator&) {
    sim::FaultRule r;
    r.trigger = sim::FaultRule::Trigger::kDispatch;
    r.action = sim::FaultRule::Action::kHang;
    g.function().add_fault(r);
  });
  ASSERT_EQ(setenv("RAWGPU_WAIT_TIMEOUT_MS", "50", 1), 0);
  auto r = (Tensor::full({64}, 3, DType::kFloat32, "sim:hung") * 2.0).to_host<float>();
  ASSERT_EQ(unsetenv("RAWGPU_WAIT_TIMEOUT_MS"), 0);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kTimeout)) << r.error().to_string();
  EXPECT_NE(r.error().to_string().find("timed out after"), std::string::npos)
      << r.error().to_string();
  EXPECT_NE(r.error().to_string().find("waiting for kernel "), std::string::npos)
      << r.error().to_string();
}

// A device whose GPU has no dispatch executor: the PM4 dispatch stops the queue.
TEST(SimDeviceErrors, StoppedQueueIsATypedError) {
  register_device("sim:no-executor", []() -> Result<std::unique_ptr<Device>> {
    std::shared_ptr<sim::SimGpu> gpu = RG_TRY(sim::SimGpu::create());
    AmdDeviceConfig c;
    c.name = "sim:no-executor";
    c.target = "gfx1100";
    c.device = gpu;
    return make_amd_device(std::move(c));
  });
  auto r = (Tensor::ones({8}, DType::kFloat32, "sim:no-executor") + 1.0).to_host<float>();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("no dispatch executor"), std::string::npos)
      << r.error().to_string();
}

}  // namespace
}  // namespace rawgpu::frontend
