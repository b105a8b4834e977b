// The simulated GPU's fault plan (sim/fault_plan.h) as a driver meets it: through
// drivers::amd::PciAmdDevice and the queues/ layer over the PCI function. A wave error, a GPUVM
// fault in a VA range, a hung dispatch, an eternal WAIT_REG_MEM and a function that falls off the
// bus at a virtual time each reach the waiting caller as a typed error within its timeout (on the
// function's virtual clock: instant and deterministic), and a function reset brings the device
// back.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "rawgpu/autogen/amd/pm4_nvd.h"
#include "rawgpu/drivers/amd/pci_device.h"
#include "rawgpu/queues/amd_pm4.h"
#include "rawgpu/queues/signal.h"
#include "rawgpu/sim/amd_pci.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::queues::amd {
namespace {

namespace pm4 = autogen::amd::pm4_nvd;
using drivers::amd::BufferPlacement;
using drivers::amd::PciAmdDevice;
using sim::FaultRule;

class FaultPlan : public testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    sim::AmdPciConfig c;
    c.gpu.gc_version = GetParam();
    c.trace = true;
    fn_ = std::move(sim::AmdPciFunction::create(c).value());
    fn_->gpu().set_executor(&rec_);
    open();
  }
  void TearDown() override { close(); }
  void open() {
    drivers::amd::PciAmdOptions o = sim::sim_driver_options(*fn_).value();
    auto d = PciAmdDevice::open(*fn_, o);
    ASSERT_TRUE(d.ok()) << d.error().to_string();
    dev_ = std::move(*d);
    pool_ = std::make_unique<SignalPool>(*dev_);
    q_ = std::move(ComputeQueue::create(*dev_).value());
  }
  void close() {
    q_.reset();
    pool_.reset();
    dev_.reset();
  }
  ExecParams kernel() const {
    ExecParams p;
    p.code = GpuVa(0x7000000100);
    p.workgroup = {64, 1, 1};
    return p;
  }
  // A wait that should end (the default timeout on the steady clock: with the device thread
  // the GPU runs in real time).
  Status wait(const Signal& s, uint64_t v) { return wait_signal(*dev_, s, v, "the kernel"); }
  // A wait that must time out: on the function's virtual clock, so the timeout is instant.
  Status wait_hung(const Signal& s, uint64_t v, Nanos timeout) {
    WaitOptions o;
    o.timeout = timeout;
    o.clock = &fn_->clock();
    return wait_signal(*dev_, s, v, "the kernel", o);
  }
  // With the device thread, the engine reaches the hanging packet on its own schedule: wait
  // (real time) until it has, so the virtual-time wait that follows measures the hang itself.
  bool reached_hang() {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!fn_->gpu().queue_status(0).hung) {
      if (std::chrono::steady_clock::now() > end) return false;
      fn_->poll();
      std::this_thread::yield();
    }
    return true;
  }
  bool logged(const std::string& needle) const {
    const auto log = fn_->fault_log();
    return std::any_of(log.begin(), log.end(),
                       [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  }
  sim::RecordingExecutor rec_;
  std::unique_ptr<sim::AmdPciFunction> fn_;
  std::unique_ptr<PciAmdDevice> dev_;
  std::unique_ptr<SignalPool> pool_;
  std::unique_ptr<ComputeQueue> q_;
};

TEST_P(FaultPlan, AWaveErrorStopsTheQueueAndReachesTheWaiter) {
  FaultRule r;
  r.trigger = FaultRule::Trigger::kDispatch;
  r.nth = 2;
  r.action = FaultRule::Action::kWaveError;
  r.value = 2;  // MEMVIOL
  fn_->add_fault(r);
  const Signal s = pool_->alloc().value();
  ASSERT_TRUE(q_->exec(kernel()));
  q_->signal(s, 1);
  ASSERT_TRUE(q_->exec(kernel()));
  ASSERT_TRUE(q_->signal(s, 2).submit());
  ASSERT_TRUE(wait(s, 1));
  const Status st = wait(s, 2);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.error().is(Errc::kHardware)) << st.error().to_string();
  EXPECT_NE(st.error().to_string().find("wave error MEMVIOL (fault plan)"), std::string::npos)
      << st.error().to_string();
  EXPECT_EQ(rec_.states.size(), 1u);  // the second dispatch's waves never ran
  EXPECT_EQ(s.value(), 1u);
  EXPECT_TRUE(logged("dispatch 0: wave error"));
}

