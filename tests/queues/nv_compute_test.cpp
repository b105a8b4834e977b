// NVIDIA compute launches end to end on the simulated GPU behind the simulated kernel driver:
// the compiler's example kernels compiled to PTX for the GPU's SM, loaded as a program image,
// launched with a QMD V03 and constant bank 0 built by queues/nv_compute, signaled by the QMD
// release, and compared with the host reference. Plus the QMD fields against the autogen
// table, and the typed errors of bad launches.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "nv_rig.h"
#include "rawgpu/autogen/nv/qmd.h"
#include "rawgpu/autogen/nv/qmd_v04.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/compiler/gpu.h"
#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/queues/nv_compute.h"
#include "rawgpu/queues/nv_gpfifo.h"
#include "rawgpu/sim/nv_rm.h"

namespace rawgpu {
namespace {

namespace q3 = autogen::nv::qmd::v03;

using Rig = testing::NvRig;
Rig rig(sim::NvArch arch) { return testing::nv_rig(arch); }

const char* target_of(sim::NvArch a) {
  return a == sim::NvArch::kAmpere ? "sm_86" : a == sim::NvArch::kAda ? "sm_89" : "sm_90";
}

struct Case {
  sim::NvArch arch;
  std::string example;
  uint32_t qmd = 3;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << target_of(c.arch) << " " << c.example << " QMD V0" << c.qmd;
}

class NvCompute : public ::testing::TestWithParam<Case> {};

TEST_P(NvCompute, ExampleKernelsMatchTheHostReference) {
  const Case& tc = GetParam();
  Rig r = rig(tc.arch);
  nv::RmGpu& gpu = *r.gpu;
  ASSERT_EQ(gpu.gr().sm.target, target_of(tc.arch));
  ASSERT_TRUE(r.compute->set_qmd_version(tc.qmd).ok());
  compiler::Context ctx;
  auto ex = compiler::gpu_example(ctx, tc.example);
  ASSERT_TRUE(ex.ok());
  auto target = compiler::gpu_target(gpu.gr().sm.target);
  ASSERT_TRUE(target.ok());
  compiler::GpuOptions opts = ex->options;
  opts.assemble = false;  // the simulated GPU executes the PTX image
  auto spec = compiler::compile_gpu(ex->sink, tc.example, *target, opts);
  ASSERT_TRUE(spec.ok()) << spec.error().to_string();
  auto data = compiler::gpu_example_data(tc.example);
  ASSERT_TRUE(data.ok());

  // Buffers in VRAM (CPU-visible here so the test can fill and read them).
  std::vector<nv::NvMemory> bufs;
  std::vector<uint8_t> params;
  for (const auto& bytes : data->buffers) {
    bufs.push_back(gpu.alloc_vram(bytes.size(), true).value());
    std::memcpy(bufs.back().cpu(), bytes.data(), bytes.size());
    const uint64_t va = bufs.back().va;
    params.insert(params.end(), reinterpret_cast<const uint8_t*>(&va),
                  reinterpret_cast<const uint8_t*>(&va) + 8);
  }
  for (int64_t v : data->var_values) {
    params.insert(params.end(), reinterpret_cast<const uint8_t*>(&v),
                  reinterpret_cast<const uint8_t*>(&v) + 8);
  }
  queues::NvKernelInfo info;
  info.name = tc.example;
  info.param_bytes = static_cast<uint32_t>(params.size());
  info.shared_bytes = spec->loaded.local_bytes;
  auto prog = queues::NvProgram::load_ptx(gpu, info, spec->assembly);
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  auto groups = compiler::launch_global(*spec, data->var_values);
  ASSERT_TRUE(groups.ok());
  queues::NvLaunch l;
  for (int d = 0; d < 3; ++d) {
    l.grid[d] = static_cast<uint32_t>((*groups)[d]);
    l.block[d] = static_cast<uint32_t>(spec->gpu.local[d]);
  }
  l.params = params;
  auto s = r.compute->launch(*prog, l, r.signal(), 1);
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  auto w = queues::nv_wait_value(gpu, r.sig(), 1, "kernel", std::chrono::seconds(60));
  ASSERT_TRUE(w.ok()) << w.error().to_string() << "\n"
                      << (r.k->channel_errors().empty() ? "" : r.k->channel_errors()[0]);
  EXPECT_NE(r.sig()[1], 0u);  // the release's timestamp
  EXPECT_EQ(r.k->launches(), 1u);
  size_t bad = 0;
  for (size_t i = 0; i < data->expected_count; ++i) {
    float got;
    std::memcpy(&got, bufs[0].cpu() + 4 * i, 4);
    const double want = data->expected[i];
    if (std::isnan(got) || std::fabs(got - want) > data->atol + data->rtol * std::fabs(want)) {
      if (bad++ < 5) ADD_FAILURE() << "element " << i << ": got " << got << ", want " << want;
    }
  }
  EXPECT_EQ(bad, 0u);
  prog->release(gpu);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (std::string_view n : compiler::gpu_example_names()) {
    if (n != "attention") out.push_back({sim::NvArch::kHopper, std::string(n)});  // sim/ptx has it
  }
  for (sim::NvArch a : {sim::NvArch::kAmpere, sim::NvArch::kAda}) {
    for (const char* n : {"elementwise_n", "reduce_row", "matmul_tc"}) out.push_back({a, n});
  }
  // Hopper's native QMD layout, decoded by the simulator through the same role table.
  for (const char* n : {"elementwise_n", "reduce_row", "softmax", "matmul_tc"})
    out.push_back({sim::NvArch::kHopper, n, 4});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Examples, NvCompute, ::testing::ValuesIn(cases()), [](const auto& info) {
  return std::string(target_of(info.param.arch)) + "_" + info.param.example +
         (info.param.qmd == 4 ? "_qmd_v04" : "");
});

constexpr const char* kStore = R"(
.version 7.8
.target sm_90
.address_size 64
.visible .entry store(.param .u64 p0, .param .u32 p1)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p0];
	ld.param.u32 %r1, [p1];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r2, %r3, %r1, %r2;
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}
)";

