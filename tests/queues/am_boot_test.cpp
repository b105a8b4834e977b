// The AM boot (drivers/amd boot.h) against the simulated GPU's boot-time engines: a cold boot
// walks every IP block and leaves the PSP, SMU, RLC, MEC and SDMA running; a second open after a
// clean close warm-boots without touching the PSP or SMU; an unclean exit or a function reset
// leads to a mode-1 reset and a cold boot; every boot-step fault the plan can inject reaches
// the opener as a typed error naming the step, and the next boot succeeds. After each boot a
// compute queue executes a packet, so "booted" means "works".
#include <gtest/gtest.h>

#include <cstring>

#include "rawgpu/autogen/amd/pm4_nvd.h"
#include "rawgpu/autogen/amd/psp_gfx_if.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/autogen/amd/regs/mp_13_0_0.h"
#include "rawgpu/autogen/amd/sdma_v6.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/poll.h"
#include "rawgpu/base/shared_memory.h"
#include "rawgpu/drivers/amd/boot.h"
#include "rawgpu/drivers/amd/pci_device.h"
#include "rawgpu/sim/amd_pci.h"
#include "rawgpu/sim/sim_bases.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::drivers::amd {
namespace {

namespace pm4 = autogen::amd::pm4_nvd;
namespace psp = autogen::amd::psp;
using sim::FaultRule;

constexpr uint32_t kPsp35 =
    sim::bases::kMp[0] + autogen::amd::mp_13_0_0::MP0_SMN_C2PMSG_35::kInfo.offset;
constexpr uint32_t kScratch6 =
    sim::bases::kGc[1] + autogen::amd::gc_11_0_0::SCRATCH_REG6::kInfo.offset;

class AmBootTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    sim::AmdPciConfig c;
    c.gpu.gc_version = GetParam();
    c.faults_from_env = false;
    fn_ = std::move(sim::AmdPciFunction::create(c).value());
  }
  Result<std::unique_ptr<PciAmdDevice>> try_open(bool reset = false) {
    PciAmdOptions o = RG_TRY(sim::sim_driver_options(*fn_));
    o.boot.force_reset = reset;
    return PciAmdDevice::open(*fn_, o);
  }
  std::unique_ptr<PciAmdDevice> open(bool reset = false) {
    auto d = try_open(reset);
    EXPECT_TRUE(d.ok()) << d.error().to_string();
    return d.ok() ? std::move(*d) : nullptr;
  }
  // A WRITE_DATA through a fresh compute queue lands in host memory.
  void expect_queue_works(PciAmdDevice& d) {
    const ComputeQueueDesc q = d.create_compute_queue(4096).value();
    const DeviceBuffer mem = d.alloc(4096, BufferPlacement::kHost).value();
    const uint32_t pkt[] = {(3u << 30) | (3u << 16) | (pm4::PACKET3_WRITE_DATA << 8),
                            pm4::WRITE_DATA_DST_SEL(5), static_cast<uint32_t>(mem.va.raw()),
                            static_cast<uint32_t>(mem.va.raw() >> 32), 0x600dc0de};
    std::memcpy(q.ring.cpu, pkt, sizeof(pkt));
    *q.wptr = 5;
    d.ring_doorbell(q.doorbell, 5);
    ASSERT_TRUE(poll_until("rptr 5", [&] {
      d.poll();
      return load_acquire(q.rptr) == 5;
    }));
    uint32_t v = 0;
    std::memcpy(&v, mem.cpu, 4);
    EXPECT_EQ(v, 0x600dc0deu);
  }
  static size_t count(const BootReport& r, const std::string& block, bool skipped) {
    return static_cast<size_t>(
        std::count_if(r.steps.begin(), r.steps.end(),
                      [&](const BootStep& s) { return s.block == block && s.skipped == skipped; }));
  }
  std::unique_ptr<sim::AmdPciFunction> fn_;
};

