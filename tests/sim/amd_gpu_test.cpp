// The simulated AMD GPU, driven through its PCI function by PciAmdDevice (sim::SimGpu): MMU over
// rawgpu's real gfx11/gfx12 page tables (both profiles), fault registers, and the PM4 processor
// driven by hand-assembled packets (opcodes from the generated nvd.h; expected values written out
// literally).
#include "rawgpu/sim/sim_gpu.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "rawgpu/autogen/amd/pm4_nvd.h"

namespace rawgpu::sim {
namespace {

namespace pm4 = autogen::amd::pm4_nvd;
using drivers::amd::BufferPlacement;
using drivers::amd::DeviceBuffer;

uint32_t hdr(uint32_t op, uint32_t body) { return (3u << 30) | ((body - 1) << 16) | (op << 8); }
uint32_t lo(GpuVa va) { return static_cast<uint32_t>(va.raw()); }
uint32_t hi(GpuVa va) { return static_cast<uint32_t>(va.raw() >> 32); }

class SimTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    gpu_ = std::move(SimGpu::create(GetParam()).value());
    q_ = gpu_->create_compute_queue(4096).value();
    mem_ = gpu_->alloc(4096, BufferPlacement::kHost).value();
  }
  // Appends dwords to the ring and rings the doorbell.
  void submit(const std::vector<uint32_t>& dws) {
    auto* ring = reinterpret_cast<uint32_t*>(q_.ring.cpu);
    for (uint32_t d : dws) ring[wptr_++ % 1024] = d;
    *q_.wptr = wptr_;
    gpu_->ring_doorbell(q_.doorbell, wptr_);
  }
  uint32_t word(const DeviceBuffer& b, uint64_t off) {
    uint32_t v;
    std::memcpy(&v, b.cpu + off, 4);
    return v;
  }
  std::vector<uint32_t> write_data(GpuVa va, uint32_t value) {
    return {hdr(pm4::PACKET3_WRITE_DATA, 4), pm4::WRITE_DATA_DST_SEL(5), lo(va), hi(va), value};
  }

  std::unique_ptr<SimGpu> gpu_;
  drivers::amd::ComputeQueueDesc q_;
  DeviceBuffer mem_;
  uint64_t wptr_ = 0;
};

TEST_P(SimTest, MmuReachesHostBuffersThroughThePageTables) {
  std::memcpy(mem_.cpu + 64, "\x78\x56\x34\x12", 4);
  EXPECT_EQ(gpu_->read32(mem_.va + 64).value(), 0x12345678u);
  ASSERT_TRUE(gpu_->write32(mem_.va + 128, 0xcafef00d));
  EXPECT_EQ(word(mem_, 128), 0xcafef00du);
  // The page table really holds a system-aperture leaf for the buffer.
  auto page = gpu_->memory_manager().page_table().translate(mem_.va).value();
  EXPECT_EQ(page.attrs.aperture, memory::Aperture::kSystem);
  EXPECT_FALSE(gpu_->fault_state().faulted);
}

TEST_P(SimTest, VramBuffersRoundTrip) {
  auto v = gpu_->alloc(3 * 4096 + 1, BufferPlacement::kVram).value();
  EXPECT_EQ(v.size, 4u * 4096);
  EXPECT_EQ(v.cpu, nullptr);
  ASSERT_TRUE(gpu_->hw().write64(v.va + 3 * 4096 + 8, 0x1122334455667788ull));
  EXPECT_EQ(gpu_->hw().read64(v.va + 3 * 4096 + 8).value(), 0x1122334455667788ull);
  EXPECT_EQ(gpu_->read32(v.va + 3 * 4096 + 12).value(), 0x11223344u);
  ASSERT_TRUE(gpu_->free(v));
}

