// The fault plan's own behaviour (sim/fault_plan.h): rule matching (nth/count, targets, VA
// ranges, arming at a virtual time), and the RAWGPU_SIM_FAULTS text form — every accepted
// spelling and a clear error for every malformed one. The faults' effect on a driver is in
// tests/queues/fault_plan_test.cpp.
#include "rawgpu/sim/fault_plan.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "rawgpu/sim/amd_pci.h"

namespace rawgpu::sim {
namespace {

using Trigger = FaultRule::Trigger;
using Action = FaultRule::Action;

TEST(FaultPlanRules, FireOnTheNthMatchingAccessForCountAccesses) {
  FaultPlan plan;
  FaultRule r;
  r.trigger = Trigger::kDoorbell;
  r.target = 3;
  r.nth = 2;
  r.count = 2;
  r.action = Action::kDrop;
  plan.add(r);
  EXPECT_TRUE(plan.watches(Trigger::kDoorbell));
  EXPECT_FALSE(plan.watches(Trigger::kDispatch));
  FaultRule got;
  EXPECT_FALSE(plan.fire(Trigger::kDoorbell, 3, &got));  // 1st
  EXPECT_FALSE(plan.fire(Trigger::kDoorbell, 4, &got));  // another doorbell: not counted
  EXPECT_TRUE(plan.fire(Trigger::kDoorbell, 3, &got));   // 2nd
  EXPECT_EQ(got.action, Action::kDrop);
  EXPECT_TRUE(plan.fire(Trigger::kDoorbell, 3, &got));   // 3rd
  EXPECT_FALSE(plan.fire(Trigger::kDoorbell, 3, &got));  // 4th: past count
  EXPECT_EQ(plan.fired(), 2u);
  ASSERT_EQ(plan.log().size(), 2u);
  EXPECT_EQ(plan.log()[0], "doorbell 3: dropped");
  plan.clear();
  EXPECT_FALSE(plan.watches(Trigger::kDoorbell));
}

TEST(FaultPlanRules, VaRangesAndVirtualTime) {
  ManualClock clock;
  FaultPlan plan(&clock);
  FaultRule r;
  r.trigger = Trigger::kVaAccess;
  r.va = 0x10000;
  r.va_size = 0x1000;
  r.count = 0;  // every access from the first on
  r.action = Action::kVmFault;
  r.after = std::chrono::milliseconds(1);
  plan.add(r);
  EXPECT_TRUE(plan.covers(0x10800, 4));
  EXPECT_TRUE(plan.covers(0xf000, 0x1001));
  EXPECT_FALSE(plan.covers(0x11000, 0x1000));
  EXPECT_FALSE(plan.fire(Trigger::kVaAccess, 0, nullptr, 0x10010));  // not armed yet
  clock.advance(std::chrono::milliseconds(1));
  EXPECT_TRUE(plan.fire(Trigger::kVaAccess, 0, nullptr, 0x10010));
  EXPECT_TRUE(plan.fire(Trigger::kVaAccess, 0, nullptr, 0x10ffc));
  EXPECT_FALSE(plan.fire(Trigger::kVaAccess, 0, nullptr, 0x11000));
  EXPECT_EQ(plan.log()[0], "GPU access at 0x10010: GPUVM fault");
}

TEST(FaultPlanText, EverySpellingParses) {
  auto r = parse_fault_rules(
      " dispatch:wave-error=2,nth=3 ; register-read@0xde3:value=0xffffffff,after-us=5000,count=0;"
      "doorbell@3:drop;register-write:drop;alloc-dma:fail,nth=2;va-access:vm-fault,va=0x1000,"
      "size=4096;wait-reg-mem@0:hang;dispatch:hang;dispatch:wave-error;;sdma-poll@1:hang;"
      "smu-message@5:drop;psp-command:fail=7");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->size(), 12u);
  const auto& v = *r;
  EXPECT_EQ(v[0].trigger, Trigger::kDispatch);
  EXPECT_EQ(v[0].action, Action::kWaveError);
  EXPECT_EQ(v[0].value, 2u);
  EXPECT_EQ(v[0].nth, 3u);
  EXPECT_EQ(v[0].target, ~0u);
  EXPECT_EQ(v[1].trigger, Trigger::kRegisterRead);
  EXPECT_EQ(v[1].target, 0xde3u);
  EXPECT_EQ(v[1].value, 0xffffffffu);
  EXPECT_EQ(v[1].count, 0u);
  EXPECT_EQ(v[1].after, std::chrono::milliseconds(5));
  EXPECT_EQ(v[2].target, 3u);
  EXPECT_EQ(v[2].action, Action::kDrop);
  EXPECT_EQ(v[3].trigger, Trigger::kRegisterWrite);
  EXPECT_EQ(v[4].action, Action::kFail);
  EXPECT_EQ(v[4].nth, 2u);
  EXPECT_EQ(v[5].va, 0x1000u);
  EXPECT_EQ(v[5].va_size, 4096u);
  EXPECT_EQ(v[6].trigger, Trigger::kWaitRegMem);
  EXPECT_EQ(v[6].action, Action::kHang);
  EXPECT_EQ(v[7].action, Action::kHang);
  EXPECT_EQ(v[8].value, 1u);  // ILLEGAL_INST by default
  EXPECT_EQ(v[9].trigger, Trigger::kSdmaPoll);
  EXPECT_EQ(v[9].target, 1u);
  EXPECT_EQ(v[9].action, Action::kHang);
  EXPECT_EQ(v[10].trigger, Trigger::kSmuMessage);
  EXPECT_EQ(v[10].action, Action::kDrop);
  EXPECT_EQ(v[11].trigger, Trigger::kPspCommand);
  EXPECT_EQ(v[11].value, 7u);
  EXPECT_TRUE(parse_fault_rules("").value().empty());
}

TEST(FaultPlanText, MalformedRulesSayWhatIsWrong) {
  const std::pair<const char*, const char*> cases[] = {
      {"dispatch", "expected TRIGGER"},
      {"dispatcher:hang", "unknown trigger 'dispatcher'"},
      {"dispatch:explode", "unknown action 'explode'"},
      {"doorbell:hang", "does not apply to a doorbell"},
      {"register-read:value", "value needs a number"},
      {"register-read:value=0x1ffffffff", "32-bit number"},
      {"doorbell@x:drop", "target after '@'"},
      {"dispatch:hang=3", "takes no value"},
      {"dispatch:hang,nth=0", "nth counts from 1"},
      {"dispatch:hang,nth", "expected KEY=NUMBER"},
      {"dispatch:hang,speed=3", "unknown key 'speed'"},
      {"va-access:vm-fault,va=0x1000", "size > 0"},
      {"va-access:vm-fault,va=0xffffffffffffffff,size=2", "wraps"},
      {"dispatch:hang,va=0x1000", "va-access only"},
      {"dispatch:hang,after-us=99999999999999999999", "expected KEY=NUMBER"},
      {"dispatch:hang;doorbell:fail", "fault rule 2"},
  };
  for (const auto& [text, want] : cases) {
    auto r = parse_fault_rules(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code(), Errc::kInvalidArgument) << text;
    EXPECT_NE(r.error().to_string().find(want), std::string::npos)
        << text << ": " << r.error().to_string();
  }
}

// RAWGPU_SIM_FAULTS reaches every simulated PCI function (unless its config opts out); a
// malformed value makes creating one fail with the reason.
TEST(FaultPlanText, TheEnvironmentVariableArmsEveryFunction) {
  ASSERT_EQ(setenv("RAWGPU_SIM_FAULTS", "register-read@0xde3:value=7", 1), 0);
  {
    auto f = AmdPciFunction::create();
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    pci::Mmio* regs = (*f)->map_bar(5).value();
    ASSERT_TRUE((*f)->cfg_write(0x04, 2, 0x2));
    EXPECT_EQ(regs->rd32(4ull * AmdGpu::kConfigMemsize), 7u);
    EXPECT_EQ((*f)->faults_fired(), 1u);
    AmdPciConfig c;
    c.faults_from_env = false;
    auto g = AmdPciFunction::create(c);
    ASSERT_TRUE(g.ok());
    ASSERT_TRUE((*g)->cfg_write(0x04, 2, 0x2));
    EXPECT_EQ((*g)->map_bar(5).value()->rd32(4ull * AmdGpu::kConfigMemsize), 1024u);
  }
  ASSERT_EQ(setenv("RAWGPU_SIM_FAULTS", "dispatch:boom", 1), 0);
  auto bad = AmdPciFunction::create();
  ASSERT_EQ(unsetenv("RAWGPU_SIM_FAULTS"), 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().to_string().find("RAWGPU_SIM_FAULTS"), std::string::npos)
      << bad.error().to_string();
  EXPECT_NE(bad.error().to_string().find("unknown action 'boom'"), std::string::npos);
}

}  // namespace
}  // namespace rawgpu::sim
