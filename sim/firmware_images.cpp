// Synthetic AMD firmware images (firmware_images.h): the per-version builders, the simulated
// boards' files with the layout of their firmware-amd-graphics namesakes, their signatures, the
// per-process cache and the temporary firmware directory.
#include "rawgpu/sim/firmware_images.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>

#include "rawgpu/autogen/amd/hw_ip.h"
#include "rawgpu/base/file.h"
#include "rawgpu/base/format.h"
#include "rawgpu/sim/discovery_table.h"

namespace rawgpu::sim {

namespace uc = autogen::amd::ucode;
namespace amd = drivers::amd;
using amd::FirmwareKind;

namespace {

constexpr uint32_t kUo = kSimUcodeArrayOffset;

constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

constexpr uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

uint32_t u32(uint64_t x) {
  RG_CHECK(x <= UINT32_MAX, "firmware image field 0x%llx does not fit 32 bits",
           static_cast<unsigned long long>(x));
  return static_cast<uint32_t>(x);
}

template <class T>
void put(FirmwareBytes& b, uint64_t off, const T& t) {
  RG_CHECK(off + sizeof(T) <= b.size());
  std::memcpy(b.data() + off, &t, sizeof(T));
}

}  // namespace

// --- builders -----------------------------------------------------------------------------------

uint32_t firmware_crc32(std::span<const uint8_t> bytes) {
  uint32_t c = 0xffffffffu;
  for (uint8_t x : bytes) c = kCrcTable[(c ^ x) & 0xff] ^ (c >> 8);
  return ~c;
}

void finish_firmware(FirmwareBytes& image) {
  RG_CHECK(image.size() >= sizeof(uc::common_firmware_header));
  uc::common_firmware_header h;
  std::memcpy(&h, image.data(), sizeof(h));
  h.size_bytes = u32(image.size());
  h.crc32 = firmware_crc32(std::span(image).subspan(sizeof(h)));
  std::memcpy(image.data(), &h, sizeof(h));
}

uc::common_firmware_header firmware_common_header(uint16_t major, uint16_t minor,
                                                  uint32_t header_size, uint32_t ucode_size,
                                                  const FwCommon& common) {
  uc::common_firmware_header c{};
  c.header_size_bytes = header_size;
  c.header_version_major = major;
  c.header_version_minor = minor;
  c.ip_version_major = common.ip_major;
  c.ip_version_minor = common.ip_minor;
  c.ucode_version = common.ucode_version;
  c.ucode_array_offset_bytes = kSimUcodeArrayOffset;
  c.ucode_size_bytes = ucode_size;
  return c;
}

void fill_firmware_pattern(std::span<uint8_t> bytes) {
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 1);
}

FirmwareBytes psp_v2_image(uint16_t minor, const std::vector<PspBin>& bins, uint32_t aux_index,
                           const FwCommon& common) {
  // v2.0 is v2.1 without the aux index; TA v2.0 has the v2.0 layout.
  static_assert(offsetof(uc::ta_firmware_header_v2_0, ta_fw_bin) ==
                offsetof(uc::psp_firmware_header_v2_0, psp_fw_bin));
  const size_t header =
      minor == 1 ? sizeof(uc::psp_firmware_header_v2_1) : sizeof(uc::psp_firmware_header_v2_0);
  const uint64_t descs_end = header + bins.size() * sizeof(uc::psp_fw_bin_desc);
  const uint64_t uo = align_up(descs_end, 0x100);
  uint64_t us = 0;
  for (const PspBin& d : bins) us = std::max(us, uint64_t{d.offset} + d.size);
  FirmwareBytes b(uo + us);
  fill_firmware_pattern(b);
  uc::psp_firmware_header_v2_1 h{};
  h.header = firmware_common_header(2, minor, u32(header), u32(us), common);
  h.header.ucode_array_offset_bytes = u32(uo);
  h.psp_fw_bin_count = u32(bins.size());
  h.psp_aux_fw_bin_index = aux_index;
  std::memcpy(b.data(), &h, header);
  uint64_t at = header;
  for (const PspBin& d : bins) {
    put(b, at, uc::psp_fw_bin_desc{d.fw_type, d.fw_version, d.offset, d.size});
    at += sizeof(uc::psp_fw_bin_desc);
  }
  finish_firmware(b);
  return b;
}

