// SDMA encoders checked field by field (opcodes and field positions from the generated
// sdma_v6.h, literal layouts from amd.md §9.3), and the copy queue end to end on the simulator.
#include <gtest/gtest.h>

#include <cstring>

#include "rawgpu/autogen/amd/sdma_v6.h"
#include "rawgpu/base/shared_memory.h"
#include "rawgpu/queues/amd_sdma.h"
#include "rawgpu/queues/signal.h"
#include "rawgpu/sim/amd_gpu.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::queues::amd {
namespace {

namespace sd = autogen::amd::sdma_v6;
using drivers::amd::BufferPlacement;

uint64_t get(const CmdBuilder& b, size_t at, BitField f) {
  return get_bits(b.dwords().subspan(at), f);
}

TEST(SdmaEncode, CopyLinear) {
  CmdBuilder b;
  EXPECT_EQ(sdma_copy_linear(b, GpuVa(0x1122334455), GpuVa(0xaabbccdd00), 100), 1u);
  ASSERT_EQ(b.size(), 7u);
  // hdr op 1 sub 0; bytes-1; parameter 0; src lo/hi; dst lo/hi (amd.md §9.3).
  EXPECT_EQ(b[0], 0x00000001u);
  EXPECT_EQ(b[1], 99u);
  EXPECT_EQ(b[2], 0u);
  EXPECT_EQ(b[3], 0xbbccdd00u);
  EXPECT_EQ(b[4], 0xaau);
  EXPECT_EQ(b[5], 0x22334455u);
  EXPECT_EQ(b[6], 0x11u);
  using C = sd::COPY_LINEAR;
  EXPECT_EQ(get(b, 0, C::HEADER_op), sd::SDMA_OP_COPY);
  EXPECT_EQ(get(b, 0, C::HEADER_sub_op), sd::SDMA_SUBOP_COPY_LINEAR);
  EXPECT_EQ(get(b, 0, C::COUNT_count), 99u);
  EXPECT_EQ(C::kDwords, kSdmaCopyDwords);
}

TEST(SdmaEncode, CopySplitsAtThePerPacketMaximum) {
  // 30-bit bytes-1 field on SDMA >= 5: 1 GiB per packet.
  EXPECT_EQ(sdma_copy_max_bytes(), 1ull << 30);
  CmdBuilder b;
  const uint64_t bytes = (2ull << 30) + 5;
  EXPECT_EQ(sdma_copy_linear(b, GpuVa(0x10000000000), GpuVa(0x20000000000), bytes), 3u);
  ASSERT_EQ(b.size(), 21u);
  using C = sd::COPY_LINEAR;
  EXPECT_EQ(get(b, 0, C::COUNT_count), (1u << 30) - 1);
  EXPECT_EQ(get(b, 7, C::COUNT_count), (1u << 30) - 1);
  EXPECT_EQ(get(b, 14, C::COUNT_count), 4u);
  EXPECT_EQ(
      get(b, 7, C::SRC_ADDR_LO_src_addr_31_0) | (get(b, 7, C::SRC_ADDR_HI_src_addr_63_32) << 32),
      0x20000000000ull + (1ull << 30));
  EXPECT_EQ(
      get(b, 14, C::DST_ADDR_LO_dst_addr_31_0) | (get(b, 14, C::DST_ADDR_HI_dst_addr_63_32) << 32),
      0x10000000000ull + (2ull << 30));
}

TEST(SdmaEncode, Fence) {
  CmdBuilder b;
  const PatchSlot s = sdma_fence(b, GpuVa(0x1000000010), 77);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0], 5u | (3u << 16));  // op 5, MTYPE [18:16] = 3
  EXPECT_EQ(b[1], 0x00000010u);
  EXPECT_EQ(b[2], 0x10u);
  EXPECT_EQ(b[3], 77u);
  EXPECT_EQ(get(b, 0, sd::FENCE::HEADER_op), sd::SDMA_OP_FENCE);
  EXPECT_EQ(get(b, 0, sd::FENCE::HEADER_mtype), 3u);
  EXPECT_EQ(s.offset, 3u);
  EXPECT_EQ(s.dwords, 1u);
  b.patch(s, 78);
  EXPECT_EQ(b[3], 78u);
}

