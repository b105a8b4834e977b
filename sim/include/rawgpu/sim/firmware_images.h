// The simulated boards' firmware: small synthetic images of the files the AM boot loads, with
// valid headers, and the builders they are made of.
//
// Builders: one per header version the parsers know (drivers/amd/firmware.h), each laying out a
// common header, the per-kind struct of autogen/amd/ucode.h and its regions one after another
// from ucode_array_offset_bytes 0x100, filled with a byte pattern, with size_bytes and the
// CRC-32 of [32, size_bytes) filled in (the parsers verify it where the kind promises it). Every
// spec's defaults are the small images the firmware parser tests use; tests edit the result to
// build malformed variants.
//
// Package: for a board's IP versions, every file am_firmware_names() lists, in its order, with
// the header versions and the blob set of the firmware-amd-graphics file of that name (the same
// PSP bootloader components in the same descriptor order, the same SMC pptable / P2S layout, RS64
// entry points, the RLC regions the real file has), the real ucode and feature versions, and
// payloads of a few hundred bytes. Every region the PSP or the driver takes (blob, descriptor,
// pptable) begins with a NUL-terminated signature "FILE:REGION" ("psp_13_0_0_sos.bin:SOS",
// "smu_13_0_0.bin:PPTABLE_0x00000e50", "psp_13_0_6_sos.bin:SOS(aux)") so that a simulated PSP
// can tell which blob it received; sim_blob_signature() reads it back. Files exist for the
// simulator's profiles: gfx1100 (MP0/MP1 13.0.0, SDMA 6.0.0, GC 11.0.0), gfx1201 (MP0/MP1
// 14.0.3, SDMA 7.0.1, GC 12.0.1) and gfx942 (MP0/MP1 13.0.6, SDMA 4.4.2, GC 9.4.3).
//
// The driver takes them as files: sim_firmware_dir() writes every synthetic file once per
// process into a private temporary directory, which a drivers::amd::FirmwareLoader searches like
// /lib/firmware/amdgpu (the same load path, SHA-256 and messages as for real files).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/autogen/amd/ucode.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/amd/firmware.h"

