// The SMU (MP1) block of the AM boot (amd.md §7.5): the message mailbox (C2PMSG_66 message, 82
// argument, 90 response; the debug mailbox 75/53/54), the driver table, feature enable, the GFX
// clock at its top DPM level, and the mode-1 reset. Message ids come from the generated
// smu_v13_0_0 / smu_v14_0_2 ppsmc tables.
#include "am_boot.h"
#include "rawgpu/autogen/amd/hw_ip.h"
#include "rawgpu/autogen/amd/regs/mp_13_0_0.h"
#include "rawgpu/autogen/amd/regs/mp_14_0_2.h"
#include "rawgpu/autogen/amd/smu_v13_0_0_ppsmc.h"
#include "rawgpu/autogen/amd/smu_v14_0_2_ppsmc.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/amd/pci_device.h"

namespace rawgpu::drivers::amd {
namespace {

namespace hw = autogen::amd::hwid;
namespace s13 = autogen::amd::smu_v13_0_0;
namespace s14 = autogen::amd::smu_v14_0_2;
using mp13 = autogen::amd::mp_13_0_0;
using mp14 = autogen::amd::mp_14_0_2;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The ids the boot uses are the same in both tables.
static_assert(s13::PPSMC_MSG_GetSmuVersion == s14::PPSMC_MSG_GetSmuVersion &&
              s13::PPSMC_MSG_EnableAllSmuFeatures == s14::PPSMC_MSG_EnableAllSmuFeatures &&
              s13::PPSMC_MSG_SetDriverDramAddrHigh == s14::PPSMC_MSG_SetDriverDramAddrHigh &&
              s13::PPSMC_MSG_SetDriverDramAddrLow == s14::PPSMC_MSG_SetDriverDramAddrLow &&
              s13::PPSMC_MSG_GetDpmFreqByIndex == s14::PPSMC_MSG_GetDpmFreqByIndex &&
              s13::PPSMC_MSG_SetSoftMinByFreq == s14::PPSMC_MSG_SetSoftMinByFreq &&
              s13::PPSMC_MSG_SetSoftMaxByFreq == s14::PPSMC_MSG_SetSoftMaxByFreq &&
              s13::PPSMC_Result_OK == s14::PPSMC_Result_OK);

constexpr uint64_t kDriverTableBytes = 16 << 10;
// PPCLK_GFXCLK, the first clock of the SMU 13/14 driver interface's clock list (unconfirmed
// here: the driver_if headers are not generated yet).
constexpr uint32_t kGfxClk = 0;
constexpr uint32_t kDebugMode1Reset = 2;

const char* response_name(uint32_t r) {
  switch (r) {
    case s13::PPSMC_Result_Failed: return "failed";
    case s13::PPSMC_Result_UnknownCmd: return "unknown command";
    case s13::PPSMC_Result_CmdRejectedPrereq: return "rejected: a prerequisite is missing";
    case s13::PPSMC_Result_CmdRejectedBusy: return "rejected: busy";
    default: return "unexpected response";
  }
}

}  // namespace

Status Smu::sw_init() {
  const IpBlock* mp1 = RG_TRY(b_.discovery().require(hw::MP1_HWID));
  if (mp1->version.major >= 14) {
    msg_ = RG_TRY(mp1->reg<mp14::MP1_SMN_C2PMSG_66>());
    arg_ = RG_TRY(mp1->reg<mp14::MP1_SMN_C2PMSG_82>());
    resp_ = RG_TRY(mp1->reg<mp14::MP1_SMN_C2PMSG_90>());
    dbg_msg_ = RG_TRY(mp1->reg<mp14::MP1_SMN_C2PMSG_75>());
    dbg_arg_ = RG_TRY(mp1->reg<mp14::MP1_SMN_C2PMSG_53>());
    dbg_resp_ = RG_TRY(mp1->reg<mp14::MP1_SMN_C2PMSG_54>());
    debug_mode1_ = true;  // 14.0.x defines no regular Mode1Reset
  } else if (mp1->version.major == 13) {
    msg_ = RG_TRY(mp1->reg<mp13::MP1_SMN_C2PMSG_66>());
    arg_ = RG_TRY(mp1->reg<mp13::MP1_SMN_C2PMSG_82>());
    resp_ = RG_TRY(mp1->reg<mp13::MP1_SMN_C2PMSG_90>());
    dbg_msg_ = RG_TRY(mp1->reg<mp13::MP1_SMN_C2PMSG_75>());
    dbg_arg_ = RG_TRY(mp1->reg<mp13::MP1_SMN_C2PMSG_53>());
    dbg_resp_ = RG_TRY(mp1->reg<mp13::MP1_SMN_C2PMSG_54>());
    // Linux 6.12 resets 13.0.0 with the regular message, 13.0.7/13.0.10 through the debug one.
    debug_mode1_ = mp1->version.minor == 0 && mp1->version.revision != 0;
  } else {
    return make_error(Errc::kUnsupported, "MP1 %s: this driver speaks the SMU 13 and 14 mailbox",
                      mp1->version.str().c_str());
  }
  table_ = RG_TRY(b_.boot_alloc(kDriverTableBytes, 4096));
  return {};
}

Result<uint32_t> Smu::message(uint32_t msg, uint32_t arg, const char* what, Nanos timeout) {
  b_.wr(resp_, 0);
  b_.wr(arg_, arg);
  b_.wr(msg_, msg);
  PollOptions po;
  po.timeout = timeout;
  po.clock = &b_.clock();
  uint32_t r = 0;
  RG_TRY(poll_until(
      strformat("the SMU's answer to %s (MP1 C2PMSG_90 != 0)", what),
      [&] {
        r = b_.rd(resp_);
        return r != 0;
      },
      po, [] { return std::string("the response register stayed 0 (no answer)"); }));
  if (pci::reads_all_ones(r)) return pci::fell_off_bus(b_.dev.name(), "MP1_SMN_C2PMSG_90");
  if (r != s13::PPSMC_Result_OK)
    return make_error(Errc::kHardware, "SMU message %s (0x%x, argument 0x%x) answered 0x%02x (%s)",
                      what, msg, arg, r, response_name(r))
        .with_hint(
            "the SMU firmware (smu_*.bin) may not match the GPU, or it is in a bad state: "
            "`rawgpu boot DEV --reset`");
  return b_.rd(arg_);
}

bool Smu::alive() {
  return message(s13::PPSMC_MSG_GetSmuVersion, 0, "GetSmuVersion", milliseconds(100)).ok();
}

Status Smu::mode1_reset() {
  // Bus mastering off across the reset (amd.md §6), back on after it.
  const uint32_t cmd0 = b_.dev.dev_.cfg_read(0x04, 2).value_or(0x6);
  RG_TRY(b_.dev.dev_.cfg_write(0x04, 2, cmd0 & ~0x4u));
  Status st;
  if (debug_mode1_) {
    b_.wr(dbg_resp_, 0);
    b_.wr(dbg_arg_, 0);
    b_.wr(dbg_msg_, kDebugMode1Reset);
    PollOptions po;
    po.timeout = seconds(1);
    po.clock = &b_.clock();
    uint32_t r = 0;
    st = poll_until(
        "the SMU's answer to the debug Mode1Reset (MP1 C2PMSG_54 != 0)",
        [&] {
          r = b_.rd(dbg_resp_);
          return r != 0;
        },
        po, [&] { return strformat("C2PMSG_54 = 0x%x", r); });
    if (st && r != s13::PPSMC_Result_OK)
      st = make_error(Errc::kHardware, "the SMU answered 0x%02x (%s) to the debug Mode1Reset", r,
                      response_name(r));
  } else {
    st = as_status(message(s13::PPSMC_MSG_Mode1Reset, 0, "Mode1Reset", seconds(1)));
  }
  // The ASIC resets; the driver waits as amd.md says, then re-enables bus mastering.
  b_.sleep(milliseconds(500));
  RG_TRY(b_.dev.dev_.cfg_write(0x04, 2, cmd0 | 0x6));
  return st;
}

Status Smu::hw_init(bool warm) {
  if (warm) {
    b_.skipped("SMU", "driver table and features");
    return {};
  }
  RG_TRY(b_.step("SMU", "version", [&] {
    return as_status(message(s13::PPSMC_MSG_GetSmuVersion, 0, "GetSmuVersion", seconds(1)));
  }));
  RG_TRY(b_.step("SMU", "driver table and features", [&]() -> Status {
    const uint64_t mc = b_.mc(table_);
    RG_TRY(message(s13::PPSMC_MSG_SetDriverDramAddrHigh, static_cast<uint32_t>(mc >> 32),
                   "SetDriverDramAddrHigh", seconds(1)));
    RG_TRY(message(s13::PPSMC_MSG_SetDriverDramAddrLow, static_cast<uint32_t>(mc),
                   "SetDriverDramAddrLow", seconds(1)));
    return as_status(
        message(s13::PPSMC_MSG_EnableAllSmuFeatures, 0, "EnableAllSmuFeatures", seconds(1)));
  }));
  return b_.step("SMU", "GFXCLK at its top level", [&]() -> Status {
    const uint32_t levels = RG_TRY(message(s13::PPSMC_MSG_GetDpmFreqByIndex, (kGfxClk << 16) | 0xff,
                                           "GetDpmFreqByIndex (level count)", seconds(1))) &
                            0x7fffffffu;
    if (levels == 0 || levels > 16)
      return make_error(Errc::kHardware, "the SMU reports %u GFXCLK DPM levels", levels);
    const uint32_t mhz =
        RG_TRY(message(s13::PPSMC_MSG_GetDpmFreqByIndex, (kGfxClk << 16) | (levels - 1),
                       "GetDpmFreqByIndex", seconds(1)));
    RG_TRY(message(s13::PPSMC_MSG_SetSoftMinByFreq, (kGfxClk << 16) | (mhz & 0xffff),
                   "SetSoftMinByFreq", seconds(1)));
    return as_status(message(s13::PPSMC_MSG_SetSoftMaxByFreq, (kGfxClk << 16) | (mhz & 0xffff),
                             "SetSoftMaxByFreq", seconds(1)));
  });
}

}  // namespace rawgpu::drivers::amd