queues::NvKernelInfo store_info() {
  queues::NvKernelInfo info;
  info.name = "store";
  info.param_bytes = 12;
  return info;
}

TEST(NvComputeQmd, FieldsRoundTripAndSuccessiveLaunchesSignalInOrder) {
  Rig r = rig(sim::NvArch::kHopper);
  nv::RmGpu& gpu = *r.gpu;
  auto out = gpu.alloc_vram(1 << 20, true).value();
  const queues::NvKernelInfo info = store_info();
  auto prog = queues::NvProgram::load_ptx(gpu, info, kStore).value();
  for (uint32_t i = 0; i < 200; ++i) {  // wraps the 256 KiB kernarg ring (~1 KiB per launch)
    uint8_t params[12];
    std::memcpy(params, &out.va, 8);
    std::memcpy(params + 8, &i, 4);
    queues::NvLaunch l;
    l.block = {64, 1, 1};
    l.params = params;
    ASSERT_TRUE(r.compute->launch(prog, l, r.signal(), i + 1).ok()) << i;
  }
  ASSERT_TRUE(queues::nv_wait_value(gpu, r.sig(), 200, "200 launches").ok());
  for (uint32_t i = 0; i < 64 * 200; ++i) {
    uint32_t v;
    std::memcpy(&v, out.cpu() + 4 * i, 4);
    ASSERT_EQ(v, i);
  }
  std::span<const uint32_t> q = r.compute->last_qmd();
  EXPECT_EQ(get_bits(q, q3::QMD_MAJOR_VERSION.at()), 3u);
  EXPECT_EQ(get_bits(q, q3::CTA_THREAD_DIMENSION0.at()), 64u);
  EXPECT_EQ(get_bits(q, q3::CTA_RASTER_WIDTH.at()), 1u);
  EXPECT_EQ(get_bits(q, q3::RELEASE0_ENABLE.at()), 1u);
  EXPECT_EQ(get_bits(q, q3::RELEASE0_PAYLOAD64B.at()), 1u);
  EXPECT_EQ(get_bits(q, q3::RELEASE0_PAYLOAD_LOWER.at()), 200u);
  EXPECT_EQ((get_bits(q, q3::RELEASE0_ADDRESS_UPPER.at()) << 32) |
                get_bits(q, q3::RELEASE0_ADDRESS_LOWER.at()),
            r.signals.va);
  EXPECT_EQ(get_bits(q, q3::PROGRAM_ADDRESS_LOWER.at()), prog.va() & 0xffffffffu);
  EXPECT_EQ(get_bits(q, q3::SASS_VERSION.at()), 0x90u);
  EXPECT_EQ(get_bits(q, q3::SHARED_MEMORY_SIZE.at()), 0x400u);
  EXPECT_EQ(get_bits(q, q3::CONSTANT_BUFFER_SIZE_SHIFTED4.at(0)), (0x210u + 12 + 15) / 16);
  EXPECT_EQ(r.k->launches(), 200u);
}