TEST(SdmaEncode, PollRegmem) {
  CmdBuilder b;
  const PatchSlot s =
      sdma_poll_regmem(b, GpuVa(0x2000000040), 9, 0xffffffff, SdmaPollFunc::kGreaterEq);
  ASSERT_EQ(b.size(), 6u);
  // op 8; FUNC [30:28] = 5 (>=); MEM_POLL 31; interval [15:0] = 4, retry [27:16] = 0xfff.
  EXPECT_EQ(b[0], 8u | (5u << 28) | (1u << 31));
  EXPECT_EQ(b[1], 0x40u);
  EXPECT_EQ(b[2], 0x20u);
  EXPECT_EQ(b[3], 9u);
  EXPECT_EQ(b[4], 0xffffffffu);
  EXPECT_EQ(b[5], 4u | (0xfffu << 16));
  using P = sd::POLL_REGMEM;
  EXPECT_EQ(get(b, 0, P::HEADER_op), sd::SDMA_OP_POLL_REGMEM);
  EXPECT_EQ(get(b, 0, P::HEADER_func), 5u);
  EXPECT_EQ(get(b, 0, P::HEADER_mem_poll), 1u);
  EXPECT_EQ(get(b, 0, P::HEADER_hdp_flush), 0u);
  EXPECT_EQ(s.offset, 3u);
  CmdBuilder h;
  sdma_hdp_flush(h);
  ASSERT_EQ(h.size(), 6u);
  EXPECT_EQ(h[0], 8u | (1u << 26) | (3u << 28));  // HDP_FLUSH 26, FUNC ==, register space
}

TEST(SdmaEncode, Timestamp) {
  CmdBuilder b;
  sdma_timestamp(b, GpuVa(0x30000000f8));
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0], 13u | (2u << 8));  // op 13, sub-op 2 GET_GLOBAL
  EXPECT_EQ(b[1], 0xf8u);            // write_addr_31_3 at [31:3]
  EXPECT_EQ(b[2], 0x30u);
  EXPECT_EQ(get(b, 0, sd::TIMESTAMP_GET_GLOBAL::HEADER_sub_op),
            sd::SDMA_SUBOP_TIMESTAMP_GET_GLOBAL);
  EXPECT_EQ(get(b, 0, sd::TIMESTAMP_GET_GLOBAL::WRITE_ADDR_LO_write_addr_31_3), 0xf8u >> 3);
}

TEST(SdmaEncode, WriteLinear) {
  CmdBuilder b;
  const uint32_t v[] = {1, 2, 3};
  sdma_write_linear(b, GpuVa(0x4000000100), v);
  ASSERT_EQ(b.size(), 7u);
  EXPECT_EQ(b[0], 2u);  // op 2, sub-op 0 (linear)
  EXPECT_EQ(b[1], 0x100u);
  EXPECT_EQ(b[2], 0x40u);
  EXPECT_EQ(b[3], 2u);  // dwords - 1 in [19:0]
  EXPECT_EQ(b[4], 1u);
  EXPECT_EQ(b[6], 3u);
  EXPECT_EQ(get(b, 0, sd::WRITE_UNTILED::DW_3_count), 2u);
}

TEST(SdmaEncode, IndirectEndsOnAnEightDwordBoundary) {
  for (uint32_t lead = 0; lead < 10; ++lead) {
    CmdBuilder b;
    for (uint32_t i = 0; i < lead; ++i) b.push(0);
    sdma_indirect(b, GpuVa(0x5000000200), 40);
    EXPECT_EQ(b.size() % 8, 0u) << lead;
    const size_t at = b.size() - 6;
    EXPECT_GE(at, lead);
    for (size_t i = lead; i < at; ++i) EXPECT_EQ(b[i], 0u);  // zero NOPs
    EXPECT_EQ(b[at], 4u);                                    // op 4, VMID 0, PRIV 0
    EXPECT_EQ(b[at + 1], 0x200u);
    EXPECT_EQ(b[at + 2], 0x50u);
    EXPECT_EQ(b[at + 3], 40u);
    EXPECT_EQ(b[at + 4], 0u);
    EXPECT_EQ(b[at + 5], 0u);
    EXPECT_EQ(get(b, at, sd::INDIRECT::IB_SIZE_ib_size), 40u);
  }
}

