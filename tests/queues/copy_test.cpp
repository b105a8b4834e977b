// Host<->device and device<->device copies through the SDMA engine of the simulator, with the
// data verified byte for byte at many sizes and alignments, on both simulated profiles, through
// the PCI seam (drivers::amd::PciAmdDevice over sim::AmdPciFunction: SDMA queue registers,
// doorbells in BAR2, page tables through BAR0, DMA memory).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "rawgpu/queues/amd_copy.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::queues::amd {
namespace {

using drivers::amd::BufferPlacement;

std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<uint8_t>(x);
  }
  return v;
}

// Parameter: the simulated device, driven through its PCI function (sim::SimGpu).
class CopyTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    auto g = sim::SimGpu::create(std::string_view(GetParam()));
    ASSERT_TRUE(g.ok()) << g.error().to_string();
    dev_ = std::move(*g);
    hw_ = &dev_->hw();
    gpu_ = dev_.get();
    pool_ = std::make_unique<SignalPool>(*gpu_);
  }
  void TearDown() override {
    copier_.reset();
    pool_.reset();
    dev_.reset();
  }
  Copier& copier(CopierConfig c) {
    copier_ = std::move(Copier::create(*gpu_, *pool_, c).value());
    return *copier_;
  }
  std::unique_ptr<sim::SimGpu> dev_;
  drivers::amd::AmdDevice* gpu_ = nullptr;  // the driver side
  sim::AmdGpu* hw_ = nullptr;               // the simulated hardware
  std::unique_ptr<SignalPool> pool_;
  std::unique_ptr<Copier> copier_;
};

// Small staging buffers and a small per-packet maximum, so that every size below crosses
// staging-buffer and packet boundaries (the real 1 GiB split is checked in SdmaEncode).
CopierConfig small() {
  CopierConfig c;
  c.staging_bytes = 8192;
  c.staging_count = 3;
  c.ring_bytes = 4096;
  c.max_packet = 3000;
  return c;
}

TEST_P(CopyTest, RoundTripsAtManySizesAndAlignments) {
  Copier& cp = copier(small());
  auto vram = gpu_->alloc(96 * 1024, BufferPlacement::kVram).value();
  const uint64_t sizes[] = {1,    2,    3,    4,    5,    7,    63,   64,   65,         2999,
                            3000, 3001, 4095, 4096, 4097, 8191, 8192, 8193, 24576 + 17, 65536 + 3};
  const uint64_t offsets[] = {0, 1, 3, 4, 7, 4093};
  uint32_t seed = 1;
  for (uint64_t size : sizes) {
    for (uint64_t off : offsets) {
      const auto data = pattern(size, seed++);
      ASSERT_TRUE(cp.copy_in(vram.va + off, data)) << size << "@" << off;
      // Out at a different host alignment, with guard bytes around it.
      std::vector<uint8_t> out(size + 16, 0xee);
      ASSERT_TRUE(cp.copy_out(std::span(out.data() + 5, size), vram.va + off));
      ASSERT_EQ(std::memcmp(out.data() + 5, data.data(), size), 0) << size << "@" << off;
      for (int i = 0; i < 5; ++i) ASSERT_EQ(out[i], 0xee);
      for (size_t i = 5 + size; i < out.size(); ++i) ASSERT_EQ(out[i], 0xee);
    }
  }
}

TEST_P(CopyTest, CopyInLeavesNeighbouringBytesAlone) {
  Copier& cp = copier(small());
  auto vram = gpu_->alloc(32 * 1024, BufferPlacement::kVram).value();
  const auto base = pattern(20000, 77);
  ASSERT_TRUE(cp.copy_in(vram.va, base));
  const auto mid = pattern(9001, 78);
  ASSERT_TRUE(cp.copy_in(vram.va + 1001, mid));
  std::vector<uint8_t> out(20000);
  ASSERT_TRUE(cp.copy_out(out, vram.va));
  auto want = base;
  std::memcpy(want.data() + 1001, mid.data(), mid.size());
  EXPECT_EQ(out, want);
}

TEST_P(CopyTest, CopyOutSeesDataTheGpuWrote) {
  // Written through the simulated MMU directly, not through copy_in.
  Copier& cp = copier(small());
  auto vram = gpu_->alloc(32 * 1024, BufferPlacement::kVram).value();
  for (uint32_t i = 0; i < 5000; ++i) ASSERT_TRUE(hw_->write32(vram.va + 4 * i, i * 3 + 1));
  std::vector<uint8_t> out(19999);
  ASSERT_TRUE(cp.copy_out(out, vram.va + 1));
  for (uint32_t i = 0; i < 19999; ++i) {
    const uint32_t b = i + 1;
    const uint32_t word = (b / 4) * 3 + 1;
    ASSERT_EQ(out[i], static_cast<uint8_t>(word >> (8 * (b % 4)))) << i;
  }
}

