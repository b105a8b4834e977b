// PM4 additions (COPY_DATA, register waits, HDP flush, write/poll_bit, per-generation GCR bits)
// and the behaviours that must hold on both simulated flavours, sim:gfx1100 and sim:gfx1201
// (gfx12 page tables walked by the simulated MMU).
#include <gtest/gtest.h>

#include <cstring>

#include "rawgpu/autogen/amd/pm4_nvd.h"
#include "rawgpu/base/shared_memory.h"
#include "rawgpu/queues/amd_copy.h"
#include "rawgpu/queues/amd_pm4.h"
#include "rawgpu/sim/amd_gpu.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::queues::amd {
namespace {

namespace pm4 = autogen::amd::pm4_nvd;
using drivers::amd::BufferPlacement;

TEST(Pm4Encode, CopyData) {
  CmdBuilder b;
  copy_data(b, true, 0x1000000040, CopySel::kMemory, 0x2000000080, true);
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(b[0], pm4_header(pm4::PACKET3_COPY_DATA, 5));
  EXPECT_EQ(b[0], 0xc0044000u);
  // src_sel [3:0] = 1 (memory), dst_sel [11:8] = 5 (memory), 64-bit 16, wr_confirm 20.
  EXPECT_EQ(b[1], 1u | (5u << 8) | (1u << 16) | (1u << 20));
  EXPECT_EQ(b[2], 0x00000080u);
  EXPECT_EQ(b[3], 0x20u);
  EXPECT_EQ(b[4], 0x00000040u);
  EXPECT_EQ(b[5], 0x10u);
  CmdBuilder r;
  copy_data(r, false, 0x1234, CopySel::kImmediate, 7, false);
  EXPECT_EQ(r[1], 5u | (1u << 20));  // dst_sel 0 = register
  EXPECT_EQ(r[4], 0x1234u);
}

TEST(Pm4Encode, RegisterWaitsAndHdpFlush) {
  CmdBuilder b;
  wait_reg(b, 0x1234, 5, 0xff, WaitFunc::kEq);
  ASSERT_EQ(b.size(), 7u);
  EXPECT_EQ(b[1], 3u);  // function ==, mem_space 0 (register), operation 0
  EXPECT_EQ(b[2], 0x1234u);
  EXPECT_EQ(b[4], 5u);
  EXPECT_EQ(b[5], 0xffu);
  CmdBuilder h;
  hdp_flush(h);
  ASSERT_EQ(h.size(), 7u);
  EXPECT_EQ(h[1], 3u | (1u << 6));  // ==, register space, operation 1 (write-wait-write)
  // BIF_BX_PF0_GPU_HDP_FLUSH_REQ/_DONE: offsets 0x106/0x107 in NBIO segment 2 (base 0xD20).
  EXPECT_EQ(h[2], 0xD20u + 0x106);
  EXPECT_EQ(h[3], 0xD20u + 0x107);
  EXPECT_EQ(h[4], kHdpFlushCpBit);
  EXPECT_EQ(h[5], kHdpFlushCpBit);
  EXPECT_EQ(h[6], 0x20u);
}

TEST(Pm4Encode, GcrBitsPerGeneration) {
  constexpr uint32_t kGl1Inv = 1u << 9;  // GCR_CNTL GL1_INV (amd.md §9.1)
  EXPECT_NE(gcr_full(GcGen::kGfx11) & kGl1Inv, 0u);
  EXPECT_EQ(gcr_full(GcGen::kGfx12) & kGl1Inv, 0u);
  EXPECT_EQ(gcr_full(GcGen::kGfx11) & ~kGl1Inv, gcr_full(GcGen::kGfx12));
  EXPECT_NE(gcr_exec_invalidate(GcGen::kGfx11) & kGl1Inv, 0u);
  EXPECT_EQ(gcr_exec_invalidate(GcGen::kGfx12) & kGl1Inv, 0u);
  EXPECT_NE(release_mem_flush_flags(GcGen::kGfx11) & (1u << 15), 0u);  // RELEASE_MEM GL1_INV
  EXPECT_EQ(release_mem_flush_flags(GcGen::kGfx12) & (1u << 15), 0u);
  EXPECT_EQ(gc_gen(110000).value(), GcGen::kGfx11);
  EXPECT_EQ(gc_gen(120001).value(), GcGen::kGfx12);
  EXPECT_EQ(gc_gen(90402).error().code(), Errc::kUnsupported);
}

TEST(SimDeviceNames, ParseAndName) {
  auto a = sim::parse_sim_device("sim:gfx1100");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->gc_version, 110000u);
  auto b = sim::parse_sim_device("sim:gfx1201");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->gc_version, 120001u);
  auto bad = sim::parse_sim_device("sim:gfx9000");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), Errc::kInvalidArgument);
  EXPECT_NE(bad.error().to_string().find("sim:gfx9000"), std::string::npos);
  EXPECT_NE(bad.error().to_string().find("sim:gfx1201"), std::string::npos);
  EXPECT_EQ(sim::sim_device_names().size(), 2u);
  EXPECT_EQ(sim::SimGpu::create(100300u).error().code(), Errc::kUnsupported);
}

