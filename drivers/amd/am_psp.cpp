// The PSP (MP0) block of the AM boot (amd.md §7.4): the bootloader components through the
// C2PMSG_35/36 mailbox until the sOS runs, the KM (GPCOM) ring, and the commands that load the
// firmware images: LOAD_TOC, the SMU image, SETUP_TMR, LOAD_IP_FW for every other image,
// AUTOLOAD_RLC. Buffers are boot-pool VRAM (the same addresses on every boot of the layout, so
// a warm boot finds the sOS's ring where this one left it), written through BAR0 and flushed
// through the HDP before the PSP reads them.
#include <cstring>

#include "am_boot.h"
#include "rawgpu/autogen/amd/hw_ip.h"
#include "rawgpu/autogen/amd/psp_gfx_if.h"
#include "rawgpu/autogen/amd/regs/mp_13_0_0.h"
#include "rawgpu/autogen/amd/regs/mp_14_0_2.h"
#include "rawgpu/autogen/amd/ucode.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/amd/pci_device.h"

namespace rawgpu::drivers::amd {
namespace {

namespace hw = autogen::amd::hwid;
namespace psp = autogen::amd::psp;
namespace uc = autogen::amd::ucode;
using mp13 = autogen::amd::mp_13_0_0;
using mp14 = autogen::amd::mp_14_0_2;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The mailbox is MP0_SMN_C2PMSG_n below MP0 14.0 and MPASP_SMN_C2PMSG_n from 14.0, at the same
// offsets and segment.
template <class A, class B>
constexpr bool same() {
  return A::kInfo.offset == B::kInfo.offset && A::kInfo.base_idx == B::kInfo.base_idx;
}
static_assert(same<mp13::MP0_SMN_C2PMSG_35, mp14::MPASP_SMN_C2PMSG_35>() &&
              same<mp13::MP0_SMN_C2PMSG_36, mp14::MPASP_SMN_C2PMSG_36>() &&
              same<mp13::MP0_SMN_C2PMSG_64, mp14::MPASP_SMN_C2PMSG_64>() &&
              same<mp13::MP0_SMN_C2PMSG_67, mp14::MPASP_SMN_C2PMSG_67>() &&
              same<mp13::MP0_SMN_C2PMSG_69, mp14::MPASP_SMN_C2PMSG_69>() &&
              same<mp13::MP0_SMN_C2PMSG_70, mp14::MPASP_SMN_C2PMSG_70>() &&
              same<mp13::MP0_SMN_C2PMSG_71, mp14::MPASP_SMN_C2PMSG_71>() &&
              same<mp13::MP0_SMN_C2PMSG_81, mp14::MPASP_SMN_C2PMSG_81>());

constexpr uint32_t kReady = 0x80000000u;
constexpr uint32_t kRingBytes = 0x10000;     // KM ring: 64 KiB of 64-byte frames
constexpr uint64_t kMsg1Bytes = 1ull << 20;  // bootloader staging (C2PMSG_36 = MC >> 20)
constexpr uint64_t kFwBytes = 2ull << 20;    // LOAD_IP_FW / LOAD_TOC staging
constexpr uint64_t kTmrBytes = 0x1300000;    // the largest TMR a TOC asks for (amd.md §7.4)
constexpr uint32_t kFrameDw = sizeof(psp::psp_gfx_rb_frame) / 4;
static_assert(sizeof(psp::psp_gfx_cmd_resp) == 1024 && kFrameDw == 16);

// The bootloader command for a psp_fw_type component (amd.md §7.4 table).
uint32_t bootloader_command(uint32_t component) {
  switch (component) {
    case uc::PSP_FW_TYPE_PSP_KDB: return 0x80000;
    case uc::PSP_FW_TYPE_PSP_SPL: return 0x10000000;
    case uc::PSP_FW_TYPE_PSP_SYS_DRV: return 0x10000;
    case uc::PSP_FW_TYPE_PSP_SOC_DRV: return 0xB0000;
    case uc::PSP_FW_TYPE_PSP_INTF_DRV: return 0xD0000;
    case uc::PSP_FW_TYPE_PSP_DBG_DRV: return 0xC0000;
    case uc::PSP_FW_TYPE_PSP_RAS_DRV: return 0xE0000;
    case uc::PSP_FW_TYPE_PSP_IPKEYMGR_DRV: return 0xF0000;
    case uc::PSP_FW_TYPE_PSP_SOS: return 0x20000;
    default: return 0;
  }
}

const char* cmd_name(uint32_t id) {
  switch (id) {
    case psp::GFX_CMD_ID_LOAD_TOC: return "LOAD_TOC";
    case psp::GFX_CMD_ID_SETUP_TMR: return "SETUP_TMR";
    case psp::GFX_CMD_ID_LOAD_IP_FW: return "LOAD_IP_FW";
    case psp::GFX_CMD_ID_AUTOLOAD_RLC: return "AUTOLOAD_RLC";
    default: return "command";
  }
}

// The TMR is set up by the bootloader itself on these MP0 versions (Linux psp_early_init).
bool boot_time_tmr(IpVersion mp0) {
  return (mp0.major == 13 && mp0.minor == 0 && (mp0.revision == 6 || mp0.revision == 14)) ||
         (mp0.major == 14 && mp0.minor == 0 && (mp0.revision == 2 || mp0.revision == 3));
}

}  // namespace

Status Psp::sw_init() {
  RG_TRY(b_.discovery().require(hw::MP0_HWID));
  r35_ = RG_TRY(b_.reg<mp13::MP0_SMN_C2PMSG_35>(hw::MP0_HWID));
  r36_ = RG_TRY(b_.reg<mp13::MP0_SMN_C2PMSG_36>(hw::MP0_HWID));
  r64_ = RG_TRY(b_.reg<mp13::MP0_SMN_C2PMSG_64>(hw::MP0_HWID));
  r67_ = RG_TRY(b_.reg<mp13::MP0_SMN_C2PMSG_67>(hw::MP0_HWID));
  r69_ = RG_TRY(b_.reg<mp13::MP0_SMN_C2PMSG_69>(hw::MP0_HWID));
  r70_ = RG_TRY(b_.reg<mp13::MP0_SMN_C2PMSG_70>(hw::MP0_HWID));
  r71_ = RG_TRY(b_.reg<mp13::MP0_SMN_C2PMSG_71>(hw::MP0_HWID));
  r81_ = RG_TRY(b_.reg<mp13::MP0_SMN_C2PMSG_81>(hw::MP0_HWID));
  // The boot allocations, in this order on every boot (kBootLayoutVersion).
  // The ring is cleared when created; staging buffers are written before each use; the TMR is
  // the firmware's.
  ring_ = RG_TRY(b_.boot_alloc(kRingBytes, 4096, false));
  msg1_ = RG_TRY(b_.boot_alloc(kMsg1Bytes, kMsg1Bytes, false));
  cmd_ = RG_TRY(b_.boot_alloc(4096, 4096));
  fence_ = RG_TRY(b_.boot_alloc(4096, 4096));
  fw_ = RG_TRY(b_.boot_alloc(kFwBytes, 4096, false));
  tmr_ = RG_TRY(b_.boot_alloc(kTmrBytes, 1ull << 20, false));
  return {};
}

bool Psp::sos_alive() {
  const uint32_t v = b_.rd(r81_);
  return v != 0 && !pci::reads_all_ones(v);
}

Status Psp::bootloader(const FirmwareBlob& blob) {
  const uint32_t command = bootloader_command(blob.component);
  if (command == 0)
    return make_error(Errc::kUnsupported, "PSP bootloader component %.*s has no command",
                      int(blob.name.size()), blob.name.data());
  const uint64_t padded = (blob.size + 15) / 16 * 16 + 16;  // zero tail, as the reference pads
  if (padded > kMsg1Bytes)
    return make_error(Errc::kOutOfRange, "PSP component %.*s is %s, more than the 1 MiB staging",
                      int(blob.name.size()), blob.name.data(), format_bytes(blob.size).c_str());
  constexpr const char* kHint =
      "the PSP bootloader did not take the component: check the psp_*_sos firmware file matches "
      "the GPU, then try `rawgpu boot DEV --reset`";
  RG_TRY(b_.wait_reg("the PSP bootloader ready (C2PMSG_35 bit 31)", r35_, kReady, kReady,
                     seconds(1), kHint));
  uint8_t* m = b_.vram(msg1_);
  std::memset(m, 0, padded);
  std::memcpy(m, blob.bytes.data(), blob.size);
  RG_TRY(b_.hdp_flush());
  b_.wr(r36_, static_cast<uint32_t>(b_.mc(msg1_) >> 20));
  b_.wr(r35_, command);
  if (blob.component == uc::PSP_FW_TYPE_PSP_SOS) {
    PollOptions po;
    po.timeout = seconds(3);
    po.clock = &b_.clock();
    uint32_t v = 0;
    Status st = poll_until(
        "the sOS running (C2PMSG_81 != 0)",
        [&] {
          v = b_.rd(r81_);
          return v != 0 && !pci::reads_all_ones(v);
        },
        po, [&] { return strformat("C2PMSG_81 = 0x%08x", v); });
    if (!st)
      return std::move(st).take_error().with_hint(
          "the bootloader did not start the sOS: the SYS_DRV/KDB components may be missing or "
          "not match this GPU; try `rawgpu boot DEV --reset`");
    return {};
  }
  return b_.wait_reg("the PSP bootloader ready (C2PMSG_35 bit 31)", r35_, kReady, kReady,
                     seconds(1), kHint);
}

Status Psp::ring_create() {
  constexpr const char* kHint =
      "the sOS does not answer on its ring mailbox: try `rawgpu boot DEV --reset`";
  if (b_.rd(r71_) != 0) {  // a ring exists (a previous driver's): destroy it first
    b_.wr(r64_, psp::GFX_CTRL_CMD_ID_DESTROY_RINGS);
    b_.sleep(milliseconds(20));
  }
  RG_TRY(b_.wait_reg("the sOS ring mailbox ready (C2PMSG_64 bit 31)", r64_, kReady, kReady,
                     seconds(1), kHint));
  std::memset(b_.vram(ring_), 0, kRingBytes);
  RG_TRY(b_.hdp_flush());
  const uint64_t mc = b_.mc(ring_);
  b_.wr(r69_, static_cast<uint32_t>(mc));
  b_.wr(r70_, static_cast<uint32_t>(mc >> 32));
  b_.wr(r71_, kRingBytes);
  b_.wr(r64_, psp::GFX_CTRL_CMD_ID_INIT_GPCOM_RING);
  b_.sleep(milliseconds(20));
  RG_TRY(b_.wait_reg("the KM ring created (C2PMSG_64 & 0x8000ffff == 0x80000000)", r64_,
                     0x8000ffffu, kReady, seconds(1), kHint));
  wptr_ = 0;
  return {};
}

Result<uint32_t> Psp::command(uint32_t cmd_id, const char* what,
                              const std::function<void(uint8_t* cmd)>& fill) {
  uint8_t* c = b_.vram(cmd_);
  std::memset(c, 0, sizeof(psp::psp_gfx_cmd_resp));
  psp::psp_gfx_cmd_resp h{};
  h.buf_size = sizeof(psp::psp_gfx_cmd_resp);
  h.buf_version = psp::PSP_GFX_CMD_BUF_VERSION;
  h.cmd_id = cmd_id;
  std::memcpy(c, &h, offsetof(psp::psp_gfx_cmd_resp, cmd));
  fill(c + offsetof(psp::psp_gfx_cmd_resp, cmd));
  psp::psp_gfx_rb_frame f{};
  const uint64_t cmd_mc = b_.mc(cmd_), fence_mc = b_.mc(fence_);
  f.cmd_buf_addr_lo = static_cast<uint32_t>(cmd_mc);
  f.cmd_buf_addr_hi = static_cast<uint32_t>(cmd_mc >> 32);
  f.cmd_buf_size = sizeof(psp::psp_gfx_cmd_resp);
  f.fence_addr_lo = static_cast<uint32_t>(fence_mc);
  f.fence_addr_hi = static_cast<uint32_t>(fence_mc >> 32);
  f.fence_value = ++fence_value_;
  std::memcpy(b_.vram(ring_ + uint64_t{wptr_} * 4), &f, sizeof f);
  RG_TRY(b_.hdp_flush());
  wptr_ = (wptr_ + kFrameDw) % (kRingBytes / 4);  // wraps (amd.md: tinygrad never does)
  b_.wr(r67_, wptr_);
  volatile uint32_t* fence = reinterpret_cast<volatile uint32_t*>(b_.vram(fence_));
  PollOptions po;
  po.timeout = seconds(1);
  po.clock = &b_.clock();
  RG_TRY(poll_until(
      strformat("the PSP's fence for %s %s", cmd_name(cmd_id), what),
      [&] { return *fence == fence_value_; }, po,
      [&] { return strformat("fence 0x%x, expected 0x%x", *fence, fence_value_); }));
  psp::psp_gfx_resp resp;
  std::memcpy(&resp, c + offsetof(psp::psp_gfx_cmd_resp, resp), sizeof resp);
  if (resp.status != 0)
    return make_error(Errc::kHardware, "PSP %s %s answered status 0x%08x", cmd_name(cmd_id), what,
                      resp.status)
        .with_hint(
            "the sOS refused the command: the firmware files may not match the GPU "
            "(`rawgpu fwinfo`), or its state is bad (`rawgpu boot DEV --reset`)");
  return resp.tmr_size;
}

Status Psp::load_ip_fw(const FirmwareBlob& blob) {
  if (blob.size > kFwBytes)
    return make_error(Errc::kOutOfRange, "firmware image %.*s is %s, more than the %s staging",
                      int(blob.name.size()), blob.name.data(), format_bytes(blob.size).c_str(),
                      format_bytes(kFwBytes).c_str());
  std::memcpy(b_.vram(fw_), blob.bytes.data(), blob.size);
  const uint64_t mc = b_.mc(fw_);
  const std::string what(blob.name);
  return as_status(command(psp::GFX_CMD_ID_LOAD_IP_FW, what.c_str(), [&](uint8_t* cmd) {
    psp::psp_gfx_cmd_load_ip_fw l{};
    l.fw_phy_addr_lo = static_cast<uint32_t>(mc);
    l.fw_phy_addr_hi = static_cast<uint32_t>(mc >> 32);
    l.fw_size = static_cast<uint32_t>(blob.size);
    l.fw_type = blob.gfx_type;
    std::memcpy(cmd, &l, sizeof l);
  }));
}

Status Psp::hw_init(bool warm) {
  if (warm) {
    // The sOS still runs its ring (boot-pool VRAM, the same address): continue at its wptr.
    wptr_ = b_.rd(r67_) % (kRingBytes / 4);
    b_.skipped("PSP", "bootloader, ring and firmware");
    return {};
  }
  const LoadedFirmware* sos = b_.firmware.find(FirmwareKind::kPspSos);
  if (sos == nullptr) return make_error(Errc::kNotFound, "no PSP SOS firmware file was loaded");
  if (!sos_alive()) {
    for (const FirmwareBlob& blob : sos->info.blobs) {
      if (blob.path != BlobPath::kBootloader) continue;
      RG_TRY(
          b_.step("PSP", "bootloader " + std::string(blob.name), [&] { return bootloader(blob); }));
    }
  }
  RG_TRY(b_.step("PSP", "KM ring", [&] { return ring_create(); }));
  uint32_t tmr_size = 0;
  for (const FirmwareBlob& blob : sos->info.blobs) {
    if (blob.path != BlobPath::kToc) continue;
    RG_TRY(b_.step("PSP", "LOAD_TOC", [&]() -> Status {
      if (blob.size > kFwBytes)
        return make_error(Errc::kOutOfRange, "the TOC is %s, more than the %s staging",
                          format_bytes(blob.size).c_str(), format_bytes(kFwBytes).c_str());
      std::memcpy(b_.vram(fw_), blob.bytes.data(), blob.size);
      const uint64_t mc = b_.mc(fw_);
      tmr_size = RG_TRY(command(psp::GFX_CMD_ID_LOAD_TOC, "TOC", [&](uint8_t* cmd) {
        psp::psp_gfx_cmd_load_toc t{};
        t.toc_phy_addr_lo = static_cast<uint32_t>(mc);
        t.toc_phy_addr_hi = static_cast<uint32_t>(mc >> 32);
        t.toc_size = static_cast<uint32_t>(blob.size);
        std::memcpy(cmd, &t, sizeof t);
      }));
      if (tmr_size > kTmrBytes)
        return make_error(Errc::kUnsupported,
                          "the TOC asks for a TMR of %s; this layout reserves %s",
                          format_bytes(tmr_size).c_str(), format_bytes(kTmrBytes).c_str());
      return {};
    }));
  }
  // The SMU image first (it must precede the TMR), then the TMR, then every other image in
  // file order.
  const LoadedFirmware* smc = b_.firmware.find(FirmwareKind::kSmc);
  if (smc != nullptr)
    for (const FirmwareBlob& blob : smc->info.blobs)
      if (blob.gfx_type == psp::GFX_FW_TYPE_SMU)
        RG_TRY(b_.step("PSP", "LOAD_IP_FW SMU", [&] { return load_ip_fw(blob); }));
  const IpVersion mp0 = b_.ip(hw::MP0_HWID).version;
  if (!boot_time_tmr(mp0)) {
    RG_TRY(b_.step("PSP", "SETUP_TMR", [&]() -> Status {
      const uint64_t mc = b_.mc(tmr_);
      const uint32_t size = tmr_size != 0 ? tmr_size : static_cast<uint32_t>(kTmrBytes);
      return as_status(command(psp::GFX_CMD_ID_SETUP_TMR, "TMR", [&](uint8_t* cmd) {
        psp::psp_gfx_cmd_setup_tmr t{};
        t.buf_phy_addr_lo = static_cast<uint32_t>(mc);
        t.buf_phy_addr_hi = static_cast<uint32_t>(mc >> 32);
        t.buf_size = size;
        t.bitfield.virt_phy_addr = 1;
        t.system_phy_addr_lo = static_cast<uint32_t>(tmr_.raw());  // VRAM physical
        t.system_phy_addr_hi = static_cast<uint32_t>(tmr_.raw() >> 32);
        std::memcpy(cmd, &t, sizeof t);
      }));
    }));
  } else {
    b_.skipped("PSP", "SETUP_TMR (boot-time TMR on this MP0)");
  }
  for (const LoadedFirmware& f : b_.firmware.files) {
    if (f.info.kind == FirmwareKind::kPspSos) continue;
    for (const FirmwareBlob& blob : f.info.blobs) {
      if (blob.path != BlobPath::kIpFw || blob.gfx_type == psp::GFX_FW_TYPE_SMU) continue;
      if (blob.gfx_type == psp::GFX_FW_TYPE_REG_LIST && !b_.gc12() && b_.gc_version() >= 100000)
        continue;  // the SOS register list is a GC 9 load
      RG_TRY(
          b_.step("PSP", "LOAD_IP_FW " + std::string(blob.name), [&] { return load_ip_fw(blob); }));
    }
  }
  return b_.step("PSP", "AUTOLOAD_RLC", [&] {
    return as_status(command(psp::GFX_CMD_ID_AUTOLOAD_RLC, "RLC", [](uint8_t*) {}));
  });
}

}  // namespace rawgpu::drivers::amd