TEST_P(AmBootTest, ColdBootWalksEveryBlockAndLeavesTheFirmwareRunning) {
  // Power-on: nothing runs; a queue programmed without the boot would never execute.
  EXPECT_FALSE(fn_->gpu().boot_status().sos_alive);
  auto d = open();
  ASSERT_NE(d, nullptr);
  const BootReport& r = d->boot_report();
  EXPECT_EQ(r.kind, BootKind::kCold);
  EXPECT_NE(r.reason.find("no previous rawgpu boot"), std::string::npos) << r.reason;
  for (const char* b : {"SOC", "GMC", "IH", "PSP", "SMU", "GFX", "SDMA"})
    EXPECT_GT(count(r, b, false), 0u) << b;
  EXPECT_GT(r.mmio_writes, 100u);
  EXPECT_EQ(r.firmware.size(), GetParam() >= 120000 ? 8u : 6u);  // + PFP and ME on GC 12
  for (const FirmwareImage& f : r.firmware) EXPECT_EQ(f.sha256.size(), 64u) << f.name;
  const sim::BootStatus s = fn_->gpu().boot_status();
  EXPECT_TRUE(s.sos_alive && s.km_ring && s.toc && s.rlc_autoload && s.smu_running &&
              s.smu_features);
  EXPECT_TRUE(s.errors.empty()) << s.errors.front();
  // Bootloader: SYS_DRV and KDB before SOS, SOS last.
  ASSERT_FALSE(s.bootloader.empty());
  EXPECT_EQ(s.bootloader.back(), 0x20000u);
  // The SMU image first, every GC image, SDMA.
  ASSERT_FALSE(s.ip_fw.empty());
  EXPECT_EQ(s.ip_fw.front(), uint32_t{psp::GFX_FW_TYPE_SMU});
  for (uint32_t t : {psp::GFX_FW_TYPE_RS64_MEC, psp::GFX_FW_TYPE_RLC_G, psp::GFX_FW_TYPE_IMU_I,
                     psp::GFX_FW_TYPE_SDMA_UCODE_TH0})
    EXPECT_NE(std::find(s.ip_fw.begin(), s.ip_fw.end(), t), s.ip_fw.end()) << t;
  // MP0 13.0.0 takes SETUP_TMR; 14.0.3's TMR is the bootloader's.
  EXPECT_EQ(s.tmr_mc != 0, GetParam() < 120000);
  EXPECT_EQ(s.smu_driver_table != 0, true);
  const std::string text = describe(r);
  EXPECT_NE(text.find("AUTOLOAD_RLC"), std::string::npos) << text;
  expect_queue_works(*d);
}

TEST_P(AmBootTest, WarmBootAfterACleanCloseSkipsPspAndSmu) {
  open().reset();  // cold, then a clean close
  const uint64_t psp_cmds = fn_->gpu().boot_status().psp_commands;
  auto d = open();
  ASSERT_NE(d, nullptr);
  const BootReport& r = d->boot_report();
  EXPECT_EQ(r.kind, BootKind::kWarm) << r.reason;
  EXPECT_GT(count(r, "PSP", true), 0u);
  EXPECT_EQ(count(r, "PSP", false), 0u);
  EXPECT_TRUE(r.firmware.empty());
  EXPECT_EQ(fn_->gpu().boot_status().psp_commands, psp_cmds);  // the sOS was not asked anything
  EXPECT_EQ(fn_->gpu().boot_status().mode1_resets, 0u);
  EXPECT_LT(r.mmio_reads + r.mmio_writes, 400u);
  expect_queue_works(*d);
}

TEST_P(AmBootTest, AnUncleanExitOrAFunctionResetLeadsToAModeOneResetAndAColdBoot) {
  open().reset();
  fn_->gpu().write_reg(kScratch6, 1);  // as a process that died mid-run leaves it
  {
    auto d = open();
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->boot_report().kind, BootKind::kColdReset);
    EXPECT_NE(d->boot_report().reason.find("SCRATCH_REG6"), std::string::npos);
    EXPECT_EQ(fn_->gpu().boot_status().mode1_resets, 1u);
    expect_queue_works(*d);
  }
  ASSERT_TRUE(fn_->reset());  // FLR: the engines go, the PSP and SMU keep running
  {
    auto d = open();
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->boot_report().kind, BootKind::kColdReset);
    EXPECT_EQ(fn_->gpu().boot_status().mode1_resets, 2u);
    expect_queue_works(*d);
  }
  auto d = open(/*reset=*/true);  // rawgpu boot --reset
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->boot_report().kind, BootKind::kColdReset);
  EXPECT_EQ(fn_->gpu().boot_status().mode1_resets, 3u);
}

