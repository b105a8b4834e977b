// drivers::amd::PciAmdDevice over the simulated GPU's PCI function (bare hardware): open enables
// the function, resizes BAR0 over VRAM and programs VM context 0 through BAR5; compute queues
// come up from an MQD and the HQD registers, copy queues from the SDMA queue registers; packets
// run on BAR2 doorbells; faults are read back from the fault registers; close dequeues and
// unmaps every DMA buffer.
#include "rawgpu/drivers/amd/pci_device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "../drivers/golden.h"
#include "rawgpu/autogen/amd/pm4_nvd.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/base/poll.h"
#include "rawgpu/base/shared_memory.h"
#include "rawgpu/drivers/amd/discover.h"
#include "rawgpu/sim/amd_pci.h"
#include "rawgpu/sim/discovery_table.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::drivers::amd {
namespace {

namespace pm4 = autogen::amd::pm4_nvd;

size_t count_lines(const std::vector<std::string>& t, const std::string& needle) {
  return static_cast<size_t>(std::count_if(t.begin(), t.end(), [&](const std::string& l) {
    return l.find(needle) != std::string::npos;
  }));
}

class PciAmd : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    sim::AmdPciConfig c;
    c.gpu.gc_version = GetParam();
    c.trace = true;
    fn_ = std::move(sim::AmdPciFunction::create(c).value());
  }
  std::unique_ptr<PciAmdDevice> open() {
    PciAmdOptions o = sim::sim_driver_options(*fn_).value();
    auto d = PciAmdDevice::open(*fn_, o);
    EXPECT_TRUE(d.ok()) << d.error().to_string();
    return d.ok() ? std::move(*d) : nullptr;
  }
  uint32_t vm_base_lo() {
    const uint32_t off =
        GetParam() >= 120000
            ? autogen::amd::gc_12_0_0::GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32::kInfo.offset
            : autogen::amd::gc_11_0_0::GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32::kInfo.offset;
    return fn_->gpu().read_reg(0x1260 + off);
  }
  std::unique_ptr<sim::AmdPciFunction> fn_;
};

TEST_P(PciAmd, OpenEnablesTheFunctionResizesBar0AndProgramsTheVmContext) {
  auto d = open();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->gc_version(), GetParam());  // identified from the IP discovery table
  EXPECT_EQ(d->target(), GetParam() >= 120000 ? "gfx1201" : "gfx1100");
  EXPECT_EQ(d->discovery().ips.size(), 9u);
  EXPECT_EQ(d->vram_size(), 1ull << 30);  // from RCC_CONFIG_MEMSIZE
  EXPECT_TRUE(fn_->bus_master());
  EXPECT_TRUE(fn_->memory_enabled());
  EXPECT_EQ(fn_->bar(0).value().size, 1ull << 30);
  const auto& t = fn_->trace();
  EXPECT_EQ(count_lines(t, "RCC_DEV0_EPF0_RCC_CONFIG_MEMSIZE -> 0x00000400"), 1u);
  EXPECT_EQ(count_lines(t, "BAR0 resized to 1 GiB"), 1u);
  // The page-directory base is the manager's root table, valid bit set; the context is enabled
  // last.
  EXPECT_EQ(vm_base_lo(),
            static_cast<uint32_t>(d->memory_manager().page_table().root().raw()) | 1u);
  auto last_cntl = std::find_if(t.rbegin(), t.rend(), [](const std::string& l) {
    return l.find("GCVM_CONTEXT0_") != std::string::npos;
  });
  ASSERT_NE(last_cntl, t.rend());
  EXPECT_NE(last_cntl->find("GCVM_CONTEXT0_CNTL = "), std::string::npos) << *last_cntl;
}