TEST(SdmaEncode, TrapAndNop) {
  CmdBuilder b;
  sdma_trap(b, 0x123);
  sdma_nop(b);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0], 6u);
  EXPECT_EQ(b[1], 0x123u);
  EXPECT_EQ(b[2], 0u);
  EXPECT_EQ(get(b, 0, sd::TRAP::HEADER_op), sd::SDMA_OP_TRAP);
}

class CopyQueueTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    gpu_ = std::move(sim::SimGpu::create(GetParam()).value());  // through the PCI seam
    pool_ = std::make_unique<SignalPool>(*gpu_);
  }
  void TearDown() override {
    q_.reset();
    pool_.reset();
  }
  CopyQueue& queue(uint64_t ring = 64 * 1024) {
    if (!q_) q_ = std::move(CopyQueue::create(*gpu_, ring).value());
    return *q_;
  }
  std::unique_ptr<sim::SimGpu> gpu_;
  std::unique_ptr<SignalPool> pool_;
  std::unique_ptr<CopyQueue> q_;
};

TEST_P(CopyQueueTest, DescriptorUsesSdmaDoorbellsAndByteRing) {
  CopyQueue& q = queue(8192);
  EXPECT_EQ(q.desc().doorbell, 0x100u);
  EXPECT_EQ(q.desc().ring.size, 8192u);
  auto q2 = CopyQueue::create(*gpu_, 4096).value();
  EXPECT_EQ(q2->desc().doorbell, 0x10Au);
  EXPECT_EQ(CopyQueue::create(*gpu_, 3000).error().code(), Errc::kInvalidArgument);
}

TEST_P(CopyQueueTest, CopyFenceTimestampWriteTrap) {
  auto src = gpu_->alloc(8192, BufferPlacement::kHost).value();
  auto dst = gpu_->alloc(8192, BufferPlacement::kHost).value();
  for (int i = 0; i < 8192; ++i) src.cpu[i] = static_cast<uint8_t>(i * 7 + 1);
  Signal s = pool_->alloc().value();
  CopyQueue& q = queue();
  q.copy(dst.va + 3, src.va + 5, 6000).timestamp(s);
  const uint32_t words[] = {0xdeadbeef, 0xfeedf00d};
  sdma_write_linear(q.commands(), dst.va + 8000, words);
  sdma_trap(q.commands(), 1);
  q.signal(s, 5);
  ASSERT_TRUE(q.submit());
  ASSERT_TRUE(wait_signal(*gpu_, s, 5));
  EXPECT_EQ(std::memcmp(dst.cpu + 3, src.cpu + 5, 6000), 0);
  EXPECT_EQ(dst.cpu[2], 0);
  EXPECT_EQ(dst.cpu[6003], 0);
  uint32_t got[2];
  std::memcpy(got, dst.cpu + 8000, 8);
  EXPECT_EQ(got[0], 0xdeadbeefu);
  EXPECT_EQ(got[1], 0xfeedf00du);
  EXPECT_NE(s.timestamp(), 0u);
  const sim::QueueStatus st = gpu_->copy_queue_status(q.desc().id);
  EXPECT_FALSE(st.stopped) << st.error;
  EXPECT_EQ(st.traps, 1u);
  EXPECT_EQ(st.rptr, q.wptr());
  EXPECT_EQ(load_acquire(q.desc().rptr), q.wptr());
  EXPECT_EQ(q.wptr() % 32, 0u);  // submissions stay 8-dword aligned
}

TEST_P(CopyQueueTest, WaitsOnASignalUntilItIsReached) {
  Signal in = pool_->alloc().value(), out = pool_->alloc().value();
  CopyQueue& q = queue();
  q.wait(in, 3).signal(out, 1);
  ASSERT_TRUE(q.submit());
  ASSERT_TRUE(poll_until("copy queue blocked", [&] {
    gpu_->poll();
    return gpu_->copy_queue_status(0).waiting;
  }));
  EXPECT_EQ(out.value(), 0u);
  in.set(2);
  gpu_->poll();
  EXPECT_EQ(out.value(), 0u);
  in.set(3);
  ASSERT_TRUE(wait_signal(*gpu_, out, 1));
  EXPECT_FALSE(gpu_->copy_queue_status(0).waiting);
}