TEST_P(SimTest, UnmappedAccessRecordsAFault) {
  const GpuVa bad = mem_.va + 0x10000 + 0x24;
  auto r = gpu_->write32(bad, 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), Errc::kHardware);
  auto f = gpu_->fault_state();
  EXPECT_TRUE(f.faulted);
  EXPECT_EQ(f.address, GpuVa((mem_.va.raw() + 0x10000)));
  EXPECT_EQ(f.status, (1u << 8) | (1u << 18));  // mapping, write (amd.md §10.4)
  EXPECT_NE(f.description.find("page not mapped"), std::string::npos) << f.description;
}

// AmdGpu::page_host (the emulator's TLB fill): the host bytes of a whole 4 KiB page, the same
// memory read32/write32 reach, and never a latched fault.
TEST_P(SimTest, PageHostGivesThePagesHostBytesWithoutFaulting) {
  auto h = gpu_->hw().page_host(mem_.va + 0x123);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->host, mem_.cpu);
  EXPECT_TRUE(h->readable);
  EXPECT_TRUE(h->writable);
  auto v = gpu_->alloc(2 * 4096, BufferPlacement::kVram).value();
  ASSERT_TRUE(gpu_->write32(v.va + 4096 + 40, 0xa1b2c3d4u));
  auto hv = gpu_->hw().page_host(v.va + 4096 + 4);
  ASSERT_TRUE(hv.has_value());
  uint32_t x;
  std::memcpy(&x, hv->host + 40, 4);
  EXPECT_EQ(x, 0xa1b2c3d4u);
  x = 0x55aa55aau;
  std::memcpy(hv->host + 4092, &x, 4);  // the page's last dword
  EXPECT_EQ(gpu_->read32(v.va + 2 * 4096 - 4).value(), 0x55aa55aau);
  // Unmapped pages, pages outside the VM context and freed buffers: nothing, and no fault.
  EXPECT_FALSE(gpu_->hw().page_host(mem_.va + 0x10000).has_value());
  EXPECT_FALSE(gpu_->hw().page_host(GpuVa(0)).has_value());
  auto b = gpu_->alloc(4096, BufferPlacement::kHost).value();
  ASSERT_TRUE(gpu_->free(b));
  EXPECT_FALSE(gpu_->hw().page_host(b.va).has_value());
  EXPECT_FALSE(gpu_->fault_state().faulted);
  ASSERT_TRUE(gpu_->free(v));
}

TEST_P(SimTest, FreedBufferFaults) {
  auto b = gpu_->alloc(4096, BufferPlacement::kHost).value();
  ASSERT_TRUE(gpu_->read32(b.va));
  ASSERT_TRUE(gpu_->free(b));
  EXPECT_FALSE(gpu_->read32(b.va));
  EXPECT_TRUE(gpu_->fault_state().faulted);
  auto again = gpu_->free(b);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), Errc::kNotFound);
}

