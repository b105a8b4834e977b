#include "rawgpu/sim/fault_plan.h"

#include "rawgpu/base/format.h"

namespace rawgpu::sim {

const char* trigger_name(FaultRule::Trigger t) {
  switch (t) {
    case FaultRule::Trigger::kRegisterRead: return "register read";
    case FaultRule::Trigger::kRegisterWrite: return "register write";
    case FaultRule::Trigger::kDoorbell: return "doorbell";
    case FaultRule::Trigger::kAllocDma: return "DMA allocation";
    case FaultRule::Trigger::kDispatch: return "dispatch";
    case FaultRule::Trigger::kVaAccess: return "GPU access";
    case FaultRule::Trigger::kWaitRegMem: return "WAIT_REG_MEM";
  }
  return "?";
}

const char* action_name(FaultRule::Action a) {
  switch (a) {
    case FaultRule::Action::kReadValue: return "read value";
    case FaultRule::Action::kDrop: return "dropped";
    case FaultRule::Action::kFail: return "failed";
    case FaultRule::Action::kWaveError: return "wave error";
    case FaultRule::Action::kVmFault: return "GPUVM fault";
    case FaultRule::Action::kHang: return "hang";
  }
  return "?";
}

void FaultPlan::add(const FaultRule& rule) {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back({rule, 0});
  mask_.fetch_or(1u << static_cast<unsigned>(rule.trigger), std::memory_order_acq_rel);
}

void FaultPlan::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.clear();
  mask_.store(0, std::memory_order_release);
}

bool FaultPlan::fire(FaultRule::Trigger t, uint32_t target, FaultRule* fired, uint64_t va) {
  if (!watches(t)) return false;
  const Nanos now = clock_ != nullptr ? clock_->now() : Nanos{0};
  std::lock_guard<std::mutex> lock(mu_);
  const FaultRule* hit = nullptr;
  for (Active& a : rules_) {
    const FaultRule& r = a.rule;
    if (r.trigger != t || now < r.after) continue;
    if (t == FaultRule::Trigger::kVaAccess) {
      if (va < r.va || va - r.va >= r.va_size) continue;
    } else if (r.target != ~0u && r.target != target) {
      continue;
    }
    const uint64_t n = ++a.seen;
    const bool in = n >= r.nth && (r.count == 0 || n < r.nth + r.count);
    if (in && hit == nullptr) hit = &r;
  }
  if (hit == nullptr) return false;
  ++fired_;
  constexpr size_t kKept = 256;
  if (log_.size() < kKept) {
    std::string line = t == FaultRule::Trigger::kVaAccess
                           ? strformat("%s at %s", trigger_name(t), hex(va).c_str())
                           : strformat("%s %s", trigger_name(t),
                                       target == ~0u ? "" : std::to_string(target).c_str());
    if (line.back() == ' ') line.pop_back();
    log_.push_back(line + ": " + action_name(hit->action));
  }
  if (fired != nullptr) *fired = *hit;
  return true;
}

bool FaultPlan::covers(uint64_t va, uint64_t size) const {
  if (!watches(FaultRule::Trigger::kVaAccess)) return false;
  std::lock_guard<std::mutex> lock(mu_);
  for (const Active& a : rules_) {
    const FaultRule& r = a.rule;
    if (r.trigger == FaultRule::Trigger::kVaAccess && va < r.va + r.va_size && r.va < va + size)
      return true;
  }
  return false;
}

uint64_t FaultPlan::fired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fired_;
}

std::vector<std::string> FaultPlan::log() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

}  // namespace rawgpu::sim