std::vector<PspBin> contiguous_psp_bins(std::span<const uint32_t> types, uint32_t size,
                                        uint32_t fw_version) {
  std::vector<PspBin> out;
  uint32_t off = 0;
  for (uint32_t t : types) {
    out.push_back({t, off, size, fw_version});
    off += size;
  }
  return out;
}

FirmwareBytes psp_v1_image(const PspV1Spec& s) {
  const uint32_t us = s.sys_drv_bytes + s.sos_bytes;
  return firmware_image<uc::psp_firmware_header_v1_0>(kUo + us, 1, 0, us, s.common, [&](auto& h) {
    h.sos.fw_version = s.sos_version;
    h.sos.offset_bytes = s.sys_drv_bytes;
    h.sos.size_bytes = s.sos_bytes;
  });
}

FirmwareBytes single_blob_image(uint32_t ucode_bytes, const FwCommon& common) {
  return firmware_image<uc::psp_firmware_header_v1_0>(kUo + ucode_bytes, 1, 0, ucode_bytes, common,
                                                      [](auto&) {});
}

FirmwareBytes smc_v20_image(const SmcV20Spec& s) {
  const uint32_t ppt = kUo + s.image_bytes;
  return firmware_image<uc::smc_firmware_header_v2_0>(ppt + s.pptable_bytes, 2, 0, s.image_bytes,
                                                      s.common, [&](auto& h) {
                                                        h.v1_0.ucode_start_addr = s.start_addr;
                                                        h.ppt_offset_bytes = ppt;
                                                        h.ppt_size_bytes = s.pptable_bytes;
                                                      });
}

FirmwareBytes smc_v21_image(const SmcV21Spec& s) {
  const uint64_t entries = kUo + s.image_bytes;
  const uint64_t align = std::max<uint32_t>(s.table_align, 1);
  uint64_t at = entries + s.tables.size() * sizeof(uc::smc_soft_pptable_entry);
  std::vector<uc::smc_soft_pptable_entry> e;
  for (const SmcTable& t : s.tables) {
    at = align_up(at, align);
    e.push_back({t.id, u32(at), t.size});
    at += t.size;
  }
  FirmwareBytes b =
      firmware_image<uc::smc_firmware_header_v2_1>(at, 2, 1, s.image_bytes, s.common, [&](auto& h) {
        h.v1_0.ucode_start_addr = s.start_addr;
        h.pptable_count = u32(s.tables.size());
        h.pptable_entry_offset = u32(entries);
      });
  for (size_t i = 0; i < e.size(); ++i) put(b, entries + i * sizeof(e[i]), e[i]);
  finish_firmware(b);
  return b;
}

FirmwareBytes sdma_v1_image(const SdmaV1Spec& s) {
  return firmware_image<uc::sdma_firmware_header_v1_0>(kUo + s.ucode_bytes, 1, 0, s.ucode_bytes,
                                                       s.common, [&](auto& h) {
                                                         h.ucode_feature_version = s.feature;
                                                         h.jt_offset = s.jt_offset;
                                                         h.jt_size = s.jt_size;
                                                       });
}