TEST_P(PciAmd, ComputeQueueComesUpFromTheHqdRegistersAndRunsOnBar2Doorbells) {
  auto d = open();
  ASSERT_NE(d, nullptr);
  fn_->clear_trace();
  const ComputeQueueDesc q = d->create_compute_queue(4096).value();
  EXPECT_EQ(fn_->gpu().compute_queue_count(), 1u);
  const auto& t = fn_->trace();
  EXPECT_EQ(count_lines(t, "GRBM_GFX_CNTL = 0x00000004"), 1u);  // ME 1, pipe 0, queue 0
  EXPECT_EQ(count_lines(t, "CP_HQD_PQ_BASE = "), 1u);
  EXPECT_EQ(count_lines(t, "CP_MQD_BASE_ADDR = "), 1u);
  EXPECT_EQ(count_lines(t, "CP_HQD_ACTIVE = 0x00000001"), 1u);
  // Host memory for the packet's target: DMA memory mapped at its bus address.
  const DeviceBuffer mem = d->alloc(4096, BufferPlacement::kHost).value();
  const GpuVa dst = mem.va + 32;
  const uint32_t pkt[] = {(3u << 30) | (3u << 16) | (pm4::PACKET3_WRITE_DATA << 8),
                          pm4::WRITE_DATA_DST_SEL(5), static_cast<uint32_t>(dst.raw()),
                          static_cast<uint32_t>(dst.raw() >> 32), 0xfeedf00d};
  std::memcpy(q.ring.cpu, pkt, sizeof(pkt));
  *q.wptr = 5;
  d->ring_doorbell(q.doorbell, 5);
  // (With RAWGPU_SIM_THREAD=1 the device thread gets there shortly.)
  ASSERT_TRUE(poll_until("rptr 5", [&] {
    d->poll();
    return load_acquire(q.rptr) == 5;
  }));
  uint32_t v;
  std::memcpy(&v, mem.cpu + 32, 4);
  EXPECT_EQ(v, 0xfeedf00du);
  EXPECT_EQ(load_acquire(q.rptr), 5u);  // written back by DMA through the page tables
  EXPECT_EQ(count_lines(t, "BAR2 wr64 0x000018 doorbell 3 = 0x5"), 1u);
  EXPECT_FALSE(d->fault_state().faulted);
}

TEST_P(PciAmd, CopyQueuesUseBothSdmaEngines) {
  auto d = open();
  ASSERT_NE(d, nullptr);
  const CopyQueueDesc a = d->create_copy_queue(4096).value();
  const CopyQueueDesc b = d->create_copy_queue(8192).value();
  EXPECT_EQ(a.doorbell, 0x100u);
  EXPECT_EQ(b.doorbell, 0x10au);
  EXPECT_EQ(fn_->gpu().copy_queue_count(), 2u);
  EXPECT_EQ(count_lines(fn_->trace(), "SDMA0_QUEUE0_RB_CNTL = "), 2u);  // disabled, then enabled
  EXPECT_EQ(count_lines(fn_->trace(), "SDMA1_QUEUE0_RB_CNTL = "), 2u);
  EXPECT_EQ(d->create_copy_queue(4096).error().code(), Errc::kBusy);
  // A NOP on engine 1 is consumed and the read pointer written back.
  const uint32_t nop = 0;
  std::memcpy(b.ring.cpu, &nop, 4);
  d->ring_doorbell(b.doorbell, 4);
  ASSERT_TRUE(poll_until("rptr 4", [&] {
    d->poll();
    return load_acquire(b.rptr) == 4;
  }));
  EXPECT_FALSE(fn_->gpu().copy_queue_status(b.id).stopped)
      << fn_->gpu().copy_queue_status(b.id).error;
}

TEST_P(PciAmd, FaultsAreDecodedFromTheFaultRegisters) {
  auto d = open();
  ASSERT_NE(d, nullptr);
  const ComputeQueueDesc q = d->create_compute_queue(4096).value();
  const GpuVa dst(0x7000000000ull);  // inside the VM context, never mapped
  const uint32_t pkt[] = {(3u << 30) | (3u << 16) | (pm4::PACKET3_WRITE_DATA << 8),
                          pm4::WRITE_DATA_DST_SEL(5), static_cast<uint32_t>(dst.raw()),
                          static_cast<uint32_t>(dst.raw() >> 32), 1};
  std::memcpy(q.ring.cpu, pkt, sizeof(pkt));
  d->ring_doorbell(q.doorbell, 5);
  ASSERT_TRUE(poll_until("the fault", [&] {
    d->poll();
    return d->fault_state().queue_error;
  }));
  const FaultState f = d->fault_state();
  EXPECT_TRUE(f.faulted);
  EXPECT_TRUE(f.queue_error);
  EXPECT_EQ(f.address.raw(), dst.raw());
  EXPECT_NE(f.description.find("VM fault at 0x7000000000 (page not mapped, write)"),
            std::string::npos)
      << f.description;
  EXPECT_NE(f.description.find("queue 0 stopped"), std::string::npos) << f.description;
}