// Faults reach the host through the interrupt ring as well as the fault registers: the
// waiter's fault state carries the decoded entry (client, source, address).
TEST_P(AmBootTest, QueueFaultsArriveDecodedThroughTheInterruptRing) {
  auto d = open();
  ASSERT_NE(d, nullptr);
  const ComputeQueueDesc q = d->create_compute_queue(4096).value();
  // A WRITE_DATA to a VA nothing maps: a GPUVM fault, UTCL2's interrupt.
  const uint64_t bad = 0x200000000000ull + (5ull << 40);
  const uint32_t pkt[] = {
      (3u << 30) | (3u << 16) | (pm4::PACKET3_WRITE_DATA << 8),
      pm4::WRITE_DATA_DST_SEL(5),
      static_cast<uint32_t>(bad),
      static_cast<uint32_t>(bad >> 32),
      1,
      // then an opcode no CP knows, on a second queue below
  };
  std::memcpy(q.ring.cpu, pkt, sizeof(pkt));
  *q.wptr = 5;
  d->ring_doorbell(q.doorbell, 5);
  ASSERT_TRUE(poll_until("the fault", [&] {
    d->poll();
    return d->fault_state().queue_error;
  }));
  const FaultState f = d->fault_state();
  EXPECT_TRUE(f.faulted);
  EXPECT_NE(f.description.find("interrupt: GFX/UTCL2"), std::string::npos) << f.description;
  EXPECT_NE(
      f.description.find(strformat("VM fault at 0x%llx", static_cast<unsigned long long>(bad))),
      std::string::npos)
      << f.description;
  ASSERT_FALSE(d->interrupt_errors().empty());
  EXPECT_GE(d->interrupts(), 1u);
  EXPECT_GE(fn_->gpu().ih_status().written, 1u);

  // A packet with an opcode no CP knows: CP_BAD_OPCODE from GRBM_CP with the queue's ring id.
  const ComputeQueueDesc q2 = d->create_compute_queue(4096).value();
  const uint32_t junk[] = {(3u << 30) | (0u << 16) | (0xEE << 8), 0};
  std::memcpy(q2.ring.cpu, junk, sizeof(junk));
  *q2.wptr = 2;
  d->ring_doorbell(q2.doorbell, 2);
  ASSERT_TRUE(poll_until("the second interrupt", [&] {  // (the device thread, if any)
    d->poll();
    (void)d->fault_state();
    return d->interrupt_errors().size() >= 2;
  }));
  EXPECT_NE(d->interrupt_errors().back().find("GRBM_CP"), std::string::npos)
      << d->interrupt_errors().back();
  EXPECT_NE(d->interrupt_errors().back().find("BAD_OPCODE"), std::string::npos)
      << d->interrupt_errors().back();
  EXPECT_NE(d->interrupt_errors().back().find("ring 20 "),
            std::string::npos)  // queue 1, ME 1: 1<<4 | 1<<2
      << d->interrupt_errors().back();
}

