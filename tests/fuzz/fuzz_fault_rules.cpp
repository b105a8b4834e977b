// Fuzz target for the fault plan's text form (RAWGPU_SIM_FAULTS, sim/fault_plan.h): any bytes
// must parse to valid rules or give a kInvalidArgument error with a message — never crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "rawgpu/sim/fault_plan.h"

namespace {
void require(bool cond, const char* what) {
  if (!cond) {
    __builtin_printf("fuzz_fault_rules invariant violated: %s\n", what);
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rawgpu;
  using sim::FaultRule;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = sim::parse_fault_rules(text);
  if (!r) {
    require(r.error().code() == Errc::kInvalidArgument, "errors are kInvalidArgument");
    require(!r.error().to_string().empty(), "errors carry a message");
    return 0;
  }
  sim::FaultPlan plan;
  for (const FaultRule& rule : *r) {
    require(rule.nth >= 1, "nth counts from 1");
    if (rule.trigger == FaultRule::Trigger::kVaAccess)
      require(rule.va_size > 0 && rule.va + rule.va_size > rule.va, "a non-empty VA range");
    plan.add(rule);
  }
  (void)plan.fire(FaultRule::Trigger::kDispatch, 0, nullptr);
  (void)plan.covers(0, ~uint64_t{0});
  return 0;
}