FirmwareBytes sdma_v2_image(const SdmaV2Spec& s) {
  const uint32_t us = s.ctx_bytes + s.ctl_bytes;
  return firmware_image<uc::sdma_firmware_header_v2_0>(kUo + us, 2, 0, us, s.common, [&](auto& h) {
    h.ucode_feature_version = s.feature;
    h.ctx_ucode_size_bytes = s.ctx_bytes;
    h.ctx_jt_offset = s.ctx_jt_offset;
    h.ctx_jt_size = s.ctx_jt_size;
    // file-relative, as in sdma_6_0_0
    h.ctl_ucode_offset = kUo + s.ctx_bytes;
    h.ctl_ucode_size_bytes = s.ctl_bytes;
    h.ctl_jt_offset = s.ctl_jt_offset;
    h.ctl_jt_size = s.ctl_jt_size;
  });
}

FirmwareBytes sdma_v3_image(const SdmaV3Spec& s) {
  return firmware_image<uc::sdma_firmware_header_v3_0>(kUo + s.ucode_bytes, 3, 0, s.ucode_bytes,
                                                       s.common, [&](auto& h) {
                                                         h.ucode_feature_version = s.feature;
                                                         h.ucode_offset_bytes = kUo;
                                                         h.ucode_size_bytes = s.ucode_bytes;
                                                       });
}

FirmwareBytes gfx_v1_image(const GfxV1Spec& s) {
  const uint32_t us = s.code_bytes + 4 * s.jt_dwords;
  return firmware_image<uc::gfx_firmware_header_v1_0>(kUo + us, 1, 0, us, s.common, [&](auto& h) {
    h.ucode_feature_version = s.feature;
    h.jt_offset = s.code_bytes / 4;
    h.jt_size = s.jt_dwords;
  });
}

FirmwareBytes gfx_v2_image(const GfxV2Spec& s) {
  const uint32_t us = s.code_bytes + s.data_bytes;
  return firmware_image<uc::gfx_firmware_header_v2_0>(kUo + us, 2, 0, us, s.common, [&](auto& h) {
    h.ucode_feature_version = s.feature;
    h.ucode_size_bytes = s.code_bytes;
    h.ucode_offset_bytes = kUo;
    h.data_size_bytes = s.data_bytes;
    h.data_offset_bytes = kUo + s.code_bytes;
    h.ucode_start_addr_lo = static_cast<uint32_t>(s.entry_point);
    h.ucode_start_addr_hi = static_cast<uint32_t>(s.entry_point >> 32);
  });
}

FirmwareBytes imu_v1_image(const ImuV1Spec& s) {
  const uint32_t us = s.iram_bytes + s.dram_bytes;
  return firmware_image<uc::imu_firmware_header_v1_0>(kUo + us, 1, 0, us, s.common, [&](auto& h) {
    h.imu_iram_ucode_size_bytes = s.iram_bytes;
    h.imu_iram_ucode_offset_bytes = 0;
    h.imu_dram_ucode_size_bytes = s.dram_bytes;
    h.imu_dram_ucode_offset_bytes = s.iram_bytes;
  });
}