// The recovery ladder: each fault is fixed by the first rung that can fix it, the rungs below
// it are not tried, and the device executes packets again afterwards.
TEST_P(AmBootTest, RecoveryClimbsTheLadderOnlyAsFarAsNeeded) {
  auto d = open();
  ASSERT_NE(d, nullptr);
  auto rungs = [&](size_t n, const char* last) {
    auto r = d->recover();
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_EQ(r->size(), n);
    EXPECT_EQ(r->back().name, last);
    EXPECT_TRUE(r->back().recovered);
    for (size_t i = 0; i + 1 < r->size(); ++i) EXPECT_FALSE((*r)[i].recovered);
    expect_queue_works(*d);
  };
  // A hung dispatch: dequeuing the queue is enough.
  {
    FaultRule h;
    h.trigger = FaultRule::Trigger::kWaitRegMem;
    h.action = FaultRule::Action::kHang;
    fn_->add_fault(h);
    const ComputeQueueDesc q = d->create_compute_queue(4096).value();
    const uint32_t wait[] = {
        (3u << 30) | (5u << 16) | (pm4::PACKET3_WAIT_REG_MEM << 8), 3, 0, 0, 0, 0, 4};
    std::memcpy(q.ring.cpu, wait, sizeof wait);
    *q.wptr = 7;
    d->ring_doorbell(q.doorbell, 7);
    EXPECT_TRUE(poll_until("the hang", [&] {
      d->poll();
      return fn_->gpu().queue_status(0).hung;
    }));
    fn_->clear_faults();
    rungs(1, "queue reset");
  }
  // The MEC halted (as a crashed MEC firmware leaves it): the queue reset's probe never runs.
  const uint32_t mec = sim::bases::kGc[1] + autogen::amd::gc_11_0_0::CP_MEC_RS64_CNTL::kInfo.offset;
  fn_->gpu().write_reg(mec, 1u << 30);  // MEC_HALT
  rungs(2, "MEC reset");
  // SDMA engine 1 wedged inside a POLL_REGMEM: with its ring disabled or re-created it runs
  // nothing, and the MEC reset does not touch it; the engine's soft reset frees it.
  {
    FaultRule w;
    w.trigger = FaultRule::Trigger::kSdmaPoll;
    w.target = 1;
    w.action = FaultRule::Action::kHang;
    fn_->add_fault(w);
    (void)d->create_copy_queue(4096).value();  // engine 0
    const CopyQueueDesc c = d->create_copy_queue(4096).value();
    const size_t id = fn_->gpu().copy_queue_count() - 1;
    const DeviceBuffer word = d->alloc(4096, BufferPlacement::kHost).value();
    namespace sd = autogen::amd::sdma_v6;
    using P = sd::POLL_REGMEM;
    const uint32_t poll[P::kDwords] = {sd::SDMA_OP_POLL_REGMEM | (3u << 28) | (1u << 31),
                                       static_cast<uint32_t>(word.va.raw()),
                                       static_cast<uint32_t>(word.va.raw() >> 32),
                                       0,
                                       0xffffffffu,
                                       0x100010};
    std::memcpy(c.ring.cpu, poll, sizeof poll);
    *c.wptr = sizeof poll;
    d->ring_doorbell(c.doorbell, sizeof poll);
    EXPECT_TRUE(poll_until("the SDMA wedge", [&] {
      d->poll();
      return fn_->gpu().copy_queue_status(static_cast<uint32_t>(id)).hung;
    }));
    fn_->clear_faults();
    auto r = d->recover();
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_EQ(r->size(), 3u);
    EXPECT_EQ(r->back().name, "SDMA engine reset");
    EXPECT_TRUE(r->back().recovered);
    // The rungs below name the engine that did not answer, and only it.
    EXPECT_NE((*r)[1].detail.find("no answer from SDMA1: rptr 0 bytes"), std::string::npos)
        << (*r)[1].detail;
    EXPECT_EQ((*r)[1].detail.find("SDMA0:"), std::string::npos) << (*r)[1].detail;
    EXPECT_EQ((*r)[1].detail.find("compute:"), std::string::npos) << (*r)[1].detail;
    expect_queue_works(*d);
  }
  // The GC lost its firmware and VM context (what a GC-level reset leaves): a mode-1 reset and
  // a cold bring-up.
  const uint64_t m1 = fn_->gpu().boot_status().mode1_resets;
  fn_->gpu().function_reset();
  rungs(4, "mode-1 reset");
  EXPECT_EQ(fn_->gpu().boot_status().mode1_resets, m1 + 1);
  EXPECT_EQ(d->boot_report().kind, BootKind::kColdReset);
  // The SMU dead too: every rung fails, and the error lists them all.
  fn_->gpu().function_reset();
  FaultRule dead;
  dead.trigger = FaultRule::Trigger::kSmuMessage;
  dead.action = FaultRule::Action::kDrop;
  dead.count = 0;
  fn_->add_fault(dead);
  auto r = d->recover();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kHardware);
  for (const char* n :
       {"queue reset", "MEC reset", "SDMA engine reset", "mode-1 reset", "function reset"})
    EXPECT_NE(r.error().to_string().find(n), std::string::npos) << n;
  fn_->clear_faults();
  rungs(4, "mode-1 reset");  // and once the SMU answers again, the device comes back
}