// Kernarg space from one lap ago is reused once its launches have signaled, without waiting for
// the launches in between (an earlier overlap test made every launch after the first lap wait
// for the one before it, i.e. for the GPU).
TEST(NvComputeQmd, LaunchesAfterAKernargLapDoNotWaitForTheGpu) {
  Rig r = rig(sim::NvArch::kAda);
  nv::RmGpu& gpu = *r.gpu;
  auto out = gpu.alloc_vram(1 << 20, true).value();
  const queues::NvKernelInfo info = store_info();
  auto prog = queues::NvProgram::load_ptx(gpu, info, kStore).value();
  uint8_t params[12];
  std::memcpy(params, &out.va, 8);
  queues::NvLaunch l;
  l.block = {32, 1, 1};
  l.params = params;
  // 768 kernarg bytes per launch: 341 launches fill the 256 KiB ring.
  uint64_t value = 0;
  for (int lap = 0; lap < 3; ++lap) {
    const uint64_t ran = r.k->launches();
    for (int i = 0; i < 300; ++i) {
      const uint32_t idx = static_cast<uint32_t>(i);
      std::memcpy(params + 8, &idx, 4);
      ASSERT_TRUE(r.compute->launch(prog, l, r.signal(), ++value).ok());
    }
    EXPECT_EQ(r.k->launches(), ran) << "lap " << lap << ": enqueueing waited for the GPU";
    ASSERT_TRUE(queues::nv_wait_value(gpu, r.sig(), value, "lap").ok());
    EXPECT_EQ(r.k->launches(), ran + 300);
  }
}

// The HCQ core the AMD queues use (signal pool, timeline with its 2^31 swap, host waits, kernarg
// arena) drives NVIDIA launches unchanged: the GPU is an HcqDevice.
TEST(NvComputeQmd, TheSharedTimelineSignalsNvLaunchesAcrossItsSwap) {
  Rig r = rig(sim::NvArch::kHopper);
  nv::RmGpu& gpu = *r.gpu;
  queues::SignalPool pool(gpu);
  queues::Timeline tl(pool.alloc().value(), pool.alloc().value(), queues::Timeline::kWrapAt - 2);
  auto out = gpu.alloc_vram(1 << 20, true).value();
  const queues::NvKernelInfo info = store_info();
  auto prog = queues::NvProgram::load_ptx(gpu, info, kStore).value();
  uint8_t params[12];
  std::memcpy(params, &out.va, 8);
  queues::NvLaunch l;
  l.block = {32, 1, 1};
  l.params = params;
  const queues::Signal first = tl.signal();
  for (uint32_t i = 0; i < 4; ++i) {
    std::memcpy(params + 8, &i, 4);
    ASSERT_TRUE(r.compute->launch(prog, l, tl.signal(), tl.next()).ok()) << i;
    tl.advance();
  }
  EXPECT_EQ(tl.swaps(), 1u);
  ASSERT_TRUE(queues::wait_signal(gpu, tl.last_signal(), tl.last_value(), "timeline").ok());
  EXPECT_EQ(first.value(), queues::Timeline::kWrapAt - 1);  // the last value before the swap
  EXPECT_EQ(tl.last_signal().value(), 2u);                  // restarted at 1 on the shadow
  EXPECT_NE(tl.last_signal().timestamp(), 0u);              // the four-word release
  EXPECT_EQ(r.kernargs->waits(), 0u);
  // A faulting launch reaches the shared wait as kHardware with the decoded notifier.
  std::memset(params, 0, 8);
  ASSERT_TRUE(r.compute->launch(prog, l, tl.signal(), tl.next()).ok());
  tl.advance();
  auto w = queues::wait_signal(gpu, tl.last_signal(), tl.last_value(), "faulting kernel");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code(), Errc::kHardware);
  EXPECT_NE(w.error().message().find("an MMU fault"), std::string::npos) << w.error().message();
}