FirmwareBytes rlc_v2_image(const RlcV2Spec& s) {
  RG_CHECK(s.minor <= 4, "RLC header v2.%u", unsigned(s.minor));
  constexpr size_t kHeaderSize[] = {
      sizeof(uc::rlc_firmware_header_v2_0), sizeof(uc::rlc_firmware_header_v2_1),
      sizeof(uc::rlc_firmware_header_v2_2), sizeof(uc::rlc_firmware_header_v2_3),
      sizeof(uc::rlc_firmware_header_v2_4)};
  const size_t header = kHeaderSize[s.minor];
  uc::rlc_firmware_header_v2_4 h{};  // each minor's struct is a prefix of the next
  auto& v23 = h.v2_3;
  auto& v22 = v23.v2_2;
  auto& v21 = v22.v2_1;
  auto& v20 = v21.v2_0;
  v20.header = firmware_common_header(2, s.minor, u32(header), s.rlc_g_bytes, s.common);
  v20.ucode_feature_version = s.feature;
  struct Slot {
    unsigned minor;
    uint32_t bytes;
    uint32_t *offset, *size;
  };
  const Slot slots[] = {
      {0, s.reg_list_format_bytes, &v20.reg_list_format_array_offset_bytes,
       &v20.reg_list_format_size_bytes},
      {0, s.reg_list_bytes, &v20.reg_list_array_offset_bytes, &v20.reg_list_size_bytes},
      {1, s.cntl_bytes, &v21.save_restore_list_cntl_offset_bytes,
       &v21.save_restore_list_cntl_size_bytes},
      {1, s.gpm_bytes, &v21.save_restore_list_gpm_offset_bytes,
       &v21.save_restore_list_gpm_size_bytes},
      {1, s.srm_bytes, &v21.save_restore_list_srm_offset_bytes,
       &v21.save_restore_list_srm_size_bytes},
      {2, s.iram_bytes, &v22.rlc_iram_ucode_offset_bytes, &v22.rlc_iram_ucode_size_bytes},
      {2, s.dram_bytes, &v22.rlc_dram_ucode_offset_bytes, &v22.rlc_dram_ucode_size_bytes},
      {3, s.rlcp_bytes, &v23.rlcp_ucode_offset_bytes, &v23.rlcp_ucode_size_bytes},
      {3, s.rlcv_bytes, &v23.rlcv_ucode_offset_bytes, &v23.rlcv_ucode_size_bytes},
      {4, s.tap_delay_bytes[0], &h.global_tap_delays_ucode_offset_bytes,
       &h.global_tap_delays_ucode_size_bytes},
      {4, s.tap_delay_bytes[1], &h.se0_tap_delays_ucode_offset_bytes,
       &h.se0_tap_delays_ucode_size_bytes},
      {4, s.tap_delay_bytes[2], &h.se1_tap_delays_ucode_offset_bytes,
       &h.se1_tap_delays_ucode_size_bytes},
      {4, s.tap_delay_bytes[3], &h.se2_tap_delays_ucode_offset_bytes,
       &h.se2_tap_delays_ucode_size_bytes},
      {4, s.tap_delay_bytes[4], &h.se3_tap_delays_ucode_offset_bytes,
       &h.se3_tap_delays_ucode_size_bytes},
  };
  uint32_t at = kUo + s.rlc_g_bytes;
  for (const Slot& r : slots) {
    if (r.minor > s.minor) continue;
    *r.offset = at;  // a region of size 0 keeps the current offset, as in the real files
    *r.size = r.bytes;
    at += r.bytes;
  }
  FirmwareBytes b(at);
  fill_firmware_pattern(b);
  std::memcpy(b.data(), &h, header);
  finish_firmware(b);
  return b;
}

FirmwareBytes mes_v1_image(const MesV1Spec& s) {
  const uint32_t us = s.code_bytes + s.data_bytes;
  return firmware_image<uc::mes_firmware_header_v1_0>(kUo + us, 1, 0, us, s.common, [&](auto& h) {
    h.mes_ucode_size_bytes = s.code_bytes;
    h.mes_ucode_offset_bytes = kUo;
    h.mes_ucode_data_size_bytes = s.data_bytes;
    h.mes_ucode_data_offset_bytes = kUo + s.code_bytes;
    h.mes_uc_start_addr_lo = static_cast<uint32_t>(s.code_start);
    h.mes_uc_start_addr_hi = static_cast<uint32_t>(s.code_start >> 32);
    h.mes_data_start_addr_lo = static_cast<uint32_t>(s.data_start);
    h.mes_data_start_addr_hi = static_cast<uint32_t>(s.data_start >> 32);
  });
}

// --- the simulated boards' files ----------------------------------------------------------------