// A queue whose packets write into its own allocation, then through a freed buffer's VA, then
// into another allocation: the write through the freed VA faults (the free unmapped it and
// flushed the TLB, so the buffer's old pages are not reached through a stale translation), the
// queue stops there, and no byte of VRAM outside the allocation it wrote changed.
TEST_P(AmBootTest, AFaultingQueueChangesNoVramOutsideItsOwnAllocation) {
  sim::AmdPciConfig c;
  c.gpu.gc_version = GetParam();
  c.gpu.vram_size = 256ull << 20;  // a whole-VRAM snapshot stays cheap
  c.faults_from_env = false;
  fn_ = std::move(sim::AmdPciFunction::create(c).value());
  auto d = open();
  ASSERT_NE(d, nullptr);
  // (The queue first: an allocation after the free may reuse the freed VA.)
  const ComputeQueueDesc q = d->create_compute_queue(4096).value();
  const DeviceBuffer mine = d->alloc(64 << 10, BufferPlacement::kVram).value();
  const DeviceBuffer other = d->alloc(64 << 10, BufferPlacement::kVram).value();
  const DeviceBuffer freed = d->alloc(64 << 10, BufferPlacement::kVram).value();
  ASSERT_TRUE(d->free(freed).ok());
  std::vector<uint32_t> ring;
  auto write = [&](GpuVa at, uint32_t a, uint32_t b) {
    const uint32_t pkt[] = {(3u << 30) | (4u << 16) | (pm4::PACKET3_WRITE_DATA << 8),
                            pm4::WRITE_DATA_DST_SEL(5),
                            static_cast<uint32_t>(at.raw()),
                            static_cast<uint32_t>(at.raw() >> 32),
                            a,
                            b};
    ring.insert(ring.end(), std::begin(pkt), std::end(pkt));
  };
  write(mine.va + 0x100, 0x11111111, 0x22222222);
  write(freed.va + 0x40, 0xbad0bad0, 0xbad1bad1);
  write(other.va + 0x40, 0x33333333, 0x44444444);
  std::memcpy(q.ring.cpu, ring.data(), ring.size() * 4);
  const uint8_t* vram = fn_->gpu().vram_base();
  const std::vector<uint8_t> before(vram, vram + fn_->gpu().vram_size());
  *q.wptr = ring.size();
  d->ring_doorbell(q.doorbell, ring.size());
  ASSERT_TRUE(poll_until("the fault, or the last packet", [&] {
    d->poll();
    return d->fault_state().queue_error || load_acquire(q.rptr) == ring.size();
  }));
  const FaultState f = d->fault_state();
  EXPECT_TRUE(f.faulted) << "the write through the freed VA did not fault";
  EXPECT_EQ(f.address.raw(), (freed.va + 0x40).raw() & ~uint64_t{0xfff}) << f.description;
  // Every changed byte lies in `mine`, found through the page tables: its VRAM offsets.
  const uint8_t* after = fn_->gpu().vram_base();
  std::vector<uint64_t> changed;
  for (uint64_t page = 0; page < before.size(); page += 4096) {
    if (std::memcmp(&before[page], after + page, 4096) == 0) continue;
    for (uint64_t i = page; i < page + 4096; ++i)
      if (before[i] != after[i]) changed.push_back(i);
  }
  ASSERT_EQ(changed.size(), 8u) << "VRAM bytes changed: " << changed.size();
  uint32_t got[2];
  std::memcpy(got, after + changed[0], 8);
  EXPECT_EQ(changed.back() - changed.front(), 7u);
  EXPECT_EQ(got[0], 0x11111111u);
  EXPECT_EQ(got[1], 0x22222222u);
  const auto r = d->recover();
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  expect_queue_works(*d);
}

// A driver that moves the KM ring's registers after creating it, or submits a wptr that is not
// a frame boundary, does not take the simulated sOS down (no division by a zero ring size).
TEST_P(AmBootTest, HostileRingRegisterWritesAreRefusedNotCrashes) {
  auto d = open();
  ASSERT_NE(d, nullptr);
  const uint32_t mp0 = sim::bases::kMp[0];
  using mp = autogen::amd::mp_13_0_0;
  fn_->gpu().write_reg(mp0 + mp::MP0_SMN_C2PMSG_71::kInfo.offset, 0);
  fn_->gpu().write_reg(mp0 + mp::MP0_SMN_C2PMSG_67::kInfo.offset, 0xfffffff0u);
  fn_->gpu().write_reg(mp0 + mp::MP0_SMN_C2PMSG_67::kInfo.offset, 7);
  const sim::BootStatus s = fn_->gpu().boot_status();
  // The empty frames up to the bogus wptr point nowhere: refused, recorded (the first 64).
  ASSERT_EQ(s.errors.size(), 64u);
  EXPECT_NE(s.errors.front().find("outside the framebuffer"), std::string::npos)
      << s.errors.front();
  expect_queue_works(*d);
}

struct BootFault {
  const char* name;
  FaultRule rule;
  Errc code;
  const char* message;  // in the error text
};