TEST_P(SimTest, AllocRejectsBadSizes) {
  EXPECT_EQ(gpu_->alloc(0, BufferPlacement::kHost).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(gpu_->create_compute_queue(6000).error().code(), Errc::kInvalidArgument);
}

TEST_P(SimTest, WriteDataAndNop) {
  auto p = write_data(mem_.va + 16, 0xabc);
  p.insert(p.begin(), {hdr(pm4::PACKET3_NOP, 2), 0xdead, 0xbeef});
  submit(p);
  EXPECT_EQ(word(mem_, 16), 0xabcu);
  EXPECT_EQ(*q_.rptr, 8u);
  EXPECT_EQ(gpu_->queue_status(q_.id).packets, 2u);
}

TEST_P(SimTest, Type2FillerIsSkipped) {
  auto p = write_data(mem_.va, 7);
  p.insert(p.begin(), pm4::CP_PACKET2);
  submit(p);
  EXPECT_EQ(word(mem_, 0), 7u);
}

TEST_P(SimTest, ReleaseMem32And64AndTimestamp) {
  const uint32_t ev = 0x14 | (5 << 8);
  submit({hdr(pm4::PACKET3_RELEASE_MEM, 7), ev, 1u << 29, lo(mem_.va), hi(mem_.va), 0x11111111,
          0x22222222, 0});
  EXPECT_EQ(word(mem_, 0), 0x11111111u);
  EXPECT_EQ(word(mem_, 4), 0u);  // data_sel 1 writes only 32 bits
  submit({hdr(pm4::PACKET3_RELEASE_MEM, 7), ev, 2u << 29, lo(mem_.va + 8), hi(mem_.va + 8),
          0x33333333, 0x44444444, 0});
  EXPECT_EQ(word(mem_, 8), 0x33333333u);
  EXPECT_EQ(word(mem_, 12), 0x44444444u);
  submit({hdr(pm4::PACKET3_RELEASE_MEM, 7), ev, 3u << 29, lo(mem_.va + 16), hi(mem_.va + 16), 0, 0,
          0});
  submit({hdr(pm4::PACKET3_RELEASE_MEM, 7), ev, 3u << 29, lo(mem_.va + 24), hi(mem_.va + 24), 0, 0,
          0});
  const uint64_t t0 = word(mem_, 16) | (uint64_t{word(mem_, 20)} << 32);
  const uint64_t t1 = word(mem_, 24) | (uint64_t{word(mem_, 28)} << 32);
  EXPECT_GT(t0, 0u);
  EXPECT_GT(t1, t0);
}

TEST_P(SimTest, WaitRegMemRepollsUntilSatisfied) {
  // Wait until mem[0] >= 5, then write a marker.
  std::vector<uint32_t> p = {hdr(pm4::PACKET3_WAIT_REG_MEM, 6),
                             5u | (1u << 4),
                             lo(mem_.va),
                             hi(mem_.va),
                             5,
                             0xffffffff,
                             4};
  auto w = write_data(mem_.va + 4, 0x77);
  p.insert(p.end(), w.begin(), w.end());
  submit(p);
  EXPECT_EQ(word(mem_, 4), 0u);
  EXPECT_TRUE(gpu_->queue_status(q_.id).waiting);
  EXPECT_EQ(*q_.rptr, 0u);
  mem_.cpu[0] = 4;
  gpu_->poll();
  EXPECT_EQ(word(mem_, 4), 0u);
  mem_.cpu[0] = 5;
  gpu_->poll();
  EXPECT_EQ(word(mem_, 4), 0x77u);
  EXPECT_FALSE(gpu_->queue_status(q_.id).waiting);
  EXPECT_EQ(*q_.rptr, 12u);
}

TEST_P(SimTest, WaitRegMemFunctionsCompareMaskedValues) {
  struct Case {
    uint32_t fn, mem, ref, mask;
    bool pass;
  };
  const Case cases[] = {{1, 3, 4, ~0u, true},      {1, 4, 4, ~0u, false}, {2, 4, 4, ~0u, true},
                        {3, 0x1f, 0xf, 0xf, true}, {4, 4, 4, ~0u, false}, {6, 5, 4, ~0u, true},
                        {6, 4, 4, ~0u, false},     {0, 0, 9, ~0u, true}};
  for (const Case& c : cases) {
    auto g = SimGpu::create(GetParam()).value();
    auto q = g->create_compute_queue(4096).value();
    auto m = g->alloc(4096, BufferPlacement::kHost).value();
    std::memcpy(m.cpu, &c.mem, 4);
    const uint32_t dws[] = {
        hdr(pm4::PACKET3_WAIT_REG_MEM, 6), c.fn | (1u << 4), lo(m.va), hi(m.va), c.ref, c.mask, 4};
    std::memcpy(q.ring.cpu, dws, sizeof dws);
    g->ring_doorbell(q.doorbell, 7);
    EXPECT_EQ(*q.rptr == 7, c.pass) << "function " << c.fn << " mem " << c.mem << " ref " << c.ref;
  }
}

TEST_P(SimTest, UnknownOpcodeStopsTheQueueWithADecodedError) {
  auto p = write_data(mem_.va, 1);
  auto after = write_data(mem_.va + 4, 2);
  p.push_back(hdr(0x01, 1));
  p.push_back(0);
  p.insert(p.end(), after.begin(), after.end());
  submit(p);
  EXPECT_EQ(word(mem_, 0), 1u);
  EXPECT_EQ(word(mem_, 4), 0u);  // nothing after the bad packet runs
  auto s = gpu_->queue_status(q_.id);
  EXPECT_TRUE(s.stopped);
  EXPECT_EQ(s.rptr, 5u);
  EXPECT_EQ(s.error, "ring dword 5: unknown PM4 opcode 0x01 (header 0xc0000100)");
  auto f = gpu_->fault_state();
  EXPECT_TRUE(f.queue_error);
  EXPECT_FALSE(f.faulted);
  EXPECT_NE(f.description.find("queue 0 stopped"), std::string::npos) << f.description;
}

TEST_P(SimTest, TruncatedPacketIsMalformed) {
  submit({hdr(pm4::PACKET3_RELEASE_MEM, 7), 0, 0});
  auto s = gpu_->queue_status(q_.id);
  EXPECT_TRUE(s.stopped);
  EXPECT_EQ(s.error, "ring dword 0: RELEASE_MEM (0x49) needs 8 dwords but only 3 were submitted");
}

TEST_P(SimTest, WrongLengthAndBadFieldsAreReported) {
  submit({hdr(pm4::PACKET3_WAIT_REG_MEM, 2), 0, 0});
  EXPECT_EQ(gpu_->queue_status(q_.id).error,
            "ring dword 0: WAIT_REG_MEM with 2 body dwords (expected 6)");
  auto g = SimGpu::create(GetParam()).value();
  auto q = g->create_compute_queue(4096).value();
  const uint32_t dws[] = {hdr(pm4::PACKET3_SET_SH_REG, 3), 0x3ff, 1, 2};
  std::memcpy(q.ring.cpu, dws, sizeof dws);
  g->ring_doorbell(q.doorbell, 4);
  EXPECT_EQ(
      g->queue_status(q.id).error,
      "ring dword 0: SET_SH_REG writes registers 0x3ff..+2 outside the window (0x400 dwords)");
}

TEST_P(SimTest, WptrBeyondTheRingStopsTheQueue) {
  gpu_->ring_doorbell(q_.doorbell, 1025);
  EXPECT_TRUE(gpu_->queue_status(q_.id).stopped);
}

TEST_P(SimTest, IndirectBufferRunsAndReturns) {
  auto ib = gpu_->alloc(4096, BufferPlacement::kHost).value();
  auto w1 = write_data(mem_.va + 32, 0x1b);
  std::memcpy(ib.cpu, w1.data(), w1.size() * 4);
  std::vector<uint32_t> p = {hdr(pm4::PACKET3_INDIRECT_BUFFER, 3), lo(ib.va), hi(ib.va),
                             5u | pm4::INDIRECT_BUFFER_VALID};
  auto w2 = write_data(mem_.va + 36, 0x2b);
  p.insert(p.end(), w2.begin(), w2.end());
  submit(p);
  EXPECT_EQ(word(mem_, 32), 0x1bu);
  EXPECT_EQ(word(mem_, 36), 0x2bu);
  EXPECT_FALSE(gpu_->queue_status(q_.id).stopped);
}

TEST_P(SimTest, IndirectBufferFaultStopsWithFaultState) {
  const GpuVa bad = mem_.va + 0x100000;
  submit({hdr(pm4::PACKET3_INDIRECT_BUFFER, 3), lo(bad), hi(bad), 4u | pm4::INDIRECT_BUFFER_VALID});
  auto s = gpu_->queue_status(q_.id);
  EXPECT_TRUE(s.stopped);
  EXPECT_NE(s.error.find("VM fault: read unmapped page"), std::string::npos) << s.error;
  auto f = gpu_->fault_state();
  EXPECT_TRUE(f.faulted);
  EXPECT_EQ(f.address, bad);
  EXPECT_EQ(f.status, 1u << 8);
}

TEST_P(SimTest, DispatchDirectHandsTheProgrammedStateToTheExecutor) {
  RecordingExecutor rec;
  gpu_->set_executor(&rec);
  // SH-window indices: gfx11 segment-0 base 0x1260 + offset - 0x2c00 (gc_11_0_0_offset.h).
  const uint32_t kPgmLo = 0x20c, kRsrc1 = 0x212, kUserData0 = 0x240, kStartX = 0x204,
                 kScratchLo = 0x210, kTmpring = 0x218, kRsrc3 = 0x228;
  submit({hdr(pm4::PACKET3_SET_SH_REG, 3),
          kPgmLo,
          0x123456,
          0x1,
          hdr(pm4::PACKET3_SET_SH_REG, 3),
          kRsrc1,
          0xaaaa,
          (3u << 1) | (2u << 15),
          hdr(pm4::PACKET3_SET_SH_REG, 2),
          kRsrc3,
          0x33,
          hdr(pm4::PACKET3_SET_SH_REG, 2),
          kTmpring,
          0x5000,
          hdr(pm4::PACKET3_SET_SH_REG, 3),
          kScratchLo,
          0x100,
          0,
          hdr(pm4::PACKET3_SET_SH_REG, 4),
          kUserData0,
          0xd0,
          0xd1,
          0xd2,
          hdr(pm4::PACKET3_SET_SH_REG, 9),
          kStartX,
          0,
          0,
          0,
          64,
          2,
          1,
          0,
          0,
          hdr(pm4::PACKET3_DISPATCH_DIRECT, 4),
          7,
          8,
          9,
          0x8005});
  ASSERT_FALSE(gpu_->queue_status(q_.id).stopped) << gpu_->queue_status(q_.id).error;
  ASSERT_EQ(rec.states.size(), 1u);
  const DispatchState& s = rec.states[0];
  EXPECT_EQ(s.program, GpuVa(0x10012345600));
  EXPECT_EQ(s.rsrc1, 0xaaaau);
  EXPECT_EQ(s.rsrc3, 0x33u);
  EXPECT_EQ(s.tmpring_size, 0x5000u);
  EXPECT_EQ(s.scratch_base, GpuVa(0x10000));
  EXPECT_EQ(s.user_data, (std::vector<uint32_t>{0xd0, 0xd1, 0xd2}));
  EXPECT_EQ(s.workgroup, (std::array<uint32_t, 3>{64, 2, 1}));
  EXPECT_EQ(s.grid, (std::array<uint32_t, 3>{7, 8, 9}));
  EXPECT_TRUE(s.wave32);
  EXPECT_EQ(s.lds_bytes, 1024u);
}

TEST_P(SimTest, DispatchWithoutExecutorStops) {
  submit({hdr(pm4::PACKET3_DISPATCH_DIRECT, 4), 1, 1, 1, 1});
  EXPECT_EQ(gpu_->queue_status(q_.id).error,
            "ring dword 0: DISPATCH_DIRECT but no dispatch executor is installed");
}

TEST_P(SimTest, PacketsStraddlingTheRingEndExecute) {
  // A NOP fills the ring up to dword 1022; the 5-dword write then occupies 1022, 1023, 0, 1, 2.
  std::vector<uint32_t> fill = {hdr(pm4::PACKET3_NOP, 1021)};
  fill.resize(1022, 0);
  submit(fill);
  ASSERT_EQ(*q_.rptr, 1022u);
  submit(write_data(mem_.va + 40, 0x5a5a));
  EXPECT_EQ(word(mem_, 40), 0x5a5au);
  EXPECT_EQ(*q_.rptr, 1027u);
}

INSTANTIATE_TEST_SUITE_P(Profiles, SimTest, ::testing::Values(110000u, 120001u),
                         [](const ::testing::TestParamInfo<uint32_t>& i) {
                           return std::string(i.param == 110000 ? "gfx1100" : "gfx1201");
                         });

}  // namespace
}  // namespace rawgpu::sim