namespace rawgpu::sim {

using FirmwareBytes = std::vector<uint8_t>;

// --- builders -----------------------------------------------------------------------------------

inline constexpr uint32_t kSimUcodeArrayOffset = 0x100;  // where every builder's regions start

// CRC-32 (zlib polynomial) of `bytes`.
uint32_t firmware_crc32(std::span<const uint8_t> bytes);
// size_bytes = the image's size, crc32 = the CRC-32 of [32, end): after any edit of an image.
void finish_firmware(FirmwareBytes& image);
// The payload pattern every builder fills its image with before the headers go in.
void fill_firmware_pattern(std::span<uint8_t> bytes);

// The common header fields that are not layout.
struct FwCommon {
  uint16_t ip_major = 11, ip_minor = 0;
  uint32_t ucode_version = 0x1234;
};

// A common header: version major.minor, header_size_bytes, the ucode array at
// [kSimUcodeArrayOffset, + ucode_size); size_bytes and crc32 are finish_firmware()'s.
autogen::amd::ucode::common_firmware_header firmware_common_header(uint16_t major, uint16_t minor,
                                                                   uint32_t header_size,
                                                                   uint32_t ucode_size,
                                                                   const FwCommon& common);

// A `total`-byte image: the pattern, then the per-kind struct H (which begins with the common
// header) at 0 with header_size_bytes = sizeof(H), edited by `fill`; finished.
template <class H, class Fill>
FirmwareBytes firmware_image(size_t total, uint16_t major, uint16_t minor, uint32_t ucode_size,
                             const FwCommon& common, Fill&& fill) {
  FirmwareBytes b(total);
  fill_firmware_pattern(b);
  H h{};
  const autogen::amd::ucode::common_firmware_header c =
      firmware_common_header(major, minor, sizeof(H), ucode_size, common);
  std::memcpy(static_cast<void*>(&h), &c, sizeof(c));
  fill(h);
  std::memcpy(b.data(), &h, sizeof(H));
  finish_firmware(b);
  return b;
}

// PSP SOS v2.0 / v2.1, TA v2.0: descriptors after the header, the ucode array at the next 0x100
// boundary after them, `offset` relative to it (as in the file). Offsets and sizes are taken as
// given, so tests can build overlapping or empty ones; the ucode array ends at the largest
// offset + size.
struct PspBin {
  uint32_t fw_type = 0;  // psp_fw_type (SOS) or ta_fw_type (TA)
  uint32_t offset = 0, size = 0;
  uint32_t fw_version = 0;
};
FirmwareBytes psp_v2_image(uint16_t minor, const std::vector<PspBin>& bins, uint32_t aux_index = 0,
                           const FwCommon& common = {});
// `types` one after another, `size` bytes each, all with `fw_version`.
std::vector<PspBin> contiguous_psp_bins(std::span<const uint32_t> types, uint32_t size,
                                        uint32_t fw_version = 0);

// PSP SOS v1.0: SYS_DRV then SOS in the ucode array.
struct PspV1Spec {
  FwCommon common;
  uint32_t sys_drv_bytes = 0x100, sos_bytes = 0x100, sos_version = 7;
};
FirmwareBytes psp_v1_image(const PspV1Spec& spec);
// A v1.0 file whose ucode array is one blob (PSP TOC / ASD, GC TOC).
FirmwareBytes single_blob_image(uint32_t ucode_bytes, const FwCommon& common = {});

// SMC v2.0: the SMU image, then its one pptable.
struct SmcV20Spec {
  FwCommon common;
  uint32_t start_addr = 0x20000;
  uint32_t image_bytes = 0x100, pptable_bytes = 0x80;
};
FirmwareBytes smc_v20_image(const SmcV20Spec& spec);

// SMC v2.1: the SMU image (none: 0), the pptable entries right after it, then the tables, each
// at a multiple of `table_align`.
struct SmcTable {
  uint32_t id = 0, size = 0;
};
struct SmcV21Spec {
  FwCommon common;
  uint32_t start_addr = 0x20000;
  uint32_t image_bytes = 0x100;
  std::vector<SmcTable> tables = {{0x50325341, 0x40}, {0x50325358, 0x40}, {0xe50, 0x40}};
  uint32_t table_align = 0x40;
};
FirmwareBytes smc_v21_image(const SmcV21Spec& spec);

// SDMA v1.0: one image with its jump table (dwords) inside.
struct SdmaV1Spec {
  FwCommon common;
  uint32_t feature = 44, ucode_bytes = 0x300, jt_offset = 0x80, jt_size = 0x10;
};
FirmwareBytes sdma_v1_image(const SdmaV1Spec& spec);
// SDMA v2.0: context (TH0) then control (TH1) ucode, each with a jump table (dwords) inside.
struct SdmaV2Spec {
  FwCommon common;
  uint32_t feature = 60;
  uint32_t ctx_bytes = 0x200, ctx_jt_offset = 0x40, ctx_jt_size = 0x10;
  uint32_t ctl_bytes = 0x100, ctl_jt_offset = 0, ctl_jt_size = 0;
};
FirmwareBytes sdma_v2_image(const SdmaV2Spec& spec);
// SDMA v3.0: one ucode (TH0).
struct SdmaV3Spec {
  FwCommon common;
  uint32_t feature = 0, ucode_bytes = 0x200;
};
FirmwareBytes sdma_v3_image(const SdmaV3Spec& spec);

// GFX v1.0 (F32): code, then the jump table as the ucode's tail (jt_offset = code / 4).
struct GfxV1Spec {
  FwCommon common;
  uint32_t feature = 50, code_bytes = 0x400, jt_dwords = 0x10;
};
FirmwareBytes gfx_v1_image(const GfxV1Spec& spec);
// GFX v2.0 (RS64 PFP/ME/MEC): code, then the stack/data.
struct GfxV2Spec {
  FwCommon common;
  uint32_t feature = 29, code_bytes = 0x400, data_bytes = 0x200;
  uint64_t entry_point = 0x0007000000003000;
};
FirmwareBytes gfx_v2_image(const GfxV2Spec& spec);

// IMU v1.0: IRAM, then DRAM.
struct ImuV1Spec {
  FwCommon common;
  uint32_t iram_bytes = 0x200, dram_bytes = 0x200;
};
FirmwareBytes imu_v1_image(const ImuV1Spec& spec);

// RLC v2.0..v2.4: RLC_G, then every region of that minor whose size is non-zero, in the order
// below (a region of size 0 gets the current offset, as in the real files); the fields of a
// later minor are ignored.
struct RlcV2Spec {
  FwCommon common;
  uint16_t minor = 4;
  uint32_t feature = 1, rlc_g_bytes = 0x100;
  uint32_t reg_list_format_bytes = 0x40, reg_list_bytes = 0x40;    // v2.0: driver-programmed
  uint32_t cntl_bytes = 0x40, gpm_bytes = 0x40, srm_bytes = 0x40;  // v2.1: restore lists
  uint32_t iram_bytes = 0x40, dram_bytes = 0x40;                   // v2.2
  uint32_t rlcp_bytes = 0x40, rlcv_bytes = 0x40;                   // v2.3
  uint32_t tap_delay_bytes[5] = {0x40, 0x40, 0x40, 0x40, 0x40};    // v2.4: global, SE0..SE3
};
FirmwareBytes rlc_v2_image(const RlcV2Spec& spec);

// MES v1.0: code, then data, with their start addresses.
struct MesV1Spec {
  FwCommon common;
  uint32_t code_bytes = 0x200, data_bytes = 0x100;
  uint64_t code_start = 0xfffffffff0005000, data_start = 0xfffffffff0100000;
};
FirmwareBytes mes_v1_image(const MesV1Spec& spec);

// --- the package --------------------------------------------------------------------------------

struct SimFirmwareFile {
  std::string name;  // "psp_13_0_0_sos.bin"
  drivers::amd::FirmwareKind kind = drivers::amd::FirmwareKind::kPspSos;
  FirmwareBytes bytes;
};

// The synthetic file NAME ("gc_11_0_0_mec", ".bin" optional), signed; kUnsupported for a name
// the simulator has no image for (the message lists the ones it has).
Result<SimFirmwareFile> sim_firmware_file(std::string_view name);
// Every name sim_firmware_file() knows, "psp_13_0_0_sos.bin", ...
std::vector<std::string> sim_firmware_names();

// The files am_firmware_names(ips) lists, in its order, each checked with parse_firmware (crc32
// verified). Built once per set of names and kept for the process (thread-safe): the span stays
// valid. kUnsupported when a file has no synthetic image.
Result<std::span<const SimFirmwareFile>> sim_firmware_package(
    const drivers::amd::AmFirmwareIps& ips);
// The IP versions of a simulated profile (gc_version 110000, 120001, 90403), from its discovery
// table (discovery_spec); kUnsupported otherwise.
Result<drivers::amd::AmFirmwareIps> sim_firmware_ips(uint32_t gc_version);
Result<std::span<const SimFirmwareFile>> sim_firmware_package(uint32_t gc_version);

// A directory holding every sim_firmware_names() file as NAME.bin: created with mkdtemp under
// $TMPDIR (else /tmp) and written on the first call, the same path afterwards (thread-safe),
// removed at exit by the process that created it. For FirmwareLoader({dir}).
Result<std::string> sim_firmware_dir();

// The "FILE:REGION" signature a package region begins with; nullopt when `bytes` does not begin
// with one (e.g. the builders' unsigned images).
struct SimBlobSignature {
  std::string file;    // "psp_13_0_0_sos.bin"
  std::string region;  // "SOS", "RLC_G", "PPTABLE_0x00000e50", "SOS(aux)"
};
std::optional<SimBlobSignature> sim_blob_signature(std::span<const uint8_t> bytes);

}  // namespace rawgpu::sim