class Flavour : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    gpu_ = std::move(sim::SimGpu::create(std::string_view(GetParam())).value());
    gpu_->set_executor(&rec_);
    pool_ = std::make_unique<SignalPool>(*gpu_);
    q_ = std::move(ComputeQueue::create(*gpu_).value());
  }
  void TearDown() override {
    q_.reset();
    pool_.reset();
  }
  bool gfx12() const { return std::string_view(GetParam()) == "sim:gfx1201"; }
  Signal sig() { return pool_->alloc().value(); }
  std::unique_ptr<sim::SimGpu> gpu_;
  sim::RecordingExecutor rec_;
  std::unique_ptr<SignalPool> pool_;
  std::unique_ptr<ComputeQueue> q_;
};

TEST_P(Flavour, NameVersionAndPageTableFormat) {
  EXPECT_EQ(gpu_->name(), GetParam());
  EXPECT_EQ(gpu_->gc_version(), gfx12() ? 120001u : 110000u);
  EXPECT_EQ(gpu_->memory_manager().page_table().codec().format(),
            gfx12() ? memory::PageTableFormat::kAmdGfx12 : memory::PageTableFormat::kAmdGfx10);
  EXPECT_EQ(q_->gen(), gfx12() ? GcGen::kGfx12 : GcGen::kGfx11);
}

TEST_P(Flavour, MmuWalksTheTablesAndFaultsOutsideThem) {
  auto v = gpu_->alloc(3 * 4096, BufferPlacement::kVram).value();
  for (uint32_t i = 0; i < 3 * 1024; i += 97) ASSERT_TRUE(gpu_->write32(v.va + 4 * i, i ^ 0x5a5a));
  for (uint32_t i = 0; i < 3 * 1024; i += 97)
    EXPECT_EQ(gpu_->read32(v.va + 4 * i).value(), i ^ 0x5a5a);
  ASSERT_TRUE(gpu_->free(v));
  EXPECT_FALSE(gpu_->read32(v.va));
  EXPECT_TRUE(gpu_->fault_state().faulted);
}

TEST_P(Flavour, MemoryBarrierFlushesHdpAndUsesTheGenerationsGcrBits) {
  Signal s = sig();
  ASSERT_TRUE(q_->memory_barrier().signal(s, 1).submit());
  ASSERT_TRUE(wait_signal(*gpu_, s, 1));
  const sim::QueueStatus st = gpu_->queue_status(q_->desc().id);
  EXPECT_FALSE(st.stopped) << st.error;
  EXPECT_EQ(st.acquires, 1u);
  EXPECT_EQ(st.last_gcr_cntl, gcr_full(gfx12() ? GcGen::kGfx12 : GcGen::kGfx11));
  EXPECT_EQ(gpu_->read_reg(hdp_flush_req_reg()), kHdpFlushCpBit);
  EXPECT_EQ(gpu_->read_reg(hdp_flush_done_reg()) & kHdpFlushCpBit, kHdpFlushCpBit);
}

TEST_P(Flavour, RegisterWaitBlocksUntilTheRegisterMatches) {
  Signal s = sig();
  wait_reg(q_->commands(), 0x4000, 3, 0xf, WaitFunc::kEq);
  ASSERT_TRUE(q_->signal(s, 1).submit());
  ASSERT_TRUE(poll_until("queue blocked on the register", [&] {
    gpu_->poll();
    return gpu_->queue_status(0).waiting;
  }));
  EXPECT_EQ(s.value(), 0u);
  gpu_->write_reg(0x4000, 0x13);  // (0x13 & 0xf) == 3
  ASSERT_TRUE(wait_signal(*gpu_, s, 1));
}