TEST_P(CopyQueueTest, IndirectBufferRunsAndIsAlignedInTheRing) {
  auto ib = gpu_->alloc(4096, BufferPlacement::kHost).value();
  Signal s = pool_->alloc().value(), t = pool_->alloc().value(), r = pool_->alloc().value();
  CmdBuilder body;
  sdma_fence(body, s.va(), 11);
  sdma_fence(body, t.va(), 12);
  std::memcpy(ib.cpu, body.dwords().data(), body.size() * 4);
  CopyQueue& q = queue(4096);
  for (int round = 0; round < 50; ++round) {  // walks the ring through many offsets and wraps
    for (int k = 0; k < round % 5; ++k) sdma_nop(q.commands());
    sdma_indirect(q.commands(), ib.va, static_cast<uint32_t>(body.size()));
    sdma_fence(q.commands(), r.va(), static_cast<uint32_t>(round + 1));
    ASSERT_TRUE(q.submit());
    ASSERT_TRUE(wait_signal(*gpu_, r, static_cast<uint32_t>(round + 1)));
    const sim::QueueStatus st = gpu_->copy_queue_status(0);
    ASSERT_FALSE(st.stopped) << st.error;
    EXPECT_EQ(s.value() & 0xffffffff, 11u);
    EXPECT_EQ(t.value(), 12u);
  }
}

TEST_P(CopyQueueTest, PacketsNeverStraddleTheRingEnd) {
  // 100 000 submissions of 7 dwords + fence through a 4 KiB ring: padding at every wrap.
  Signal s = pool_->alloc().value();
  auto a = gpu_->alloc(4096, BufferPlacement::kHost).value();
  CopyQueue& q = queue(4096);
  // 100k deterministic; 20k with the device thread (each submission is a thread hand-off).
  const uint32_t n = gpu_->threaded() ? 20000 : 100000;
  for (uint32_t i = 1; i <= n; ++i) {
    if (i % 3 == 0) sdma_write_linear(q.commands(), a.va, std::span(&i, 1));
    q.signal(s, i);
    ASSERT_TRUE(q.submit());
  }
  ASSERT_TRUE(wait_signal(*gpu_, s, n));
  const sim::QueueStatus st = gpu_->copy_queue_status(0);
  EXPECT_FALSE(st.stopped) << st.error;
  uint32_t last;
  std::memcpy(&last, a.cpu, 4);
  EXPECT_EQ(last, n - n % 3);  // the last multiple of 3
}

TEST_P(CopyQueueTest, SubmissionLargerThanTheRingIsRejectedUnchanged) {
  Signal s = pool_->alloc().value();
  CopyQueue& q = queue(4096);
  for (int i = 0; i < 300; ++i) q.signal(s, static_cast<uint32_t>(i + 1));  // > 4096 bytes
  const uint64_t wptr = q.wptr();
  const Status st = q.submit();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), Errc::kInvalidArgument);
  EXPECT_NE(st.error().to_string().find("do not fit a ring of 4096 bytes"), std::string::npos)
      << st.error().to_string();
  EXPECT_EQ(q.wptr(), wptr);
}

TEST_P(CopyQueueTest, FullRingTimesOutThenDrains) {
  Signal gate = pool_->alloc().value(), s = pool_->alloc().value();
  CopyQueue& q = queue(4096);
  q.wait(gate, 1);
  ASSERT_TRUE(q.submit());
  for (int i = 0; i < 127; ++i) {  // 128 x 32 bytes fill the ring
    q.signal(s, static_cast<uint32_t>(i + 1));
    ASSERT_TRUE(q.submit());
  }
  ManualClock clock;
  q.signal(s, 1000);
  const Status st = q.submit(std::chrono::milliseconds(5), &clock);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), Errc::kTimeout);
  EXPECT_NE(st.error().to_string().find("copy ring space"), std::string::npos)
      << st.error().to_string();
  EXPECT_NE(st.error().to_string().find("rptr"), std::string::npos);
  gate.set(1);
  ASSERT_TRUE(q.submit());
  ASSERT_TRUE(wait_signal(*gpu_, s, 1000));
}