TEST_P(FaultPlan, AVaRangeIsAGpuvmFaultWithItsAddress) {
  auto buf = dev_->alloc(2 * 4096, BufferPlacement::kHost).value();
  FaultRule r;
  r.trigger = FaultRule::Trigger::kVaAccess;
  r.va = buf.va.raw() + 4096;  // the second page only
  r.va_size = 4096;
  r.action = FaultRule::Action::kVmFault;
  fn_->add_fault(r);
  const Signal s = pool_->alloc().value();
  q_->write(buf.va + 8, 0x11);          // outside the range: lands
  q_->write(buf.va + 4096 + 16, 0x22);  // inside: refused
  ASSERT_TRUE(q_->signal(s, 1).submit());
  const Status st = wait(s, 1);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.error().is(Errc::kHardware)) << st.error().to_string();
  uint32_t lo = 0, hi = 0;
  std::memcpy(&lo, buf.cpu + 8, 4);
  std::memcpy(&hi, buf.cpu + 4096 + 16, 4);
  EXPECT_EQ(lo, 0x11u);
  EXPECT_EQ(hi, 0u);
  const drivers::amd::FaultState f = dev_->fault_state();
  EXPECT_TRUE(f.faulted);
  EXPECT_EQ(f.address.raw(), buf.va.raw() + 4096);        // the page, from the fault registers
  EXPECT_NE(f.status & (1u << 4), 0u) << f.description;   // a permission fault
  EXPECT_NE(f.status & (1u << 18), 0u) << f.description;  // on a write
  EXPECT_TRUE(logged("GPU access at 0x"));
}

TEST_P(FaultPlan, AHungDispatchTimesOutAndAFunctionResetRecovers) {
  FaultRule r;
  r.trigger = FaultRule::Trigger::kDispatch;
  r.action = FaultRule::Action::kHang;
  fn_->add_fault(r);
  const Signal s = pool_->alloc().value();
  ASSERT_TRUE(q_->exec(kernel()));
  ASSERT_TRUE(q_->signal(s, 1).submit());
  ASSERT_TRUE(reached_hang());
  const Nanos t0 = fn_->clock().now();
  const Status st = wait_hung(s, 1, std::chrono::milliseconds(20));
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.error().is(Errc::kTimeout)) << st.error().to_string();
  EXPECT_NE(st.error().to_string().find("the kernel"), std::string::npos) << st.error().to_string();
  EXPECT_GE(fn_->clock().now() - t0, std::chrono::milliseconds(20));  // virtual time
  const sim::QueueStatus qs = fn_->gpu().queue_status(0);
  EXPECT_TRUE(qs.hung);
  EXPECT_FALSE(qs.stopped);
  EXPECT_TRUE(rec_.states.empty());
  // Recovery: a function reset, then the driver again (the rule fired once).
  close();
  ASSERT_TRUE(fn_->reset());
  EXPECT_TRUE(fn_->gpu().queue_status(0).stopped);
  open();
  const Signal s2 = pool_->alloc().value();
  ASSERT_TRUE(q_->exec(kernel()));
  ASSERT_TRUE(q_->signal(s2, 1).submit());
  const Status st2 = wait(s2, 1);
  ASSERT_TRUE(st2.ok()) << st2.error().to_string();
  EXPECT_EQ(rec_.states.size(), 1u);
}

TEST_P(FaultPlan, AnEternalWaitRegMemTimesOutNamingTheSignal) {
  FaultRule r;
  r.trigger = FaultRule::Trigger::kWaitRegMem;
  r.action = FaultRule::Action::kHang;
  fn_->add_fault(r);
  Signal gate = pool_->alloc().value();
  const Signal s = pool_->alloc().value();
  q_->wait(gate, 1);
  ASSERT_TRUE(q_->signal(s, 1).submit());
  gate.set(1);  // satisfied, yet the wait never completes
  ASSERT_TRUE(reached_hang());
  const Status st = wait_hung(s, 1, std::chrono::milliseconds(10));
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.error().is(Errc::kTimeout)) << st.error().to_string();
  EXPECT_TRUE(fn_->gpu().queue_status(0).hung);
  EXPECT_TRUE(logged("WAIT_REG_MEM 0: hang"));
}

TEST_P(FaultPlan, RulesArmAtAVirtualTime) {
  // From 5 ms on, every register read returns all ones: the function fell off the bus.
  FaultRule r;
  r.trigger = FaultRule::Trigger::kRegisterRead;
  r.count = 0;
  r.action = FaultRule::Action::kReadValue;
  r.after = fn_->clock().now() + std::chrono::milliseconds(5);
  fn_->add_fault(r);
  pci::Mmio* regs = fn_->map_bar(5).value();
  const uint64_t memsize = 4ull * sim::AmdGpu::kConfigMemsize;
  EXPECT_EQ(regs->rd32(memsize), 1024u);  // 1 GiB of VRAM, in MiB
  EXPECT_EQ(fn_->faults_fired(), 0u);
  fn_->clock().sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(pci::reads_all_ones(regs->rd32(memsize)));
  EXPECT_TRUE(pci::reads_all_ones(regs->rd32(memsize)));
  EXPECT_EQ(fn_->faults_fired(), 2u);
  // The driver's fault read sees a device that stopped answering, not a fault address.
  const drivers::amd::FaultState f = dev_->fault_state();
  EXPECT_NE(f.description.find("not responding"), std::string::npos) << f.description;
}

INSTANTIATE_TEST_SUITE_P(Profiles, FaultPlan, testing::Values(110000u, 120001u),
                         [](const testing::TestParamInfo<uint32_t>& i) {
                           return std::string(i.param == 110000 ? "gfx1100" : "gfx1201");
                         });

}  // namespace
}  // namespace rawgpu::queues::amd