TEST_P(Flavour, CopyDataSources) {
  auto m = gpu_->alloc(4096, BufferPlacement::kHost).value();
  const uint64_t src = 0x1122334455667788ull;
  std::memcpy(m.cpu, &src, 8);
  CmdBuilder& b = q_->commands();
  copy_data(b, true, m.va.raw() + 8, CopySel::kMemory, m.va.raw(), true);        // mem -> mem 64
  copy_data(b, true, m.va.raw() + 16, CopySel::kMemory, m.va.raw() + 4, false);  // mem -> mem 32
  copy_data(b, true, m.va.raw() + 24, CopySel::kImmediate, 0xabcdef, false);     // imm -> mem
  copy_data(b, true, m.va.raw() + 32, CopySel::kTimestamp, 0, true);             // clock -> mem
  copy_data(b, false, 0x5000, CopySel::kImmediate, 0x77, false);                 // imm -> reg
  copy_data(b, true, m.va.raw() + 40, CopySel::kRegister, 0x5000, false);        // reg -> mem
  Signal s = sig();
  ASSERT_TRUE(q_->signal(s, 1).submit());
  ASSERT_TRUE(wait_signal(*gpu_, s, 1));
  uint64_t w[6];
  std::memcpy(w, m.cpu, sizeof(w));
  EXPECT_EQ(w[1], src);
  EXPECT_EQ(static_cast<uint32_t>(w[2]), 0x11223344u);
  EXPECT_EQ(static_cast<uint32_t>(w[3]), 0xabcdefu);
  EXPECT_GT(w[4], 0u);
  EXPECT_EQ(static_cast<uint32_t>(w[5]), 0x77u);
  EXPECT_EQ(gpu_->read_reg(0x5000), 0x77u);
}

TEST_P(Flavour, WriteAndPollBit) {
  auto m = gpu_->alloc(4096, BufferPlacement::kHost).value();
  Signal s = sig();
  q_->poll_bit(m.va, 0x4, 0x4).write(m.va + 8, 0x0102030405060708ull, true).write(m.va + 16, 9);
  ASSERT_TRUE(q_->signal(s, 1).submit());
  gpu_->poll();
  EXPECT_EQ(s.value(), 0u);
  // The GPU polls this dword (on its own thread with RAWGPU_SIM_THREAD=1).
  uint32_t* flag = reinterpret_cast<uint32_t*>(m.cpu);
  store_release(flag, 0x3u);  // bit 2 still clear
  gpu_->poll();
  EXPECT_EQ(s.value(), 0u);
  store_release(flag, 0x7u);
  ASSERT_TRUE(wait_signal(*gpu_, s, 1));
  uint64_t w[3];
  std::memcpy(w, m.cpu, sizeof(w));
  EXPECT_EQ(w[1], 0x0102030405060708ull);
  EXPECT_EQ(w[2], 9u);
}

TEST_P(Flavour, ExecDispatchesWithTheGenerationsInvalidate) {
  ExecParams p;
  p.code = GpuVa(0x7000000100);
  p.workgroup = {32, 2, 1};
  p.grid = {3, 4, 5};
  ASSERT_TRUE(q_->exec(p));
  Signal s = sig();
  ASSERT_TRUE(q_->signal(s, 1).submit());
  ASSERT_TRUE(wait_signal(*gpu_, s, 1));
  ASSERT_EQ(rec_.states.size(), 1u);
  EXPECT_EQ(rec_.states[0].grid, (std::array<uint32_t, 3>{3, 4, 5}));
  EXPECT_EQ(rec_.states[0].workgroup, (std::array<uint32_t, 3>{32, 2, 1}));
  EXPECT_EQ(gpu_->queue_status(0).last_gcr_cntl,
            gcr_exec_invalidate(gfx12() ? GcGen::kGfx12 : GcGen::kGfx11));
}

TEST_P(Flavour, CopiesRoundTrip) {
  CopierConfig c;
  c.staging_bytes = 4096;
  c.max_packet = 1000;
  auto cp = Copier::create(*gpu_, *pool_, c).value();
  auto v = gpu_->alloc(64 * 1024, BufferPlacement::kVram).value();
  std::vector<uint8_t> data(20001);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 31 + 7);
  ASSERT_TRUE(cp->copy_in(v.va + 3, data));
  std::vector<uint8_t> out(data.size());
  ASSERT_TRUE(cp->copy_out(out, v.va + 3));
  EXPECT_EQ(out, data);
}

INSTANTIATE_TEST_SUITE_P(Sim, Flavour, ::testing::Values("sim:gfx1100", "sim:gfx1201"),
                         [](const auto& info) {
                           std::string n = info.param;
                           return n.substr(n.find(':') + 1);
                         });

}  // namespace
}  // namespace rawgpu::queues::amd