TEST_P(PciAmd, CloseDequeuesAndUnmapsEveryDmaBuffer) {
  {
    auto d = open();
    ASSERT_NE(d, nullptr);
    (void)d->create_compute_queue(4096).value();
    (void)d->create_copy_queue(4096).value();
    (void)d->alloc(3 * 4096, BufferPlacement::kHost).value();
  }
  const auto& t = fn_->trace();
  EXPECT_GT(count_lines(t, "dma map "), 0u);
  EXPECT_EQ(count_lines(t, "dma map "), count_lines(t, "dma unmap "));
  EXPECT_EQ(count_lines(t, "CP_HQD_ACTIVE = 0x00000000"), 2u);  // before programming, at close
}

TEST_P(PciAmd, RefusesAGpuThatIsNotBootedOrNotKnown) {
  fn_->gpu().write_reg(sim::AmdGpu::kConfigMemsize, 0);
  auto d = PciAmdDevice::open(*fn_, sim::sim_driver_options(*fn_).value());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code(), Errc::kHardware);
  EXPECT_NE(d.error().to_string().find("not booted"), std::string::npos);
  fn_->gpu().function_reset();  // the straps again
  // A GPU whose discovery table names another GC (here the synthetic MI300X one): refused
  // with what discovery said, whatever its PCI id.
  const std::vector<uint8_t> mi300 = sim::build_discovery_table(sim::discovery_spec(90403).value());
  const uint64_t top = fn_->gpu().vram_size() - kDiscoveryOffsetFromTop;
  std::memcpy(fn_->gpu().vram_base() + top, mi300.data(), mi300.size());
  auto u = PciAmdDevice::open(*fn_, sim::sim_driver_options(*fn_).value());
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.error().code(), Errc::kUnsupported);
  EXPECT_NE(u.error().to_string().find("GC 9.4.3 (gfx942)"), std::string::npos)
      << u.error().to_string();
  // A corrupt table is a parse error naming the table, not a guess.
  fn_->gpu().vram_base()[top + 100] ^= 0xff;
  auto c = PciAmdDevice::open(*fn_, sim::sim_driver_options(*fn_).value());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code(), Errc::kParse);
  EXPECT_NE(c.error().to_string().find("checksum mismatch"), std::string::npos)
      << c.error().to_string();
  // A firmware that never finishes its init: a timeout on the function's (virtual) clock.
  fn_->gpu().write_reg(sim::AmdGpu::kIfwiStatus, 0);
  auto t = PciAmdDevice::open(*fn_, sim::sim_driver_options(*fn_).value());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code(), Errc::kTimeout);
  EXPECT_NE(t.error().to_string().find("MP0_SMN_C2PMSG_33"), std::string::npos)
      << t.error().to_string();
  // A function that stopped answering reads all ones.
  fn_->gpu().write_reg(sim::AmdGpu::kIfwiStatus, 0x80000000u);
  fn_->gpu().write_reg(sim::AmdGpu::kConfigMemsize, 0xffffffffu);
  EXPECT_EQ(PciAmdDevice::open(*fn_, sim::sim_driver_options(*fn_).value()).error().code(),
            Errc::kHardware);
}

TEST_P(PciAmd, DiscoveryReadsTheSameTableThroughBar0AndTheMmIndexWindow) {
  ASSERT_TRUE(fn_->cfg_write(0x04, 2, 0x6).ok());  // memory decode, bus mastering
  DiscoverOptions o;
  o.resize_bar0 = false;  // BAR0 stays at its 256 MiB: the table (VRAM - 64 KiB) is beyond it
  auto small = read_discovery(*fn_, o);
  ASSERT_TRUE(small.ok()) << small.error().to_string();
  EXPECT_FALSE(small->through_bar0);
  EXPECT_EQ(small->vram_size, fn_->gpu().vram_size());
  EXPECT_EQ(small->bytes, fn_->gpu().discovery_table());
  // One MM_INDEX write and one MM_DATA read per dword; MM_INDEX_HI once per read (the header,
  // then the rest: all below 2 GiB).
  const size_t dwords = small->bytes.size() / 4;
  EXPECT_EQ(count_lines(fn_->trace(), "BIF_BX_PF0_MM_INDEX = "), dwords);
  EXPECT_EQ(count_lines(fn_->trace(), "BIF_BX_PF0_MM_DATA -> "), dwords);
  EXPECT_EQ(count_lines(fn_->trace(), "BIF_BX_PF0_MM_INDEX_HI = "), 2u);
  auto large = read_discovery(*fn_);  // resizes BAR0 over VRAM and reads through it
  ASSERT_TRUE(large.ok()) << large.error().to_string();
  EXPECT_TRUE(large->through_bar0);
  EXPECT_EQ(large->bytes, small->bytes);
  EXPECT_EQ(describe(large->discovery), describe(small->discovery));
}