TEST_P(CopyQueueTest, FaultStopsTheQueueWithADecodedError) {
  Signal s = pool_->alloc().value();
  CopyQueue& q = queue();
  auto b = gpu_->alloc(4096, BufferPlacement::kHost).value();
  q.copy(GpuVa(0x7000000000), b.va, 64).signal(s, 1);
  ASSERT_TRUE(q.submit());
  ASSERT_TRUE(poll_until("copy queue fault", [&] {
    gpu_->poll();
    return gpu_->fault_state().queue_error;
  }));
  WaitOptions o;
  ManualClock clock;
  o.clock = &clock;
  o.timeout = std::chrono::milliseconds(1);
  const Status st = wait_signal(*gpu_, s, 1, "copy done", o);
  ASSERT_FALSE(st);
  const std::string msg = st.error().to_string();
  EXPECT_NE(msg.find("copy queue 0 stopped: ring byte 0: SDMA COPY_LINEAR of 64 B"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("VM fault"), std::string::npos) << msg;
  EXPECT_TRUE(gpu_->fault_state().faulted);
}

TEST_P(CopyQueueTest, MalformedPacketsStopTheQueue) {
  struct Case {
    std::vector<uint32_t> dws;
    const char* want;
  };
  const Case cases[] = {
      {{0x3f}, "unknown opcode 63"},
      {{0x0101}, "COPY sub-op 1 not supported"},
      {{0x0d | (1u << 8), 0, 0}, "TIMESTAMP sub-op 1 not supported"},
      {{0x8u | (7u << 28) | (1u << 31), 0, 0, 0, 0, 0}, "POLL_REGMEM function 7 invalid"},
      {{0x8u, 0, 0, 0, 0, 0}, "POLL_REGMEM on a register is not simulated"},
      {{0x5u}, "FENCE needs 4 dwords but only"},
      {{0x4u, 0, 0, 8, 0, 0}, "INDIRECT does not end on an 8-dword boundary"},
  };
  // Immediate without the device thread; with it, the engine gets there shortly.
  auto stopped = [](sim::SimGpu& gpu, uint32_t id) {
    (void)poll_until("copy queue stop", [&] {
      gpu.poll();
      return gpu.copy_queue_status(id).stopped;
    });
    return gpu.copy_queue_status(id);
  };
  for (const Case& c : cases) {
    auto gpu = std::move(sim::SimGpu::create().value());
    auto q = gpu->create_copy_queue(4096).value();
    std::memcpy(q.ring.cpu, c.dws.data(), c.dws.size() * 4);
    gpu->ring_doorbell(q.doorbell, c.dws.size() * 4);
    const sim::QueueStatus st = stopped(*gpu, q.id);
    EXPECT_TRUE(st.stopped) << c.want;
    EXPECT_NE(st.error.find(c.want), std::string::npos) << st.error;
    EXPECT_TRUE(gpu->fault_state().queue_error);
  }
  // A packet that would straddle the ring end: NOPs up to dword 1021, then a FENCE there.
  auto gpu = std::move(sim::SimGpu::create().value());
  auto q = gpu->create_copy_queue(4096).value();
  gpu->ring_doorbell(q.doorbell, 1021 * 4);
  ASSERT_TRUE(poll_until("NOPs", [&] {
    gpu->poll();
    return gpu->copy_queue_status(q.id).rptr == 1021 * 4;
  }));
  ASSERT_FALSE(gpu->copy_queue_status(q.id).stopped);
  uint32_t* ring = reinterpret_cast<uint32_t*>(q.ring.cpu);
  ring[1021] = 0x5;
  gpu->ring_doorbell(q.doorbell, 1021 * 4 + 16);
  EXPECT_TRUE(stopped(*gpu, q.id).stopped);
  EXPECT_NE(gpu->copy_queue_status(q.id).error.find(
                "ring byte 4084: SDMA FENCE needs 4 dwords but only 3 were submitted before "
                "wptr or the ring end"),
            std::string::npos)
      << gpu->copy_queue_status(q.id).error;
  // A wptr more than one ring ahead.
  auto gpu2 = std::move(sim::SimGpu::create().value());
  auto q2 = gpu2->create_copy_queue(4096).value();
  gpu2->ring_doorbell(q2.doorbell, 4096 + 32);
  EXPECT_NE(stopped(*gpu2, q2.id).error.find("not a dword count within one ring"),
            std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Profiles, CopyQueueTest, ::testing::Values(110000u, 120001u),
                         [](const ::testing::TestParamInfo<uint32_t>& i) {
                           return std::string(i.param == 110000 ? "gfx1100" : "gfx1201");
                         });

}  // namespace
}  // namespace rawgpu::queues::amd