namespace {

// Payload sizes: a few hundred bytes per region, enough for its signature.
constexpr uint32_t kPart = 0x100;

// PSP bootloader components in the descriptor order of the real files.
constexpr uint32_t kSos1300[] = {
    uc::PSP_FW_TYPE_PSP_SYS_DRV, uc::PSP_FW_TYPE_PSP_SOS, uc::PSP_FW_TYPE_PSP_TOC,
    uc::PSP_FW_TYPE_PSP_KDB,     uc::PSP_FW_TYPE_PSP_SPL, uc::PSP_FW_TYPE_PSP_RL,
};
constexpr uint32_t kSos1403[] = {
    uc::PSP_FW_TYPE_PSP_KDB,     uc::PSP_FW_TYPE_PSP_SYS_DRV,      uc::PSP_FW_TYPE_PSP_SOS,
    uc::PSP_FW_TYPE_PSP_SOC_DRV, uc::PSP_FW_TYPE_PSP_INTF_DRV,     uc::PSP_FW_TYPE_PSP_DBG_DRV,
    uc::PSP_FW_TYPE_PSP_TOC,     uc::PSP_FW_TYPE_PSP_IPKEYMGR_DRV, uc::PSP_FW_TYPE_PSP_SPL,
    uc::PSP_FW_TYPE_PSP_RAS_DRV, uc::PSP_FW_TYPE_PSP_RL,
};
// 13.0.6 (v2.1): the main set, then the same types again as the aux set.
constexpr uint32_t kSos1306[] = {
    uc::PSP_FW_TYPE_PSP_SYS_DRV,  uc::PSP_FW_TYPE_PSP_SOS,      uc::PSP_FW_TYPE_PSP_KDB,
    uc::PSP_FW_TYPE_PSP_SOC_DRV,  uc::PSP_FW_TYPE_PSP_INTF_DRV, uc::PSP_FW_TYPE_PSP_DBG_DRV,
    uc::PSP_FW_TYPE_PSP_RAS_DRV,  uc::PSP_FW_TYPE_PSP_RL,       uc::PSP_FW_TYPE_PSP_SYS_DRV,
    uc::PSP_FW_TYPE_PSP_SOS,      uc::PSP_FW_TYPE_PSP_KDB,      uc::PSP_FW_TYPE_PSP_SOC_DRV,
    uc::PSP_FW_TYPE_PSP_INTF_DRV, uc::PSP_FW_TYPE_PSP_DBG_DRV,  uc::PSP_FW_TYPE_PSP_RAS_DRV,
    uc::PSP_FW_TYPE_PSP_RL,
};

FirmwareBytes sos(std::span<const uint32_t> types, uint16_t minor, uint32_t aux, FwCommon c) {
  return psp_v2_image(minor, contiguous_psp_bins(types, kPart, c.ucode_version), aux, c);
}

FirmwareBytes smc21(std::vector<uint32_t> ids, uint32_t image, FwCommon c) {
  SmcV21Spec s;
  s.common = c;
  s.image_bytes = image;
  s.tables.clear();
  for (uint32_t id : ids) s.tables.push_back({id, kPart});
  s.table_align = 4;
  return smc_v21_image(s);
}

FirmwareBytes rs64(FwCommon c) {
  GfxV2Spec s;  // entry point 0x0007000000003000, as in every GC 11/12 file
  s.common = c;
  s.feature = 29;
  s.code_bytes = 2 * kPart;
  s.data_bytes = kPart;
  return gfx_v2_image(s);
}
FirmwareBytes imu(FwCommon c) { return imu_v1_image({c, kPart, kPart}); }

// RLC with RLC_G and the restore lists GPM and SRM (no SRM_CNTL), IRAM/DRAM from v2.2 and
// RLC_P/RLC_V from v2.3 on: the regions gc_11_0_0_rlc (v2.3) and gc_12_0_1_rlc (v2.2) have.
FirmwareBytes rlc_rdna(uint16_t minor, uint32_t feature, FwCommon c) {
  RlcV2Spec s;
  s.common = c;
  s.minor = minor;
  s.feature = feature;
  s.rlc_g_bytes = 2 * kPart;
  s.reg_list_format_bytes = s.reg_list_bytes = s.cntl_bytes = 0;
  s.gpm_bytes = s.srm_bytes = s.iram_bytes = s.dram_bytes = s.rlcp_bytes = s.rlcv_bytes = kPart;
  return rlc_v2_image(s);
}

struct SimFile {
  std::string_view name;  // without .bin
  FirmwareKind kind;
  FirmwareBytes (*build)();
};

// The ip and ucode versions, feature versions, header versions and region sets are those of the
// firmware-amd-graphics 20250410 files of the same name.
const SimFile kFiles[] = {
    // gfx1100: MP0/MP1 13.0.0, SDMA 6.0.0, GC 11.0.0
    {"psp_13_0_0_sos", FirmwareKind::kPspSos,
     [] { return sos(kSos1300, 0, 0, {13, 0, 0x310032}); }},
    {"smu_13_0_0", FirmwareKind::kSmc,
     [] {
       return smc21({0xe50, 0x8f21, 0xe63, 0x8fdf, 0xe83, 0x911f}, 2 * kPart, {13, 0, 0x4e8000});
     }},
    {"sdma_6_0_0", FirmwareKind::kSdma,
     [] { return sdma_v2_image({{6, 0, 0x18}, 60, 2 * kPart, 0x40, 0x20, 2 * kPart, 0x40, 0}); }},
    {"gc_11_0_0_mec", FirmwareKind::kGfxMec, [] { return rs64({11, 0, 0xa1e}); }},
    {"gc_11_0_0_imu", FirmwareKind::kImu, [] { return imu({11, 0, 0xb1f4b00}); }},
    {"gc_11_0_0_rlc", FirmwareKind::kRlc, [] { return rlc_rdna(3, 1, {11, 0, 0x80}); }},
    // gfx1201: MP0/MP1 14.0.3, SDMA 7.0.1, GC 12.0.1
    {"psp_14_0_3_sos", FirmwareKind::kPspSos,
     [] { return sos(kSos1403, 0, 0, {14, 0, 0x3a0b14}); }},
    {"smu_14_0_3", FirmwareKind::kSmc,
     [] { return smc_v20_image({{14, 0, 0x684400}, 0x20000, 2 * kPart, kPart}); }},
    {"sdma_7_0_1", FirmwareKind::kSdma,
     [] { return sdma_v3_image({{7, 0, 0x6f3b46}, 1081031494, 3 * kPart}); }},
    {"gc_12_0_1_pfp", FirmwareKind::kGfxPfp, [] { return rs64({12, 0, 0xafa}); }},
    {"gc_12_0_1_me", FirmwareKind::kGfxMe, [] { return rs64({12, 0, 0xac8}); }},
    {"gc_12_0_1_mec", FirmwareKind::kGfxMec, [] { return rs64({12, 0, 0xbc2}); }},
    {"gc_12_0_1_imu", FirmwareKind::kImu, [] { return imu({12, 0, 0xc302a00}); }},
    {"gc_12_0_1_rlc", FirmwareKind::kRlc, [] { return rlc_rdna(2, 1000, {12, 0, 0xbe7da0}); }},
    // gfx942: MP0/MP1 13.0.6, SDMA 4.4.2, GC 9.4.3 (three P2S tables, no SMU image)
    {"psp_13_0_6_sos", FirmwareKind::kPspSos,
     [] { return sos(kSos1306, 1, 8, {13, 0, 0x36024e}); }},
    {"smu_13_0_6", FirmwareKind::kSmc,
     [] { return smc21({0x50325341, 0x50325358, 0x50325303}, 0, {13, 0, 0}); }},
    {"sdma_4_4_2", FirmwareKind::kSdma,
     [] { return sdma_v1_image({{4, 4, 0x18}, 44, 3 * kPart, 0x80, 0x20}); }},
    {"gc_9_4_3_mec", FirmwareKind::kGfxMec,
     [] { return gfx_v1_image({{9, 4, 0xb4}, 50, 3 * kPart, kPart / 4}); }},
    {"gc_9_4_3_rlc", FirmwareKind::kRlc,
     [] {
       RlcV2Spec s;
       s.common = {9, 4, 0x41};
       s.minor = 1;
       s.rlc_g_bytes = 2 * kPart;
       s.reg_list_format_bytes = 0x40;  // driver-programmed, not blobs
       s.reg_list_bytes = 0x80;
       s.cntl_bytes = s.gpm_bytes = s.srm_bytes = kPart;
       return rlc_v2_image(s);
     }},
};

std::string_view base_name(std::string_view name) {
  if (name.ends_with(".bin")) name.remove_suffix(4);
  return name;
}

// Writes "FILE:REGION\0" at the start of [offset, offset + size).
void stamp(FirmwareBytes& b, uint64_t offset, uint64_t size, const std::string& text) {
  RG_CHECK(text.size() < size && offset + size <= b.size(), "%s does not fit its region",
           text.c_str());
  std::memcpy(b.data() + offset, text.c_str(), text.size() + 1);
}

// Signs every region a PSP or the driver takes (blobs first, then the descriptors and pptables
// that are no blob), refreshes the crc32 and checks the result parses.
Result<FirmwareBytes> sign(const SimFile& f, FirmwareBytes b) {
  const std::string file = std::string(f.name) + ".bin";
  amd::ParseOptions quiet;
  quiet.verify_crc32 = false;
  const amd::FirmwareInfo info =
      RG_TRY_CTX(amd::parse_firmware(f.kind, b, file, quiet), "while signing %s", file.c_str());
  std::vector<uint64_t> done;
  auto once = [&](uint64_t offset, uint64_t size, const std::string& region) {
    if (std::find(done.begin(), done.end(), offset) != done.end()) return;
    done.push_back(offset);
    stamp(b, offset, size, file + ":" + region);
  };
  for (const amd::FirmwareBlob& blob : info.blobs)
    once(blob.offset, blob.size, std::string(blob.name));
  for (const amd::PspDescriptor& d : info.descriptors)
    once(d.offset, d.size, std::string(d.type_name) + (d.aux ? "(aux)" : ""));
  for (const amd::Pptable& t : info.pptables)
    once(t.offset, t.size, strformat("PPTABLE_0x%08x", t.id));
  finish_firmware(b);
  RG_TRY_CTX(amd::parse_firmware(f.kind, b, file), "the simulator's %s", file.c_str());
  return b;
}

}  // namespace