TEST_P(PciAmd, OpenWaitsForTheFirmwareOnTheFunctionsClock) {
  // The firmware's init finishes only after 50 reads of its status: the driver polls, on the
  // function's virtual clock, and then opens normally.
  sim::FaultRule r;
  r.trigger = sim::FaultRule::Trigger::kRegisterRead;
  r.target = sim::AmdGpu::kIfwiStatus;
  r.action = sim::FaultRule::Action::kReadValue;
  r.value = 0;
  r.count = 50;
  fn_->add_fault(r);
  auto d = open();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(fn_->faults_fired(), 50u);
  EXPECT_EQ(count_lines(fn_->trace(), "MP0_SMN_C2PMSG_33 -> 0x80000000") +
                count_lines(fn_->trace(), "MPASP_SMN_C2PMSG_33 -> 0x80000000"),
            1u);
}

TEST_P(PciAmd, FaultPlanATlbInvalidationThatNeverAcksFailsTheAllocationCleanly) {
  auto d = open();
  ASSERT_NE(d, nullptr);
  // Where the next 1 MiB buffer goes: allocated and freed again.
  auto probe = d->alloc(1 << 20, BufferPlacement::kVram);
  ASSERT_TRUE(probe.ok());
  ASSERT_TRUE(d->free(*probe));
  const uint32_t ack =
      0x1260 + (GetParam() >= 120000
                    ? autogen::amd::gc_12_0_0::GCVM_INVALIDATE_ENG17_ACK::kInfo.offset
                    : autogen::amd::gc_11_0_0::GCVM_INVALIDATE_ENG17_ACK::kInfo.offset);
  sim::FaultRule r;
  r.trigger = sim::FaultRule::Trigger::kRegisterRead;
  r.target = ack;
  r.action = sim::FaultRule::Action::kReadValue;
  r.value = 0;
  r.count = 0;  // forever
  fn_->add_fault(r);
  auto b = d->alloc(1 << 20, BufferPlacement::kVram);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code(), Errc::kTimeout);
  EXPECT_NE(b.error().to_string().find("GCVM_INVALIDATE_ENG17_ACK"), std::string::npos)
      << b.error().to_string();
  // A host buffer: its DMA pages are unmapped again.
  fn_->clear_trace();
  auto h = d->alloc(4096, BufferPlacement::kHost);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(count_lines(fn_->trace(), "dma map "), 1u);
  EXPECT_EQ(count_lines(fn_->trace(), "dma unmap "), 1u);
  // Once the GPU acknowledges again, allocation works, at the place the failure released.
  fn_->clear_faults();
  auto again = d->alloc(1 << 20, BufferPlacement::kVram);
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(again->va, probe->va);
}

TEST_P(PciAmd, FaultPlanAFunctionThatFellOffTheBus) {
  sim::FaultRule r;
  r.trigger = sim::FaultRule::Trigger::kRegisterRead;
  r.target = sim::AmdGpu::kConfigMemsize;
  r.action = sim::FaultRule::Action::kReadValue;
  r.value = 0xffffffffu;
  fn_->add_fault(r);
  auto d = PciAmdDevice::open(*fn_, sim::sim_driver_options(*fn_).value());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code(), Errc::kHardware);
  EXPECT_NE(d.error().to_string().find("not responding"), std::string::npos)
      << d.error().to_string();
  EXPECT_EQ(fn_->faults_fired(), 1u);
  EXPECT_EQ(count_lines(fn_->trace(), "-> 0xffffffff (fault plan)"), 1u);
  EXPECT_TRUE(
      PciAmdDevice::open(*fn_, sim::sim_driver_options(*fn_).value()).ok());  // the rule fired once
}

TEST_P(PciAmd, FaultPlanADroppedDoorbellLeavesTheQueueIdleUntilTheNextOne) {
  auto d = open();
  ASSERT_NE(d, nullptr);
  const ComputeQueueDesc q = d->create_compute_queue(4096).value();
  sim::FaultRule r;
  r.trigger = sim::FaultRule::Trigger::kDoorbell;
  r.target = q.doorbell;
  r.action = sim::FaultRule::Action::kDrop;
  fn_->add_fault(r);
  const uint32_t nop[2] = {(3u << 30) | (0u << 16) | (pm4::PACKET3_NOP << 8), 0};  // 2 dwords
  std::memcpy(q.ring.cpu, nop, sizeof(nop));
  *q.wptr = 2;
  d->ring_doorbell(q.doorbell, 2);
  for (int i = 0; i < 100; ++i) d->poll();
  EXPECT_EQ(load_acquire(q.rptr), 0u);
  EXPECT_EQ(count_lines(fn_->trace(), "(dropped: fault plan)"), 1u);
  d->ring_doorbell(q.doorbell, 2);
  ASSERT_TRUE(poll_until("rptr 2", [&] {
    d->poll();
    return load_acquire(q.rptr) == 2;
  })) << fn_->gpu().queue_status(q.id).error;
}