TEST(NvComputeQmd, V04OnHopperCarriesTheLaunchInItsOwnPositions) {
  Rig r = rig(sim::NvArch::kHopper);
  nv::RmGpu& gpu = *r.gpu;
  ASSERT_TRUE(r.compute->set_qmd_version(4).ok());
  auto out = gpu.alloc_vram(1 << 20, true).value();
  const queues::NvKernelInfo info = store_info();
  auto prog = queues::NvProgram::load_ptx(gpu, info, kStore).value();
  uint8_t params[12];
  std::memcpy(params, &out.va, 8);
  const uint32_t stride = 7;
  std::memcpy(params + 8, &stride, 4);
  queues::NvLaunch l;
  l.block = {96, 1, 1};
  l.grid = {3, 2, 1};
  l.params = params;
  ASSERT_TRUE(r.compute->launch(prog, l, r.signal(), 5).ok());
  ASSERT_TRUE(queues::nv_wait_value(gpu, r.sig(), 5, "V04 launch").ok());
  namespace q4 = autogen::nv::qmd::v04;
  std::span<const uint32_t> q = r.compute->last_qmd();
  ASSERT_EQ(q.size(), q4::kBytes / 4);
  EXPECT_EQ(get_bits(q, q4::QMD_MAJOR_VERSION.at()), 4u);
  EXPECT_EQ(get_bits(q, q4::QMD_TYPE.at()), q4::QMD_TYPE_GRID_CTA);
  EXPECT_EQ(get_bits(q, q4::GRID_WIDTH.at()), 3u);
  EXPECT_EQ(get_bits(q, q4::GRID_HEIGHT.at()), 2u);
  EXPECT_EQ(get_bits(q, q4::CTA_THREAD_DIMENSION0.at()), 96u);
  EXPECT_EQ(get_bits(q, q4::RELEASE_ENABLE.at(0)), 1u);
  EXPECT_EQ(get_bits(q, q4::RELEASE_PAYLOAD64B.at(0)), 1u);
  EXPECT_EQ(get_bits(q, q4::RELEASE_SEMAPHORE0_PAYLOAD_LOWER.at()), 5u);
  EXPECT_EQ((get_bits(q, q4::RELEASE_SEMAPHORE0_ADDR_UPPER.at()) << 32) |
                get_bits(q, q4::RELEASE_SEMAPHORE0_ADDR_LOWER.at()),
            r.signals.va);
  // Constant-buffer addresses are stored >> 6 in V04.
  const uint64_t cb = (get_bits(q, q4::CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6.at(0)) << 32) |
                      get_bits(q, q4::CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6.at(0));
  EXPECT_GE(cb << 6, r.kernargs->va().raw());
  EXPECT_LT(cb << 6, r.kernargs->va().raw() + r.kernargs->size());
  EXPECT_EQ(get_bits(q, q4::SASS_VERSION.at()), 0x90u);
  // The kernel ran with the V04 block (it stores ntid.x * 7 + tid.x at that index, reading
  // %ntid from constant bank 0).
  for (uint32_t t : {0u, 95u}) {
    uint32_t v;
    std::memcpy(&v, out.cpu() + 4 * (96 * 7 + t), 4);
    EXPECT_EQ(v, 96 * 7 + t);
  }
  // Ampere's class has no V04: refused before anything reaches the GPU.
  Rig a = rig(sim::NvArch::kAmpere);
  EXPECT_EQ(a.compute->set_qmd_version(4).error().code(), Errc::kUnsupported);
  EXPECT_EQ(a.compute->set_qmd_version(5).error().code(), Errc::kUnsupported);
}

TEST(NvComputeQmd, BadLaunchesAndFaultingKernelsAreTypedErrors) {
  Rig r = rig(sim::NvArch::kAda);
  nv::RmGpu& gpu = *r.gpu;
  const queues::NvKernelInfo info = store_info();
  auto prog = queues::NvProgram::load_ptx(gpu, info, kStore).value();
  uint8_t params[12] = {};
  queues::NvLaunch l;
  l.params = std::span<const uint8_t>(params, 8);  // short
  EXPECT_EQ(r.compute->launch(prog, l, r.signal(), 1).error().code(), Errc::kInvalidArgument);
  l.params = params;
  l.block = {2048, 1, 1};
  EXPECT_EQ(r.compute->launch(prog, l, r.signal(), 1).error().code(), Errc::kInvalidArgument);
  // A kernel storing through a null pointer: an MMU fault reaches the waiter, decoded.
  l.block = {32, 1, 1};
  ASSERT_TRUE(r.compute->launch(prog, l, r.signal(), 1).ok());
  auto w = queues::nv_wait_value(gpu, r.sig(), 1, "faulting kernel");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code(), Errc::kHardware);
  EXPECT_NE(w.error().message().find("MMU fault"), std::string::npos) << w.error().to_string();
  ASSERT_EQ(r.k->channel_errors().size(), 1u);
  EXPECT_NE(r.k->channel_errors()[0].find("store"), std::string::npos) << r.k->channel_errors()[0];
}

TEST(NvComputeQmd, AProgramAddressWithoutAnImageIsAChannelError) {
  Rig r = rig(sim::NvArch::kAmpere);
  nv::RmGpu& gpu = *r.gpu;
  const queues::NvKernelInfo info = store_info();
  auto prog = queues::NvProgram::load_ptx(gpu, info, kStore).value();
  // Overwrite the image's magic: what a SASS cubin would look like to this simulator.
  auto img = gpu.alloc_vram(4096, true).value();
  (void)img;
  uint8_t params[12] = {};
  queues::NvLaunch l;
  l.params = params;
  std::memset(reinterpret_cast<uint8_t*>(prog.va()), 0x11, 4);
  ASSERT_TRUE(r.compute->launch(prog, l, r.signal(), 1).ok());
  auto w = queues::nv_wait_value(gpu, r.sig(), 1, "kernel");
  ASSERT_FALSE(w.ok());
  ASSERT_EQ(r.k->channel_errors().size(), 1u);
  EXPECT_NE(r.k->channel_errors()[0].find("not SASS"), std::string::npos)
      << r.k->channel_errors()[0];
}

}  // namespace
}  // namespace rawgpu