std::vector<std::string> sim_firmware_names() {
  std::vector<std::string> out;
  for (const SimFile& f : kFiles) out.push_back(std::string(f.name) + ".bin");
  return out;
}

Result<SimFirmwareFile> sim_firmware_file(std::string_view name) {
  const std::string_view want = base_name(name);
  for (const SimFile& f : kFiles) {
    if (f.name != want) continue;
    SimFirmwareFile out;
    out.name = std::string(f.name) + ".bin";
    out.kind = f.kind;
    out.bytes = RG_TRY(sign(f, f.build()));
    return out;
  }
  std::string known;
  for (const SimFile& f : kFiles) known += (known.empty() ? "" : ", ") + std::string(f.name);
  return make_error(Errc::kUnsupported,
                    "the simulated boards have no firmware file %s (they have %s)",
                    quote(name).c_str(), known.c_str());
}

Result<std::span<const SimFirmwareFile>> sim_firmware_package(const amd::AmFirmwareIps& ips) {
  const std::vector<amd::FirmwareRequest> names = RG_TRY(amd::am_firmware_names(ips));
  std::string key;
  for (const amd::FirmwareRequest& r : names) key += r.name + " ";
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<const std::vector<SimFirmwareFile>>> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return std::span(*it->second);
  auto files = std::make_unique<std::vector<SimFirmwareFile>>();
  for (const amd::FirmwareRequest& r : names) {
    SimFirmwareFile f = RG_TRY(sim_firmware_file(r.name));
    RG_CHECK(f.kind == r.kind, "%s: the simulator's kind differs from am_firmware_names'",
             f.name.c_str());
    files->push_back(std::move(f));
  }
  const std::vector<SimFirmwareFile>& kept = *files;
  cache.emplace(std::move(key), std::move(files));
  return std::span(kept);
}