TEST_P(PciAmd, FaultPlanFailedDmaAllocationLeavesNothingHalfDone) {
  auto d = open();
  ASSERT_NE(d, nullptr);
  sim::FaultRule r;
  r.trigger = sim::FaultRule::Trigger::kAllocDma;
  r.nth = 2;  // the queue's pointer page, after its ring
  r.action = sim::FaultRule::Action::kFail;
  fn_->add_fault(r);
  fn_->clear_trace();
  auto q = d->create_compute_queue(4096);
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().code(), Errc::kOutOfMemory);
  EXPECT_EQ(count_lines(fn_->trace(), "dma map failed (fault plan)"), 1u);
  EXPECT_EQ(count_lines(fn_->trace(), "dma map 0x"), 1u);  // the ring: freed again
  EXPECT_EQ(count_lines(fn_->trace(), "dma unmap 0x"), 1u);
  EXPECT_EQ(fn_->gpu().compute_queue_count(), 0u);
  const ComputeQueueDesc ok = d->create_compute_queue(4096).value();  // and it recovers
  EXPECT_EQ(ok.id, 0u);
}

// A peer's host memory (here a page of our own, as another device's signal page would be)
// mapped through the function's DMA map: the GPU writes land in it; free unmaps it and leaves
// the memory to its owner.
TEST_P(PciAmd, MapExternalMapsAPeersPageThroughTheDmaMap) {
  auto d = open();
  ASSERT_NE(d, nullptr);
  alignas(4096) static uint8_t peer[4096];
  std::memset(peer, 0, sizeof peer);
  fn_->clear_trace();
  const DeviceBuffer m = d->map_external(peer, sizeof peer).value();
  EXPECT_EQ(m.cpu, peer);
  EXPECT_EQ(count_lines(fn_->trace(), "(external)"), 1u);
  ASSERT_TRUE(fn_->gpu().write32(m.va + 64, 0xfeedf00d));
  uint32_t v = 0;
  std::memcpy(&v, peer + 64, 4);
  EXPECT_EQ(v, 0xfeedf00du);
  ASSERT_TRUE(d->free(m));
  EXPECT_EQ(count_lines(fn_->trace(), "dma unmap 0x"), 1u);
  EXPECT_FALSE(fn_->gpu().write32(m.va + 64, 1).ok());  // unmapped: a VM fault
  EXPECT_EQ(d->map_external(peer + 1, 4096).error().code(), Errc::kInvalidArgument);
}

// The whole register, doorbell and DMA sequence of a cold boot (open), one compute queue, one
// copy queue and close, then of a warm boot over what it left, against checked-in golden traces
// per profile: a reordered, added or dropped step shows up in review (RAWGPU_UPDATE_GOLDEN=1
// rewrites them).
TEST_P(PciAmd, ColdAndWarmBootQueuesAndCloseFollowTheGoldenRegisterSequence) {
  const std::string p = GetParam() >= 120000 ? "gfx1201" : "gfx1100";
  for (const char* kind : {"cold", "warm"}) {
    fn_->clear_trace();
    {
      auto d = open();
      ASSERT_NE(d, nullptr);
      EXPECT_EQ(boot_kind_name(d->boot_report().kind), kind);
      const ComputeQueueDesc q = d->create_compute_queue(4096).value();
      (void)d->create_copy_queue(4096).value();
      d->ring_doorbell(q.doorbell, 0);
    }
    std::string text;
    for (const std::string& l : fn_->trace()) text += l + "\n";
    const std::string name =
        std::string(kind) == "cold" ? "pci_amd_" + p + ".trace" : "pci_amd_" + p + "_warm.trace";
    EXPECT_TRUE(rawgpu::testing::matches_golden(name, text));
  }
}

INSTANTIATE_TEST_SUITE_P(Profiles, PciAmd, ::testing::Values(110000u, 120001u),
                         [](const ::testing::TestParamInfo<uint32_t>& i) {
                           return std::string(i.param == 110000 ? "gfx1100" : "gfx1201");
                         });

}  // namespace
}  // namespace rawgpu::drivers::amd
