#include "rawgpu/sim/fault_plan.h"

#include <algorithm>
#include <optional>

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
    case FaultRule::Trigger::kPspCommand: return "PSP command";
    case FaultRule::Trigger::kSmuMessage: return "SMU message";
    case FaultRule::Trigger::kSdmaPoll: return "SDMA POLL_REGMEM";
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

namespace {

using Trigger = FaultRule::Trigger;
using Action = FaultRule::Action;

struct TriggerSpelling {
  std::string_view text;
  Trigger trigger;
};
constexpr TriggerSpelling kTriggers[] = {
    {"register-read", Trigger::kRegisterRead}, {"register-write", Trigger::kRegisterWrite},
    {"doorbell", Trigger::kDoorbell},          {"alloc-dma", Trigger::kAllocDma},
    {"dispatch", Trigger::kDispatch},          {"va-access", Trigger::kVaAccess},
    {"wait-reg-mem", Trigger::kWaitRegMem},    {"psp-command", Trigger::kPspCommand},
    {"smu-message", Trigger::kSmuMessage},     {"sdma-poll", Trigger::kSdmaPoll},
};

struct ActionSpelling {
  std::string_view text;
  Action action;
  Trigger allowed[3];  // the triggers it applies to (entries may repeat)
};
constexpr ActionSpelling kActions[] = {
    {"value",
     Action::kReadValue,
     {Trigger::kRegisterRead, Trigger::kRegisterRead, Trigger::kRegisterRead}},
    {"drop", Action::kDrop, {Trigger::kRegisterWrite, Trigger::kDoorbell, Trigger::kSmuMessage}},
    {"fail", Action::kFail, {Trigger::kAllocDma, Trigger::kPspCommand, Trigger::kSmuMessage}},
    {"wave-error",
     Action::kWaveError,
     {Trigger::kDispatch, Trigger::kDispatch, Trigger::kDispatch}},
    {"vm-fault", Action::kVmFault, {Trigger::kVaAccess, Trigger::kVaAccess, Trigger::kVaAccess}},
    {"hang", Action::kHang, {Trigger::kDispatch, Trigger::kWaitRegMem, Trigger::kSdmaPoll}},
};

// A decimal or 0x-hex unsigned 64-bit number, all of `t`.
std::optional<uint64_t> number(std::string_view t) {
  unsigned base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    t.remove_prefix(2);
  }
  if (t.empty() || t.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : t) {
    unsigned d;
    if (c >= '0' && c <= '9')
      d = unsigned(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = unsigned(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = unsigned(c - 'A' + 10);
    else
      return std::nullopt;
    if (d >= base || v > (~uint64_t{0} - d) / base) return std::nullopt;
    v = v * base + d;
  }
  return v;
}

std::string_view trim(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

Result<FaultRule> parse_rule(std::string_view text, size_t index) {
  auto bad = [&](const std::string& what) {
    return make_error(Errc::kInvalidArgument, "fault rule %zu ('%.*s'): %s", index,
                      static_cast<int>(std::min<size_t>(text.size(), 120)), text.data(),
                      what.c_str());
  };
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos)
    return bad("expected TRIGGER[@TARGET]:ACTION[=VALUE][,KEY=NUMBER]...");
  std::string_view trig = text.substr(0, colon), rest = text.substr(colon + 1);
  FaultRule r;
  if (const size_t at = trig.find('@'); at != std::string_view::npos) {
    const auto t = number(trig.substr(at + 1));
    if (!t || *t > 0xffffffffu) return bad("the target after '@' must be a 32-bit number");
    r.target = static_cast<uint32_t>(*t);
    trig = trig.substr(0, at);
  }
  bool found = false;
  for (const TriggerSpelling& t : kTriggers)
    if (t.text == trig) {
      r.trigger = t.trigger;
      found = true;
    }
  if (!found)
    return bad("unknown trigger '" + std::string(trig) +
               "' (register-read, register-write, doorbell, alloc-dma, dispatch, va-access, "
               "wait-reg-mem, psp-command, smu-message, sdma-poll)");
  const size_t comma = rest.find(',');
  std::string_view act = rest.substr(0, comma);
  std::string_view keys =
      comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  std::optional<uint64_t> value;
  if (const size_t eq = act.find('='); eq != std::string_view::npos) {
    value = number(act.substr(eq + 1));
    if (!value || *value > 0xffffffffu) return bad("the action's value must be a 32-bit number");
    act = act.substr(0, eq);
  }
  const ActionSpelling* a = nullptr;
  for (const ActionSpelling& s : kActions)
    if (s.text == act) a = &s;
  if (a == nullptr)
    return bad("unknown action '" + std::string(act) +
               "' (value=N, drop, fail, wave-error[=TYPE], vm-fault, hang)");
  if (std::find(std::begin(a->allowed), std::end(a->allowed), r.trigger) == std::end(a->allowed))
    return bad(std::string("action '") + std::string(act) + "' does not apply to a " +
               trigger_name(r.trigger));
  r.action = a->action;
  if (r.action == Action::kReadValue && !value) return bad("value needs a number: value=N");
  const bool fail_value = r.action == Action::kFail && r.trigger != Trigger::kAllocDma;
  if (value && r.action != Action::kReadValue && r.action != Action::kWaveError && !fail_value)
    return bad("action '" + std::string(act) + "' takes no value");
  if (r.action == Action::kWaveError) r.value = value.value_or(1);  // ILLEGAL_INST
  if (fail_value)  // a PSP status / an SMU response code
    r.value = static_cast<uint32_t>(
        value.value_or(r.trigger == Trigger::kSmuMessage ? 0xff : 0xffffffffu));
  if (value && r.action == Action::kReadValue) r.value = static_cast<uint32_t>(*value);
  while (!keys.empty()) {
    const size_t next = keys.find(',');
    const std::string_view kv = keys.substr(0, next);
    keys = next == std::string_view::npos ? std::string_view() : keys.substr(next + 1);
    const size_t eq = kv.find('=');
    const std::string_view key = kv.substr(0, eq);
    const auto n = eq == std::string_view::npos ? std::nullopt : number(kv.substr(eq + 1));
    if (!n) return bad("'" + std::string(kv) + "': expected KEY=NUMBER");
    if (key == "nth")
      r.nth = *n;
    else if (key == "count")
      r.count = *n;
    else if (key == "after-us") {
      if (*n > uint64_t{1} << 40) return bad("after-us is beyond 2^40 microseconds");
      r.after = std::chrono::microseconds(*n);
    } else if (key == "va")
      r.va = *n;
    else if (key == "size")
      r.va_size = *n;
    else
      return bad("unknown key '" + std::string(key) + "' (nth, count, after-us, va, size)");
  }
  if (r.nth == 0) return bad("nth counts from 1");
  if (r.trigger == Trigger::kVaAccess) {
    if (r.va_size == 0) return bad("va-access needs va=ADDRESS,size=BYTES with size > 0");
    if (r.va + r.va_size < r.va) return bad("va + size wraps around");
  } else if (r.va != 0 || r.va_size != 0) {
    return bad("va and size apply to va-access only");
  }
  return r;
}

}  // namespace

Result<std::vector<FaultRule>> parse_fault_rules(std::string_view text) {
  std::vector<FaultRule> rules;
  size_t index = 0;
  while (!text.empty()) {
    const size_t semi = text.find(';');
    const std::string_view one = trim(text.substr(0, semi));
    text = semi == std::string_view::npos ? std::string_view() : text.substr(semi + 1);
    ++index;
    if (one.empty()) continue;
    rules.push_back(RG_TRY(parse_rule(one, index)));
  }
  return rules;
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
