// The fault plan (emulation.md §1.4): rules of (trigger, action) that the simulated hardware
// applies to what it is doing, so tests (and RAWGPU_SIM_FAULTS, later) can make it misbehave as
// hardware does. The PCI function consults it for config/BAR/DMA accesses; the GPU behind it for
// dispatches, GPU virtual-address accesses and WAIT_REG_MEM packets.
//
// A rule matches accesses of its trigger (and target); matching accesses number nth ..
// nth + count - 1 (1-based; count 0: from nth on) fire it. A rule is armed from virtual time
// `after` on (the function's clock): before that it neither counts nor fires. Rules apply in the
// order added; the first that fires wins. Thread-safe (the GPU's device thread consults it).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/base/poll.h"

namespace rawgpu::sim {

struct FaultRule {
  enum class Trigger : uint8_t {
    kRegisterRead,   // a BAR5 read of register `target` (~0u: any)
    kRegisterWrite,  // a BAR5 write of register `target` (~0u: any)
    kDoorbell,       // a BAR2 write to doorbell `target` (~0u: any)
    kAllocDma,       // alloc_dma (target ignored)
    kDispatch,       // a DISPATCH_DIRECT on compute queue `target` (~0u: any)
    kVaAccess,       // a GPU access (any engine) to a VA in [va, va + va_size); target ignored
    kWaitRegMem,     // a WAIT_REG_MEM packet on compute queue `target` (~0u: any)
    kPspCommand,     // a PSP KM-ring command with cmd_id `target` (~0u: any)
    kSmuMessage,     // an SMU mailbox message with id `target` (~0u: any; the debug mailbox too)
    kSdmaPoll,       // a POLL_REGMEM on SDMA engine `target` (~0u: any)
  };
  enum class Action : uint8_t {
    kReadValue,  // register reads return `value` (0xffffffff: the function fell off the bus)
    kDrop,       // the register or doorbell write is lost; an SMU message is never answered
    kFail,       // alloc_dma fails with kOutOfMemory (the IOMMU or host is out of memory); a PSP
                 // command answers status `value`, an SMU message response code `value`
    kWaveError,  // the dispatch's waves end in an error (the queue stops with it)
    kVmFault,    // the access is refused as a GPUVM permission fault (fault registers latched)
    kHang,       // the dispatch or wait never completes: the queue stays busy until a reset
                 // (sdma-poll: the whole engine wedges; only its GRBM soft reset frees it)
  };
  Trigger trigger = Trigger::kRegisterRead;
  uint32_t target = ~0u;
  uint64_t nth = 1;
  uint64_t count = 1;
  Action action = Action::kReadValue;
  uint32_t value = 0xffffffffu;
  uint64_t va = 0, va_size = 0;  // kVaAccess
  Nanos after{0};                // armed from this virtual time on
};

const char* trigger_name(FaultRule::Trigger t);
const char* action_name(FaultRule::Action a);

// Rules from text (RAWGPU_SIM_FAULTS, untrusted): rules separated by ';', each
//   TRIGGER[@TARGET]:ACTION[=VALUE][,KEY=NUMBER]...
// triggers: register-read, register-write, doorbell, alloc-dma, dispatch, va-access,
// wait-reg-mem, psp-command, smu-message, sdma-poll; actions: value=N (register reads), drop
// (register writes, doorbells, smu-message: silence), fail (alloc-dma; psp-command=STATUS and
// smu-message=CODE, default 0xffffffff / 0xff), wave-error[=TYPE] (dispatch; 0 EDC_FUE, 1
// ILLEGAL_INST, 2 MEMVIOL, 3 EDC_FED), vm-fault (va-access), hang (dispatch, wait-reg-mem,
// sdma-poll); keys: nth, count, after-us (virtual time), va and size (va-access, size > 0). Numbers
// are decimal or 0x-hex. Example:
//   "dispatch:wave-error=2,nth=3;register-read@0xde3:value=0xffffffff,after-us=5000,count=0"
// kInvalidArgument names the rule, the part and what is allowed.
Result<std::vector<FaultRule>> parse_fault_rules(std::string_view text);

class FaultPlan {
 public:
  // `clock` (may be null: always time 0) gives the virtual time rules are armed against.
  explicit FaultPlan(Clock* clock = nullptr) : clock_(clock) {}

  void add(const FaultRule& rule);
  void clear();
  // Whether any rule has this trigger (one atomic load: hot paths ask before fire()).
  bool watches(FaultRule::Trigger t) const {
    return (mask_.load(std::memory_order_acquire) & (1u << static_cast<unsigned>(t))) != 0;
  }
  // The first rule that fires for this access (a copy), or nothing. Counts the access for every
  // armed rule that matches it. `va`: the accessed address (kVaAccess).
  bool fire(FaultRule::Trigger t, uint32_t target, FaultRule* fired, uint64_t va = 0);
  // Whether a kVaAccess rule covers any byte of [va, va + size) (a translation cache must not
  // bypass such a page).
  bool covers(uint64_t va, uint64_t size) const;
  uint64_t fired() const;
  // "dispatch on queue 0: wave error", one line per firing (the first 256).
  std::vector<std::string> log() const;

 private:
  struct Active {
    FaultRule rule;
    uint64_t seen = 0;
  };
  Clock* clock_;
  mutable std::mutex mu_;
  std::vector<Active> rules_;
  std::atomic<uint32_t> mask_{0};
  uint64_t fired_ = 0;
  std::vector<std::string> log_;
};

}  // namespace rawgpu::sim