std::vector<BootFault> boot_faults() {
  auto rule = [](FaultRule::Trigger t, uint32_t target, FaultRule::Action a, uint32_t v,
                 uint64_t count) {
    FaultRule r;
    r.trigger = t;
    r.target = target;
    r.action = a;
    r.value = v;
    r.count = count;
    return r;
  };
  using T = FaultRule::Trigger;
  using A = FaultRule::Action;
  return {
      {"psp_never_ready", rule(T::kRegisterRead, kPsp35, A::kReadValue, 0, 0), Errc::kTimeout,
       "C2PMSG_35"},
      {"psp_status", rule(T::kPspCommand, psp::GFX_CMD_ID_LOAD_IP_FW, A::kFail, 0xffff0006u, 1),
       Errc::kHardware, "status 0xffff0006"},
      {"smu_unknown", rule(T::kSmuMessage, 0x6, A::kFail, 0xfe, 1), Errc::kHardware,
       "EnableAllSmuFeatures"},
      {"smu_fail", rule(T::kSmuMessage, ~0u, A::kFail, 0xff, 1), Errc::kHardware, "0xff"},
      {"smu_silent", rule(T::kSmuMessage, ~0u, A::kDrop, 0, 0), Errc::kTimeout, "SMU"},
      {"rlc_autoload", rule(T::kRegisterRead, ~0u, A::kReadValue, 0, 0), Errc::kTimeout, ""},
      {"autoload_refused", rule(T::kPspCommand, psp::GFX_CMD_ID_AUTOLOAD_RLC, A::kFail, 7, 1),
       Errc::kHardware, "AUTOLOAD_RLC"},
  };
}

TEST_P(AmBootTest, EveryBootStepFaultIsATypedErrorAndTheNextBootSucceeds) {
  const bool g12 = GetParam() >= 120000;
  const uint32_t rlc =
      sim::bases::kGc[1] + (g12 ? autogen::amd::gc_12_0_0::RLC_RLCS_BOOTLOAD_STATUS::kInfo.offset
                                : autogen::amd::gc_11_0_0::RLC_RLCS_BOOTLOAD_STATUS::kInfo.offset);
  for (BootFault f : boot_faults()) {
    SCOPED_TRACE(f.name);
    if (std::string(f.name) == "rlc_autoload") f.rule.target = rlc;
    SetUp();  // a fresh board per fault
    fn_->add_fault(f.rule);
    auto d = try_open();
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.error().code(), f.code) << d.error().to_string();
    EXPECT_NE(d.error().to_string().find("boot step"), std::string::npos) << d.error().to_string();
    EXPECT_NE(d.error().to_string().find(f.message), std::string::npos) << d.error().to_string();
    EXPECT_EQ(fn_->gpu().read_reg(kScratch6), 1u);  // a failed boot is never warm-booted over
    if (std::string(f.name) == "rlc_autoload") {
      EXPECT_NE(d.error().to_string().find("RLC autoload"), std::string::npos);
    }
    fn_->clear_faults();
    // The next boot brings the board up (after a mode-1 reset where the firmware ran).
    auto again = open();
    ASSERT_NE(again, nullptr);
    EXPECT_NE(again->boot_report().kind, BootKind::kWarm);
    expect_queue_works(*again);
  }
}

// A hang that leaves the sOS running but kills the SMU (a failure tinygrad's AM driver is known
// for): no mode-1 reset is possible; the boot reuses the sOS and fails at the SMU within its
// timeout instead of hanging, and once the SMU answers again the next boot succeeds.
TEST_P(AmBootTest, ADeadSmuWithTheSosRunningFailsWithinItsTimeoutNotAHang) {
  open().reset();
  fn_->gpu().write_reg(kScratch6, 1);
  FaultRule r;
  r.trigger = FaultRule::Trigger::kSmuMessage;
  r.action = FaultRule::Action::kDrop;
  r.count = 0;
  fn_->add_fault(r);
  const Nanos t0 = fn_->clock().now();
  auto d = try_open();
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code(), Errc::kTimeout);
  EXPECT_NE(d.error().to_string().find("boot step SMU"), std::string::npos)
      << d.error().to_string();
  EXPECT_LT(fn_->clock().now() - t0, std::chrono::seconds(3));
  EXPECT_EQ(fn_->gpu().boot_status().mode1_resets, 0u);
  fn_->clear_faults();
  auto again = open();
  ASSERT_NE(again, nullptr);
  expect_queue_works(*again);
}

INSTANTIATE_TEST_SUITE_P(Profiles, AmBootTest, ::testing::Values(110000u, 120001u),
                         [](const ::testing::TestParamInfo<uint32_t>& i) {
                           return std::string(i.param == 110000 ? "gfx1100" : "gfx1201");
                         });

}  // namespace
}  // namespace rawgpu::drivers::amd