Result<amd::AmFirmwareIps> sim_firmware_ips(uint32_t gc_version) {
  namespace hw = autogen::amd::hwid;
  const SimDiscoverySpec spec = RG_TRY(discovery_spec(gc_version));
  auto find = [&](uint32_t hw_id) -> std::optional<amd::IpVersion> {
    for (const auto& die : spec.dies)
      for (const SimIpRecord& r : die)
        if (r.hw_id == hw_id && r.instance == 0) return r.version;
    return std::nullopt;
  };
  const auto mp0 = find(hw::MP0_HWID), mp1 = find(hw::MP1_HWID);
  const auto sdma = find(hw::SDMA0_HWID), gc = find(hw::GC_HWID);
  if (!mp0 || !mp1 || !sdma || !gc)
    return make_error(Errc::kInternal, "the GC %u profile lacks MP0, MP1, SDMA0 or GC", gc_version);
  return amd::AmFirmwareIps{*mp0, *mp1, *sdma, *gc};
}

Result<std::span<const SimFirmwareFile>> sim_firmware_package(uint32_t gc_version) {
  return sim_firmware_package(RG_TRY(sim_firmware_ips(gc_version)));
}

namespace {

// The temporary firmware directory, removed when the process that made it exits (a forked
// child, e.g. a death test, leaves it alone).
class FirmwareDir {
 public:
  FirmwareDir() : result_(make()) {}
  ~FirmwareDir() {
    if (!path_.empty() && ::getpid() == owner_) {
      std::error_code ec;
      std::filesystem::remove_all(path_, ec);
    }
  }
  FirmwareDir(const FirmwareDir&) = delete;
  FirmwareDir& operator=(const FirmwareDir&) = delete;
  const Result<std::string>& result() const { return result_; }