TEST_P(CopyTest, DeviceToDevice) {
  Copier& cp = copier(small());
  auto a = gpu_->alloc(64 * 1024, BufferPlacement::kVram).value();
  auto b = gpu_->alloc(64 * 1024, BufferPlacement::kVram).value();
  auto h = gpu_->alloc(64 * 1024, BufferPlacement::kHost).value();
  const auto data = pattern(50000, 9);
  ASSERT_TRUE(cp.copy_in(a.va + 3, data));
  ASSERT_TRUE(cp.copy(b.va + 10, a.va + 3, 50000));  // VRAM -> VRAM, 17 packets
  ASSERT_TRUE(cp.copy(h.va + 1, b.va + 10, 50000));  // VRAM -> host memory
  EXPECT_EQ(std::memcmp(h.cpu + 1, data.data(), data.size()), 0);
  EXPECT_EQ(h.cpu[0], 0);
  EXPECT_EQ(h.cpu[50001], 0);
  EXPECT_TRUE(cp.copy(b.va, a.va, 0));
}

TEST_P(CopyTest, LargeCopyWithDefaultPackets) {
  CopierConfig c;
  c.staging_bytes = 1 << 20;
  Copier& cp = copier(c);
  auto vram = gpu_->alloc(5 << 20, BufferPlacement::kVram).value();
  const auto data = pattern((3 << 20) + 123, 5);
  ASSERT_TRUE(cp.copy_in(vram.va + 77, data));
  std::vector<uint8_t> out(data.size());
  ASSERT_TRUE(cp.copy_out(out, vram.va + 77));
  EXPECT_EQ(out, data);
  EXPECT_GE(cp.last_value(), 8u);  // 4 staging chunks each way
}

TEST_P(CopyTest, FaultingCopyReportsAndDoesNotHang) {
  CopierConfig c = small();
  // Real time: with the device thread the fault lands asynchronously.
  c.wait.timeout = std::chrono::milliseconds(300);
  Copier& cp = copier(c);
  const auto data = pattern(100, 1);
  const Status st = cp.copy_in(GpuVa(0x7000000000), data);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), Errc::kHardware);  // the wait stops at the device fault
  EXPECT_NE(st.error().to_string().find("COPY_LINEAR"), std::string::npos)
      << st.error().to_string();
}

// Device timestamps (SDMA TIMESTAMP packets) bracket the whole staged copy; the simulated
// engine's clock moves by its modelled copy time, so a larger copy takes longer.
TEST_P(CopyTest, TimestampsBracketEachCopy) {
  Copier& c = copier(small());
  auto vram = gpu_->alloc(64 * 1024, BufferPlacement::kVram).value();
  const std::vector<uint8_t> data = pattern(64 * 1024, 5);
  ASSERT_TRUE(c.copy_in(vram.va, data));
  EXPECT_FALSE(c.last_device_times().has_value());  // off by default
  ASSERT_TRUE(c.set_timestamps(true));
  ASSERT_TRUE(c.copy_in(vram.va, {data.data(), 1024}));
  const Copier::DeviceTimes a = c.last_device_times().value();
  ASSERT_TRUE(c.copy_in(vram.va, data));  // 8 staging rounds
  const Copier::DeviceTimes b = c.last_device_times().value();
  EXPECT_GT(a.end, a.start);
  EXPECT_GE(b.start, a.end);
  EXPECT_GT(b.end - b.start, a.end - a.start);
  std::vector<uint8_t> back(data.size());
  ASSERT_TRUE(c.copy_out(back, vram.va));
  EXPECT_EQ(back, data);
  EXPECT_GT(c.last_device_times().value().start, b.end);
  ASSERT_TRUE(c.set_timestamps(false));
  ASSERT_TRUE(c.copy(vram.va, vram.va + 4096, 4096));
  EXPECT_FALSE(c.last_device_times().has_value());
  ASSERT_TRUE(gpu_->free(vram));
}

TEST_P(CopyTest, BadConfigIsRejected) {
  CopierConfig c;
  c.staging_count = 0;
  EXPECT_EQ(Copier::create(*gpu_, *pool_, c).error().code(), Errc::kInvalidArgument);
  c = {};
  c.max_packet = (1ull << 30) + 1;
  EXPECT_EQ(Copier::create(*gpu_, *pool_, c).error().code(), Errc::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Profiles, CopyTest, testing::Values("sim:gfx1100", "sim:gfx1201"),
                         [](const testing::TestParamInfo<const char*>& i) {
                           return std::string(i.param).substr(4);
                         });

}  // namespace
}  // namespace rawgpu::queues::amd