 private:
  Result<std::string> make() {
    std::error_code ec;
    std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
    if (ec) tmp = "/tmp";
    std::string tmpl = (tmp / "rawgpu-sim-firmware-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) return os_error(errno, tmpl, "mkdtemp");
    path_ = tmpl;
    owner_ = ::getpid();
    for (const SimFile& f : kFiles) {
      const SimFirmwareFile file = RG_TRY(sim_firmware_file(f.name));
      RG_TRY(write_file(
          path_ + "/" + file.name,
          std::string_view(reinterpret_cast<const char*>(file.bytes.data()), file.bytes.size())));
    }
    return path_;
  }
  std::string path_;
  pid_t owner_ = 0;
  Result<std::string> result_;
};

}  // namespace

Result<std::string> sim_firmware_dir() {
  static const FirmwareDir dir;  // made once, by the first caller (thread-safe)
  return dir.result();
}

std::optional<SimBlobSignature> sim_blob_signature(std::span<const uint8_t> bytes) {
  const size_t limit = std::min<size_t>(bytes.size(), 128);
  const auto nul = std::find(bytes.begin(), bytes.begin() + limit, uint8_t{0});
  if (nul == bytes.begin() + limit) return std::nullopt;
  const std::string text(bytes.begin(), nul);
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c > 0x20 && c < 0x7f; }))
    return std::nullopt;
  const size_t colon = text.find(".bin:");
  if (colon == std::string::npos || colon == 0 || colon + 5 == text.size()) return std::nullopt;
  return SimBlobSignature{text.substr(0, colon + 4), text.substr(colon + 5)};
}

}  // namespace rawgpu::sim
